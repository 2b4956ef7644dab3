package duckstrata

// SetOpenAhead sets how many files of a pattern bind opens at once and
// returns the function that restores it.
func SetOpenAhead(n int) func() {
	old := openAhead
	openAhead = n
	return func() { openAhead = old }
}
