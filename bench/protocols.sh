#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# The fault-tolerance protocols side by side (ft(7)), as the MPICH-V
# project compared them: an 8-rank Jacobi (examples/jacobi.c, which
# protects its grid and calls ft_checkpoint() every step) run under
# --ft none, -r 2 (replicate), --ft vlog and --ft coord, fault-free and
# with one rank killed every K seconds for each K of -k.  The runs take
# turns (configuration after configuration, run after run), so that
# load from elsewhere falls on all of them.  A run counts only when its
# output is byte-identical to the fault-free run's; otherwise the table
# says how it ended.  Then the time the application is held per
# checkpoint under --ft coord (bench/ckptapp.c, 8 ranks, a server on
# loopback), against --ft none.
#
# CPU seconds (user + system of ftrun and the ranks, from time(1)) are
# given in a second table: on a shared machine they move far less.
#
# Kills here are time-based (--inject kill:...,every=Ks): a benchmark
# measures, it asserts nothing.  Every figure is the minimum and the
# median over the runs, in seconds.
#
# usage: bench/protocols.sh [-r runs] [-n grid] [-j steps] [-k "K ..."]
#            [-i ckpt-interval] [-p "none replicate vlog coord"]
# FTBIN is the directory holding ftcc, ftrun and ftckpt (default: bin/).
# Exit status: 0, 1 if a run ended otherwise than expected, 100 for a
# usage error, 111 if the build failed.

set -uo pipefail

runs=3
grid=1024
steps=12000
kills="20 10"
interval=2s
protos="none replicate vlog coord"
while getopts r:n:j:k:i:p: ch; do
	case $ch in
	r) runs=$OPTARG ;;
	n) grid=$OPTARG ;;
	j) steps=$OPTARG ;;
	k) kills=$OPTARG ;;
	i) interval=$OPTARG ;;
	p) protos=$OPTARG ;;
	*) echo "usage: bench/protocols.sh [-r runs] [-n grid] [-j steps]" \
	       "[-k \"K ...\"] [-i interval] [-p protocols]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.."
bin=${FTBIN:-$PWD/bin}
out=$(mktemp -d "${TMPDIR:-/tmp}/protocols-bench.XXXXXX")
trap 'kill "$srv" 2>/dev/null; rm -rf "$out"' EXIT
srv=
"$bin/ftcc" -O2 -o "$out/jacobi" examples/jacobi.c -lm || exit 111
"$bin/ftcc" -O2 -o "$out/ckptapp" bench/ckptapp.c -lm || exit 111
failed=0

# min and median of the numbers on stdin
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		printf "%.2f / %.2f\n", v[1], v[int((NR + 1) / 2)] }'
}

# The ftrun options of a protocol.
popts() {
	case $1 in
	none) echo "--ft none" ;;
	replicate) echo "-r 2" ;;
	vlog) echo "--ft vlog" ;;
	coord) echo "--ft coord --ckpt-dir $out/ck --ckpt-interval $interval" ;;
	esac
}

# The kill spec of a protocol every K seconds.
kspec() {
	case $1 in
	replicate) echo "kill:random,seed=7,every=$2s" ;;
	*) echo "kill:rank=3,every=$2s" ;;
	esac
}

echo "reference: ftrun -n 8 --ft none jacobi $grid $steps" >&2
"$bin/ftrun" -n 8 "$out/jacobi" "$grid" "$steps" >"$out/ref" || exit 1

for ((r = 1; r <= runs; r++)); do
	for p in $protos; do
		for k in 0 $kills; do
			inj=()
			((k > 0)) && inj=(--inject "$(kspec "$p" "$k")")
			rm -rf "$out/ck"
			t0=$(date +%s.%N)
			# shellcheck disable=SC2046
			/usr/bin/time -f '%U %S' -o "$out/cpu" \
			    "$bin/ftrun" -n 8 $(popts "$p") "${inj[@]}" \
			    --events "$out/ev" "$out/jacobi" "$grid" "$steps" \
			    >"$out/o" 2>"$out/e"
			rc=$?
			t1=$(date +%s.%N)
			t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
			nk=$(grep -c '"event":"inject"' "$out/ev" || true)
			if ((rc == 0)) && cmp -s "$out/ref" "$out/o"; then
				echo "$t" >>"$out/t.$p.$k"
				# CPU seconds of ftrun and the ranks it reaped
				awk 'END { print $1 + $2 }' "$out/cpu" >>"$out/c.$p.$k"
				echo "$nk" >>"$out/n.$p.$k"
				res=ok
			else
				echo "exit $rc" >>"$out/f.$p.$k"
				res="exit $rc"
				# none is expected to end with the first kill
				[[ $p == none && $k != 0 ]] || failed=1
			fi
			printf 'run %d %-9s kill every %3ss: %7.2f s, cpu %s s, %d kills, %s, load %s\n' \
			    "$r" "$p" "$k" "$t" "$(awk 'END { print $1 + $2 }' \
			    "$out/cpu")" "$nk" "$res" \
			    "$(cut -d' ' -f1 /proc/loadavg)" >&2
		done
	done
done

printf '\n8-rank Jacobi %sx%s, %s steps; seconds, min / median of %d runs\n' \
    "$grid" "$grid" "$steps" "$runs"
printf '(coord checkpoints every %s; kills: one rank every K s)\n\n' "$interval"
# The table of figure F: t, seconds; c, CPU seconds.
table() {
	local f=$1 p k s ff med nk
	printf '| protocol | fault-free |'
	for k in $kills; do printf ' kill every %ss |' "$k"; done
	printf '\n|---|---|'
	for k in $kills; do printf -- '---|'; done
	printf '\n'
	for p in $protos; do
		printf '| %s |' "$p"
		for k in 0 $kills; do
			if [ -s "$out/$f.$p.$k" ]; then
				s=$(stats <"$out/$f.$p.$k")
				ff=$(sort -g "$out/$f.$p.0" 2>/dev/null | awk '{ v[NR] = $1 }
				    END { if (NR) print v[int((NR + 1) / 2)] }')
				med=$(sort -g "$out/$f.$p.$k" | awk '{ v[NR] = $1 }
				    END { print v[int((NR + 1) / 2)] }')
				nk=$(sort -g "$out/n.$p.$k" | awk '{ v[NR] = $1 }
				    END { print v[int((NR + 1) / 2)] }')
				if ((k > 0)) && [ -n "$ff" ]; then
					printf ' %s (%s kills, %.2fx) |' "$s" "$nk" \
					    "$(awk -v a="$med" -v b="$ff" 'BEGIN { print a / b }')"
				else
					printf ' %s |' "$s"
				fi
			else
				printf ' fails (%s) |' "$(sort -u "$out/f.$p.$k" | paste -sd,)"
			fi
		done
		printf '\n'
	done
}
table t
printf '\nCPU seconds (user + system, ftrun and the ranks), min / median: what\n'
printf 'the job used, whatever else the machine runs\n\n'
table c

# The time held per checkpoint: coord (markers, then the local write)
# against none (an allreduce, then the local write); server on loopback.
mkdir -p "$out/srv"
"$bin/ftboot" keygen --key-file "$out/key" >/dev/null
"$bin/ftckpt" serve --dir "$out/srv" --key-file "$out/key" \
    >"$out/srv.addr" 2>/dev/null &
srv=$!
for _ in $(seq 50); do [ -s "$out/srv.addr" ] && break; sleep 0.1; done
addr=$(cat "$out/srv.addr")
printf '\ntime held in ft_checkpoint(), 8 ranks x 4 MB, 10 checkpoints a run, %d runs (s, min / median)\n\n' "$runs"
printf '| protocol | held | to durability |\n|---|---|---|\n'
for p in none coord; do
	: >"$out/held.$p"
	: >"$out/dur.$p"
	for ((r = 1; r <= runs; r++)); do
		rm -rf "$out/hk"
		if ! "$bin/ftrun" -n 8 --ft "$p" --ckpt-dir "$out/hk" \
		    --ckpt-interval 0 --ckpt-server "$addr" \
		    --key-file "$out/key" "$out/ckptapp" 4 10 >"$out/h" \
		    2>"$out/he"; then
			failed=1
			continue
		fi
		sed -n 's/^held=\([^ ]*\) .*/\1/p' "$out/h" >>"$out/held.$p"
		sed -n 's/.* durable=\([^ ]*\) .*/\1/p' "$out/h" >>"$out/dur.$p"
	done
	printf '| %s | %s | %s |\n' "$p" "$(stats <"$out/held.$p")" \
	    "$(stats <"$out/dur.$p")"
done
exit "$failed"
