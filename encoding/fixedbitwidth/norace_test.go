//go:build !race

package fixedbitwidth_test

const raceEnabled = false
