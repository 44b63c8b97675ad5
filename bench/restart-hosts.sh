#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Restarts across hosts (--ft vlog), with hosts made of network
# namespaces (tests/netns.bash) on this machine: three ftboot daemons in
# hosts 1 to 3, ftrun (and its event logger) in host 4.  Each repeat
# runs jacobi (examples/jacobi.c, 6 ranks) fault-free, then again with
# one host killed (every process in it, SIGKILL) halfway through the
# fault-free run's time, once each of its ranks has logged a determinant
# (a benchmark: the moment is a time), and reports:
#  - the job's time, fault-free and with the host killed (min, median);
#  - from the host's loss (its "host" event) to each of its ranks
#    started again on another host ("restart"), registered with ftrun
#    ("rejoin") and back where it died ("replayed"), in ms.
# Measures; asserts nothing.  Needs root; every namespace is removed at
# the end, whatever happens.
#
# usage: bench/restart-hosts.sh [-r repeats] [-s size] [-i iterations]
# Exit status: 0, 1 if a run failed, 100 for a usage error.

set -uo pipefail

reps=3 size=256 iters=3000
while getopts r:s:i: o; do
	case $o in
	r) reps=$OPTARG ;;
	s) size=$OPTARG ;;
	i) iters=$OPTARG ;;
	*) echo "usage: bench/restart-hosts.sh [-r repeats] [-s size] [-i iterations]" >&2
	   exit 100 ;;
	esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="${FTBIN:-$root/bin}:$PATH" FT_ALLOW_ROOT=1
# shellcheck source=tests/netns.bash
source "$root/tests/netns.bash"
netns_check || { echo "restart-hosts.sh: $NETNS_WHY" >&2; exit 1; }
work=$(mktemp -d) || exit 1
trap 'netns_down -f; rm -rf "$work"' EXIT
ftcc -O2 -o "$work/jacobi" "$root/examples/jacobi.c" -lm || exit 1
ftboot keygen --key-file "$work/key" >/dev/null || exit 1
netns_up 4 || exit 1
# daemon I NAME: start host I's ftboot daemon (state in $work/NAME).
daemon() {
	netns__spawn "$1" "$2" ftboot start --foreground \
	    --listen "tcp:${NETNS_ADDR[$1]}:7707" --key-file "$work/key" \
	    --state-dir "$work/$2" --name "h$1" --slots 2 --jobs 4
	for _ in $(seq 200); do
		[ -s "$work/$2/ftboot.addr" ] && break
		sleep 0.05
	done
}

hosts=""
for i in 1 2 3; do
	daemon "$i" "h$i.state"
	hosts="${hosts:+$hosts,}${NETNS_ADDR[i]}:7707"
done

# stats NAME VALUES...: min and median.
stats() {
	local name=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v n="$name" '
	    { v[NR] = $1 } END { if (NR == 0) { print n ": none"; exit }
	    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	    printf "%s: min %.3f, median %.3f (%d)\n", n, v[1], m, NR }'
}

job() {	# events log [ftrun options]
	local ev=$1 log=$2
	shift 2
	netns_exec 4 env TMPDIR="$work" ftrun --ft vlog -n 6 --timeout 600 \
	    --key-file "$work/key" --host "$hosts" --events "$ev" \
	    --log-dir "$log" "$@" "$work/jacobi" "$size" "$iters" \
	    >"$work/out" 2>"$work/err"
}

free=() killed=() restart=() rejoin=() replayed=() rc=0
for ((k = 1; k <= reps; k++)); do
	rm -rf "$work/log"
	t0=$(date +%s.%N)
	job "$work/ev" "$work/log" || { cat "$work/err" >&2; rc=1; continue; }
	free+=("$(echo "$(date +%s.%N) - $t0" | bc)")
	cp "$work/out" "$work/ref"
	rm -rf "$work/log" "$work/ev"
	t0=$(date +%s.%N)
	job "$work/ev" "$work/log" & pid=$!
	# The host running rank 1, once each of its ranks logged.
	for _ in $(seq 2000); do
		grep -q '"event":"spawn","rank":5' "$work/ev" 2>/dev/null && break
		sleep 0.01
	done
	h=$(sed -nE 's/.*"event":"spawn","rank":1,.*"host":"h([0-9])".*/\1/p' "$work/ev")
	ranks=$(sed -nE "s/.*\"event\":\"spawn\",\"rank\":([0-9]+),.*\"host\":\"h$h\".*/\1/p" "$work/ev")
	for r in $ranks; do
		for _ in $(seq 3000); do
			[ -n "$(find "$work/log" -path "*/rank-$r/*.ftl" -size +100c 2>/dev/null)" ] && break
			sleep 0.01
		done
	done
	half=$(echo "${free[-1]} / 2 - ($(date +%s.%N) - $t0)" | bc)
	[[ $half == -* ]] || sleep "$half"
	netns_kill_host "$h"
	wait "$pid" || { cat "$work/err" >&2; rc=1; }
	killed+=("$(echo "$(date +%s.%N) - $t0" | bc)")
	cmp -s "$work/ref" "$work/out" || { echo "run $k: output differs" >&2; rc=1; }
	lost=$(sed -nE 's/^\{"t":([0-9.]+),"event":"host".*/\1/p' "$work/ev" | head -1)
	for r in $ranks; do
		for e in restart rejoin replayed; do
			t=$(sed -nE "s/^\\{\"t\":([0-9.]+),\"event\":\"$e\",\"rank\":$r,.*/\\1/p" "$work/ev" | head -1)
			[ -n "$t" ] || continue
			v=$(echo "($t - $lost) * 1000" | bc)
			case $e in
			restart) restart+=("$v") ;;
			rejoin) rejoin+=("$v") ;;
			replayed) replayed+=("$v") ;;
			esac
		done
	done
	# The killed host back for the next repeat.
	daemon "$h" "h$h.state.$k"
done
echo "jacobi $size x $size, $iters steps, 6 ranks on 3 namespace hosts, --ft vlog; load: $(cut -d' ' -f1-3 /proc/loadavg)"
stats "job, fault-free (s)" "${free[@]}"
stats "job, a host killed (s)" "${killed[@]}"
stats "host lost -> restarted elsewhere (ms)" "${restart[@]}"
stats "host lost -> rejoined (ms)" "${rejoin[@]}"
stats "host lost -> replayed to where it died (ms)" "${replayed[@]}"
exit $rc
