package read

import (
	"context"
	"sync"

	"strata/encoding"
	"strata/format"
	"strata/iox"
)

// LiveBuffers returns how many buffers of f's pool are handed out and not
// yet returned, for tests that check released batches give them back.
func LiveBuffers(f *File) int {
	f.pool.mu.Lock()
	defer f.pool.mu.Unlock()
	return len(f.pool.live)
}

// ChunkEvents records, while set, every fetch call (the chunks it read, as
// stripe/stream/chunk) and every chunk opened; the returned function stops
// recording. Tests use it one at a time.
func ChunkEvents() (fetches *[][][3]int, opens *[][3]int, stop func()) {
	var mu sync.Mutex
	fetches, opens = &[][][3]int{}, &[][3]int{}
	onFetch = func(keys []chunkKey) {
		mu.Lock()
		defer mu.Unlock()
		var call [][3]int
		for _, k := range keys {
			call = append(call, [3]int{k.stripe, k.stream, k.chunk})
		}
		*fetches = append(*fetches, call)
	}
	onOpen = func(k chunkKey) {
		mu.Lock()
		defer mu.Unlock()
		*opens = append(*opens, [3]int{k.stripe, k.stream, k.chunk})
	}
	return fetches, opens, func() { onFetch, onOpen = nil, nil }
}

// RowBytesAt returns where in the file lie the bytes of column col that a
// partial lookup of row reads ([lo, hi), absolute offsets), and the range
// of the row's chunk; ok is false when that chunk is not segmented with an
// InPlace root.
func RowBytesAt(f *File, col string, row int64) (lo, hi int64, chunk iox.Range, ok bool, err error) {
	cols, err := f.columnIndexes([]string{col})
	if err != nil {
		return 0, 0, chunk, false, err
	}
	stream := f.rowAligned(cols[0])
	s := f.f.StripeForRow(row)
	infos, err := f.f.Streams(context.Background(), s)
	if err != nil {
		return 0, 0, chunk, false, err
	}
	rel := row - f.f.Stripe(s).FirstRow
	ci := infos[stream].ChunkForRow(rel)
	c := infos[stream].Chunks[ci]
	chunk = iox.Range{Off: c.Offset, Len: c.Size}
	raw, err := f.fetch.ReadRange(context.Background(), chunk)
	if err != nil || !format.IsSegmented(raw) {
		return 0, 0, chunk, false, err
	}
	seg, err := format.ParseSegments(raw, c.Size, true)
	if err != nil {
		return 0, 0, chunk, false, err
	}
	payload := raw[seg.DataOff:]
	if !encoding.InPlaceNode(payload, len(payload), f.dec) {
		return 0, 0, chunk, false, nil
	}
	io, err := f.newStripeIO(context.Background(), s)
	if err != nil {
		return 0, 0, chunk, false, err
	}
	d, err := encoding.Open(payload, io.chunkOptions(stream, ci, true))
	if err != nil {
		return 0, 0, chunk, false, err
	}
	a, b, ok := encoding.RowRange(d, payload, int(rel-c.FirstRow))
	base := c.Offset + int64(seg.DataOff)
	return base + int64(a), base + int64(b), chunk, ok, nil
}
