#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The daemons under valgrind memcheck, each through a short real session
# on loopback: ftlog serve (4 ranks append, one fetches), ftckpt serve
# (put, ls, get, verify and prune through it, the client under memcheck
# too), and ftboot start --foreground (a job of 2 ranks through its host
# agent, status, stop).  A daemon is stopped with SIGTERM and must exit
# 0 with no memcheck report, leaks included (a report makes it exit 99).
# Prints TAP; skips, saying so, when valgrind is missing.
set -u
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH" FT_ALLOW_ROOT=1
out=build/valgrind-daemons
rm -rf "$out"
mkdir -p "$out"
VG=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite
    --error-exitcode=99)
n=0

say() {	# ok|not-ok description [log ...]
	local res=$1 what=$2 f
	shift 2
	n=$((n + 1))
	if [ "$res" = ok ]; then
		echo "ok $n - $what"
		return
	fi
	echo "not ok $n - $what"
	for f in "$@"; do
		[ -s "$f" ] && sed -n '1,40s/^/# /p' "$f"
	done
}

# Wait at most 60 s for FILE to be non-empty while PID runs.
await() {	# file pid
	local i
	for ((i = 0; i < 600; i++)); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$1" ]
}

# Start NAME (CMD ...) under memcheck in the background: $pid.
vg_start() {	# name cmd ...
	local name=$1
	shift
	"${VG[@]}" --log-file="$out/$name.vg" "$@" >"$out/$name.out" \
	    2>"$out/$name.err" </dev/null &
	pid=$!
}

# SIGTERM NAME's $pid; ok if its session went well ($bad empty), it
# exits 0 and memcheck said nothing.
vg_stop() {	# name pid what
	local rc=0
	kill -TERM "$2" 2>/dev/null
	wait "$2" || rc=$?
	if [ -z "$bad" ] && [ "$rc" -eq 0 ] &&
	    ! grep -q '^==[0-9]*==' "$out/$1.vg"; then
		say ok "$3"
	else
		echo "# $1 exited with status $rc${bad:+; $bad}" >"$out/$1.why"
		say not-ok "$3" "$out/$1.why" "$out/$1.vg" "$out/$1.err"
	fi
}

# A client command under memcheck: ok if it exits 0, no report.
vg_run() {	# name what cmd ...
	local name=$1 what=$2 rc=0
	shift 2
	"${VG[@]}" --log-file="$out/$name.vg" "$@" >"$out/$name.out" \
	    2>"$out/$name.err" </dev/null || rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q '^==[0-9]*==' "$out/$name.vg"; then
		say ok "$what"
	else
		echo "# exited with status $rc" >"$out/$name.why"
		say not-ok "$what" "$out/$name.why" "$out/$name.vg" \
		    "$out/$name.err"
	fi
}

if ! command -v valgrind >/dev/null; then
	for what in "ftlog serve" "ftckpt serve" "ftboot start --foreground"; do
		n=$((n + 1))
		echo "ok $n - $what under valgrind # SKIP valgrind is not installed"
	done
	echo "1..$n"
	exit 0
fi
key=$out/cluster.key
ftboot keygen --key-file "$key" >/dev/null

# ftlog serve: appends of 4 ranks over 2 connections, then a fetch.
vg_start ftlog ftlog serve --dir "$out/log" --key-file "$key"
lpid=$pid bad="it did not start"
if await "$out/ftlog.out" "$lpid"; then
	bad=
	addr=$(cat "$out/ftlog.out")
	fttest log load "$addr" --key-file "$key" --job 1 --ranks 4 \
	    --clients 2 --count 300 --batch 7 >"$out/load.out" 2>&1 &&
	    fttest log fetch "$addr" --key-file "$key" --job 1 --rank 2 \
	    >"$out/fetch.out" 2>&1 &&
	    [ "$(wc -l <"$out/fetch.out")" -eq 300 ] ||
	    bad="the load or the fetch failed (see $out/load.out)"
fi
vg_stop ftlog "$lpid" "ftlog serve under valgrind: appends, a fetch, SIGTERM"

# ftckpt serve: three images put, listed, fetched, verified, pruned.
for e in 1 2 3; do
	fttest ckpt make "$out/l" --job 5 --rank 0 --nranks 1 --epoch "$e" \
	    --size 200000 --seed "$e" >/dev/null
done
vg_start ftckpt ftckpt serve --dir "$out/srv" --key-file "$key"
cpid=$pid bad="it did not start"
if await "$out/ftckpt.out" "$cpid"; then
	bad=
	addr=$(cat "$out/ftckpt.out")
	c=(--server "$addr" --key-file "$key")
	vg_run put "ftckpt put --server under valgrind" \
	    ftckpt put "${c[@]}" "$out"/l/job-*/rank-0/*.ftc
	vg_run ls "ftckpt ls --server under valgrind" ftckpt ls "${c[@]}"
	vg_run get "ftckpt get --server under valgrind" \
	    ftckpt get "${c[@]}" --job 5 --rank 0 -o "$out/got.ftc"
	cmp -s "$out/got.ftc" \
	    "$out/l/job-0000000000000005/rank-0/00000000000000000003.ftc" ||
	    bad="the image fetched differs from the one put"
	vg_run verify "ftckpt verify --server under valgrind" \
	    ftckpt verify "${c[@]}"
	vg_run prune "ftckpt prune --server under valgrind" \
	    ftckpt prune "${c[@]}" --keep 1
fi
vg_stop ftckpt "$cpid" "ftckpt serve under valgrind: put, ls, get, verify, prune, SIGTERM"

# ftboot: a daemon in front, a job through its host agent (a child of
# the daemon, under memcheck with it), status, then SIGTERM.
vg_start ftboot ftboot start --foreground --listen tcp:127.0.0.1:0 \
    --key-file "$key" --state-dir "$out/boot" --name vg --slots 4 --jobs 2
bpid=$pid bad="it did not start"
if await "$out/boot/ftboot.addr" "$bpid"; then
	bad=
	host=$(sed 's/^tcp://' "$out/boot/ftboot.addr")
	ftrun -n 2 --timeout 120 --key-file "$key" --host "$host" \
	    sh -c 'echo "rank $FT_RANK"' >"$out/job.out" 2>"$out/job.err" &&
	    [ "$(sort "$out/job.out" | tr '\n' ' ')" = "rank 0 rank 1 " ] ||
	    bad="the job through the daemon failed (see $out/job.err)"
	ftboot status --state-dir "$out/boot" --key-file "$key" \
	    >"$out/status.out" 2>&1 || bad="ftboot status failed"
fi
vg_stop ftboot "$bpid" "ftboot start --foreground under valgrind: a job, status, SIGTERM"
echo "1..$n"
