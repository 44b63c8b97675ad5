#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# The cost of replication, side by side: bench/pingpong.c built with ftcc
# and run with -r 1, 2 and 3, and built with Open MPI's mpicc and run over
# TCP, in one go; then examples/jacobi.c with -r 2, fault-free and with a
# replica killed every few seconds.  Whole runs are repeated; the tables
# give the best and the median of the repeats and their ratios to -r 1.
# Benchmarks measure; nothing here asserts a timing.
#
# usage: bench/replicate.sh [-r repeats] [-s sizes] [-R "1 2 3"]
#        [-j "N STEPS" | -j none] [-t name=bindir ...] [--no-ompi]
#
#   -r repeats	whole runs of every column (default 5)
#   -s sizes	ping-pong sizes, with k and m suffixes (default
#		0,8,64,1k,8k,64k,256k,1m,4m); bench/replicate.sh -s 1m,4m -j none
#		gives the bandwidth at 1 and 4 MiB
#   -R counts	replica counts of the ping-pong (default "1 2 3")
#   -j "N STEPS"	jacobi's grid and steps (default "512 2500"); none skips it
#   -t name=bindir	an ft build to measure, its ftcc and ftrun in bindir;
#		repeat it to measure several builds in one go, their runs
#		interleaved (bench/compare.sh does); columns are then named
#		name/r1, name/r2 ... and each build gets its own tables
#   --no-ompi	leave the Open MPI column out
#
# Within a repeat the columns run one after the other, in reverse order
# every other repeat, so that a slow spell of the machine does not always
# hit the same column first.
#
# FTBIN is the directory holding ftcc and ftrun when no -t is given
# (default: $PWD/bin).  FT_BENCH_RESULTS=FILE keeps the raw figures, one
# "column kind bytes value" line each (kind lat in usec, bw in MB/s, jacobi
# in seconds).
# Exit status: 0, 1 if a run failed, 100 usage or setup error, 111 build.

set -euo pipefail

prog=replicate.sh
repeats=5
sizes=0,8,64,1k,8k,64k,256k,1m,4m
jacobi="512 2500"
rcounts="1 2 3"
ompi=1
trees=()

die() {
	local code=$1
	shift
	echo "$prog: fatal: $*" >&2
	exit "$code"
}

usage() {
	die 100 "usage: bench/replicate.sh [-r repeats] [-s sizes] [-R \"1 2 3\"] [-j \"N STEPS\" | -j none] [-t name=bindir ...] [--no-ompi]"
}

while (($# > 0)); do
	case $1 in
	-r) (($# >= 2)) || usage; repeats=$2; shift 2 ;;
	-s) (($# >= 2)) || usage; sizes=$2; shift 2 ;;
	-R) (($# >= 2)) || usage; rcounts=$2; shift 2 ;;
	-j) (($# >= 2)) || usage; jacobi=$2; shift 2 ;;
	-t) (($# >= 2)) || usage; trees+=("$2"); shift 2 ;;
	--no-ompi) ompi=0; shift ;;
	*) usage ;;
	esac
done
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die 100 "repeats '$repeats' is invalid"
[[ $sizes =~ ^[0-9]+[kKmM]?(,[0-9]+[kKmM]?)*$ ]] ||
	die 100 "sizes '$sizes' are invalid"
[[ $rcounts =~ ^\ *[1-9][0-9]*(\ +[1-9][0-9]*)*\ *$ ]] ||
	die 100 "replica counts '$rcounts' are invalid"
[[ $jacobi == none || $jacobi =~ ^[0-9]+\ [0-9]+$ ]] ||
	die 100 "jacobi '$jacobi' is invalid (\"N STEPS\" or none)"
for t in mpicc.openmpi mpirun.openmpi python3 timeout; do
	command -v "$t" >/dev/null || die 100 "'$t' not found; install openmpi-bin libopenmpi-dev"
done
benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The builds (bench/builds.bash): names, bindir[name], pfx[name].
# shellcheck source=bench/builds.bash
. "$benchdir/builds.bash"
builds_parse ${trees[@]+"${trees[@]}"}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The raw figures, kept for a second look: FT_BENCH_RESULTS=FILE.
results_copy=${FT_BENCH_RESULTS:-}
[[ -z $results_copy || $results_copy == /* ]] || results_copy=$PWD/$results_copy
cd "$tmp"

for n in "${names[@]}"; do
	"${bindir[$n]}/ftcc" -O2 -o "pp_$n" "$benchdir/pingpong.c" ||
		die 111 "ftcc failed"
	if [[ $jacobi != none ]]; then
		"${bindir[$n]}/ftcc" -O2 -o "jacobi_$n" \
			"$benchdir/../examples/jacobi.c" -lm || die 111 "ftcc failed"
	fi
done
if ((ompi)); then
	mpicc.openmpi -O2 -o pp_ompi "$benchdir/pingpong.c" || die 111 "mpicc failed"
fi

echo "ft replication benchmark: $repeats repeats, $(date -u '+%Y-%m-%d %H:%M:%S') UTC," \
	"$(nproc) CPUs, $(uname -sr)"
echo "note: -r R runs 2R processes for the 2 ranks; on $(nproc) CPUs they share cores"
echo "commands, run in a temporary directory:"
cols=()
declare -A cmd=()
if ((ompi)); then
	cols+=(ompi-tcp)
	cmd[ompi-tcp]="mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --mca btl tcp,self ./pp_ompi -s $sizes"
fi
# The builds side by side at each replica count.
for r in $rcounts; do
	for n in "${names[@]}"; do
		c=${pfx[$n]}r$r
		cols+=("$c")
		cmd[$c]="${bindir[$n]}/ftrun -n 2 -r $r ./pp_$n -s $sizes"
	done
done
for c in "${cols[@]}"; do echo "  \$ ${cmd[$c]}"; done

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
: >results
for ((rep = 1; rep <= repeats; rep++)); do
	echo "$prog: ping-pong repeat $rep/$repeats" >&2
	order "$rep" "${cols[@]}"
	for c in "${order[@]}"; do
		# shellcheck disable=SC2086
		if timeout -k 5 300 ${cmd[$c]} >out 2>err; then
			awk -v c="$c" '/^(lat|bw) / { print c, $0 }' out >>results
		else
			echo "$prog: $c failed:" >&2
			tail -5 err >&2
			failed=1
		fi
	done
done

if [[ $jacobi != none ]]; then
	echo
	echo "jacobi $jacobi on 4 ranks, -r 2 (seconds of the whole job):"
	jcols=()
	declare -A jcmd=()
	for n in "${names[@]}"; do
		p=${pfx[$n]} ftrun=${bindir[$n]}/ftrun
		jcols+=("${p}r1" "${p}r2" "${p}r2-kills")
		jcmd[${p}r1]="$ftrun -n 4 ./jacobi_$n $jacobi"
		jcmd[${p}r2]="$ftrun -n 4 -r 2 ./jacobi_$n $jacobi"
		jcmd[${p}r2-kills]="$ftrun -n 4 -r 2 --inject kill:random,every=2s,seed=1 ./jacobi_$n $jacobi"
	done
	for c in "${jcols[@]}"; do echo "  \$ ${jcmd[$c]}"; done
	for ((rep = 1; rep <= repeats; rep++)); do
		echo "$prog: jacobi repeat $rep/$repeats" >&2
		order "$rep" "${jcols[@]}"
		for c in "${order[@]}"; do
			t0=$(date +%s%N)
			# shellcheck disable=SC2086
			if timeout -k 5 600 ${jcmd[$c]} >jout 2>jerr; then
				t1=$(date +%s%N)
				awk -v c="$c" -v d=$((t1 - t0)) 'BEGIN { printf "%s jacobi 0 %.3f\n", c, d / 1e9 }' >>results
				tail -1 jout >"check.${c//\//.}"
			else
				echo "$prog: jacobi $c failed:" >&2
				tail -5 jerr >&2
				failed=1
			fi
		done
	done
	for n in "${names[@]}"; do
		p=${pfx[$n]//\//.}
		if ! cmp -s "check.${p}r1" "check.${p}r2" ||
		    ! cmp -s "check.${p}r1" "check.${p}r2-kills"; then
			echo "$prog: jacobi of $n printed different checksums:" >&2
			cat "check.${p}"* >&2
			failed=1
		fi
	done
fi

[[ -z $results_copy ]] || cp results "$results_copy"
pfxs=()
for n in "${names[@]}"; do pfxs+=("${pfx[$n]}"); done
python3 - results "$rcounts" "${pfxs[@]}" <<'PY'
# One set of tables per build; a build's columns are its prefix and rR.
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    c, kind, size, x = line.split()
    v[(kind, int(size), c)].append(float(x))
rs = ["r" + r for r in sys.argv[2].split()]
pfxs = sys.argv[3:]
def cell(kind, size, c):
    xs = v.get((kind, size, c))
    if not xs:
        return None
    best = min(xs) if kind != "bw" else max(xs)
    return best, statistics.median(xs)
for p in pfxs:
    if p:
        print()
        print(f"build {p[:-1]}:")
    for kind, unit in (("lat", "us"), ("bw", "MB/s")):
        sizes = sorted({s for (k, s, _) in v if k == kind})
        if not sizes:
            continue
        cols = ["ompi-tcp"] + [p + r for r in rs]
        print()
        print(f"{kind} ({unit}), best / median; ratios are median / median of {rs[0]}"
              + (" (latency: above 1 is slower)" if kind == "lat" else
                 " (bandwidth: below 1 is slower)"))
        print(f"{'bytes':>8} {'ompi-tcp':>17}"
              + "".join(f" {r:>17}" for r in rs)
              + "".join(f" {r + '/' + rs[0]:>6}" for r in rs[1:])
              + f" {rs[0] + '/ompi':>7}")
        for s in sizes:
            cells = {c: cell(kind, s, c) for c in cols}
            row = f"{s:>8}"
            for c in cols:
                x = cells[c]
                row += f" {x[0]:>8.2f}/{x[1]:<8.2f}" if x else f" {'-':>17}"
            def ratio(a, b):
                if cells[a] and cells[b] and cells[b][1] > 0:
                    return f"{cells[a][1] / cells[b][1]:>6.2f}"
                return f"{'-':>6}"
            row += "".join(f" {ratio(p + r, p + rs[0])}" for r in rs[1:])
            row += f" {ratio(p + rs[0], 'ompi-tcp'):>7}"
            print(row)
    j = {c: v.get(("jacobi", 0, p + c)) for c in ("r1", "r2", "r2-kills")}
    if j["r1"]:
        print()
        print("jacobi job time (s), best / median, ratio of medians to r1:")
        base = statistics.median(j["r1"])
        for c, xs in j.items():
            if xs:
                print(f"  {c:>9} {min(xs):>7.2f} / {statistics.median(xs):<7.2f}"
                      f" x{statistics.median(xs) / base:.2f}")
PY
exit $failed
