#!/usr/bin/env bash
# Fetches the public real data sets that docs/benchmarks.md measures Strata on
# (the "real data" section) and turns each into a Parquet file for the bench
# harness. CI does not run this script: the test suite needs no download.
#
# usage: scripts/fetch-datasets.sh DIR
#
# Sources (pinned versions; every data file is checked against its sha256):
#   flights-3m   npm vega-datasets@3.2.1, data/flights-3m.parquet (Polars, zstd)
#   zipcodes     npm vega-datasets@3.2.1, data/zipcodes.csv
#   birdstrikes  npm vega-datasets@3.2.1, data/birdstrikes.csv
#   oui          Debian bookworm ieee-data 20220827.1, oui.csv
#   words        Debian bookworm wamerican-insane 2020.12.07-2, the word list
#
# It uses the ordinary clients with their configured registries: `npm pack`
# and `apt-get download` (which needs a package index: run `apt-get update`
# once as root), then `tar` and `dpkg-deb`; nothing is installed. The CSV
# files are converted with the strata CLI built from this checkout:
#   strata import X.csv X.strata && strata export X.strata X.parquet
# (arrow-go writer, zstd). Set STRATA=/path/to/strata to use another binary.
#
# Results in DIR: NAME.parquet for each set (flights-3m.parquet as shipped),
# NAME.strata (Strata defaults), NAME.csv for the CSV-based ones, and
# download/ with the archives. Steps whose output exists are skipped, so
# running it again only re-checks the files.
set -euo pipefail

say() { printf '==> %s\n' "$*"; }
die() {
	printf 'fetch-datasets: %s\n' "$*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $0 DIR"
mkdir -p "$1"
out=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
dl="$out/download"
mkdir -p "$dl"

for tool in npm tar apt-get dpkg-deb sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || die "needs '$tool' on PATH (npm, and apt-get/dpkg-deb of a Debian system)"
done

# check FILE SHA256: the extracted data must be exactly the bytes measured in
# the docs, or the figures there do not apply.
check() {
	local got
	got=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$got" = "$2" ] || die "$1: sha256 $got, want $2 (a different file than the one documented)"
}

# --- npm: vega-datasets -----------------------------------------------------
vega_tgz="$dl/vega-datasets-3.2.1.tgz"
if [ ! -f "$vega_tgz" ]; then
	say "npm pack vega-datasets@3.2.1 (17.6 MB; without network npm retries for minutes before failing)"
	(cd "$dl" && npm pack --prefer-offline vega-datasets@3.2.1 >/dev/null) ||
		die "npm pack vega-datasets@3.2.1 failed: no network, or no access to the npm registry?"
else
	say "have $vega_tgz"
fi
vega_files="package/data/flights-3m.parquet package/data/zipcodes.csv package/data/birdstrikes.csv"
if [ ! -f "$dl/vega/package/data/birdstrikes.csv" ]; then
	say "unpack $vega_files"
	mkdir -p "$dl/vega"
	# shellcheck disable=SC2086 # a list of member names
	tar -xzf "$vega_tgz" -C "$dl/vega" $vega_files
fi
check "$dl/vega/package/data/flights-3m.parquet" dbeb920c90f59b6ccaff823dcc3d08f25a97fa1ce128d93f40be4e931f5900b0
check "$dl/vega/package/data/zipcodes.csv" 8ad998c84fe40b33806130ba942f18beaf734617a150ad563eeaebdfc003bc62
check "$dl/vega/package/data/birdstrikes.csv" 45777edf69984b37599e73dbfb34dbc976055243547407214261a4fcb9466462

# --- Debian: ieee-data, wamerican-insane ------------------------------------
# deb PKG VERSION MEMBER: download the package (if needed) and extract one file.
deb() {
	local pkg=$1 ver=$2 member=$3 file
	file="$dl/${pkg}_${ver}_all.deb"
	if [ ! -f "$file" ]; then
		say "apt-get download $pkg=$ver"
		(cd "$dl" && apt-get download -q "$pkg=$ver") ||
			die "apt-get download $pkg=$ver failed: no network, or no package index (run 'apt-get update' as root)?"
	else
		say "have $file"
	fi
	if [ ! -f "$dl/$pkg/$member" ]; then
		say "extract $member from $(basename "$file")"
		mkdir -p "$dl/$pkg"
		dpkg-deb --fsys-tarfile "$file" | tar -x -C "$dl/$pkg" "./$member"
	fi
}
deb ieee-data 20220827.1 usr/share/ieee-data/oui.csv
deb wamerican-insane 2020.12.07-2 usr/share/dict/american-english-insane
check "$dl/ieee-data/usr/share/ieee-data/oui.csv" 6a2a3bb4983b3edcae727ed890406fc678023bd8e5010e4fb89e1312ee3885ae
check "$dl/wamerican-insane/usr/share/dict/american-english-insane" 19fb16e4f5262e5007e9b203a4d5cc3cd05834987b2f2c1e037bc6329c2a6fd4

# --- tables -------------------------------------------------------------------
# Each CSV is kept as shipped, except the word list, which gets a header line.
# Note: CSV import infers types from the first 1000 rows and reads "", "NULL"
# and "null" as null (the real-data section of docs/benchmarks.md says what
# that does to these sets).
place() { # SRC DST: copy unless present
	if [ ! -f "$2" ]; then
		say "write $(basename "$2")"
		cp "$1" "$2.tmp" && mv "$2.tmp" "$2"
	fi
}
place "$dl/vega/package/data/flights-3m.parquet" "$out/flights-3m.parquet"
place "$dl/vega/package/data/zipcodes.csv" "$out/zipcodes.csv"
place "$dl/vega/package/data/birdstrikes.csv" "$out/birdstrikes.csv"
place "$dl/ieee-data/usr/share/ieee-data/oui.csv" "$out/oui.csv"
if [ ! -f "$out/words.csv" ]; then
	say "write words.csv (header 'word' + the word list)"
	{ echo word; cat "$dl/wamerican-insane/usr/share/dict/american-english-insane"; } >"$out/words.csv.tmp"
	mv "$out/words.csv.tmp" "$out/words.csv"
fi

# --- CSV -> Strata -> Parquet (zstd) ------------------------------------------
strata=${STRATA:-}
if [ -z "$strata" ]; then
	command -v go >/dev/null 2>&1 || die "needs 'go' to build the strata CLI (or set STRATA)"
	strata="$out/bin/strata"
	say "go build -o $strata ./cmd/strata"
	(cd "$repo" && go build -o "$strata" ./cmd/strata) || die "building the strata CLI failed"
fi
if [ ! -f "$out/flights-3m.strata" ]; then
	say "strata import flights-3m.parquet flights-3m.strata"
	"$strata" import "$out/flights-3m.parquet" "$out/flights-3m.strata"
fi
for name in zipcodes birdstrikes oui words; do
	if [ -f "$out/$name.parquet" ]; then
		say "have $name.parquet"
		continue
	fi
	say "strata import $name.csv $name.strata; strata export $name.strata $name.parquet"
	# import writes its output only when complete; export goes through a
	# temporary name so that a stopped run leaves no partial Parquet file.
	rm -f "$out/$name.tmp.parquet"
	"$strata" import "$out/$name.csv" "$out/$name.strata"
	"$strata" export "$out/$name.strata" "$out/$name.tmp.parquet"
	mv "$out/$name.tmp.parquet" "$out/$name.parquet"
done

say "done: $(cd "$out" && ls -- *.parquet | tr '\n' ' ')"
echo "next: cd bench && go run . --parquet $out/flights-3m.parquet   (and the other files)"
