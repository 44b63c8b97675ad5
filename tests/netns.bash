# SPDX-License-Identifier: ISC
# Hosts for the multi-host tests, made of network namespaces (`load
# netns` after `load common`; bench/multihost.sh sources it too).  A run
# is N hosts, each a namespace with `lo` and one interface eth0 holding
# 10.213.X.I/24, joined by veth pairs to a bridge that lives in a
# namespace of its own.  Nothing is added to the root namespace: no
# link, no address, no route, so the hosts reach only each other and
# their own loopback.  Every name starts with the run's prefix,
# ftns-PID-RAND (PID: the shell that made the run), so that parallel
# runs and leftovers never collide; X is drawn per run too.
#
#   netns_check		0 if this shell can make namespaces, else 1
#			with the reason in $NETNS_WHY
#   netns_require	skip the test, saying why, unless netns_check
#   netns_up N		make hosts 1 .. N (N <= 250); sets NETNS_RUN,
#			NETNS_N, NETNS_HOST[I] (namespace names),
#			NETNS_ADDR[I] (addresses), NETNS_NET (the /24),
#			NETNS_IF (eth0), NETNS_BR (the bridge's
#			namespace), NETNS_DIR (a scratch directory)
#   netns_exec I CMD ...	run CMD (a program, not a shell function)
#			in host I, as this user, on this filesystem
#   netns_cut I		cut host I's link (its bridge port goes down,
#			so its eth0 loses carrier); netns_heal I restores it
#   netns_cut_pair I J	cut the path between hosts I and J only (a
#			blackhole route to each in the other), so
#			both still reach every other host;
#			netns_heal_pair I J restores it
#   netns_kill_host I	SIGKILL every process in host I; 1 if one is
#			left after 10 seconds
#   netns_pids I		the pids running in host I, one a line
#   netns_relay I TO DELAY	start `fttest relay` in host I, listening on
#			a free port of its address, forwarding to TO
#			(host:port) with DELAY each way; prints the
#			relay's address as host:port
#   netns_has_netem	0 if the kernel has the netem qdisc
#   netns_delay I DELAY	delay host I's link both ways with netem
#			(DELAY 0: no more delay); 2 without netem
#   netns_http I DIR	serve DIR over HTTP from host I (python3
#			-m http.server); prints the URL, http://ADDR:PORT/
#   netns_down [-f]	kill every process in the run's namespaces and
#			delete them, then the scratch directory;
#			idempotent.  Only the shell that made the run
#			downs it, unless -f.
#
# In bats, a run made in setup_file is saved to $BATS_FILE_TMPDIR and
# every test has it loaded (so such a test cannot netns_up a run of its
# own); one made in a test (or its setup) is the test's own.  This file defines teardown (ft_kill_leftovers, then netns_down)
# and teardown_file (netns_down), so either kind is deleted whatever
# the outcome; a test file that defines its own teardown must call
# netns_down in it.  tests/netns-clean.sh removes the leftovers of runs
# whose shell is gone (a killed bats, a crashed bench).
#
# The helpers return non-zero with a message on stderr when a step
# fails; they never leave a half-made run behind.

NETNS_PREFIX=ftns
NETNS_IF=eth0
# Seconds to wait for a helper's server to listen, or processes to die.
NETNS_WAIT=${NETNS_WAIT:-10}

netns__err() {
	echo "netns: $*" >&2
	return 1
}

# Can this shell make namespaces, a bridge and veth pairs in them?
netns_check() {
	local probe="$NETNS_PREFIX-$$-probe$RANDOM" out
	NETNS_WHY=
	if [ "$(id -u)" != 0 ]; then
		NETNS_WHY="needs root (network namespaces)"
		return 1
	fi
	if ! command -v ip >/dev/null; then
		NETNS_WHY="needs root (network namespaces): no 'ip' (iproute2)"
		return 1
	fi
	if ! out=$({ ip netns add "$probe" &&
	    ip -n "$probe" link add br0 type bridge &&
	    ip -n "$probe" link add v0 type veth peer name v1; } 2>&1); then
		ip netns del "$probe" 2>/dev/null
		NETNS_WHY="needs root (network namespaces): 'ip netns' is unusable here: ${out//$'\n'/ }"
		return 1
	fi
	ip netns del "$probe"
}

netns_require() {
	netns_check || skip "$NETNS_WHY"
}

# Where the run of this shell is saved: the test's own directory in a
# bats test, the file's in setup_file, nowhere outside bats.
netns__statefile() {
	if [ -n "${BATS_TEST_NAME:-}" ] && [ -n "${BATS_TEST_TMPDIR:-}" ]; then
		echo "$BATS_TEST_TMPDIR/netns.state"
	elif [ -n "${BATS_FILE_TMPDIR:-}" ]; then
		echo "$BATS_FILE_TMPDIR/netns.state"
	fi
}

netns__save() {
	local f
	f=$(netns__statefile)
	[ -n "$f" ] || return 0
	declare -p NETNS_RUN NETNS_N NETNS_BR NETNS_NET NETNS_DIR \
	    NETNS_HOST NETNS_ADDR >"$f"
}

# Load the run this shell works on: its own, or the test's, or the one
# setup_file made.  1 if there is none.
netns__load() {
	local f
	[ -n "${NETNS_RUN:-}" ] && return 0
	for f in "${BATS_TEST_TMPDIR:-}" "${BATS_FILE_TMPDIR:-}"; do
		[ -n "$f" ] && [ -s "$f/netns.state" ] || continue
		# The arrays must stay global: declare -p's lines would
		# make them local to this function.
		source <(sed 's/^declare /declare -g /' "$f/netns.state")
		return 0
	done
	return 1
}

# netns__host I: set ns to host I's namespace.
netns__host() {
	netns__load || netns__err "no hosts: call netns_up first" || return
	[[ ${1:-} =~ ^[1-9][0-9]*$ ]] && (($1 <= NETNS_N)) ||
		netns__err "host '${1:-}' is not from 1 to $NETNS_N" || return
	ns=${NETNS_HOST[$1]}
}

netns_up() {
	local n=${1:-} i x
	[[ $n =~ ^[1-9][0-9]*$ ]] && ((n <= 250)) ||
		netns__err "netns_up: N '$n' is not from 1 to 250" || return
	[ -z "${NETNS_RUN:-}" ] ||
		netns__err "netns_up: $NETNS_RUN is up: netns_down first" ||
		return
	x=$(((RANDOM + $$) % 250 + 1))
	NETNS_RUN=$NETNS_PREFIX-$$-$(printf '%04x' "$RANDOM")
	NETNS_N=$n
	NETNS_BR=$NETNS_RUN-br
	NETNS_NET=10.213.$x.0/24
	NETNS_HOST=()
	NETNS_ADDR=()
	for ((i = 1; i <= n; i++)); do
		NETNS_HOST[i]=$NETNS_RUN-h$i
		NETNS_ADDR[i]=10.213.$x.$i
	done
	# Named after the run, so that netns-clean.sh finds it.
	NETNS_DIR=${BATS_TEST_TMPDIR:-${BATS_FILE_TMPDIR:-${TMPDIR:-/tmp}}}/$NETNS_RUN.d
	mkdir -m 700 "$NETNS_DIR" || { NETNS_RUN=; return 1; }
	# Saved first: whatever fails below, the teardown finds the run.
	netns__save
	if ! netns__make 2>"$NETNS_DIR/up.err"; then
		cat "$NETNS_DIR/up.err" >&2
		netns_down -f
		netns__err "netns_up: unable to make $n hosts"
		return 1
	fi
}

# The namespaces, links and addresses of the run set up by netns_up.
# Each host's end of its veth pair is made in the bridge's namespace
# and moved at once, so no link is ever in ours.
netns__make() {
	local i ns
	ip netns add "$NETNS_BR" &&
		ip -n "$NETNS_BR" link set lo up &&
		ip -n "$NETNS_BR" link add br0 type bridge &&
		ip -n "$NETNS_BR" link set br0 up || return 1
	for ((i = 1; i <= NETNS_N; i++)); do
		ns=${NETNS_HOST[i]}
		ip netns add "$ns" &&
			ip -n "$NETNS_BR" link add "h$i" type veth \
			    peer name "$NETNS_IF" netns "$ns" &&
			ip -n "$NETNS_BR" link set "h$i" master br0 up &&
			ip -n "$ns" link set lo up &&
			ip -n "$ns" addr add "${NETNS_ADDR[i]}/24" \
			    dev "$NETNS_IF" &&
			ip -n "$ns" link set "$NETNS_IF" up || return 1
	done
}

netns_exec() {
	local ns
	netns__host "${1:-}" || return
	shift
	ip netns exec "$ns" "$@"
}

netns_pids() {
	local ns
	netns__host "${1:-}" || return
	ip netns pids "$ns"
}

netns_cut() {
	netns__host "${1:-}" || return
	ip -n "$NETNS_BR" link set "h$1" down
}

netns_heal() {
	netns__host "${1:-}" || return
	ip -n "$NETNS_BR" link set "h$1" up
}

netns_cut_pair() {
	local ns
	netns__host "${1:-}" && netns__host "${2:-}" || return
	ip -n "${NETNS_HOST[$1]}" route add blackhole "${NETNS_ADDR[$2]}/32" &&
		ip -n "${NETNS_HOST[$2]}" route add blackhole \
		    "${NETNS_ADDR[$1]}/32"
}

netns_heal_pair() {
	local ns
	netns__host "${1:-}" && netns__host "${2:-}" || return
	ip -n "${NETNS_HOST[$1]}" route del blackhole \
	    "${NETNS_ADDR[$2]}/32" 2>/dev/null
	ip -n "${NETNS_HOST[$2]}" route del blackhole \
	    "${NETNS_ADDR[$1]}/32" 2>/dev/null
	return 0
}

# SIGKILL everything in namespace $1 until nothing is left; 1 if
# something still runs after NETNS_WAIT seconds (it keeps forking).
netns__killall() {
	local pids i
	for ((i = 0; i < NETNS_WAIT * 50; i++)); do
		pids=$(ip netns pids "$1" 2>/dev/null)
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086	# one pid a word
		kill -KILL $pids 2>/dev/null
		sleep 0.02
	done
	netns__err "processes left in $1: $(ip netns pids "$1" | tr '\n' ' ')"
}

netns_kill_host() {
	local ns
	netns__host "${1:-}" || return
	netns__killall "$ns"
}

# Kill every process of the run RUN (a prefix ftns-PID-RAND) and delete
# its namespaces, hosts first and the bridge last.
netns__purge() {
	local run=$1 ns rc=0 all
	all=$(ip netns list 2>/dev/null | awk -v p="$run" \
	    '$1 == p || index($1, p "-") == 1 { print $1 }')
	[ -n "$all" ] || return 0
	for ns in $all; do
		netns__killall "$ns" || rc=1
	done
	for ns in $all; do
		[ "$ns" = "$run-br" ] && continue
		ip netns del "$ns" || rc=1
	done
	if [[ $all == *"$run-br"* ]]; then
		ip netns del "$run-br" || rc=1
	fi
	return $rc
}

netns_down() {
	local f
	netns__load || return 0
	# A test's teardown leaves the run of setup_file alone.
	if [ "${1:-}" != -f ] && [[ $NETNS_RUN != "$NETNS_PREFIX-$$-"* ]]; then
		return 0
	fi
	netns__purge "$NETNS_RUN" || return 1
	[ -n "${NETNS_DIR:-}" ] && rm -rf "$NETNS_DIR"
	f=$(netns__statefile)
	[ -n "$f" ] && rm -f "$f"
	NETNS_RUN= NETNS_N=0 NETNS_DIR=
	NETNS_HOST=()
	NETNS_ADDR=()
}

# netns__wait_line FILE REGEX: wait until a line of FILE matches REGEX
# and print it.
netns__wait_line() {
	local i line
	for ((i = 0; i < NETNS_WAIT * 50; i++)); do
		line=$(grep -E -m 1 "$2" "$1" 2>/dev/null) && {
			printf '%s\n' "$line"
			return 0
		}
		sleep 0.02
	done
	return 1
}

# netns__spawn I NAME CMD ...: start CMD in host I, detached from this
# shell (no job to reap, bats's fd 3 closed), its output in
# $NETNS_DIR/NAME.out and .err, its pid in .pid.  netns_down kills it
# with the host.
netns__spawn() {
	local ns name=$2
	netns__host "${1:-}" || return
	shift 2
	(ip netns exec "$ns" "$@" </dev/null >"$NETNS_DIR/$name.out" \
	    2>"$NETNS_DIR/$name.err" 3>&- &
	echo $! >"$NETNS_DIR/$name.pid")
}

netns_relay() {
	local i=${1:-} name line
	(($# == 3)) || netns__err "usage: netns_relay I TO DELAY" || return
	netns__host "$i" || return
	name=relay.$i.$RANDOM
	netns__spawn "$i" "$name" fttest relay \
	    --listen "${NETNS_ADDR[i]}:0" --to "$2" --delay "$3" || return
	line=$(netns__wait_line "$NETNS_DIR/$name.out" '^tcp:') || {
		cat "$NETNS_DIR/$name.err" >&2
		netns__err "netns_relay: the relay in host $i did not start"
		return 1
	}
	echo "${line#tcp:}"
}

netns_http() {
	local i=${1:-} dir=${2:-} name line port
	(($# == 2)) || netns__err "usage: netns_http I DIR" || return
	[ -d "$dir" ] || netns__err "netns_http: '$dir' is not a directory" ||
		return
	netns__host "$i" || return
	name=http.$i.$RANDOM
	netns__spawn "$i" "$name" python3 -u -m http.server \
	    --bind "${NETNS_ADDR[i]}" --directory "$dir" 0 || return
	line=$(netns__wait_line "$NETNS_DIR/$name.out" \
	    '^Serving HTTP on .* port [0-9]+') || {
		cat "$NETNS_DIR/$name.err" >&2
		netns__err "netns_http: the server in host $i did not start"
		return 1
	}
	port=${line#* port }
	port=${port%% *}
	echo "http://${NETNS_ADDR[i]}:$port/"
}

netns_has_netem() {
	local probe="$NETNS_PREFIX-$$-netem$RANDOM" rc=1
	ip netns add "$probe" 2>/dev/null || return 1
	ip -n "$probe" link set lo up &&
		tc -n "$probe" qdisc add dev lo root netem delay 1ms \
		    2>/dev/null && rc=0
	ip netns del "$probe"
	return $rc
}

# Both ends of host I's veth pair, so both directions: a round trip to
# host I takes 2 * DELAY more, as through netns_relay.
netns_delay() {
	local ns
	(($# == 2)) || netns__err "usage: netns_delay I DELAY" || return
	netns__host "$1" || return
	if ! netns_has_netem; then
		echo "netns: this kernel has no netem qdisc: use netns_relay" >&2
		return 2
	fi
	if [ "$2" = 0 ]; then
		tc -n "$ns" qdisc del dev "$NETNS_IF" root 2>/dev/null
		tc -n "$NETNS_BR" qdisc del dev "h$1" root 2>/dev/null
		return 0
	fi
	tc -n "$ns" qdisc replace dev "$NETNS_IF" root netem delay "$2" &&
		tc -n "$NETNS_BR" qdisc replace dev "h$1" root netem delay "$2"
}

teardown() {
	ft_kill_leftovers
	netns_down
}

teardown_file() {
	netns_down
}

# In a bats test, the hosts that setup_file made are there from the
# start, variables and all.
if [ -n "${BATS_TEST_NAME:-}" ]; then
	netns__load || true
fi
