#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Kills at seeded random moments tied to progress, under --ft vlog
# (issue 13).  For each program and seed, one or two kills: a rank and
# a send count drawn from the seed, given as
# --inject kill:rank=R,after-sends=N (a rank that restarts takes the
# next spec naming it).  The send counts are drawn below half of what
# each rank sends in a fault-free run, read from that run's log (the
# deliveries of its messages), so that the kills happen: all of them
# where a rank's sends are fixed, most of them in farm, whose workers
# take tasks as they come.  Each run must:
#   exit 0, with output byte-identical to the fault-free --ft none run
#   (but for ring's speed);
#   restart a rank once per kill that happened, and no more;
#   leave no process of the program, and no file in its TMPDIR (the log
#   directory is elsewhere and removed).
#
# usage: tests/vlog-seeds.sh [-s FIRST-LAST | -s S,S,...] [-k 1|2] [PROG ...]
# PROG: ring jacobi farm wildcard probe completion coll_allreduce
# (default: all of them).  FTBIN: the directory of ftcc, ftrun, ftlog
# (default bin/).  Prints one line a run, then "N runs, N failed, N
# kills, N restarts".
# Exit status: 0, 1 if a run failed, 100 on a usage error, 111 if a
# build failed.  1091-ftrun-vlog-seeds.bats runs a few seeds; run it
# with many by hand (ft(7) gives the count last run).

set -uo pipefail

seeds=1-3
maxkills=2
while getopts s:k: ch; do
	case $ch in
	s) seeds=$OPTARG ;;
	k) maxkills=$OPTARG ;;
	*) echo "usage: tests/vlog-seeds.sh [-s FIRST-LAST | -s S,S,...]" \
	       "[-k 1|2] [PROG ...]" >&2
	   exit 100 ;;
	esac
done
shift $((OPTIND - 1))
case $maxkills in 1|2) ;; *) echo "vlog-seeds.sh: -k is 1 or 2" >&2
	exit 100 ;; esac
if [[ $seeds =~ ^([0-9]+)-([0-9]+)$ ]]; then
	seeds=$(seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
elif [[ $seeds =~ ^[0-9]+(,[0-9]+)*$ ]]; then
	seeds=${seeds//,/ }
else
	echo "vlog-seeds.sh: -s '$seeds': FIRST-LAST or S,S,..." >&2
	exit 100
fi

root=$(cd "$(dirname "$0")/.." && pwd -P)
bin=${FTBIN:-$root/bin}
work=$(mktemp -d "${TMPDIR:-/tmp}/vlog-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT

# name, source, ranks, arguments
progs_all="ring jacobi farm wildcard probe completion coll_allreduce"
prog_src() {
	case $1 in
	ring|jacobi|farm) echo "$root/examples/$1.c" ;;
	*) echo "$root/tests/mpi/$1.c" ;;
	esac
}
prog_n() {
	case $1 in
	jacobi) echo 8 ;;
	*) echo 4 ;;
	esac
}
prog_args() {
	case $1 in
	ring) echo 50 ;;
	jacobi) echo "32 100" ;;
	farm) echo 300 ;;
	*) echo ;;
	esac
}

# What of a program's output is not its answer: ring prints its speed.
prog_filter() {
	case $1 in
	ring) sed -E 's/, [0-9.]+ us per hop$//' ;;
	*) cat ;;
	esac
}

[ $# -eq 0 ] && set -- $progs_all
runs=0
failed=0
nkills=0
nrestarts=0
for p in "$@"; do
	case " $progs_all " in
	*" $p "*) ;;
	*) echo "vlog-seeds.sh: unknown program '$p'" >&2; exit 100 ;;
	esac
	n=$(prog_n "$p")
	read -ra args <<<"$(prog_args "$p")"
	if ! "$bin/ftcc" -O1 -o "$work/$p" "$(prog_src "$p")" -lm \
	    >"$work/$p.cc" 2>&1; then
		cat "$work/$p.cc" >&2
		exit 111
	fi
	"$bin/ftrun" -n "$n" "$work/$p" "${args[@]}" 2>/dev/null |
	    prog_filter "$p" >"$work/$p.ref"
	[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "vlog-seeds.sh: $p fails" \
	    "without faults" >&2; exit 1; }
	# What each rank sends in a fault-free vlog run: the deliveries of
	# its messages to the others.
	rm -rf "$work/cal"
	"$bin/ftrun" -n "$n" --ft vlog --log-dir "$work/cal" "$work/$p" \
	    "${args[@]}" >/dev/null 2>&1 || { echo "vlog-seeds.sh: $p" \
	    "fails under --ft vlog without faults" >&2; exit 1; }
	mapfile -t sends < <("$bin/ftlog" dump "$work/cal" | awk -v n="$n" '
	    / kind=deliver / { split($6, a, "="); c[a[2]]++ }
	    END { for (r = 0; r < n; r++) print c[r] + 0 }')
	for seed in $seeds; do
		RANDOM=$((seed * 7919 + ${#p} * 104729))
		inject=()
		kills=""
		k=$((1 + RANDOM % maxkills))
		for ((i = 0; i < k; i++)); do
			r=$((RANDOM % n))
			if [ "${sends[r]:-0}" -lt 4 ]; then
				continue
			fi
			s=$((1 + (RANDOM * 32768 + RANDOM) % (sends[r] / 2)))
			inject+=(--inject "kill:rank=$r,after-sends=$s")
			kills+=" $r@$s"
		done
		tmp="$work/tmp.$seed"
		rm -rf "$tmp"
		mkdir -p "$tmp"
		runs=$((runs + 1))
		nk=$(( ${#inject[@]} / 2 ))
		why=""
		if ! env TMPDIR="$tmp" timeout 300 "$bin/ftrun" -n "$n" \
		    --ft vlog "${inject[@]}" "$work/$p" "${args[@]}" \
		    >"$work/out" 2>"$work/err"; then
			why="exit status $?"
		elif ! prog_filter "$p" <"$work/out" | cmp -s "$work/$p.ref"; then
			why="output differs from the fault-free run"
		elif [ "$(grep -c 'restarting it' "$work/err")" -gt "$nk" ]; then
			why="$(grep -c 'restarting it' "$work/err") restarts"
			why+=" for $nk kills"
		elif pgrep -f "$work/$p" >/dev/null; then
			why="a process of the program is left: $(pgrep -af \
			    "$work/$p" | head -3 | tr '\n' ';')"
		elif [ -n "$(ls -A "$tmp")" ]; then
			why="files left in its TMPDIR: $(ls -A "$tmp" | head -3)"
		fi
		got=$(grep -c 'restarting it' "$work/err")
		nkills=$((nkills + nk))
		nrestarts=$((nrestarts + got))
		if [ -n "$why" ]; then
			failed=$((failed + 1))
			echo "FAIL $p seed=$seed kills=${kills# }: $why"
			sed 's/^/  /' "$work/err" | tail -5
		else
			echo "ok $p seed=$seed kills=${kills# } restarts=$got"
		fi
		rm -rf "$tmp"
	done
done
echo "$runs runs, $failed failed, $nkills kills, $nrestarts restarts"
[ "$failed" -eq 0 ]
