# SPDX-License-Identifier: ISC
# ftrun --ft ftmpi: FT-MPI's modes (ft-ftmpi(3)) as a job sees them:
# the options, ABORT (for the job, and on an intercommunicator), the
# bound on new processes under REBUILD, and the master-worker example
# of the FT-MPI paper (examples/ftmpi_farm.c) with workers killed at
# their N-th task (--inject after-sends), the worker and N drawn from a
# seed, at 4, 8 and 16 ranks, under SHRINK and REBUILD: the output is
# that of a run without failures.

load common
bats_require_minimum_version 1.5.0

setup() {
	ft_setup
	ft_build ftmpi_farm "$FT_ROOT/examples/ftmpi_farm.c"
	ft_build ftmpi_die
}

@test "ftmpi: bad modes are usage errors that name the valid ones" {
	run -100 --separate-stderr ftrun -n 2 --comm-mode sideways true
	[[ $stderr == *"unknown communicator mode 'sideways' (valid: shrink, blank, rebuild, abort)"* ]]
	run -100 --separate-stderr ftrun -n 2 --ft ftmpi --msg-mode wait true
	[[ $stderr == *"unknown message mode 'wait' (valid: cont, nop)"* ]]
	run -100 --separate-stderr ftrun -n 2 --ft vlog --comm-mode rebuild true
	[[ $stderr == *"--comm-mode and --msg-mode are for --ft ftmpi, not --ft vlog"* ]]
	run -100 --separate-stderr ftrun -n 2 --comm-mode rebuild \
	    --ckpt-dir "$BATS_TEST_TMPDIR/ck" true
	[[ $stderr == *"--comm-mode rebuild and --ckpt-dir do not go together yet"* ]]
}

@test "ftmpi: a mode alone chooses --ft ftmpi; FT-MPI's spellings are taken" {
	run -0 --separate-stderr ftrun -n 1 --comm-mode FTMPI_COMM_MODE_REBUILD \
	    --msg-mode FT_MODE_NOP sh -c 'echo $FT_PROTO $FT_FTMPI_COMM_MODE $FT_FTMPI_MSG_MODE'
	[ "$output" = "ftmpi rebuild nop" ]
	run -0 --separate-stderr ftrun -n 1 --ft ftmpi \
	    sh -c 'echo $FT_FTMPI_COMM_MODE $FT_FTMPI_MSG_MODE'
	[ "$output" = "shrink cont" ]
}

@test "ftmpi: ABORT ends the job at the first failure, as without a protocol" {
	run -137 --separate-stderr ftrun -n 3 --ft ftmpi --comm-mode abort \
	    --timeout 60 "$FT_PROGS/ftmpi_die"
	[[ $stderr == *"rank 1 (pid "*"killed by signal 9"*"aborting the job"* ]]
}

@test "ftmpi: an intercommunicator in mode ABORT ends the job; it refuses blank, rebuild and nop" {
	ft_build ftmpi_inter_abort
	run -1 --separate-stderr ftrun -n 4 --ft ftmpi --timeout 60 \
	    "$FT_PROGS/ftmpi_inter_abort"
	[[ $stderr == *"rank 3 (pid "*"killed by signal 9"*"the job goes on"* ]]
	[[ $stderr == *"aborted the job with code 1: a process of a communicator in mode ABORT failed"* ]]
	[[ $stderr != *"ftmpi_inter_abort:"* ]]
}

@test "ftmpi: REBUILD gives up after 8 new processes in one rank's place" {
	run -137 --separate-stderr ftrun -n 3 --ft ftmpi --comm-mode rebuild \
	    --timeout 60 --events "$BATS_TEST_TMPDIR/ev" "$FT_PROGS/ftmpi_die"
	[[ $stderr == *"starting a new process in its place (--comm-mode rebuild)"* ]]
	[[ $stderr == *"rank 1 (pid "*"and was started 8 times in its place already (--comm-mode rebuild); aborting the job"* ]]
	[ "$(grep -c '"event":"restart","rank":1' "$BATS_TEST_TMPDIR/ev")" -eq 8 ]
}

# The farm at n ranks in mode $1, workers killed as drawn from seed $2.
farm_kills() {
	local mode=$1 seed=$2 n=$3 v1 v2
	v1=$((1 + (seed * 7919 + n) % (n - 1)))
	v2=$((1 + (seed * 104729 + 3 * n) % (n - 1)))
	# Every worker gets a task at the start and sends its result, but
	# under load a starved one may do no second task before the
	# others have done all 300: v1 dies at its first result, so that
	# one death at least is certain; v2's comes when it comes.
	args=(--inject "kill:rank=$v1,after-sends=1")
	# SHRINK takes a second worker too, later.
	[ "$v2" -ne "$v1" ] && [ "$mode" = shrink ] &&
	    args+=(--inject "kill:rank=$v2,after-sends=$((2 + seed % 4))")
	# REBUILD: a second worker at its first result too (two at once),
	# and v1's new process again at its 2nd task.
	if [ "$mode" = rebuild ]; then
		[ "$v2" -ne "$v1" ] &&
		    args+=(--inject "kill:rank=$v2,after-sends=1")
		args+=(--inject "kill:rank=$v1,after-sends=2")
	fi
	return 0
}

@test "ftmpi example: the farm survives killed workers, SHRINK and REBUILD, 4 to 16 ranks" {
	local n mode seed want
	for n in 4 8 16; do
		run -0 --separate-stderr ftrun -n "$n" --timeout 120 \
		    "$FT_PROGS/ftmpi_farm" 300
		want=$output
		[[ $want == "tasks 300"*"checksum "* ]]
		for mode in shrink rebuild; do
			for seed in 1 2; do
				farm_kills "$mode" "$seed" "$n"
				run -0 --separate-stderr ftrun -n "$n" \
				    --ft ftmpi --comm-mode "$mode" --msg-mode nop \
				    --timeout 120 "${args[@]}" \
				    "$FT_PROGS/ftmpi_farm" 300
				[ "$output" = "$want" ]
				if [ "$mode" = shrink ]; then
					[[ $stderr == *"killed by signal 9"*"the job goes on (--ft ftmpi)"* ]]
				else
					[[ $stderr == *"starting a new process in its place"* ]]
				fi
				[[ $stderr == *"rank 0 recovered"* ]]
			done
		done
	done
}
