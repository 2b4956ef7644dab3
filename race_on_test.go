//go:build race

package strata_test

// raceEnabled skips the long single-goroutine sweeps (corruption, crash,
// hostile files) under the race detector: they run in the plain test run,
// and would cost minutes here while finding no races.
const raceEnabled = true
