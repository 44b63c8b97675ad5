#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# vlog images (issue 15): the time the application is held per
# checkpoint, and the time from ft_checkpoint() to the image being
# durable, without a checkpoint server (durable: written in --ckpt-dir)
# and with one (--ckpt-server auto: durable once the server holds it,
# which is when the peers' GC may drop what it received).  A 4-rank ring
# (bench/vlogdur.c) with a region of MB MiB of random bytes a rank, an
# image every 20 iterations; rank 0 waits for each image to be durable
# before it goes on.  The two configurations take turns, run after run;
# min and median over every checkpoint of every run, in ms.  (Open MPI
# has no checkpoints to set beside these.)
#
# usage: bench/vlogdur.sh [-r runs] [-m MB] [-j iterations]
# FTBIN is the directory holding ftcc and ftrun (default: bin/).
# Exit status: 0, 1 if a run failed, 100 for a usage error, 111 if the
# build failed.

set -euo pipefail

runs=3
mb=8
iters=200
usage="usage: bench/vlogdur.sh [-r runs] [-m MB] [-j iterations]"
while getopts r:m:j: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	m) mb=$OPTARG ;;
	j) iters=$OPTARG ;;
	*) echo "$usage" >&2; exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/vlogdur-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/dur" bench/vlogdur.c || exit 111
failed=0

# min and median of the numbers on stdin, microseconds to ms
stats() {
	sort -g | awk '{ v[NR] = $1 / 1000 } END {
		if (NR == 0) { print "-\t-"; exit }
		printf "%.1f\t%.1f\n", v[1], v[int((NR + 1) / 2)] }'
}

for ((r = 1; r <= runs; r++)); do
	for cfg in local server; do
		rm -rf "$out/ck"
		srv=0
		set -- --ckpt-dir "$out/ck"
		if [ "$cfg" = server ]; then
			srv=1
			set -- "$@" --ckpt-server auto
		fi
		if ! FT_CKPT_EVERY=20 "$bin/ftrun" --ft vlog "$@" -n 4 \
		    "$out/dur" "$iters" "$mb" "$srv" >>"$out/$cfg" \
		    2>"$out/err"; then
			echo "vlogdur: run $r ($cfg) failed:" >&2
			cat "$out/err" >&2
			failed=1
		fi
	done
done
printf "vlog image of %s MiB a rank, 4 ranks, %s runs (ms)\n" "$mb" "$runs"
printf "%-34s %8s %8s %8s %8s\n" "" "held" "" "durable" ""
printf "%-34s %8s %8s %8s %8s\n" "" "min" "median" "min" "median"
for cfg in local server; do
	read -r hmin hmed < <(awk '{ print $1 }' "$out/$cfg" | stats)
	read -r dmin dmed < <(awk '{ print $2 }' "$out/$cfg" | stats)
	printf "%-34s %8s %8s %8s %8s\n" "$([ "$cfg" = local ] &&
	    echo "--ckpt-dir (written there)" ||
	    echo "--ckpt-server auto (on the server)")" \
	    "$hmin" "$hmed" "$dmin" "$dmed"
done
exit "$failed"
