# SPDX-License-Identifier: ISC
# ftrun and dynamic processes: what MPI_Comm_spawn starts has its stdio
# forwarded and tagged "W:R" (world W, rank R in it), counts in the
# job's exit status, is watched for hangs, shows in --events, and is
# refused with replicas.

load common
bats_require_minimum_version 1.5.0

setup() {
	ft_setup
	ft_build spawner
}

@test "ftrun forwards the stdio of spawned processes, tagged world:rank" {
	run -0 --separate-stderr ftrun -n 1 --tag-output --universe-size 3 \
	    "$FT_PROGS/spawner" 2
	[[ $output == *"[0] parent 0 spawned 2"* ]]
	[[ $output == *"[1:0] child 0 of 2"* ]]
	[[ $output == *"[1:1] child 1 of 2"* ]]
	[[ $stderr == *"[1:0] child 0 says hello on stderr"* ]]
	[[ $stderr == *"[1:1] child 1 says hello on stderr"* ]]
}

@test "ftrun exits with a spawned process's non-zero status, and names it" {
	run -5 --separate-stderr ftrun -n 1 --universe-size 3 \
	    "$FT_PROGS/spawner" 2 5
	[[ $output == *"child 0 of 2"* ]]
	[[ $stderr =~ rank\ 1:0\ \(pid\ [0-9]+\)\ exited\ with\ status\ 5 ]]
}

@test "ftrun --hang-timeout watches spawned processes too" {
	run -137 --separate-stderr ftrun -n 1 --universe-size 3 \
	    --hang-timeout 1s "$FT_PROGS/spawner" 2 stop
	[[ $stderr =~ rank\ 1:0\ \(pid\ [0-9]+\)\ sent\ no\ heartbeat\ for ]]
}

@test "ftrun --events tells of the spawned world and its processes" {
	run -0 --separate-stderr ftrun -n 1 --universe-size 3 \
	    --events "$BATS_TEST_TMPDIR/ev" "$FT_PROGS/spawner" 2
	grep -q '"event":"spawn-world","world":1,"first":1,"n":2,"by":0' \
	    "$BATS_TEST_TMPDIR/ev"
	grep -q '"event":"spawn-ready","world":1' "$BATS_TEST_TMPDIR/ev"
	grep -q '"event":"exit","rank":2,"pid":[0-9]*,"status":0' \
	    "$BATS_TEST_TMPDIR/ev"
}

@test "ftrun: a spawn beyond the universe fails with MPI_ERR_SPAWN" {
	run -26 --separate-stderr ftrun -n 1 --universe-size 2 \
	    "$FT_PROGS/spawner" 2
	[[ $stderr == *"2 more processes would exceed the universe size of 2"* ]]
	[[ $stderr == *"MPI_ERR_SPAWN"* ]]
}

@test "ftrun -r 2 refuses dynamic processes with a clear error" {
	run -26 --separate-stderr ftrun -n 1 -r 2 --universe-size 8 \
	    "$FT_PROGS/spawner" 1
	[[ $stderr == *"dynamic processes are not supported with replicas"* ]]
}

@test "ftrun --universe-size below the job's processes is a usage error" {
	run -100 --separate-stderr ftrun -n 3 --universe-size 2 true
	[[ $stderr == "ftrun: fatal: --universe-size 2 is smaller than the job's 3 processes" ]]
}
