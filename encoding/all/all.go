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
	"strata/encoding/fixedbitwidth"
	"strata/encoding/frontcoding"
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
			frontcoding.Codec,
			digittext.Codec,
			alp.Codec,
			alprd.Codec,
			chimp.Codec,
			dict.SharedCodec,
			correlated.Codec,
		)
	})
	return reg
}

// Options returns decode options with the full registry and default limits.
func Options() *encoding.Options {
	return &encoding.Options{Registry: Registry()}
}

// Policy returns the default selection policy over the full registry.
func Policy() *encoding.Policy { return encoding.DefaultPolicy(Registry()) }
