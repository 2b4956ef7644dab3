package main

import (
	"context"
	"fmt"

	"strata"
	"strata/iox"
)

// runVerify checks every checksum of each file: the footer on open, then
// every chunk, stripe group and section, then the whole-file checksum. It
// prints "ok" or the first corruption, located by stripe, column and chunk.
func runVerify(args []string) error {
	if len(args) == 0 {
		return usagef("want one or more files")
	}
	bad, n := 0, 0
	for _, arg := range args {
		// (a pattern checks every file it matches)
		paths, err := iox.Glob(context.Background(), arg)
		if err != nil {
			bad++
			n++
			fmt.Printf("%s: %v\n", arg, err)
			continue
		}
		for _, path := range paths {
			n++
			if err := verifyFile(path); err != nil {
				bad++
				fmt.Printf("%s: CORRUPT: %v\n", path, err)
				continue
			}
			fmt.Printf("%s: ok\n", path)
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d files corrupt or missing", bad, n)
	}
	return nil
}

func verifyFile(path string) error {
	f, err := strata.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Verify(context.Background())
}
