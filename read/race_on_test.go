//go:build race

package read_test

// raceEnabled trims the randomized trials under the race detector, which
// slows this package's tests about tenfold; the race run is about
// concurrency, the plain run about coverage.
const raceEnabled = true
