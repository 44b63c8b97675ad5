#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# ULFM's figures (ft-ulfm(3)): agree, shrink and revoke latency at 4, 16
# and 64 ranks with no failure and in the first call after one, the time
# from a process's death (raise(SIGKILL)) to MPIX_ERR_PROC_FAILED at a
# survivor, and ping-pong under --ft ulfm beside --ft none.  Every figure
# is the minimum and the median over whole runs.  Benchmarks measure;
# nothing here asserts a timing.
#
# usage: bench/ulfm.sh [-r runs] [-n "4 16 64"]
# FTBIN is the directory holding ftcc and ftrun (default: $PWD/bin).
# Exit status: 0, 1 if a run failed, 100 for a usage error, 111 if the
# build failed.

set -euo pipefail

runs=5
sizes="4 16 64"
while getopts r:n: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	n) sizes=$OPTARG ;;
	*) echo "usage: bench/ulfm.sh [-r runs] [-n \"4 16 64\"]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/ulfm-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/ulfm" bench/ulfm.c || exit 111
"$bin/ftcc" -O2 -o "$out/pp" bench/pingpong.c || exit 111
failed=0

# min and median of the numbers on stdin
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-\t-"; exit }
		printf "%.1f\t%.1f\n", v[1], v[int((NR + 1) / 2)] }'
}

printf 'ranks\tfigure\tmin_us\tmedian_us\n'
for n in $sizes; do
	: >"$out/all"
	for r in $(seq "$runs"); do
		if ! timeout 300 "$bin/ftrun" -n "$n" --ft ulfm "$out/ulfm" 10 \
		    >>"$out/all" 2>"$out/err"; then
			echo "ulfm.sh: run $r at $n ranks failed" >&2
			failed=1
		fi
	done
	for f in agree shrink revoke agree_after shrink_after detect; do
		printf '%s\t%s\t%s\n' "$n" "$f" \
		    "$(awk -v f="$f" '$1 == f { print $2 }' "$out/all" | stats)"
	done
done

# The two protocols take turns, so that load from elsewhere falls on both.
printf '\nping-pong, 8 bytes, half round trip\nprotocol\tmin_us\tmedian_us\n'
: >"$out/pp.none"
: >"$out/pp.ulfm"
for r in $(seq "$((runs * 2))"); do
	for p in none ulfm; do
		timeout 120 "$bin/ftrun" -n 2 --ft "$p" "$out/pp" \
		    >"$out/pp.out" 2>/dev/null || failed=1
		awk '$1 == "lat" && $2 == 8 { print $3 }' "$out/pp.out" \
		    >>"$out/pp.$p"
	done
done
for p in none ulfm; do
	printf '%s\t%s\n' "$p" "$(stats <"$out/pp.$p")"
done
exit "$failed"
