//go:build nostrata

package main

import (
	"fmt"
	"io"
	"time"
)

// Built with -tags nostrata (e.g. while the strata facade does not compile),
// the Strata systems report every figure as unsupported.

type strataSys struct{ variant string }

func newStrataSys(variant string, _ config) *strataSys { return &strataSys{variant: variant} }

func (s *strataSys) Name() string                          { return "strata" }
func (s *strataSys) Variant() string                       { return s.variant }
func (s *strataSys) Write(string, *Source) (string, error) { return "", errUnsupported }
func (s *strataSys) Open(string) error                     { return errUnsupported }
func (s *strataSys) Close() error                          { return nil }
func (s *strataSys) Scan(bool) (Out, error)                { return Out{}, errUnsupported }
func (s *strataSys) QRange(*Workload, bool) (Out, error)   { return Out{}, errUnsupported }
func (s *strataSys) QMonth(*Workload, bool) (Out, error)   { return Out{}, errUnsupported }
func (s *strataSys) QAgg(*Workload) (Out, error)           { return Out{}, errUnsupported }
func (s *strataSys) Take([]int64, bool) (Out, error)       { return Out{}, errUnsupported }

func runObjstore(_, stderr io.Writer, _ *Source, _ *Workload, _ int, _ []time.Duration, _ string) int {
	fmt.Fprintln(stderr, "bench: --objstore needs the Strata systems (built with -tags nostrata)")
	return 2
}
