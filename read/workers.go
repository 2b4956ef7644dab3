package read

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// workers bounds the goroutines one query decodes on. It holds tokens, one
// per goroutine a query may run beside the ones already working; a nil
// *workers runs everything on the calling goroutine.
//
// Work splits at two levels: jobs (a scan's batches or stripes, an
// aggregate's stripes), each of which takes a token for its goroutine
// (acquire), and the items inside a job (the chunks of a filter column, the
// columns of a batch), which each runs on whatever tokens are free at the
// moment and otherwise on the job's own goroutine. each never waits for a
// token, so nesting cannot deadlock, and at most the query's parallelism
// of goroutines decode at once.
type workers struct {
	tokens chan struct{}
}

// newWorkers returns workers with n tokens, or nil when n < 1.
func newWorkers(n int) *workers {
	if n < 1 {
		return nil
	}
	w := &workers{tokens: make(chan struct{}, n)}
	for range n {
		w.tokens <- struct{}{}
	}
	return w
}

// MinMaxParallelism is the floor of the bound on a query's parallelism:
// a Parallelism above both it and GOMAXPROCS is taken as the larger of
// the two. Goroutines past the cores only queue for them, while a query
// holds a token and queue slots per goroutine, so a count such as 10⁹
// would otherwise allocate gigabytes (or spend seconds filling tokens)
// before reading anything.
const MinMaxParallelism = 256

// checkParallelism refuses a negative Parallelism: a query's option of -1
// would otherwise mean all cores, not the file's count that 0 keeps, and
// neither is what a negative count asks for.
func checkParallelism(what string, p int) error {
	if p < 0 {
		return fmt.Errorf("read: %s with Parallelism %d: %w (0 or more)", what, p, ErrInvalidArgument)
	}
	return nil
}

// parallelism resolves a Parallelism option: 0 means all cores, and a
// count past max(GOMAXPROCS, MinMaxParallelism) is clamped to it.
func parallelism(p int) int {
	procs := runtime.GOMAXPROCS(0)
	if p <= 0 {
		return procs
	}
	return min(p, max(procs, MinMaxParallelism))
}

// acquire waits for a token (or ctx's end).
func (w *workers) acquire(ctx context.Context) error {
	select {
	case <-w.tokens:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *workers) release() { w.tokens <- struct{}{} }

// each calls fn(i) for every i in [0, n), on free tokens' goroutines and on
// the caller's, and returns the first error (after every started call has
// returned). Calls stop being started once one fails or ctx ends.
//
// The items are claimed one at a time by whichever goroutine is free, the
// caller's included, and the caller waits only for calls already started:
// a helper that the operating system has not yet scheduled when the
// caller runs out of items claims nothing and holds nothing up. (Handing
// each item to a goroutine of its own made a job wait for the slowest
// wake-up: on the shared 2-core machine a 2-goroutine scan of lineitem
// SF 0.1 took 2-2.5x the wall time of a 1-goroutine one for the same CPU.)
func (w *workers) each(ctx context.Context, n int, fn func(i int) error) error {
	if w == nil || n <= 1 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		mu       sync.Mutex
		idle     = sync.NewCond(&mu)
		next     int
		active   int // calls started and not returned
		firstErr error
	)
	// claim returns the next item to run, or false when none is left (or
	// a call failed, or ctx ended).
	claim := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= n || firstErr != nil {
			return 0, false
		}
		if err := ctx.Err(); err != nil {
			firstErr = err
			return 0, false
		}
		i := next
		next++
		active++
		return i, true
	}
	done := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && firstErr == nil {
			firstErr = err
		}
		active--
		if active == 0 {
			idle.Broadcast()
		}
	}
	run := func() {
		for {
			i, ok := claim()
			if !ok {
				return
			}
			done(fn(i))
		}
	}
	for h := 0; h < n-1; h++ {
		select {
		case <-w.tokens:
			go func() {
				defer func() { w.tokens <- struct{}{} }()
				run()
			}()
			continue
		default:
		}
		break
	}
	run()
	mu.Lock()
	defer mu.Unlock()
	for active > 0 {
		idle.Wait()
	}
	return firstErr
}
