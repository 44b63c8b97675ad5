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
# usage: bench/replicate.sh [-r repeats] [-s sizes] [-j "N STEPS"]
#
# FTBIN is the directory holding ftcc and ftrun (default: $PWD/bin).
# Exit status: 0, 1 if a run failed, 100 usage or setup error, 111 build.

set -euo pipefail

prog=replicate.sh
repeats=5
sizes=0,8,64,1k,8k,64k,256k,1m,4m
jacobi="512 2500"

die() {
	local code=$1
	shift
	echo "$prog: fatal: $*" >&2
	exit "$code"
}

while (($# > 0)); do
	case $1 in
	-r) repeats=${2:?}; shift 2 ;;
	-s) sizes=${2:?}; shift 2 ;;
	-j) jacobi=${2:?}; shift 2 ;;
	*) die 100 "usage: bench/replicate.sh [-r repeats] [-s sizes] [-j \"N STEPS\"]" ;;
	esac
done
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die 100 "repeats '$repeats' is invalid"
for t in mpicc.openmpi mpirun.openmpi python3 timeout; do
	command -v "$t" >/dev/null || die 100 "'$t' not found; install openmpi-bin libopenmpi-dev"
done
benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FTBIN=$(cd "${FTBIN:-$PWD/bin}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The raw figures, kept for a second look: FT_BENCH_RESULTS=FILE.
results_copy=${FT_BENCH_RESULTS:-}
cd "$tmp"

"$FTBIN/ftcc" -O2 -o pp_ft "$benchdir/pingpong.c" || die 111 "ftcc failed"
mpicc.openmpi -O2 -o pp_ompi "$benchdir/pingpong.c" || die 111 "mpicc failed"
"$FTBIN/ftcc" -O2 -o jacobi "$benchdir/../examples/jacobi.c" -lm ||
	die 111 "ftcc failed"

echo "ft replication benchmark: $repeats repeats, $(date -u '+%Y-%m-%d %H:%M:%S') UTC," \
	"$(nproc) CPUs, $(uname -sr)"
echo "note: -r R runs 2R processes for the 2 ranks; on $(nproc) CPUs they share cores"
echo "commands, run in a temporary directory:"
cols=(ompi-tcp r1 r2 r3)
declare -A cmd=(
	[ompi-tcp]="mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --mca btl tcp,self ./pp_ompi -s $sizes"
	[r1]="$FTBIN/ftrun -n 2 ./pp_ft -s $sizes"
	[r2]="$FTBIN/ftrun -n 2 -r 2 ./pp_ft -s $sizes"
	[r3]="$FTBIN/ftrun -n 2 -r 3 ./pp_ft -s $sizes"
)
for c in "${cols[@]}"; do echo "  \$ ${cmd[$c]}"; done

failed=0
: >results
for ((rep = 1; rep <= repeats; rep++)); do
	echo "$prog: ping-pong repeat $rep/$repeats" >&2
	for c in "${cols[@]}"; do
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

echo
echo "jacobi $jacobi on 4 ranks, -r 2 (seconds of the whole job):"
jcols=(r1 r2 r2-kills)
declare -A jcmd=(
	[r1]="$FTBIN/ftrun -n 4 ./jacobi $jacobi"
	[r2]="$FTBIN/ftrun -n 4 -r 2 ./jacobi $jacobi"
	[r2-kills]="$FTBIN/ftrun -n 4 -r 2 --inject kill:random,every=2s,seed=1 ./jacobi $jacobi"
)
for c in "${jcols[@]}"; do echo "  \$ ${jcmd[$c]}"; done
for ((rep = 1; rep <= repeats; rep++)); do
	echo "$prog: jacobi repeat $rep/$repeats" >&2
	for c in "${jcols[@]}"; do
		t0=$(date +%s%N)
		# shellcheck disable=SC2086
		if timeout -k 5 600 ${jcmd[$c]} >jout 2>jerr; then
			t1=$(date +%s%N)
			awk -v c="$c" -v d=$((t1 - t0)) 'BEGIN { printf "%s jacobi 0 %.3f\n", c, d / 1e9 }' >>results
			tail -1 jout >"check.$c"
		else
			echo "$prog: jacobi $c failed:" >&2
			tail -5 jerr >&2
			failed=1
		fi
	done
done
if ! cmp -s check.r1 check.r2 || ! cmp -s check.r1 check.r2-kills; then
	echo "$prog: jacobi printed different checksums:" >&2
	cat check.* >&2
	failed=1
fi

[[ -z $results_copy ]] || cp results "$results_copy"
python3 - results <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    c, kind, size, x = line.split()
    v[(kind, int(size), c)].append(float(x))
def cell(kind, size, c):
    xs = v.get((kind, size, c))
    if not xs:
        return None
    best = min(xs) if kind != "bw" else max(xs)
    return best, statistics.median(xs)
for kind, unit in (("lat", "us"), ("bw", "MB/s")):
    sizes = sorted({s for (k, s, _) in v if k == kind})
    if not sizes:
        continue
    print()
    print(f"{kind} ({unit}), best / median; ratios are median / median of r1"
          + (" (latency: above 1 is slower)" if kind == "lat" else
             " (bandwidth: below 1 is slower)"))
    print(f"{'bytes':>8} {'ompi-tcp':>17} {'r1':>17} {'r2':>17} {'r3':>17}"
          f" {'r2/r1':>6} {'r3/r1':>6} {'r1/ompi':>7}")
    for s in sizes:
        cells = {c: cell(kind, s, c) for c in ("ompi-tcp", "r1", "r2", "r3")}
        row = f"{s:>8}"
        for c in ("ompi-tcp", "r1", "r2", "r3"):
            x = cells[c]
            row += f" {x[0]:>8.2f}/{x[1]:<8.2f}" if x else f" {'-':>17}"
        def ratio(a, b):
            if cells[a] and cells[b] and cells[b][1] > 0:
                return f"{cells[a][1] / cells[b][1]:>6.2f}"
            return f"{'-':>6}"
        row += f" {ratio('r2', 'r1')} {ratio('r3', 'r1')} {ratio('r1', 'ompi-tcp'):>7}"
        print(row)
j = {c: v.get(("jacobi", 0, c)) for c in ("r1", "r2", "r2-kills")}
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
