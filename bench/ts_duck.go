package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// duckTS is DuckDB, on its own database file (native: CREATE TABLE AS
// SELECT ... ORDER BY hostname, time, so its zonemaps are tight) or on the
// zstd Parquet file it writes from the same sorted rows (parquet). Every
// read is SQL: host_hour and each window filter on hostname and a time
// range; downsample is GROUP BY hostname, time_bucket; last is arg_max per
// hostname.
type duckTS struct {
	variant string
	cfg     tsConfig
	db      *duckDB
	win     mapping.PreparedStatement
}

func newDuckTS(variant string, cfg tsConfig) *duckTS { return &duckTS{variant: variant, cfg: cfg} }

func (s *duckTS) Name() string { return "duckdb-" + s.variant }
func (s *duckTS) Note() string { return "" }

func (s *duckTS) Write(dir string, src *Source, _ *tsWork) (string, error) {
	d, err := openDuck("", s.cfg.threads)
	if err != nil {
		return "", err
	}
	defer d.close()
	if err := loadDuck(d, src); err != nil {
		return "", err
	}
	if s.variant == "native" {
		path := filepath.Join(dir, "data.duckdb")
		os.Remove(path)
		os.Remove(path + ".wal")
		for _, q := range []string{
			"ATTACH " + sqlString(path) + " AS nat",
			"CREATE TABLE nat.t AS SELECT * FROM src ORDER BY hostname, time",
			"DETACH nat",
		} {
			if err := d.exec(q); err != nil {
				return "", err
			}
		}
		return path, nil
	}
	path := filepath.Join(dir, "data.parquet")
	err = d.exec("COPY (SELECT * FROM src ORDER BY hostname, time) TO " + sqlString(path) + " (FORMAT parquet, COMPRESSION zstd)")
	return path, err
}

func (s *duckTS) Open(path string) error {
	var err error
	if s.variant == "native" {
		if s.db, err = openDuck(path, s.cfg.threads); err != nil {
			return err
		}
	} else {
		if s.db, err = openDuck("", s.cfg.threads); err != nil {
			return err
		}
		if err := s.db.exec("CREATE VIEW t AS SELECT * FROM read_parquet(" + sqlString(path) + ")"); err != nil {
			return err
		}
	}
	sql := "SELECT usage_user, usage_system, usage_idle, usage_nice FROM t WHERE hostname = $1 AND time >= make_timestamp($2) AND time < make_timestamp($3)"
	if mapping.Prepare(s.db.conn, sql, &s.win) == mapping.StateError {
		err := fmt.Errorf("duckdb: prepare: %s", mapping.PrepareError(s.win))
		mapping.DestroyPrepare(&s.win)
		s.win = mapping.PreparedStatement{}
		return err
	}
	return nil
}

func (s *duckTS) Close() error {
	if s.win.Ptr != nil {
		mapping.DestroyPrepare(&s.win)
		s.win = mapping.PreparedStatement{}
	}
	if s.db != nil {
		s.db.close()
		s.db = nil
	}
	return nil
}

func tsOutOf(o Out) tsOut { return tsOut{Rows: o.Rows, Sum: o.Sum} }

func (s *duckTS) HostHour(w *tsWork, verify bool) (tsOut, error) {
	o, err := s.db.query(fmt.Sprintf("SELECT time, %s FROM t WHERE hostname = %s AND time >= make_timestamp(%d) AND time < make_timestamp(%d)",
		strings.Join(w.hhCols, ", "), sqlString(w.host), w.from, w.to), verify)
	return tsOutOf(o), err
}

func (s *duckTS) Windows(w *tsWork, wins []tsWin, verify bool) (tsOut, error) {
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	for _, x := range wins {
		if mapping.BindVarchar(s.win, 1, x.host) == mapping.StateError ||
			mapping.BindInt64(s.win, 2, x.from) == mapping.StateError ||
			mapping.BindInt64(s.win, 3, x.to) == mapping.StateError {
			return tsOut{}, errors.New("duckdb: bind failed")
		}
		var res mapping.Result
		if mapping.ExecutePrepared(s.win, &res) == mapping.StateError {
			err := fmt.Errorf("duckdb: window: %s", mapping.ResultError(&res))
			mapping.DestroyResult(&res)
			return tsOut{}, err
		}
		err := consume(&res, &out)
		mapping.DestroyResult(&res)
		if err != nil {
			return tsOut{}, err
		}
	}
	return tsOutOf(out), nil
}

func (s *duckTS) Downsample(w *tsWork, verify bool) (tsOut, error) {
	o, err := s.db.query(fmt.Sprintf(`SELECT hostname AS host, time_bucket(INTERVAL '%d microseconds', time) AS bucket,
		min(%[2]s) AS "min", max(%[2]s) AS "max", avg(%[2]s) AS "avg" FROM t GROUP BY ALL`, w.every, w.aggCol), verify)
	return tsOutOf(o), err
}

func (s *duckTS) Last(w *tsWork, verify bool) (tsOut, error) {
	var parts []string
	for _, m := range tsMetricNames() {
		parts = append(parts, fmt.Sprintf("arg_max(%[1]s, time) AS %[1]s", m))
	}
	o, err := s.db.query("SELECT hostname AS host, max(time) AS time, "+strings.Join(parts, ", ")+" FROM t GROUP BY hostname", verify)
	return tsOutOf(o), err
}
