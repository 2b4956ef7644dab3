#!/usr/bin/env bash
# Builds the versitygw S3 gateway that the object-storage tests run (on
# 127.0.0.1, POSIX backend) into the tools cache, once, and prints its path.
# The version must match objtest.Version in internal/objtest.
set -euo pipefail
version=v1.8.0
tools="${STRATA_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/strata-tools}"
dir="$tools/versitygw-$version"
bin="$dir/versitygw"
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d "$dir/build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "building versitygw $version (once; cached in $dir)" >&2
  # go install pkg@version builds outside any module; GOFLAGS from the
  # caller (-mod=mod) does not apply to it.
  (cd "$tmp" && GOFLAGS= GOBIN="$tmp" CGO_ENABLED=0 go install "github.com/versity/versitygw/cmd/versitygw@$version")
  mv "$tmp/versitygw" "$bin"
fi
echo "$bin"
