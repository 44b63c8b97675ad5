#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# The probability that failures cut the gossip detector's paths, for BRR
# and DBRR, n = 4 .. 256, each member failed with probability p, as the
# P2P-MPI study tabulated it; and the simulator's throughput.  Exact
# enumeration where n <= 16, Monte Carlo above.  There is no Open MPI
# counterpart to compare with.  Benchmarks measure; nothing here asserts.
#
# usage: bench/gossip-sim.sh [-t trials]
#
# FTBIN is the directory holding ftgossip (default: $PWD/bin).

set -euo pipefail

trials=10000000
while getopts "t:" opt; do
	case $opt in
	t) trials=$OPTARG ;;
	*) echo "usage: bench/gossip-sim.sh [-t trials]" >&2; exit 100 ;;
	esac
done
FTBIN=${FTBIN:-$PWD/bin}
[[ -x $FTBIN/ftgossip ]] || { echo "gossip-sim.sh: fatal: '$FTBIN/ftgossip' not found" >&2; exit 100; }

field() {	# KEY LINE
	local kv
	for kv in $2; do [[ $kv == "$1="* ]] && { echo "${kv#*=}"; return; }; done
}

echo "ft gossip detector failure probability: $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(nproc) CPUs"
echo "exact for n <= 16, else $trials Monte Carlo trials (0 means none seen)"
echo "  \$ $FTBIN/ftgossip simulate --protocol P -n N --fail-prob Q {--exact | --trials $trials}"
echo
ps="0.05 0.1 0.2 0.3"
printf '%-6s %5s' proto n
for p in $ps; do printf ' %12s' "p=$p"; done
printf ' %14s\n' "trials/s"
for proto in brr dbrr; do
	for n in 4 8 16 32 64 128 256; do
		printf '%-6s %5d' "$proto" "$n"
		rate=
		for p in $ps; do
			if ((n <= 16)); then
				line=$("$FTBIN/ftgossip" simulate --protocol "$proto" -n "$n" --fail-prob "$p" --exact)
			else
				line=$("$FTBIN/ftgossip" simulate --protocol "$proto" -n "$n" --fail-prob "$p" --trials "$trials")
				rate=$(field trials_per_s "$line")
			fi
			printf ' %12.3g' "$(field probability "$line")"
		done
		printf ' %14s\n' "${rate:--}"
	done
done
