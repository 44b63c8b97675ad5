#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Message logging's figures (--ft vlog, ft(7)), side by side in one run:
#
#  (a) ping-pong latency (half round trip) and bandwidth, 0 B to 4 MiB
#      (bench/pingpong.c), --ft none against --ft vlog with the logger's
#      --log-sync always, batch and memory (the default), and memory
#      with --log-wait all (every send waits for every determinant),
#      and Open MPI's mpirun.openmpi beside them when it is installed
#      (its defaults: shared memory between the two ranks);
#      the configurations take turns, run after run, so that load from
#      elsewhere falls on all of them;
#  (b) an 8-rank Jacobi (examples/jacobi.c) fault-free under --ft none
#      and --ft vlog, and under vlog with a rank killed at a
#      progress-tied moment (--inject kill:rank=R,after-sends=N) every
#      KILLS_EVERY sends of one rank after another: run time, and for
#      each kill the time from the kill to the restarted rank being back
#      where it died: from ftrun's reaping of the dead process to the
#      new incarnation having done again all its log holds (the
#      "replayed" event of ftrun --events);
#  (c) the logger's throughput in determinants per second and its disk
#      use per determinant (ftlog stat on the log a job left);
#  (d) this machine's floor for the 1 MiB bandwidth: what a copy into
#      fresh memory costs here (bench/freshmem.c), and the ratio to
#      none that one such copy a message allows at best.
#
# Every figure is the minimum and the median over the runs.  Benchmarks
# measure; nothing here asserts a timing.
#
# usage: bench/vlog.sh [-r runs] [-s sizes] [-j steps]
# FTBIN is the directory holding ftcc, ftrun and ftlog (default: bin/).
# Exit status: 0, 1 if a run failed, 100 for a usage error, 111 if the
# build failed.

set -euo pipefail

runs=5
sizes=0,8,1024,65536,1048576,4194304
steps=20000
while getopts r:s:j: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	s) sizes=$OPTARG ;;
	j) steps=$OPTARG ;;
	*) echo "usage: bench/vlog.sh [-r runs] [-s sizes] [-j steps]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/vlog-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/pp" bench/pingpong.c || exit 111
"$bin/ftcc" -O2 -o "$out/jacobi" examples/jacobi.c -lm || exit 111
failed=0

# min and median of the numbers on stdin
# shellcheck source=bench/stats.bash
. bench/stats.bash

configs="none vlog-memory vlog-batch vlog-always vlog-strict"
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi \
    >/dev/null && mpicc.openmpi -O2 -o "$out/pp_ompi" bench/pingpong.c; then
	configs+=" ompi"
fi
ftargs() {
	case $1 in
	none) echo "--ft none" ;;
	vlog-memory) echo "--ft vlog --log-sync memory" ;;
	vlog-batch) echo "--ft vlog --log-sync batch" ;;
	vlog-always) echo "--ft vlog --log-sync always" ;;
	vlog-strict) echo "--ft vlog --log-sync memory --log-wait all" ;;
	esac
}

# (a) ping-pong
for c in $configs; do : >"$out/pp.$c"; done
for r in $(seq "$runs"); do
	for c in $configs; do
		if [ "$c" = ompi ]; then
			run=(mpirun.openmpi --allow-run-as-root --oversubscribe
			    -n 2 "$out/pp_ompi")
		else
			# shellcheck disable=SC2207
			run=("$bin/ftrun" -n 2 $(ftargs "$c") "$out/pp")
		fi
		if ! timeout 600 "${run[@]}" \
		    -s "$sizes" >"$out/pp.out" 2>"$out/pp.err"; then
			echo "vlog.sh: ping-pong run $r, $c failed" >&2
			cat "$out/pp.err" >&2
			failed=1
		fi
		cat "$out/pp.out" >>"$out/pp.$c"
	done
done
printf '(a) ping-pong, %d runs: half round trip (us), bandwidth (MB/s)\n' \
    "$runs"
printf 'size\tconfig\tlat_min\tlat_med\tbw_max\tbw_med\tlat/none\tbw/none\n'
for s in ${sizes//,/ }; do
	nl=$(awk -v s="$s" '$1 == "lat" && $2 == s { print $3 }' \
	    "$out/pp.none" | stats | cut -f2)
	nb=$(awk -v s="$s" '$1 == "bw" && $2 == s { print -$3 }' \
	    "$out/pp.none" | stats | cut -f2)
	for c in $configs; do
		l=$(awk -v s="$s" '$1 == "lat" && $2 == s { print $3 }' \
		    "$out/pp.$c" | stats)
		b=$(awk -v s="$s" '$1 == "bw" && $2 == s { print -$3 }' \
		    "$out/pp.$c" | stats)
		lmed=$(cut -f2 <<<"$l")
		bmed=$(cut -f2 <<<"$b")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$c" \
		    "$(cut -f1 <<<"$l")" "$lmed" "$(cut -f1 <<<"$b" | tr -d -)" \
		    "${bmed#-}" \
		    "$(awk -v a="$lmed" -v b="$nl" 'BEGIN { if (b > 0)
			printf "%.2f", a / b; else print "-" }')" \
		    "$(awk -v a="$bmed" -v b="$nb" 'BEGIN { if (b != 0)
			printf "%.2f", a / b; else print "-" }')"
	done
done

# (b) Jacobi, 8 ranks: fault-free, then a kill every KILLS_EVERY sends
# of one rank after another (rank r dies after (r + 1) * KILLS_EVERY
# sends, ranks 0 to 7 in turn).
every=${KILLS_EVERY:-10000}
kills=()
for r in 0 1 2 3 4 5 6 7; do
	kills+=(--inject "kill:rank=$r,after-sends=$(((r + 1) * every))")
done
: >"$out/j.none"
: >"$out/j.vlog"
: >"$out/j.kill"
: >"$out/back"
for r in $(seq "$runs"); do
	for c in none vlog kill; do
		args=(--ft vlog)
		[ "$c" = none ] && args=(--ft none)
		[ "$c" = kill ] && args+=("${kills[@]}" --events "$out/ev")
		t0=$(date +%s.%N)
		if ! timeout 900 "$bin/ftrun" -n 8 "${args[@]}" "$out/jacobi" \
		    512 "$steps" >"$out/j.out" 2>"$out/j.err"; then
			echo "vlog.sh: jacobi run $r, $c failed" >&2
			tail -5 "$out/j.err" >&2
			failed=1
			continue
		fi
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' \
		    >>"$out/j.$c"
		[ "$c" = kill ] && sed -n \
		    's/.*"event":"replayed".*"ms":\([0-9.]*\).*/\1/p' \
		    "$out/ev" >>"$out/back"
		[ "$c" = none ] && cp "$out/j.out" "$out/j.ref"
		if [ -f "$out/j.ref" ] && ! cmp -s "$out/j.ref" "$out/j.out"
		then
			echo "vlog.sh: jacobi run $r, $c: other output" >&2
			failed=1
		fi
	done
done
printf '\n(b) jacobi 512x512, %s steps, 8 ranks, %d runs (s)\n' "$steps" \
    "$runs"
printf 'config\tmin_s\tmedian_s\n'
printf 'none\t%s\n' "$(stats <"$out/j.none")"
printf 'vlog\t%s\n' "$(stats <"$out/j.vlog")"
printf 'vlog, 8 kills\t%s\n' "$(stats <"$out/j.kill")"
printf 'kill to back where it died (ms), %s kills\t%s\n' \
    "$(wc -l <"$out/back")" "$(stats <"$out/back")"

# (c) the logger: determinants a second and bytes a determinant, from a
# log the Jacobi wrote (--log-dir keeps it).
rm -rf "$out/log"
t0=$(date +%s.%N)
timeout 900 "$bin/ftrun" -n 8 --ft vlog --log-dir "$out/log" \
    --log-wait all "$out/jacobi" 512 "$steps" >/dev/null 2>&1 ||
    failed=1
t1=$(date +%s.%N)
"$bin/ftlog" stat "$out/log" >"$out/stat" || failed=1
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
awk -v t="$secs" '{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
	    if (kv[1] == "count") n += kv[2]
	    if (kv[1] == "bytes") by += kv[2] } }
	END { printf "\n(c) logger, --log-sync memory, strict, jacobi 8 " \
	    "ranks: %d determinants in %.2f s of job: %.0f a second; %.1f " \
	    "bytes on disk each\n", n, t, n / t, (n > 0 ? by / n : 0) }' \
    "$out/stat"
echo "(bench/ftlog.sh measures the logger alone, at full speed.)"

# (d) this machine's floor for (a)'s 1 MiB bandwidth: a sender log that
# keeps every payload copies each into memory it never touched (vlog
# without checkpoints keeps them for the whole job), on top of none's
# send.  The best vlog can do, one copy more a message than none, is
# none's time a MiB plus that copy's.
if cc -O2 -o "$out/freshmem" bench/freshmem.c; then
	"$out/freshmem" >"$out/fm" || failed=1
	nb=$(awk '$1 == "bw" && $2 == 1048576 { print $3 }' "$out/pp.none" |
	    stats | cut -f2)
	awk -v nb="$nb" '{ v[$1] = $2 } END {
	    printf "\n(d) this machine, us a MiB: a copy into fresh memory " \
		"%.1f (a memory file %.1f), into reused memory %.1f", \
		v["fresh"], v["memfd"], v["reused"]
	    if (nb != "-" && nb > 0) {
		t = 1048576 / nb
		f = v["fresh"]
		if (v["memfd"] < f)
			f = v["memfd"]
		printf "; none sends a MiB in %.1f (bandwidth median): " \
		    "at best vlog is %.2fx none without checkpoints, " \
		    "%.2fx with memory GC gave back\n", t, t / (t + f),
		    t / (t + v["reused"])
	    } else
		printf "\n"
	}' "$out/fm"
else
	failed=1
fi
exit "$failed"
