//go:build !race

package trivial_test

const raceEnabled = false
