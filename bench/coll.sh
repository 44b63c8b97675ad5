#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Time collectives with ft and with Open MPI, side by side: bench/coll.c is
# built with ftcc and with Open MPI's mpicc, and run at 2, 4 and 8 ranks
# over ft, over Open MPI with its default transports (shared memory) and
# over Open MPI restricted to TCP (the transport closest to ft's sockets).
# Whole runs are repeated; the tables give the best and the median of the
# per-call times, and the ratios ft/ompi (below 1 is better for ft).
# Benchmarks measure; nothing here asserts a timing.
#
# usage: bench/coll.sh [-r repeats] [-n "2 4 8"] [-s scale]
#
# FTBIN is the directory holding ftcc and ftrun (default: $PWD/bin).
# Exit status: 0, 1 if a run failed (its cells are then incomplete), 100
# for a usage or setup error, 111 if a build failed.

set -euo pipefail

prog=coll.sh
repeats=5
nps="2 4 8"
scale=1
runtimeout=300		# seconds for one run; a hung run is a failure

usage() {
	echo "usage: bench/coll.sh [-r repeats] [-n \"2 4 8\"] [-s scale]" >&2
	exit 100
}

die() {
	local code=$1
	shift
	echo "$prog: fatal: $*" >&2
	exit "$code"
}

warn() {
	echo "$prog: warning: $*" >&2
}

while getopts "r:n:s:" opt; do
	case $opt in
	r) repeats=$OPTARG ;;
	n) nps=$OPTARG ;;
	s) scale=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($# == 0)) || usage
[[ $repeats =~ ^[1-9][0-9]*$ ]] && ((repeats <= 1000)) ||
	die 100 "repeats '$repeats' is invalid (1 to 1000)"
[[ $nps =~ ^[0-9\ ]+$ ]] || die 100 "rank counts '$nps' are invalid"
[[ $scale =~ ^[0-9.]+$ ]] || die 100 "scale '$scale' is invalid"

for t in mpicc.openmpi mpirun.openmpi python3 timeout; do
	command -v "$t" >/dev/null ||
		die 100 "'$t' not found; install openmpi-bin libopenmpi-dev"
done
benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FTBIN=${FTBIN:-$PWD/bin}
for t in ftcc ftrun; do
	[[ -x $FTBIN/$t ]] || die 100 "'$FTBIN/$t' not found; build ft first or set FTBIN"
done
FTBIN=$(cd "$FTBIN" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftcoll.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

ompi=(mpirun.openmpi --allow-run-as-root --oversubscribe)
build_ft=("$FTBIN/ftcc" -O2 -o coll_ft "$benchdir/coll.c")
build_ompi=(mpicc.openmpi -O2 -o coll_ompi "$benchdir/coll.c")
tools=(ft ompi ompi-tcp)

# runcmd TOOL N: set the array cmd to the command that runs TOOL on N ranks.
runcmd() {
	case $1 in
	ft) cmd=("$FTBIN/ftrun" -n "$2" ./coll_ft -s "$scale") ;;
	ompi) cmd=("${ompi[@]}" -np "$2" ./coll_ompi -s "$scale") ;;
	ompi-tcp) cmd=("${ompi[@]}" -np "$2" --mca btl tcp,self ./coll_ompi \
		-s "$scale") ;;
	esac
}

echo "ft collectives: $repeats repeats, $(date -u '+%Y-%m-%d %H:%M:%S') UTC," \
	"$(nproc) CPUs, $(uname -sr)"
echo "$(mpirun.openmpi --version 2>/dev/null | head -n 1)"
echo "commands, run in a temporary directory (N in $nps):"
echo "  \$ ${build_ft[*]}"
echo "  \$ ${build_ompi[*]}"
for t in "${tools[@]}"; do
	runcmd "$t" N
	echo "  \$ timeout $runtimeout ${cmd[*]}"
done
echo

for b in build_ft build_ompi; do
	declare -n bc=$b
	if ! "${bc[@]}" >build.log 2>&1; then
		cat build.log >&2
		die 111 "build failed: ${bc[*]}"
	fi
done

failed=0
: >results
for ((rep = 1; rep <= repeats; rep++)); do
	for n in $nps; do
		printf '%s: repeat %d/%d, %d ranks:' "$prog" "$rep" "$repeats" \
			"$n" >&2
		for t in "${tools[@]}"; do
			printf ' %s' "$t" >&2
			runcmd "$t" "$n"
			st=0
			timeout -k 5 "$runtimeout" "${cmd[@]}" </dev/null \
				>out 2>err || st=$?
			if ((st != 0)); then
				failed=1
				echo >&2
				warn "$t at $n ranks, repeat $rep, failed with status $st"
				tail -n 5 err | sed 's/^/    /' >&2
			fi
			awk -v t="$t" -v n="$n" \
				'/^[a-z]+ [0-9]+ [0-9.]+$/ { print t, n, $0 }' \
				out >>results
		done
		echo >&2
	done
done

PYTHONPATH="$benchdir" python3 - "$repeats" <<'EOF'
# results: "tool ranks op bytes usec" lines.  One table per rank count.
import statistics
import sys

from benchfmt import fmt, size_name

repeats = int(sys.argv[1])
data = {}
for line in open("results"):
    tool, n, op, size, usec = line.split()
    data.setdefault((int(n), op, int(size), tool), []).append(float(usec))

tools = ["ft", "ompi", "ompi-tcp"]




def stats(key):
    vs = data.get(key)
    if not vs:
        return None, None
    return min(vs), statistics.median(vs)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


print("time per call, usec (slowest rank's mean; min and median over %d runs)"
      % repeats)
print("ratio: ft / other; below 1 is better for ft")
for n in sorted({k[0] for k in data}):
    cases = sorted({(k[1], k[2]) for k in data if k[0] == n},
                   key=lambda c: (["barrier", "bcast", "allreduce",
                                   "alltoall"].index(c[0])
                                  if c[0] in ["barrier", "bcast", "allreduce",
                                              "alltoall"] else 9, c[1]))
    print()
    print("%d ranks" % n)
    print("%-19s" % "" + "".join("%20s" % t for t in tools) +
          "%20s%20s" % ("ft/ompi", "ft/ompi-tcp"))
    print("%-19s" % "op size" + ("%9s %9s " % ("min", "med")) * 5)
    for op, size in cases:
        row = "%-19s" % ("%s %s" % (op, size_name(size) if op != "barrier"
                                    else ""))
        st = {t: stats((n, op, size, t)) for t in tools}
        for t in tools:
            row += "%s %s " % (fmt(st[t][0]), fmt(st[t][1]))
        for t in ("ompi", "ompi-tcp"):
            row += "%s %s " % (fmt(ratio(st["ft"][0], st[t][0])),
                               fmt(ratio(st["ft"][1], st[t][1])))
        print(row.rstrip())
EOF

exit "$failed"
