package mainlyconst_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/mainlyconst"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, mainlyconst.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, mainlyconst.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, mainlyconst.Codec) }
