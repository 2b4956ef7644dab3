//go:build !race

package varint_test

const raceEnabled = false
