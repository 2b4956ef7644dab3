package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progressFlags are the --progress and --quiet flags of the long-running
// commands (import, export, gen, sizes).
type progressFlags struct {
	force, quiet *bool
}

func addProgressFlags(fs *flag.FlagSet) *progressFlags {
	return &progressFlags{
		force: fs.Bool("progress", false, "report progress even when stderr is not a terminal (a line every few seconds)"),
		quiet: fs.Bool("quiet", false, "print no progress and no summary"),
	}
}

// progress reports how far a long command is: on a terminal a bar redrawn
// in place with done/total, rate and time left; elsewhere, when asked with
// --progress, a plain line every few seconds; nothing with --quiet.
type progress struct {
	w        io.Writer
	tty      bool // redraw a bar in place
	lines    bool // print plain lines
	quiet    bool
	label    string
	unit     string
	total    int64
	start    time.Time
	last     time.Time
	interval time.Duration
	drawn    bool
}

// newProgress starts a report of work counted in unit, out of total (0
// when unknown).
func newProgress(label, unit string, total int64, pf *progressFlags) *progress {
	p := &progress{w: os.Stderr, label: label, unit: unit, total: total, start: time.Now()}
	if pf != nil && *pf.quiet {
		p.quiet = true
		return p
	}
	p.tty = term.IsTerminal(int(os.Stderr.Fd()))
	p.lines = !p.tty && pf != nil && *pf.force
	p.interval = 100 * time.Millisecond
	if p.lines {
		p.interval = 5 * time.Second
		p.last = p.start // the first line after one interval
	}
	return p
}

// setTotal changes the unit and total, when they become known.
func (p *progress) setTotal(total int64, unit string) { p.total, p.unit = total, unit }

// update reports that done units are finished.
func (p *progress) update(done int64) {
	if p.quiet || (!p.tty && !p.lines) {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	line := p.line(done, now)
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.drawn = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// line renders the state: a bar when the total is known, the count, the
// rate and the time left.
func (p *progress) line(done int64, now time.Time) string {
	el := now.Sub(p.start).Seconds()
	var b strings.Builder
	b.WriteString(p.label)
	if p.total > 0 {
		frac := min(float64(done)/float64(p.total), 1)
		if p.tty {
			const width = 28
			n := int(frac * width)
			fmt.Fprintf(&b, " [%s%s]", strings.Repeat("#", n), strings.Repeat(".", width-n))
		} else {
			b.WriteString(":")
		}
		fmt.Fprintf(&b, " %5.1f%% %s/%s %s", 100*frac, human(done), human(p.total), p.unit)
	} else {
		fmt.Fprintf(&b, ": %s %s", human(done), p.unit)
	}
	if el > 0 && done > 0 {
		rate := float64(done) / el
		fmt.Fprintf(&b, ", %s %s/s", human(int64(rate)), p.unit)
		if p.total > done {
			left := time.Duration(float64(p.total-done) / rate * float64(time.Second))
			fmt.Fprintf(&b, ", %v left", left.Round(time.Second))
		}
	}
	return b.String()
}

// finish ends the report with a summary line (not with --quiet).
func (p *progress) finish(done int64) {
	if p.quiet {
		return
	}
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	if p.tty || p.lines {
		fmt.Fprintf(p.w, "%s: %s %s in %v\n", p.label, human(done), p.unit, time.Since(p.start).Round(time.Millisecond))
	}
}

// summary prints a closing line unless --quiet.
func (p *progress) summary(format string, args ...any) {
	if !p.quiet {
		fmt.Fprintf(p.w, format, args...)
	}
}

// human shortens a count: 1234567 → 1.23M.
func human(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return fmt.Sprintf("%.2fG", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.2fM", f/1e6)
	case f >= 1e4:
		return fmt.Sprintf("%.1fk", f/1e3)
	}
	return fmt.Sprint(n)
}
