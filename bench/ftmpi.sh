#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# FT-MPI's figures (ft-ftmpi(3)): MPI_Comm_dup with no failure under
# --ft ftmpi (an agreement), --ft none, and Open MPI's mpirun, from the
# same source; the recovery of MPI_COMM_WORLD after a death, from the
# victim's last act to the survivors' MPI_Comm_dup returning, under
# SHRINK and under REBUILD (a new process started, initialised and
# joined); and ping-pong under --ft ftmpi beside --ft none.  Every
# figure is the minimum and the median over whole runs.  Benchmarks
# measure; nothing here asserts a timing.
#
# usage: bench/ftmpi.sh [-r runs] [-n "4 16"]
# FTBIN is the directory holding ftcc and ftrun (default: $PWD/bin).
# Exit status: 0, 1 if a run failed, 100 for a usage error, 111 if the
# build failed.

set -euo pipefail

runs=5
sizes="4 16"
while getopts r:n: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	n) sizes=$OPTARG ;;
	*) echo "usage: bench/ftmpi.sh [-r runs] [-n \"4 16\"]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/ftmpi" bench/ftmpi.c || exit 111
"$bin/ftcc" -O2 -o "$out/pp" bench/pingpong.c || exit 111
ompi=
if command -v mpicc.openmpi >/dev/null &&
    mpicc.openmpi -O2 -o "$out/ftmpi.ompi" bench/ftmpi.c 2>/dev/null; then
	ompi=1
fi
failed=0

# min and median of the numbers on stdin
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-\t-"; exit }
		printf "%.1f\t%.1f\n", v[1], v[int((NR + 1) / 2)] }'
}

# run NAME COMMAND...: append rank 0's figures to $out/res.NAME
run() {
	local name=$1
	shift
	if ! timeout 300 "$@" >>"$out/res.$name" 2>"$out/err"; then
		echo "ftmpi.sh: $name failed: $*" >&2
		tail -3 "$out/err" >&2
		failed=1
	fi
}

printf 'ranks\tfigure\tmin_us\tmedian_us\n'
for n in $sizes; do
	for f in none ftmpi shrink rebuild ompi; do : >"$out/res.$f"; done
	# Taking turns, so that load from elsewhere falls on all of them.
	for r in $(seq "$runs"); do
		run none "$bin/ftrun" -n "$n" "$out/ftmpi"
		run ftmpi "$bin/ftrun" -n "$n" --ft ftmpi "$out/ftmpi"
		run shrink "$bin/ftrun" -n "$n" --ft ftmpi --comm-mode shrink \
		    "$out/ftmpi" kill
		run rebuild "$bin/ftrun" -n "$n" --ft ftmpi \
		    --comm-mode rebuild "$out/ftmpi" kill
		[ -n "$ompi" ] && run ompi mpirun.openmpi -n "$n" \
		    --allow-run-as-root --oversubscribe "$out/ftmpi.ompi"
	done
	for f in none ftmpi ompi; do
		[ "$f" = ompi ] && [ -z "$ompi" ] && continue
		printf '%s\tdup (%s)\t%s\n' "$n" "$f" \
		    "$(awk '$1 == "dup" { print $2 }' "$out/res.$f" | stats)"
	done
	for f in shrink rebuild; do
		printf '%s\trecover (%s)\t%s\n' "$n" "$f" \
		    "$(awk '$1 == "recover" { print $2 }' "$out/res.$f" | stats)"
	done
done

printf '\nping-pong, 8 bytes, half round trip\nprotocol\tmin_us\tmedian_us\n'
: >"$out/pp.none"
: >"$out/pp.ftmpi"
for r in $(seq "$((runs * 2))"); do
	for p in none ftmpi; do
		timeout 120 "$bin/ftrun" -n 2 --ft "$p" "$out/pp" \
		    >"$out/pp.out" 2>/dev/null || failed=1
		awk '$1 == "lat" && $2 == 8 { print $3 }' "$out/pp.out" \
		    >>"$out/pp.$p"
	done
done
for p in none ftmpi; do
	printf '%s\t%s\n' "$p" "$(stats <"$out/pp.$p")"
done
exit "$failed"
