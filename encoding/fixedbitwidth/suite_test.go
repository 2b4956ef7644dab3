package fixedbitwidth_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/fixedbitwidth"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, fixedbitwidth.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, fixedbitwidth.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, fixedbitwidth.Codec) }
