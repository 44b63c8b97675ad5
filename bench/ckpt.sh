#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Checkpoint images, on a directory of this host's disk (-d DIR, default
# a fresh one under $TMPDIR or /tmp: say which file system the figures
# are of):
#  - write throughput (raw megabytes a second until the image is durable:
#    written, fsynced, renamed, directory fsynced) and compression ratio
#    with zstd levels 1, 3 and 9, on a Jacobi grid and on random data,
#    against writing the same bytes uncompressed (level 0);
#  - the time the application is held per checkpoint and the time from
#    its ft_checkpoint() call to durability on the checkpoint server,
#    for R ranks of M megabytes each (bench/ckptapp.c, one host).
# Min and median of K repeats.  Benchmarks measure; nothing here asserts.
#
# usage: bench/ckpt.sh [-s megabytes] [-k repeats] [-r ranks] [-d dir]
#
# FTBIN is the directory holding fttest, ftckpt, ftrun, ftcc and ftboot
# (default: $PWD/bin).

set -euo pipefail

mb=64
repeats=5
ranks=2
base=
while getopts "s:k:r:d:" opt; do
	case $opt in
	s) mb=$OPTARG ;;
	k) repeats=$OPTARG ;;
	r) ranks=$OPTARG ;;
	d) base=$OPTARG ;;
	*) echo "usage: bench/ckpt.sh [-s megabytes] [-k repeats]" \
	    "[-r ranks] [-d dir]" >&2; exit 100 ;;
	esac
done
FTBIN=${FTBIN:-$PWD/bin}
PATH=$FTBIN:$PATH
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${base:-${TMPDIR:-/tmp}}/ckpt-bench.XXXXXX")
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$work"' EXIT
fs=$(df -T "$work" | awk 'NR == 2 { print $2 }')
bytes=$((mb * 1048576))

# min and median of the numbers on stdin, one a line
minmed() {
	sort -g | awk '{ v[NR] = $1 } END {
	    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	    printf "%.6f %.6f\n", v[1], m }'
}

echo "# checkpoint image writes: $mb MB, $repeats repeats, $fs in $work"
printf '%-7s %-6s %12s %12s %14s %8s\n' kind level "min s" "median s" \
    "MB/s (median)" ratio
for kind in jacobi random; do
	for level in 0 1 3 9; do
		out=$(fttest ckpt bench "$work" --size "$bytes" --kind "$kind" \
		    --level "$level" --repeat "$repeats")
		read -r tmin tmed < <(sed 's/.*seconds=\([^ ]*\).*/\1/' \
		    <<<"$out" | minmed)
		ratio=$(sed -n '1s/.*ratio=//p' <<<"$out")
		printf '%-7s %-6s %12s %12s %14.1f %8s\n' "$kind" \
		    "$([ "$level" = 0 ] && echo raw || echo "$level")" \
		    "$tmin" "$tmed" "$(echo "$mb / $tmed" | bc -l)" "$ratio"
	done
done

echo
echo "# $ranks ranks of $mb MB each, zstd level 3, pushed to ftckpt serve" \
    "on this host: $repeats checkpoints"
ftboot keygen --key-file "$work/key" >/dev/null
ftckpt serve --dir "$work/srv" --key-file "$work/key" >"$work/addr" &
spid=$!
for _ in $(seq 100); do [ -s "$work/addr" ] && break; sleep 0.05; done
ftcc -O2 -o "$work/ckptapp" "$here/ckptapp.c" -lm
out=$(ftrun -n "$ranks" --ckpt-dir "$work/local" --ckpt-interval 0 \
    --ckpt-server "$(cat "$work/addr")" --key-file "$work/key" \
    "$work/ckptapp" "$mb" "$repeats")
read -r hmin hmed < <(sed 's/held=\([^ ]*\).*/\1/' <<<"$out" | minmed)
read -r dmin dmed < <(sed 's/.*durable=\([^ ]*\).*/\1/' <<<"$out" | minmed)
ratio=$(awk -F'[= ]' 'NR == 1 { printf "%.2f", $8 / $6 }' <<<"$out")
printf '%-28s %12s %12s\n' "" "min s" "median s"
printf '%-28s %12s %12s\n' "held in ft_checkpoint()" "$hmin" "$hmed"
printf '%-28s %12s %12s\n' "until durable on the server" "$dmin" "$dmed"
echo "compression ratio $ratio"
