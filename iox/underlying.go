package iox

// Underlying returns the source beneath the Fetchers wrapping src (src
// itself when it is no Fetcher). A check of the stored bytes (Verify)
// reads from it: a Fetcher serves the bytes it keeps in memory (Keep)
// without reading them, and those are what an earlier read found — for a
// file opened through a metadata cache, what another open found — so a
// byte changed since on disk or in the object store would go unseen.
// Reads from it are not counted in the Fetchers' Stats.
func Underlying(src Source) Source {
	for {
		f, ok := src.(*Fetcher)
		if !ok {
			return src
		}
		src = f.Source()
	}
}
