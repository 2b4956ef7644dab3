package constant_test

import (
	"testing"

	"strata/encoding/constant"
	"strata/encoding/encodingtest"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, constant.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, constant.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, constant.Codec) }
