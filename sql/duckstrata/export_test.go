package duckstrata

// SetOpenAhead sets how many files of a pattern bind opens at once and
// returns the function that restores it.
func SetOpenAhead(n int) func() {
	old := openAhead
	openAhead = n
	return func() { openAhead = old }
}

// SetPrefetchLocal makes scans of local files read splits ahead as scans of
// remote ones do, and returns the function that restores the default.
func SetPrefetchLocal(on bool) func() {
	old := prefetchLocal
	prefetchLocal = on
	return func() { prefetchLocal = old }
}

// SetPrefetchSplits sets how many splits remote scans read ahead at once
// (0: none) and returns the function that restores the default.
func SetPrefetchSplits(n int) func() {
	old := prefetchSplits
	prefetchSplits = n
	return func() { prefetchSplits = old }
}
