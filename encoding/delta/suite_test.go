package delta_test

import (
	"testing"

	"strata/encoding/delta"
	"strata/encoding/encodingtest"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, delta.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, delta.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, delta.Codec) }
