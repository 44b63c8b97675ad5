# SPDX-License-Identifier: ISC
# ftrun's exit status: the job's (as mpirun's), 124 on --timeout, the
# MPI_Abort code, 1 for a rank that left without MPI_Finalize, 100 for
# bad arguments, 126 and 127 when the program cannot run.

load common
bats_require_minimum_version 1.5.0

@test "ftrun exits 0 when every rank exits 0" {
	run -0 --separate-stderr ftrun -n 3 true
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "ftrun exits with the status of the rank that failed, and says so" {
	run -3 --separate-stderr ftrun -n 3 sh -c \
	    '[ "$FT_RANK" = 1 ] && exit 3; exit 0'
	[[ $stderr =~ ^ftrun:\ warning:\ rank\ 1\ \(pid\ [0-9]+\)\ exited\ with\ status\ 3,\ detected\ by\ waitpid\ on\ this\ host\;\ aborting\ the\ job$ ]]
}

@test "ftrun exits 128+N for a rank killed by signal N and ends the others" {
	# Ranks 0 and 2 would sleep forever: only the abort can end them.
	run -137 --separate-stderr ftrun -n 3 sh -c \
	    '[ "$FT_RANK" = 1 ] && kill -KILL $$; exec sleep 1000'
	[ -z "$output" ]
	[[ $stderr =~ ^ftrun:\ warning:\ rank\ 1\ \(pid\ [0-9]+\)\ was\ killed\ by\ signal\ 9\ \(Killed\),\ detected\ by\ waitpid\ on\ this\ host\;\ aborting\ the\ job$ ]]
}

@test "ftrun names the signal that killed a rank" {
	run -139 --separate-stderr ftrun -n 2 sh -c \
	    '[ "$FT_RANK" = 0 ] && kill -SEGV $$; exec sleep 1000'
	[[ $stderr =~ ^ftrun:\ warning:\ rank\ 0\ \(pid\ [0-9]+\)\ was\ killed\ by\ signal\ 11\ \(Segmentation\ fault\),\ detected\ by\ waitpid\ on\ this\ host\;\ aborting\ the\ job$ ]]
}

@test "ftrun --timeout exits 124 and names the ranks still running" {
	run -124 --separate-stderr ftrun -n 2 --timeout 1 sleep 1000
	[ -z "$output" ]
	[[ $stderr == "ftrun: warning: the job timed out after 1s; ranks still running: 0 1" ]]
}

@test "ftrun --timeout names only the ranks still running" {
	# Rank 1 is gone long before the timeout; 0 and 2 never end.
	run -124 --separate-stderr ftrun -n 3 --timeout 3 sh -c \
	    '[ "$FT_RANK" = 1 ] && exit 0; exec sleep 1000'
	[[ $stderr == *"timed out"*"; ranks still running: 0 2" ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "ftrun --timeout takes a duration with a unit" {
	run -124 --separate-stderr ftrun --timeout 500ms sleep 1000
	[[ $stderr == *"timed out after 0.5s; ranks still running: 0" ]]
}

@test "ftrun ends the job with the code given to MPI_Abort" {
	ft_build abort
	run -7 --separate-stderr ftrun -n 3 "$FT_PROGS/abort" 7
	[ "$output" = "rank 2 aborting with 7" ]
	[[ $stderr =~ ^ftrun:\ warning:\ rank\ 2\ \(pid\ [0-9]+\)\ called\ MPI_Abort\ with\ code\ 7 ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "ftrun: MPI_Abort from rank 0 of 1" {
	ft_build abort
	run -42 --separate-stderr ftrun -n 1 "$FT_PROGS/abort" 42 0
	[ "$output" = "rank 0 aborting with 42" ]
	[[ $stderr == *"rank 0 (pid "*") called MPI_Abort with code 42"* ]]
}

@test "ftrun aborts the job when a rank exits 0 without MPI_Finalize" {
	ft_build nofinalize
	run -1 --separate-stderr ftrun -n 3 "$FT_PROGS/nofinalize" 1
	[ "$output" = "rank 1 leaving without MPI_Finalize" ]
	[[ $stderr =~ ^ftrun:\ warning:\ rank\ 1\ \(pid\ [0-9]+\)\ exited\ without\ calling\ MPI_Finalize\;\ aborting\ the\ job$ ]]
}

@test "ftrun exits 0 when every rank has exited 0, whatever they left behind" {
	# The rank leaves a child that holds its stdout.  The job is over
	# when its ranks are; timeout only bounds the test.
	run -0 --separate-stderr timeout -s KILL 20 ftrun -n 1 --timeout 3 \
	    --grace 1 sh -c \
	    'sleep 6 & echo $! >"$1/holder.pid"; echo started' sh \
	    "$BATS_TEST_TMPDIR"
	[ "$output" = "started" ]
	[ -z "$stderr" ]
}

@test "ftrun -n 0 exits 100" {
	run -100 --separate-stderr ftrun -n 0 true
	[ -z "$output" ]
	[ "$stderr" = "ftrun: fatal: -n '0' is too small" ]
}

@test "ftrun -n abc exits 100" {
	run -100 --separate-stderr ftrun -n abc true
	[ "$stderr" = "ftrun: fatal: -n 'abc' is invalid" ]
}

@test "ftrun with an unknown option exits 100 with the usage" {
	run -100 --separate-stderr ftrun --bogus true
	[ -z "$output" ]
	[[ $stderr == *"'--bogus'"*"usage: ftrun "* ]]
}

@test "ftrun's messages about options start with 'ftrun: fatal:', not its path" {
	run -100 --separate-stderr "$FT_ROOT/bin/ftrun" --bogus true
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "ftrun: fatal: unrecognized option '--bogus'" ]
	[[ ${stderr_lines[1]} == "usage: ftrun "* ]]
	run -100 --separate-stderr "$FT_ROOT/bin/ftrun" -n
	[ "${stderr_lines[0]}" = "ftrun: fatal: option requires an argument -- 'n'" ]
	run -100 --separate-stderr "$FT_ROOT/bin/ftrun" --tcp=1 true
	[ "${stderr_lines[0]}" = "ftrun: fatal: option '--tcp' doesn't allow an argument" ]
}

@test "ftrun without a program exits 100 with the usage" {
	run -100 --separate-stderr ftrun -n 2
	[ -z "$output" ]
	[[ $stderr == "usage: ftrun "*"PROGRAM"* ]]
}

@test "ftrun's usage lists every option" {
	run -100 --separate-stderr ftrun
	for opt in "-n N" --tag-output "--timeout SECONDS" "-x VAR[=VALUE]" \
	    "--events FILE" "--ft PROTOCOL" --tcp "--grace" "PROGRAM"; do
		echo "looking for '$opt'"
		[[ $stderr == *"$opt"* ]]
	done
}

@test "ftrun --timeout xyz exits 100" {
	run -100 --separate-stderr ftrun --timeout xyz true
	[ "$stderr" = "ftrun: fatal: --timeout 'xyz' is not a positive duration" ]
}

@test "ftrun --timeout takes a decimal duration: no hexadecimal, exponent, sign, blank, inf or nan" {
	local d
	for d in 0x10 0X10 1e3 1E1s inf nan infinity +5 -5 " 5" "5 " 5s5 .5 5.; do
		run -100 --separate-stderr ftrun --timeout "$d" true
		[ -z "$output" ]
		[ "$stderr" = "ftrun: fatal: --timeout '$d' is not a positive duration" ]
	done
}

@test "ftrun --timeout too long says so and gives the longest" {
	run -100 --separate-stderr ftrun --timeout 600000000h true
	[ "$stderr" = "ftrun: fatal: --timeout '600000000h' is too long: the longest is 2562047h, about 292 years" ]
	# One more hour than the longest, and the longest itself.
	run -100 --separate-stderr ftrun --timeout 2562048h true
	[[ $stderr == *"is too long: the longest is 2562047h"* ]]
	run -0 --separate-stderr ftrun --timeout 2562047h true
	[ -z "$stderr" ]
}

@test "ftrun --grace refuses a fraction of a nanosecond, and durations as --timeout does" {
	run -100 --separate-stderr ftrun --grace 0.5ns true
	[ "$stderr" = "ftrun: fatal: --grace '0.5ns' is finer than a nanosecond" ]
	run -100 --separate-stderr ftrun --grace 0x10 true
	[ "$stderr" = "ftrun: fatal: --grace '0x10' is not a duration" ]
	run -100 --separate-stderr ftrun --gossip-period 1e3ms true
	[ "$stderr" = "ftrun: fatal: --gossip-period '1e3ms' is not a positive duration" ]
	run -0 --separate-stderr ftrun --grace 0 --gossip-period 0.1s true
	[ -z "$stderr" ]
}

@test "ftrun --grace xyz exits 100" {
	run -100 --separate-stderr ftrun --grace xyz true
	[[ $stderr == "ftrun: fatal: --grace 'xyz'"* ]]
}

@test "ftrun -x with an undefined variable exits 100" {
	unset FT_TEST_UNDEFINED
	run -100 --separate-stderr ftrun -x FT_TEST_UNDEFINED true
	[[ $stderr == "ftrun: fatal: -x 'FT_TEST_UNDEFINED': "* ]]
}

@test "ftrun --ft with an unknown protocol exits 100 and lists the valid ones" {
	run -100 --separate-stderr ftrun --ft nosuch true
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "ftrun: fatal: unknown protocol 'nosuch' (valid: "*"none"*")" ]]
}

@test "ftrun --ft none is accepted" {
	run -0 --separate-stderr ftrun --ft none -n 2 sh -c 'echo "$FT_PROTO"'
	[ "$output" = "$(printf 'none\nnone')" ]
	[ -z "$stderr" ]
}

@test "ftrun --events with a file it cannot create exits 100" {
	run -100 --separate-stderr ftrun --events "$BATS_TEST_TMPDIR/no/such/dir" true
	[[ $stderr == "ftrun: fatal: unable to open '"*"no/such/dir'"* ]]
}

@test "ftrun exits 127 when the program does not exist" {
	run -127 --separate-stderr ftrun -n 2 nosuch
	[ -z "$output" ]
	[[ $stderr == "ftrun: "*"unable to run 'nosuch': No such file or directory" ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "ftrun's 'unable to run' ends the job: it is an error, not a warning" {
	run -127 --separate-stderr ftrun -n 2 nosuch
	[ "$stderr" = "ftrun: error: unable to run 'nosuch': No such file or directory" ]
	printf '\177ELF garbage' >"$BATS_TEST_TMPDIR/garbage"
	chmod 755 "$BATS_TEST_TMPDIR/garbage"
	run -126 --separate-stderr ftrun -n 2 "$BATS_TEST_TMPDIR/garbage"
	[ "$stderr" = "ftrun: error: unable to run '$BATS_TEST_TMPDIR/garbage': Exec format error" ]
}

@test "ftrun exits 127 when the program path does not exist" {
	run -127 --separate-stderr ftrun "$BATS_TEST_TMPDIR/nosuch"
	[[ $stderr == "ftrun: "*"unable to run '$BATS_TEST_TMPDIR/nosuch': No such file or directory" ]]
}

@test "ftrun exits 126 when the program is not executable" {
	printf '#!/bin/sh\necho hi\n' >"$BATS_TEST_TMPDIR/noexec"
	chmod 644 "$BATS_TEST_TMPDIR/noexec"
	run -126 --separate-stderr ftrun -n 2 "$BATS_TEST_TMPDIR/noexec"
	[ -z "$output" ]
	[[ $stderr == "ftrun: "*"unable to run '$BATS_TEST_TMPDIR/noexec': Permission denied" ]]
}

@test "ftrun exits 126 when the program is a directory" {
	run -126 --separate-stderr ftrun "$BATS_TEST_TMPDIR"
	[[ $stderr == "ftrun: "*"unable to run '$BATS_TEST_TMPDIR'"* ]]
}

@test "ftrun says that a directory given as the program is a directory" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	run -126 --separate-stderr ftrun -n 2 "$BATS_TEST_TMPDIR/dir"
	[ -z "$output" ]
	[ "$stderr" = "ftrun: error: unable to run '$BATS_TEST_TMPDIR/dir': Is a directory" ]
}

@test "ftrun exits 126 for a loop of symbolic links, and says so" {
	ln -s loop2 "$BATS_TEST_TMPDIR/loop1"
	ln -s loop1 "$BATS_TEST_TMPDIR/loop2"
	run -126 --separate-stderr ftrun -n 2 "$BATS_TEST_TMPDIR/loop1"
	[ -z "$output" ]
	[ "$stderr" = "ftrun: error: unable to run '$BATS_TEST_TMPDIR/loop1': Too many levels of symbolic links" ]
}

@test "ftrun exits 126 for a path through a file that is not a directory" {
	: >"$BATS_TEST_TMPDIR/file"
	run -126 --separate-stderr ftrun "$BATS_TEST_TMPDIR/file/prog"
	[ "$stderr" = "ftrun: error: unable to run '$BATS_TEST_TMPDIR/file/prog': Not a directory" ]
}

@test "ftrun exits 126 when the program cannot be executed" {
	# Executable, but not a format the kernel can run.
	printf '\177ELF garbage' >"$BATS_TEST_TMPDIR/garbage"
	chmod 755 "$BATS_TEST_TMPDIR/garbage"
	run -126 --separate-stderr ftrun -n 2 "$BATS_TEST_TMPDIR/garbage"
	[[ $stderr == *"unable to run '$BATS_TEST_TMPDIR/garbage': Exec format error"* ]]
}

# A rank that never joins leaves the others waiting in MPI_Init for good;
# ftrun ends the job instead, whichever comes first.
@test "ftrun aborts when a rank exits 0 without MPI_Init while others joined" {
	ft_build hello
	run -1 --separate-stderr ftrun -n 3 --timeout 60 sh -c \
	    '[ "$FT_RANK" = 1 ] && exit 0; exec "$0"' "$FT_PROGS/hello"
	[[ $stderr == *"rank 1 (pid "*") exited without calling MPI_Init, and the ranks that did wait for it; aborting the job"* ]]
	[[ $stderr != *"timed out"* ]]
}

@test "ftrun aborts when ranks join after one exited without MPI_Init" {
	ft_build hello
	# Ranks 0 and 1 join only once ftrun has recorded the exit of rank
	# 2 (it flushes each event as it happens), however slow rank 2 is.
	run -1 --separate-stderr ftrun -n 3 --timeout 60 \
	    --events "$BATS_TEST_TMPDIR/ev" sh -c '
	    [ "$FT_RANK" = 2 ] && exit 0
	    until grep -q "\"event\":\"exit\",\"rank\":2," "$1"; do
		    sleep 0.05
	    done
	    exec "$0"' "$FT_PROGS/hello" "$BATS_TEST_TMPDIR/ev"
	[[ $stderr == *"rank 2 (pid "*") exited without calling MPI_Init"* ]]
	[[ $stderr != *"timed out"* ]]
}

@test "ftrun starts nothing when the hard limit on open files is too low, and says what to raise" {
	# 40 processes need 3 descriptors each in ftrun: over 120.
	run -111 --separate-stderr bash -c 'ulimit -n 64 && exec "$@"' sh \
	    ftrun -n 40 --events "$BATS_TEST_TMPDIR/ev" \
	    sh -c 'touch "$0/started.$FT_RANK"' "$BATS_TEST_TMPDIR"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr =~ ^ftrun:\ fatal:\ a\ job\ of\ 40\ processes\ needs\ up\ to\ ([0-9]+)\ open\ files\ in\ ftrun\ and\ ([0-9]+)\ in\ each\ rank,\ more\ than\ the\ hard\ limit\ of\ 64:\ raise\ RLIMIT_NOFILE\ \(ulimit\ -Hn\)\ to\ ([0-9]+)\ or\ more$ ]]
	[ "${BASH_REMATCH[1]}" -gt 120 ]
	[ "${BASH_REMATCH[2]}" -gt 78 ]
	[ "${BASH_REMATCH[3]}" = "${BASH_REMATCH[1]}" ]
	# No rank, no job directory, no events file.
	[ -z "$(find "$BATS_TEST_TMPDIR" -name 'started.*' -o -name 'ft.*')" ]
	[ ! -e "$BATS_TEST_TMPDIR/ev" ]
}
