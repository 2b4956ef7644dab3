package read

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWorkersEach: every item runs exactly once whatever tokens are free,
// the first error is returned after the started calls have returned and
// stops new ones, a cancelled context stops them too, and the caller does
// not wait for a helper that never got to claim an item.
func TestWorkersEach(t *testing.T) {
	ctx := context.Background()
	for _, tokens := range []int{0, 1, 2, 7} {
		w := newWorkers(tokens)
		for _, n := range []int{0, 1, 2, 3, 50} {
			counts := make([]atomic.Int32, n)
			if err := w.each(ctx, n, func(i int) error { counts[i].Add(1); return nil }); err != nil {
				t.Fatal(err)
			}
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("tokens %d, n %d: item %d ran %d times", tokens, n, i, c)
				}
			}
		}
		// The first error stops new calls; calls already running finish
		// before each returns.
		boom := errors.New("boom")
		var running, ran atomic.Int32
		err := w.each(ctx, 100, func(i int) error {
			running.Add(1)
			defer running.Add(-1)
			ran.Add(1)
			if i == 3 {
				return boom
			}
			time.Sleep(time.Millisecond)
			return nil
		})
		if !errors.Is(err, boom) || running.Load() != 0 || ran.Load() > 3+int32(tokens)+1 {
			t.Fatalf("tokens %d: error %v, %d still running, %d ran", tokens, err, running.Load(), ran.Load())
		}
		cctx, cancel := context.WithCancel(ctx)
		ran.Store(0)
		err = w.each(cctx, 100, func(i int) error {
			// The second call cancels; later calls wait for it, so that
			// the other goroutines cannot run through every item while
			// the cancelling one is descheduled (each goroutine then
			// holds at most one call when the context ends).
			switch k := ran.Add(1); {
			case k == 2:
				cancel()
			case k > 2:
				<-cctx.Done()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || ran.Load() > 2+int32(tokens) {
			t.Fatalf("tokens %d: cancelled: error %v, %d ran", tokens, err, ran.Load())
		}
		cancel()
		// Every token is back.
		if w != nil && len(w.tokens) != tokens {
			for deadline := time.Now().Add(5 * time.Second); len(w.tokens) != tokens && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			if len(w.tokens) != tokens {
				t.Fatalf("tokens %d: %d returned", tokens, len(w.tokens))
			}
		}
	}
	// A helper that claims nothing holds nothing up: with the only token's
	// goroutine blocked from starting, the caller runs every item itself.
	w := newWorkers(1)
	var gate sync.Mutex
	gate.Lock()
	blocked := make(chan struct{})
	go func() {
		// Hold the token while the gate is locked, then give it back.
		<-w.tokens
		close(blocked)
		gate.Lock()
		w.tokens <- struct{}{}
		gate.Unlock()
	}()
	<-blocked
	done := make(chan error, 1)
	go func() { done <- w.each(ctx, 10, func(int) error { return nil }) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("each waited for a token")
	}
	gate.Unlock()
}

// TestParallelismBound: a Parallelism past the cores and MinMaxParallelism
// is clamped, so a query does not allocate tokens and queue slots per
// requested goroutine (10⁹ of them crashed a scan out of memory).
func TestParallelismBound(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	bound := max(procs, MinMaxParallelism)
	for _, c := range []struct{ in, want int }{
		{0, procs}, {-3, procs}, {1, 1}, {2, 2}, {bound, bound},
		{bound + 1, bound}, {1_000_000_000, bound}, {math.MaxInt, bound},
	} {
		if got := parallelism(c.in); got != c.want {
			t.Errorf("parallelism(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
