package read

import (
	"context"
	"fmt"

	"strata/iox"
)

// Verify checks every stored checksum of the file and returns the first
// mismatch, located: every chunk of every stream of every stripe (the error
// names the stripe, the column path and role, and the chunk), every stripe
// group, every named section, and finally the file checksum in the
// postscript, which covers every byte the others do not (chunk headers,
// the leading magic, the footer). Open has already checked the footer.
// Verify reads the whole file; it does not decode any chunk. It reads the
// source beneath any Fetchers (iox.Underlying): the tail a Fetcher keeps
// from opening (an earlier open's, when the metadata came from the cache)
// must not stand in for the bytes the source holds now. A nil ctx is
// context.Background(), as it is for the queries.
func (f *File) Verify(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	src := iox.Underlying(f.src)
	for s := 0; s < f.f.NumStripes(); s++ {
		streams, err := f.f.Streams(ctx, s) // loads and checks the stripe group
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		for id, info := range streams {
			for c := range info.Chunks {
				r, err := f.f.ChunkRange(ctx, s, id, c)
				if err != nil {
					return fmt.Errorf("verify: %w", err)
				}
				raw, err := iox.ReadRange(ctx, src, r)
				if err != nil {
					return fmt.Errorf("verify: stripe %d, %s, chunk %d: %w", s, f.streamName(id), c, err)
				}
				if err := f.f.CheckChunk(raw); err != nil {
					return fmt.Errorf("verify: stripe %d, %s, chunk %d: %w", s, f.streamName(id), c, err)
				}
			}
		}
	}
	for _, sec := range f.f.Sections() {
		if _, _, err := f.f.Section(ctx, sec.Name); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
	}
	if err := f.f.Verify(ctx); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}

// streamName names a stream by its column path and role for messages.
func (f *File) streamName(id int) string {
	if id < 0 || id >= f.sch.NumStreams() {
		return fmt.Sprintf("stream %d", id)
	}
	s := f.sch.Stream(id)
	return fmt.Sprintf("column %q (stream %d, %v)", s.Node.Path(), id, s.Role)
}
