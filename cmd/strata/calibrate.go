package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/calibrate"
)

// runCalibrate measures the decode costs encoding selection weighs bytes
// against, on this machine, and prints them with the samples they were
// fitted on (see package encoding/calibrate for how).
func runCalibrate(args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	rows := fs.Int("rows", 8192, "values per measured chunk")
	rounds := fs.Int("rounds", 15, "rounds per measurement; the fastest counts")
	reps := fs.Int("reps", 10, "decodes per round")
	kinds := fs.String("kinds", "", "comma-separated encodings to measure (default: all), e.g. Dictionary,SharedDictionary")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("calibrate takes no arguments")
	}
	if err := checkCalibrateFlags(*rows, *rounds, *reps); err != nil {
		return err
	}
	reg := all.Measured()
	var ks []encoding.Kind
	if *kinds != "" {
		for _, name := range strings.Split(*kinds, ",") {
			k, ok := kindByName(reg, strings.TrimSpace(name))
			if !ok {
				return usagef("calibrate: unknown encoding %q", name)
			}
			ks = append(ks, k)
		}
	}
	res, err := calibrate.Run(reg, calibrate.Options{Rows: *rows, Rounds: *rounds, Reps: *reps, Kinds: ks})
	if err != nil {
		return err
	}
	fmt.Fprint(os.Stdout, res.Report())
	return nil
}

// checkCalibrateFlags refuses counts calibrate.Run would take as its
// defaults (zero or less), and a chunk past the decoders' row limit, which
// measures nothing a file can hold and is allocated up front (10¹² rows
// ran out of memory).
func checkCalibrateFlags(rows, rounds, reps int) error {
	if rows < 1 || rows > encoding.DefaultMaxRows {
		return usagef("--rows %d: want 1 to %d", rows, encoding.DefaultMaxRows)
	}
	if rounds < 1 {
		return usagef("--rounds %d: want 1 or more", rounds)
	}
	if reps < 1 {
		return usagef("--reps %d: want 1 or more", reps)
	}
	return nil
}

// kindByName finds a registered encoding by its name, case aside.
func kindByName(reg *encoding.Registry, name string) (encoding.Kind, bool) {
	for _, c := range reg.Codecs() {
		if strings.EqualFold(c.Kind.String(), name) {
			return c.Kind, true
		}
	}
	return 0, false
}
