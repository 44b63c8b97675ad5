#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Soak test of fail-stop enforcement (not part of `make check`): run
# replicated jobs back to back for a while under random kills and random
# stops (SIGSTOP, which only the hang detection can end), and count
#   wrong   outputs that differ from a run without faults,
#   hung    jobs that did not end by themselves (killed by timeout(1)),
#   false   hang detections of processes that no --inject stopped,
#   failed  jobs that exited non-zero (a rank lost every replica).
# It also reports the longest silence of a live process that any job
# saw (the "heartbeats" event): the margin below --hang-timeout.
#
# usage: bench/soak.sh [-n N] [-r R] [-d SECONDS] [-k KILL_EVERY]
#                      [-s STOP_EVERY] [-t HANG_TIMEOUT] [-l HOGS]
#   defaults: -n 64 -r 2 -d 600 -k 2s -s 3s -t 10s -l 0
# -l HOGS starts that many busy loops beside the jobs, to load the host.
# FTBIN is the directory holding ftcc and ftrun (default: $PWD/bin).
# Exit status: 0 when no output was wrong, no job hung and no detection
# was false; 1 otherwise; 100 usage; 111 setup.

set -euo pipefail

prog=soak.sh
n=64 r=2 secs=600 kill_every=2s stop_every=3s hang=10s hogs=0
while getopts "n:r:d:k:s:t:l:" o; do
	case $o in
	n) n=$OPTARG ;;
	r) r=$OPTARG ;;
	d) secs=$OPTARG ;;
	k) kill_every=$OPTARG ;;
	s) stop_every=$OPTARG ;;
	t) hang=$OPTARG ;;
	l) hogs=$OPTARG ;;
	*) echo "usage: bench/soak.sh [-n N] [-r R] [-d SECONDS] [-k D] [-s D] [-t D] [-l HOGS]" >&2
	   exit 100 ;;
	esac
done
FTBIN=${FTBIN:-$PWD/bin}
work=$(mktemp -d)
hogpids=()
cleanup() {
	[ ${#hogpids[@]} -eq 0 ] || kill "${hogpids[@]}" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

"$FTBIN/ftcc" -O2 -o "$work/jacobi" examples/jacobi.c ||
	{ echo "$prog: fatal: unable to build examples/jacobi.c" >&2; exit 111; }
# About 20 s a job at -n 64 -r 2 on 2 cores: room for several faults.
steps=$((128000 / n))
"$FTBIN/ftrun" -n "$n" "$work/jacobi" 128 "$steps" >"$work/ref" ||
	{ echo "$prog: fatal: the run without faults failed" >&2; exit 111; }

for ((i = 0; i < hogs; i++)); do
	(while :; do :; done) &
	hogpids+=($!)
done

jobs=0 wrong=0 hung=0 false_det=0 failed=0 kills=0 stops=0 hangs=0
maxgap=0
end=$((SECONDS + secs))
while [ $SECONDS -lt $end ]; do
	jobs=$((jobs + 1))
	ev="$work/ev.$jobs"
	st=0
	timeout 600 "$FTBIN/ftrun" -n "$n" -r "$r" --hang-timeout "$hang" \
	    --events "$ev" \
	    --inject "kill:random,every=$kill_every,seed=$jobs" \
	    --inject "kill:random,every=$stop_every,seed=$((jobs + 7919)),signal=19" \
	    "$work/jacobi" 128 "$steps" >"$work/out" 2>"$work/err" || st=$?
	# timeout(1) says 124 when it had to end the job; ftrun's own
	# statuses here are 0 or a lost rank's.
	if [ $st -eq 124 ]; then
		hung=$((hung + 1))
	elif [ $st -ne 0 ]; then
		failed=$((failed + 1))
	elif ! cmp -s "$work/out" "$work/ref"; then
		wrong=$((wrong + 1))
	fi
	# Stopped processes, by pid, and the hangs detected.
	read -r k s h f g < <(python3 - "$ev" <<'EOF'
import json, sys
stopped, kills, hangs, false, gap = set(), 0, 0, 0, 0.0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "inject" and "spec" in e:
        if e.get("signal") == 19:
            stopped.add(e["pid"])
        else:
            kills += 1
    elif e["event"] == "hang":
        hangs += 1
        if e["pid"] not in stopped:
            false += 1
    elif e["event"] == "heartbeats":
        gap = e["max_gap_ms"]
print(kills, len(stopped), hangs, false, gap)
EOF
)
	kills=$((kills + k)) stops=$((stops + s)) hangs=$((hangs + h))
	false_det=$((false_det + f))
	maxgap=$(python3 -c "print(max($maxgap, $g))")
	if [ "$f" -ne 0 ]; then
		cp "$ev" "${TMPDIR:-/tmp}/soak-false-$jobs.json"
		echo "$prog: false detection in job $jobs: ${TMPDIR:-/tmp}/soak-false-$jobs.json" >&2
	fi
	rm -f "$ev"
done
echo "soak: -n $n -r $r --hang-timeout $hang, ${secs}s, $hogs hogs:" \
    "$jobs jobs, $kills kills, $stops stops, $hangs hangs detected"
echo "soak: wrong outputs $wrong, hung jobs $hung, false detections $false_det," \
    "failed jobs $failed, longest silence of a live process ${maxgap}ms"
[ $wrong -eq 0 ] && [ $hung -eq 0 ] && [ $false_det -eq 0 ]
