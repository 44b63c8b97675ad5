# SPDX-License-Identifier: ISC
# ftrun --ft vlog: kills at seeded random moments tied to progress, for
# the examples (ring, jacobi, farm) and the tests/mpi programs that use
# MPI_ANY_SOURCE (wildcard), MPI_Iprobe (probe), MPI_Waitany and the
# other completions (completion) and collectives (coll_allreduce).
# tests/vlog-seeds.sh draws one or two kills a seed, each a rank and a
# send count below half of what that rank sends, and checks each run:
# exit 0, output identical to the fault-free run, a restart for each
# kill that happened, no process and no file left.  Two seeds a program here; the script takes many.

load common
bats_require_minimum_version 1.5.0

@test "vlog: seeded random kills tied to progress, 7 programs, 2 seeds each" {
	run -0 env TMPDIR="$BATS_TEST_TMPDIR" FTBIN="$FT_ROOT/bin" \
	    bash "$FT_ROOT/tests/vlog-seeds.sh" -s 1,2
	[[ ${lines[-1]} =~ ^"14 runs, 0 failed, "([0-9]+)" kills, "([0-9]+)" restarts"$ ]]
	# Every kill happens but in farm, whose workers' sends vary.
	(( BASH_REMATCH[2] + 4 >= BASH_REMATCH[1] && BASH_REMATCH[2] > 0 ))
}

@test "vlog-seeds.sh: bad arguments are usage errors" {
	run -100 --separate-stderr bash "$FT_ROOT/tests/vlog-seeds.sh" -s x
	[[ $stderr == *"-s 'x': FIRST-LAST or S,S,..."* ]]
	run -100 --separate-stderr bash "$FT_ROOT/tests/vlog-seeds.sh" nosuch
	[[ $stderr == *"unknown program 'nosuch'"* ]]
}
