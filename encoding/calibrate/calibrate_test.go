package calibrate_test

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/calibrate"
)

// TestRun checks that every registered encoding is measured on at least
// one case and that the fitted costs are finite and not negative.
func TestRun(t *testing.T) {
	res, err := calibrate.Run(all.Measured(), calibrate.Options{Rows: 1024, Rounds: 2, Reps: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range res.Kinds {
		if len(k.Samples) == 0 {
			t.Errorf("%v: no case measured", k.Kind)
		}
		if k.Cost.PerValue < 0 || k.Cost.PerString < 0 || k.Cost.PerByte < 0 {
			t.Errorf("%v: negative cost %+v", k.Kind, k.Cost)
		}
	}
	for _, k := range res.Kinds {
		// Dictionaries report alphabets of one length; calibration fits
		// their cost apart.
		if k.Kind == encoding.KindDictionary && k.Cost.FixedString <= 0 && k.Cost.FixedByte <= 0 {
			t.Errorf("%v: no cost fitted for values of one length: %+v", k.Kind, k.Cost)
		}
		// NumText's decimal form reports itself; calibration fits its
		// cost apart, and only its
		if k.Kind == encoding.KindNumText && (k.Cost.Alt == nil || k.Cost.Alt.PerString+k.Cost.Alt.PerByte <= 0) {
			t.Errorf("%v: no cost fitted for the decimal form: %+v", k.Kind, k.Cost)
		}
		if k.Kind != encoding.KindNumText && k.Cost.Alt != nil {
			t.Errorf("%v: a second form's cost fitted, but no encoder reports one: %+v", k.Kind, *k.Cost.Alt)
		}
	}
	if len(res.Kinds) != len(all.Registry().Codecs()) {
		t.Errorf("%d kinds measured, %d registered", len(res.Kinds), len(all.Registry().Codecs()))
	}
	if res.Zstd.PerByte <= 0 {
		t.Errorf("zstd cost %+v", res.Zstd)
	}
}

// BenchmarkCalibrate runs a full calibration and reports every fitted
// cost as a metric (ns per value, ns per byte):
//
//	go test -run '^$' -bench Calibrate ./encoding/calibrate
func BenchmarkCalibrate(b *testing.B) {
	var res *calibrate.Result
	for b.Loop() {
		var err error
		if res, err = calibrate.Run(all.Measured(), calibrate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, k := range res.Kinds {
		if k.Cost.PerValue > 0 {
			b.ReportMetric(k.Cost.PerValue, k.Kind.String()+"-ns/value")
		}
		if k.Cost.PerString > 0 {
			b.ReportMetric(k.Cost.PerString, k.Kind.String()+"-ns/string")
		}
		if k.Cost.PerByte > 0 {
			b.ReportMetric(k.Cost.PerByte, k.Kind.String()+"-ns/byte")
		}
	}
	b.ReportMetric(res.Zstd.PerFrame, "zstd-ns/frame")
	b.ReportMetric(res.Zstd.PerByte, "zstd-ns/byte")
	b.Log("\n" + res.Report())
}

// TestRunKinds checks that Options.Kinds limits the run to those encodings.
func TestRunKinds(t *testing.T) {
	res, err := calibrate.Run(all.Measured(), calibrate.Options{Rows: 512, Rounds: 1, Reps: 1, Kinds: []encoding.Kind{encoding.KindConstant}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kinds) != 1 || res.Kinds[0].Kind != encoding.KindConstant || len(res.Kinds[0].Samples) == 0 {
		t.Fatalf("measured %+v", res.Kinds)
	}
}
