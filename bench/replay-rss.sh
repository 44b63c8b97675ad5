#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# The memory ftreplay run takes (ft-record(5)): record a job in which
# rank 0 sends rank 1 -m MiB in messages of -s KiB (bench/bigrecv.c),
# then replay rank 1 again and again, reporting the peak resident size
# (GNU time's %M: the largest of ftreplay and the program it runs) and
# the wall time, min and median over the runs.  OLDBIN, when set, is the
# bin/ of another build (its ftcc and ftreplay), replayed beside, turn by
# turn, from the same record.
# Also Open MPI's peak for the same job's rank 1 run live, as a yardstick.
#
# usage: bench/replay-rss.sh [-r runs] [-m MiB] [-s KiB]
# Exit status: 0, 1 if a run failed, 100 for a usage error, 111 if the
# build failed.

set -euo pipefail

runs=3
mib=1024
kib=4096
while getopts r:m:s: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	m) mib=$OPTARG ;;
	s) kib=$OPTARG ;;
	*) echo "usage: bench/replay-rss.sh [-r runs] [-m MiB] [-s KiB]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/replay-rss.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/big" bench/bigrecv.c || exit 111
cp "$out/big" "$out/big-new"
# The replay runs in the program's library: each build its own program.
if [ -n "${OLDBIN:-}" ]; then
	"$OLDBIN/ftcc" -O2 -o "$out/big-old" bench/bigrecv.c || exit 111
fi
"$bin/ftrun" -n 2 --record "$out/rec" "$out/big" -m "$mib" -s "$kib" \
    >"$out/live" || exit 1
echo "recorded: $(cat "$out/live"); rank 1's record" \
    "$(du -m "$out/rec/rank-1.ftr" | cut -f1) MiB on disk"
failed=0

stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		printf "%s\t%s\n", v[1], v[int((NR + 1) / 2)] }'
}

configs="new"
[ -n "${OLDBIN:-}" ] && configs="new old"
for ((i = 0; i < runs; i++)); do
	for c in $configs; do
		b=$bin
		[ "$c" = old ] && b=$OLDBIN
		if /usr/bin/time -o "$out/t" -f "%M %e" "$b/ftreplay" run \
		    --rank 1 "$out/rec" -- "$out/big-$c" -m "$mib" -s "$kib" \
		    >"$out/got" && cmp -s "$out/got" "$out/live"; then
			read -r rss wall <"$out/t"
			echo "$rss" >>"$out/$c.rss"
			echo "$wall" >>"$out/$c.wall"
		else
			echo "run $i ($c) failed" >&2
			failed=1
		fi
	done
done
if command -v mpicc.openmpi >/dev/null; then
	mpicc.openmpi -O2 -o "$out/big-ompi" bench/bigrecv.c || exit 111
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -o "$out/t" -f "%M %e" mpirun.openmpi \
		    --allow-run-as-root --oversubscribe -n 2 "$out/big-ompi" \
		    -m "$mib" -s "$kib" >/dev/null || failed=1
		read -r rss wall <"$out/t"
		echo "$rss" >>"$out/ompi.rss"
	done
fi
printf "%-28s %12s %12s %9s %9s\n" "" "rss min KiB" "rss med KiB" \
    "s min" "s med"
for c in $configs; do
	[ -s "$out/$c.rss" ] || continue
	read -r rmin rmed < <(stats <"$out/$c.rss")
	read -r wmin wmed < <(stats <"$out/$c.wall")
	printf "%-28s %12s %12s %9s %9s\n" "ftreplay run --rank 1 ($c)" \
	    "$rmin" "$rmed" "$wmin" "$wmed"
done
if [ -s "$out/ompi.rss" ]; then
	read -r rmin rmed < <(stats <"$out/ompi.rss")
	printf "%-28s %12s %12s\n" "mpirun.openmpi -n 2 (live)" "$rmin" "$rmed"
fi
exit $failed
