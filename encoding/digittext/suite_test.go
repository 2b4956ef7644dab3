package digittext_test

import (
	"testing"

	"strata/encoding/digittext"
	"strata/encoding/encodingtest"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, digittext.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, digittext.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, digittext.Codec) }
