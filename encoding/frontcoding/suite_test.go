package frontcoding_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/frontcoding"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, frontcoding.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, frontcoding.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, frontcoding.Codec) }
