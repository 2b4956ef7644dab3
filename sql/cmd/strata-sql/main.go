// Command strata-sql runs SQL over Strata files in DuckDB:
//
//	strata-sql "SELECT l_returnflag, count(*) FROM 'lineitem.strata' GROUP BY 1"
//	strata-sql --format csv "SELECT * FROM strata_scan('s3://b/t.strata') LIMIT 10"
//	strata-sql --format csv --null NA "SELECT * FROM 't.strata'"   nulls as NA, for import --null NA
//	echo "SELECT 42" | strata-sql
//	strata-sql bench --sf 0.1      TPC-H Q1 and Q6: Strata in DuckDB, DuckDB on Parquet, DuckDB native
//
// DuckDB plans and executes; strata_scan reads the columns the query needs
// on DuckDB's threads, and the WHERE conjuncts that compare a Strata column
// with constants are pushed into the scan (duckstrata.Pushdown). `strata
// sql ...` runs this command (the strata CLI itself does not link DuckDB).
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"

	"strata/interop"
	_ "strata/iox/s3" // s3:// and https:// locations
	"strata/sql/duckstrata"
)

const usage = `strata-sql — SQL over Strata files, executed by DuckDB

usage:
  strata-sql [flags] "SQL"        (or the SQL on standard input)
  strata-sql bench [--sf 0.1] [--runs 5] [--threads N]

A table named like a Strata file ('lineitem.strata', 's3://bucket/t.strata')
is read with strata_scan; strata_scan(path, filter := 'strata where') reads
one explicitly. WHERE conjuncts that compare a Strata column with constants
are passed to the scan (see --explain).

flags:
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bench" {
		if err := runBench(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "strata-sql bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "strata-sql:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("strata-sql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "table", "output: table, csv (as strata export writes it: a null an empty field, or NULL in a result of one column; an empty string \"\"; the strings NULL and null quoted) or json (one object per row); the table prints a null as NULL, and text that could read as something else (the string NULL, text holding a newline or other character that does not print, beginning with a quote or beginning or ending with a space) as a double-quoted Go string literal (\"NULL\", \"a\\nb\")")
	threads := fs.Int("threads", 0, "DuckDB threads (0: one per core)")
	noPush := fs.Bool("no-pushdown", false, "do not pass WHERE conjuncts to the Strata scans")
	explain := fs.Bool("explain", false, "print the query as rewritten for pushdown, and what was pushed, to stderr")
	timer := fs.Bool("timer", false, "print the query's time to stderr")
	null := fs.String("null", "", "CSV output: comma-separated `words` its reader takes for null, as strata import's --null (e.g. 'NA' or '\\N'): "+
		"a null is written as the first word, and a string equal to any word, or to NULL, null or \"\", quoted, so that "+
		"strata import --null with the same words reads each back as it was (default: a null is an empty field)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err.Error()}
	}
	var query string
	switch fs.NArg() {
	case 0:
		b, err := io.ReadAll(stdin)
		if err != nil {
			return err
		}
		query = string(b)
	case 1:
		query = fs.Arg(0)
		if query == "-" {
			b, err := io.ReadAll(stdin)
			if err != nil {
				return err
			}
			query = string(b)
		}
	default:
		return usageError{"want one SQL argument (quote it)"}
	}
	if strings.TrimSpace(query) == "" {
		return usageError{"no SQL given"}
	}
	switch *format {
	case "table", "csv", "json":
	default:
		return usageError{fmt.Sprintf("unknown --format %q (table, csv or json)", *format)}
	}
	words, err := nullWords(*null, *format == "csv")
	if err != nil {
		return err
	}
	ctx := context.Background()
	db, err := duckstrata.Open("")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if *threads > 0 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", *threads)); err != nil {
			return err
		}
	}
	start := time.Now()
	if !*noPush {
		q, pushed, err := duckstrata.Pushdown(ctx, conn, query)
		if err != nil {
			return err
		}
		if *explain {
			for _, p := range pushed {
				if p.Filter == "" {
					fmt.Fprintf(stderr, "-- %s: nothing pushed; %d WHERE conjunct(s) not pushable\n", p.Table, p.Kept)
				} else {
					fmt.Fprintf(stderr, "-- %s: pushed %s; %d WHERE conjunct(s) not pushable\n", p.Table, p.Filter, p.Kept)
				}
			}
			fmt.Fprintf(stderr, "%s\n", q)
		}
		query = q
	}
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	n, err := printRows(rows, *format, words, stdout)
	if err != nil {
		return err
	}
	if *timer {
		fmt.Fprintf(stderr, "%d rows in %v\n", n, time.Since(start).Round(time.Microsecond))
	}
	return nil
}

// nullWords returns the words of --null, as strata's nullWords and
// interop's NewCSVWriterNulls take them for strata's CSV output: none for
// an empty flag, and a usage error when there are words and the output is
// not CSV, or a word cannot be written as a bare CSV field (it holds a
// quote or a line break; the separator, a comma, cannot be in a word of a
// comma-separated list), or the first word, which nulls are written as,
// is one CSV quotes on its own (beginning with a space, or \.), which a
// reader would take for a string.
func nullWords(s string, csv bool) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if !csv {
		return nil, usageError{fmt.Sprintf("--null %q: null words apply to CSV output only (--format csv)", s)}
	}
	words := strings.Split(s, ",")
	for _, w := range words {
		if strings.ContainsAny(w, "\"\r\n") {
			return nil, usageError{fmt.Sprintf("--null: null word %q may not hold a quote or a line break", w)}
		}
	}
	if r, _ := utf8.DecodeRuneInString(words[0]); words[0] == `\.` || words[0] != "" && unicode.IsSpace(r) {
		return nil, usageError{fmt.Sprintf("--null: first null word %q: nulls are written as the first word, and CSV writes one beginning with a space, or \\., quoted, which reads back as a string (put another word first)", words[0])}
	}
	return words, nil
}

// csvNullWords are the fields strata import (and DuckDB) read as null
// whatever --null says: a string with one of these texts is quoted.
var csvNullWords = []string{"", "NULL", "null"}

// printRows writes a result as an aligned table, CSV or JSON lines. CSV
// is written as strata export writes it, so that strata import (or
// DuckDB) reads every value back as it was: a null as an empty field, or
// NULL in a result of one column (an empty field there is an empty line,
// which CSV readers skip), and an empty string as "", a string that is a
// null word (NULL, null) as "NULL" and "null" (see csvWriter). With null
// words of the reader (--null, words), a null is written as the first of
// them, unless it is empty, and a string equal to any of them is quoted
// too; a value of another type whose text is one of them fails, since an
// importer reads such a field as null quoted or not (as strata export
// --null does).
func printRows(rows *sql.Rows, format string, words []string, out io.Writer) (int, error) {
	cols, err := rows.ColumnTypes()
	if err != nil {
		return 0, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name()
	}
	w := bufio.NewWriter(out)
	defer w.Flush()
	var cw *csvWriter
	var table [][]string
	switch format {
	case "csv":
		cw = &csvWriter{w: w, null: "", fields: make([]string, len(cols)), quote: make([]bool, len(cols))}
		switch {
		case len(words) > 0 && words[0] != "":
			cw.null = words[0]
		case len(cols) == 1:
			cw.null = "NULL"
		}
		for i, name := range names {
			// (an empty name quoted: an empty header line would be skipped)
			cw.fields[i], cw.quote[i] = name, name == ""
		}
		cw.writeRow()
	case "table":
		head := make([]string, len(names))
		for i, name := range names {
			head[i] = interop.TableText(name)
		}
		table = append(table, head)
	}
	n := 0
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		n++
		switch format {
		case "json":
			obj := make([]string, len(cols))
			for i, v := range vals {
				k, _ := json.Marshal(names[i])
				obj[i] = string(k) + ":" + jsonValue(v, cols[i].DatabaseTypeName())
			}
			fmt.Fprintf(w, "{%s}\n", strings.Join(obj, ","))
		case "csv":
			for i, v := range vals {
				cw.fields[i], cw.quote[i] = cw.null, false
				if v == nil {
					continue
				}
				s := text(v, cols[i].DatabaseTypeName())
				custom := slices.Contains(words, s)
				if !isText(v) {
					// (no number, time or boolean has the text of a
					// standard null word; a custom one may)
					if custom {
						return n, fmt.Errorf("column %q: value %s is a null word of --null; it would read back as null (choose another null word)", names[i], s)
					}
					cw.fields[i] = s
					continue
				}
				cw.fields[i], cw.quote[i] = s, custom || slices.Contains(csvNullWords, s)
			}
			cw.writeRow()
		default:
			row := make([]string, len(cols))
			for i, v := range vals {
				row[i] = tableCell(v, cols[i].DatabaseTypeName())
			}
			table = append(table, row)
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if cw != nil {
		return n, w.Flush()
	}
	if table != nil {
		writeTable(w, table)
		fmt.Fprintf(w, "(%d rows)\n", n)
	}
	return n, nil
}

// csvWriter writes CSV records: fields separated by commas, a record a
// line ending in \n. encoding/csv cannot be told to quote a field, and
// writes an empty string and a null word bare, as a null; this writer
// quotes a field when told to, and when its text needs it (it holds a
// comma, a quote or a line break, or begins with a space or tab, which
// some readers trim, or is \., which PostgreSQL reads as the end of the
// data), doubling its quotes.
type csvWriter struct {
	w      *bufio.Writer
	null   string   // a null's field text
	fields []string // the next record's fields
	quote  []bool   // per field: write it quoted whatever its text
}

// writeRow writes fields as a record; errors are bufio.Writer's, sticky,
// and returned by its Flush.
func (c *csvWriter) writeRow() {
	for i, f := range c.fields {
		if i > 0 {
			c.w.WriteByte(',')
		}
		if !c.quote[i] && !csvNeedsQuotes(f) {
			c.w.WriteString(f)
			continue
		}
		c.w.WriteByte('"')
		c.w.WriteString(strings.ReplaceAll(f, `"`, `""`))
		c.w.WriteByte('"')
	}
	c.w.WriteByte('\n')
}

// isText reports whether a value is written to CSV as text, which strata
// import reads back as a string when quoted: a string, or a list, map or
// struct as JSON text (which import reads as a string column).
func isText(v any) bool {
	switch v.(type) {
	case string, map[string]any, []any, duckdb.Map:
		return true
	}
	return false
}

// csvNeedsQuotes reports whether a CSV field of text s must be quoted for
// a reader to read s back (see csvWriter).
func csvNeedsQuotes(s string) bool {
	return strings.ContainsAny(s, ",\"\r\n") || s == `\.` || s != "" && (s[0] == ' ' || s[0] == '\t')
}

// tableCell is a value as a table cell, as strata cat prints one: a null
// is NULL, the string NULL "NULL", and text that could read as something
// else (a newline, a leading quote, an edge space) a quoted Go string
// literal (interop.TableText), so that no two values print alike and a
// row stays one line.
func tableCell(v any, dbType string) string {
	if v == nil {
		return "NULL"
	}
	s := text(v, dbType)
	if _, str := v.(string); str && s == "NULL" {
		return `"NULL"`
	}
	return interop.TableText(s)
}

func writeTable(w io.Writer, t [][]string) {
	width := make([]int, len(t[0]))
	for _, r := range t {
		for i, s := range r {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	for k, r := range t {
		for i, s := range r {
			if i > 0 {
				io.WriteString(w, "  ")
			}
			pad := width[i] - utf8.RuneCountInString(s)
			if i == len(r)-1 {
				pad = 0
			}
			io.WriteString(w, s+strings.Repeat(" ", pad))
		}
		io.WriteString(w, "\n")
		if k == 0 {
			for i := range r {
				if i > 0 {
					io.WriteString(w, "  ")
				}
				io.WriteString(w, strings.Repeat("-", width[i]))
			}
			io.WriteString(w, "\n")
		}
	}
}

// text renders a value as DuckDB's CLI would: dates as YYYY-MM-DD,
// timestamps without a zone as local wall time, NULL as NULL; a date or
// timestamp of a year outside 0000-9999 with a signed ISO 8601 year of at
// least four digits (see isoDate).
func text(v any, dbType string) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		switch {
		case dbType == "DATE":
			return isoDate(x, "")
		case strings.HasPrefix(dbType, "TIMESTAMP") && strings.Contains(dbType, "TIME ZONE") || dbType == "TIMESTAMPTZ":
			return isoDate(x.UTC(), " 15:04:05.999999999Z07:00")
		case strings.HasPrefix(dbType, "TIME") && !strings.HasPrefix(dbType, "TIMESTAMP"):
			return x.Format("15:04:05.999999")
		}
		return isoDate(x.UTC(), " 15:04:05.999999999")
	case []byte:
		return fmt.Sprintf("\\x%x", x)
	case *big.Int:
		return x.String()
	case duckdb.Decimal:
		return x.String()
	case string:
		return x
	case map[string]any, []any, duckdb.Map:
		b, err := json.Marshal(x)
		if err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}

// isoDate writes t's date, then its time of day in the layout clock (""
// for none). A year within 0000-9999 is four digits, as Go writes it; one
// outside has a sign and at least four digits (+290000-01-01,
// -0100-03-01: ISO 8601's expanded years, year 0 being 1 BC), as strata
// cat, export and interop.ExtendedYearText write them, so that strata-sql
// and strata print a far year alike and no year reads as another field
// (Go writes year 290000 bare, as 290000-01-01).
func isoDate(t time.Time, clock string) string {
	y := t.Year()
	var year string
	switch {
	case y > 9999:
		year = "+" + strconv.Itoa(y)
	case y < 0:
		year = "-" + fmt.Sprintf("%04d", -y)
	default:
		year = fmt.Sprintf("%04d", y)
	}
	return year + t.Format("-01-02"+clock)
}

func jsonValue(v any, dbType string) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *big.Int:
		return x.String()
	case duckdb.Decimal:
		return x.String()
	case time.Time, []byte:
		b, _ := json.Marshal(text(v, dbType))
		return string(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprint(v))
	}
	return string(b)
}
