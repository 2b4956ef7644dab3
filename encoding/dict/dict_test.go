package dict_test

import (
	"testing"

	"strata/encoding/dict"
	"strata/encoding/internal/cascade/cascadetest"
)

func TestRoundTrip(t *testing.T) {
	p, opts := cascadetest.Setup(dict.Codec, nil)
	cascadetest.AllTypes(t, p, opts, false, true)
}
