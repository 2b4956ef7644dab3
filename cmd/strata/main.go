// Command strata writes, inspects, converts and queries Strata files.
//
//	strata demo                          generate lineitem, compare Strata with Parquet
//	strata import SRC DST.strata         SRC: .parquet, .csv or .arrow
//	strata export SRC.strata DST         DST: .parquet, .csv or .arrow
//	strata inspect FILE [--json]
//	strata cat FILE [--columns a,b] [--offset N] [--limit N] [--format table|csv|json]
//	strata scan FILE [--columns a,b] [--where EXPR] [--limit N] [--stats] [--format ...]
//	strata take FILE ROW...
//	strata agg FILE "count(*), sum(col)" [--where EXPR]
//	strata gen tpch --sf 0.1 OUT         OUT: .strata, .parquet or .csv
//	strata bench [flags]                 the side-by-side harness (bench/ module)
//	strata calibrate                     measure the decode costs encoding selection weighs
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

const usage = `strata — columnar files with cascading encodings and selective reads

usage:
  strata demo [--sf 0.1] [--keep DIR]      generate TPC-H lineitem, write Strata and Parquet, compare
  strata import SRC DST.strata [--optimize speed|balanced|size]
                                           SRC is .parquet, .csv or .arrow
  strata export SRC.strata DST             DST is .parquet, .csv or .arrow
  strata inspect FILE [--json]             rows, stripes, bytes and encodings per column
  strata cat FILE [--columns a,b] [--offset N] [--limit N] [--format table|csv|json]
  strata scan FILE [--columns a,b] [--where EXPR] [--limit N] [--stats] [--format table|csv|json]
  strata take FILE ROW...                  whole rows by row number
  strata agg FILE "count(*), sum(c), min(c), max(c)" [--where EXPR]
  strata gen tpch [--sf 0.1] [--seed 1] OUT   OUT is .strata, .parquet or .csv
  strata bench [--sf 0.1 | --parquet FILE] [--runs 7] [--json F] [--svg F]
                                           Strata beside arrow-go, parquet-go and DuckDB (needs a checkout)
  strata calibrate [--rounds 15]           measure each encoding's decode cost and zstd's on this machine
                                           (the figures encoding selection weighs bytes against)

Run 'strata COMMAND -h' for a command's flags.
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
	err := run(cmd, args)
	if err != nil {
		var ue usageError
		code := 1
		if errors.As(err, &ue) {
			code = 2
		}
		fmt.Fprintf(os.Stderr, "strata %s: %v\n", cmd, err)
		pprof.StopCPUProfile()
		os.Exit(code)
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
	case "cat":
		err = runCat(args)
	case "scan":
		err = runScan(args)
	case "take":
		err = runTake(args)
	case "agg":
		err = runAgg(args)
	case "gen":
		err = runGen(args)
	case "bench":
		err = runBench(args)
	case "calibrate":
		err = runCalibrate(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	default:
		return usagef("unknown command %q\n\n%s", cmd, usage)
	}
	return err
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }
