package sparsebool_test

import (
	"testing"

	"strata/encoding/internal/cascade/cascadetest"
	"strata/encoding/sparsebool"
)

func TestRoundTrip(t *testing.T) {
	p, opts := cascadetest.Setup(sparsebool.Codec, nil)
	cascadetest.RoundTrips[bool](t, p, opts)
}
