package mainlyconst_test

import (
	"testing"

	"strata/encoding/internal/cascade/cascadetest"
	"strata/encoding/mainlyconst"
)

func TestRoundTrip(t *testing.T) {
	p, opts := cascadetest.Setup(mainlyconst.Codec, nil)
	cascadetest.AllTypes(t, p, opts, true, true)
}
