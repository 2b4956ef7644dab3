package s3

// SetListPageSize sets the keys a listing page asks for and returns the
// function that restores the default.
func SetListPageSize(n int32) func() {
	old := listPageSize
	listPageSize = n
	return func() { listPageSize = old }
}

// SharedClients returns how many clients Open and Glob keep.
func SharedClients() int {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	return len(sharedClients)
}
