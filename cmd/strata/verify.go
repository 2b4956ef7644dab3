package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"strata/encoding"
)

// runVerify checks every checksum of each file: the footer on open, then
// every chunk, stripe group and section, then the whole-file checksum. It
// prints "ok" or the first corruption, located by stripe, column and chunk.
// A corrupt file makes the exit status 3; a file it could not read (a
// missing file, an I/O error) and no corrupt one, 1.
func runVerify(args []string) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want one or more files")
	}
	ctx := context.Background()
	corrupt, failed, n := 0, 0, 0
	for _, arg := range pos {
		// (a pattern checks every file it matches)
		paths, err := globPaths(ctx, arg, sf)
		if err != nil {
			failed++
			n++
			fmt.Printf("%s: %v\n", arg, err)
			continue
		}
		for _, path := range paths {
			n++
			switch err := verifyFile(ctx, path, sf); {
			case err == nil:
				fmt.Printf("%s: ok\n", path)
			case errors.Is(err, encoding.ErrCorrupt):
				corrupt++
				fmt.Printf("%s: CORRUPT: %v\n", path, err)
			default:
				failed++
				msg := err.Error()
				if !strings.HasPrefix(msg, path+":") {
					// (openFile's advice names the path itself)
					msg = path + ": " + msg
				}
				fmt.Println(msg)
			}
		}
	}
	switch {
	case corrupt > 0 && failed > 0:
		return &adviceError{msg: fmt.Sprintf("%d of %d files corrupt, %d could not be read", corrupt, n, failed), err: encoding.ErrCorrupt}
	case corrupt > 0:
		return &adviceError{msg: fmt.Sprintf("%d of %d files corrupt", corrupt, n), err: encoding.ErrCorrupt}
	case failed > 0:
		return fmt.Errorf("%d of %d files could not be read", failed, n)
	}
	return nil
}

func verifyFile(ctx context.Context, path string, sf *storeFlags) error {
	f, err := openStrata(ctx, path, sf)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Verify(ctx)
}
