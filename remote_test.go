package strata_test

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"strata"
	"strata/internal/randtable"
	_ "strata/iox/remote" // registers http and https with strata.Open
)

// TestOpenURL reads a file served over HTTP through strata.Open and runs
// every read path against the table written, as for a local file.
func TestOpenURL(t *testing.T) {
	g := randtable.New(31, randtable.Options{})
	tb := genTable(t, g, shapesSchema(), 1200, 3)
	tb.flats = []string{"fm"}
	data := writeBytes(t, tb, strata.WriteOptions{StripeBytes: 16 << 10, StripeGroup: 2, ChunkValues: 200})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"t1"`)
		http.ServeContent(w, r, "", time.Unix(1700000000, 0), bytes.NewReader(data))
	}))
	defer srv.Close()
	f, err := strata.Open(srv.URL + "/t.strata")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkFile(t, f, tb, rand.New(rand.NewPCG(5, 6)))
	if _, err := strata.Open("nosuch://bucket/key"); err == nil || !strings.Contains(err.Error(), "no source registered for nosuch://") {
		t.Fatalf("unknown scheme: %v", err)
	}
}
