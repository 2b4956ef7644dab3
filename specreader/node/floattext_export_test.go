package node

// SetFloatTextLimits lowers the row and rawLen bounds of this part's
// children for the fuzz target and returns a function restoring them.
func SetFloatTextLimits(rows, raw int) func() {
	oldRows, oldRaw := ftLimitRows, ftLimitRaw
	ftLimitRows, ftLimitRaw = rows, raw
	return func() { ftLimitRows, ftLimitRaw = oldRows, oldRaw }
}

// PeekFloatTextLimits checks a node's prefix against the lowered bounds
// (the fuzz target applies it to its roots).
func PeekFloatTextLimits(b []byte) error { return ftPeek(b, "root") }
