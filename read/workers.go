package read

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
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

// parallelism resolves a Parallelism option: 0 means all cores.
func parallelism(p int) int {
	if p <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return p
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
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		failed   atomic.Bool
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err })
		failed.Store(true)
	}
	for i := 0; i < n && !failed.Load(); i++ {
		if err := ctx.Err(); err != nil {
			fail(err)
			break
		}
		select {
		case <-w.tokens:
			wg.Add(1)
			go func(i int) {
				defer func() {
					w.tokens <- struct{}{}
					wg.Done()
				}()
				if err := fn(i); err != nil {
					fail(err)
				}
			}(i)
		default:
			if err := fn(i); err != nil {
				fail(err)
			}
		}
	}
	wg.Wait()
	return firstErr
}
