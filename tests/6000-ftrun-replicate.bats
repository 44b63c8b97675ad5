# SPDX-License-Identifier: ISC
# Process replication (ftrun -r R): the example programs, run with 2 and
# 3 replicas of every rank, print exactly what a run without replication
# prints and exit 0, whichever replicas --inject kills and whenever:
# one replica, a master, rank 0's master, several replicas of several
# ranks, at random moments from several seeds.  Losing every replica of
# a rank ends the job with a message naming it.  No process outlives
# the job.
#
# A test that counts on a kill having happened ties the kill to the
# victim's progress, never to the clock: with after-sends=N the process
# raises SIGKILL on itself instead of sending its message N+1 (ftrun(1)),
# so the kill lands at the same point of the program however fast or
# loaded the machine is, provided N is below what the victim sends.  The
# only clock-driven kills (kill:random,every=...) are in tests whose
# assertions hold whether or not, and whenever, those kills land.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build ring "$FT_ROOT/examples/ring.c"
	ft_build pi "$FT_ROOT/examples/pi.c"
	ftcc -O1 -o "$FT_PROGS/jacobi" "$FT_ROOT/examples/jacobi.c" -lm
	ft_build farm "$FT_ROOT/examples/farm.c"
	ft_build echoin "$FT_ROOT/tests/progs/echoin.c"
	ft_build diverge "$FT_ROOT/tests/progs/diverge.c"
}

# The program and its arguments for each example.  Kills are tied to
# progress, so the jobs need not run long: a run takes 0.05-0.2 s on an
# idle machine and a few seconds on a loaded one (ring is the slowest
# there: each hop waits for the scheduler, about 1 ms under two CPU
# hogs on 2 cores).
prog() {
	case $1 in
	ring) echo "$FT_PROGS/ring 1000" ;;
	pi) echo "$FT_PROGS/pi 200000000" ;;
	jacobi) echo "$FT_PROGS/jacobi 200 300" ;;
	farm) echo "$FT_PROGS/farm 2000" ;;
	esac
}

# How many messages a process of each example sends, whichever replica
# it is (measured: without -r, "ftrun -n N --inject
# kill:rank=R,after-sends=K PROGRAM" ends the job iff rank R sends more
# than K):
#   ring 1000		1000, every rank
#   jacobi 200 300	at 4 ranks, 3 a step (900) at the first and last
#			rank and 4 a step (1200) in between; at 3 ranks,
#			600, 1200, 600
#   farm 2000		rank 0: 2000 tasks and one stop a worker; a worker:
#			2 a task it wins, first come first served, so it
#			depends on timing; with one worker, 4001
#   pi			none from rank 0, one from each other rank
# So farm loses only rank 0's replicas, or runs with one worker, and pi
# is never killed by after-sends (see the last test of the file).
#
# Two kill points of each example, in messages sent, well inside every
# count above: point EX 1, then point EX 2 further on.
point() {	# example 1|2
	case $1 in
	ring) echo $((250 * $2)) ;;
	jacobi) echo $((150 * $2)) ;;
	farm) echo $((500 * $2)) ;;
	esac
}

# ring prints its speed: everything else of its line must match.
norm() {
	sed -E 's/, [0-9.]+ us per hop$//'
}

# The output of a run without replication, once per example and size.
reference() {	# example ranks
	local f="$BATS_FILE_TMPDIR/ref.$1.$2"
	if [ ! -f "$f" ]; then
		# shellcheck disable=SC2046
		ftrun -n "$2" --timeout 120 $(prog "$1") | norm >"$f.tmp" ||
		    return 1
		mv "$f.tmp" "$f"
	fi
	cat "$f"
}

# No process of the job may outlive ftrun.
no_orphans() {
	! pgrep -f "^$FT_PROGS/" >/dev/null
}

# Run an example with replicas and faults; compare with the reference.
survive() {	# example ranks replicas [ftrun options]
	local ex=$1 n=$2 r=$3 want
	shift 3
	want=$(reference "$ex" "$n")
	# shellcheck disable=SC2046
	run -0 --separate-stderr ftrun -n "$n" -r "$r" --timeout 120 \
	    --events "$BATS_TEST_TMPDIR/ev" "$@" $(prog "$ex")
	got=$(printf '%s\n' "$output" | norm)
	if [ "$got" != "$want" ]; then
		echo "output differs from the run without replication:"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") || true
		echo "stderr: $stderr"
		return 1
	fi
	no_orphans
}

# How many events of a kind the last run recorded.
nevents() {
	grep -c "\"event\":\"$1\"" "$BATS_TEST_TMPDIR/ev" || true
}

# Did an after-sends kill end replica K of rank R in the last run?
killed() {	# rank replica
	grep -q "\"event\":\"inject\",\"rank\":$1,\"replica\":$2,.*\"trigger\":\"after-sends\"" \
	    "$BATS_TEST_TMPDIR/ev"
}

# Did replica K of rank R become its rank's master in the last run?
became_master() {	# rank replica
	grep -q "\"event\":\"master\",\"rank\":$1,\"replica\":$2," \
	    "$BATS_TEST_TMPDIR/ev"
}

# Random kills tied to progress: each rank given loses 0 to R-1 of its R
# replicas, chosen at random, each after a random number of sends from
# LO to HI; at least one process is killed.  Draws from $RANDOM, which
# the caller seeds.  Sets KILLS, the ftrun options, and NKILLS.
seeded_kills() {	# replicas lo hi rank ...
	local r=$1 lo=$2 hi=$3 rank m first i
	shift 3
	KILLS=()
	NKILLS=0
	for rank; do
		m=$((RANDOM % r))
		first=$((RANDOM % r))
		for ((i = 0; i < m; i++)); do
			KILLS+=(--inject "kill:rank=$rank,replica=$(((first + i) % r)),after-sends=$((lo + RANDOM % (hi - lo + 1)))")
			NKILLS=$((NKILLS + 1))
		done
	done
	if [ "$NKILLS" -eq 0 ]; then
		KILLS+=(--inject "kill:rank=$1,replica=$((RANDOM % r)),after-sends=$((lo + RANDOM % (hi - lo + 1)))")
		NKILLS=1
	fi
	# Shown if the test fails, to run the same job again.
	echo "kills: ${KILLS[*]}"
}

@test "replicate: every example prints the same with -r 2 and -r 3, no fault" {
	for ex in ring pi jacobi farm; do
		survive $ex 3 2
		survive $ex 3 3
		[ "$(nevents failed)" -eq 0 ]
	done
}

@test "replicate: kill one replica (not a master) of each example" {
	local ex v
	for ex in ring jacobi farm; do
		# farm: rank 0, the only one whose sends are counted.
		v=2
		if [ $ex = farm ]; then
			v=0
		fi
		survive $ex 4 2 --inject kill:rank=$v,replica=1,after-sends=$(point $ex 1)
		[ "$(nevents inject)" -eq 1 ]
		[ "$(nevents failed)" -eq 1 ]
		[ "$(nevents master)" -eq 0 ]
		killed $v 1
	done
}

@test "replicate: kill a master; its replica takes over" {
	local ex v
	for ex in ring jacobi farm; do
		# farm: rank 0, the only one whose sends are counted (at 4
		# ranks here, at 3 in the next test).
		v=1
		if [ $ex = farm ]; then
			v=0
		fi
		survive $ex 4 2 --inject kill:rank=$v,role=master,after-sends=$(point $ex 1)
		[ "$(nevents failed)" -eq 1 ]
		killed $v 0
		became_master $v 1
	done
}

@test "replicate over TCP: a master and another rank's replica killed" {
	local ex v
	# Over TCP a master commits only what its receivers acknowledged
	# (ft-wire(7) ACK): the same outcome as over Unix sockets.
	for ex in ring jacobi farm; do
		v=1
		if [ $ex = farm ]; then
			v=0
		fi
		survive $ex 4 2 --tcp \
		    --inject kill:rank=$v,role=master,after-sends=$(point $ex 1) \
		    --inject kill:rank=2,replica=1,after-sends=$(point $ex 2)
		killed $v 0
		became_master $v 1
		grep -q '"event":"failed","rank":2,"replica":1' \
		    "$BATS_TEST_TMPDIR/ev" || [ $ex = farm ]
	done
}

@test "replicate: kill rank 0's master, with 2 and 3 replicas" {
	local ex r
	# With after-sends, role=master names replica 0.
	for ex in ring jacobi farm; do
		for r in 2 3; do
			survive $ex 3 $r --inject kill:rank=0,role=master,after-sends=$(point $ex 1)
			[ "$(nevents failed)" -eq 1 ]
			[ "$(nevents master)" -eq 1 ]
			killed 0 0
			became_master 0 1
		done
	done
}

@test "replicate: with 3 replicas, kill two masters of rank 0 in turn" {
	local ex
	# With after-sends the process is chosen when it starts, and
	# role=master names replica 0: the second master is replica=1.  It
	# makes its send number point 2 only as master: until it takes over,
	# the other ranks get nothing from rank 0 past what replica 0 sent
	# before it died (point 1), and a replica of rank 0 cannot get more
	# than a message or so ahead of what they send back.
	for ex in ring jacobi farm; do
		survive $ex 3 3 \
		    --inject kill:rank=0,role=master,after-sends=$(point $ex 1) \
		    --inject kill:rank=0,replica=1,after-sends=$(point $ex 2)
		[ "$(nevents failed)" -eq 2 ]
		[ "$(nevents master)" -eq 2 ]
		killed 0 0
		killed 0 1
		became_master 0 1
		became_master 0 2
	done
}

@test "replicate: kill several replicas of different ranks at once" {
	# Each victim dies at the same step of the program: ring's round
	# 250; jacobi's step 100, where ranks 0 and 3 send 3 messages a
	# step and ranks 1 and 2 send 4; farm's task 500, with one worker
	# (so that its sends are counted), which sends 2 a task.
	survive ring 4 2 --inject kill:rank=0,role=master,after-sends=250 \
	    --inject kill:rank=1,replica=1,after-sends=250 \
	    --inject kill:rank=2,role=master,after-sends=250 \
	    --inject kill:rank=3,replica=0,after-sends=250
	[ "$(nevents failed)" -eq 4 ]
	killed 0 0
	killed 1 1
	killed 2 0
	killed 3 0
	survive jacobi 4 2 --inject kill:rank=0,role=master,after-sends=300 \
	    --inject kill:rank=1,replica=1,after-sends=400 \
	    --inject kill:rank=2,role=master,after-sends=400 \
	    --inject kill:rank=3,replica=0,after-sends=300
	[ "$(nevents failed)" -eq 4 ]
	killed 0 0
	killed 1 1
	killed 2 0
	killed 3 0
	survive farm 2 3 --inject kill:rank=0,role=master,after-sends=500 \
	    --inject kill:rank=0,replica=2,after-sends=500 \
	    --inject kill:rank=1,replica=1,after-sends=1000 \
	    --inject kill:rank=1,role=master,after-sends=1000
	[ "$(nevents failed)" -eq 4 ]
	killed 0 0
	killed 0 2
	killed 1 1
	killed 1 0
}

# Clock-driven kills: how many land, and where, depends on the speed of
# the machine, so these only assert what holds either way: the output,
# the exit status, no orphans, no more kills than asked for, and no
# failure that was not a kill.  The test after them is the one that
# counts on its kills.  Two tests of three seeds each, so that each
# stays well inside BATS_TEST_TIMEOUT on a loaded machine.
random_kills() {	# seed ...
	local seed ex r
	for seed; do
		for ex in ring jacobi farm; do
			r=$((2 + seed % 2))
			survive $ex 4 $r \
			    --inject kill:random,every=0.0$((3 + seed))s,count=$((2 * r)),seed=$seed
			[ "$(nevents inject)" -le $((2 * r)) ]
			[ "$(nevents failed)" -le "$(nevents inject)" ]
		done
	done
}

@test "replicate: random kills at random moments, seeds 1-3" {
	random_kills 1 2 3
}

@test "replicate: random kills at random moments, seeds 4-6" {
	random_kills 4 5 6
}

# Kills tied to progress, each after a random number of sends: every
# one happens.  Two tests of two seeds each, as random_kills: the four
# seeds in one test ran past its 90 s timeout at load 20 on 2 cores.
seeded_sends_kills() {	# seed ...
	local seed r
	for seed; do
		RANDOM=$seed
		r=$((2 + seed % 2))
		seeded_kills $r 50 950 0 1 2 3
		survive ring 4 $r "${KILLS[@]}"
		[ "$(nevents failed)" -eq "$NKILLS" ]
		seeded_kills $r 50 850 0 1 2 3
		survive jacobi 4 $r "${KILLS[@]}"
		[ "$(nevents failed)" -eq "$NKILLS" ]
		seeded_kills $r 50 1950 0
		survive farm 4 $r "${KILLS[@]}"
		[ "$(nevents failed)" -eq "$NKILLS" ]
	done
}

@test "replicate: random kills after random numbers of sends, seeds 1-2" {
	seeded_sends_kills 1 2
}

@test "replicate: random kills after random numbers of sends, seeds 3-4" {
	seeded_sends_kills 3 4
}

@test "replicate: a kill after a number of sends (after-sends)" {
	survive ring 3 2 --inject kill:rank=1,role=master,after-sends=500
	[ "$(nevents failed)" -eq 1 ]
	grep -q '"event":"inject","rank":1,"replica":0,.*"trigger":"after-sends"' \
	    "$BATS_TEST_TMPDIR/ev"
}

@test "replicate: the collective tests survive random kills, -r 3 and 2" {
	local t r=2 min
	# Not coll_barrier: it reads clock_gettime, outside the determinism
	# contract (ft(7)), so replicas of a rank disagree on the time.
	# Each program runs twice: with clock-driven random kills, which may
	# land or not (the program lasts a few tens of milliseconds), then
	# with random kills after random numbers of sends, which do.  min is
	# the fewest messages any rank of the program sends at 4 ranks (see
	# "How many messages" above for how to measure it).
	RANDOM=7
	for t in coll_allreduce:246 coll_bcast:32 coll_alltoall:69 \
	    coll_scan:62 coll_gather:73 coll_reduce:43 coll_sort:21; do
		min=${t#*:}
		t=${t%:*}
		ftcc -O1 -o "$FT_PROGS/$t" "$FT_ROOT/tests/mpi/$t.c"
		r=$((5 - r))
		run -0 --separate-stderr ftrun -n 4 -r $r --timeout 120 \
		    --events "$BATS_TEST_TMPDIR/ev" \
		    --inject kill:random,every=0.01s,count=$((2 * r)),seed=7 \
		    "$FT_PROGS/$t"
		[[ $output == *"No Errors"* ]]
		[ "$(nevents inject)" -le $((2 * r)) ]
		[ "$(nevents failed)" -le "$(nevents inject)" ]
		no_orphans
		# Kills late in the program rather than early: see the last
		# test of the file.
		seeded_kills $r $((min / 2)) $((min - 1)) 0 1 2 3
		run -0 --separate-stderr ftrun -n 4 -r $r --timeout 120 \
		    --events "$BATS_TEST_TMPDIR/ev" "${KILLS[@]}" "$FT_PROGS/$t"
		[[ $output == *"No Errors"* ]]
		[ "$(nevents failed)" -eq "$NKILLS" ]
		no_orphans
	done
}

@test "replicate: losing every replica of a rank ends the job naming it" {
	# shellcheck disable=SC2046
	run -137 --separate-stderr ftrun -n 3 -r 2 --timeout 60 \
	    --events "$BATS_TEST_TMPDIR/ev" \
	    --inject kill:rank=2,replica=0,after-sends=$(point ring 1) \
	    --inject kill:rank=2,replica=1,after-sends=$(point ring 2) \
	    $(prog ring)
	[[ $stderr == *"rank 2 lost its last replica"* ]]
	grep -q '"event":"abort","rank":2' "$BATS_TEST_TMPDIR/ev"
	killed 2 0
	killed 2 1
	no_orphans
}

@test "replicate: events say failed, view and master, in order" {
	survive ring 2 2 --inject kill:rank=0,role=master,after-sends=$(point ring 1)
	run python3 - "$BATS_TEST_TMPDIR/ev" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
kinds = [e["event"] for e in ev]
i = kinds.index("failed")
assert kinds[i + 1] == "view" and kinds[i + 2] == "master", kinds
f, v, m = ev[i], ev[i + 1], ev[i + 2]
assert (f["rank"], f["replica"]) == (0, 0), f
assert v["epoch"] == 1 and v["members"] == [1, 2, 3] and v["n"] == 3, v
assert (m["rank"], m["replica"], m["epoch"]) == (0, 1, 1), m
spawn = {(e["rank"], e["replica"]): e["pid"] for e in ev if e["event"] == "spawn"}
assert len(spawn) == 4 and m["pid"] == spawn[(0, 1)], (spawn, m)
PY
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "replicate: stdin reaches every replica of rank 0" {
	# Rank 0 sends about 400 messages (two every 1000 lines): its master
	# dies half way through the input.
	run -0 --separate-stderr bash -c "seq 1 200000 | ftrun -n 2 -r 2 \
	    --timeout 60 --events $BATS_TEST_TMPDIR/ev \
	    --inject kill:rank=0,role=master,after-sends=200 \
	    $FT_PROGS/echoin"
	[ "$output" = "lines 200000 sum 20000100000" ]
	[ "$(nevents failed)" -eq 1 ]
	killed 0 0
	became_master 0 1
}

@test "replicate: --check-divergence reports replicas that send different bytes" {
	run --separate-stderr ftrun -n 2 -r 2 --timeout 60 --check-divergence \
	    --events "$BATS_TEST_TMPDIR/ev" "$FT_PROGS/diverge"
	[[ $stderr == *"divergence: rank 0 replica 1 diverged from its master: message 0 to rank 1"* ]]
	[ "$(nevents diverge)" -ge 1 ]
}

@test "replicate: without --check-divergence no digest is compared" {
	run -0 --separate-stderr ftrun -n 2 -r 2 --timeout 60 \
	    "$FT_PROGS/diverge"
	[[ $stderr != *divergence* ]]
}

@test "replicate: bad -r and --inject values are usage errors" {
	run -100 ftrun -r 0 true
	run -100 ftrun -r 17 true
	run -100 ftrun -n 2 -r 2 --ft none2 true
	run -100 ftrun -n 2 --inject kill:rank=2,at=1s true
	[[ $output == *"rank 2 is not in a job of 2 ranks"* ]]
	run -100 ftrun -n 2 -r 2 --inject kill:rank=1,replica=2,at=1s true
	run -100 ftrun -n 2 --inject kill:rank=1,role=replica,at=1s true
	run -100 ftrun -n 2 --inject kill:rank=1 true
	[[ $output == *"--inject 'kill:rank=1'"* ]]
}

@test "plan: --plan prints P(fail) for R = 1..10 and the best R" {
	run -0 ftrun -n 16 --plan --mtbf 24h --runtime 1h
	[ "${lines[0]}" = "# plan: n=16 mtbf=86400s shape=0.7 runtime=3600s overhead=0.05 per extra replica" ]
	[[ ${lines[1]} == "r=1 runtime=3600s p_fail=0.87" ]]
	[[ ${lines[2]} == "r=2 runtime=3780s p_fail=0.218" ]]
	[ "${#lines[@]}" -eq 12 ]
	[[ ${lines[11]} == "best r="* ]]
	run -100 ftrun -n 16 --plan --mtbf 24h
	run -100 ftrun --plan --mtbf 0 --runtime 1h
	run -100 ftrun --plan --mtbf 1h --runtime 1h --weibull-shape -1
}

@test "plan: numbers are decimal, and durations as for --timeout" {
	local x
	for x in 0x10 inf nan " 1" 0x1p-1; do
		run -100 --separate-stderr ftrun --plan --mtbf 1h --runtime 1h \
		    --weibull-shape "$x"
		[ "$stderr" = "ftrun: fatal: --weibull-shape '$x' is not a positive number" ]
	done
	run -100 --separate-stderr ftrun --plan --mtbf 1h --runtime 1h \
	    --overhead-per-replica 0x0
	[ "$stderr" = "ftrun: fatal: --overhead-per-replica '0x0' is not a non-negative number" ]
	run -100 --separate-stderr ftrun --plan --mtbf 1e3 --runtime 1h
	[ "$stderr" = "ftrun: fatal: --mtbf '1e3' is not a positive duration" ]
	run -0 --separate-stderr ftrun --plan --mtbf 1h --runtime 1h \
	    --weibull-shape 7e-1
	[ "${lines[0]}" = "# plan: n=1 mtbf=3600s shape=0.7 runtime=3600s overhead=0.05 per extra replica" ]
}

# pi sends too few messages for after-sends (none from rank 0, one from
# each other rank), so its kills are at=0s: ftrun sends them in the same
# turn of its loop as the table of addresses that MPI_Init waits for, so
# before any rank can have done its work, and they always land.
@test "replicate: pi survives kills as the job starts (at=0s)" {
	# A VIEW frame that reached a process in the same read as the
	# table of addresses stayed unparsed until the launcher sent
	# something else, and the job hung about one run in five; fixed in
	# lib/pt2pt (progress_pass reads what the launcher connection has
	# buffered).
	local i
	for i in 1 2 3 4 5; do
		survive pi 4 2 --timeout 30 --inject kill:rank=2,replica=1,at=0s
		[ "$(nevents inject)" -eq 1 ]
		[ "$(nevents failed)" -eq 1 ]
		[ "$(nevents master)" -eq 0 ]
		survive pi 4 2 --timeout 30 --inject kill:rank=1,role=master,at=0s
		[ "$(nevents failed)" -eq 1 ]
		became_master 1 1
		survive pi 3 2 --timeout 30 --inject kill:rank=0,role=master,at=0s
		[ "$(nevents failed)" -eq 1 ]
		became_master 0 1
		survive pi 3 3 --timeout 30 --inject kill:rank=0,role=master,at=0s
		[ "$(nevents failed)" -eq 1 ]
		became_master 0 1
		survive pi 4 2 --timeout 30 \
		    --inject kill:rank=0,role=master,at=0s \
		    --inject kill:rank=1,replica=1,at=0s \
		    --inject kill:rank=2,role=master,at=0s \
		    --inject kill:rank=3,replica=0,at=0s
		[ "$(nevents failed)" -eq 4 ]
	done
}
