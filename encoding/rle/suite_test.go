package rle_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/rle"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, rle.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, rle.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, rle.Codec) }
