package lagdelta_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/lagdelta"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, lagdelta.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, lagdelta.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, lagdelta.Codec) }
