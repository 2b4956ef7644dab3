// Package all assembles every Strata encoding into one registry. It is the
// only place that lists them: adding an encoding is one package plus one line
// here.
package all

import (
	"sync"

	"strata/encoding"
	"strata/encoding/alp"
	"strata/encoding/alprd"
	"strata/encoding/blockfor"
	"strata/encoding/chimp"
	"strata/encoding/constant"
	"strata/encoding/correlated"
	"strata/encoding/delta"
	"strata/encoding/dict"
	"strata/encoding/digittext"
	"strata/encoding/dod"
	"strata/encoding/fieldtext"
	"strata/encoding/fixedbitwidth"
	"strata/encoding/frontcoding"
	"strata/encoding/fsst"
	"strata/encoding/hextext"
	"strata/encoding/lagdelta"
	"strata/encoding/mainlyconst"
	"strata/encoding/nullable"
	"strata/encoding/numtext"
	"strata/encoding/rle"
	"strata/encoding/scaled"
	"strata/encoding/sparsebool"
	"strata/encoding/trivial"
	"strata/encoding/varint"
)

var (
	once sync.Once
	reg  *encoding.Registry
)

// Registry returns the registry of every encoding Strata reads and writes.
func Registry() *encoding.Registry {
	once.Do(func() {
		reg = encoding.NewRegistry(
			// one line per encoding, in kind order
			constant.Codec,
			trivial.Codec,
			fixedbitwidth.Codec,
			blockfor.Codec,
			varint.Codec,
			delta.Codec,
			rle.Codec,
			dict.Codec,
			mainlyconst.Codec,
			sparsebool.Codec,
			nullable.Codec,
			fsst.Codec,
			frontcoding.Codec,
			digittext.Codec,
			alp.Codec,
			alprd.Codec,
			chimp.Codec,
			dict.SharedCodec,
			correlated.Codec,
			dod.ReadOnly,
			fsst.SharedCodec,
			lagdelta.Codec,
			numtext.Codec,
			scaled.Codec,
			hextext.Codec,
			fieldtext.Codec,
		)
	})
	return reg
}

// Measured returns the full registry with DeltaOfDelta, which Registry
// only reads, able to encode: the codecs strata calibrate measures (the
// time-series layer selects DeltaOfDelta, see RegistryWithBlocks).
func Measured() *encoding.Registry {
	var cs []*encoding.Codec
	for _, c := range Registry().Codecs() {
		if c.Kind == encoding.KindDeltaOfDelta {
			c = dod.Codec
		}
		cs = append(cs, c)
	}
	return encoding.NewRegistry(cs...)
}

// RegistryWithBlocks returns the full registry with the block encodings
// retuned for reads that start anywhere: Delta, BlockFOR and DeltaOfDelta
// (which Registry only reads; here it is offered to selection and to
// forced trees) all write blocks of the given rows. Smaller blocks cost a
// few header bytes and let a reader decode from closer to the first row it
// needs — BlockFOR decodes whole blocks, Delta and DeltaOfDelta from a
// block's start — which the time-series layer's windows and time filters
// depend on. Decoding does not depend on it: every node stores its block
// size.
func RegistryWithBlocks(rows int) *encoding.Registry {
	var cs []*encoding.Codec
	for _, c := range Registry().Codecs() {
		switch c.Kind {
		case encoding.KindDelta:
			c = delta.NewCodec(rows)
		case encoding.KindBlockFOR:
			c = blockfor.NewCodec(rows)
		case encoding.KindDeltaOfDelta:
			c = dod.NewCodec(rows)
		}
		cs = append(cs, c)
	}
	return encoding.NewRegistry(cs...)
}

// Options returns decode options with the full registry and default limits.
func Options() *encoding.Options {
	// The limits are spelled out (they are the defaults a zero field
	// stands for) so that opening a node need not copy the options to
	// fill them in.
	return &encoding.Options{Registry: Registry(), MaxRows: encoding.DefaultMaxRows,
		MaxBytes: encoding.DefaultMaxBytes, MaxDepth: encoding.DefaultMaxDepth}
}

// Policy returns the default selection policy over the full registry.
func Policy() *encoding.Policy { return encoding.DefaultPolicy(Registry()) }
