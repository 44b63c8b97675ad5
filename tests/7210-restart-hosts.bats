# SPDX-License-Identifier: ISC
# Restarts across hosts: network namespaces (tests/netns.bash), one
# ftboot daemon in each of hosts 1 to 3, ftrun (and with it the event
# logger, or the checkpoint server) in host 4.  --ft vlog: a rank killed
# on a live host is restarted there; a whole host killed (daemon, agent,
# ranks) while rank 0 waits at the job's gate has its ranks restarted on
# the others, which replay; with images and a checkpoint server, a
# host killed with its disk has its ranks restart elsewhere from their
# images on the server.  --ft coord: a whole host killed (its disk
# with it), every rank rolls back, its ranks on the others reading their
# images from the checkpoint server.  --ft ftmpi --comm-mode rebuild: a
# new process on the dead one's host, or on another when the host died.
# The output is that of a run
# without failures, exit 0, and nothing of the job is left in any host.
# Faults are tied to progress: --inject after-sends for the rank, the
# programs' gates for the hosts.  Needs root; skips, saying so, without.

load common
load netns
load jobhosts
bats_require_minimum_version 1.5.0

setup_file() {
	ft_build ckjacobi
	ftrun -n 6 "$FT_PROGS/ckjacobi" 60 200 >"$FT_PROGS/ckjacobi6.ref"
	# The hosts serve every test; a test that kills one has its daemon
	# started again by the next (setup).
	hosts_setup_file
}

# Start vlogmix (6 ranks, 24 rounds, gated halfway) from host 4.
start_job() {	# [ftrun options]
	start_prog --ft vlog "$@" "$FT_PROGS/vlogmix" 24
	REF=$FT_PROGS/vlogmix6.ref
}

@test "vlog across hosts: a rank killed is restarted on its own host" {
	start_job --inject kill:rank=3,after-sends=20
	ft_poll 60 grep -q '"event":"rejoin","rank":3' "$EV"
	first=$(sed -nE 's/.*"event":"spawn","rank":3,.*"host":"([^"]*)".*/\1/p' "$EV" | head -n 1)
	[ -n "$first" ]
	[ "$(host_of 3)" = "$first" ]
	finish
	grep -q "rank 3 (pid [0-9]*) was killed by signal 9.*restarting it" "$ERR"
}

# A vlog job from host 4 with a host killed: host I, or, with "rank0",
# the one that runs rank 0.  Once rank 0 waits at the gate (halfway) and
# the victims have logged outcomes (MPI_Test's, every round), the host
# goes; each of its ranks must rejoin on another host, and the job end
# as without failures.
vlog_host_killed() {	# victim: "other" or "rank0"
	LOGDIR="$BATS_TEST_TMPDIR/log"
	start_job --log-dir "$LOGDIR"
	ft_poll 60 all_spawned
	if [ "$1" = rank0 ]; then
		victim=$(host_of 0)
		victim=${victim#h}
	else
		victim=$(victim_host)
	fi
	ranks=$(ranks_on "$victim")
	[ -n "$ranks" ]
	for r in $ranks; do
		ft_poll 60 has_records "$r"
	done
	netns_kill_host "$victim"
	for r in $ranks; do
		ft_poll 60 grep -q "\"event\":\"rejoin\",\"rank\":$r," "$EV"
		[ "$(host_of "$r")" != "h$victim" ]
	done
	finish
	grep -q "moves from host 'h$victim' to host" "$ERR"
}

@test "vlog across hosts: a host killed, its ranks restart on the others" {
	vlog_host_killed other
}

@test "vlog across hosts: rank 0's host killed at the gate, rank 0 goes on elsewhere, same output" {
	# finish compares the output: what rank 0 printed before is not
	# printed again.
	vlog_host_killed rank0
	grep -q "rank 0 moves from host 'h$victim' to host" "$ERR"
}

# Does the server in $srvdir hold rank R's image of epoch 10?
on_server() {	# r
	[ -n "$(find "$srvdir" -path "*/rank-$1/$(printf '%020u' 10).ftc" 2>/dev/null)" ]
}

@test "vlog across hosts: a host killed with its disk, its ranks restart elsewhere from their images on the server" {
	local ck="$BATS_TEST_TMPDIR/ck" srvdir="$BATS_TEST_TMPDIR/srv" srv
	netns__spawn 4 ckserver ftckpt serve --dir "$srvdir" \
	    --key-file "$KEY" --listen "tcp:${NETNS_ADDR[4]}:0"
	srv=$(netns__wait_line "$NETNS_DIR/ckserver.out" '^tcp:')
	# An image every 10 iterations; rank 0 waits at the gate at 100,
	# after its image of epoch 10; no rank can then be 10 iterations
	# ahead of it (each waits for its neighbours' rows): epoch 10 is
	# every rank's last image before the gate.
	start_prog --ft vlog -x FT_CKPT_EVERY=10 --ckpt-dir "$ck" \
	    --ckpt-server "$srv" "$FT_PROGS/ckjacobi" 60 200
	REF=$FT_PROGS/ckjacobi6.ref
	ft_poll 60 all_spawned
	victim=$(victim_host)
	ranks=$(ranks_on "$victim")
	[ -n "$ranks" ]
	for r in $ranks; do
		ft_poll 60 on_server "$r"
	done
	# The host goes with its disk: its ranks' local images first.
	for r in $ranks; do
		rm -rf "$ck"/job-*/"rank-$r"
	done
	netns_kill_host "$victim"
	for r in $ranks; do
		ft_poll 60 grep -q "\"event\":\"rejoin\",\"rank\":$r," "$EV"
	done
	finish
	grep -q "moves from host 'h$victim' to host" "$ERR"
	for r in $ranks; do
		[ "$(host_of "$r")" != "h$victim" ]
		grep -q "rank $r: its image of epoch [0-9]* was fetched from the checkpoint server $srv" "$ERR"
		grep -q "rank $r (incarnation 1) restarts from its image of epoch [1-9]" "$ERR"
	done
}

@test "coord across hosts: a host killed with its disk, every rank rolls back, its ranks' images from the server" {
	local ck="$BATS_TEST_TMPDIR/ck" line srv
	netns__spawn 4 ckserver ftckpt serve --dir "$BATS_TEST_TMPDIR/srv" \
	    --key-file "$KEY" --listen "tcp:${NETNS_ADDR[4]}:0"
	line=$(netns__wait_line "$NETNS_DIR/ckserver.out" '^tcp:')
	srv=$line
	start_prog --ft coord --ckpt-dir "$ck" --ckpt-interval 0 \
	    --ckpt-server "$srv" "$FT_PROGS/coordring" 160
	REF=$FT_PROGS/coordring6.ref
	ft_poll 60 all_spawned
	# Rank 0 waits at the gate after its checkpoint of iteration
	# (epoch) 80, the others for it in iteration 81; its image of 79
	# is written by then (that of 80 waits for the others' markers).
	ft_poll 60 rank0_image 79
	victim=$(victim_host)
	ranks=$(ranks_on "$victim")
	[ -n "$ranks" ]
	# The host goes with its disk: its ranks' local images first.
	for r in $ranks; do
		rm -rf "$ck"/job-*/"rank-$r"
	done
	netns_kill_host "$victim"
	finish
	# Back to the newest epoch every rank had on the server.
	e=$(sed -nE 's/.*"event":"rollback","epoch":([0-9]+),.*/\1/p' "$EV")
	[ -n "$e" ] && [ "$e" -ge 1 ] && [ "$e" -le 80 ]
	grep -q "every rank rolls back to epoch $e (--ft coord)" "$ERR"
	for r in $ranks; do
		[ "$(host_of "$r")" != "h$victim" ]
		grep -q "rank $r: epoch $e was not here: fetched from the checkpoint server $srv" "$ERR"
	done
	[ "$(grep -c '"event":"rollback"' "$EV")" -eq 1 ]
}

@test "ftmpi REBUILD across hosts: a rank killed starts again on its host" {
	# Once rank 0 passes the gate, rank 1 dies at its first send in
	# the barrier, and is started again on its host.
	rebuild_start --inject kill:rank=1,after-sends=1
	finish
	grep -q '"event":"restart","rank":1,' "$EV"
	first=$(sed -nE 's/.*"event":"spawn","rank":1,.*"host":"([^"]*)".*/\1/p' "$EV" | head -n 1)
	[ "$(host_of 1)" = "$first" ]
	grep -q "rank 1 (pid [0-9]*) was killed by signal 9.*starting a new process in its place (--comm-mode rebuild)" "$ERR"
}

@test "ftmpi REBUILD across hosts: a host killed, its rank starts on another" {
	rebuild_start
	# A host that runs one rank, not rank 0 (two deaths at once are
	# a known bug of REBUILD, ft-ftmpi(3)).
	victim=
	for i in 1 2 3; do
		if [ "h$i" != "$(host_of 0)" ] &&
		    [ "$(ranks_on "$i" | wc -l)" -eq 1 ]; then
			victim=$i
		fi
	done
	[ -n "$victim" ]
	r=$(ranks_on "$victim")
	netns_kill_host "$victim"
	ft_poll 60 grep -q "\"event\":\"restart\",\"rank\":$r," "$EV"
	[ "$(host_of "$r")" != "h$victim" ]
	finish
	grep -q "rank $r moves from host 'h$victim' to host" "$ERR"
	grep -q "starting a new process in its place (--comm-mode rebuild)" "$ERR"
}
