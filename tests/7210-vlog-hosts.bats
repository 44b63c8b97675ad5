# SPDX-License-Identifier: ISC
# --ft vlog across hosts: network namespaces (tests/netns.bash), one
# ftboot daemon in each of hosts 1 to 3, ftrun (and with it the event
# logger) in host 4.  A rank killed on a live host is restarted there;
# a whole host killed (daemon, agent, ranks) while rank 0 waits at the
# job's gate has its ranks restarted on the others, which replay; the
# output is that of a run without failures, exit 0, and nothing of the
# job is left in any host.  Faults are tied to progress: --inject
# after-sends for the rank, vlogmix's gate for the host.  Needs root;
# skips, saying so, without.

load common
load netns
bats_require_minimum_version 1.5.0

setup_file() {
	ft_build vlogmix
	# The fault-free output the runs with failures must match.
	ftrun -n 6 "$FT_PROGS/vlogmix" 40 >"$FT_PROGS/vlogmix6.ref"
}

setup() {
	ft_setup
	netns_require
	export FT_ALLOW_ROOT=1
	KEY="$BATS_TEST_TMPDIR/cluster.key"
	ftboot keygen --key-file "$KEY" >/dev/null
	netns_up 4
	local i dir
	HOSTS=""
	for i in 1 2 3; do
		dir="$BATS_TEST_TMPDIR/h$i.state"
		netns__spawn "$i" "boot$i" ftboot start --foreground \
		    --listen "tcp:${NETNS_ADDR[i]}:7707" --key-file "$KEY" \
		    --state-dir "$dir" --name "h$i" --slots 2 --jobs 4
		ft_poll 10 test -s "$dir/ftboot.addr"
		HOSTS="${HOSTS:+$HOSTS,}${NETNS_ADDR[i]}:7707"
	done
	EV="$BATS_TEST_TMPDIR/ev"
	STATUS="$BATS_TEST_TMPDIR/status"
	JOBTMP="$BATS_TEST_TMPDIR/job"
	mkdir "$JOBTMP"
}

# Start vlogmix (6 ranks, 40 rounds, gated halfway) from host 4.
start_job() {	# [ftrun options]
	netns__spawn 4 job env TMPDIR="$JOBTMP" sh -c \
	    'f=$1; shift; ftrun "$@"; echo $? >"$f"' sh "$STATUS" --ft vlog \
	    -n 6 --timeout 120 --key-file "$KEY" --host "$HOSTS" \
	    --events "$EV" "$@" "$FT_PROGS/vlogmix" 40 \
	    "$BATS_TEST_TMPDIR/go"
	OUT="$NETNS_DIR/job.out"
	ERR="$NETNS_DIR/job.err"
}

# The host a rank's last process was started on.
host_of() {	# rank
	sed -nE "s/.*\"event\":\"(spawn|restart)\",\"rank\":$1,.*\"host\":\"([^\"]*)\".*/\\2/p" \
	    "$EV" | tail -n 1
}

# Does rank R's segment in $LOGDIR hold a record?
has_records() {	# r
	[ -n "$(find "$LOGDIR" -path "*/rank-$1/*.ftl" -size +100c 2>/dev/null)" ]
}

# No process of the job is left in host I.
none_in() {	# i
	local p
	for p in $(netns_pids "$1"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" != vlogmix ] || return 1
	done
}

finish() {
	touch "$BATS_TEST_TMPDIR/go"
	ft_poll 120 test -s "$STATUS"
	cat "$ERR" >&2
	[ "$(cat "$STATUS")" -eq 0 ]
	cmp "$FT_PROGS/vlogmix6.ref" "$OUT"
	for i in 1 2 3 4; do
		ft_poll 10 none_in "$i"
	done
	# Nothing left in the job's temporary directory (its logger's).
	[ -z "$(ls -A "$JOBTMP")" ]
}

@test "vlog across hosts: a rank killed is restarted on its own host" {
	start_job --inject kill:rank=3,after-sends=40
	ft_poll 60 grep -q '"event":"rejoin","rank":3' "$EV"
	first=$(sed -nE 's/.*"event":"spawn","rank":3,.*"host":"([^"]*)".*/\1/p' "$EV" | head -n 1)
	[ -n "$first" ]
	[ "$(host_of 3)" = "$first" ]
	finish
	grep -q "rank 3 (pid [0-9]*) was killed by signal 9.*restarting it" "$ERR"
}

@test "vlog across hosts: a host killed, its ranks restart on the others" {
	LOGDIR="$BATS_TEST_TMPDIR/log"
	start_job --log-dir "$LOGDIR"
	ft_poll 60 grep -q '"event":"spawn","rank":5' "$EV"
	victim=
	for i in 1 2 3; do
		[ "h$i" = "$(host_of 0)" ] || victim=$i
	done
	ranks=$(sed -nE "s/.*\"event\":\"spawn\",\"rank\":([0-9]+),.*\"host\":\"h$victim\".*/\\1/p" "$EV")
	[ -n "$ranks" ]
	# Rank 0 waits at the gate, halfway; the victims have logged
	# outcomes (MPI_Test's, every round) by then.
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
