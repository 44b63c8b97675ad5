#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# The event logger (ftlog serve), for each --sync mode, on a log
# directory of this host's disk (-d DIR, default a fresh one under
# $TMPDIR or /tmp: say which file system the figures are of):
#  - throughput: determinants a second that R ranks over R connections
#    append, batches of B pipelined, until every one is acknowledged
#    (fttest log load);
#  - disk bytes a determinant: the log's bytes over its determinants
#    (ftlog stat; segment headers and time stamps included; a delivery
#    is 44 bytes, another event 68);
#  - acknowledgement latency: a batch of 1 and of B determinants of one
#    rank, flushed, until its ACK; min and median of K repeats.
# Benchmarks measure; nothing here asserts.
#
# usage: bench/ftlog.sh [-r ranks] [-n count] [-b batch] [-k repeats]
#                       [-d dir]
#
# FTBIN is the directory holding ftlog, fttest and ftboot (default:
# $PWD/bin).

set -euo pipefail

ranks=8
count=50000
batch=64
repeats=500
base=
while getopts "r:n:b:k:d:" opt; do
	case $opt in
	r) ranks=$OPTARG ;;
	n) count=$OPTARG ;;
	b) batch=$OPTARG ;;
	k) repeats=$OPTARG ;;
	d) base=$OPTARG ;;
	*) echo "usage: bench/ftlog.sh [-r ranks] [-n count] [-b batch]" \
	    "[-k repeats] [-d dir]" >&2; exit 100 ;;
	esac
done
FTBIN=${FTBIN:-$PWD/bin}
PATH=$FTBIN:$PATH
if [ -z "$base" ]; then
	base=$(mktemp -d "${TMPDIR:-/tmp}/ftlog-bench.XXXXXX")
	trap 'kill $pid 2>/dev/null || true; rm -rf "$base"' EXIT
else
	mkdir -p "$base"
	trap 'kill $pid 2>/dev/null || true' EXIT
fi
pid=
key=$base/cluster.key
ftboot keygen --key-file "$key" >/dev/null

fs=$(df -PT "$base" | awk 'NR == 2 { print $2 }')
echo "# ftlog: $ranks ranks x $count determinants, batches of $batch;" \
    "latency over $repeats repeats; log on $fs ($base)"
printf '%-8s %14s %10s %12s %12s %12s %12s\n' sync "dets/s" "B/det" \
    "ack1_min_us" "ack1_med_us" "ackB_min_us" "ackB_med_us"
for mode in always batch memory; do
	dir=$base/$mode
	rm -rf "$dir"
	ftlog serve --dir "$dir" --key-file "$key" --sync "$mode" \
	    >"$dir.addr" &
	pid=$!
	while [ ! -s "$dir.addr" ]; do
		kill -0 "$pid"
		sleep 0.05
	done
	addr=$(cat "$dir.addr")
	n=$count
	# fsync a batch: fewer determinants, or it takes minutes.
	[ "$mode" = always ] && n=$((count / 10))
	out=$(fttest log load "$addr" --key-file "$key" --job 1 \
	    --ranks "$ranks" --clients "$ranks" --count "$n" \
	    --batch "$batch" --timeout 10m)
	rate=$(sed -n 's/.* rate=\([0-9]*\).*/\1/p' <<<"$out")
	bpd=$(ftlog stat --job 1 "$dir" | awk '
	    { for (i = 1; i <= NF; i++) {
		if ($i ~ /^count=/) c += substr($i, 7)
		if ($i ~ /^bytes=/) b += substr($i, 7) } }
	    END { printf "%.1f", b / c }')
	l1=$(fttest log load "$addr" --key-file "$key" --job 2 --ranks 1 \
	    --count 0 --batch 1 --latency "$repeats" --timeout 10m)
	lb=$(fttest log load "$addr" --key-file "$key" --job 3 --ranks 1 \
	    --count 0 --batch "$batch" --latency "$repeats" --timeout 10m)
	printf '%-8s %14s %10s %12s %12s %12s %12s\n' "$mode" "$rate" "$bpd" \
	    "$(sed -n 's/.*min_us=\([0-9.]*\).*/\1/p' <<<"$l1")" \
	    "$(sed -n 's/.*median_us=\([0-9.]*\).*/\1/p' <<<"$l1")" \
	    "$(sed -n 's/.*min_us=\([0-9.]*\).*/\1/p' <<<"$lb")" \
	    "$(sed -n 's/.*median_us=\([0-9.]*\).*/\1/p' <<<"$lb")"
	kill "$pid"
	wait "$pid" || true
	pid=
done
