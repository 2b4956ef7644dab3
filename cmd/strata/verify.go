package main

import (
	"context"
	"fmt"

	"strata"
)

// runVerify checks every checksum of each file: the footer on open, then
// every chunk, stripe group and section, then the whole-file checksum. It
// prints "ok" or the first corruption, located by stripe, column and chunk.
func runVerify(args []string) error {
	if len(args) == 0 {
		return usagef("want one or more files")
	}
	bad := 0
	for _, path := range args {
		err := verifyFile(path)
		if err != nil {
			bad++
			fmt.Printf("%s: CORRUPT: %v\n", path, err)
			continue
		}
		fmt.Printf("%s: ok\n", path)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d files corrupt", bad, len(args))
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
