// Package duckstrata lets DuckDB query Strata files: it registers the table
// function strata_scan and a replacement scan with a DuckDB database opened
// through duckdb-go, so that
//
//	SELECT l_returnflag, sum(l_quantity) FROM 'lineitem.strata' GROUP BY 1
//	SELECT * FROM strata_scan('s3://bucket/t.strata', filter := 'x > 5')
//
// run in DuckDB with Strata reading the file. DuckDB passes the columns a
// query uses (projection pushdown) and runs the scan on its threads, each
// taking stripe-aligned pieces of the file. DuckDB's C API hands no filters
// to table functions, so filters reach Strata another way: Pushdown (used by
// Query and the strata-sql command) reads the query with DuckDB's own parser
// and passes the WHERE conjuncts that compare a column of a Strata file
// with constants to its scan as the filter argument. See Pushdown for which
// conjuncts and why that is exact.
//
// The package needs cgo and links DuckDB; it lives in its own module so the
// Strata library and its CLI stay pure Go.
package duckstrata

/*
void strataBind(void *);
void strataInit(void *);
void strataFunction(void *, void *);
void strataDelete(void *);
*/
import "C"

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"strata"
	"strata/iox"
)

// FunctionName is the name of the table function.
const FunctionName = "strata_scan"

// Option tunes the registered function.
type Option func(*config)

type config struct {
	open       func(ctx context.Context, path string) (*strata.File, error)
	splitBytes int64
	pushAll    bool
	openOpts   []strata.OpenOption
}

// WithOpenOptions passes options (memory limit, verification, caches) to
// the default opener.
func WithOpenOptions(opts ...strata.OpenOption) Option {
	return func(c *config) { c.openOpts = append(c.openOpts, opts...) }
}

// WithOpen sets how strata_scan opens a path (default strata.OpenContext,
// which reads local paths and the URLs of registered sources: import
// strata/iox/s3 for s3:// and https://).
func WithOpen(open func(ctx context.Context, path string) (*strata.File, error)) Option {
	return func(c *config) { c.open = open }
}

// WithSplitBytes sets the stripe data per split, the unit a DuckDB thread
// claims (default: one stripe per split).
func WithSplitBytes(n int64) Option { return func(c *config) { c.splitBytes = n } }

// WithPushAll makes Pushdown push every pushable conjunct, without
// estimating from the file's statistics whether the filter is selective
// enough to pay for itself (see Pushdown).
func WithPushAll() Option { return func(c *config) { c.pushAll = true } }

func newConfig(opts []Option) *config {
	c := &config{}
	c.open = func(ctx context.Context, path string) (*strata.File, error) {
		return strata.OpenContext(ctx, path, c.openOpts...)
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Register adds the strata_scan table function to the database of conn.
// DuckDB keeps functions in the database's catalog, so every connection of
// that database can then use it; registering twice is an error.
//
// strata_scan(path VARCHAR, filter := VARCHAR, union_by_name := BOOLEAN)
// returns every top-level column of the file, or of the files a pattern
// names ('data/*.strata', read as one table; they must hold the same
// columns, or with union_by_name := true are read by column name, a file's
// missing columns as nulls): integers, floats, booleans, strings and binary,
// dates, timestamps (TIMESTAMPTZ when the column has a time zone), times
// of day (TIME; nanoseconds rounded to microseconds), durations (INTERVAL)
// and decimals map to the DuckDB types of the same meaning; structs are
// STRUCTs of their fields (so s.a reaches a field); list and map columns,
// and lists and maps inside structs, arrive as VARCHAR holding JSON text.
// A string that is not UTF-8, which DuckDB's VARCHAR cannot hold, fails the
// query that reads it (as DuckDB's Parquet reader fails), naming the column
// and the value. Names that differ from an earlier column's (or struct
// field's) only by case, which DuckDB cannot tell apart, are renamed as
// DuckDB's Parquet reader renames them: "x" and "X" read as x and X_1.
// filter is a Strata WHERE
// expression (see package strata/filter) applied inside the scan.
func Register(ctx context.Context, conn *sql.Conn, opts ...Option) error {
	return conn.Raw(func(dc any) error {
		mc, err := rawConnection(dc)
		if err != nil {
			return err
		}
		return registerOn(mc, newConfig(opts))
	})
}

// rawConnection returns the C API connection inside a duckdb-go driver
// connection. duckdb-go exposes it to its own table-function code only, so
// it is read from the unexported field; a test pins this to the duckdb-go
// version in go.mod, and a change of that field is reported as an error,
// not a crash.
func rawConnection(dc any) (mapping.Connection, error) {
	c, ok := dc.(*duckdb.Conn)
	if !ok {
		return mapping.Connection{}, fmt.Errorf("duckstrata: not a duckdb-go connection (%T)", dc)
	}
	f := reflect.ValueOf(c).Elem().FieldByName("conn")
	if !f.IsValid() || f.Type() != reflect.TypeOf(mapping.Connection{}) {
		return mapping.Connection{}, errors.New("duckstrata: this duckdb-go version keeps its C connection elsewhere; update duckstrata")
	}
	mc := *(*mapping.Connection)(unsafe.Pointer(f.UnsafeAddr()))
	if mc.Ptr == nil {
		return mapping.Connection{}, errors.New("duckstrata: connection is closed")
	}
	return mc, nil
}

func registerOn(conn mapping.Connection, cfg *config) error {
	f := mapping.CreateTableFunction()
	defer mapping.DestroyTableFunction(&f)
	mapping.TableFunctionSetName(f, FunctionName)
	varchar := mapping.CreateLogicalType(mapping.TypeVarchar)
	defer mapping.DestroyLogicalType(&varchar)
	mapping.TableFunctionAddParameter(f, varchar)
	mapping.TableFunctionAddNamedParameter(f, "filter", varchar)
	boolean := mapping.CreateLogicalType(mapping.TypeBoolean)
	defer mapping.DestroyLogicalType(&boolean)
	mapping.TableFunctionAddNamedParameter(f, "union_by_name", boolean)
	mapping.TableFunctionAddNamedParameter(f, "listing", varchar)
	mapping.TableFunctionSetExtraInfo(f, newHandle(&functionInfo{cfg: cfg}), unsafe.Pointer(C.strataDelete))
	mapping.TableFunctionSetBind(f, unsafe.Pointer(C.strataBind))
	mapping.TableFunctionSetInit(f, unsafe.Pointer(C.strataInit))
	mapping.TableFunctionSetFunction(f, unsafe.Pointer(C.strataFunction))
	mapping.TableFunctionSupportsProjectionPushdown(f, true)
	if mapping.RegisterTableFunction(conn, f) == mapping.StateError {
		return fmt.Errorf("duckstrata: registering %s failed (is it registered already?)", FunctionName)
	}
	return nil
}

// expandPaths returns the files a strata_scan path names: the path itself
// when it holds no pattern character, else the local files or s3:// objects
// a pattern matches (iox.Glob: *, ? and [...] within each segment of the
// path), in lexical order. A local file that exists under the pattern's
// own name is read as named.
func expandPaths(ctx context.Context, p string) ([]string, error) {
	m, err := iox.Glob(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("strata_scan: %w", err)
	}
	return m, nil
}

// openFirst opens the first file path names (see expandPaths), and
// returns every path it names.
func (c *config) openFirst(ctx context.Context, path string) (*strata.File, []string, error) {
	paths, err := expandPaths(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	f, err := c.open(ctx, paths[0])
	return f, paths, err
}

// The files Pushdown found for a pattern reach the bind of the query it
// rewrote through strata_scan's listing argument, a token of this table:
// the query then lists the pattern once, where over object storage each
// listing is a round trip ahead of every other request. A token is taken
// once; at most maxListings wait, the oldest dropped first (a rewritten
// query that was never run).
var listings struct {
	sync.Mutex
	next  uint64
	kept  map[string]listing
	order []string
}

// listing is the files a pattern matched when Pushdown listed it.
type listing struct {
	pattern string
	paths   []string
}

const maxListings = 256

// keepListing keeps the paths pattern matched for a bind to take and
// returns their token.
func keepListing(pattern string, paths []string) string {
	listings.Lock()
	defer listings.Unlock()
	if listings.kept == nil {
		listings.kept = map[string]listing{}
	}
	listings.next++
	tok := fmt.Sprintf("listing-%d", listings.next)
	listings.kept[tok] = listing{pattern, paths}
	listings.order = append(listings.order, tok)
	for len(listings.order) > maxListings {
		delete(listings.kept, listings.order[0])
		listings.order = listings.order[1:]
	}
	return tok
}

// takeListing returns the paths kept under tok for pattern, once; a token
// kept for another pattern (a query edited by hand) is not taken.
func takeListing(tok, pattern string) ([]string, bool) {
	listings.Lock()
	defer listings.Unlock()
	l, ok := listings.kept[tok]
	if !ok || l.pattern != pattern {
		return nil, false
	}
	delete(listings.kept, tok) // (order keeps it until it is dropped)
	return l.paths, true
}

// isPattern reports whether a strata_scan path holds a pattern character.
func isPattern(p string) bool { return strings.ContainsAny(p, "*?[") }

// openUnion opens the files path names and returns the first (whose
// statistics estimate filters for all), the union of their columns
// (union_by_name) and their paths.
func (c *config) openUnion(ctx context.Context, path string) (*strata.File, *arrow.Schema, []string, error) {
	paths, err := expandPaths(ctx, path)
	if err != nil {
		return nil, nil, nil, err
	}
	schemas := make([]*arrow.Schema, 0, len(paths))
	var first *strata.File
	for _, p := range paths {
		f, err := c.open(ctx, p)
		if err != nil {
			if first != nil {
				first.Close()
			}
			return nil, nil, nil, err
		}
		schemas = append(schemas, f.Schema())
		if first == nil {
			first = f
		} else {
			f.Close()
		}
	}
	sch, err := strata.UnionByName(schemas...)
	if err != nil {
		first.Close()
		return nil, nil, nil, err
	}
	return first, sch, paths, nil
}

// IsStrataPath reports whether a table name in a query names a Strata
// file: a path or URL ending in .strata (any case).
func IsStrataPath(name string) bool {
	return strings.EqualFold(path.Ext(name), ".strata")
}

// RegisterReplacementScan makes DuckDB read a table named like a Strata file
// ('lineitem.strata', 's3://b/t.strata') with strata_scan, for every
// connection of c's database. A name DuckDB cannot resolve otherwise that
// is not a Strata file is reported as a missing table, as DuckDB would.
func RegisterReplacementScan(c *duckdb.Connector) {
	duckdb.RegisterReplacementScan(c, func(name string) (string, []any, error) {
		if !IsStrataPath(name) {
			return "", nil, fmt.Errorf("Catalog Error: Table with name %s does not exist!", name)
		}
		return FunctionName, []any{name}, nil
	})
}

// Open opens a DuckDB database (dsn as for duckdb-go; "" is in memory) with
// strata_scan and the replacement scan registered.
func Open(dsn string, opts ...Option) (*sql.DB, error) {
	cfg := newConfig(opts)
	var mu sync.Mutex
	registered := false
	c, err := duckdb.NewConnector(dsn, func(ex driver.ExecerContext) error {
		mu.Lock()
		defer mu.Unlock()
		if registered {
			return nil
		}
		mc, err := rawConnection(ex)
		if err != nil {
			return err
		}
		if err := registerOn(mc, cfg); err != nil {
			return err
		}
		registered = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	RegisterReplacementScan(c)
	return sql.OpenDB(c), nil
}
