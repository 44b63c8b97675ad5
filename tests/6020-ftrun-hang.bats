# SPDX-License-Identifier: ISC
# Hung processes become failures: a process that stops sending
# heartbeats for --hang-timeout is killed and handled as a crash.  The
# processes stop themselves (SIGSTOP) at a point of their progress, so
# no test depends on how fast the machine runs; the hang timeout is
# 3 s, thirty beats, far above any scheduling delay.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build stopper
	ft_build stuck
	# The checksum every run must print, whoever is stopped.
	ftrun -n 4 "$FT_PROGS/stopper" none 0 0 8 >"$BATS_FILE_TMPDIR/ref"
	grep -q '^checksum ' "$BATS_FILE_TMPDIR/ref"
}

# The pids of every process the events file says was spawned.
spawned_pids() {
	sed -nE 's/.*"event":"spawn".*"pid":([0-9]+).*/\1/p' "$1"
}

# Run stopper under ftrun; $status, $output (stdout), $stderr as bats.
run_stopper() {	# ftrun-options... -- stopper-arguments...
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	run --separate-stderr ftrun --events "$BATS_TEST_TMPDIR/ev" \
	    --hang-timeout 3s "${opts[@]}" "$FT_PROGS/stopper" "$@"
	# No process of the job is left, stopped or not.
	ft_poll 30 ft_all_gone $(spawned_pids "$BATS_TEST_TMPDIR/ev")
}

@test "hang: a stopped master (replica 0) is killed and its rank goes on (-r 2, in a rendezvous)" {
	run_stopper -n 4 -r 2 -- rendezvous 1 0 8
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$BATS_FILE_TMPDIR/ref")" ]
	[[ $stderr == *"rank 1 replica 0 (pid "*") was stopped by signal 19"* ]]
	[[ $stderr == *"rank 1 replica 0 (pid "*") sent no heartbeat for "*"; killed with SIGKILL; rank 1 goes on with replica 1 as master"* ]]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"stopped rank=1"* ]]
	[[ $output == *"hang rank=1"* ]]
	[[ $output == *"failed rank=1 by=ftrun how=heartbeat"* ]]
	[[ $output != *abort* ]]
}

@test "hang: a stopped non-master replica is killed and the job goes on (-r 2, in a rendezvous)" {
	run_stopper -n 4 -r 2 -- rendezvous 2 1 8
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$BATS_FILE_TMPDIR/ref")" ]
	[[ $stderr == *"rank 2 replica 1 (pid "*") sent no heartbeat for "*"; killed with SIGKILL; rank 2 goes on with replica 0 as master"* ]]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"failed rank=2 by=ftrun how=heartbeat"* ]]
}

@test "hang: a replica stopped outside MPI is killed too (-r 2)" {
	run_stopper -n 3 -r 2 -- compute 0 0 8
	[ "$status" -eq 0 ]
	[ "$output" = "$(ftrun -n 3 "$FT_PROGS/stopper" none 0 0 8)" ]
	[[ $stderr == *"rank 0 replica 0 (pid "*") sent no heartbeat for "*"(stopped); killed with SIGKILL"* ]]
}

@test "hang: a stopped unreplicated rank ends the job, named, with 137" {
	run_stopper -n 4 -- rendezvous 1 0 8
	[ "$status" -eq 137 ]
	[[ $stderr == *"rank 1 (pid "*") was stopped by signal 19 (Stopped (signal)); it is killed if it stays silent for 3s"* ]]
	[[ $stderr =~ rank\ 1\ \(pid\ [0-9]+\)\ sent\ no\ heartbeat\ for\ [0-9.]+s\ \(stopped\)\;\ killed\ with\ SIGKILL\;\ aborting\ the\ job ]]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"failed rank=1 by=ftrun how=heartbeat"* ]]
	[[ $output == *"exit rank=1 signal=9"* ]]
}

@test "hang: losing the last replica to a hang ends the job (-r 2)" {
	# Both replicas of rank 1 stop themselves before their 4th send.
	run --separate-stderr ftrun --events "$BATS_TEST_TMPDIR/ev" \
	    --hang-timeout 3s -n 3 -r 2 \
	    --inject kill:rank=1,replica=0,after-sends=3,signal=19 \
	    --inject kill:rank=1,replica=1,after-sends=3,signal=19 \
	    "$FT_PROGS/stopper" none 0 0 8
	ft_poll 30 ft_all_gone $(spawned_pids "$BATS_TEST_TMPDIR/ev")
	[ "$status" -eq 137 ]
	[[ $stderr == *"rank 1 lost its last replica: replica "*" sent no heartbeat for "*"; killed with SIGKILL; aborting the job"* ]]
}

@test "hang: a stopped process that continues is not killed (--hang-timeout off)" {
	local ev="$BATS_TEST_TMPDIR/ev" st=0 pid
	ft_bg ftrun -n 3 --hang-timeout off --events "$ev" \
	    "$FT_PROGS/stopper" compute 1 0 8 >"$BATS_TEST_TMPDIR/out" \
	    2>"$BATS_TEST_TMPDIR/err"
	ft_poll 60 grep -q '"event":"stopped","rank":1,' "$ev"
	pid=$(sed -nE 's/.*"event":"spawn","rank":1,"pid":([0-9]+).*/\1/p' "$ev")
	kill -CONT "$pid"
	wait "$bgpid" || st=$?
	[ "$st" -eq 0 ]
	grep -q '^checksum ' "$BATS_TEST_TMPDIR/out"
	grep -q "rank 1 (pid $pid) was stopped by signal 19 (Stopped (signal)); the job waits for it" "$BATS_TEST_TMPDIR/err"
	run -0 ft_events "$ev"
	[[ $output == *"stopped rank=1"*"continued rank=1"* ]]
	[[ $output != *hang* ]]
}

@test "hang: a rank that computes without MPI calls is not a hang" {
	# Rank 1 spins outside MPI for the whole job while its heartbeat
	# thread beats; only --timeout ends it.
	run -124 --separate-stderr ftrun -n 3 --hang-timeout 1s --timeout 6 \
	    "$FT_PROGS/stuck" spin
	[[ $stderr != *heartbeat* ]]
	[[ $stderr == *"the job timed out after 6s; not progressing: "*"rank 1 (outside MPI for "* ]]
}

@test "hang: --timeout names the processes that made no progress, not every process" {
	run -124 --separate-stderr ftrun -n 4 --timeout 8 "$FT_PROGS/stuck" half
	[[ $stderr =~ ^ftrun:\ warning:\ the\ job\ timed\ out\ after\ 8s\;\ not\ progressing:\ rank\ 2\ \(waiting\ in\ MPI\ for\ [0-9.]+s\),\ rank\ 3\ \(waiting\ in\ MPI\ for\ [0-9.]+s\)\;\ the\ others\ were\ progressing$ ]]
}

@test "hang: --timeout names replicas as rank and replica (-r 2)" {
	run -124 --separate-stderr ftrun -n 3 -r 2 --timeout 8 \
	    "$FT_PROGS/stuck" half
	[[ $stderr == *"not progressing: rank 2 replica 0 (waiting in MPI for "*"), rank 2 replica 1 (waiting in MPI for "*"); the others were progressing" ]]
}

@test "hang: --hang-timeout rejects what is not a duration of 100ms or more" {
	run -100 --separate-stderr ftrun --hang-timeout 50ms true
	[ "$stderr" = "ftrun: fatal: --hang-timeout '50ms' is shorter than 100ms (0 or 'off' turns hang detection off)" ]
	run -100 --separate-stderr ftrun --hang-timeout soon true
	[ "$stderr" = "ftrun: fatal: --hang-timeout 'soon' is not a duration" ]
	run -100 --separate-stderr ftrun --hang-timeout 0x10 true
	[ "$stderr" = "ftrun: fatal: --hang-timeout '0x10' is not a duration" ]
}

@test "hang: the heartbeats event reports the longest silence seen" {
	run -0 --separate-stderr ftrun -n 2 --events "$BATS_TEST_TMPDIR/ev" \
	    "$FT_PROGS/stopper" none 0 0 4
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *heartbeats* ]]
	grep -Eq '"event":"heartbeats","beats":[1-9][0-9]*,"period_ms":1000,"max_gap_ms":[0-9.]+,"rank":[01],"timeout_ms":10000' "$BATS_TEST_TMPDIR/ev"
}
