# SPDX-License-Identifier: ISC
# Jobs across the network-namespace hosts of tests/netns.bash, for the
# bats files that restart ranks across hosts (7210, 7220; `load
# jobhosts` after `load common` and `load netns`): an ftboot daemon in
# each of hosts 1 to 3 (started by setup when not running, and kept
# from test to test), ftrun in host 4, and what a test reads of the
# job: its events ($EV), output ($OUT, $ERR) and exit status ($STATUS).
# setup_file makes the hosts (netns_up 4) and the cluster key
# ($BATS_FILE_TMPDIR/cluster.key).

# For setup_file: the programs, the fault-free outputs the runs with
# failures must match, the cluster key and the hosts.
hosts_setup_file() {
	ft_build vlogmix
	ft_build coordring
	ft_build rebuildgate
	ftrun -n 6 "$FT_PROGS/vlogmix" 24 >"$FT_PROGS/vlogmix6.ref"
	ftrun -n 6 "$FT_PROGS/coordring" 160 >"$FT_PROGS/coordring6.ref"
	touch "$BATS_FILE_TMPDIR/open"
	ftrun -n 4 "$FT_PROGS/rebuildgate" "$BATS_FILE_TMPDIR/open" |
	    sort >"$FT_PROGS/rebuildgate4.ref"
	if netns_check; then
		ftboot keygen --key-file "$BATS_FILE_TMPDIR/cluster.key" \
		    >/dev/null
		netns_up 4
	fi
}

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
			ft_await 30 "$dir/ftboot.addr" \
			    "$(cat "$NETNS_DIR/boot$i.${dir##*.}.pid")" \
			    "$NETNS_DIR/boot$i.${dir##*.}.err"
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

# Start rebuildgate (4 ranks) under FT-MPI's REBUILD, with more ftrun
# options, and wait until every process joined (the table is out) and
# rank 0 waits at the gate, the others in the barrier.
rebuild_start() {	# [ftrun options]
	NRANKS=4
	SORTED=1
	REF=$FT_PROGS/rebuildgate4.ref
	start_prog --ft ftmpi --comm-mode rebuild --msg-mode nop "$@" \
	    "$FT_PROGS/rebuildgate"
	ft_poll 60 at_least 4 ' ready$' "$OUT"
	ft_poll 60 all_spawned
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

# The pids of the job's programs in host I: of PROG, or of any program
# these files run.
pids_in() {	# i [prog]
	local p c
	for p in $(netns_pids "$1"); do
		c=$(cat "/proc/$p/comm" 2>/dev/null)
		if [ -n "${2:-}" ]; then
			[ "$c" != "$2" ] || echo "$p"
		else
			case $c in
			vlogmix|coordring|rebuildgate|ckjacobi) echo "$p" ;;
			esac
		fi
	done
}

# No process of the job (of PROG) is left in host I.
none_in() {	# i [prog]
	[ -z "$(pids_in "$@")" ]
}

# Open the gate and wait for the job's end: exit 0, the output of a run
# without failures ($REF, compared sorted with SORTED set), no process
# of the job (of PROG) left in any host, and nothing in its temporary
# directory (its logger's).
finish() {	# [prog]
	local i
	touch "$BATS_TEST_TMPDIR/go"
	ft_poll 120 test -s "$STATUS"
	cat "$ERR" >&2
	[ "$(cat "$STATUS")" -eq 0 ]
	if [ -n "${SORTED:-}" ]; then
		sort "$OUT" | cmp "$REF" -
	else
		cmp "$REF" "$OUT"
	fi
	for i in 1 2 3 4; do
		ft_poll 30 none_in "$i" "$@"
	done
	[ -z "$(ls -A "$JOBTMP")" ]
}

# Does rank R's segment in $LOGDIR hold a record?
has_records() {	# r
	[ -n "$(find "$LOGDIR" -path "*/rank-$1/*.ftl" -size +100c 2>/dev/null)" ]
}

# Has rank 0 written its image of epoch E in $ck?
rank0_image() {	# e
	[ -n "$(find "$ck" -path "*/rank-0/$(printf '%020u' "$1").ftc" 2>/dev/null)" ]
}

# A host that does not run rank 0; with "one", one that runs a single
# rank.
victim_host() {	# [one]
	local i
	for i in 1 2 3; do
		[ "h$i" != "$(host_of 0)" ] || continue
		[ "${1:-}" != one ] || [ "$(ranks_on "$i" | wc -l)" -eq 1 ] ||
			continue
		echo "$i"
		return
	done
}
