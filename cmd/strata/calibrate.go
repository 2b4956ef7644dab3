package main

import (
	"flag"
	"fmt"
	"os"

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
	if err := fs.Parse(args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() != 0 {
		return usagef("calibrate takes no arguments")
	}
	res, err := calibrate.Run(all.Measured(), calibrate.Options{Rows: *rows, Rounds: *rounds, Reps: *reps})
	if err != nil {
		return err
	}
	fmt.Fprint(os.Stdout, res.Report())
	return nil
}
