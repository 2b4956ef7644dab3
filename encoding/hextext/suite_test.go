package hextext_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/hextext"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, hextext.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, hextext.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, hextext.Codec) }
