package nullable_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/nullable"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, nullable.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, nullable.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, nullable.Codec) }
