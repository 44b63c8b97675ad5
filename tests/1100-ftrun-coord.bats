# SPDX-License-Identifier: ISC
# ftrun --ft coord: coordinated checkpoints (Chandy-Lamport markers, the
# messages in flight at a cut saved in the receivers' images).  On a
# failure every rank rolls back to the newest complete epoch within the
# same run; the output is that of a run without failures and the job
# exits 0.  Kills are tied to progress: --inject ...,after-sends=N (a
# rank's Kth process takes the Kth spec naming it, and every rollback
# starts a new process of every rank), or FT_CKPT_TEST_DIE=WHERE:EPOCH
# (a rank dies at that point of its own checkpoint, once).

load common
load ckpt
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build jacobi "$FT_ROOT/examples/jacobi.c"
	ft_build coordring
	ftrun -n 4 "$FT_PROGS/jacobi" 64 400 >"$FT_PROGS/jacobi.ref"
	ftrun -n 4 "$FT_PROGS/coordring" 300 >"$FT_PROGS/coordring.ref"
}

setup() {
	fc_setup
	J=$FT_PROGS/jacobi
	R=$FT_PROGS/coordring
	out=$BATS_TEST_TMPDIR/out
	err=$BATS_TEST_TMPDIR/err
	ev=$BATS_TEST_TMPDIR/events
}

# Kill specs from a seed: NKILLS kills, the Kth of rank r_K after n_K
# sends of its Kth process (every rank's Kth process is the one after K
# rollbacks); the other ranks' Kth specs never fire.  With SKIP, the
# first SKIP processes of every rank are left alone (another kill
# takes them).  Sets $kills.
seeded_kills() {
	local seed=$1 nranks=$2 nkills=$3 lo=$4 hi=$5 skip=${6:-0} k r victim n
	RANDOM=$seed
	kills=()
	for ((k = 0; k < skip; k++)); do
		for ((r = 0; r < nranks; r++)); do
			kills+=(--inject "kill:rank=$r,after-sends=1000000000")
		done
	done
	for ((k = 0; k < nkills; k++)); do
		victim=$((RANDOM % nranks))
		n=$((lo + RANDOM % (hi - lo)))
		for ((r = 0; r < nranks; r++)); do
			if ((r == victim)); then
				kills+=(--inject "kill:rank=$r,after-sends=$n")
			else
				kills+=(--inject \
				    "kill:rank=$r,after-sends=1000000000")
			fi
		done
	done
}

# ftrun --ft coord ARGS under a timeout (a hang is a failure): stdout
# in $out, stderr in $err, events in $ev; it must exit 0.
coord_run() {
	if ! timeout 120 ftrun --ft coord --events "$ev" "$@" >"$out" \
	    2>"$err"; then
		cat "$err" >&2
		return 1
	fi
}

rollbacks() {
	grep -c '"event":"rollback"' "$ev" || true
}

# Were there N rollbacks?  If not, say what failed and what rolled back
# (a flake under load is then understood from its output alone).
rollbacks_are() {	# n
	local got
	got=$(rollbacks)
	[ "$got" -eq "$1" ] && return 0
	echo "$got rollbacks, not $1:"
	grep -E '"event":"(inject|failed|rollback|abort)"' "$ev" || true
	echo "checkpoint events: $(grep -c '"complete":true' "$ev") complete," \
	    "$(grep -c '"missed":true' "$ev") missed; the first complete:"
	grep -m 1 '"complete":true' "$ev" || true
	return 1
}

# The epoch of the (first) rollback.
rollback_epoch() {
	sed -n 's/.*"event":"rollback","epoch":\([0-9]*\),.*/\1/p' "$ev" |
	    head -1
}

@test "coord: jacobi, three kills at seeded moments, the fault-free output" {
	# The first kill is tied to an epoch: a seeded rank dies once
	# epoch 1 or 2 is complete (so the job rolls back to a non-zero
	# epoch whatever the machine's speed); the next two after seeded
	# numbers of sends of the later processes.  An epoch at every
	# ft_checkpoint() call, not every 10 ms: under load the job could
	# end before ftrun named one, and then no kill ever fired (0
	# rollbacks, seen twice in six loaded rounds of the suite).
	for seed in 11 23; do
		first=$((1 + seed % 2))
		seeded_kills "$seed" 4 2 100 500 1
		coord_run -n 4 --ckpt-dir "$FC_DIR/c$seed" \
		    --ckpt-interval 0 "${kills[@]}" \
		    -x FT_CKPT_TEST_DIE=complete:$first:$((seed % 4)) \
		    "$J" 64 400
		cmp "$FT_PROGS/jacobi.ref" "$out"
		rollbacks_are 3
		e=$(rollback_epoch)
		[ "$e" -ge "$first" ]
		[[ $(cat "$err") == *"every rank rolls back to epoch $e (--ft coord)"* ]]
	done
}

@test "coord: a ring whose messages cross every checkpoint, kills at seeded moments" {
	for seed in 5 8; do
		seeded_kills "$seed" 4 2 100 350
		coord_run -n 4 --ckpt-dir "$FC_DIR/c$seed" \
		    --ckpt-interval 5ms "${kills[@]}" "$R" 300
		cmp "$FT_PROGS/coordring.ref" "$out"
		rollbacks_are 2
	done
}

@test "coord: with no checkpoint yet, every rank starts again from the beginning" {
	coord_run -n 4 --inject kill:rank=1,after-sends=800 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	[[ $(cat "$err") == *"no complete checkpoint yet: every rank starts again"* ]]
	grep -q '"event":"rollback","epoch":0,' "$ev"
}

@test "coord: a rank killed during its own checkpoint, after the markers" {
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    -x FT_CKPT_TEST_DIE=cut:40 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	# Epoch 40 was never complete: the rollback went to an older one.
	e=$(rollback_epoch)
	[ "$e" -ge 1 ] && [ "$e" -lt 40 ]
}

@test "coord: an error with no death ends the job with it, no rollback" {
	# Every rank's MPI_ERR_OTHER at the cut of epoch 40, as a transport
	# error would be: no process died, so ftrun ends the job with the
	# first rank's error instead of rolling back (it no longer waits
	# for the rank's 10 s hold).
	run -16 timeout 60 ftrun --ft coord --events "$ev" -n 4 \
	    --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    -x FT_CKPT_TEST_DIE=error:40 "$J" 64 400
	[[ $output == *"aborted the job with code 16: ft_checkpoint: a test's transport error at the cut of epoch 40"* ]]
	grep -q '"event":"abort"' "$ev"
	! grep -q '"event":"rollback"' "$ev"
}

@test "coord: a rank killed once its image is written, before ftrun knows" {
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    -x FT_CKPT_TEST_DIE=written:40 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	e=$(rollback_epoch)
	[ "$e" -ge 1 ] && [ "$e" -lt 40 ]
}

@test "coord: a rank killed while its image is written in the background" {
	# The writer thread dies with the rank after ft_checkpoint() has
	# returned and the rank went on: epoch 40 was never durable there.
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    -x FT_CKPT_TEST_DIE=writing:40 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	e=$(rollback_epoch)
	[ "$e" -ge 1 ] && [ "$e" -lt 40 ]
	# Epoch 40 is complete only when taken again after the rollback.
	c=$(grep -n '"event":"checkpoint","epoch":40,"complete":true' "$ev" |
	    head -1 | cut -d: -f1)
	r=$(grep -n '"event":"rollback"' "$ev" | head -1 | cut -d: -f1)
	[ -z "$c" ] || [ "$c" -gt "$r" ]
}

@test "coord: the next image waits for the one still being written" {
	# Every rank's writer holds epoch 40's image until its next image
	# is ready to go: the rank waits, both are written, none skipped.
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    -x FT_CKPT_TEST_DIE=hold:40 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	grep -q '"event":"checkpoint","epoch":40,"complete":true' "$ev"
	grep -q '"event":"checkpoint","epoch":41,"complete":true' "$ev"
	rollbacks_are 0
}

@test "coord: a rank killed during the push, and the checkpoint server killed" {
	fc_start "$FC_DIR/srv"
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    --ckpt-server "$FC_ADDR" --key-file "$FC_KEY" \
	    -x FT_CKPT_TEST_DIE=push:3 "$R" 300
	cmp "$FT_PROGS/coordring.ref" "$out"
	# Killed in its first push of epoch 3 or later: only what the
	# server acknowledged counts, and that is below 3.
	e=$(rollback_epoch)
	[ "$e" -lt 3 ]
	# The server goes once a complete epoch is on it: the job goes on,
	# and a later failure rolls back to what it acknowledged before.
	# The watcher waits while the job runs (coord_run's timeout bounds
	# it), not 30 s of its own: at load 20 the job had not one
	# checkpoint event in 30 s, twice in two rounds.
	rm -f "$ev"
	(
		until grep -qs '"complete":true' "$ev"; do
			if [ -e "$FC_DIR/done" ]; then
				echo "the job ended with no complete epoch:"
				grep '"event":"checkpoint"' "$ev" | tail -5
				exit 1
			fi
			sleep 0.05
		done
		kill -9 "$FC_PID"
	) 3>&- &
	watcher=$!
	FT_BG_PIDS+=("$watcher")
	coord_run -n 4 --ckpt-dir "$FC_DIR/c2" --ckpt-interval 5ms \
	    --ckpt-server "$FC_ADDR" --key-file "$FC_KEY" \
	    --inject kill:rank=3,after-sends=1200 "$J" 64 400
	touch "$FC_DIR/done"
	wait "$watcher"
	cmp "$FT_PROGS/jacobi.ref" "$out"
	rollbacks_are 1
	# Killed: gone (a zombie not yet reaped counts as gone).
	ft_poll 10 ft_gone "$FC_PID"
}

@test "coord: a rank killed halfway through its upload: the server keeps nothing of it" {
	fc_start "$FC_DIR/srv"
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    --ckpt-server "$FC_ADDR" --key-file "$FC_KEY" \
	    -x FT_CKPT_TEST_DIE=midpush:3:2 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	# Rank 2 sent half of its image of epoch p (the first push at or
	# after 3 ftrun named) and died: p was never complete, the job
	# rolled back below it, and the server dropped the half upload.
	cut='.*rank 2: epoch \([0-9]*\): .*upload cut after .* (a test): killed'
	p=$(sed -n "s/$cut.*/\\1/p" "$err")
	[ "$p" -ge 3 ]
	rollbacks_are 1
	e=$(rollback_epoch)
	[ "$e" -lt "$p" ]
	! grep -q "\"epoch\":$p,\"complete\":true" <(sed -n \
	    '1,/"event":"rollback"/p' "$ev")
	ftckpt verify "$FC_DIR/srv" >/dev/null
	[ -z "$(find "$FC_DIR/srv" -name '*.tmp')" ]
}

@test "coord: --ckpt-server auto killed: restarted on its address, epochs complete on it again" {
	# The server dies at once; ftrun says so and restarts it on its
	# address (ckptsrv2), and the ranks push to it again: rank 1 dies
	# once epoch 100 is complete (it never would, were the restarted
	# server not reached), and the job rolls back to it or later.
	(
		ft_poll 30 grep -qs '"event":"ckpt_server","addr"' "$ev"
		kill -9 "$(sed -n \
		    's/.*"event":"ckpt_server","addr":"[^"]*","pid":\([0-9]*\).*/\1/p' \
		    "$ev")"
	) &
	watcher=$!
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    --ckpt-server auto -x FT_CKPT_TEST_DIE=complete:100:1 "$J" 64 400
	wait "$watcher"
	cmp "$FT_PROGS/jacobi.ref" "$out"
	grep -q "the checkpoint server was killed by signal 9 (Killed); \
restarted on tcp:127.0.0.1:[0-9]* (1 of 8)" "$err"
	grep -q '"event":"ckpt_server","status":"[^"]*","restarted":true' "$ev"
	rollbacks_are 1
	e=$(rollback_epoch)
	[ "$e" -ge 100 ]
}

@test "coord: a server run by hand killed: said once, its local images complete epochs" {
	# The server goes once an epoch is complete on it.  The ranks'
	# pushes fail: ftrun says so once, and from then on an epoch is
	# complete once every rank wrote it locally (ckptsrv2): rank 1
	# dies once epoch 100 is (it never would, were completion waiting
	# for the server), and the job rolls back to it or later.
	fc_start "$FC_DIR/srv"
	(
		ft_poll 30 grep -qs '"complete":true' "$ev"
		kill -9 "$FC_PID"
	) &
	watcher=$!
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    --ckpt-server "$FC_ADDR" --key-file "$FC_KEY" \
	    -x FT_CKPT_TEST_DIE=complete:100:1 "$J" 64 400
	wait "$watcher"
	cmp "$FT_PROGS/jacobi.ref" "$out"
	[ "$(grep -c "cannot reach the checkpoint server: images stay \
local until it is back" "$err")" -eq 1 ]
	[ "$(grep -c '"status":"unreachable"' "$ev")" -eq 1 ]
	rollbacks_are 1
	e=$(rollback_epoch)
	[ "$e" -ge 100 ]
}

@test "coord: a program that waits in ft_checkpoint_stat() for the server sees its images durable" {
	# bench/ckptapp.c waits, after each checkpoint, until its image is
	# on the server, calling nothing of MPI meanwhile: the pushes ftrun
	# names must still reach it (ft_checkpoint_stat() makes progress).
	ftcc -O1 -o "$BATS_TEST_TMPDIR/ckptapp" "$FT_ROOT/bench/ckptapp.c" -lm
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    --ckpt-server auto "$BATS_TEST_TMPDIR/ckptapp" 1 3
	[ "$(grep -c '^held=.* durable=' "$out")" -eq 3 ]
	grep -q '"event":"checkpoint","epoch":3,"complete":true' "$ev"
}

@test "coord: ranks die with their local images: the images come from the server" {
	fc_start "$FC_DIR/srv"
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    --ckpt-server "$FC_ADDR" --key-file "$FC_KEY" \
	    -x FT_CKPT_TEST_DIE=lost:60 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	e=$(rollback_epoch)
	[ "$e" -ge 1 ] && [ "$e" -lt 60 ]
	grep -q "epoch $e was not here: fetched from the checkpoint server" \
	    "$err"
}

@test "coord: --ckpt-server auto runs the server for the job, and a lost image comes from it" {
	tmp=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$tmp"
	TMPDIR=$tmp coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    --ckpt-server auto -x FT_CKPT_TEST_DIE=lost:60 "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	addr=$(sed -n 's/.*"event":"ckpt_server","addr":"\([^"]*\)".*/\1/p' \
	    "$ev")
	[[ $addr == tcp:127.0.0.1:* ]]
	grep -q "was not here: fetched from the checkpoint server $addr" \
	    "$err"
	# The server stored the job's images, and is gone with its key.
	[ "$(fc_count "$FC_DIR/c/server")" -gt 0 ]
	[ -z "$(ls -A "$tmp")" ]
	! pgrep -f "ftckpt serve --dir $FC_DIR/c/server" >/dev/null
	run -100 ftrun -n 2 --host 127.0.0.1 --ckpt-dir "$FC_DIR/c" \
	    --ckpt-server auto true
	[[ $output == *"--ckpt-server auto listens on this host's loopback only"* ]]
}

@test "coord: ftckpt prune in a loop while the job checkpoints and fails" {
	mkdir -p "$FC_DIR/c"
	(
		while [ ! -e "$FC_DIR/stop" ]; do
			ftckpt prune --keep 1 "$FC_DIR/c" >/dev/null 2>&1 || :
		done
	) &
	pruner=$!
	seeded_kills 3 4 3 100 500
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 5ms \
	    "${kills[@]}" "$J" 64 400
	touch "$FC_DIR/stop"
	wait "$pruner"
	cmp "$FT_PROGS/jacobi.ref" "$out"
	rollbacks_are 3
}

@test "coord: --ckpt-policy rr and adaptive are refused (they are vlog's), saying why; all is accepted" {
	for p in rr adaptive; do
		run -100 ftrun -n 2 --ft coord --ckpt-dir "$FC_DIR/c" \
		    --ckpt-policy "$p" true
		[[ $output == *"--ckpt-policy $p: checkpoints of one rank at a time are for message logging (--ft vlog); use all"* ]]
	done
	run -100 ftrun -n 2 --ckpt-dir "$FC_DIR/c" --ckpt-policy bogus true
	[[ $output == *"'bogus': all, rr or adaptive"* ]]
	run -100 ftrun -n 2 --ckpt-policy all true
	[[ $output == *"--ckpt-policy needs --ckpt-dir"* ]]
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-policy all "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
}

@test "coord: --ckpt-interval auto picks the interval itself; refused without --ft coord" {
	run -100 ftrun -n 2 --ckpt-dir "$FC_DIR/n" --ckpt-interval auto true
	[[ $output == *"--ckpt-interval auto needs --ft coord"* ]]
	# A kill at seeded moments: the fault-free output; every complete
	# epoch says the interval it was taken at.
	seeded_kills 5 4 1 300 900
	coord_run -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval auto \
	    "${kills[@]}" "$J" 64 400
	cmp "$FT_PROGS/jacobi.ref" "$out"
	rollbacks_are 1
	! grep '"complete":true' "$ev" | grep -qv '"interval_ms":'
}
