package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"strata"
)

// parseSplit reads a --split argument: a split's JSON, or @FILE holding it.
func parseSplit(arg string) (*strata.Split, error) {
	b := []byte(arg)
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		var err error
		if b, err = os.ReadFile(name); err != nil {
			return nil, err
		}
	}
	return strata.ParseSplit(b)
}

// parseBytes reads a size such as 64MiB, 512KiB, 1GiB or a plain number.
func parseBytes(s string) (int64, error) {
	mult, unit := int64(1), ""
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult, unit = v, u.m, u.suffix
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit (KiB, MiB, GiB)", s)
	}
	if n > math.MaxInt64/mult {
		// (the product would wrap around, to a negative size or a small one)
		return 0, fmt.Errorf("size %q: at most %d bytes", s+unit, int64(math.MaxInt64))
	}
	return n * mult, nil
}

// runSplits prints the stripe-aligned splits of a file, one JSON object a
// line, each scannable elsewhere with `strata scan FILE --split JSON`.
func runSplits(args []string) error {
	fs := flag.NewFlagSet("splits", flag.ContinueOnError)
	target := fs.String("target", "128MiB", "bytes of stripe data per split")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one FILE")
	}
	n, err := parseBytes(*target)
	if err != nil {
		return usagef("--target: %v", err)
	}
	f, err := openFile(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(os.Stdout)
	for _, sp := range f.Splits(n) {
		sp.Location = pos[0]
		if err := enc.Encode(sp); err != nil {
			return err
		}
	}
	return nil
}
