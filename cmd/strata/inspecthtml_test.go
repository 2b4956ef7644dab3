package main

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/tpch"
)

// writeLineitem writes a small generated TPC-H lineitem file.
func writeLineitem(t *testing.T, path string) {
	t.Helper()
	w, err := strata.Create(path, tpch.Schema(), &strata.WriteOptions{StripeBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	generateInto(t, 0.002, w)
}

// generateInto writes lineitem at scale factor sf into w and closes it.
func generateInto(t *testing.T, sf float64, w interface {
	Write(arrow.Record) error
	Close() error
}) {
	t.Helper()
	gen := tpch.NewLineitem(sf, 1, 4<<10)
	for {
		rec, err := gen.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func renderReport(t *testing.T, path string) []byte {
	t.Helper()
	f, err := strata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := f.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	rep.Bytes = fileSize(path)
	var buf bytes.Buffer
	if err := writeHTMLReport(&buf, path, rep); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestInspectHTMLSelfContained checks the page's content without a browser:
// every column, encoding and schema field is there, and nothing points
// outside the page.
func TestInspectHTMLSelfContained(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lineitem.strata")
	writeLineitem(t, path)
	page := string(renderReport(t, path))
	for _, f := range tpch.Schema().Fields() {
		if !strings.Contains(page, `data-column="`+f.Name+`"`) {
			t.Errorf("no bar for column %s", f.Name)
		}
		if !strings.Contains(page, `<code>`+f.Name+`</code>`) {
			t.Errorf("no schema line for column %s", f.Name)
		}
	}
	for _, k := range []string{"FixedBitWidth", "Dictionary", "FSST"} {
		if !strings.Contains(page, `data-kind="`+k+`"`) {
			t.Errorf("no row for encoding %s", k)
		}
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)`).FindString(page); m != "" {
		t.Errorf("page refers outside itself: %s", m)
	}
	if strings.Count(page, "<tr class=\"column-row\"") != len(tpch.Schema().Fields()) {
		t.Errorf("%d column rows, want %d", strings.Count(page, "<tr class=\"column-row\""), len(tpch.Schema().Fields()))
	}
}

// chromium returns the headless browser to render with. CI installs
// Debian's chromium and sets STRATA_REQUIRE_BROWSER=1, so there the test
// cannot skip itself.
func chromium(t *testing.T) string {
	for _, name := range []string{os.Getenv("STRATA_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("STRATA_REQUIRE_BROWSER") != "" {
		t.Fatal("STRATA_REQUIRE_BROWSER is set but no chromium was found (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH; install Debian's chromium to run this test (CI does)")
	return ""
}

// browserArgs start Chromium headless with nothing that reaches the network.
func browserArgs(t *testing.T, extra ...string) []string {
	return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--user-data-dir=" + t.TempDir(),
		// Refuse every host name, so a page that tried to fetch anything would show it.
		"--host-resolver-rules=MAP * ~NOTFOUND"}, extra...)
}

// TestInspectHTMLInChromium renders the report of a lineitem file in
// headless Chromium: the laid-out DOM must show all 16 columns and the
// screenshot must not be blank.
func TestInspectHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "lineitem.strata")
	writeLineitem(t, path)
	html := filepath.Join(dir, "report.html")
	if err := os.WriteFile(html, renderReport(t, path), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + html

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, browserArgs(t, "--virtual-time-budget=5000", "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	dom := string(out)
	m := regexp.MustCompile(`data-columns-shown="(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the rendered DOM has no data-columns-shown attribute (the page did not finish loading)")
	}
	if m[1] != "16" {
		t.Errorf("Chromium laid out %s column rows, want 16", m[1])
	}
	for _, f := range tpch.Schema().Fields() {
		if !strings.Contains(dom, `data-column="`+f.Name+`"`) {
			t.Errorf("rendered DOM lacks column %s", f.Name)
		}
	}

	shot := filepath.Join(dir, "report.png")
	cmd := exec.CommandContext(ctx, bin, browserArgs(t, "--window-size=1280,1600", "--screenshot="+shot, url)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, b)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	colors := map[[3]uint32]bool{}
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			c := img.At(x, y)
			r, g, bl, _ := c.RGBA()
			colors[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if c != bg {
				differ++
			}
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	if frac := float64(differ) / float64(total); frac < 0.05 || len(colors) < 16 {
		t.Errorf("screenshot looks blank: %.1f%% of pixels differ from the background, %d colours", 100*frac, len(colors))
	}
}
