# SPDX-License-Identifier: ISC
# Process replication (ftrun -r R): the example programs, run with 2 and
# 3 replicas of every rank, print exactly what a run without replication
# prints and exit 0, whichever replicas --inject kills and whenever:
# one replica, a master, rank 0's master, several replicas of several
# ranks, at random moments from several seeds.  Losing every replica of
# a rank ends the job with a message naming it.  No process outlives
# the job.

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

# The program and its arguments for each example, sized to run long
# enough (0.3-1 s at 2 replicas on 2 cores) for kills to land mid-run.
prog() {
	case $1 in
	ring) echo "$FT_PROGS/ring 20000" ;;
	pi) echo "$FT_PROGS/pi 200000000" ;;
	jacobi) echo "$FT_PROGS/jacobi 200 1500" ;;
	farm) echo "$FT_PROGS/farm 6000" ;;
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

@test "replicate: every example prints the same with -r 2 and -r 3, no fault" {
	for ex in ring pi jacobi farm; do
		survive $ex 3 2
		survive $ex 3 3
		[ "$(nevents failed)" -eq 0 ]
	done
}

@test "replicate: kill one replica (not a master) of each example" {
	for ex in ring pi jacobi farm; do
		survive $ex 4 2 --inject kill:rank=2,replica=1,at=0.15s
		[ "$(nevents inject)" -eq 1 ]
		[ "$(nevents failed)" -eq 1 ]
		[ "$(nevents master)" -eq 0 ]
	done
}

@test "replicate: kill a master; its replica takes over" {
	for ex in ring pi jacobi farm; do
		survive $ex 4 2 --inject kill:rank=1,role=master,at=0.15s
		[ "$(nevents failed)" -eq 1 ]
		grep -q '"event":"master","rank":1,"replica":1' \
		    "$BATS_TEST_TMPDIR/ev"
	done
}

@test "replicate: kill rank 0's master, with 2 and 3 replicas" {
	for ex in ring pi jacobi farm; do
		survive $ex 3 2 --inject kill:rank=0,role=master,at=0.1s
		survive $ex 3 3 --inject kill:rank=0,role=master,at=0.1s
		grep -q '"event":"master","rank":0,"replica":1' \
		    "$BATS_TEST_TMPDIR/ev"
	done
}

@test "replicate: with 3 replicas, kill two masters of rank 0 in turn" {
	for ex in ring jacobi farm; do
		survive $ex 3 3 --inject kill:rank=0,role=master,at=0.1s \
		    --inject kill:rank=0,role=master,at=0.25s
		[ "$(nevents master)" -eq 2 ]
		grep -q '"event":"master","rank":0,"replica":2' \
		    "$BATS_TEST_TMPDIR/ev"
	done
}

@test "replicate: kill several replicas of different ranks at once" {
	for ex in ring pi jacobi farm; do
		survive $ex 4 2 --inject kill:rank=0,role=master,at=0.12s \
		    --inject kill:rank=1,replica=1,at=0.12s \
		    --inject kill:rank=2,role=master,at=0.12s \
		    --inject kill:rank=3,replica=0,at=0.12s
		[ "$(nevents failed)" -eq 4 ]
	done
}

@test "replicate: random kills at random moments, several seeds" {
	local seed ex r
	for seed in 1 2 3 4 5 6; do
		for ex in ring jacobi farm; do
			r=$((2 + seed % 2))
			survive $ex 4 $r \
			    --inject kill:random,every=0.0$((3 + seed))s,count=$((2 * r)),seed=$seed
		done
	done
}

@test "replicate: a kill after a number of sends (after-sends)" {
	survive ring 3 2 --inject kill:rank=1,role=master,after-sends=500
	[ "$(nevents failed)" -eq 1 ]
	grep -q '"event":"inject","rank":1,"replica":0,.*"trigger":"after-sends"' \
	    "$BATS_TEST_TMPDIR/ev"
}

@test "replicate: the collective tests survive random kills, -r 3 and 2" {
	local t r=2
	# Not coll_barrier: it reads clock_gettime, outside the determinism
	# contract (ft(7)), so replicas of a rank disagree on the time.
	for t in coll_allreduce coll_bcast coll_alltoall coll_scan \
	    coll_gather coll_reduce coll_sort; do
		ftcc -O1 -o "$FT_PROGS/$t" "$FT_ROOT/tests/mpi/$t.c"
		r=$((5 - r))
		run -0 --separate-stderr ftrun -n 4 -r $r --timeout 120 \
		    --inject kill:random,every=0.01s,count=$((2 * r)),seed=7 \
		    "$FT_PROGS/$t"
		[[ $output == *"No Errors"* ]]
		no_orphans
	done
}

@test "replicate: losing every replica of a rank ends the job naming it" {
	run -137 --separate-stderr ftrun -n 3 -r 2 --timeout 60 \
	    --events "$BATS_TEST_TMPDIR/ev" \
	    --inject kill:rank=2,replica=0,at=0.1s \
	    --inject kill:rank=2,replica=1,at=0.2s $(prog ring)
	[[ $stderr == *"rank 2 lost its last replica"* ]]
	grep -q '"event":"abort","rank":2' "$BATS_TEST_TMPDIR/ev"
	no_orphans
}

@test "replicate: events say failed, view and master, in order" {
	survive ring 2 2 --inject kill:rank=0,role=master,at=0.1s
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
	run -0 --separate-stderr bash -c "seq 1 200000 | ftrun -n 2 -r 2 \
	    --timeout 60 --inject kill:rank=0,role=master,at=0.05s \
	    $FT_PROGS/echoin"
	[ "$output" = "lines 200000 sum 20000100000" ]
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
