// Package facade lets the project's own tools (the strata command, the
// bench and sql modules) reach the reader behind a strata.File, which the
// public API keeps hidden: package strata sets ReadFile when it loads.
package facade

import "strata/read"

// ReadFile returns the *read.File inside a *strata.File.
var ReadFile func(f any) *read.File
