# SPDX-License-Identifier: ISC
# How a job ends when a rank dies: the death, not the errors it causes in
# the survivors, decides the status and is named; and nothing a rank
# started outlives the job.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build stopper
}

@test "death: a killed rank, not a survivor's error, gives the status and is named" {
	# Rank 0 ends the job with a fatal MPI error.  Rank 1 runs under a
	# wrapper that dies of SIGKILL when ftrun sends it SIGTERM: as for a
	# rank killed by someone else, its death reaches ftrun after the
	# error, every time.  The death is the cause the job reports.
	run --separate-stderr ftrun -n 3 --events "$BATS_TEST_TMPDIR/ev" \
	    sh -c '
		[ "$FT_RANK" = 1 ] || exec "$@"
		trap "kill -KILL \$\$" TERM
		"$@"' sh "$FT_PROGS/stopper" error 0 0 8
	[ "$status" -eq 137 ]
	[[ $stderr == *"rank 0 (pid "*") aborted the job with code 2: MPI_Send"* ]]
	[[ $stderr =~ rank\ 1\ \(pid\ [0-9]+\)\ was\ killed\ by\ signal\ 9\ \(Killed\),\ detected\ by\ waitpid\ on\ this\ host ]]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"failed rank=1 by=ftrun how=waitpid"* ]]
}

@test "death: without a death, the fatal error's class is the status" {
	run -2 --separate-stderr ftrun -n 3 "$FT_PROGS/stopper" error 0 0 8
	[[ $stderr == *"rank 0 (pid "*") aborted the job with code 2: MPI_Send"* ]]
	[[ $stderr != *"killed by signal"* ]]
}

@test "death: MPI_Abort's code still wins over the ranks ftrun then ends" {
	ft_build abort
	run -7 --separate-stderr ftrun -n 3 "$FT_PROGS/abort" 7
	[[ $stderr != *"killed by signal"* ]]
}

@test "death: what a rank started in the background dies with the job" {
	local d="$BATS_TEST_TMPDIR"
	run -0 --separate-stderr ftrun -n 2 sh -c \
	    'sleep 1000 & echo $! >"$0/bg.$FT_RANK"; exec "$@"' "$d" \
	    "$FT_PROGS/stopper" none 0 0 2
	[ -s "$d/bg.0" ]
	[ -s "$d/bg.1" ]
	ft_poll 30 ft_all_gone "$(cat "$d/bg.0")" "$(cat "$d/bg.1")"
}

@test "death: what a failed rank started dies with the job" {
	local d="$BATS_TEST_TMPDIR"
	run -137 --separate-stderr ftrun -n 3 \
	    --inject kill:rank=2,after-sends=2 sh -c \
	    'sleep 1000 & echo $! >"$0/bg.$FT_RANK"; exec "$@"' "$d" \
	    "$FT_PROGS/stopper" none 0 0 8
	[ -s "$d/bg.2" ]
	ft_poll 30 ft_all_gone "$(cat "$d/bg.0")" "$(cat "$d/bg.1")" \
	    "$(cat "$d/bg.2")"
}
