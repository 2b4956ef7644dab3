#!/usr/bin/env bash
# The project's test command: vet, the whole suite, the race detector on the
# packages with concurrency, and the benchmark harness end to end at tiny scale.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then echo "not gofmt-clean:"; echo "$bad"; exit 1; fi
echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 -timeout 25m ./...
echo "== ALP, LagDelta and bitpack without their assembly kernels (purego build, other architectures)"
go vet -tags purego ./encoding/alp ./encoding/lagdelta ./internal/bitpack
GOARCH=arm64 go vet ./encoding/alp ./encoding/lagdelta ./internal/bitpack
echo "== 32-bit build (int is 32 bits: constants and limits must fit)"
GOARCH=386 go vet ./...
go test -count=1 -tags purego ./encoding/alp ./encoding/lagdelta ./internal/bitpack
echo "== go test -race (packages with concurrency)"
# (write: streams encoded on several goroutines, a stripe in the background
# while the next is shredded)
race_pkgs=$(go list ./iox/... ./format/... ./read/... ./write/... ./shred/... 2>/dev/null || true)
if [ -n "$race_pkgs" ]; then go test -count=1 -race -timeout 25m $race_pkgs; fi
# the root package under the race detector: its concurrent reads, and the
# layouts whose decoders resolve other chunks (shared dictionaries, Correlated
# references) while the read plan decodes in parallel; the long sweeps of the
# root package ran above without it
go test -count=1 -race -short -timeout 15m -run 'TestConcurrentReads|TestStripeLayouts' .
# the CSV and JSON-lines readers' parallel parsers and the parallel CSV writer
go test -count=1 -race -timeout 10m -run 'TestCSVParallel|TestCSVExport|TestJSONLinesLayouts|FuzzJSON' ./interop
# the CLI opens the files of a pattern on several goroutines (agg, export, and cat/scan ahead of the read)
go test -count=1 -race -timeout 10m -run 'TestScanPattern|TestImportMany' ./cmd/strata
# the time-series layer decodes in parallel and shares caches between reads
go test -count=1 -race -timeout 10m -run 'TestConcurrentReads|TestSample' ./timeseries
if [ -f bench/go.mod ]; then
  echo "== bench module (tiny scale, correctness only)"
  (cd bench && go vet ./... && go test -count=1 -timeout 10m ./...)
fi
if [ -f sql/go.mod ]; then
  echo "== sql module (DuckDB over Strata: TPC-H Q1/Q6 and random pushdown cases against DuckDB on Parquet)"
  (cd sql && go vet ./... && go test -count=1 -timeout 10m ./...)
  # strata_scan reads splits ahead of DuckDB's threads on goroutines of its own
  (cd sql && go test -count=1 -race -timeout 10m -run 'TestScanPrefetch|TestScanS3|TestPatternScan' ./duckstrata)
fi
if [ -f specreader/go.mod ]; then
  echo "== specreader module (a second reader written from docs/FORMAT.md alone, against the golden files and the writer)"
  (cd specreader && go vet ./... && go test -count=1 -timeout 15m ./...)
fi
if [ -f difftest/go.mod ]; then
  echo "== difftest module (10,000 random cases against DuckDB, and the kept regressions)"
  (cd difftest && go vet ./... && go test -count=1 -timeout 20m ./...)
  # tables read on many goroutines, with readers beside the queries (ReadSeeds), under the race
  # detector for 45 seconds
  (cd difftest && DIFFTEST_LONG=45s DIFFTEST_FROM=23000000 go test -count=1 -race -timeout 10m -run 'TestLong$' .)
fi
