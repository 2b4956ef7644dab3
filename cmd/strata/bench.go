package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// runBench runs the side-by-side benchmark harness. The harness lives in
// its own module (bench/) so that the library does not depend on DuckDB and
// parquet-go; from a checkout, `strata bench [flags]` runs it with the go
// tool, passing the flags through (see bench/README.md: --sf, --parquet,
// --runs, --threads, --systems, --json, --svg, ...).
func runBench(args []string) error {
	dir, err := findBenchModule()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", append([]string{"run", "."}, args...)...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bench harness: %w", err)
	}
	return nil
}

// findBenchModule looks for bench/go.mod in the working directory and its
// parents.
func findBenchModule() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "bench", "go.mod")); err == nil {
			return filepath.Join(d, "bench"), nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("the benchmark harness is the bench/ module of the Strata repository; run this command inside a checkout (or: cd bench && go run . --help)")
}
