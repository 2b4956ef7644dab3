package sparsebool_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/sparsebool"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, sparsebool.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, sparsebool.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, sparsebool.Codec) }
