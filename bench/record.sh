#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# What ftrun --record costs (ft-record(5)): ping-pong latency (half round
# trip) and bandwidth (bench/pingpong.c) with ft without --record, ft
# with --record, and Open MPI (mpirun.openmpi) beside them; the three
# take turns, run after run, so that load from elsewhere falls on all.
# Also the record's size on disk per message received, and the time
# ftreplay run takes to re-execute rank 1 of the recorded ping-pong
# (whose sends and receives then cost no wire at all).
#
# Every figure is the minimum and the median over the runs.  Benchmarks
# measure; nothing here asserts a timing.
#
# usage: bench/record.sh [-r runs] [-s sizes]
# FTBIN is the directory holding ftcc, ftrun and ftreplay (default: bin/).
# Exit status: 0, 1 if a run failed, 100 for a usage error, 111 if the
# build failed.

set -euo pipefail

runs=5
sizes=8,1024,65536,1048576
while getopts r:s: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	s) sizes=$OPTARG ;;
	*) echo "usage: bench/record.sh [-r runs] [-s sizes]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/record-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/pp" bench/pingpong.c || exit 111
ompi=0
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi \
    >/dev/null; then
	mpicc.openmpi -O2 -o "$out/pp-ompi" bench/pingpong.c || exit 111
	ompi=1
fi
failed=0

# min and median of the numbers on stdin
# shellcheck source=bench/stats.bash
. bench/stats.bash

configs="ft ft-record"
[ $ompi -eq 1 ] && configs="$configs openmpi"
for ((i = 0; i < runs; i++)); do
	for c in $configs; do
		case $c in
		ft) cmd=("$bin/ftrun" -n 2 "$out/pp" -s "$sizes") ;;
		ft-record) rm -rf "$out/rec"
			cmd=("$bin/ftrun" -n 2 --record "$out/rec" "$out/pp"
			    -s "$sizes") ;;
		openmpi) cmd=(mpirun.openmpi --allow-run-as-root --oversubscribe -n 2
			    "$out/pp-ompi" -s "$sizes") ;;
		esac
		if ! "${cmd[@]}" >"$out/$c.$i" 2>"$out/$c.$i.err"; then
			echo "record.sh: run $i of $c failed" >&2
			failed=1
		fi
	done
	if [ -d "$out/rec" ]; then
		s=$(date +%s.%N)
		"$bin/ftreplay" run --rank 1 "$out/rec" -- "$out/pp" -s "$sizes" \
		    >/dev/null || failed=1
		e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }' >>"$out/replay.t"
		du -sb "$out/rec/rank-1.ftr" | awk '{ print $1 }' \
		    >>"$out/rec.bytes"
	fi
done

printf 'figure\tsize\t%s\n' "$(echo "$configs" | sed 's/ /\t\t/g')"
printf '\t\t%s\n' "$(for c in $configs; do printf 'min\tmedian\t'; done)"
for kind in lat bw; do
	for s in ${sizes//,/ }; do
		line="$kind\t$s"
		for c in $configs; do
			v=$(cat "$out/$c".[0-9]* 2>/dev/null |
			    awk -v k="$kind" -v s="$s" '$1 == k && $2 == s { print $3 }' |
			    stats)
			line="$line\t$v"
		done
		printf "$line\n"
	done
done
echo "replay of rank 1 (s): $(stats <"$out/replay.t")"
echo "record of rank 1 (bytes, min and median): $(stats <"$out/rec.bytes")"
exit $failed
