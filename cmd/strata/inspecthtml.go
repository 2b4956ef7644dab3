package main

import (
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"sort"

	"strata"
)

// htmlChunkRows bounds the chunk table of one column in the HTML report so a
// file of many thousand chunks still gives a page a browser opens at once;
// the JSON report (inspect --json) lists every chunk.
const htmlChunkRows = 400

// kindHelp explains each encoding in a sentence for a reader who has never
// met cascading encodings.
var kindHelp = map[string]string{
	"Constant":       "one value repeated for the whole chunk: stored once.",
	"Trivial":        "values stored as they are (text as lengths plus bytes).",
	"FixedBitWidth":  "integers stored with just enough bits for the range of the chunk, after subtracting its minimum.",
	"BlockFOR":       "like FixedBitWidth, but each block of values gets its own minimum and bit width; rare outliers are patched in.",
	"Varint":         "integers in a variable number of bytes: small numbers take fewer.",
	"Delta":          "each value stored as its difference from the previous one; good for sorted or slowly changing data.",
	"RLE":            "runs of equal values stored as (value, run length) pairs.",
	"Dictionary":     "each distinct value stored once; rows hold small ids into that list.",
	"MainlyConstant": "one common value plus the positions and values of the exceptions.",
	"SparseBool":     "booleans that are mostly one value: only the positions of the others are kept.",
	"Nullable":       "a presence bitmap plus the non-null values.",
	"FSST":           "text compressed with a table of frequent substrings learned from the chunk; any value can be decoded alone.",
	"ALP":            "decimal-like floating-point numbers turned into integers (value × 10^e) and stored as integers.",
	"ALP-RD":         "high-precision floats split into a few distinct leading bits (a dictionary) and bit-packed trailing bits.",
	"FrontCoding":    "sorted text where each value stores only what differs from its predecessor.",
	"DigitText":      "text made of digits (zip codes, ids) stored as numbers, keeping leading zeros.",
}

type htmlSeg struct {
	Kind  string
	Bytes int64
	Pct   float64 // of the widest bar
	Color string
}

type htmlColumn struct {
	strata.ColumnReport
	Share     float64
	Segs      []htmlSeg
	TreeRows  []htmlTree
	ChunkRows []strata.ChunkReport
	MoreChunk int
}

type htmlTree struct {
	Tree   string
	Chunks int
	Share  float64 // of the column's chunks
}

type htmlKind struct {
	Kind  string
	Bytes int64
	Share float64
	Pct   float64
	Color string
	Help  string
}

type htmlPage struct {
	Name          string
	R             *strata.Report
	Columns       []htmlColumn
	Kinds         []htmlKind
	ColumnBytes   int64
	MetaBytes     int64
	BytesPerRow   float64
	BiggestColumn string
	BiggestShare  float64
}

// writeHTMLReport renders a report as one self-contained page: inline
// styles, one small inline script that only records what was laid out, and
// nothing fetched from the network, so it opens offline and can be attached
// to a ticket.
func writeHTMLReport(w io.Writer, path string, r *strata.Report) error {
	p := htmlPage{Name: filepath.Base(path), R: r}
	kindBytes := map[string]int64{}
	var widest int64 = 1
	for _, c := range r.Columns {
		p.ColumnBytes += c.Bytes
		widest = max(widest, c.Bytes)
		for k, b := range c.Encodings {
			kindBytes[k] += b
		}
	}
	p.MetaBytes = max(r.Bytes-p.ColumnBytes, 0)
	if r.Rows > 0 {
		p.BytesPerRow = float64(r.Bytes) / float64(r.Rows)
	}
	for _, c := range r.Columns {
		hc := htmlColumn{ColumnReport: c, Share: pct(c.Bytes, r.Bytes)}
		kinds := sortedKinds(c.Encodings)
		for _, k := range kinds {
			hc.Segs = append(hc.Segs, htmlSeg{Kind: k, Bytes: c.Encodings[k], Pct: 100 * float64(c.Encodings[k]) / float64(widest), Color: kindColor(k)})
		}
		for _, t := range c.Trees {
			hc.TreeRows = append(hc.TreeRows, htmlTree{Tree: t.Tree, Chunks: t.Chunks, Share: pct(int64(t.Chunks), int64(c.Chunks))})
		}
		hc.ChunkRows = c.ChunkList
		if len(hc.ChunkRows) > htmlChunkRows {
			hc.MoreChunk = len(hc.ChunkRows) - htmlChunkRows
			hc.ChunkRows = hc.ChunkRows[:htmlChunkRows]
		}
		p.Columns = append(p.Columns, hc)
	}
	sort.SliceStable(p.Columns, func(i, j int) bool { return p.Columns[i].Bytes > p.Columns[j].Bytes })
	if len(p.Columns) > 0 {
		p.BiggestColumn, p.BiggestShare = p.Columns[0].Name, p.Columns[0].Share
	}
	var widestKind int64 = 1
	for _, b := range kindBytes {
		widestKind = max(widestKind, b)
	}
	for _, k := range sortedKinds(kindBytes) {
		p.Kinds = append(p.Kinds, htmlKind{Kind: k, Bytes: kindBytes[k], Share: pct(kindBytes[k], p.ColumnBytes),
			Pct: 100 * float64(kindBytes[k]) / float64(widestKind), Color: kindColor(k), Help: kindHelp[k]})
	}
	return htmlTmpl.Execute(w, p)
}

func pct(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// sortedKinds returns the keys of m, largest value first.
func sortedKinds(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if m[ks[i]] != m[ks[j]] {
			return m[ks[i]] > m[ks[j]]
		}
		return ks[i] < ks[j]
	})
	return ks
}

// kindPalette gives the common encodings fixed, distinguishable colours;
// others get one derived from their name.
var kindPalette = map[string]string{
	"Trivial": "#8c96a8", "FixedBitWidth": "#3b82c4", "BlockFOR": "#1f5f99", "Dictionary": "#e0892b",
	"RLE": "#5aa469", "Delta": "#9467bd", "Constant": "#c9c9c9", "FSST": "#d4513b", "Varint": "#17a2b8",
	"MainlyConstant": "#b5a33a", "SparseBool": "#e377c2", "Nullable": "#7f7f7f", "ALP": "#2ca02c",
	"ALP-RD": "#98df8a", "FrontCoding": "#ff9896", "DigitText": "#c49c94",
}

func kindColor(k string) string {
	if c, ok := kindPalette[k]; ok {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(k))
	return fmt.Sprintf("hsl(%d, 55%%, 55%%)", h.Sum32()%360)
}

func humanBytes(n int64) string {
	f := float64(n)
	switch {
	case f >= 1<<30:
		return fmt.Sprintf("%.2f GiB", f/(1<<30))
	case f >= 1<<20:
		return fmt.Sprintf("%.2f MiB", f/(1<<20))
	case f >= 1<<10:
		return fmt.Sprintf("%.1f KiB", f/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"bytes": humanBytes,
	"pct":   func(f float64) string { return fmt.Sprintf("%.1f%%", f) },
	"f1":    func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"width": func(f float64) template.CSS {
		return template.CSS(fmt.Sprintf("width:%.3f%%", math.Max(f, 0)))
	},
	"bg":     func(c string) template.CSS { return template.CSS("background:" + c) },
	"indent": func(d int) template.CSS { return template.CSS(fmt.Sprintf("padding-left:%dem", 1+2*d)) },
}).Parse(htmlSource))

const htmlSource = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Name}} — Strata file report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px} h2{font-size:19px;margin:32px 0 8px} h3{font-size:16px;margin:16px 0 6px}
p.lead{color:#4a5468;margin:0 0 16px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{background:#fff;border:1px solid #dfe3ea;border-radius:8px;padding:10px 16px;min-width:130px}
.card b{display:block;font-size:20px}
.card span{color:#5b6476;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
table{border-collapse:collapse;background:#fff;width:100%;margin:6px 0 12px}
th,td{border-bottom:1px solid #e6e9ef;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600;font-size:12px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.bar{display:flex;height:18px;background:#eef1f5;border-radius:3px;overflow:hidden;min-width:300px}
.bar div{height:100%}
.legend{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}
.legend span{display:inline-flex;align-items:center;gap:4px;font-size:12px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px}
code,.tree{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
details{background:#fff;border:1px solid #dfe3ea;border-radius:8px;margin:8px 0;padding:6px 12px}
summary{cursor:pointer;font-weight:600}
.note{color:#5b6476;font-size:12px}
.clip{max-width:220px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
</style></head>
<body><main>
<h1>{{.Name}}</h1>
<p class="lead">A Strata file: a table stored column by column. Each column is cut into <em>chunks</em>, and every chunk
picks the <em>encoding</em> that stores its values in the fewest bytes. Some encodings hand part of their data to
another encoding (a dictionary hands its list of ids on, for instance), which is written in parentheses:
<code>Dictionary(Trivial, FixedBitWidth)</code> is a dictionary whose distinct values are stored as they are and whose
ids are bit-packed.</p>

<section id="summary">
<div class="cards">
<div class="card"><span>rows</span><b id="rows">{{.R.Rows}}</b></div>
<div class="card"><span>columns</span><b id="ncolumns">{{len .Columns}}</b></div>
<div class="card"><span>file size</span><b>{{bytes .R.Bytes}}</b></div>
<div class="card"><span>bytes per row</span><b>{{f1 .BytesPerRow}}</b></div>
<div class="card"><span>stripes</span><b>{{.R.Stripes}}</b></div>
<div class="card"><span>metadata</span><b>{{bytes .MetaBytes}}</b></div>
</div>
{{if .BiggestColumn}}<p>The largest column is <b>{{.BiggestColumn}}</b>, with {{pct .BiggestShare}} of the file.</p>{{end}}
</section>

<section id="bytes-by-column">
<h2>Where the bytes are, by column</h2>
<p class="note">Each bar is one column, its length its size; the colours show which encodings hold its bytes.</p>
<div class="legend">{{range .Kinds}}<span><i style="{{bg .Color}}"></i>{{.Kind}}</span>{{end}}</div>
<table>
<tr><th>column</th><th>type</th><th class="num">bytes</th><th class="num">share</th><th>encodings</th></tr>
{{range .Columns}}<tr class="column-row" data-column="{{.Name}}">
<td><a href="#col-{{.Name}}">{{.Name}}</a></td><td class="clip" title="{{.Type}}">{{.Type}}</td>
<td class="num">{{bytes .Bytes}}</td><td class="num">{{pct .Share}}</td>
<td><div class="bar">{{range .Segs}}<div style="{{width .Pct}};{{bg .Color}}" title="{{.Kind}}: {{bytes .Bytes}}"></div>{{end}}</div></td></tr>
{{end}}</table>
</section>

<section id="bytes-by-encoding">
<h2>Where the bytes are, by encoding</h2>
<table>
<tr><th>encoding</th><th class="num">bytes</th><th class="num">share</th><th></th><th>what it does</th></tr>
{{range .Kinds}}<tr class="kind-row" data-kind="{{.Kind}}"><td><b>{{.Kind}}</b></td><td class="num">{{bytes .Bytes}}</td>
<td class="num">{{pct .Share}}</td><td><div class="bar" style="min-width:160px"><div style="{{width .Pct}};{{bg .Color}}"></div></div></td>
<td>{{.Help}}</td></tr>
{{end}}</table>
</section>

<section id="columns">
<h2>Columns</h2>
{{range .Columns}}<details id="col-{{.Name}}" class="column-detail">
<summary>{{.Name}} <span class="note">— {{.Type}}, {{bytes .Bytes}} in {{.Chunks}} chunks</span></summary>
<h3>Encoding trees</h3>
<table><tr><th>tree</th><th class="num">chunks</th><th class="num">of the column's chunks</th></tr>
{{range .TreeRows}}<tr><td class="tree">{{.Tree}}</td><td class="num">{{.Chunks}}</td><td class="num">{{pct .Share}}</td></tr>{{end}}
</table>
<h3>Per stripe</h3>
<table><tr><th class="num">stripe</th><th class="num">rows</th><th class="num">bytes</th><th class="num">chunks</th><th class="num">nulls</th><th>min</th><th>max</th></tr>
{{range .PerStripe}}<tr><td class="num">{{.Stripe}}</td><td class="num">{{.Rows}}</td><td class="num">{{bytes .Bytes}}</td><td class="num">{{.Chunks}}</td>
<td class="num">{{.Nulls}}</td><td class="clip" title="{{.Min}}">{{.Min}}</td><td class="clip" title="{{.Max}}">{{.Max}}</td></tr>{{end}}
</table>
<h3>Per chunk</h3>
<table><tr><th class="num">stripe</th><th>stream</th><th class="num">chunk</th><th class="num">rows</th><th class="num">bytes</th><th>tree</th><th class="num">nulls</th><th>min</th><th>max</th></tr>
{{range .ChunkRows}}<tr><td class="num">{{.Stripe}}</td><td>{{.Path}} <span class="note">{{.Role}}</span></td><td class="num">{{.Chunk}}</td><td class="num">{{.Rows}}</td>
<td class="num">{{.Bytes}}</td><td class="tree">{{.Tree}}</td><td class="num">{{.Nulls}}</td><td class="clip" title="{{.Min}}">{{.Min}}</td><td class="clip" title="{{.Max}}">{{.Max}}</td></tr>{{end}}
</table>
{{if .MoreChunk}}<p class="note">{{.MoreChunk}} more chunks are not shown; <code>strata inspect --json</code> lists them all.</p>{{end}}
</details>
{{end}}</section>

<section id="schema">
<h2>Schema</h2>
<table><tr><th>field</th><th>type</th><th>nullable</th></tr>
{{range .R.Schema}}<tr class="schema-row"><td style="{{indent .Depth}}"><code>{{.Path}}</code></td><td class="clip" title="{{.Type}}">{{.Type}}</td><td>{{if .Nullable}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>
</section>
<p class="note">Written by <code>strata inspect --html</code>.</p>
</main>
<script>
// Records, once laid out, how many column rows the browser actually shows
// (tests read it from the rendered DOM); the page needs no script to display.
window.addEventListener("load", function () {
  var shown = 0;
  document.querySelectorAll("tr.column-row").forEach(function (r) { if (r.getBoundingClientRect().height > 0) shown++; });
  document.body.setAttribute("data-columns-shown", String(shown));
});
</script>
</body></html>
`
