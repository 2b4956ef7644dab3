package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
	"strata/internal/objtest"
	"strata/iox"
	"strata/iox/remote"
	"strata/iox/s3"
	"strata/tpch"
)

// lineitem writes a small TPC-H lineitem table as a Strata file of several
// stripes and returns its bytes.
func lineitem(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, tpch.Schema(), &strata.WriteOptions{StripeBytes: 256 << 10, ChunkValues: 2048})
	if err != nil {
		t.Fatal(err)
	}
	g := tpch.NewLineitem(0.003, 1, 4096)
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// query is one read a test runs through S3 and locally.
type query struct {
	name string
	run  func(f *strata.File) ([]arrow.Record, error)
}

func scanQuery(name string, opts strata.ScanOptions) query {
	return query{name, func(f *strata.File) ([]arrow.Record, error) {
		sc, err := f.Scan(opts)
		if err != nil {
			return nil, err
		}
		var out []arrow.Record
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			out = append(out, rec)
		}
	}}
}

var queries = []query{
	scanQuery("scan", strata.ScanOptions{}),
	scanQuery("q_month", strata.ScanOptions{Columns: []string{"l_orderkey", "l_extendedprice"},
		Where: "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"}),
	scanQuery("q_range", strata.ScanOptions{Where: "l_orderkey BETWEEN 5000 AND 5100"}),
	{"take", func(f *strata.File) ([]arrow.Record, error) {
		rec, err := f.Take([]int64{17, 9000, 3, f.NumRows() - 1}, nil)
		if err != nil {
			return nil, err
		}
		return []arrow.Record{rec}, nil
	}},
	{"agg", func(f *strata.File) ([]arrow.Record, error) {
		vals, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(*), sum(l_quantity), min(l_shipdate)", Where: "l_discount BETWEEN 0.02 AND 0.04"})
		if err != nil {
			return nil, err
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for _, v := range vals {
			b.Append(v.Name + "=" + v.String())
		}
		a := b.NewArray()
		defer a.Release()
		return []arrow.Record{array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "agg", Type: arrow.BinaryTypes.String}}, nil), []arrow.Array{a}, int64(a.Len()))}, nil
	}},
}

// sameRecords compares two query results batch by batch, value by value.
func sameRecords(got, want []arrow.Record) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d batches, want %d", len(got), len(want))
	}
	for i := range got {
		if !array.RecordEqual(got[i], want[i]) {
			return fmt.Errorf("batch %d differs", i)
		}
	}
	return nil
}

func release(rs []arrow.Record) {
	for _, r := range rs {
		r.Release()
	}
}

// TestStrataOverS3 opens a Strata file stored in the S3 server with
// strata.Open("s3://...") configured from the environment and checks every
// query value by value against the same bytes read from memory, counting
// the requests each query makes through the proxy.
func TestStrataOverS3(t *testing.T) {
	data := lineitem(t)
	srv, p, _, key := setup(t, data, fast)
	for _, kv := range srv.Env(p.URL) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	local, err := strata.OpenSource(iox.Bytes(data))
	if err != nil {
		t.Fatal(err)
	}
	p.Reset()
	f, err := strata.Open("s3://strata-test/" + key)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Logf("open: %+v (%d stripes, %d bytes)", p.Counts(), f.NumStripes(), len(data))
	if c := p.Counts(); c.Heads != 0 || c.Gets != 1 {
		t.Fatalf("open made %+v, want one GET (the tail answers the footer read)", c)
	}
	for _, q := range queries {
		want, err := q.run(local)
		if err != nil {
			t.Fatalf("%s locally: %v", q.name, err)
		}
		p.Reset()
		got, err := q.run(f)
		if err != nil {
			t.Fatalf("%s over S3: %v", q.name, err)
		}
		if err := sameRecords(got, want); err != nil {
			t.Fatalf("%s over S3: %v", q.name, err)
		}
		t.Logf("%-8s %+v", q.name, p.Counts())
		if c := p.Counts(); c.Requests != c.Gets {
			t.Fatalf("%s: %+v", q.name, c)
		}
		release(got)
		release(want)
	}
}

// TestStrataFaults runs the queries with failures injected into the
// object store's answers: transient ones must not change any result, and
// corrupted bytes must surface as a checksum error or leave the result
// intact (when they fall in a gap read only to coalesce), never as wrong
// values.
func TestStrataFaults(t *testing.T) {
	data := lineitem(t)
	srv, p, _, key := setup(t, data, fast)
	local, err := strata.OpenSource(iox.Bytes(data))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := srv.Config(p.URL)
	cfg.Retry = fast
	caught := 0 // flipped bits reported as corruption
	transient := []objtest.Fault{objtest.ServerError, objtest.SlowDown, objtest.TooMany, objtest.Truncate, objtest.Reset}
	for qi, q := range queries {
		want, err := q.run(local)
		if err != nil {
			t.Fatal(err)
		}
		for fi, fault := range transient {
			obj, err := s3.Open(ctx, "s3://strata-test/"+key, cfg)
			if err != nil {
				t.Fatal(err)
			}
			f, err := strata.OpenSource(obj)
			if err != nil {
				t.Fatal(err)
			}
			// Fail the first reads of the query (the one after, for
			// variety, on odd combinations).
			if (qi+fi)%2 == 1 {
				p.Inject("GET", objtest.Pass)
			}
			p.Inject("GET", fault, fault)
			got, err := q.run(f)
			if err != nil {
				t.Fatalf("%s with %v: %v", q.name, fault, err)
			}
			if err := sameRecords(got, want); err != nil {
				t.Fatalf("%s with %v: %v", q.name, fault, err)
			}
			// A reset on a reused keep-alive connection may be retried
			// by net/http's transport itself (a GET is idempotent and no
			// answer had begun), below the client's count: the fault was
			// taken and the result is right, so a layer retried.
			if st := obj.Stats(); st.Retries < 1 && p.Pending() == 0 && fault != objtest.Reset {
				t.Fatalf("%s with %v: no retry recorded (%+v)", q.name, fault, st)
			}
			p.ClearFaults()
			release(got)
			obj.Close()
		}
		for _, fault := range []objtest.Fault{objtest.Corrupt, objtest.WrongRange, objtest.Gone} {
			obj, err := s3.Open(ctx, "s3://strata-test/"+key, cfg)
			if err != nil {
				t.Fatal(err)
			}
			f, err := strata.OpenSource(obj)
			if err != nil {
				t.Fatal(err)
			}
			p.Inject("GET", fault)
			got, err := q.run(f)
			unspent := p.Pending() > 0 // the query made no request
			switch {
			case err == nil && unspent:
				if err := sameRecords(got, want); err != nil {
					t.Fatalf("%s: %v", q.name, err)
				}
			case err == nil:
				if fault != objtest.Corrupt {
					t.Fatalf("%s with %v: no error", q.name, fault)
				}
				if err := sameRecords(got, want); err != nil {
					t.Fatalf("%s with %v: wrong data returned: %v", q.name, fault, err)
				}
			case fault == objtest.Corrupt && !errors.Is(err, encoding.ErrCorrupt):
				t.Fatalf("%s with a flipped bit: %v, want a corruption error", q.name, err)
			case fault == objtest.Corrupt:
				caught++
			case fault == objtest.WrongRange && !errors.Is(err, remote.ErrBadResponse):
				t.Fatalf("%s with a wrong range: %v", q.name, err)
			case fault == objtest.Gone && !errors.Is(err, remote.ErrChanged):
				t.Fatalf("%s with 412: %v", q.name, err)
			}
			if err != nil && fault != objtest.Corrupt && !strings.Contains(err.Error(), "s3://strata-test/"+key) {
				t.Fatalf("%s with %v: error %q does not name the object", q.name, fault, err)
			}
			p.ClearFaults()
			release(got)
			obj.Close()
		}
		release(want)
	}
	if caught == 0 {
		t.Fatal("no flipped bit was reported as corruption: the test does not reach the checksums")
	}
}
