// Command strata writes, inspects, converts and queries Strata files.
//
//	strata demo                          generate lineitem, compare Strata with Parquet
//	strata import SRC... DST.strata      SRC: .parquet, .csv, .arrow or .json; patterns import many as one table
//	strata export SRC.strata DST         DST: .parquet, .csv or .arrow; a pattern exports many as one table
//	strata inspect FILE [--json]
//	strata cat FILE|PATTERN [--columns a,b] [--offset N] [--limit N] [--format table|csv|json]
//	strata scan FILE|PATTERN [--columns a,b] [--where EXPR] [--limit N] [--stats] [--split JSON] [--threads N] [--format ...]
//	strata take FILE ROW...
//	strata agg FILE|PATTERN "count(*), sum(col)" [--where EXPR] [--split JSON] [--format table|csv|json]
//	strata splits FILE [--target 128MiB]  stripe-aligned pieces for a distributed scan, as JSON lines
//	strata verify FILE...                check every checksum, locate the first corruption
//	strata gen tpch --sf 0.1 OUT         OUT: .strata, .parquet or .csv
//	strata gen tsbs --hosts H --duration D OUT   the TSBS cpu-only workload
//	strata ts import|query|agg|sample|last|paths|info ...   time-series tables
//	strata sizes DIR|FILE.parquet...     import each Parquet file, compare bytes per set and column
//	strata bench [flags]                 the side-by-side harness (bench/ module)
//	strata calibrate                     measure the decode costs encoding selection weighs
//	strata sql "SELECT ... FROM 'f.strata'"  SQL through DuckDB (sql/ module's strata-sql)
//
// Every FILE a command reads may also be s3://bucket/key or an http(s) URL.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"syscall"
	"time"
)

const usage = `strata — columnar files with cascading encodings and selective reads

usage:
  strata demo [--sf 0.1] [--keep DIR]      generate TPC-H lineitem, write Strata and Parquet, compare
  strata import SRC... DST.strata [--optimize speed|balanced|size] [--layout-from EARLIER.strata]
                                           SRC is .parquet, .csv, .arrow, .json/.jsonl or .strata; several SRCs (or patterns,
                                           'logs/*.parquet') of the same columns import in order into one file;
                                           --layout-from replays the encodings an earlier file of the same table chose;
                                           --union-by-name imports SRCs of different columns by column name;
                                           CSV: --delimiter C|tab (default: sniffed), --no-header, --null 'NA,\N', --decimal-comma, --lazy-quotes
  strata export SRC.strata DST             DST is .parquet, .csv, .arrow or .jsonl (JSON lines); CSV writes a null as an empty field
                                           and an empty string as "" (import reads them back apart); --null 'NA,\N' writes a null
                                           as NA and quotes a string NA, for a reader of those null words (import --null 'NA,\N')
  strata inspect FILE [--json | --html]    rows, stripes, bytes and encodings per column (--html: a self-contained page)
  strata cat FILE [--columns a,b] [--offset N] [--limit N] [--format table|csv|json]
                                           (table: a null is NULL; text that could read as something else, the string
                                           NULL or text holding a newline, is a quoted Go string literal: "NULL", "a\nb")
  strata scan FILE [--columns a,b] [--where EXPR] [--limit N] [--stats] [--split JSON|@F] [--format table|csv|json]
  strata take FILE ROW...                  whole rows by row number
  strata agg FILE "count(*), sum(c), avg(c), min(c), max(c)" [--where EXPR] [--split JSON|@F] [--format table|csv|json]
  strata splits FILE [--target 128MiB]     stripe-aligned splits for a distributed scan, one JSON a line
                                           (reading commands take --threads N: goroutines per query, 0 = all cores;
                                           import and sizes take it too: goroutines encoding)
  strata verify FILE...                    check the file checksum and every chunk's; exit 3 if one is corrupt,
                                           1 if one cannot be read
  strata gen tpch [--sf 0.1] [--seed 1] OUT   OUT is .strata, .parquet or .csv
  strata gen tsbs [--hosts 100] [--duration 24h] [--interval 10s] OUT
                                           the TSBS cpu-only DevOps workload (.strata: a time-series table)
  strata ts COMMAND ...                    time-series tables: import, query, agg, sample, last, paths, info
  strata sizes DIR|FILE.parquet... [--optimize speed|balanced|size] [--stripe-rows N]
                                           Strata's bytes beside Parquet's, per set and per column
                                           (a file it cannot import is reported, skipped, and exits 1;
                                           --stripe-rows: stripes of N rows beside the Parquet file
                                           rewritten in row groups of N rows)
  strata bench [--sf 0.1 | --parquet FILE] [--runs 7] [--json F] [--svg F]
                                           Strata beside arrow-go, parquet-go and DuckDB (needs a checkout)
  strata calibrate [--rounds 15]           measure each encoding's decode cost and zstd's on this machine
                                           (the figures encoding selection weighs bytes against)
  strata sql [--format table|csv|json] [--explain] "SELECT ... FROM 'FILE.strata' ..."
                                           SQL executed by DuckDB, Strata scanning (runs strata-sql)

A FILE that a command reads may be a local path, s3://bucket/key or an http(s) URL. cat, scan,
take, agg, export and verify also take a pattern of local files or s3:// objects ('parts/*.strata',
* and ? within one path segment) and read the files it matches as one table. The files that
import, export, ts import and gen write may be s3://bucket/key objects too, uploaded as written
and in place whole or not at all.
The files must hold the same columns; with --union-by-name (cat, scan, take, agg, export) they
are read by column name, and a file lacking a column reads it as nulls.
For s3:// the usual AWS variables apply (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_REGION, AWS_ENDPOINT_URL for an S3-compatible server, AWS_MAX_ATTEMPTS), or the flags
--endpoint, --region, --access-key, --secret-key and --anonymous. Remote requests that fail in a
way that may pass are retried: --attempts N tries in all (default 5), each bounded by
--request-timeout (default 2m; a server that never answers costs 1m a try).

Run 'strata COMMAND -h' for a command's flags.

Exit status: 0 done; 1 failed (I/O, unsupported data, a decode limit);
2 the command line is wrong (command, flags, arguments, column names,
expressions); 3 the file is corrupt, truncated or not a Strata file.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	// STRATA_CPUPROFILE=file writes a CPU profile of the command, for
	// looking into performance without a separate harness.
	if p := os.Getenv("STRATA_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	// STRATA_MEMPROFILE=file writes a heap profile (allocations since
	// the start, and what is live) when the command ends.
	if p := os.Getenv("STRATA_MEMPROFILE"); p != "" {
		defer writeHeapProfile(p)
	}
	// An interrupted command aborts the uploads it started (a local file
	// being written is left under its temporary name, which the next
	// write of that path removes).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var interrupted atomic.Bool
	go func() {
		s := <-sigs
		interrupted.Store(true) // (before the aborts cancel what run waits on)
		abortUploads()
		fmt.Fprintf(os.Stderr, "strata %s: %v\n", cmd, s)
		dieOf(s)
	}()
	err := run(cmd, args)
	if interrupted.Load() {
		select {} // the aborts finish and exit
	}
	if err != nil {
		code := exitCode(err)
		fmt.Fprintf(os.Stderr, "strata %s: %v\n", cmd, err)
		pprof.StopCPUProfile()
		os.Exit(code)
	}
}

// dieOf ends the process by signal s, as its default action would have,
// once the interrupted command has cleaned up: a shell running commands in
// a loop stops at a command killed by SIGINT, but takes an exit status of
// 130 for a command that handled the interrupt itself and runs the next
// one. Where the signal cannot be raised again (Windows, or a signal the
// parent ignores), the exit status says it: 130 for SIGINT, 143 for
// SIGTERM.
func dieOf(s os.Signal) {
	signal.Reset(s)
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(s) == nil {
		time.Sleep(time.Second) // (the signal is on its way)
	}
	code := 130
	if s == syscall.SIGTERM {
		code = 143
	}
	os.Exit(code)
}

// writeHeapProfile writes the heap profile to path, after a collection so
// that the live figures are current; a failure is reported, not fatal.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		runtime.GC()
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "strata: heap profile: %v\n", err)
	}
}

func run(cmd string, args []string) error {
	var err error
	switch cmd {
	case "demo":
		err = runDemo(args)
	case "import":
		err = runImport(args)
	case "export":
		err = runExport(args)
	case "inspect":
		err = runInspect(args)
	case "verify":
		err = runVerify(args)
	case "cat":
		err = runCat(args)
	case "scan":
		err = runScan(args)
	case "take":
		err = runTake(args)
	case "agg":
		err = runAgg(args)
	case "splits":
		err = runSplits(args)
	case "gen":
		err = runGen(args)
	case "sizes":
		err = runSizes(args)
	case "bench":
		err = runBench(args)
	case "calibrate":
		err = runCalibrate(args)
	case "ts":
		err = runTS(args)
	case "sql":
		err = runSQL(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	default:
		return usagef("unknown command %q\n\n%s", cmd, usage)
	}
	if errors.Is(err, flag.ErrHelp) {
		// -h or --help: the command printed its flags
		return nil
	}
	return err
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }
