package read

// LiveBuffers returns how many buffers of f's pool are handed out and not
// yet returned, for tests that check released batches give them back.
func LiveBuffers(f *File) int {
	f.pool.mu.Lock()
	defer f.pool.mu.Unlock()
	return len(f.pool.live)
}
