# SPDX-License-Identifier: ISC
# Jobs across the network-namespace hosts of tests/netns.bash, for the
# bats files that restart ranks across hosts (7210, 7220; `load
# jobhosts` after `load common` and `load netns`): an ftboot daemon in
# each of hosts 1 to 3 (started by setup when not running, and kept
# from test to test), ftrun in host 4, and what a test reads of the
# job: its events ($EV), output ($OUT, $ERR) and exit status ($STATUS).
# setup_file makes the hosts (netns_up 4) and the cluster key
# ($BATS_FILE_TMPDIR/cluster.key).

# What a test started goes with it, whatever its outcome (ftrun, its
# logger or checkpoint server, the ranks): only the daemons stay.
teardown() {
	local i p
	for i in 4 1 2 3; do
		# A test that cut a host off leaves it joined again.
		netns_heal "$i" 2>/dev/null
		[ "$i" = 4 ] || netns_heal_pair "$i" 4
		for p in $(netns_pids "$i" 2>/dev/null); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = ftboot ] ||
			    kill -KILL "$p" 2>/dev/null
		done
	done
	ft_kill_leftovers
	netns_down
}

# Has every rank of the job been started (NRANKS, default 6)?
all_spawned() {
	[ "$(grep -c '"event":"spawn"' "$EV" 2>/dev/null)" -ge "${NRANKS:-6}" ]
}

# Is an ftboot daemon running in host I?
daemon_in() {	# i
	local p
	for p in $(netns_pids "$1"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" != ftboot ] || return 0
	done
	return 1
}

setup() {
	ft_setup
	netns_require
	export FT_ALLOW_ROOT=1
	KEY="$BATS_FILE_TMPDIR/cluster.key"
	local i dir
	HOSTS=""
	for i in 1 2 3; do
		if ! daemon_in "$i"; then
			dir=$(mktemp -d "$BATS_FILE_TMPDIR/h$i.XXXXXX")
			netns__spawn "$i" "boot$i.${dir##*.}" ftboot start \
			    --foreground --listen "tcp:${NETNS_ADDR[i]}:7707" \
			    --key-file "$KEY" --state-dir "$dir" --name "h$i" \
			    --slots 2 --jobs 4
			ft_poll 10 test -s "$dir/ftboot.addr"
		fi
		HOSTS="${HOSTS:+$HOSTS,}${NETNS_ADDR[i]}:7707"
	done
	EV="$BATS_TEST_TMPDIR/ev"
	STATUS="$BATS_TEST_TMPDIR/status"
	JOBTMP="$BATS_TEST_TMPDIR/job"
	mkdir "$JOBTMP"
}

start_prog() {	# ftrun options and program, without the gate
	netns__spawn 4 job env TMPDIR="$JOBTMP" sh -c \
	    'f=$1; shift; ftrun "$@"; echo $? >"$f"' sh "$STATUS" \
	    -n "${NRANKS:-6}" --timeout 120 --key-file "$KEY" --host "$HOSTS" \
	    --events "$EV" "$@" "$BATS_TEST_TMPDIR/go"
	OUT="$NETNS_DIR/job.out"
	ERR="$NETNS_DIR/job.err"
}

# The ranks whose first process ran on host I.
ranks_on() {	# i
	sed -nE "s/.*\"event\":\"spawn\",\"rank\":([0-9]+),.*\"host\":\"h$1\".*/\\1/p" "$EV" |
	    sort -un
}

# The host a rank's last process was started on.
host_of() {	# rank
	sed -nE "s/.*\"event\":\"(spawn|restart)\",\"rank\":$1,.*\"host\":\"([^\"]*)\".*/\\2/p" \
	    "$EV" | tail -n 1
}

# Does FILE have at least N lines matching RE?
at_least() {	# n re file
	[ "$(grep -c "$2" "$3" 2>/dev/null)" -ge "$1" ]
}
