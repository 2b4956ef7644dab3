package encoding

import "unsafe"

// RowByter is implemented by the decoders of InPlace codecs (Codec.InPlace).
// RowBytes returns the bytes of the node the decoder was opened over that
// Gather reads for row r, aliasing that node, or nil when the decoder does
// not read rows in place (a body inflated from zstd); an empty non-nil
// slice when the row needs no bytes (values of width 0).
type RowByter interface {
	RowBytes(r int) []byte
}

// RowRange returns the range [lo, hi) of node, which d was opened over,
// holding what d's Gather reads for row r. ok is false when d does not name
// its rows' bytes or they do not lie within node.
func RowRange(d Decoder, node []byte, r int) (lo, hi int, ok bool) {
	rb, isRB := d.(RowByter)
	if !isRB || len(node) == 0 || r < 0 || r >= d.Len() {
		return 0, 0, false
	}
	b := rb.RowBytes(r)
	if b == nil {
		return 0, 0, false
	}
	if len(b) == 0 {
		return 0, 0, true
	}
	if lo = offsetIn(node, b); lo < 0 {
		return 0, 0, false
	}
	return lo, lo + len(b), true
}

// InPlaceNode reports whether a root node can be opened over a buffer of
// which only the first known bytes and the bytes RowRange names for the
// rows to be gathered hold what was stored: a node of an InPlace codec for
// its type, stored uncompressed, or of an InPlaceVia codec whose bytes
// before its child lie within the first known and whose child is such a
// node. Only the first known bytes of node are read.
func InPlaceNode(node []byte, known int, opts *Options) bool {
	if opts == nil || opts.Registry == nil {
		return false
	}
	return inPlace(node, node, min(known, len(node)), 0, opts)
}

func inPlace(root, node []byte, known, depth int, opts *Options) bool {
	off := offsetIn(root, node)
	if off < 0 || depth > opts.orDefault().MaxDepth || off+4 > known {
		return false
	}
	if node[2]&FlagZstd != 0 {
		return false
	}
	c := opts.Registry.Codec(Kind(node[0]))
	if c == nil || !Type(node[1]).Valid() {
		return false
	}
	if c.InPlace == nil && c.InPlaceVia == nil {
		return false
	}
	// Parse the header from the known bytes only (a uvarint may not run
	// past them).
	head := node[:min(len(node), known-off)]
	h, err := ParseHeader(head, depth, opts)
	if err != nil {
		return false
	}
	if c.InPlace != nil {
		n, ok := c.InPlace(h.Type)
		return ok && n <= len(h.Body)
	}
	h.Body, h.Size = node[len(head)-len(h.Body):], len(node)
	child, ok := c.InPlaceVia(h)
	if !ok {
		return false
	}
	if co := offsetIn(root, child); co < 0 || co > known {
		return false
	}
	return inPlace(root, child, known, depth+1, opts)
}

// offsetIn returns the offset of sub's first byte in root, or -1 when sub
// does not lie within root.
func offsetIn(root, sub []byte) int {
	if len(sub) == 0 {
		return -1
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(root)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(sub)))
	if p < base || p-base+uintptr(len(sub)) > uintptr(len(root)) {
		return -1
	}
	return int(p - base)
}
