//go:build !race

package constant_test

const raceEnabled = false
