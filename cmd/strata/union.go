package main

import (
	"errors"
	"fmt"

	"strata/read"
)

// byNameError names by their paths the two files of a column of two types
// in a read by column name (read.TypeConflict indexes the files); other
// errors (a column or filter column no file has: read.ErrUnknownColumn,
// a usage error) pass as they are.
func byNameError(err error, paths []string) error {
	var tc *read.TypeConflict
	if errors.As(err, &tc) {
		return fmt.Errorf("column %q is %s in %s and %s in %s: %w", tc.Column, tc.FirstType, paths[tc.First],
			tc.OtherType, paths[tc.Other], read.ErrInvalidArgument)
	}
	return err
}
