package blockfor_test

import (
	"testing"

	"strata/encoding/blockfor"
	"strata/encoding/encodingtest"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, blockfor.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, blockfor.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, blockfor.Codec) }
