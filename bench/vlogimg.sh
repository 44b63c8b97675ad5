#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# vlog's images and the GC of sender logs (issue 15, ft(7)), side by side
# in one run, the configurations taking turns run after run:
#
#  (a) streaming bandwidth of SIZE-byte messages between two ranks
#      (bench/vlogbw.c, ft_checkpoint() once an iteration): --ft none,
#      --ft vlog without images (the log only grows), --ft vlog
#      --ckpt-dir with an image every N iterations of each rank
#      (FT_CKPT_EVERY; the log memory is reused after the GC): "img",
#      payloads of 4 KiB and more in the rank's sender-log file,
#      images naming them; "img0", FT_CKPT_VLOG_LOGFILE=off, images
#      holding them (compressed) as before the sender-log file; with
#      each image run, the bytes written to the checkpoint directory
#      per iteration (images, and the sender-log file), Open
#      MPI (mpirun.openmpi) when installed; with each vlog run, rank 0's
#      peak sender-log bytes and the largest process's RSS (which does
#      not count the log's memory file: large messages are kept there);
#  (b) an 8-rank Jacobi (examples/jacobi.c, which protects its grid):
#      --ft none; --ft vlog fault-free without and with images
#      (--ckpt-interval I, each rank on its own timer); --ft vlog with
#      rank 3 killed every K seconds (--inject kill:rank=3,every=Ks)
#      without images (a restart replays from the start) and with them;
#      run time, and for each kill the time from its reaping to the new
#      process being back where it died (the "replayed" event), and the
#      peak sender log over the ranks (FT_VLOG_STATS) and the largest
#      RSS (GNU time) with and without images.
#
# Every figure is the minimum and the median over the runs.  Kills here
# are time-based: a benchmark measures, it asserts nothing.
#
# usage: bench/vlogimg.sh [-r runs] [-s size] [-n every] [-j steps]
#     [-g grid] [-i interval] [-k kill_every_s] [-B] [-J] [-R] [-I iters]
# (-B: no (a); -J: no (b); -R: random payloads in (a), incompressible)
# FTBIN is the directory holding ftcc and ftrun (default: bin/).
# Exit status: 0, 1 if a run failed, 100 for a usage error, 111 if a build
# failed.

set -euo pipefail

runs=3
size=1048576
every=10
steps=20000
grid=512
interval=1s
kevery=10
usage="usage: bench/vlogimg.sh [-r runs] [-s size] [-n every] [-j steps] [-g grid] [-i interval] [-k kill_every_s] [-B] [-J] [-R] [-I iters]"
nobw=0
nojac=0
fill=const
iters=200
while getopts r:s:n:j:g:i:k:BJRI: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	s) size=$OPTARG ;;
	n) every=$OPTARG ;;
	j) steps=$OPTARG ;;
	g) grid=$OPTARG ;;
	i) interval=$OPTARG ;;
	k) kevery=$OPTARG ;;
	B) nobw=1 ;;
	J) nojac=1 ;;
	R) fill=random ;;
	I) iters=$OPTARG ;;
	*) echo "$usage" >&2; exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/vlogimg-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$bin/ftcc" -O2 -o "$out/bw" bench/vlogbw.c || exit 111
"$bin/ftcc" -O2 -o "$out/jacobi" examples/jacobi.c -lm || exit 111
ompi=0
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi \
    >/dev/null; then
	mpicc.openmpi -O2 -DNO_FT -o "$out/bw.ompi" bench/vlogbw.c || exit 111
	ompi=1
fi
failed=0

# min and median of the numbers on stdin
# shellcheck source=bench/stats.bash
. bench/stats.bash

# max and median (bandwidth: the best run is the one least disturbed)
maxmed() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-\t-"; exit }
		printf "%.1f\t%.1f\n", v[NR], v[int((NR + 1) / 2)] }'
}

# bytes written to the checkpoint directory, over the ranks (vlog-ckpt
# lines of file $1), per iteration ($2 iterations), KiB
ckbytes() {
	awk -v it="$2" '/^vlog-ckpt/ { n += $6 + $10 } END { printf "%.1f\n",
	    n / it / 1024 }' "$1"
}

# the largest "sender log peak" of the vlog-stats lines in file $1, MiB
logpeak() {
	awk '/^vlog-stats/ { if ($7 > m) m = $7 } END { printf "%.1f\n",
	    m / 1048576 }' "$1"
}

# (a) bandwidth
configs=(none vlog img img0)
[ "$ompi" = 1 ] && configs+=(ompi)
[ "$nobw" = 1 ] && configs=()
for c in ${configs[@]+"${configs[@]}"}; do : >"$out/res.$c"; : >"$out/bwpeak.$c"; \
    : >"$out/bwrss.$c"; : >"$out/bwck.$c"; done
for r in $(seq "$runs"); do
	for c in ${configs[@]+"${configs[@]}"}; do
		rm -rf "$out/ck"
		case $c in
		none) cmd=("$bin/ftrun" -n 2 "$out/bw" "$size" "$iters" 8 "$fill") ;;
		vlog) cmd=("$bin/ftrun" -n 2 --ft vlog "$out/bw" "$size" "$iters" 8
		    "$fill") ;;
		img) cmd=(env FT_CKPT_EVERY="$every" "$bin/ftrun" -n 2 --ft vlog
		    --ckpt-dir "$out/ck" "$out/bw" "$size" "$iters" 8 "$fill") ;;
		img0) cmd=(env FT_CKPT_EVERY="$every" FT_CKPT_VLOG_LOGFILE=off
		    "$bin/ftrun" -n 2 --ft vlog --ckpt-dir "$out/ck" "$out/bw"
		    "$size" "$iters" 8 "$fill") ;;
		ompi) cmd=(mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "$out/bw.ompi"
		    "$size" "$iters" 8 "$fill") ;;
		esac
		if ! FT_VLOG_STATS=1 timeout 600 /usr/bin/time -f 'rss %M' \
		    "${cmd[@]}" >"$out/o" 2>"$out/e"; then
			echo "vlogimg.sh: bandwidth run $r, $c failed" >&2
			tail -3 "$out/e" >&2
			failed=1
			continue
		fi
		awk '/^bw/ { print $3 }' "$out/o" >>"$out/res.$c"
		logpeak "$out/e" >>"$out/bwpeak.$c"
		awk '/^rss/ { printf "%.1f\n", $2 / 1024 }' "$out/e" \
		    >>"$out/bwrss.$c"
		ckbytes "$out/e" "$iters" >>"$out/bwck.$c"
	done
done
printf '(a) streaming bandwidth, %s-byte messages, 2 ranks, %d runs;\n' \
    "$size" "$runs"
printf '    img: an image of each rank every %s iterations\n' "$every"
printf '    payloads: %s; ckpt_KiB_per_iter: written to the checkpoint directory\n' "$fill"
printf 'config\tmax_MBps\tmedian_MBps\tlog_peak_MiB(min,med)\tmax_rss_MiB(min,med)\tckpt_KiB_per_iter(min,med)\n'
for c in ${configs[@]+"${configs[@]}"}; do
	printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$(maxmed <"$out/res.$c")" \
	    "$(stats <"$out/bwpeak.$c" | tr '\t' ,)" \
	    "$(stats <"$out/bwrss.$c" | tr '\t' ,)" \
	    "$(stats <"$out/bwck.$c" | tr '\t' ,)"
done
[ "$nojac" = 1 ] && exit "$failed"

# (b) Jacobi, 8 ranks
jc=(none vlog img vkill ikill)
for c in "${jc[@]}"; do : >"$out/j.$c"; : >"$out/jpeak.$c"; \
    : >"$out/jrss.$c"; : >"$out/back.$c"; done
kill=(--inject "kill:rank=3,every=${kevery}s" --events "$out/ev")
for r in $(seq "$runs"); do
	for c in "${jc[@]}"; do
		rm -rf "$out/ck" "$out/ev"
		case $c in
		none) args=(--ft none) ;;
		vlog) args=(--ft vlog) ;;
		img) args=(--ft vlog --ckpt-dir "$out/ck" --ckpt-interval
		    "$interval") ;;
		vkill) args=(--ft vlog "${kill[@]}") ;;
		ikill) args=(--ft vlog --ckpt-dir "$out/ck" --ckpt-interval
		    "$interval" "${kill[@]}") ;;
		esac
		t0=$(date +%s.%N)
		if ! FT_VLOG_STATS=1 timeout 1800 /usr/bin/time -f 'rss %M' \
		    "$bin/ftrun" -n 8 "${args[@]}" "$out/jacobi" "$grid" \
		    "$steps" >"$out/j.out" 2>"$out/j.err"; then
			echo "vlogimg.sh: jacobi run $r, $c failed" >&2
			tail -5 "$out/j.err" >&2
			failed=1
			continue
		fi
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$out/j.$c"
		logpeak "$out/j.err" >>"$out/jpeak.$c"
		awk '/^rss/ { printf "%.1f\n", $2 / 1024 }' "$out/j.err" \
		    >>"$out/jrss.$c"
		[ -f "$out/ev" ] && sed -n \
		    's/.*"event":"replayed".*"ms":\([0-9.]*\).*/\1/p' \
		    "$out/ev" >>"$out/back.$c"
		[ "$c" = none ] && cp "$out/j.out" "$out/j.ref"
		if [ -f "$out/j.ref" ] && ! cmp -s "$out/j.ref" "$out/j.out"
		then
			echo "vlogimg.sh: jacobi run $r, $c: other output" >&2
			failed=1
		fi
	done
done
printf '\n(b) jacobi %sx%s, %s steps, 8 ranks, %d runs; images every %s,\n' \
    "$grid" "$grid" "$steps" "$runs" "$interval"
printf '    kills: one rank every %s s\n' "$kevery"
printf 'config\tmin_s\tmedian_s\tlog_peak_MiB(min,med)\tmax_rss_MiB(min,med)\tkills\tkill_to_back_ms(min,med)\n'
for c in "${jc[@]}"; do
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$(stats <"$out/j.$c")" \
	    "$(stats <"$out/jpeak.$c" | tr '\t' ,)" \
	    "$(stats <"$out/jrss.$c" | tr '\t' ,)" \
	    "$(wc -l <"$out/back.$c")" "$(stats <"$out/back.$c" | tr '\t' ,)"
done
exit "$failed"
