#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# The gossip detector and membership view, with real `ftgossip run`
# processes on Unix sockets of this host:
#  - detection time: from kill -9 of one member to the last survivor's
#    "failed" event, against the predicted bound Tcleanup + Tgossip;
#  - view stabilization time: the root's "stable ms=", from the root
#    issuing the view to its last ack;
#  - with -F SECONDS, false detections: n=32 DBRR for that long with
#    both cores saturated by busy loops, counting suspect and failed
#    events (there is no failure to detect).
#  - the floor under stabilization: n bare processes in a chain, one
#    wake-up each (bench/wakechain.c).
# Open MPI has no counterpart in Debian's 4.1 (ULFM's detector ships
# with 5.x, 10 s default timeout), so there is no side-by-side ratio.
# Benchmarks measure; nothing here asserts.
#
# usage: bench/gossip-run.sh [-r repeats] [-p period] [-n "8 16 ..."]
#                            [-F seconds]
#
# FTBIN is the directory holding ftgossip (default: $PWD/bin).

set -euo pipefail

repeats=3
period=100ms
sizes="8 16 32 64 128 256"
false_secs=0
while getopts "r:p:n:F:" opt; do
	case $opt in
	r) repeats=$OPTARG ;;
	p) period=$OPTARG ;;
	n) sizes=$OPTARG ;;
	F) false_secs=$OPTARG ;;
	*) echo "usage: bench/gossip-run.sh [-r repeats] [-p period]" \
	    "[-n sizes] [-F seconds]" >&2; exit 100 ;;
	esac
done
FTBIN=${FTBIN:-$PWD/bin}
[[ -x $FTBIN/ftgossip ]] || { echo "gossip-run.sh: fatal: '$FTBIN/ftgossip' not found" >&2; exit 100; }

dir=$(mktemp -d /tmp/ftgossip-bench.XXXXXX)
pids=()
busy=()
cleanup() {
	((${#pids[@]})) && kill -9 "${pids[@]}" 2>/dev/null || true
	((${#busy[@]})) && kill -9 "${busy[@]}" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
head -c 32 /dev/urandom >"$dir/key"
chmod 600 "$dir/key"
ulimit -n 65536 2>/dev/null || true

field() {	# KEY LINE
	local kv
	for kv in $2; do [[ $kv == "$1="* ]] && { echo "${kv#*=}"; return; }; done
}

start() {	# N PROTO
	local n=$1 proto=$2 i
	pids=()
	rm -f "$dir"/ev.* "$dir"/*.sock
	for ((i = 0; i < n; i++)); do echo "$i unix:$dir/$i.sock"; done >"$dir/members"
	for ((i = 0; i < n; i++)); do
		"$FTBIN/ftgossip" run --self "$i" --members "$dir/members" \
		    --key-file "$dir/key" --protocol "$proto" --period "$period" \
		    </dev/null >"$dir/ev.$i" 2>>"$dir/err" &
		pids+=($!)
	done
}

stop() {
	kill -9 "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	pids=()
}
# The shell's "Killed" notices are expected here.
exec 3>&2

# Wait until every survivor (all but $2) has a failed event for $2.
wait_failed() {	# N VICTIM DEADLINE_S
	local n=$1 v=$2 end=$((SECONDS + $3)) i
	for ((i = 0; i < n; i++)); do
		[[ $i == "$v" ]] && continue
		until grep -q "event=failed id=$v " "$dir/ev.$i"; do
			((SECONDS < end)) || return 1
			sleep 0.05
		done
	done
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
minimum() { sort -g | head -1; }

echo "ft gossip detection and membership: $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo "each run: n members on Unix sockets, one killed with kill -9 after 2 cycles;"
echo "  \$ ftgossip run --self I --members M --key-file K --protocol P --period $period"
echo "detect: kill to the last survivor's failed event (first: the first survivor's)"
echo "bound: Tcleanup + Tgossip; stable: the root's view stabilization (ms)"
echo "$repeats runs each; min / median"
echo
printf '%-5s %4s %9s %18s %18s %16s\n' proto n "bound s" "first s min/med" "detect s min/med" "stable ms min/med"
for proto in brr dbrr; do
	for n in $sizes; do
		bound=$("$FTBIN/ftgossip" predict --protocol "$proto" -n "$n" --period "$period")
		tclean=$(field tcleanup "$bound"); tclean=${tclean%s}
		per=$(field period "$bound"); per=${per%s}
		: >"$dir/first"; : >"$dir/last"; : >"$dir/stable"
		for ((r = 0; r < repeats; r++)); do
			start "$n" "$proto"
			# every member up and gossiping for two cleanup spans
			sleep "$(awk -v t="$tclean" -v n="$n" 'BEGIN {print 2 + 2 * t + n / 100}')"
			victim=$((n / 2 + 1))
			t0=$(date +%s.%N)
			kill -9 "${pids[$victim]}" 2>/dev/null
			if ! wait_failed "$n" "$victim" 60; then
				echo "  ($proto n=$n run $r: not every survivor detected member $victim in 60 s)"
				stop
				continue
			fi
			sleep 0.5
			cat "$dir"/ev.* | grep "event=failed id=$victim " |
			    sed 's/^t=\([0-9.]*\) .*/\1/' | sort -g >"$dir/times"
			awk -v t0="$t0" 'NR == 1 {print $1 - t0}' "$dir/times" >>"$dir/first"
			awk -v t0="$t0" 'END {print $1 - t0}' "$dir/times" >>"$dir/last"
			st=$(grep -h "event=stable" "$dir"/ev.* | tail -1)
			[[ -n $st ]] && field ms "$st" >>"$dir/stable"
			stop
		done
		[[ -s $dir/last ]] || continue
		printf '%-5s %4s %9.3f %8.3f / %-7.3f %8.3f / %-7.3f %7.3f / %-7.3f\n' \
		    "$proto" "$n" "$(awk -v a="$tclean" -v b="$per" 'BEGIN {print a + b}')" \
		    "$(minimum <"$dir/first")" "$(median <"$dir/first")" \
		    "$(minimum <"$dir/last")" "$(median <"$dir/last")" \
		    "$(minimum <"$dir/stable")" "$(median <"$dir/stable")"
	done
done

# The floor under "stable": a bare chain of n processes passing a frame
# over Unix sockets, one wake-up each, with no ft code (wakechain.c).
if [[ -n $sizes ]] && cc -O2 -o "$dir/wakechain" "$(dirname "$0")/wakechain.c" 2>/dev/null; then
	echo
	echo "floor: n processes in a chain, one epoll wake-up each (bench/wakechain.c)"
	for n in $sizes; do
		echo "  $("$dir/wakechain" "$n" 20)"
	done
fi

if ((false_secs > 0)); then
	echo
	echo "false detections: n=32 dbrr period $period for ${false_secs} s, $(nproc) busy loops beside"
	for ((i = 0; i < $(nproc); i++)); do
		(while :; do :; done) &
		busy+=($!)
	done
	start 32 dbrr
	sleep "$false_secs"
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
	stop
	kill -9 "${busy[@]}" 2>/dev/null || true
	busy=()
	echo "  members still running: $alive of 32"
	echo "  suspect events: $(cat "$dir"/ev.* | grep -c 'event=suspect' || true)"
	echo "  unsuspect events: $(cat "$dir"/ev.* | grep -c 'event=unsuspect' || true)"
	echo "  failed events (all false): $(cat "$dir"/ev.* | grep -c 'event=failed' || true)"
	echo "  views after epoch 0: $(cat "$dir"/ev.* | grep -c 'event=view' || true)"
fi
[[ -s $dir/err ]] && { echo; echo "stderr of the members:"; sort "$dir/err" | uniq -c | head; } || true
