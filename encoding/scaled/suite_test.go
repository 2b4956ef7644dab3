package scaled_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/scaled"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, scaled.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, scaled.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, scaled.Codec) }
