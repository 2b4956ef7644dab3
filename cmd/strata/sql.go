package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// runSQL runs SQL over Strata files in DuckDB. DuckDB needs cgo and a C++
// library, which the strata command does not link (it stays one pure-Go
// binary, and `go run ./cmd/strata demo` needs only Go), so `strata sql`
// hands its arguments to the strata-sql command of the sql/ module: a
// strata-sql binary on PATH (cd sql && go install ./cmd/strata-sql), or,
// inside a checkout, `go run ./cmd/strata-sql` in the sql module, the way
// `strata bench` runs the bench module.
func runSQL(args []string) error {
	var cmd *exec.Cmd
	if p, err := exec.LookPath("strata-sql"); err == nil {
		cmd = exec.Command(p, args...)
	} else {
		dir, err := findModule("sql")
		if err != nil {
			return fmt.Errorf("strata sql runs the strata-sql command: install it (cd sql && go install ./cmd/strata-sql) or run inside a checkout of the Strata repository")
		}
		cmd = exec.Command("go", append([]string{"run", "./cmd/strata-sql"}, args...)...)
		cmd.Dir = dir
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			// strata-sql has printed its error; keep its exit status.
			os.Exit(ee.ExitCode())
		}
		return fmt.Errorf("strata-sql: %w", err)
	}
	return nil
}

// findModule looks for NAME/go.mod in the working directory and its
// parents.
func findModule(name string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, name, "go.mod")); err == nil {
			return filepath.Join(d, name), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no %s/go.mod above %s", name, wd)
		}
	}
}
