package main

// Seed experiment E: an AI framework's view of random-window sampling.
// Each epoch draws new windows (seeded, the same for every system) and
// each system delivers them as one stacked float32 batch laid out
// [window][row][metric], what a training loop hands to its model. The
// batches of the systems are compared value by value.

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// tsBatcher fills a stacked float32 batch with the given windows of the
// metrics w.winCols: dst[(i*length+r)*len(winCols)+c].
type tsBatcher interface {
	tsSystem
	Batch(w *tsWork, wins []tsWin, dst []float32) error
}

// tsEpochWindows draws the windows of one epoch like tsSource does.
func tsEpochWindows(w *tsWork, seed uint64, epoch, n int) []tsWin {
	r := rand.New(rand.NewPCG(seed, 0xe90c+uint64(epoch)))
	L := int64(w.length)
	wins := make([]tsWin, n)
	for i := range wins {
		p := r.IntN(len(w.hosts))
		s := r.Int64N(w.ticks - L + 1)
		wins[i] = tsWin{hostPos: p, host: w.hosts[p], start: s, row: int64(p)*w.ticks + s,
			from: w.start + s*w.step, to: w.start + (s+L)*w.step}
	}
	return wins
}

// runTSAI times epochs of stacked float32 batches on every batcher.
func runTSAI(out io.Writer, sel []tsSystem, w *tsWork, seed uint64, epochs, n int) error {
	var bs []tsBatcher
	for _, s := range sel {
		if b, ok := s.(tsBatcher); ok {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		return nil
	}
	size := n * w.length * len(w.winCols)
	fmt.Fprintf(out, "\nE. AI reads: %d epochs of %d windows × %d rows × %d metrics as one stacked float32 batch (%d values) per epoch:\n",
		epochs, n, w.length, len(w.winCols), size)
	bufs := make([][]float32, len(bs))
	wall := make([][]float64, len(bs))
	cpu := make([][]float64, len(bs))
	for i := range bs {
		bufs[i] = make([]float32, size)
	}
	for e := -1; e < epochs; e++ { // epoch -1 warms up
		wins := tsEpochWindows(w, seed, e+1, n)
		for i, b := range bs {
			clear(bufs[i])
			t0, c0 := time.Now(), cpuNow()
			if err := b.Batch(w, wins, bufs[i]); err != nil {
				return fmt.Errorf("%s: %w", b.Name(), err)
			}
			if e >= 0 {
				wall[i] = append(wall[i], ms(time.Since(t0)))
				cpu[i] = append(cpu[i], ms(cpuNow()-c0))
			}
		}
		for i := 1; i < len(bs); i++ {
			for k, v := range bufs[i] {
				if math.Float32bits(v) != math.Float32bits(bufs[0][k]) {
					return fmt.Errorf("epoch %d: %s and %s differ at value %d: %v vs %v", e, bs[0].Name(), bs[i].Name(), k, bufs[0][k], v)
				}
			}
		}
	}
	for i, b := range bs {
		f, c := summarize(wall[i]), summarize(cpu[i]).Median
		fmt.Fprintf(out, "   %-12s %8.1f ms per epoch [%.1f-%.1f], CPU %.1f ms: %.0f windows/s (CPU %.0f)", b.Name(), f.Median, f.Min, f.Max, c,
			float64(n)/f.Median*1e3, float64(n)/c*1e3)
		if i > 0 {
			b0 := summarize(wall[0]).Median
			fmt.Fprintf(out, "; %s / %s: %.1fx (CPU %.1fx)", b.Name(), bs[0].Name(), f.Median/b0, c/summarize(cpu[0]).Median)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "   the batches agreed value by value in all %d epochs\n", epochs+1)
	return nil
}
