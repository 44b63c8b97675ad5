#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# --ft coord against the fault-free time, and the same with another
# build of ft (-b DIR, its bin/) for a before/after comparison: an
# 8-rank Jacobi (examples/jacobi.c) under --ft none, under --ft coord,
# and under --ft coord with rank 3 killed every K seconds, for each
# checkpoint interval of -i (a list: "1s auto" compares a fixed one
# with --ckpt-interval auto), every build and configuration taking
# turns run after run, so that load from elsewhere falls on all of
# them.  A run counts only when its output is byte-identical to the
# fault-free run's.  Each run's line gives the load average; the
# rollbacks' phases (from --events: the death to every rank started,
# then to every rank restored) are summed up per configuration.
# CPU seconds (user + system of ftrun and the ranks, from time(1)) are
# given beside the wall-clock seconds: on a shared machine they move
# far less.  Then the time the
# application is held per checkpoint (bench/ckptapp.c, 8 ranks x 4 MB,
# a server on loopback), the builds again in turns.  Figures are the
# minimum and the median over the runs, in seconds.
#
# Kills are time-based (--inject kill:...,every=Ks): a benchmark
# measures, it asserts nothing.
#
# usage: bench/coord.sh [-r runs] [-n grid] [-j steps] [-k K]
#            [-i "ckpt-interval ..."] [-H] [-b other-build-dir]
# -H leaves out the time held per checkpoint.
# FTBIN is the directory holding ftcc, ftrun, ftckpt and ftboot
# (default: bin/).  Exit status: 0, 1 if a run ended otherwise than
# expected, 100 for a usage error, 111 if a build failed.

set -uo pipefail

runs=3
grid=1024
steps=17000
k=10
interval=1s
other=
held=1
while getopts r:n:j:k:i:b:H ch; do
	case $ch in
	r) runs=$OPTARG ;;
	n) grid=$OPTARG ;;
	j) steps=$OPTARG ;;
	k) k=$OPTARG ;;
	i) interval=$OPTARG ;;
	b) other=$OPTARG ;;
	H) held=0 ;;
	*) echo "usage: bench/coord.sh [-r runs] [-n grid] [-j steps]" \
	       "[-k K] [-i \"interval ...\"] [-H] [-b other-build-dir]" >&2
	   exit 100 ;;
	esac
done
cd "$(dirname "$0")/.." || exit 100
out=$(mktemp -d "${TMPDIR:-/tmp}/coord-bench.XXXXXX")
srv=
trap 'kill "$srv" 2>/dev/null; rm -rf "$out"' EXIT
declare -A bins
bins[this]=${FTBIN:-$PWD/bin}
builds=this
if [ -n "$other" ]; then
	bins[other]=$other/bin
	builds="other this"
fi
for b in $builds; do
	"${bins[$b]}/ftcc" -O2 -o "$out/jacobi.$b" examples/jacobi.c -lm ||
	    exit 111
	"${bins[$b]}/ftcc" -O2 -o "$out/ckptapp.$b" bench/ckptapp.c -lm ||
	    exit 111
done
failed=0

stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		printf "%.2f / %.2f", v[1], v[int((NR + 1) / 2)] }'
}
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

"${bins[this]}/ftrun" -n 8 "$out/jacobi.this" "$grid" "$steps" \
    >"$out/ref" || exit 1
confs=none
for i in $interval; do
	confs="$confs coord@$i coordkill@$i"
done
for ((r = 1; r <= runs; r++)); do
	for c in $confs; do
		for b in $builds; do
			case $c in
			none) opts=(--ft none) ;;
			coord@*) opts=(--ft coord --ckpt-dir "$out/ck" \
			    --ckpt-interval "${c#*@}") ;;
			coordkill@*) opts=(--ft coord --ckpt-dir "$out/ck" \
			    --ckpt-interval "${c#*@}" \
			    --inject "kill:rank=3,every=${k}s") ;;
			esac
			rm -rf "$out/ck"
			t0=$(date +%s.%N)
			/usr/bin/time -f '%U %S' -o "$out/cpu" \
			    "${bins[$b]}/ftrun" -n 8 "${opts[@]}" --events "$out/ev" \
			    "$out/jacobi.$b" "$grid" "$steps" >"$out/o" \
			    2>"$out/e"
			rc=$?
			t1=$(date +%s.%N)
			t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
			nk=$(grep -c '"event":"inject"' "$out/ev" || true)
			if ((rc == 0)) && cmp -s "$out/ref" "$out/o"; then
				echo "$t" >>"$out/t.$b.$c"
				# CPU seconds of ftrun and the ranks it reaped
				awk 'END { print $1 + $2 }' "$out/cpu" >>"$out/c.$b.$c"
				echo "$nk" >>"$out/n.$b.$c"
				# ms from each death to all started, to all
				# restored, and the slowest image read
				sed -n 's/.*"event":"rollback",.*"ms":\([0-9.]*\).*/\1/p' \
				    "$out/ev" >>"$out/rb.$b.$c"
				sed -n 's/.*"event":"restored",.*"ms":\([0-9.]*\),.*/\1/p' \
				    "$out/ev" >>"$out/rs.$b.$c"
				sed -n 's/.*"event":"restored",.*"read_ms":\([0-9.]*\).*/\1/p' \
				    "$out/ev" >>"$out/rd.$b.$c"
				res=ok
			else
				res="exit $rc"
				failed=1
			fi
			printf 'run %d %-5s %-9s %7.2f s, cpu %s s, %d kills, %s, load %s\n' \
			    "$r" "$b" "$c" "$t" "$(awk 'END { print $1 + $2 }' \
			    "$out/cpu")" "$nk" "$res" \
			    "$(cut -d' ' -f1-3 /proc/loadavg)" >&2
		done
	done
done

printf '\n8-rank Jacobi %sx%s, %s steps, kill every %s s;\n' \
    "$grid" "$grid" "$steps" "$k"
printf 'seconds, min / median of %d runs (kills, median / none median)\n\n' \
    "$runs"
# The table of figure F (t: seconds, c: CPU seconds), with the kills
# per run when K is 1.
table() {
	local f=$1 kl=$2 ff km b i
	printf '| build | interval | none | coord | coord, kills | ratio |\n'
	printf '|---|---|---|---|---|---|\n'
	for b in $builds; do
		ff=$(median <"$out/$f.$b.none" 2>/dev/null)
		for i in $interval; do
			km=$(median <"$out/$f.$b.coordkill@$i" 2>/dev/null)
			printf '| %s | %s | %s | %s | %s%s | %s |\n' "$b" "$i" \
			    "$(stats <"$out/$f.$b.none" 2>/dev/null)" \
			    "$(stats <"$out/$f.$b.coord@$i" 2>/dev/null)" \
			    "$(stats <"$out/$f.$b.coordkill@$i" 2>/dev/null)" \
			    "$( ((kl)) && printf ' (%s)' "$(paste -sd, \
			    "$out/n.$b.coordkill@$i" 2>/dev/null)")" \
			    "$(awk -v a="$km" -v b="$ff" 'BEGIN { if (a && b)
				printf "%.2fx", a / b; else print "-" }')"
		done
	done
}
table t 1
printf '\nCPU seconds (user + system, ftrun and the ranks), min / median: what\n'
printf 'the job used, whatever else the machine runs\n\n'
table c 0
printf '\nrollbacks, ms (min / median over every kill): from the death to every\n'
printf 'rank started, to every rank restored; the slowest image read\n\n'
printf '| build | interval | started | restored | image read |\n|---|---|---|---|---|\n'
for b in $builds; do
	for i in $interval; do
		printf '| %s | %s | %s | %s | %s |\n' "$b" "$i" \
		    "$(stats <"$out/rb.$b.coordkill@$i" 2>/dev/null)" \
		    "$(stats <"$out/rs.$b.coordkill@$i" 2>/dev/null)" \
		    "$(stats <"$out/rd.$b.coordkill@$i" 2>/dev/null)"
	done
done

((held)) || exit "$failed"
mkdir -p "$out/srv"
"${bins[this]}/ftboot" keygen --key-file "$out/key" >/dev/null
"${bins[this]}/ftckpt" serve --dir "$out/srv" --key-file "$out/key" \
    >"$out/srv.addr" 2>/dev/null &
srv=$!
for _ in $(seq 50); do [ -s "$out/srv.addr" ] && break; sleep 0.1; done
addr=$(cat "$out/srv.addr")
for ((r = 1; r <= runs; r++)); do
	for b in $builds; do
		rm -rf "$out/hk"
		if ! "${bins[$b]}/ftrun" -n 8 --ft coord --ckpt-dir "$out/hk" \
		    --ckpt-interval 0 --ckpt-server "$addr" \
		    --key-file "$out/key" "$out/ckptapp.$b" 4 10 >"$out/h" \
		    2>"$out/he"; then
			failed=1
			continue
		fi
		sed -n 's/^held=\([^ ]*\) .*/\1/p' "$out/h" >>"$out/held.$b"
		sed -n 's/.* durable=\([^ ]*\) .*/\1/p' "$out/h" >>"$out/dur.$b"
	done
done
printf '\n--ft coord, time held in ft_checkpoint(), 8 ranks x 4 MB, 10 checkpoints a run, %d runs\n\n' "$runs"
printf '| build | held | to durability |\n|---|---|---|\n'
for b in $builds; do
	printf '| %s | %s | %s |\n' "$b" "$(stats <"$out/held.$b")" \
	    "$(stats <"$out/dur.$b")"
done
exit "$failed"
