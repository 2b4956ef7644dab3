package varint_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/varint"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, varint.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, varint.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, varint.Codec) }
