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
	base := uintptr(unsafe.Pointer(unsafe.SliceData(node)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p-base+uintptr(len(b)) > uintptr(len(node)) {
		return 0, 0, false
	}
	lo = int(p - base)
	return lo, lo + len(b), true
}

// InPlaceNode reports whether the root node whose leading bytes are head
// is of an InPlace codec (Codec.InPlace) for its type and stored
// uncompressed: opening it reads its header only, and its rows' bytes are
// named by RowRange. head must hold at least the node's header.
func InPlaceNode(head []byte, opts *Options) bool {
	if opts == nil || opts.Registry == nil || len(head) < 4 {
		return false
	}
	if head[2]&FlagZstd != 0 {
		return false
	}
	c := opts.Registry.Codec(Kind(head[0]))
	return c != nil && c.InPlace != nil && Type(head[1]).Valid() && c.InPlace(Type(head[1]))
}
