#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Pack and unpack throughput of strided datatypes, ft against Open MPI:
# bench/typepack.c is built with ftcc and with Open MPI's mpicc and run on
# one rank by each; each program times its own repeats and prints the
# minimum, median and maximum GB/s per case.  The table puts the medians
# side by side with the ratio ft/ompi (above 1 is better for ft).
# Benchmarks measure; nothing here asserts a timing.
#
# usage: bench/typepack.sh [-r repeats]
#
# FTBIN is the directory holding ftcc and ftrun (default: $PWD/bin).
# Exit status: 0, 1 if a run failed, 100 for a usage or setup error, 111
# if a build failed.

set -euo pipefail

prog=typepack.sh
repeats=50

die() {
	local code=$1
	shift
	echo "$prog: fatal: $*" >&2
	exit "$code"
}

while getopts "r:" opt; do
	case $opt in
	r) repeats=$OPTARG ;;
	*) die 100 "usage: bench/typepack.sh [-r repeats]" ;;
	esac
done
shift $((OPTIND - 1))
(($# == 0)) || die 100 "usage: bench/typepack.sh [-r repeats]"
[[ $repeats =~ ^[1-9][0-9]*$ ]] && ((repeats <= 1000)) ||
	die 100 "repeats '$repeats' is invalid (1 to 1000)"
for t in mpicc.openmpi mpirun.openmpi timeout; do
	command -v "$t" >/dev/null ||
		die 100 "'$t' not found; install openmpi-bin libopenmpi-dev"
done
benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FTBIN=${FTBIN:-$PWD/bin}
for t in ftcc ftrun; do
	[[ -x $FTBIN/$t ]] || die 100 "'$FTBIN/$t' not found; build ft first or set FTBIN"
done
FTBIN=$(cd "$FTBIN" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fttypepack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

build_ft=("$FTBIN/ftcc" -O2 -o typepack_ft "$benchdir/typepack.c")
build_ompi=(mpicc.openmpi -O2 -o typepack_ompi "$benchdir/typepack.c")
run_ft=("$FTBIN/ftrun" -n 1 ./typepack_ft -r "$repeats")
run_ompi=(mpirun.openmpi --allow-run-as-root -np 1 ./typepack_ompi
	-r "$repeats")

echo "ft datatype packing: $repeats repeats, $(date -u '+%Y-%m-%d %H:%M:%S') UTC," \
	"$(nproc) CPUs, $(uname -sr)"
echo "commands, run in a temporary directory:"
for c in build_ft build_ompi run_ft run_ompi; do
	declare -n cc=$c
	echo "  \$ ${cc[*]}"
done
echo
for c in build_ft build_ompi; do
	declare -n cc=$c
	"${cc[@]}" >build.log 2>&1 || { cat build.log >&2; die 111 "build failed: ${cc[*]}"; }
done
failed=0
timeout -k 5 600 "${run_ft[@]}" </dev/null >ft.out || failed=1
timeout -k 5 600 "${run_ompi[@]}" </dev/null >ompi.out || failed=1
((failed == 0)) || echo "$prog: warning: a run failed; its rows are missing" >&2

# Lines: "pack   NAME  BYTES bytes  GB/s min X  median Y  max Z".
printf '%-6s %-36s %10s %10s %10s %10s %8s\n' op case "ft min" "ft med" \
	"ompi min" "ompi med" "ft/ompi"
awk 'function key(  k, i) {
		# The case name may hold spaces: it ends before "N bytes".
		k = $1
		for (i = 2; i <= NF - 9; i++)
			k = k " " $i
		return k
	}
	FNR == NR { min[key()] = $(NF - 4); med[key()] = $(NF - 2); next }
	key() in med {
		k = key()
		r = $(NF - 2) > 0 ? med[k] / $(NF - 2) : 0
		split(k, w, " ")
		printf "%-6s %-36s %10.2f %10.2f %10.2f %10.2f %7.2fx\n",
		    w[1], substr(k, length(w[1]) + 2), min[k], med[k],
		    $(NF - 4), $(NF - 2), r
	}' ft.out ompi.out
echo "(GB/s of packed data; GB = 10^9 bytes; ratio of medians)"
exit "$failed"
