package s3

// SetListPageSize sets the keys a listing page asks for and returns the
// function that restores the default.
func SetListPageSize(n int32) func() {
	old := listPageSize
	listPageSize = n
	return func() { listPageSize = old }
}
