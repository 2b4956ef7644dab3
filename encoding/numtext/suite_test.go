package numtext_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/numtext"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, numtext.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, numtext.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, numtext.Codec) }
