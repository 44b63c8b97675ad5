# SPDX-License-Identifier: ISC
# ftrun and signals: SIGINT and SIGTERM are forwarded to the ranks, then
# SIGKILL after --grace; the death of a rank ends the others and their
# children; no rank outlives ftrun, even when ftrun is killed with
# SIGKILL.

load common
bats_require_minimum_version 1.5.0

# PID has exactly N live children, all of them running COMM.
ranks_are() {	# pid n comm
	local kids k c
	mapfile -t kids < <(ft_children_of "$1")
	[ "${#kids[@]}" -eq "$2" ] || return 1
	for k in "${kids[@]}"; do
		read -r c 2>/dev/null <"/proc/$k/comm" || return 1
		[ "$c" = "$3" ] || return 1
	done
}

# FILE has N lines that are exactly TEXT.
has_lines() {	# file n text
	[ "$(grep -cx -- "$3" "$1")" -eq "$2" ]
}

# Wait (bounded) for the background ftrun to end; its status in $st.
ft_alive() {
	! ft_gone "$1"
}

# No ftrun watchdog runs with TMPDIR=DIR in its environment.
no_watchdog_in() {
	local f c
	for f in /proc/[0-9]*/comm; do
		read -r c 2>/dev/null <"$f" || continue
		[ "$c" = ftrun-watchdog ] || continue
		tr '\0' '\n' 2>/dev/null <"${f%comm}environ" |
		    grep -qxF "TMPDIR=$1" && return 1
	done
	return 0
}

wait_ftrun() {
	ft_poll 30 ft_gone "$bgpid"
	st=0
	wait "$bgpid" || st=$?
}

@test "ftrun forwards SIGTERM to every rank" {
	ft_build catch
	ft_bg ftrun -n 2 "$FT_PROGS/catch" 3 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 has_lines "$BATS_TEST_TMPDIR/out" 2 ready
	kill -TERM "$bgpid"
	wait_ftrun
	# The ranks caught it and exited 3 by themselves.
	[ "$st" -eq 3 ]
	run -0 sort "$BATS_TEST_TMPDIR/out"
	[ "$output" = "$(printf 'rank 0 got SIGTERM\nrank 1 got SIGTERM\nready\nready')" ]
	run -0 cat "$BATS_TEST_TMPDIR/err"
	[ "$output" = "ftrun: warning: got signal 15; forwarding it to the ranks" ]
}

@test "ftrun forwards SIGINT to every rank" {
	ft_build catch
	ft_bg ftrun -n 3 "$FT_PROGS/catch" 0 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 has_lines "$BATS_TEST_TMPDIR/out" 3 ready
	kill -INT "$bgpid"
	wait_ftrun
	[ "$st" -eq 0 ]
	[ "$(grep -c 'got SIGINT$' "$BATS_TEST_TMPDIR/out")" -eq 3 ]
	run -0 cat "$BATS_TEST_TMPDIR/err"
	[ "$output" = "ftrun: warning: got signal 2; forwarding it to the ranks" ]
}

@test "ftrun forwards SIGINT: ranks killed by it make 128+2" {
	ft_bg ftrun -n 2 sleep 1000 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 ranks_are "$bgpid" 2 sleep
	kill -INT "$bgpid"
	wait_ftrun
	[ "$st" -eq 130 ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	run -0 cat "$BATS_TEST_TMPDIR/err"
	[ "$output" = "ftrun: warning: got signal 2; forwarding it to the ranks" ]
}

@test "ftrun kills ranks that ignore SIGTERM after --grace" {
	ft_bg ftrun -n 2 --grace 0.5 --events "$BATS_TEST_TMPDIR/ev" sh -c \
	    'trap "" TERM; echo ready; exec sleep 1000' \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 has_lines "$BATS_TEST_TMPDIR/out" 2 ready
	ft_poll 30 ranks_are "$bgpid" 2 sleep
	kill -TERM "$bgpid"
	wait_ftrun
	[ "$st" -ne 0 ]
	run -0 cat "$BATS_TEST_TMPDIR/err"
	[ "$output" = "ftrun: warning: got signal 15; forwarding it to the ranks" ]
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[[ $output == *"exit rank=0 signal=9"* ]]
	[[ $output == *"exit rank=1 signal=9"* ]]
}

@test "ftrun --timeout kills ranks that ignore SIGTERM after --grace" {
	run -124 --separate-stderr ftrun -n 2 --timeout 1 --grace 0.5 sh -c \
	    'trap "" TERM; exec sleep 1000'
	[[ $stderr == *"timed out after 1s; ranks still running: 0 1" ]]
}

@test "the death of a rank ends the other ranks and their children" {
	# Rank 0 starts a child and records it; then rank 1 dies.
	run -137 --separate-stderr ftrun -n 2 sh -c '
	    if [ "$FT_RANK" = 0 ]; then
		    sleep 1000 & echo $! >"$1/child.pid"; wait
	    else
		    until [ -s "$1/child.pid" ]; do sleep 0.05; done
		    kill -KILL $$
	    fi' sh "$BATS_TEST_TMPDIR"
	[[ $stderr == "ftrun: warning: rank 1 (pid "*") was killed by signal 9 (Killed), detected by waitpid on this host; aborting the job" ]]
	child=$(cat "$BATS_TEST_TMPDIR/child.pid")
	ft_poll 30 ft_gone "$child"
}

@test "no rank outlives ftrun killed with SIGKILL" {
	ft_bg ftrun -n 3 sleep 1000 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 ranks_are "$bgpid" 3 sleep
	mapfile -t ranks < <(ft_children_of "$bgpid")
	kill -KILL "$bgpid"
	wait_ftrun
	[ "$st" -eq 137 ]
	[ "${#ranks[@]}" -eq 3 ]
	ft_poll 30 ft_all_gone "${ranks[@]}"
}

@test "no rank of an MPI job outlives ftrun killed with SIGKILL" {
	ft_build abort
	# No rank 99: every rank blocks in MPI_Recv for good.
	ft_bg ftrun -n 3 "$FT_PROGS/abort" 1 99 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 ranks_are "$bgpid" 3 abort
	mapfile -t ranks < <(ft_children_of "$bgpid")
	kill -KILL "$bgpid"
	wait_ftrun
	[ "$st" -eq 137 ]
	[ "${#ranks[@]}" -eq 3 ]
	ft_poll 30 ft_all_gone "${ranks[@]}"
}

# Each rank starts a grandchild that ftrun never sees; PR_SET_PDEATHSIG
# alone would leave it running, and the job directory behind.
@test "nothing the ranks started outlives ftrun killed with SIGKILL" {
	mkdir "$BATS_TEST_TMPDIR/jobs"
	TMPDIR="$BATS_TEST_TMPDIR/jobs" ft_bg ftrun -n 2 sh -c \
	    'sleep 1000 & echo $! >"$1/gc.$FT_RANK.pid"; wait' \
	    sh "$BATS_TEST_TMPDIR" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	ft_poll 30 test -s "$BATS_TEST_TMPDIR/gc.1.pid"
	ft_poll 30 test -s "$BATS_TEST_TMPDIR/gc.0.pid"
	gc0=$(cat "$BATS_TEST_TMPDIR/gc.0.pid")
	gc1=$(cat "$BATS_TEST_TMPDIR/gc.1.pid")
	ft_alive "$gc0"
	ft_alive "$gc1"
	[ -n "$(ls -A "$BATS_TEST_TMPDIR/jobs")" ]
	kill -KILL "$bgpid"
	wait_ftrun
	[ "$st" -eq 137 ]
	ft_poll 30 ft_all_gone "$gc0" "$gc1"
	ft_poll 30 test -z "$(ls -A "$BATS_TEST_TMPDIR/jobs")"
}

@test "a job that ends normally leaves no watchdog behind" {
	mkdir "$BATS_TEST_TMPDIR/jobs"
	TMPDIR="$BATS_TEST_TMPDIR/jobs" run -0 ftrun -n 2 true
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/jobs")" ]
	ft_poll 30 no_watchdog_in "$BATS_TEST_TMPDIR/jobs"
}
