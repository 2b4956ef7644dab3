package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
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

// columnsFlag defines --columns, a list of columns (see splitColumns),
// parsed with the flags.
func columnsFlag(fs *flag.FlagSet, usage string) *[]string {
	v := &columnsValue{}
	fs.Var(v, "columns", usage)
	return &v.cols
}

type columnsValue struct {
	text string
	cols []string
}

func (c *columnsValue) String() string {
	if c == nil {
		return ""
	}
	return c.text
}

func (c *columnsValue) Set(s string) error {
	cols, err := splitColumns(s)
	if err != nil {
		return err
	}
	c.text, c.cols = s, cols
	return nil
}

// splitColumns splits a --columns list at its commas. A name in double
// quotes may hold commas ("a,b"), and a quote doubled inside quotes is one
// quote ("say ""hi"""), as in filters and aggregates; a quoted part may
// also be a segment of a nested field's path (s."a,b", "a,b".c). Spaces
// around a name are dropped, those inside quotes kept. A closing quote is
// followed by a comma, a dot, spaces or the end: other text after it
// ("a"b) is an error naming the item, as is a quote left open.
func splitColumns(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	quoted, hadQuote, lead, trail := false, false, true, 0
	closed := false // after a closing quote (and any spaces)
	start := 0      // where the current item begins in s
	end := func(i int) {
		name := cur.String()
		name = name[:len(name)-trail]
		if name != "" || hadQuote {
			out = append(out, name)
		}
		cur.Reset()
		hadQuote, lead, trail, closed, start = false, true, 0, false, i+1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '"' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case quoted && c == '"':
			quoted, closed = false, true
		case quoted:
			cur.WriteByte(c)
		case c == ',':
			end(i)
		case closed && (c == ' ' || c == '\t'):
		case closed && c == '.' && s[i-1] == '"':
			// a quoted segment of a nested path, then the next one
			cur.WriteByte(c)
			closed = false
		case closed:
			item := s[start:]
			if j := strings.IndexByte(s[i:], ','); j >= 0 {
				item = s[start : i+j]
			}
			return nil, fmt.Errorf("%s: text after the closing quote (a comma or, in a nested path, a dot may follow it)", strings.TrimSpace(item))
		case c == '"':
			quoted, hadQuote, lead, trail = true, true, false, 0
		case c == ' ' || c == '\t':
			if !lead {
				cur.WriteByte(c)
				trail++
			}
		default:
			cur.WriteByte(c)
			lead, trail = false, 0
		}
	}
	if quoted {
		return nil, errors.New("a quote is not closed")
	}
	end(len(s))
	return out, nil
}
