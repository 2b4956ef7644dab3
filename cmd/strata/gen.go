package main

import (
	"flag"
	"io"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/interop"
	"strata/tpch"
)

func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	sf := fs.Float64("sf", 0.1, "TPC-H scale factor")
	seed := fs.Uint64("seed", 1, "random seed")
	pf := addProgressFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "tpch" {
		return usagef("want: gen tpch [--sf 0.1] [--seed 1] OUT")
	}
	out := pos[1]
	gen := tpch.NewLineitem(*sf, *seed, 64<<10)
	var sink interface {
		Write(rec arrow.Record) error
		Close() error
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".strata":
		w, err := strata.Create(out, tpch.Schema(), nil)
		if err != nil {
			return err
		}
		sink = w
	default:
		s, err := interop.Create(out, tpch.Schema(), interop.WriteOptions{})
		if err != nil {
			return err
		}
		sink = s
	}
	p := newProgress("gen", "rows", gen.Rows(), pf)
	var n int64
	for {
		rec, err := gen.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		n += rec.NumRows()
		err = sink.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
		p.update(n)
	}
	if err := sink.Close(); err != nil {
		return err
	}
	p.finish(n)
	p.summary("wrote %s: %d rows, %d bytes\n", out, n, fileSize(out))
	return nil
}
