package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"strconv"
)

// parseFlags parses a command's flags. -h or --help prints the flags on
// stdout and returns flag.ErrHelp (run then ends the command, exit 0); a
// flag that is unknown or whose value does not parse prints the flags on
// stderr and returns a usage error (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard) // (the flag package would print the error itself)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(os.Stdout)
		fs.Usage()
		return flag.ErrHelp
	}
	fs.SetOutput(os.Stderr)
	fs.Usage()
	return usageError{err.Error()}
}

// threadsFlag defines --threads, whose value must be 0 or more: every
// command refuses a negative count alike, when parsing its flags.
func threadsFlag(fs *flag.FlagSet, value int, usage string) *int {
	p := new(int)
	*p = value
	fs.Var((*threadsValue)(p), "threads", usage)
	return p
}

type threadsValue int

func (t *threadsValue) String() string {
	if t == nil {
		return "0"
	}
	return strconv.Itoa(int(*t))
}

func (t *threadsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return errors.New("want a count of goroutines, 0 or more")
	}
	*t = threadsValue(n)
	return nil
}
