package dict_test

import (
	"testing"

	"strata/encoding/dict"
	"strata/encoding/encodingtest"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, dict.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, dict.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, dict.Codec) }
