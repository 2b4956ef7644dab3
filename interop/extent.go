package interop

import (
	"io"
	"sync/atomic"
)

// Extent is implemented by readers that know how far through their source
// they are, for progress reports: work done and the total, counted in unit
// ("rows", "bytes" or "batches"). A total of 0 means unknown.
type Extent interface {
	Extent() (done, total int64, unit string)
}

// ExtentOf returns r's extent, with ok false when r does not know it.
func ExtentOf(r RecordReader) (done, total int64, unit string, ok bool) {
	e, isExtent := r.(Extent)
	if !isExtent {
		return 0, 0, "", false
	}
	done, total, unit = e.Extent()
	return done, total, unit, true
}

// Extent counts the rows returned against the row count of the footer.
func (p *parquetReader) Extent() (int64, int64, string) {
	return p.done, p.pf.NumRows(), "rows"
}

// Extent counts the bytes the CSV parser has consumed against the file size
// (the parser reads ahead by a buffer, so done runs slightly early).
func (c *csvReader) Extent() (int64, int64, string) {
	return c.cr.n.Load(), c.size, "bytes"
}

// Extent counts batches for an IPC file, whose footer lists them; a stream
// has no total.
func (r *ipcReader) Extent() (int64, int64, string) {
	if r.fr != nil {
		return int64(r.i), int64(r.fr.NumRecords()), "batches"
	}
	return int64(r.batches), 0, "batches"
}

// Extent passes the wrapped reader's extent through.
func (c *coercingReader) Extent() (int64, int64, string) {
	if e, ok := c.RecordReader.(Extent); ok {
		return e.Extent()
	}
	return 0, 0, ""
}

// countingReader counts the bytes read through it; the count may be read
// concurrently with reads.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
