package rle_test

import (
	"testing"

	"strata/encoding/internal/cascade/cascadetest"
	"strata/encoding/rle"
)

func TestRoundTrip(t *testing.T) {
	p, opts := cascadetest.Setup(rle.Codec, nil)
	cascadetest.AllTypes(t, p, opts, true, true)
}
