# SPDX-License-Identifier: ISC
# A host cut off from the network, not killed: its processes keep
# running while the job declares them dead and goes on without them,
# then the link comes back.  Network namespaces (tests/netns.bash,
# tests/jobhosts.bash): one ftboot daemon in each of hosts 1 to 3,
# ftrun in host 4.  The cut is tied to progress (rank 0 waits at the
# program's gate), the heal to the job having moved on (its events: the
# host lost, its ranks back elsewhere); the gate opens only after the
# heal.  --ft vlog: a host cut off (its detector module, alone, declares
# every other member failed: none of that may cross back), and a host
# cut off from ftrun's host alone (lost by silence); the cut host's
# ranks restart elsewhere and replay.  A host paused and cut off, so
# that its old processes, agent included, come back alive into a job
# that has moved on: --ft coord (every rank rolls back) and --ft ftmpi
# --comm-mode rebuild (a new process in the lost one's place).  Each
# ends with the output of a run without failures, exit 0, the old
# processes ended by their agent, nothing of the job left on any host.
# (That what old processes send once back is refused is checked in
# test_member and test_vlog.)  Needs root; skips, saying so, without.

load common
load netns
load jobhosts
bats_require_minimum_version 1.5.0

setup_file() {
	hosts_setup_file
}

# Cut host V off once the job is at its gate, and heal it once the job
# has declared the host lost and CHECK (a command) says it went on.
# With FREEZE set, every process of the host is stopped before the cut
# and continued after the heal (a host paused, as a virtual machine
# can be): nothing there can notice the cut, and the old processes
# come back, their agent included, into a job that has moved on.
cut_until() {	# v prog check ...
	local v=$1 prog=$2 all
	shift 2
	old=$(pids_in "$v" "$prog")
	[ -n "$old" ]
	if [ -n "${FREEZE:-}" ]; then
		all=$(netns_pids "$v")
		kill -STOP $all
	fi
	netns_cut "$v"
	ft_poll 60 grep -q "\"event\":\"host\",\"host\":\"h$v\"" "$EV"
	ft_poll 60 "$@"
	netns_heal "$v"
	if [ -n "${FREEZE:-}" ]; then
		# The old processes are there, alive.
		for p in $old; do
			[ -d "/proc/$p" ]
		done
		kill -CONT $all
	fi
}

# The agent of the cut host ended the old processes: it learnt that
# the submitter had gone on without it.
fenced_by_agent() {
	grep -Eq "agent\[h$v\] job [0-9a-f]+: the submitter (is gone|was declared failed by the failure detector|cut this host off).*: killing the job's processes here" \
	    "$NETNS_DIR"/boot$v.*.err
}

rejoined() {	# ranks...
	local r
	for r; do
		grep -q "\"event\":\"rejoin\",\"rank\":$r," "$EV" || return
	done
}

# Start vlogmix (gated halfway) with ftrun options, and pick a victim
# host V that does not run rank 0, once its ranks have logged outcomes
# (MPI_Test's, every round).
vlog_start() {	# [ftrun options]
	LOGDIR="$BATS_TEST_TMPDIR/log"
	start_prog --ft vlog "$@" --log-dir "$LOGDIR" "$FT_PROGS/vlogmix" 24
	REF=$FT_PROGS/vlogmix6.ref
	ft_poll 60 all_spawned
	v=$(victim_host)
	ranks=$(ranks_on "$v")
	[ -n "$ranks" ]
	for r in $ranks; do
		ft_poll 60 has_records "$r"
	done
}

# (A host paused and cut off is left to coord and REBUILD below: under
# vlog, what its processes send once back is dropped as stale, which
# test_vlog checks.)
@test "vlog: a host cut off, its ranks restart elsewhere; healed, its old processes are fenced" {
	vlog_start
	cut_until "$v" vlogmix rejoined $ranks
	ft_poll 30 none_in "$v" vlogmix
	finish vlogmix
	for r in $ranks; do
		[ "$(host_of "$r")" != "h$v" ]
	done
	grep -q "moves from host 'h$v' to host" "$ERR"
	fenced_by_agent
}

restored() {
	grep -q '"event":"restored"' "$EV"
}

@test "coord: a host paused and cut off, then back: every rank rolls back without it, its old processes are fenced" {
	FREEZE=1
	local ck="$BATS_TEST_TMPDIR/ck"
	# Every host sees this directory (the namespaces share the file
	# system): a rank moved off the cut host reads its image there.
	start_prog --ft coord --ckpt-dir "$ck" --ckpt-interval 0 \
	    "$FT_PROGS/coordring" 160
	REF=$FT_PROGS/coordring6.ref
	ft_poll 60 all_spawned
	ft_poll 60 rank0_image 79
	v=$(victim_host)
	ranks=$(ranks_on "$v")
	[ -n "$ranks" ]
	cut_until "$v" coordring restored
	ft_poll 30 none_in "$v" coordring
	finish coordring
	[ "$(grep -c '"event":"rollback"' "$EV")" -eq 1 ]
	# No image half-written by an old process is left behind.
	[ -z "$(find "$ck" -type f ! -name '*.ftc' ! -name lease)" ]
	for r in $ranks; do
		[ "$(host_of "$r")" != "h$v" ]
	done
	fenced_by_agent
}

@test "ftmpi REBUILD: a host paused and cut off, then back: a new process in its rank's place, the old one fenced" {
	FREEZE=1
	rebuild_start
	v=$(victim_host one)
	[ -n "$v" ]
	r=$(ranks_on "$v")
	cut_until "$v" rebuildgate grep -q "\"event\":\"restart\",\"rank\":$r," "$EV"
	ft_poll 30 none_in "$v" rebuildgate
	finish rebuildgate
	[ "$(host_of "$r")" != "h$v" ]
	grep -q "starting a new process in its place (--comm-mode rebuild)" "$ERR"
	fenced_by_agent
}

@test "vlog: a host cut off from ftrun's host alone (the detector still hears it): lost by silence, its agent ends its processes, they restart elsewhere, the job ends" {
	# The detector still hears the host through the others: only the
	# silence of its agent's connection says it is lost.
	vlog_start --hang-timeout 2s
	netns_cut_pair "$v" 4
	ft_poll 60 grep -q "\"event\":\"host\",\"host\":\"h$v\"" "$EV"
	ft_poll 60 rejoined $ranks
	netns_heal_pair "$v" 4
	finish vlogmix
	grep -q "\"event\":\"host\",\"host\":\"h$v\",\"reason\":\"it was silent" "$EV"
	grep -q "agent\[h$v\] job [0-9a-f]*: the submitter was silent too long: killing the job's processes here" \
	    "$NETNS_DIR"/boot$v.*.err
}
