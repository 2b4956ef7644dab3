package iox

// Identity is the identity of the Fetcher's source, so a Fetcher wrapped
// around a source keeps its name for caches.
func (f *Fetcher) Identity() string { return IdentityOf(f.src) }
