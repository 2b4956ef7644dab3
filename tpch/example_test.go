package tpch_test

import (
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/tpch"
)

// Writing the first rows of a tiny table as CSV. WriteParquet takes the same
// generator; at any scale factor memory stays at about one batch plus one
// row group. The output is fixed by (scale factor, seed), so this example
// also pins the generator's stream.
func ExampleWriteCSV() {
	g := tpch.NewLineitem(0.00001, 3, 3) // 15 orders, batches of 3 rows
	n, err := tpch.WriteCSV(os.Stdout, &firstBatch{g: g})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n, "rows written; the table has about", g.Rows())
	// Output:
	// l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,l_shipmode,l_comment
	// 1,1,1,1,2900,2612900,3,8,N,O,1997-06-07,1997-06-27,1997-06-13,COLLECT COD,REG AIR,ckages boost slyly about the q
	// 1,2,1,2,900,811800,6,0,N,O,1997-07-26,1997-05-26,1997-08-24,COLLECT COD,SHIP,lar pinto beans? furiously spe
	// 1,2,1,3,1100,992200,2,0,N,O,1997-07-11,1997-07-07,1997-07-28,NONE,MAIL,deas x-ray
	// 3 rows written; the table has about 60
}

// firstBatch passes on only the first batch of g.
type firstBatch struct {
	g    *tpch.Generator
	done bool
}

func (f *firstBatch) Next() (arrow.RecordBatch, error) {
	if f.done {
		return nil, io.EOF
	}
	f.done = true
	return f.g.Next()
}
