#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# ftreplay on a large log: R ranks of N determinants each (default 64 x
# 156250, ten million), made by fttest log gen (a job that could have
# run: see cmd/fttest/jobgen.c), as ftlog dump text in a file under
# -d DIR (default $TMPDIR or /tmp; about 100 bytes a determinant):
#  - ftreplay --verify on stdin: wall seconds, determinants a second,
#    peak resident memory (GNU time's %M), and the scratch file's size
#    (41 bytes a delivery, 65 another event, unlinked at once);
#  - ftreplay inspect --svg: the same figures, and the SVG's size.
# Benchmarks measure; nothing here asserts.
#
# usage: bench/replay.sh [-r ranks] [-n count] [-d dir]
#
# FTBIN is the directory holding ftreplay and fttest (default:
# $PWD/bin).  Needs GNU time (/usr/bin/time) for the memory figures.

set -euo pipefail

ranks=64
count=156250
base=${TMPDIR:-/tmp}
while getopts "r:n:d:" opt; do
	case $opt in
	r) ranks=$OPTARG ;;
	n) count=$OPTARG ;;
	d) base=$OPTARG ;;
	*) echo "usage: bench/replay.sh [-r ranks] [-n count] [-d dir]" >&2
	   exit 100 ;;
	esac
done
FTBIN=${FTBIN:-$PWD/bin}
PATH=$FTBIN:$PATH
dir=$(mktemp -d "$base/ftreplay-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
dets=$((ranks * count))

echo "== ftreplay: $ranks ranks x $count determinants = $dets (dump text in $dir)"
fttest log gen --job 1 --ranks "$ranks" --count "$count" >"$dir/dump"
echo "dump text: $(($(stat -c %s "$dir/dump") / 1048576)) MiB"

measure() {	# label command...
	local label=$1 t0 t1 secs rss
	shift
	t0=$(date +%s.%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$dir/rss" "$@" >"$dir/out"
		rss=$(tail -1 "$dir/rss")
	else
		"$@" >"$dir/out"
		rss=-
	fi
	t1=$(date +%s.%N)
	secs=$(echo "$t1 - $t0" | bc -l)
	printf '%-22s seconds=%.2f dets_per_s=%.0f peak_rss_kib=%s\n' \
	    "$label" "$secs" "$(echo "$dets / $secs" | bc -l)" "$rss"
}

measure "verify (stdin)" sh -c 'ftreplay --verify <"$1"' sh "$dir/dump"
head -1 "$dir/out"
measure "inspect --svg" ftreplay inspect --svg "$dir/d.svg" "$dir/dump"
echo "svg: $(($(stat -c %s "$dir/d.svg") / 1024)) KiB," \
    "$(grep -c '<line x1=.*<title>' "$dir/d.svg") arrows"
