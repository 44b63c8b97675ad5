# SPDX-License-Identifier: ISC
# ftrun --ft vlog: pessimistic sender-based message logging.  A dead rank
# is restarted alone and replays; the job's output is that of a run
# without failures, it exits 0, and leaves no process and no file
# behind.  Kills are tied to progress (--inject ...,after-sends=N): a
# process that restarts takes the next spec naming it.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build vlogmix
	ft_build vlogdet
	ft_build jacobi "$FT_ROOT/examples/jacobi.c"
	ft_build wildcard "$FT_ROOT/tests/mpi/wildcard.c"
	ft_build probe "$FT_ROOT/tests/mpi/probe.c"
	ft_build coll_allreduce "$FT_ROOT/tests/mpi/coll_allreduce.c"
	# The fault-free outputs the runs with failures must match.
	ftrun -n 4 "$FT_PROGS/vlogmix" 60 >"$FT_PROGS/vlogmix.ref"
	ftrun -n 4 "$FT_PROGS/jacobi" 64 300 >"$FT_PROGS/jacobi4.ref"
	ftrun -n 8 "$FT_PROGS/jacobi" 64 200 >"$FT_PROGS/jacobi8.ref"
}

# Does log directory $1 hold a segment with records?
has_records() {
	[ -n "$(find "$1" -name '*.ftl' -size +1k 2>/dev/null)" ]
}

# Does rank 3's segment hold a record (past the 48-byte header)?
rank3_has_records() {
	[ -n "$(find "$1" -path '*/rank-3/*.ftl' -size +100c 2>/dev/null)" ]
}

# Run ftrun with ARGS in a directory of its own (its TMPDIR), with
# stdout in $out and stderr in $err; then check that it exited 0, that
# no process of the program is left and no file in that directory.
vlog_run() {
	local prog=$1 tmp="$BATS_TEST_TMPDIR/job"
	shift
	mkdir -p "$tmp"
	out="$BATS_TEST_TMPDIR/out"
	err="$BATS_TEST_TMPDIR/err"
	if ! env TMPDIR="$tmp" ftrun --ft vlog "$@" >"$out" 2>"$err"; then
		cat "$err" >&2
		return 1
	fi
	run ls -A "$tmp"
	[ "$output" = "" ]
	run pgrep -f "$prog"
	[ "$status" -eq 1 ]
}

@test "vlog: without failures, the output is that of --ft none" {
	vlog_run "$FT_PROGS/vlogmix" -n 4 "$FT_PROGS/vlogmix" 60
	cmp "$FT_PROGS/vlogmix.ref" "$out"
	[ ! -s "$err" ]
}

# Rank R killed at three moments, each a job.  Two tests of two ranks:
# the twelve jobs in one test ran past its 90 s timeout at load 20 (four
# files at once on 2 cores).
one_killed() {	# rank ...
	local r n
	for r; do
		for n in 20 95 170; do
			vlog_run "$FT_PROGS/vlogmix" -n 4 \
			    --inject "kill:rank=$r,after-sends=$n" \
			    "$FT_PROGS/vlogmix" 60
			cmp "$FT_PROGS/vlogmix.ref" "$out"
			run cat "$err"
			[[ $output == *"rank $r (pid "*") was killed by signal 9 (Killed), detected by waitpid on this host; restarting it (--ft vlog)"* ]]
			[[ $output != *divergence* ]]
		done
	done
}

@test "vlog: one rank killed, for ranks 0 and 1 and three moments" {
	one_killed 0 1
}

@test "vlog: one rank killed, for ranks 2 and 3 and three moments" {
	one_killed 2 3
}

@test "vlog: two ranks dead at once (jacobi)" {
	vlog_run "$FT_PROGS/jacobi" -n 4 \
	    --inject kill:rank=1,after-sends=400 \
	    --inject kill:rank=2,after-sends=400 "$FT_PROGS/jacobi" 64 300
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	run grep -c "restarting it" "$err"
	[ "$output" = 2 ]
}

@test "vlog: a rank that dies again while it replays" {
	# The second incarnation dies after 40 sends: long before the first
	# one's 150, so in the middle of its replay.
	vlog_run "$FT_PROGS/vlogmix" -n 4 \
	    --inject kill:rank=2,after-sends=150 \
	    --inject kill:rank=2,after-sends=40 "$FT_PROGS/vlogmix" 60
	cmp "$FT_PROGS/vlogmix.ref" "$out"
	run grep -c "rank 2 (pid .*restarting it" "$err"
	[ "$output" = 2 ]
}

@test "vlog: the same rank killed three times" {
	vlog_run "$FT_PROGS/vlogmix" -n 4 \
	    --inject kill:rank=0,after-sends=30 \
	    --inject kill:rank=0,after-sends=90 \
	    --inject kill:rank=0,after-sends=160 "$FT_PROGS/vlogmix" 60
	cmp "$FT_PROGS/vlogmix.ref" "$out"
	run grep -c "rank 0 (pid .*restarting it" "$err"
	[ "$output" = 3 ]
}

@test "vlog: the death of a peer that must resend (its restart makes the messages again)" {
	# Rank 1 dies, then rank 0, whose log held rank 1's messages, dies
	# while rank 1 may still need them; both replay.
	vlog_run "$FT_PROGS/vlogmix" -n 4 \
	    --inject kill:rank=1,after-sends=100 \
	    --inject kill:rank=0,after-sends=200 "$FT_PROGS/vlogmix" 60
	cmp "$FT_PROGS/vlogmix.ref" "$out"
	run grep -c "restarting it" "$err"
	[ "$output" = 2 ]
}

@test "vlog: every rank killed once in turn (8-rank jacobi)" {
	local r args=()
	for r in 0 1 2 3 4 5 6 7; do
		args+=(--inject "kill:rank=$r,after-sends=$((100 + 60 * r))")
	done
	vlog_run "$FT_PROGS/jacobi" -n 8 --log-dir "$BATS_TEST_TMPDIR/log" \
	    "${args[@]}" "$FT_PROGS/jacobi" 64 200
	cmp "$FT_PROGS/jacobi8.ref" "$out"
	run grep -c "restarting it" "$err"
	[ "$output" = 8 ]
	# Every rank's clock after its restart goes on from its incarnation
	# << 48: no clock a peer logged of its first run is used again.
	run -0 --separate-stderr ftreplay --verify "$BATS_TEST_TMPDIR/log"
	[[ $output == *" result=ok" ]]
}

@test "vlog: tests/mpi wildcard, probe and coll_allreduce survive kills" {
	local p
	for p in wildcard probe coll_allreduce; do
		vlog_run "$FT_PROGS/$p" -n 4 \
		    --inject kill:rank=0,after-sends=5 \
		    --inject kill:rank=3,after-sends=4 "$FT_PROGS/$p"
		run cat "$out"
		[[ $output == *"No Errors"* ]]
		run grep -c "restarting it" "$err"
		[ "$output" = 2 ]
	done
}

@test "vlog: --log-dir keeps the log, and ftlog dump reads it (golden)" {
	local dir="$BATS_TEST_TMPDIR/log"
	vlog_run "$FT_PROGS/vlogdet" -n 3 --log-dir "$dir" "$FT_PROGS/vlogdet"
	[ "$(cat "$out")" = "vlogdet: token 10" ]
	run -0 ftlog dump "$dir"
	printf '%s\n' "$output" | sed -E 's/^job=[0-9a-f]{16} //' \
	    >"$BATS_TEST_TMPDIR/dump"
	diff -u "$FT_ROOT/tests/golden/vlogdet.dump" "$BATS_TEST_TMPDIR/dump"
}

@test "vlog: the log of a job with restarts holds for ftreplay --verify" {
	local dir="$BATS_TEST_TMPDIR/log"
	vlog_run "$FT_PROGS/vlogmix" -n 4 --log-dir "$dir" \
	    --inject kill:rank=2,after-sends=120 \
	    --inject kill:rank=2,after-sends=50 \
	    --inject kill:rank=0,after-sends=90 "$FT_PROGS/vlogmix" 60
	cmp "$FT_PROGS/vlogmix.ref" "$out"
	# sclock is the sender's clock at the send, as ft-log(5) has it.
	run -0 --separate-stderr ftreplay --verify "$dir"
	[[ $output == "job="*" ranks=4 determinants="*" result=ok" ]]
}

@test "vlog: --log-wait all (every send waits for every determinant) restarts too" {
	vlog_run "$FT_PROGS/vlogmix" -n 4 --log-wait all \
	    --inject kill:rank=1,after-sends=95 "$FT_PROGS/vlogmix" 60
	cmp "$FT_PROGS/vlogmix.ref" "$out"
	run grep -c "restarting it" "$err"
	[ "$output" = 1 ]
}

@test "vlog: a replay that diverges is reported" {
	# FT_VLOG_TEST_BREAK makes a restarted process ignore its log: it
	# decides again, and its receivers see other bytes.
	run env TMPDIR="$BATS_TEST_TMPDIR" ftrun --ft vlog -n 4 \
	    -x FT_VLOG_TEST_BREAK=1 --inject kill:rank=0,after-sends=150 \
	    "$FT_PROGS/vlogmix" 60
	[ "$status" -ne 0 ]
	[[ $output == *"divergence: rank 0 diverged in its replay: message "*" has other bytes than the first time"* ]]
	[[ $output == *INCONSISTENT* ]]
}

@test "vlog: the logger killed mid-job is restarted, and the job ends well" {
	local dir="$BATS_TEST_TMPDIR/log" gate="$BATS_TEST_TMPDIR/gate" lpid
	mkdir -p "$BATS_TEST_TMPDIR/job"
	ft_bg env TMPDIR="$BATS_TEST_TMPDIR/job" ftrun --ft vlog -n 4 \
	    --log-dir "$dir" --inject kill:rank=3,after-sends=150 \
	    "$FT_PROGS/vlogmix" 60 "$gate" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	# Rank 0 waits at the gate halfway: the log holds records by then.
	ft_poll 20 has_records "$dir"
	lpid=$(pgrep -f "ftlog serve --dir $dir")
	[ -n "$lpid" ]
	kill -KILL "$lpid"
	ft_poll 20 grep -q "the event logger was killed by signal 9" \
	    "$BATS_TEST_TMPDIR/err"
	touch "$gate"
	wait "$bgpid"
	cmp "$FT_PROGS/vlogmix.ref" "$BATS_TEST_TMPDIR/out"
	run cat "$BATS_TEST_TMPDIR/err"
	# A logger on the job's host listens on a Unix socket in its
	# directory, and comes back on the same one.
	[[ $output == *"restarting it on unix:$(realpath "$dir")/.logger-"*".sock"* ]]
	[[ $output == *"rank 3 (pid "*"restarting it (--ft vlog)"* ]]
	# The socket goes with the logger; the log stays.
	run compgen -G "$dir/.logger-*.sock"
	[ "$status" -ne 0 ]
	run pgrep -f "$FT_PROGS/vlogmix"
	[ "$status" -eq 1 ]
}

@test "vlog: a rank that hangs (stopped) is killed after the hang timeout and restarted; the job ends well" {
	local dir="$BATS_TEST_TMPDIR/log" gate="$BATS_TEST_TMPDIR/gate" ev
	local pid
	ev="$BATS_TEST_TMPDIR/ev"
	mkdir -p "$BATS_TEST_TMPDIR/job"
	# Killed, it is restarted before it is reaped: the job must not
	# wait for the old process (it did, until --timeout).
	ft_bg env TMPDIR="$BATS_TEST_TMPDIR/job" ftrun --ft vlog -n 4 \
	    --timeout 60 --hang-timeout 1s --log-dir "$dir" --events "$ev" \
	    "$FT_PROGS/vlogmix" 60 "$gate" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 20 rank3_has_records "$dir"
	pid=$(sed -nE 's/.*"event":"spawn","rank":3,.*"pid":([0-9]+).*/\1/p' "$ev")
	[ -n "$pid" ]
	kill -STOP "$pid"
	ft_poll 20 grep -q '"event":"rejoin","rank":3,' "$ev"
	touch "$gate"
	wait "$bgpid"
	cmp "$FT_PROGS/vlogmix.ref" "$BATS_TEST_TMPDIR/out"
	grep -q "rank 3 (pid $pid) sent no heartbeat for .*; killed with SIGKILL; restarting it (--ft vlog)" \
	    "$BATS_TEST_TMPDIR/err"
	run pgrep -f "$FT_PROGS/vlogmix"
	[ "$status" -eq 1 ]
}

@test "vlog: a restarted rank whose log is corrupt ends the job, saying why" {
	local dir="$BATS_TEST_TMPDIR/log" gate="$BATS_TEST_TMPDIR/gate" seg st=0
	mkdir -p "$BATS_TEST_TMPDIR/job"
	ft_bg env TMPDIR="$BATS_TEST_TMPDIR/job" ftrun --ft vlog -n 4 \
	    --log-dir "$dir" --inject kill:rank=3,after-sends=150 \
	    "$FT_PROGS/vlogmix" 60 "$gate" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	# Rank 0 waits at the gate halfway, and rank 3's death comes after
	# it: by then rank 3's log has records, once its batch is out.
	ft_poll 20 rank3_has_records "$dir"
	seg=$(find "$dir" -path '*/rank-3/*.ftl' | head -1)
	# A byte of the first record's payload (after the 48-byte header
	# and the record's length and CRC).
	printf '\377' | dd of="$seg" bs=1 seek=60 conv=notrunc 2>/dev/null
	touch "$gate"
	wait "$bgpid" || st=$?
	# The restarted rank ends the job with a permanent error.
	[ "$st" -eq 100 ]
	run cat "$BATS_TEST_TMPDIR/err"
	[[ $output == *"rank 3 cannot be restarted: the event logger cannot give its log back: "*"corrupt"* ]]
	run pgrep -f "$FT_PROGS/vlogmix"
	[ "$status" -eq 1 ]
}

@test "vlog: --log-server, --log-dir and --log-sync need --ft vlog" {
	run -100 --separate-stderr ftrun -n 1 --log-dir "$BATS_TEST_TMPDIR/x" true
	[[ $stderr == "ftrun: "*"are for --ft vlog"* ]]
	run -100 --separate-stderr ftrun -n 1 --ft vlog --log-sync often true
	[[ $stderr == "ftrun: "*"--log-sync 'often': always, batch or memory"* ]]
	run -100 --separate-stderr ftrun -n 1 --ft vlog --log-wait some true
	[[ $stderr == "ftrun: "*"--log-wait 'some': all or nondet"* ]]
	run -100 --separate-stderr ftrun -n 1 --log-wait all true
	[[ $stderr == "ftrun: "*"are for --ft vlog"* ]]
	run -100 --separate-stderr ftrun -n 1 --ft vlog --log-server 1.2.3.4 true
	[[ $stderr == "ftrun: "*"--log-server '1.2.3.4'"* ]]
}
