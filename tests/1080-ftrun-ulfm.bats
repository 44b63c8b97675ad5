# SPDX-License-Identifier: ISC
# ftrun --ft ulfm: a death is the application's news, not the end of the
# job, and the status is decided by the processes that did not fail.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build ulfmdie
}

@test "ulfm: the job goes on after a kill, names it, and exits 0" {
	run -0 --separate-stderr ftrun -n 4 --ft ulfm \
	    --events "$BATS_TEST_TMPDIR/ev" "$FT_PROGS/ulfmdie" kill 3
	[ "$output" = "survivors 3" ]
	[[ $stderr =~ rank\ 3\ \(pid\ [0-9]+\)\ was\ killed\ by\ signal\ 9\ \(Killed\),\ detected\ by\ waitpid\ on\ this\ host\;\ the\ job\ goes\ on ]]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"failed rank=3 by=ftrun how=waitpid"* ]]
	[[ $output != *"abort"* ]]
}

@test "ulfm: a line printed before a kill is not lost (stdout line-buffered)" {
	run -0 --separate-stderr ftrun -n 4 --ft ulfm "$FT_PROGS/ulfmdie" \
	    say 2,3
	[[ $output == *"rank 2 dies"* ]]
	[[ $output == *"rank 3 dies"* ]]
	[[ $output == *"survivors 2"* ]]
}

@test "ulfm: --with-ft is --ft, and several deaths at once" {
	run -0 --separate-stderr ftrun -n 5 --with-ft ulfm \
	    "$FT_PROGS/ulfmdie" kill 1,3,4
	[ "$output" = "survivors 2" ]
}

@test "ulfm: exiting without MPI_Finalize is a failure, and the job goes on" {
	run -0 --separate-stderr ftrun -n 3 --ft ulfm "$FT_PROGS/ulfmdie" \
	    exit 1
	[ "$output" = "survivors 2" ]
	[[ $stderr == *"rank 1 (pid "*") exited without calling MPI_Finalize, detected by waitpid on this host; the job goes on"* ]]
}

@test "ulfm: a non-zero exit after MPI_Finalize is no failure, but the status" {
	run -3 --separate-stderr ftrun -n 3 --ft ulfm "$FT_PROGS/ulfmdie" \
	    fail 2
	[ "$output" = "survivors 3" ]
	[[ $stderr != *"goes on"* ]]
}

@test "ulfm: when every process dies, the first rank's death is the status" {
	run -137 --separate-stderr ftrun -n 3 --ft ulfm "$FT_PROGS/ulfmdie" \
	    kill all
	[ "$output" = "" ]
}

@test "ulfm: without --ft ulfm the same death ends the job" {
	run --separate-stderr ftrun -n 3 "$FT_PROGS/ulfmdie" kill 2
	# The death, or a survivor's failed MPIX_ call, ends it first.
	[ "$status" -ne 0 ]
	[[ $stderr == *"aborting the job"* ]]
	[[ $stderr != *"goes on"* ]]
	[ "$output" = "" ]
}

@test "ulfm: --initial-errhandler refuses an unknown handler" {
	run -100 --separate-stderr ftrun -n 1 --initial-errhandler bogus true
	[[ $stderr == "ftrun: "*"unknown error handler 'bogus'"* ]]
}

@test "ulfm: --initial-errhandler mpi_errors_return makes a death an error, not the end" {
	# ulfmdie sets MPI_ERRORS_RETURN itself; a program that does not is
	# tests/mpi/ulfm_errh.c.  Here the name must get to the ranks.
	run -0 --separate-stderr ftrun -n 2 --ft ulfm \
	    --initial-errhandler MPI_ERRORS_RETURN "$FT_PROGS/ulfmdie" kill 1
	[ "$output" = "survivors 1" ]
}
