package main

import (
	"errors"
	"fmt"
	"io"

	"strata/tpch"
)

// generate materializes TPC-H lineitem at scale factor sf.
func generate(sf float64, seed uint64) (*Source, error) {
	g := tpch.NewLineitem(sf, seed, 64<<10)
	src := &Source{Name: fmt.Sprintf("lineitem-sf%g", sf), Schema: tpch.Schema()}
	for {
		rec, err := g.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("generate lineitem: %w", err)
		}
		src.Records = append(src.Records, rec)
		src.Rows += rec.NumRows()
	}
	return src, nil
}
