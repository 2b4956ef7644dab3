package fieldtext_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/fieldtext"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, fieldtext.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, fieldtext.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, fieldtext.Codec) }
