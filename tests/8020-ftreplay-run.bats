# SPDX-License-Identifier: ISC
# ftrun --record DIR and ftreplay run --rank R DIR -- PROGRAM (issue 16,
# ft-record(5)): a rank re-executed alone prints what it printed in the
# recorded job, under two protocols and with replicas; a program changed
# since is reported at its first differing send; records cut, corrupt,
# foreign or missing are refused saying why; what cannot be replayed is
# refused.  replaycalc's output depends on ANY_SOURCE, Iprobe, Waitany,
# an Allreduce and MPI_Wtime.  Rank 0's standard input is recorded and
# fed back (echoin sums it), a record of it cut short said to be.

load common

setup_file() {
	ft_build replaycalc
	ft_build spawner
	ft_build ulfmdie
	ft_build echoin
}

# Record a 3-rank job of ROUNDS rounds into rec with ftrun OPTIONS.
record() {
	local rounds=$1
	shift
	run -0 --separate-stderr ftrun -n 3 "$@" --record rec \
	    "$FT_PROGS/replaycalc" "$rounds"
	printf '%s\n' "$output" >job.out
}

# Replay rank R (ARGS to replaycalc) and compare with the job's line.
same_as_job() {
	local r=$1
	shift
	run -0 --separate-stderr ftreplay run --rank "$r" rec -- \
	    "$FT_PROGS/replaycalc" "$@"
	[[ $output == "rank $r: acc="* ]]
	[ "$output" = "$(grep "^rank $r:" job.out)" ]
	[ -z "$stderr" ]
}

@test "ftreplay run: ranks 0 and 2 of a job recorded with --ft none" {
	cd "$BATS_TEST_TMPDIR"
	record 15
	[ -f rec/rank-0.ftr ] && [ -f rec/rank-1.ftr ] && [ -f rec/rank-2.ftr ]
	same_as_job 0 15
	same_as_job 2 15
}

@test "ftreplay run: ranks 0 and 1 of a job recorded with --ft vlog" {
	cd "$BATS_TEST_TMPDIR"
	record 15 --ft vlog
	same_as_job 0 15
	same_as_job 1 15
}

@test "ftrun --record --ft vlog: a rank killed and restarted records again, and replays" {
	cd "$BATS_TEST_TMPDIR"
	record 10 --ft vlog --inject kill:rank=1,after-sends=25
	[[ $stderr == *"rank 1 "*"restarting it"* ]]
	same_as_job 1 10
	same_as_job 2 10
}

@test "ftrun --record with -r 2: one record a rank, and it replays" {
	cd "$BATS_TEST_TMPDIR"
	record 10 -r 2
	[ "$(ls rec)" = "$(printf 'rank-0.ftr\nrank-1.ftr\nrank-2.ftr\nstdin.zst')" ]
	same_as_job 1 10
}

@test "ftrun --record keeps rank 0's standard input; ftreplay run --rank 0 feeds it back" {
	cd "$BATS_TEST_TMPDIR"
	seq 1 5000 >in.txt
	run -0 --separate-stderr ftrun -n 2 --record rec "$FT_PROGS/echoin" \
	    <in.txt
	[ "$output" = "lines 5000 sum 12502500" ]
	[ -s rec/stdin.zst ]
	if command -v zstd >/dev/null; then
		zstd -dcq rec/stdin.zst | cmp - in.txt
	else
		echo "# zstd(1) missing: the file's stream is not checked" >&3
	fi
	# Our own standard input is not what it reads: the record's is.
	run -0 --separate-stderr ftreplay run --rank 0 rec -- \
	    "$FT_PROGS/echoin" </dev/null
	[ "$output" = "lines 5000 sum 12502500" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr ftreplay run --rank 1 rec -- \
	    "$FT_PROGS/echoin" <in.txt
	[ -z "$output" ] && [ -z "$stderr" ]
	run -0 --separate-stderr ftreplay run --rank 0 --print-command rec \
	    -- "$FT_PROGS/echoin"
	[ "$output" = "zstd -dc $PWD/rec/stdin.zst | FT_REPLAY=$PWD/rec FT_REPLAY_RANK=0 $FT_PROGS/echoin" ]
	# Cut short: what came before is fed, and said; rank 0 then reads
	# fewer lines than it did, and diverges.
	truncate -s $(($(stat -c %s rec/stdin.zst) / 2)) rec/stdin.zst
	run -1 --separate-stderr ftreplay run --rank 0 rec -- \
	    "$FT_PROGS/echoin" </dev/null
	[[ $stderr == *"rec/stdin.zst': rank 0's standard input is cut short after "*" bytes (ftrun stopped while recording it)"* ]]
	[[ $stderr == *"ftreplay: rank 0 diverged at send "* ]]
}

@test "ftreplay run: a changed program diverges at its first differing send" {
	cd "$BATS_TEST_TMPDIR"
	record 10
	# In round 4 each rank but 0 sends rank 0 one more: rank 2's send
	# number 4 * 6 = 24 (six sends a round: to rank 0, the ring's three,
	# the Allreduce's, the large one), 8 bytes, tag 4, numbered from 0.
	run -1 --separate-stderr ftreplay run --rank 2 rec -- \
	    "$FT_PROGS/replaycalc" 10 4
	[ -z "$output" ]
	[ "$stderr" = "ftreplay: rank 2 diverged at send 24 (to rank 0, tag 4, 8 bytes): the payload, first in bytes 0-7 differs" ]
	# Rank 0 sends nothing that changed: it replays cleanly.
	same_as_job 0 10 4
}

@test "ftreplay run: a program that stops early, or goes on, diverges" {
	cd "$BATS_TEST_TMPDIR"
	record 6
	run -1 --separate-stderr ftreplay run --rank 1 rec -- \
	    "$FT_PROGS/replaycalc" 5
	[[ $stderr == "ftreplay: rank 1 diverged: it finished with "*" of "*" messages received"* ]]
	run -1 --separate-stderr ftreplay run --rank 1 rec -- \
	    "$FT_PROGS/replaycalc" 7
	[[ $stderr == "ftreplay: rank 1 diverged at send 42 "*"the recorded process sent only 42 messages" ]]
}

@test "ftreplay run: corrupt, foreign and missing records are refused" {
	cd "$BATS_TEST_TMPDIR"
	record 3
	printf '\377' | dd of=rec/rank-1.ftr bs=1 seek=200 conv=notrunc \
	    status=none
	run -100 --separate-stderr ftreplay run --rank 1 rec -- \
	    "$FT_PROGS/replaycalc" 3
	[[ $stderr == "ftreplay: fatal: record 'rec/rank-1.ftr': corrupt record (bad checksum) at offset "* ]]
	echo "not a record" >rec/rank-2.ftr
	run -100 --separate-stderr ftreplay run --rank 2 rec -- \
	    "$FT_PROGS/replaycalc" 3
	[[ $stderr == *"rank-2.ftr': not a record of ftrun --record (bad magic) at offset 0" ]]
	run -100 --separate-stderr ftreplay run --rank 3 rec -- \
	    "$FT_PROGS/replaycalc" 3
	[[ $stderr == "ftreplay: fatal: unable to open 'rec/rank-3.ftr': No such file or directory" ]]
	# Nothing ran: no output.
	[ -z "$output" ]
}

@test "ftreplay run: a record cut short replays up to its end and says so" {
	cd "$BATS_TEST_TMPDIR"
	record 8
	size=$(stat -c %s rec/rank-1.ftr)
	truncate -s $((size / 2)) rec/rank-1.ftr
	run -1 --separate-stderr ftreplay run --rank 1 rec -- \
	    "$FT_PROGS/replaycalc" 8
	[[ $stderr == *"cut "*" bytes of a torn tail"* ]]
	[[ $stderr == *"ftreplay: rank 1: the end of the record (the recorded process stopped here without finishing)"* ]]
}

@test "ftreplay run --print-command gives the command to run, and it replays" {
	cd "$BATS_TEST_TMPDIR"
	record 5
	run -0 --separate-stderr ftreplay run --rank 2 --print-command rec \
	    -- "$FT_PROGS/replaycalc" 5
	[ "$output" = "FT_REPLAY=$PWD/rec FT_REPLAY_RANK=2 $FT_PROGS/replaycalc 5" ]
	run -0 env FT_REPLAY="$PWD/rec" FT_REPLAY_RANK=2 \
	    "$FT_PROGS/replaycalc" 5
	[ "$output" = "$(grep '^rank 2:' job.out)" ]
}

@test "ftreplay run --gdb stops where the replay diverges" {
	command -v gdb >/dev/null || skip "gdb is not installed"
	cd "$BATS_TEST_TMPDIR"
	record 5
	run --separate-stderr ftreplay run --rank 1 --gdb rec -- \
	    "$FT_PROGS/replaycalc" 5 2 <<-'EOF'
		run
		bt
		kill
		quit
	EOF
	[[ $output == *"SIGTRAP"* ]]
	[[ $output == *" in main "*"replaycalc.c"* ]]
	[[ $stderr == *"ftreplay: rank 1 diverged at send 14 (to rank 0, tag 2, 8 bytes)"* ]]
}

@test "ftreplay run: MPI_Comm_spawn cannot be replayed, and says so" {
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr ftrun -n 1 --record rec "$FT_PROGS/spawner" 1
	[[ $stderr == *"a spawned world is not recorded"* ]]
	[ "$(ls rec)" = "$(printf 'rank-0.ftr\nstdin.zst')" ]
	run -100 --separate-stderr ftreplay run rec -- "$FT_PROGS/spawner" 1
	[[ $stderr == *"MPI_Comm_spawn_multiple cannot be replayed"* ]]
}

@test "ftreplay run: a program that is not an MPI program of ft is told" {
	cd "$BATS_TEST_TMPDIR"
	record 2
	run -1 --separate-stderr ftreplay run rec -- true
	[ "$stderr" = "ftreplay: warning: 'true' never started a replay in MPI_Init (is it a program built with ftcc, and does it call MPI_Init?)" ]
}

@test "ftreplay run: a ULFM rank told of a failure is refused, the dead one dies again" {
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr ftrun -n 3 --ft ulfm --record rec \
	    "$FT_PROGS/ulfmdie" kill 2
	run -100 --separate-stderr ftreplay run --rank 0 rec -- \
	    "$FT_PROGS/ulfmdie" kill 2
	[ "$stderr" = "ftreplay: fatal: record 'rec/rank-0.ftr': rank 0 was told of process failures (--ft ulfm), which cannot be replayed" ]
	# The victim replays up to where it killed itself, and does again.
	run -137 --separate-stderr ftreplay run --rank 2 rec -- \
	    "$FT_PROGS/ulfmdie" kill 2
	[[ $stderr != *diverged* ]]
}

@test "ftreplay run: usage errors" {
	run -100 --separate-stderr ftreplay run rec "$FT_PROGS/replaycalc"
	[[ $stderr == *"usage: ftreplay"* ]]
	run -100 --separate-stderr ftreplay run --gdb --print-command rec -- true
	[[ $stderr == *"usage: ftreplay"* ]]
}
