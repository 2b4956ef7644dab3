//go:build !race

package strata_test

const raceEnabled = false
