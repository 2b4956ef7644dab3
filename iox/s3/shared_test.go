package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"strata/iox"
	"strata/iox/s3"
)

// TestSharedClients checks that the objects Open opens and the listing
// Glob makes share one client, so that a pattern of many objects reuses
// its connections: 12 objects opened and read one after another, and the
// listing that found them, over one connection to the proxy (a client per
// object opened 13). A client per configuration is kept, at most a fixed
// number of them, and objects of an evicted one still read.
func TestSharedClients(t *testing.T) {
	srv, p, _, _ := setup(t, []byte("x"), fast)
	ctx := context.Background()
	cfg := srv.Config(p.URL)
	cfg.Retry = fast
	var want [][]byte
	for i := range 12 {
		data := randomBytes(2000+i, uint64(i+20))
		want = append(want, data)
		if err := srv.Put(ctx, "strata-test", fmt.Sprintf("shared/o%02d.bin", i), data); err != nil {
			t.Fatal(err)
		}
	}
	p.Reset()
	locs, err := s3.Glob(ctx, "s3://strata-test/shared/o*.bin", cfg)
	if err != nil || len(locs) != 12 {
		t.Fatalf("glob: %d, %v", len(locs), err)
	}
	var objs []*s3.Object
	for i, loc := range locs {
		o, err := s3.Open(ctx, loc, cfg)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
		got, err := iox.ReadRange(ctx, o, iox.Range{Off: 0, Len: o.Size()})
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Fatalf("%s: %v", loc, err)
		}
		o.Close()
	}
	if c := p.Counts(); c.Conns != 1 || c.Requests != 13 {
		t.Errorf("a listing and 12 objects: %d connections, %d requests; want 1 and 13", c.Conns, c.Requests)
	}
	// Other configurations get clients of their own, up to the bound.
	for i := range 20 {
		c := cfg
		c.OpenTail = int64(1000 + i)
		if _, err := s3.Open(ctx, locs[0], c); err != nil {
			t.Fatal(err)
		}
	}
	if n := s3.SharedClients(); n > 16 {
		t.Errorf("%d clients kept, want at most 16", n)
	}
	// The first configuration's client was evicted; its objects still read.
	got, err := iox.ReadRange(ctx, objs[3], iox.Range{Off: 10, Len: 100})
	if err != nil || !bytes.Equal(got, want[3][10:110]) {
		t.Fatalf("read after the client was evicted: %v", err)
	}
}
