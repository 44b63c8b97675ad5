#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Before and after of a change to ft, side by side in one run: BEFORE_DIR
# and AFTER_DIR are two checkouts (git worktrees, say) with ft built in
# each, bin/ftcc and bin/ftrun.  The benchmark sources of this script's
# tree are built with each tree's ftcc; bench/replicate.sh then measures
# latency and bandwidth at -r 1, 2 and 3 and bench/cpu.sh the CPU time per
# message and the latency of long ping-pongs, each with the jobs of both
# trees interleaved within every repeat (and their order reversed every
# other repeat), so that the noise of a shared machine hits both alike.
# One table gives before, after and after/before, for the best and the
# median of the repeats; the line counts of lib/pt2pt and lib/proto of both
# trees come first.  Benchmarks measure; nothing here asserts a timing.
#
# usage: bench/compare.sh [-r repeats] [-i round_trips] [-k round_trips]
#        [-s sizes] [-b sizes] [-B repeats] [-R "1 2 3"] [-S spin_us] [-v]
#        BEFORE_DIR AFTER_DIR
#
#   -r repeats	repeats of every CPU-time job (default 3)
#   -i N	round trips of a CPU-time job (default 100000)
#   -k K	round trips of its start-up job (default 100)
#   -s sizes	sizes of the CPU-time and latency jobs (default 8,64k)
#   -b sizes	sizes of the bandwidth jobs (default 1m,4m); their
#		latency is given too, for sizes not in -s
#   -B repeats	repeats of every bandwidth job (default 10: each is a
#		fraction of a second, so more of them cost little)
#   -R counts	replica counts (default "1 2 3")
#   -S spin_us	FT_SPIN_US of the CPU-time jobs (see bench/cpu.sh)
#   -v		print the tables of replicate.sh and cpu.sh as well
#
# The default run takes about 5 minutes on 2 idle CPUs.  `make
# bench-compare BEFORE=dir` runs it with this tree as AFTER_DIR.
# Exit status: 0, 1 if a run failed (its cells are then incomplete), 100
# for a usage or setup error, 111 if a build failed.

set -euo pipefail

prog=compare.sh
repeats=3
bwrepeats=10
iters=100000
short=100
sizes=8,64k
bwsizes=1m,4m
rcounts="1 2 3"
spin=()
verbose=0

die() {
	local code=$1
	shift
	echo "$prog: fatal: $*" >&2
	exit "$code"
}

usage() {
	die 100 "usage: bench/compare.sh [-r repeats] [-i round_trips] [-k round_trips] [-s sizes] [-b sizes] [-B repeats] [-R \"1 2 3\"] [-S spin_us] [-v] BEFORE_DIR AFTER_DIR"
}

while (($# > 0)); do
	case $1 in
	-r) (($# >= 2)) || usage; repeats=$2; shift 2 ;;
	-i) (($# >= 2)) || usage; iters=$2; shift 2 ;;
	-k) (($# >= 2)) || usage; short=$2; shift 2 ;;
	-s) (($# >= 2)) || usage; sizes=$2; shift 2 ;;
	-b) (($# >= 2)) || usage; bwsizes=$2; shift 2 ;;
	-B) (($# >= 2)) || usage; bwrepeats=$2; shift 2 ;;
	-R) (($# >= 2)) || usage; rcounts=$2; shift 2 ;;
	-S) (($# >= 2)) || usage; spin=(-S "$2"); shift 2 ;;
	-v) verbose=1; shift ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
(($# == 2)) || usage
# The scripts it calls check the rest, but only after the line counts.
for r in "$repeats" "$bwrepeats"; do
	if ! [[ $r =~ ^[1-9][0-9]*$ ]] || ((r > 1000)); then
		die 100 "repeats '$r' are invalid (1 to 1000)"
	fi
done
[[ $iters =~ ^[1-9][0-9]{0,7}$ ]] ||
	die 100 "round trips '$iters' are invalid (1 to 99999999)"
if ! [[ $short =~ ^[1-9][0-9]{0,7}$ ]] || ((short >= iters)); then
	die 100 "start-up round trips '$short' are invalid (1 to $((iters - 1)))"
fi
declare -A tree=()
for t in before after; do
	d=$1
	shift
	[[ -d $d ]] || die 100 "'$d' is not a directory"
	[[ -x $d/bin/ftcc && -x $d/bin/ftrun ]] ||
		die 100 "'$d' has no bin/ftcc and bin/ftrun; run make -C '$d' all"
	tree[$t]=$(cd "$d" && pwd)
done
command -v python3 >/dev/null || die 100 "'python3' not found"
benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "ft before/after: $repeats repeats ($bwrepeats of bandwidth jobs), $(date -u '+%Y-%m-%d %H:%M:%S') UTC," \
	"$(nproc) CPUs, $(uname -sr)"
for t in before after; do
	d=${tree[$t]}
	rev=$(git -C "$d" describe --always --dirty 2>/dev/null || echo "not a git tree")
	br=$(git -C "$d" symbolic-ref -q --short HEAD 2>/dev/null || true)
	printf '%-7s %s (%s%s)\n' "$t:" "$d" "${br:+$br }" "$rev"
done
if [[ ${tree[before]} == "${tree[after]}" ]]; then
	echo "note: before and after are the same tree: ratios show the noise"
fi
read -r load _ </proc/loadavg || load=0
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
	echo "note: load average $load on $(nproc) CPUs: figures will be noisy"
fi
echo

# Line counts: every file of either tree, "-" where a tree has none.
echo "lines (wc -l)"
printf '%-28s %8s %8s %8s\n' file before after change
declare -A files=()
for t in before after; do
	for f in "${tree[$t]}"/lib/pt2pt/*.[ch] "${tree[$t]}"/lib/proto/*.[ch]; do
		[[ -e $f ]] && files[${f#"${tree[$t]}"/}]=1
	done
done
declare -A total=([before]=0 [after]=0)
mapfile -t sorted < <(printf '%s\n' "${!files[@]}" | sort)
for f in "${sorted[@]}"; do
	declare -A n=()
	for t in before after; do
		if [[ -e ${tree[$t]}/$f ]]; then
			n[$t]=$(wc -l <"${tree[$t]}/$f")
			((total[$t] += n[$t]))
		else
			n[$t]=-
		fi
	done
	printf '%-28s %8s %8s %+8d\n' "$f" "${n[before]}" "${n[after]}" \
		$((${n[after]/-/0} - ${n[before]/-/0}))
done
printf '%-28s %8s %8s %+8d\n' total "${total[before]}" "${total[after]}" \
	$((total[after] - total[before]))
echo

# Both scripts interleave the builds' jobs themselves.  They stop on
# usage and build errors (100, 111); a failed run (1) costs its cells.
failed=0
builds=(-t "before=${tree[before]}/bin" -t "after=${tree[after]}/bin")
# sub NAME ARG...: run bench/NAME.sh, its raw figures in $tmp/NAME.results.
sub() {
	local name=$1 st=0

	shift
	FT_BENCH_RESULTS=$tmp/$name.results bash "$benchdir/$name.sh" "$@" \
		>"$tmp/$name.log" || st=$?
	case $st in
	0) ;;
	1) failed=1 ;;
	*) cat "$tmp/$name.log" >&2; die "$st" "bench/$name.sh failed" ;;
	esac
	if ((verbose)); then
		cat "$tmp/$name.log"
		echo
	fi
}
sub replicate -r "$bwrepeats" -s "$bwsizes" -R "$rcounts" -j none --no-ompi \
	"${builds[@]}"
sub cpu -r "$repeats" -i "$iters" -k "$short" -s "$sizes" -R "$rcounts" \
	"${spin[@]}" --no-ompi "${builds[@]}"

PYTHONPATH="$benchdir" python3 - "$tmp/replicate.results" "$tmp/cpu.results" "$rcounts" "$repeats" \
	"$bwrepeats" "$iters" "$short" <<'EOF'
# One table: a row per metric, size and replica count; before and after
# side by side, then after/before.
import statistics
import sys

from benchfmt import fmt, size_name

bwfile, cpufile = sys.argv[1:3]
rs = sys.argv[3].split()
repeats, bwrepeats, iters, short = (int(a) for a in sys.argv[4:8])


def load(path):
    d = {}
    try:
        f = open(path)
    except FileNotFoundError:
        return d
    for line in f:
        col, kind, size, value = line.split()
        build, r = col.split("/")
        d.setdefault((kind, int(size), r[1:], build), []).append(
            float(value))
    return d


bw, cpu = load(bwfile), load(cpufile)
# Latency from the long CPU-time jobs; from the bandwidth jobs only at
# sizes the CPU-time jobs did not run.
lat = {k: v for k, v in cpu.items() if k[0] == "lat"}
cpusizes = {k[1] for k in lat}
lat.update({k: v for k, v in bw.items()
            if k[0] == "lat" and k[1] not in cpusizes})
rows = [
    ("cpu/msg us", "cpu", cpu, min),
    ("latency us", "lat", lat, min),
    ("bandwidth MB/s", "bw", bw, max),
    ("start-up ms", "start", cpu, min),
]
# What a row's count of repeats should be.
want = {k: bwrepeats for k in bw}
want.update({k: repeats for k in cpu})




def div(a, b):
    return a / b if a is not None and b else None


print("Best (min; max for bandwidth) and median of %d repeats (%d for the"
      % (repeats, bwrepeats))
print("bandwidth jobs and the latency of their sizes).  after/before: above 1")
print("is slower for cpu/msg, latency and start-up, faster for bandwidth.")
print("cpu/msg: user + system CPU of ftrun and all its ranks per message sent")
print("by the program, start-up taken out (jobs of %d round trips); start-up:"
      % iters)
print("ms of CPU for the whole job.  Latency: half round trip.")
print()
print("%-15s %-7s %2s %19s %19s %17s"
      % ("", "", "", "before", "after", "after/before"))
print("%-15s %-7s %2s %9s %9s %9s %9s %8s %8s"
      % ("metric", "size", "R", "best", "median", "best", "median",
         "best", "median"))
few = weak = False
for name, kind, d, best in rows:
    sizes = sorted({k[1] for k in d if k[0] == kind})
    for s in sizes:
        for r in rs:
            b = d.get((kind, s, r, "before"))
            a = d.get((kind, s, r, "after"))
            if not a and not b:
                continue
            bb, bm = (best(b), statistics.median(b)) if b else (None, None)
            ab, am = (best(a), statistics.median(a)) if a else (None, None)
            mark = ""
            n = want.get((kind, s, r, "before"), repeats)
            if len(a or []) < n or len(b or []) < n:
                mark = " *"
                few = True
            # As in cpu.sh: messages cheaper than start-up drown in its
            # noise.
            if kind == "cpu":
                for x, st in ((am, cpu.get(("start", s, r, "after"))),
                              (bm, cpu.get(("start", s, r, "before")))):
                    if (x is not None and st and
                            x * 2 * (iters - short) / 1e3 <
                            statistics.median(st)):
                        mark += " ?"
                        weak = True
                        break
            print("%-15s %-7s %2s %9s %9s %9s %9s %8s %8s%s"
                  % (name, size_name(s), r, fmt(bb, 9), fmt(bm, 9),
                     fmt(ab, 9), fmt(am, 9), fmt(div(ab, bb), 8),
                     fmt(div(am, bm), 8), mark))
if few:
    print("* fewer repeats than asked: a run failed")
if weak:
    print("? its messages took less CPU than start-up: mostly noise; raise -i")
EOF

exit "$failed"
