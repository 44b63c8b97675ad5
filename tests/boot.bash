# SPDX-License-Identifier: ISC
# Helpers of the ftboot tests (load common, then load boot): daemons and
# a supernode on loopback ports, each daemon in its own state directory
# under the test's directory, all stopped in teardown.
#
#   fb_setup			a cluster key in $FB_KEY; FT_ALLOW_ROOT=1
#   fb_supernode [OPT ...]	start a supernode; its address in $FB_SN,
#				its pid in $FB_SN_PID, its log $FB_DIR/sn.log
#   fb_start NAME [OPT ...]	start daemon NAME (host name NAME, state
#				directory $FB_DIR/NAME), with the key
#   fb_addr NAME		the daemon's address
#   fb_log NAME			its log file
#   fb_peers_with NAME HOST ...	do NAME's peers hold every HOST?
#   fb_peers_without NAME HOST	does NAME's peer cache lack HOST?
#   fb_teardown			stop every daemon, then the leftovers

fb_setup() {
	ft_setup
	export FT_ALLOW_ROOT=1
	FB_DIR=$BATS_TEST_TMPDIR
	FB_KEY=$FB_DIR/cluster.key
	FB_NAMES=()
	ftboot keygen --key-file "$FB_KEY" >/dev/null
}

fb_teardown() {
	local n
	for n in "${FB_NAMES[@]}"; do
		ftboot stop --state-dir "$FB_DIR/$n" >/dev/null 2>&1
	done
	ft_kill_leftovers
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		for n in "${FB_NAMES[@]}"; do
			[ -f "$FB_DIR/$n/ftboot.log" ] || continue
			echo "# --- log of $n:" >&3
			sed 's/^/# /' "$FB_DIR/$n/ftboot.log" >&3
		done
		if [ -f "$FB_DIR/sn.log" ]; then
			echo "# --- supernode log:" >&3
			sed 's/^/# /' "$FB_DIR/sn.log" >&3
		fi
	fi
}

fb_supernode() {
	rm -f "$FB_DIR/sn.addr"
	ft_bg ftboot supernode --listen tcp:127.0.0.1:0 --key-file "$FB_KEY" \
	    --addr-file "$FB_DIR/sn.addr" "$@" 2>"$FB_DIR/sn.log"
	FB_SN_PID=$bgpid
	ft_await 30 "$FB_DIR/sn.addr" "$FB_SN_PID" "$FB_DIR/sn.log" || return 1
	FB_SN=$(cat "$FB_DIR/sn.addr")
}

fb_start() {
	local name=$1
	shift
	FB_NAMES+=("$name")
	ftboot start --listen tcp:127.0.0.1:0 --key-file "$FB_KEY" \
	    --state-dir "$FB_DIR/$name" --name "$name" "$@" >/dev/null
	# Teardown kills what the pid files name, should stop fail.
	cp "$FB_DIR/$name/ftboot.pid" "$FB_DIR/$name.pid"
}

fb_addr() {
	cat "$FB_DIR/$1/ftboot.addr"
}

fb_log() {
	printf '%s\n' "$FB_DIR/$1/ftboot.log"
}

fb_peers_with() {
	local name=$1 out h
	shift
	out=$(ftboot peers --state-dir "$FB_DIR/$name" --json) || return 1
	for h in "$@"; do
		[[ $out == *"\"host\":\"$h\""* ]] || return 1
	done
}

fb_peers_without() {
	local out
	out=$(ftboot peers --state-dir "$FB_DIR/$1" --json) || return 1
	[[ $out != *"\"host\":\"$2\""* ]]
}

# Have NAME's pings reached every peer in its cache?
fb_peers_measured() {
	local out
	out=$(ftboot peers --state-dir "$FB_DIR/$1" --json) || return 1
	[ -n "$out" ] && [[ $out != *'"seen":0,'* ]]
}
