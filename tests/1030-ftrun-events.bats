# SPDX-License-Identifier: ISC
# ftrun --events FILE: one JSON object per line, {"t":..,"event":..},
# for every spawn, every exit (status or signal) and the abort of the
# job and its reason.  ft_events (common.bash) checks every line with
# python3's json module and prints a summary without times and pids.

load common
bats_require_minimum_version 1.5.0

# The events file FILE records N spawns.
nspawned() {	# file n
	[ "$(grep -c '"event":"spawn"' "$1" 2>/dev/null)" = "$2" ]
}

@test "ftrun --events records a spawn and an exit for every rank" {
	run -0 --separate-stderr ftrun -n 3 --events "$BATS_TEST_TMPDIR/ev" true
	[ -z "$stderr" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/ev")" -eq 6 ]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[ "$(sort <<<"$output" | tr '\n' ',')" = \
	    "exit rank=0 status=0,exit rank=1 status=0,exit rank=2 status=0,spawn rank=0,spawn rank=1,spawn rank=2," ]
	# Every rank is spawned before any exits.
	[ "$(head -n 3 <<<"$output" | tr '\n' ',')" = \
	    "spawn rank=0,spawn rank=1,spawn rank=2," ]
}

@test "ftrun --events records the pid each rank really had" {
	run -0 --separate-stderr ftrun -n 2 --tag-output \
	    --events "$BATS_TEST_TMPDIR/ev" sh -c 'echo $$'
	for r in 0 1; do
		pid=$(grep "^\[$r\] " <<<"$output")
		pid=${pid#"[$r] "}
		grep -q "\"event\":\"spawn\",\"rank\":$r,\"pid\":$pid}" \
		    "$BATS_TEST_TMPDIR/ev"
	done
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
}

@test "ftrun --events records a rank killed by a signal and the abort" {
	run -137 --separate-stderr ftrun -n 3 --events "$BATS_TEST_TMPDIR/ev" \
	    sh -c '[ "$FT_RANK" = 1 ] && kill -KILL $$; exec sleep 1000'
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"exit rank=1 signal=9"* ]]
	[[ $output == *"failed rank=1 by=ftrun how=waitpid detector=dbrr"* ]]
	[[ $output == *"view epoch=1 members=0,2"* ]]
	[[ $output == *"abort rank=1 reason=rank 1 was killed by signal 9 (Killed)"* ]]
	[[ $output == *"exit rank=0 signal=15"* ]]
	[[ $output == *"exit rank=2 signal=15"* ]]
	[ "$(grep -c '^abort' <<<"$output")" -eq 1 ]
}

@test "ftrun --events records a rank's exit status and the abort" {
	run -5 --separate-stderr ftrun -n 2 --events "$BATS_TEST_TMPDIR/ev" \
	    sh -c '[ "$FT_RANK" = 0 ] && exit 5; exec sleep 1000'
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"exit rank=0 status=5"* ]]
	[[ $output == *"failed rank=0 by=ftrun how=waitpid detector=dbrr"* ]]
	[[ $output == *"view epoch=1 members=1"* ]]
	[[ $output == *"abort rank=0 reason=rank 0 exited with status 5"* ]]
	[[ $output == *"exit rank=1 signal=15"* ]]
}

@test "ftrun --events records MPI_Abort with its code" {
	ft_build abort
	run -9 --separate-stderr ftrun -n 2 --events "$BATS_TEST_TMPDIR/ev" \
	    "$FT_PROGS/abort" 9 0
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"abort code=9 rank=0 reason=MPI_Abort"* ]]
	[[ $output == *"exit rank=0 status=9"* ]]
	[ "$(grep -c '^abort' <<<"$output")" -eq 1 ]
}

@test "ftrun --events records a rank that left without MPI_Finalize" {
	ft_build nofinalize
	run -1 --separate-stderr ftrun -n 2 --events "$BATS_TEST_TMPDIR/ev" \
	    "$FT_PROGS/nofinalize" 0
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"exit rank=0 status=0"* ]]
	[[ $output == *"abort rank=0 reason=rank 0 exited without calling MPI_Finalize"* ]]
}

@test "ftrun --events records a timeout" {
	run -124 --separate-stderr ftrun -n 2 --timeout 1 \
	    --events "$BATS_TEST_TMPDIR/ev" sleep 1000
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"abort reason=timeout running=0 1"* ]]
	[[ $output == *"exit rank=0 signal=15"* ]]
	[[ $output == *"exit rank=1 signal=15"* ]]
}

@test "ftrun --events records a forwarded signal" {
	ft_bg ftrun -n 2 --events "$BATS_TEST_TMPDIR/ev" sleep 1000 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 nspawned "$BATS_TEST_TMPDIR/ev" 2
	kill -INT "$bgpid"
	ft_poll 30 ft_gone "$bgpid"
	st=0
	wait "$bgpid" || st=$?
	[ "$st" -eq 130 ]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"abort reason=signal 2"* ]]
	[[ $output == *"exit rank=0 signal=2"* ]]
	[[ $output == *"exit rank=1 signal=2"* ]]
}

@test "ftrun --detector names the detector in failed events; bad values are refused" {
	run -137 --separate-stderr ftrun -n 4 --detector brr --gossip-period 20ms \
	    --events "$BATS_TEST_TMPDIR/ev" \
	    sh -c '[ "$FT_RANK" = 2 ] && kill -KILL $$; exec sleep 1000'
	[[ $stderr == *"rank 2 (pid "*") was killed by signal 9 (Killed), detected by waitpid on this host; aborting the job"* ]]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"failed rank=2 by=ftrun how=waitpid detector=brr"* ]]
	[[ $output == *"view epoch=1 members=0,1,3"* ]]
	# The failure is reported before the abort it causes.
	[ "$(grep -n '^failed' <<<"$output" | cut -d: -f1)" -lt \
	    "$(grep -n '^abort' <<<"$output" | cut -d: -f1)" ]
	run -100 --separate-stderr ftrun --detector swim true
	[[ $stderr == *"unknown detector 'swim' (valid: random, rr, brr, dbrr)"* ]]
	run -100 --separate-stderr ftrun --gossip-period 0 true
	[[ $stderr == *"--gossip-period '0' is not a positive duration"* ]]
}

@test "ftrun --events: a write error is reported once, the job goes on, and ftrun exits 111" {
	[ -w /dev/full ] || skip "no /dev/full"
	# Every event is lost: ENOSPC on each flush.
	run -111 --separate-stderr ftrun -n 3 --events /dev/full sh -c \
	    'echo "rank $FT_RANK ran"'
	[ "$(sort <<<"$output")" = "$(printf 'rank %d ran\n' 0 1 2)" ]
	[ "$stderr" = "ftrun: error: events file '/dev/full': No space left on device" ]
}

@test "ftrun --events: a write error keeps the status of a job that failed" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -3 --separate-stderr ftrun -n 2 --events /dev/full sh -c \
	    '[ "$FT_RANK" = 1 ] && exit 3; exit 0'
	[ "${stderr_lines[0]}" = "ftrun: error: events file '/dev/full': No space left on device" ]
	[[ ${stderr_lines[1]} == "ftrun: warning: rank 1 (pid "*") exited with status 3, "* ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "ftrun --events -: a write error on standard output is reported and ftrun exits 111" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -111 --separate-stderr bash -c 'exec "$@" >/dev/full' sh \
	    ftrun -n 2 --events - true
	[ "${stderr_lines[0]}" = "ftrun: error: unable to write the events to standard output: No space left on device" ]
}
