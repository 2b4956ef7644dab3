//go:build !race

package encodingtest

const raceEnabled = false
