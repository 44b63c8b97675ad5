#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# CPU time per message, side by side: bench/pingpong.c -l built with ftcc
# and run by ftrun -n 2 -r R for R = 1, 2 and 3, and built with Open MPI's
# mpicc and run over TCP and over shared memory, in one go.  Each job runs
# under bench/cpurun.c, which reads the user and system CPU time of the
# launcher and of every process the launcher waited for: every rank and
# replica of the job.  A job of N round trips is paired with one of K round
# trips at the same size, run right after it; the difference of their CPU
# times over the 2 (N - K) messages between them is the CPU time per
# message, free of start-up and teardown, which are given on their own (the
# CPU time the line through both jobs gives for 0 messages).  A message is
# one MPI_Send of the program, whatever R: at -r 3 it costs what its three
# copies cost.  The latency is the mean half round trip of the N round
# trips, from the same jobs.  Whole pairs of jobs are repeated; the table
# gives the minimum and the median of the repeats.  Benchmarks measure;
# nothing here asserts a timing.
#
# usage: bench/cpu.sh [-r repeats] [-i round_trips] [-k round_trips]
#        [-s sizes] [-R "1 2 3"] [-S spin_us] [-t name=bindir ...] [--no-ompi]
#
#   -r repeats	pairs of jobs per size and column (default 3)
#   -i N	round trips of a measured job (default 100000)
#   -k K	round trips of its start-up job (default 100; fewer than N)
#   -s sizes	message sizes, with k and m suffixes (default 8,64k)
#   -R counts	replica counts (default "1 2 3")
#   -S spin_us	FT_SPIN_US of the ft jobs: how long a waiting rank spins
#		before it sleeps in poll(2) (default: ft's own, 50, or
#		FT_SPIN_US from the environment); 0 shows the cost without
#		spinning, which on a virtual machine pays for wake-ups instead
#   -t name=bindir	an ft build to measure, its ftcc and ftrun in bindir;
#		repeat it to measure several builds in one go, their jobs
#		interleaved (bench/compare.sh does); columns are then named
#		name/r1, name/r2 ...
#   --no-ompi	leave the Open MPI columns out
#
# Within a repeat the columns run one after the other, in reverse order
# every other repeat, so that a slow spell of the machine does not always
# hit the same column first.  The default run takes about 5 minutes on 2
# idle CPUs.
#
# Caveats: a ping-pong always has a rank waiting, and the wait is counted.
# Open MPI's ranks poll while they wait, so their CPU time is about the
# wall-clock time times 2 ranks; ft's spin for FT_SPIN_US, yielding the CPU
# when ranks outnumber CPUs, then sleep in poll(2).  A process that nobody
# waits for is not counted: ftrun's watchdog, which sleeps.
#
# FTBIN is the directory holding ftcc and ftrun when no -t is given
# (default: $PWD/bin).  FT_BENCH_RESULTS=FILE keeps the raw figures, one
# "column kind bytes value" line per pair of jobs: kind cpu (usec per
# message), sys (the part of it spent in the kernel, usec), lat (usec), start
# (start-up and teardown, ms of CPU).
# Exit status: 0, 1 if a run failed (its column is then incomplete), 100
# for a usage or setup error, 111 if a build failed.

set -euo pipefail

prog=cpu.sh
repeats=3
iters=100000
short=100
sizes=8,64k
rcounts="1 2 3"
spin=
ompi=1
trees=()
runtimeout=900		# seconds for one job; a hung job is a failure

die() {
	local code=$1
	shift
	echo "$prog: fatal: $*" >&2
	exit "$code"
}

warn() {
	echo "$prog: warning: $*" >&2
}

usage() {
	die 100 "usage: bench/cpu.sh [-r repeats] [-i round_trips] [-k round_trips] [-s sizes] [-R \"1 2 3\"] [-S spin_us] [-t name=bindir ...] [--no-ompi]"
}

while (($# > 0)); do
	case $1 in
	-r) (($# >= 2)) || usage; repeats=$2; shift 2 ;;
	-i) (($# >= 2)) || usage; iters=$2; shift 2 ;;
	-k) (($# >= 2)) || usage; short=$2; shift 2 ;;
	-s) (($# >= 2)) || usage; sizes=$2; shift 2 ;;
	-R) (($# >= 2)) || usage; rcounts=$2; shift 2 ;;
	-S) (($# >= 2)) || usage; spin=$2; shift 2 ;;
	-t) (($# >= 2)) || usage; trees+=("$2"); shift 2 ;;
	--no-ompi) ompi=0; shift ;;
	*) usage ;;
	esac
done
if ! [[ $repeats =~ ^[1-9][0-9]*$ ]] || ((repeats > 1000)); then
	die 100 "repeats '$repeats' is invalid (1 to 1000)"
fi
[[ $iters =~ ^[1-9][0-9]{0,7}$ ]] ||
	die 100 "round trips '$iters' are invalid (1 to 99999999)"
if ! [[ $short =~ ^[1-9][0-9]{0,7}$ ]] || ((short >= iters)); then
	die 100 "start-up round trips '$short' are invalid (1 to $((iters - 1)))"
fi
[[ $sizes =~ ^[0-9]+[kKmM]?(,[0-9]+[kKmM]?)*$ ]] ||
	die 100 "sizes '$sizes' are invalid"
[[ $rcounts =~ ^\ *[1-9][0-9]*(\ +[1-9][0-9]*)*\ *$ ]] ||
	die 100 "replica counts '$rcounts' are invalid"
if [[ -n $spin ]]; then
	[[ $spin =~ ^[0-9]{1,7}$ ]] || die 100 "spin '$spin' is invalid"
	# Ranks inherit ftrun's environment; Open MPI ignores it.
	export FT_SPIN_US=$spin
fi
for t in mpicc.openmpi mpirun.openmpi cc python3 timeout; do
	command -v "$t" >/dev/null ||
		die 100 "'$t' not found; install openmpi-bin libopenmpi-dev"
done
benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The builds (bench/builds.bash): names, bindir[name], pfx[name].
# shellcheck source=bench/builds.bash
. "$benchdir/builds.bash"
builds_parse ${trees[@]+"${trees[@]}"}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
results_copy=${FT_BENCH_RESULTS:-}
[[ -z $results_copy || $results_copy == /* ]] || results_copy=$PWD/$results_copy
cd "$tmp"

build() {
	if ! "$@" >build.log 2>&1; then
		cat build.log >&2
		die 111 "build failed: $*"
	fi
}
build cc -O2 -o cpurun "$benchdir/cpurun.c"
for n in "${names[@]}"; do
	build "${bindir[$n]}/ftcc" -O2 -o "pp_$n" "$benchdir/pingpong.c"
done
((!ompi)) || build mpicc.openmpi -O2 -o pp_ompi "$benchdir/pingpong.c"

# The columns, builds side by side at each replica count, then Open MPI.
cols=()
declare -A colbuild=() colr=()
for r in $rcounts; do
	for n in "${names[@]}"; do
		c=${pfx[$n]}r$r
		cols+=("$c")
		colbuild[$c]=$n
		colr[$c]=$r
	done
done
((!ompi)) || cols+=(ompi-tcp ompi-sm)
mpirun=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 2)

# runcmd COLUMN SIZE ROUND_TRIPS: set the array cmd to the job.
runcmd() {
	local pp=(-l -w 0 -s "$2" -i "$3") n

	# shellcheck disable=SC2054	# self,tcp is one word
	case $1 in
	ompi-tcp) cmd=("${mpirun[@]}" --mca btl self,tcp ./pp_ompi "${pp[@]}") ;;
	ompi-sm) cmd=("${mpirun[@]}" --mca btl self,vader ./pp_ompi "${pp[@]}") ;;
	*)
		n=${colbuild[$1]}
		cmd=("${bindir[$n]}/ftrun" -n 2 -r "${colr[$1]}" "./pp_$n" "${pp[@]}")
		;;
	esac
}

echo "ft CPU time per message: $repeats repeats of $iters and $short round" \
	"trips, $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(nproc) CPUs, $(uname -sr)"
mpirun.openmpi --version 2>/dev/null | head -n 1
read -r load _ </proc/loadavg || load=0
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
	echo "note: load average $load on $(nproc) CPUs: figures will be noisy"
fi
echo "note: -r R runs 2R processes for the 2 ranks; on $(nproc) CPUs they share cores"
echo "FT_SPIN_US=${FT_SPIN_US:-50}: ft's ranks spin that long before they sleep in poll"
echo "commands, each run as ./cpurun -o FILE timeout -k 5 $runtimeout COMMAND" \
	"in a temporary directory, and again with -i $short:"
for c in "${cols[@]}"; do
	runcmd "$c" SIZE "$iters"
	echo "  \$ ${cmd[*]}"
done

# order REPEAT COLUMN...: set the array order to the columns, reversed
# every other repeat.
order() {
	local rep=$1 i

	shift
	order=("$@")
	if ((rep % 2 == 0)); then
		order=()
		for ((i = $#; i >= 1; i--)); do order+=("${!i}"); done
	fi
}

failed=0
declare -A broken=()

# job COLUMN SIZE ROUND_TRIPS TAG: run one job; TAG.cpu holds "user sys
# wall", TAG.out its output.  On failure, drop the column.
job() {
	local st=0 what

	runcmd "$1" "$2" "$3"
	./cpurun -o "$4.cpu" timeout -k 5 "$runtimeout" "${cmd[@]}" \
		>"$4.out" 2>"$4.err" || st=$?
	((st != 0)) || return 0
	failed=1
	broken[$1]=1
	if ((st == 124)); then
		what="timed out after ${runtimeout}s"
	else
		what="failed with status $st"
	fi
	echo >&2
	warn "$1 -s $2 -i $3 $what; its column is skipped from now on"
	tail -n 20 "$4.err" | sed 's/^/    /' >&2
	return 1
}

: >results
for ((rep = 1; rep <= repeats; rep++)); do
	printf '%s: repeat %d/%d:' "$prog" "$rep" "$repeats" >&2
	order "$rep" "${cols[@]}"
	for s in ${sizes//,/ }; do
		for c in "${order[@]}"; do
			[[ -z ${broken[$c]:-} ]] || continue
			printf ' %s@%s' "$c" "$s" >&2
			if ! job "$c" "$s" "$iters" long ||
			    ! job "$c" "$s" "$short" short; then
				continue
			fi
			# The two jobs differ by 2 (N - K) messages; the line
			# through them gives start-up and teardown at 0.
			awk -v c="$c" -v n="$iters" -v k="$short" '
			FILENAME == "long.cpu" { lu = $1; ls = $2 }
			FILENAME == "short.cpu" { su = $1; ss = $2 }
			FILENAME == "long.out" && $1 == "lat" { b = $2; lat = $3 }
			END {
				if (b == "")
					exit 1
				m = 2 * (n - k)
				per = (lu + ls - su - ss) / m
				printf "%s cpu %s %.4f\n", c, b, per * 1e6
				printf "%s sys %s %.4f\n", c, b, (ls - ss) / m * 1e6
				printf "%s lat %s %s\n", c, b, lat
				printf "%s start %s %.3f\n", c, b,
				    (su + ss - per * 2 * k) * 1e3
			}' long.cpu short.cpu long.out >>results || {
				failed=1
				echo >&2
				warn "$c -s $s printed no latency"
			}
		done
	done
	echo >&2
done
[[ -z $results_copy ]] || cp results "$results_copy"
echo

pfxs=()
for n in "${names[@]}"; do pfxs+=("${pfx[$n]}"); done
PYTHONPATH="$benchdir" python3 - "$repeats" "$iters" "$short" "$rcounts" "${pfxs[@]}" <<'EOF'
# The results file ("column kind bytes value" lines) as one table: a row
# per size and column, builds side by side at each replica count.
import statistics
import sys

from benchfmt import fmt, size_name

repeats, iters, short = (int(a) for a in sys.argv[1:4])
rs = ["r" + r for r in sys.argv[4].split()]
pfxs = sys.argv[5:]
cols = [p + r for r in rs for p in pfxs] + ["ompi-tcp", "ompi-sm"]

data = {}
for line in open("results"):
    col, kind, size, value = line.split()
    data.setdefault((kind, int(size), col), []).append(float(value))




def med(kind, size, col):
    vs = data.get((kind, size, col))
    return statistics.median(vs) if vs else None


def base(col):
    """The column a row's ratio is taken to: r1 of its build."""
    for p in pfxs:
        if p and col.startswith(p):
            return p + rs[0]
    return pfxs[0] + rs[0]


print("CPU time per message (usec): user + system time of the launcher and")
print("all its ranks, over the messages, start-up taken out; min and median")
print("of %d repeat(s).  /%s: median over the median of %s (Open MPI rows: of"
      % (repeats, rs[0], rs[0]))
print("the first build's %s).  sys: the kernel's part of the median.  Latency:"
      % rs[0])
print("half round trip (usec) in the same jobs.  start: start-up and teardown,")
print("ms of CPU for the whole job, median.")
print()
w = max([len(c) for c in cols] + [6])
print("%-7s %-*s %9s %9s %6s %6s %9s %9s %8s"
      % ("size", w, "column", "cpu min", "median", "/" + rs[0], "sys",
         "lat min", "median", "start"))
sizes = sorted({s for (_, s, _) in data})
few = weak = False
for s in sizes:
    for c in cols:
        vs = data.get(("cpu", s, c))
        if not vs:
            continue
        m = statistics.median(vs)
        b = med("cpu", s, base(c))
        ratio = m / b if b else None
        sysm = med("sys", s, c)
        lats = data.get(("lat", s, c), [])
        st = med("start", s, c)
        mark = ""
        if len(vs) < repeats:
            mark += "*"
            few = True
        # When the messages cost less CPU than start-up, the noise of
        # start-up swamps the difference of the two jobs.
        if st is not None and m * 2 * (iters - short) / 1e3 < st:
            mark += "?"
            weak = True
        # A share of noise means nothing.
        sysp = ("%5.0f%%" % (100 * sysm / m) if m > 0 and "?" not in mark
                else "-".rjust(6))
        print("%-7s %-*s %9s %9s %6s %6s %9s %9s %8s%s"
              % (size_name(s), w, c, fmt(min(vs), 9), fmt(m, 9),
                 fmt(ratio, 6), sysp,
                 fmt(min(lats) if lats else None, 9),
                 fmt(statistics.median(lats) if lats else None, 9),
                 fmt(st, 8), mark))
if few:
    print("* fewer than %d repeats: a job failed" % repeats)
if weak:
    print("? its messages took less CPU than its start-up: the figure is "
          "mostly noise;")
    print("  raise -i")
EOF

exit "$failed"
