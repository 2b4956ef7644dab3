package main

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
)

// metric names one column of the report.
type metric struct {
	name, unit, jsonKey string
	get                 func(*Result) (float64, bool)
	spread              func(*Result) *Fig
}

func figGet(f func(*Result) *Fig) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) {
		x := f(r)
		if x == nil {
			return 0, false
		}
		return x.Median, true
	}
}

var metrics = []metric{
	{"bytes", "B", "bytes", func(r *Result) (float64, bool) {
		if r.Bytes == nil {
			return 0, false
		}
		return float64(*r.Bytes), true
	}, nil},
	{"write", "ms", "write_ms", figGet(func(r *Result) *Fig { return r.Write }), func(r *Result) *Fig { return r.Write }},
	{"scan", "ms", "scan_ms", figGet(func(r *Result) *Fig { return r.Scan }), func(r *Result) *Fig { return r.Scan }},
	{"q_range", "ms", "q_range_ms", figGet(func(r *Result) *Fig { return r.QRange }), func(r *Result) *Fig { return r.QRange }},
	{"q_month", "ms", "q_month_ms", figGet(func(r *Result) *Fig { return r.QMonth }), func(r *Result) *Fig { return r.QMonth }},
	{"q_agg", "ms", "q_agg_ms", figGet(func(r *Result) *Fig { return r.QAgg }), func(r *Result) *Fig { return r.QAgg }},
	{"take", "µs/row", "take_us", figGet(func(r *Result) *Fig { return r.Take }), func(r *Result) *Fig { return r.Take }},
	{"take_cold", "µs/row", "take_cold_us", figGet(func(r *Result) *Fig { return r.TakeCold }), func(r *Result) *Fig { return r.TakeCold }},
}

func baseline(rep *Report) *Result {
	for _, r := range rep.Results {
		if r.System+"/"+r.Variant == baselineKey {
			return r
		}
	}
	return nil
}

func fmtNum(v float64, unit string) string {
	switch {
	case unit == "B":
		return groupDigits(int64(v))
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// printTable writes the medians with ratios to the baseline, then min–max.
func printTable(w io.Writer, rep *Report) {
	base := baseline(rep)
	fmt.Fprintf(w, "\n%s: %d rows (median of timed runs; ratio to %s in parentheses)\n\n", rep.Dataset, rep.Rows, baselineKey)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"system/variant"}
	for _, m := range metrics {
		hdr = append(hdr, fmt.Sprintf("%s %s", m.name, m.unit))
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, r := range rep.Results {
		row := []string{r.System + "/" + r.Variant}
		for _, m := range metrics {
			v, ok := m.get(r)
			if !ok {
				row = append(row, "-")
				continue
			}
			cell := fmtNum(v, m.unit)
			if base != nil {
				if b, ok := m.get(base); ok && b > 0 {
					cell += fmt.Sprintf(" (%.2f×)", v/b)
				}
			}
			row = append(row, cell)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()

	fmt.Fprintf(w, "\nspread (min–max of the timed runs)\n\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr = []string{"system/variant"}
	for _, m := range metrics[1:] {
		hdr = append(hdr, m.name)
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, r := range rep.Results {
		row := []string{r.System + "/" + r.Variant}
		for _, m := range metrics[1:] {
			f := m.spread(r)
			if f == nil {
				row = append(row, "-")
				continue
			}
			row = append(row, fmtNum(f.Min, m.unit)+"–"+fmtNum(f.Max, m.unit))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	printIO(w, rep)
	for _, r := range rep.Results {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "error: %s/%s: %s\n", r.System, r.Variant, e)
		}
	}
}

// printIO lists the requests and bytes one run of each query read, for the
// systems that count them.
func printIO(w io.Writer, rep *Report) {
	queries := []string{"scan", "q_range", "q_range_cold", "q_month", "q_month_cold", "q_agg", "q_agg_cold", "take"}
	any := false
	for _, r := range rep.Results {
		any = any || len(r.IO) > 0
	}
	if !any {
		return
	}
	fmt.Fprintf(w, "\nrequests / bytes read by one run (take: all lookups of a run; _cold: caches dropped first)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system/variant\t"+strings.Join(queries, "\t")+"\t")
	for _, r := range rep.Results {
		if len(r.IO) == 0 {
			continue
		}
		row := []string{r.System + "/" + r.Variant}
		for _, q := range queries {
			if v, ok := r.IO[q]; ok {
				row = append(row, fmt.Sprintf("%d / %s", v[0], groupDigits(v[1])))
			} else {
				row = append(row, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
}

// jsonResult is one entry of the JSON report; nil pointers encode as null.
type jsonResult struct {
	System   string                `json:"system"`
	Variant  string                `json:"variant"`
	Bytes    *int64                `json:"bytes"`
	WriteMs  *float64              `json:"write_ms"`
	ScanMs   *float64              `json:"scan_ms"`
	QRangeMs *float64              `json:"q_range_ms"`
	QMonthMs *float64              `json:"q_month_ms"`
	QAggMs   *float64              `json:"q_agg_ms"`
	TakeUs   *float64              `json:"take_us"`
	TakeCold *float64              `json:"take_cold_us"`
	IO       map[string][2]int64   `json:"io,omitempty"`
	Spread   map[string][2]float64 `json:"spread"`
	Errors   []string              `json:"errors,omitempty"`
}

type jsonReport struct {
	Dataset string       `json:"dataset"`
	Rows    int64        `json:"rows"`
	Results []jsonResult `json:"results"`
}

func med(f *Fig) *float64 {
	if f == nil {
		return nil
	}
	v := f.Median
	return &v
}

func toJSON(rep *Report) jsonReport {
	out := jsonReport{Dataset: rep.Dataset, Rows: rep.Rows, Results: []jsonResult{}}
	for _, r := range rep.Results {
		j := jsonResult{System: r.System, Variant: r.Variant, Bytes: r.Bytes,
			WriteMs: med(r.Write), ScanMs: med(r.Scan), QRangeMs: med(r.QRange),
			QMonthMs: med(r.QMonth), QAggMs: med(r.QAgg), TakeUs: med(r.Take), TakeCold: med(r.TakeCold),
			IO: r.IO, Spread: map[string][2]float64{}, Errors: r.Errors}
		for _, m := range metrics[1:] {
			if f := m.spread(r); f != nil {
				j.Spread[m.jsonKey] = [2]float64{f.Min, f.Max}
			}
		}
		out.Results = append(out.Results, j)
	}
	return out
}

func writeJSON(path string, rep *Report) error {
	b, err := json.MarshalIndent(toJSON(rep), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// writeSVG draws one group of bars per metric, one bar per system, each the
// system's figure divided by the baseline's, on a log scale (1 = baseline;
// below 1 is smaller/faster).
func writeSVG(path string, rep *Report) error {
	base := baseline(rep)
	if base == nil && len(rep.Results) > 0 {
		base = rep.Results[0]
	}
	colors := []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"}
	const (
		left, top, plotH = 60.0, 50.0, 320.0
		barW, gap        = 14.0, 24.0
	)
	// log10 ratio range: at least 0.1× .. 10×, widened to whole decades
	// that hold every bar.
	lo, hi := -1.0, 1.0
	for _, m := range metrics {
		if base == nil {
			break
		}
		bv, ok := m.get(base)
		if !ok || bv <= 0 {
			continue
		}
		for _, r := range rep.Results {
			if v, ok := m.get(r); ok && v > 0 {
				l := math.Log10(v / bv)
				lo, hi = math.Min(lo, math.Floor(l)), math.Max(hi, math.Ceil(l))
			}
		}
	}
	n := len(rep.Results)
	groupW := float64(n)*barW + gap
	width := left + float64(len(metrics))*groupW + 20
	height := top + plotH + 60 + float64(n)*18
	y := func(ratio float64) float64 {
		l := math.Log10(ratio)
		l = math.Max(lo, math.Min(hi, l))
		return top + (hi-l)/(hi-lo)*plotH
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := fmt.Sprintf("%s, %d rows: ratio to %s (log scale, lower is better)", rep.Dataset, rep.Rows, baselineKey)
	if base != nil && base.System+"/"+base.Variant != baselineKey {
		title = fmt.Sprintf("%s, %d rows: ratio to %s/%s (log scale, lower is better)", rep.Dataset, rep.Rows, base.System, base.Variant)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="24" font-size="14">%s</text>`+"\n", left, html.EscapeString(title))
	for l := lo; l <= hi; l++ {
		yy := y(math.Pow(10, l))
		stroke := "#ddd"
		if l == 0 {
			stroke = "#333"
		}
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="%s"/>`+"\n", left, width-20, yy, yy, stroke)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%g×</text>`+"\n", left-6, yy+4, math.Pow(10, l))
	}
	for mi, m := range metrics {
		x0 := left + float64(mi)*groupW + gap/2
		bv, bok := 0.0, false
		if base != nil {
			bv, bok = m.get(base)
		}
		for ri, r := range rep.Results {
			v, ok := m.get(r)
			if !ok || !bok || bv <= 0 || v <= 0 {
				continue
			}
			ratio := v / bv
			y1, y0 := y(ratio), y(1)
			top, h := math.Min(y0, y1), math.Abs(y1-y0)
			if h < 1 {
				h = 1
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.0f" height="%.1f" fill="%s"><title>%s %s: %s %s (%.2f×)</title></rect>`+"\n",
				x0+float64(ri)*barW, top, barW-2, h, colors[ri%len(colors)],
				html.EscapeString(r.System+"/"+r.Variant), m.name, fmtNum(v, m.unit), html.EscapeString(m.unit), ratio)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x0+float64(n)*barW/2, top+plotH+18, m.name)
	}
	for ri, r := range rep.Results {
		yy := top + plotH + 40 + float64(ri)*18
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/>`, left, yy-10, colors[ri%len(colors)])
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", left+18, yy, html.EscapeString(r.System+"/"+r.Variant))
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
