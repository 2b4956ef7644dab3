//go:build nostrata

package main

// Built with -tags nostrata, the Strata time-series system reports every
// figure as unsupported.

type strataTS struct{}

func newStrataTS(tsConfig) *strataTS        { return &strataTS{} }
func newStrataTSNoCache(tsConfig) *strataTS { return &strataTS{} }

func (s *strataTS) Name() string                                   { return "strata" }
func (s *strataTS) Note() string                                   { return "" }
func (s *strataTS) Write(string, *Source, *tsWork) (string, error) { return "", errUnsupported }
func (s *strataTS) Open(string) error                              { return errUnsupported }
func (s *strataTS) Close() error                                   { return nil }
func (s *strataTS) HostHour(*tsWork, bool) (tsOut, error)          { return tsOut{}, errUnsupported }
func (s *strataTS) Windows(*tsWork, []tsWin, bool) (tsOut, error) {
	return tsOut{}, errUnsupported
}
func (s *strataTS) Downsample(*tsWork, bool) (tsOut, error) { return tsOut{}, errUnsupported }
func (s *strataTS) Last(*tsWork, bool) (tsOut, error)       { return tsOut{}, errUnsupported }
