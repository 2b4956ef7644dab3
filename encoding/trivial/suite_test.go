package trivial_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/trivial"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, trivial.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, trivial.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, trivial.Codec) }
