package fsst_test

import (
	"testing"

	"strata/encoding/encodingtest"
	"strata/encoding/fsst"
)

func TestSuite(t *testing.T)     { encodingtest.Run(t, fsst.Codec) }
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, fsst.Codec) }
func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, fsst.Codec) }
