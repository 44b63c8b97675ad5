#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# --ft coord with a checkpoint server: how far the globally complete
# epoch (every rank's image on the server) lags behind the epoch every
# rank has written locally.  An 8-rank Jacobi (examples/jacobi.c) with
# --ckpt-server auto, fault-free; from ftrun's --events, at each epoch
# complete locally: how many epochs behind it the complete one is, and
# how long ago the complete one was complete locally (ms: what a
# rollback at that moment loses beyond the local copies).  Per run:
# the last epochs complete locally and on the server, and min / median
# / max of both; then the same over all runs.
#
# usage: bench/coordlag.sh [-r runs] [-n grid] [-j steps] [-i interval]
# FTBIN is the directory holding ftcc and ftrun (default: bin/).

set -uo pipefail

runs=3
grid=512
steps=4000
interval=200ms
while getopts r:n:j:i: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	n) grid=$OPTARG ;;
	j) steps=$OPTARG ;;
	i) interval=$OPTARG ;;
	*) echo "usage: bench/coordlag.sh [-r runs] [-n grid] [-j steps]" \
	       "[-i interval]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.." || exit 100
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/coordlag.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/jacobi" examples/jacobi.c -lm || exit 111
# min / median / max of a column of numbers.
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		printf "%.1f / %.1f / %.1f", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
: >"$out/all.lag"
: >"$out/all.behind"
for ((i = 1; i <= runs; i++)); do
	rm -rf "$out/c" "$out/ev"
	t0=$(date +%s.%N)
	if ! "$bin/ftrun" -n 8 --ft coord --ckpt-dir "$out/c" \
	    --ckpt-server auto --ckpt-interval "$interval" --events "$out/ev" \
	    "$out/jacobi" "$grid" "$steps" >/dev/null 2>"$out/err"; then
		cat "$out/err" >&2
		exit 1
	fi
	t1=$(date +%s.%N)
	# At each epoch complete locally (after the first complete one):
	# how many epochs the complete one is behind, and how long ago it
	# was complete locally (what a rollback then loses beyond the
	# local copies).
	awk '
	/"event":"checkpoint"/ {
		t = $0; sub(/.*"t":/, "", t); sub(/,.*/, "", t)
		e = $0; sub(/.*"epoch":/, "", e); sub(/,.*/, "", e)
		if ($0 ~ /"local":true/) {
			lt[e] = t
			if (c > 0) {
				print e - c > "'"$out/behind"'"
				print (t - lt[c]) * 1000 > "'"$out/lag"'"
			}
		} else if ($0 ~ /"complete":true/)
			c = e
	}' "$out/ev"
	cat "$out/lag" >>"$out/all.lag"
	cat "$out/behind" >>"$out/all.behind"
	loc=$(sed -n 's/.*"epoch":\([0-9]*\),"local":true.*/\1/p' "$out/ev" |
	    tail -1)
	com=$(sed -n 's/.*"epoch":\([0-9]*\),"complete":true.*/\1/p' \
	    "$out/ev" | tail -1)
	printf 'run %d: %.1f s, load %s; last epoch local %s, complete %s;' \
	    "$i" "$(echo "$t1 - $t0" | bc)" \
	    "$(cut -d' ' -f1 /proc/loadavg)" "${loc:-0}" "${com:-0}"
	printf ' lag ms min/median/max %s; epochs behind %s\n' \
	    "$(stats <"$out/lag")" "$(stats <"$out/behind")"
done
printf 'all runs: lag ms min/median/max %s; epochs behind %s\n' \
    "$(stats <"$out/all.lag")" "$(stats <"$out/all.behind")"
