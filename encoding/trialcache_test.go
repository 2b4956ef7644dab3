package encoding

import "testing"

// TestTrialCacheCountsEntries fills a trial cache with nodes of a few
// bytes, the trials of a writer of one-value chunks: the cache must hold
// no more entries than its byte bound allows once each entry's own cost
// is counted. Counting node bytes alone, it kept all 200,000 of these
// (8 MiB of nodes would have been a million entries, some 100 MB).
func TestTrialCacheCountsEntries(t *testing.T) {
	tc := NewTrialCache()
	node := []byte{1, 2, 3, 4}
	for i := range 200000 {
		tc.put(trialKey{lo: uint64(i)}, node, &Tree{Kind: KindTrivial}, nil)
	}
	if n, most := tc.Len(), trialCacheBytes/(len(node)+trialEntryBytes); n > most {
		t.Errorf("cache holds %d entries of %d bytes, want at most %d", n, len(node), most)
	}
	if e, ok := tc.get(trialKey{lo: 199999}); !ok || string(e.node) != string(node) {
		t.Errorf("last entry put: %v %v, want its node", e.node, ok)
	}
}
