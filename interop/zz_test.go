package interop_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

func TestZZ(t *testing.T) {
	recs, sch, err := readWithArrowGo("../../shared/testdata/parquet-testing/shredded_variant/case-047.parquet")
	fmt.Println(sch, err)
	c := recs[0].Column(1)
	fmt.Printf("%T nulls=%d len=%d\n", c, c.NullN(), c.Len())
	st := c.(array.ExtensionArray).Storage()
	fmt.Printf("%T nulls=%d %v\n", st, st.NullN(), st)
	fmt.Println(c.Data().Buffers()[0] != nil, st.Data().Buffers()[0] != nil)
}
