# SPDX-License-Identifier: ISC
# ftrun --ft vlog --ckpt-dir: images of one rank at a time (issue 15).  A
# dead rank restarts from its newest good image and replays only what
# came after it; once a rank's image is durable its peers drop what the
# image before it had delivered (GC).  Checkpoints are tied to progress
# (FT_CKPT_EVERY=N: every Nth ft_checkpoint() call), kills too
# (--inject ...,after-sends=N), never to time.  With a checkpoint server
# (--ckpt-server auto), images are pushed in the background, GC waits
# for the push, and a rank that finds no usable image here fetches one
# from the server; faults around images: a rank killed in its own
# write, in its push, the server killed.

load common
load ckpt
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build jacobi "$FT_ROOT/examples/jacobi.c"
	ftrun -n 4 "$FT_PROGS/jacobi" 64 300 >"$FT_PROGS/jacobi4.ref"
	ft_build ckjacobi
	ftrun -n 4 "$FT_PROGS/ckjacobi" 64 300 >"$FT_PROGS/ckjacobi4.ref"
}

# ftrun --ft vlog --ckpt-dir with ARGS (a checkpoint every 50 calls
# unless EVERY says otherwise) in a directory of its own; $out, $err,
# $ev (the events) and $ck (the images).  Exit status in $rc.
img_run() {
	local tmp="$BATS_TEST_TMPDIR/job"
	mkdir -p "$tmp"
	out="$BATS_TEST_TMPDIR/out"
	err="$BATS_TEST_TMPDIR/err"
	ev="$BATS_TEST_TMPDIR/ev"
	ck="$BATS_TEST_TMPDIR/ck"
	rc=0
	env TMPDIR="$tmp" FT_CKPT_EVERY="${EVERY:-50}" FT_VLOG_STATS=1 \
	    ftrun --ft vlog --ckpt-dir "$ck" --events "$ev" "$@" \
	    >"$out" 2>"$err" || rc=$?
	# Nothing of the job is left behind (but the event log of a job
	# that failed, which ftrun keeps and names), and no process.
	run ls -A "$tmp"
	[ "$output" = "" ] || [ "$rc" -ne 0 ] || {
		echo "left in the job's TMPDIR: $output" >&2
		false
	}
	run pgrep -af "$FT_PROGS/jacobi"
	[ "$status" -eq 1 ] || { echo "left: $output" >&2; false; }
}

# How many messages the GC dropped, over every rank's last process.
dropped() {
	awk '/^vlog-stats/ { n += $(NF - 4) } END { print n + 0 }' "$err"
}

@test "vlog images: a rank killed after its image restarts from it, then again from a later one" {
	# The second process dies after 500 sends (about 125 calls): its
	# image of call 50 is written by then, since the one of call 100
	# waits for it (FT_CKPT_EVERY).
	img_run -n 4 --log-dir "$BATS_TEST_TMPDIR/log" \
	    --inject kill:rank=2,after-sends=400 \
	    --inject kill:rank=2,after-sends=500 "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	run grep -c "rank 2 (pid .*restarting it" "$err"
	[ "$output" = 2 ]
	# Each process restarts from an image, the second from a later one.
	run grep -o "rank 2 (incarnation [12]) restarts from its image of epoch [0-9]*" "$err"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[1]##* }" -gt "${lines[0]##* }" ]
	run grep -c '"event":"restart_image","rank":2' "$ev"
	[ "$output" = 2 ]
	run grep -c '"event":"replayed","rank":2' "$ev"
	[ "$output" = 2 ]
	[[ $(cat "$err") != *divergence* ]]
	# The logs of the job still read as one run.
	run -0 --separate-stderr ftreplay --verify "$BATS_TEST_TMPDIR/log"
	[[ $output == *" result=ok" ]]
}

@test "vlog images: a peer killed after the GC does not need what was dropped" {
	# Rank 1 dies late: its peers dropped most of what they sent it.
	img_run -n 4 --inject kill:rank=1,after-sends=1000 \
	    "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 1 (incarnation 1) restarts from its image of epoch" "$err"
	[ "$(dropped)" -gt 1000 ]
	# The proof that the payloads are gone: the same rank, its images
	# lost with it, restarts from its start and needs them; the job
	# ends, saying why, instead of waiting for them.
	FT_CKPT_TEST_DIE=lost:5:1 img_run -n 4 "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 100 ]
	# (Its neighbours 0 and 2 read the GC before rank 1's later halo
	# rows; whichever aborts first is named.)
	grep -q "rank 1 cannot be restarted: it asks rank [0-3] for its messages from 0, but those below [0-9]* were dropped once an image of rank 1 was durable" "$err"
}

@test "vlog images: a corrupt newest image: the one before, saying so" {
	# Rank 2 dies with a byte of its image of epoch 4 flipped.
	FT_CKPT_TEST_DIE=corrupt:4:2 img_run -n 4 "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 2: image '.*/rank-2/00000000000000000004.ftc': corrupt (bad checksum of the stored bytes); falling back to an older image" "$err"
	grep -q "rank 2 (incarnation 1) restarts from its image of epoch 3" "$err"
	run grep -c "restarting it" "$err"
	[ "$output" = 1 ]
}

# The sender-log file (vlogbw, ft-ckpt(5) VLG2): with
# FT_CKPT_VLOG_LOGFILE=1 every payload (Jacobi's are 512 bytes) goes to
# DIR/job-J/rank-R/sendlog and images name their extents.
@test "vlog images: payloads in the sender-log file: kills restart from the newest image; images stay small" {
	FT_CKPT_VLOG_LOGFILE=1 img_run -n 4 \
	    --inject kill:rank=2,after-sends=400 \
	    --inject kill:rank=1,after-sends=1000 "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 2 (incarnation 1) restarts from its image of epoch" "$err"
	grep -q "rank 1 (incarnation 1) restarts from its image of epoch" "$err"
	[ "$(dropped)" -gt 1000 ]
	[[ $(cat "$err") != *divergence* ]]
	# Each rank's last process wrote payloads to its file, and its
	# images hold none (a VLG2 state names extents: 28 bytes a
	# message, where VLG1 held 536); ranks that end well remove
	# their files, and the images stay.
	run grep -c "^vlog-ckpt rank [0-3]: [1-9][0-9]* images, [0-9]* bytes of images, [1-9][0-9]* bytes to its sender-log file" "$err"
	[ "$output" = 4 ]
	run ls "$ck"/job-*/rank-*/sendlog
	[ "$status" -ne 0 ]
	run -0 ftckpt verify "$ck"
}

@test "vlog images: a damaged or missing sender-log file: the image before, or the start, saying so" {
	# Rank 2 dies with a byte flipped in the payload its image of epoch
	# 4 names last (written after the image of epoch 3).
	FT_CKPT_VLOG_LOGFILE=1 FT_CKPT_TEST_DIE=logcorrupt:4:2 img_run -n 4 \
	    "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 2: image '.*/rank-2/00000000000000000004.ftc': the sender log '.*/rank-2/sendlog' it names is damaged or short; falling back to an older image" "$err"
	grep -q "rank 2 (incarnation 1) restarts from its image of epoch 3" "$err"
	# Rank 1 loses its file after its first image (before any GC):
	# that image is refused, naming the file; it starts again from
	# its beginning.
	FT_CKPT_VLOG_LOGFILE=1 FT_CKPT_TEST_DIE=nolog:1:1 img_run -n 4 \
	    "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 1: image '.*/rank-1/00000000000000000001.ftc': the sender log '.*/rank-1/sendlog' it names is missing; falling back to an older image" "$err"
	grep -q "rank 1: no usable image: restarting from its beginning" "$err"
}

@test "vlog images: --ckpt-policy rr and adaptive, with a kill; refusals" {
	local pol
	for pol in rr adaptive; do
		EVERY=0 img_run -n 4 --ckpt-interval 20ms --ckpt-policy "$pol" \
		    --inject kill:rank=3,after-sends=900 "$FT_PROGS/jacobi" \
		    64 300
		[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
		cmp "$FT_PROGS/jacobi4.ref" "$out"
		run grep -c "restarting it" "$err"
		[ "$output" = 1 ]
	done
	run -100 ftrun -n 2 --ckpt-dir "$BATS_TEST_TMPDIR/ck2" \
	    --ckpt-interval 1s --ckpt-policy rr "$FT_PROGS/jacobi" 8 2
	[[ $output == *"--ckpt-policy rr: checkpoints of one rank at a time are for message logging (--ft vlog); use all"* ]]
	run -100 ftrun -n 2 --ft vlog --ckpt-dir "$BATS_TEST_TMPDIR/ck2" \
	    --ckpt-policy adaptive "$FT_PROGS/jacobi" 8 2
	[[ $output == *"--ckpt-policy adaptive needs --ckpt-interval"* ]]
	run -100 ftrun -n 2 --ft vlog --ckpt-dir "$BATS_TEST_TMPDIR/ck2" \
	    --ckpt-interval 1s --ckpt-policy sometimes "$FT_PROGS/jacobi" 8 2
	[[ $output == *"--ckpt-policy 'sometimes': all, rr or adaptive"* ]]
}

# Are the server's images of job in $ck whole: no upload left half
# done (but by a server killed in it: its temporary file, never listed
# nor read, goes when a server starts on the directory), each verifies?
server_whole() {	# [killed]
	[ -n "${1:-}" ] || [ -z "$(find "$ck/server" -name '*.tmp*')" ]
	run -0 ftckpt verify "$ck/server"
	[[ $output != *bad* ]]
}

@test "vlog images with a server: a rank that lost its disk fetches its image from the server" {
	# Rank 1 dies at its image of epoch 5 with its local images (once
	# the server holds the one before); without the server the job
	# ends with exit 100 (the test above).
	FT_CKPT_TEST_DIE=lost:5:1 img_run -n 4 --ckpt-server auto \
	    "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 1: its image of epoch [45] was fetched from the checkpoint server tcp:127.0.0.1:" "$err"
	grep -q "rank 1 (incarnation 1) restarts from its image of epoch [45]" "$err"
	# GC ran, on pushed images only: the peers still held what the
	# fetched image needs (else exit 100).
	[ "$(dropped)" -gt 0 ]
	server_whole
}

@test "vlog images with a server: killed in its own write, and in its push" {
	# Rank 2 dies in the writer thread before its image of epoch 5 is
	# written: the one of 4, never a half-written 5.
	FT_CKPT_TEST_DIE=writing:5:2 img_run -n 4 --ckpt-server auto \
	    "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 2 (incarnation 1) restarts from its image of epoch 4" "$err"
	server_whole
	# Rank 1 dies while it pushes epoch 3 or later: its local image;
	# the server dropped the upload it was in.
	FT_CKPT_TEST_DIE=push:3:1 img_run -n 4 --ckpt-server auto \
	    "$FT_PROGS/jacobi" 64 300
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/jacobi4.ref" "$out"
	grep -q "rank 1 (incarnation 1) restarts from its image of epoch [3-9]" "$err"
	[[ $(cat "$err") != *"fetched from the checkpoint server"* ]]
	server_whole
}

# Has rank R pushed its image of epoch E to the server in $ck?
pushed() {	# r e
	[ -n "$(find -L "$ck/server" -path "*/rank-$1/$(printf '%020u' "$2").ftc" 2>/dev/null)" ]
}

# Has rank R pushed an image of epoch E or later (a push takes the
# newest image only, and may skip some)?
pushed_since() {	# r e
	local k
	for ((k = $2; k <= 15; k++)); do
		! pushed "$1" "$k" || return 0
	done
	return 1
}

# The newest epoch of rank R's images on the server, 0 if none.
newest_pushed() {	# r
	local f n=0 e
	for f in $(find -L "$ck/server" -path "*/rank-$1/*.ftc" 2>/dev/null); do
		e=$(basename "$f" .ftc)
		e=$((10#$e))
		[ "$e" -le "$n" ] || n=$e
	done
	echo "$n"
}

# Images of each rank on the server, "R:N" per rank, sorted.
server_counts() {
	find -L "$ck/server" -name '*.ftc' | sed -E 's,.*/rank-([0-9]+)/.*,\1,' |
	    sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'
}

@test "vlog images with a server: the server killed is restarted on its address; a rank that loses its disk later fetches its image from it; GC on the server" {
	local tmp="$BATS_TEST_TMPDIR/job" pid addr m e
	mkdir -p "$tmp"
	out="$BATS_TEST_TMPDIR/out"
	err="$BATS_TEST_TMPDIR/err"
	ev="$BATS_TEST_TMPDIR/ev"
	ck="$BATS_TEST_TMPDIR/ck"
	# Rank 0 waits at the gate (iteration 150) while rank 2 has pushed
	# an image of epoch 3 (iteration 60) or later; the server is killed
	# there, and the gate opens once ftrun has restarted it.  Rank 2
	# dies at its image of epoch 10 (iteration 200) with its local
	# images, once the server holds its image of 9: written (iteration
	# 180) after the restart, since rank 2 cannot pass iteration 152
	# while rank 0 waits.
	env TMPDIR="$tmp" FT_CKPT_EVERY=20 FT_CKPT_TEST_DIE=lost:10:2 \
	    ftrun --ft vlog --ckpt-dir "$ck" --ckpt-server auto --events "$ev" \
	    -n 4 "$FT_PROGS/ckjacobi" 64 300 "$BATS_TEST_TMPDIR/go" \
	    >"$out" 2>"$err" &
	FT_BG_PIDS+=("$!")
	ft_poll 60 pushed_since 2 3
	pid=$(sed -nE '1,/"event":"ckpt_server"/s/.*"event":"ckpt_server","addr":"[^"]*","pid":([0-9]+).*/\1/p' "$ev")
	addr=$(sed -nE '1,/"event":"ckpt_server"/s/.*"event":"ckpt_server","addr":"([^"]*)".*/\1/p' "$ev")
	[ -n "$pid" ] && [ -n "$addr" ]
	kill -KILL "$pid"
	ft_poll 60 grep -qs '"event":"ckpt_server".*"restarted":true' "$ev"
	m=$(newest_pushed 2)
	[ "$m" -ge 3 ] && [ "$m" -le 7 ]
	touch "$BATS_TEST_TMPDIR/go"
	rc=0
	wait "${FT_BG_PIDS[-1]}" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/ckjacobi4.ref" "$out"
	grep -q "the checkpoint server was killed by signal 9 (Killed); restarted on $addr (1 of 8)" "$err"
	grep -q "\"restarted\":true,\"addr\":\"$addr\"" "$ev"
	# From the new server: an image it got after its restart.
	e=$(sed -nE "s/.*rank 2: its image of epoch ([0-9]+) was fetched from the checkpoint server $addr.*/\1/p" "$err")
	[ -n "$e" ] && [ "$e" -gt "$m" ]
	grep -q "rank 2 (incarnation 1) restarts from its image of epoch $e" "$err"
	server_whole killed
	# GC on the server: each rank's retention (3 images) only, where
	# 15 images a rank were written.
	[ "$(server_counts)" = "0:3 1:3 2:3 3:3 " ] || {
		echo "on the server: $(server_counts)" >&2
		false
	}
	# ftckpt prune still works on top.
	run -0 ftckpt prune --keep 1 "$ck/server"
	[ "$(server_counts)" = "0:1 1:1 2:1 3:1 " ]
	[ -z "$(ls -A "$tmp")" ]
}

@test "vlog images with a server run by hand: its death is said once, the job goes on from local images, pushes resume once it is back" {
	local tmp="$BATS_TEST_TMPDIR/job" e n job
	mkdir -p "$tmp"
	# fc_setup's key without its ft_setup (setup ran it).
	FC_DIR=$BATS_TEST_TMPDIR
	FC_KEY=$FC_DIR/cluster.key
	ftboot keygen --key-file "$FC_KEY" >/dev/null
	fc_start "$FC_DIR/srv"
	out="$BATS_TEST_TMPDIR/out"
	err="$BATS_TEST_TMPDIR/err"
	ev="$BATS_TEST_TMPDIR/ev"
	ck="$BATS_TEST_TMPDIR/ck"
	# Gate 1 (iteration 150): rank 2 has pushed epoch 3 or later; the
	# server is killed.  Rank 2 dies at its 400th send (iteration
	# 200), after images it could not push, and restarts from a local
	# one.  Gate 2 (iteration 250): once ftrun said the server is gone
	# and rank 2 is back, the server starts again on its address, and
	# the gate opens once rank 0's pushes reach it.
	mkdir -p "$ck"
	ln -s "$FC_DIR/srv" "$ck/server"
	env TMPDIR="$tmp" FT_CKPT_EVERY=20 FT_TEST_GATE2_AT=250 \
	    ftrun --ft vlog --ckpt-dir "$ck" --ckpt-server "$FC_ADDR" \
	    --key-file "$FC_KEY" --events "$ev" \
	    --inject kill:rank=2,after-sends=400 -n 4 "$FT_PROGS/ckjacobi" \
	    64 300 "$BATS_TEST_TMPDIR/go" >"$out" 2>"$err" &
	job=$!
	FT_BG_PIDS+=("$job")
	ft_poll 60 pushed_since 2 3
	kill -KILL "$FC_PID"
	touch "$BATS_TEST_TMPDIR/go"
	ft_poll 60 grep -qs '"status":"unreachable"' "$ev"
	ft_poll 60 grep -qs '"event":"restart_image","rank":2' "$ev"
	ft_bg ftckpt serve --dir "$FC_DIR/srv" --listen "$FC_ADDR" \
	    --key-file "$FC_KEY" >/dev/null 2>"$FC_DIR/srv2.err"
	# Rank 0 (at iteration 250), whose pushes failed since gate 1,
	# tries its newest image again every second: the one of epoch 12
	# reaches the server.
	ft_poll 60 pushed_since 0 12
	touch "$BATS_TEST_TMPDIR/go2"
	rc=0
	wait "$job" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$err" >&2; false; }
	cmp "$FT_PROGS/ckjacobi4.ref" "$out"
	# Said once, by ftrun, and once that it is back.
	n=$(grep -c "cannot reach the checkpoint server: images stay local until it is back" "$err")
	[ "$n" -eq 1 ]
	[ "$(grep -c '"status":"unreachable"' "$ev")" -eq 1 ]
	grep -q "reached the checkpoint server again: images are pushed" "$err"
	[ "$(grep -c '"status":"reachable"' "$ev")" -eq 1 ]
	# From a local image newer than any the server got before.
	e=$(sed -nE 's/.*rank 2 \(incarnation 1\) restarts from its image of epoch ([0-9]+).*/\1/p' "$err")
	[ -n "$e" ] && [ "$e" -ge 8 ]
	[[ $(cat "$err") != *"fetched from the checkpoint server"* ]]
	# Pushes resumed: images written after gate 2 (iteration 260 on)
	# are on the server.
	[ "$(newest_pushed 0)" -ge 13 ]
	[ "$(newest_pushed 2)" -ge 13 ]
	[ "$(newest_pushed 3)" -ge 13 ]
	server_whole killed
}
