// Package all assembles every Strata encoding into one registry. It is the
// only place that lists them: adding an encoding is one package plus one line
// here.
package all

import (
	"sync"

	"strata/encoding"
	"strata/encoding/blockfor"
	"strata/encoding/constant"
	"strata/encoding/delta"
	"strata/encoding/dict"
	"strata/encoding/dod"
	"strata/encoding/fixedbitwidth"
	"strata/encoding/fsst"
	"strata/encoding/mainlyconst"
	"strata/encoding/nullable"
	"strata/encoding/rle"
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
			dod.ReadOnly,
		)
	})
	return reg
}

// RegistryWithBlocks returns the full registry with two block encodings
// retuned for time series: Delta writing blocks of deltaBlock rows, and
// DeltaOfDelta — which Registry only reads — offered to selection and to
// forced trees, writing blocks of dodBlock rows. Smaller blocks cost a few
// header bytes and let a reader start decoding closer to the first row it
// needs (the time-series layer's windows and time filters); decoding does
// not depend on them, as every node stores its block size.
func RegistryWithBlocks(deltaBlock, dodBlock int) *encoding.Registry {
	var cs []*encoding.Codec
	for _, c := range Registry().Codecs() {
		switch c.Kind {
		case encoding.KindDelta:
			c = delta.NewCodec(deltaBlock)
		case encoding.KindDeltaOfDelta:
			c = dod.NewCodec(dodBlock)
		}
		cs = append(cs, c)
	}
	return encoding.NewRegistry(cs...)
}

// Options returns decode options with the full registry and default limits.
func Options() *encoding.Options {
	return &encoding.Options{Registry: Registry()}
}

// Policy returns the default selection policy over the full registry.
func Policy() *encoding.Policy { return encoding.DefaultPolicy(Registry()) }
