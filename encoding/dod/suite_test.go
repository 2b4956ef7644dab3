package dod_test

import (
	"testing"

	"strata/encoding/dod"
	"strata/encoding/encodingtest"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, dod.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, dod.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, dod.Codec) }
