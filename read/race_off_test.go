//go:build !race

package read_test

const raceEnabled = false
