package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"strata"
	"strata/encoding"
	"strata/filter"
	"strata/interop"
	"strata/iox"
	"strata/read"
)

// Exit codes, documented in the usage text and the README.
const (
	exitOK      = 0
	exitFailed  = 1 // the work failed: I/O, an unsupported feature, a decode limit
	exitUsage   = 2 // the command line is wrong: command, flags, arguments, column names, expressions
	exitCorrupt = 3 // the file is corrupt, truncated or not a Strata file
)

// exitCode classifies an error for the process exit status.
func exitCode(err error) int {
	var ue usageError
	var se *filter.SyntaxError
	var be *filter.BindError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.As(err, &se), errors.As(err, &be), errors.Is(err, read.ErrUnknownColumn),
		errors.Is(err, read.ErrInvalidArgument), errors.Is(err, interop.ErrFormat):
		return exitUsage
	case errors.Is(err, encoding.ErrCorrupt):
		return exitCorrupt
	}
	return exitFailed
}

// openFile opens a Strata file for a command, turning the commonest
// mistakes into advice: a missing file names the path tried, and a Parquet,
// CSV or Arrow file given where a Strata file belongs suggests importing it.
func openFile(path string) (*strata.File, error) { return openFileWith(path, strata.OpenOptions{}) }

// openFileWith is openFile with options.
func openFileWith(path string, opts strata.OpenOptions) (*strata.File, error) {
	f, err := strata.OpenWith(context.Background(), path, opts)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		where := ""
		if !filepath.IsAbs(path) {
			where = " (looked in " + workingDir() + ")"
		}
		return nil, &adviceError{msg: fmt.Sprintf("%s: no such file%s", path, where), err: err}
	}
	if errors.Is(err, encoding.ErrCorrupt) {
		if kind := sniff(path); kind != "" {
			return nil, &adviceError{msg: fmt.Sprintf("%s is %s, not a Strata file; convert it first with: strata import %s OUT.strata", path, kind, path), err: err}
		}
	}
	return nil, err
}

// adviceError replaces an error's message with advice, keeping the error
// in the chain for exit codes and callers.
type adviceError struct {
	msg string
	err error
}

func (e *adviceError) Error() string { return e.msg }
func (e *adviceError) Unwrap() error { return e.err }

func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "the working directory"
	}
	return wd
}

// sniff names the format of a file that is not Strata, from its first bytes.
func sniff(path string) string {
	fh, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer fh.Close()
	var head [8]byte
	n, _ := fh.Read(head[:])
	return sniffBytes(head[:n])
}

// sniffSource is sniff for a remote object: one read of its first bytes.
func sniffSource(ctx context.Context, src iox.Source) string {
	n := min(src.Size(), 8)
	if n <= 0 {
		return ""
	}
	b, err := iox.ReadRange(ctx, src, iox.Range{Off: 0, Len: n})
	if err != nil {
		return ""
	}
	return sniffBytes(b)
}

// sniffBytes names the format whose magic b, a file's first bytes, starts
// with ("" for none it knows).
func sniffBytes(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("PAR1")):
		return "a Parquet file"
	case bytes.HasPrefix(b, []byte("ARROW1")):
		return "an Arrow IPC file"
	case bytes.HasPrefix(b, []byte{0xff, 0xff, 0xff, 0xff}):
		return "an Arrow IPC stream"
	}
	return ""
}
