//go:build race

package encodingtest

// raceEnabled trims the longest sequences under the race detector, which
// slows the value-by-value checks about twentyfold.
const raceEnabled = true
