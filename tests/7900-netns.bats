# SPDX-License-Identifier: ISC
# The multi-host test hosts of tests/netns.bash, checked on their own:
# hosts reach each other by TCP, a cut link stops traffic and healing
# restores it, killing a host leaves no process in it, the relay delays,
# the HTTP helper serves a file, and netns_down leaves no namespace,
# link, address or process behind.  Every test but the first skips,
# saying so, when not root.  Outcomes are polled for or bounded by
# failures, never timed; the one duration asserted is the relay's lower
# bound on a round trip.

load common
load netns
bats_require_minimum_version 1.5.0

ECHO="$FT_ROOT/tests/tcpecho.py"

setup() {
	ft_setup
	if [[ $BATS_TEST_DESCRIPTION != netns_check:* ]]; then
		netns_require
	fi
}

# The root namespace's links and addresses, one a line: nothing of a run
# may ever show there.
root_net() {
	ip -o link show | awk -F': ' '{ print $2 }'
	ip -o addr show | awk '{ print $2, $3, $4 }'
}

# Start an echo server on host I, port 7000 of its address.
echo_on() {
	netns__spawn "$1" "echo.$1" python3 "$ECHO" serve "${NETNS_ADDR[$1]}" 7000
	netns__wait_line "$NETNS_DIR/echo.$1.out" ' 7000$' >/dev/null
}

@test "netns_check: not root, or no ip netns, says 'needs root (network namespaces)'" {
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || skip "no setpriv to drop root"
		run -1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		    bash -c "source '$FT_ROOT/tests/netns.bash'; netns_check ||
		    { echo \"\$NETNS_WHY\"; exit 1; }"
	else
		run -1 bash -c "source '$FT_ROOT/tests/netns.bash'; netns_check ||
		    { echo \"\$NETNS_WHY\"; exit 1; }"
	fi
	[ "$output" = "needs root (network namespaces)" ]
}

@test "netns_up: hosts reach each other by TCP, nothing lands in the root namespace" {
	local before i
	before=$(root_net)
	netns_up 4
	[ "${#NETNS_HOST[@]}" -eq 4 ]
	[[ ${NETNS_ADDR[1]} =~ ^10\.213\.[0-9]+\.1$ ]]
	[ "${NETNS_ADDR[1]%.*}" = "${NETNS_ADDR[4]%.*}" ]
	# Each host has lo and eth0 up, with its address.
	run -0 netns_exec 3 ip -o addr show dev eth0
	[[ $output == *"inet ${NETNS_ADDR[3]}/24 "* ]]
	run -0 netns_exec 3 ip -o link show dev lo
	[[ $output == *"UP"* ]]
	echo_on 2
	for i in 1 3 4; do
		run -0 netns_exec "$i" python3 "$ECHO" rtt "${NETNS_ADDR[2]}" \
		    7000 3 100 100000
		[[ ${lines[1]} == "bulk=100000 ok" ]]
	done
	[ "$(root_net)" = "$before" ]
}

@test "netns_cut stops traffic to the host, netns_heal restores it" {
	netns_up 3
	echo_on 2
	run -0 netns_exec 1 python3 "$ECHO" rtt "${NETNS_ADDR[2]}" 7000 1
	netns_cut 2
	run -0 netns_exec 2 ip -o link show dev eth0
	[[ $output == *NO-CARRIER* ]]
	# Nothing can get through a cut link: this fails, however slow the
	# machine; the timeout only bounds the wait.
	run ! netns_exec 1 timeout 3 python3 "$ECHO" rtt "${NETNS_ADDR[2]}" \
	    7000 1
	# The other hosts still talk.
	echo_on 3
	run -0 netns_exec 1 python3 "$ECHO" rtt "${NETNS_ADDR[3]}" 7000 1
	netns_heal 2
	run -0 netns_exec 1 python3 "$ECHO" rtt "${NETNS_ADDR[2]}" 7000 1 \
	    1 100000
	[ "${lines[1]}" = "bulk=100000 ok" ]
}

@test "netns_cut_pair stops traffic between two hosts only, netns_heal_pair restores it" {
	netns_up 3
	echo_on 2
	echo_on 3
	netns_cut_pair 1 2
	# However slow the machine: the timeout only bounds the wait.
	run ! netns_exec 1 timeout 3 python3 "$ECHO" rtt "${NETNS_ADDR[2]}" \
	    7000 1
	run -0 netns_exec 1 python3 "$ECHO" rtt "${NETNS_ADDR[3]}" 7000 1
	run -0 netns_exec 2 python3 "$ECHO" rtt "${NETNS_ADDR[3]}" 7000 1
	netns_heal_pair 1 2
	run -0 netns_exec 1 python3 "$ECHO" rtt "${NETNS_ADDR[2]}" 7000 1
}

@test "netns_kill_host leaves no process in the host, and spares the others" {
	netns_up 3
	echo_on 2
	echo_on 3
	netns__spawn 3 loop bash -c 'while :; do sleep 1 & wait; done'
	netns__spawn 3 sleep sleep 1000
	run -0 netns_pids 3
	[ "${#lines[@]}" -ge 3 ]
	netns_kill_host 3
	run -0 netns_pids 3
	[ -z "$output" ]
	run -0 netns_exec 1 python3 "$ECHO" rtt "${NETNS_ADDR[2]}" 7000 1
	run ! netns_exec 1 timeout 10 python3 "$ECHO" rtt "${NETNS_ADDR[3]}" \
	    7000 1
}

@test "netns_relay: a round trip through the relay takes at least twice its delay" {
	local relay
	netns_up 3
	echo_on 2
	relay=$(netns_relay 3 "${NETNS_ADDR[2]}:7000" 100ms)
	[ "${relay%:*}" = "${NETNS_ADDR[3]}" ]
	run -0 netns_exec 1 python3 "$ECHO" rtt "${relay%:*}" "${relay##*:}" \
	    3 10 3000000
	[[ ${lines[0]} =~ ^rtt_min=([0-9.]+)\  ]]
	awk -v r="${BASH_REMATCH[1]}" 'BEGIN { exit !(r >= 0.2) }'
	[ "${lines[1]}" = "bulk=3000000 ok" ]
}

@test "netns_delay: netem both ways where the kernel has it, else status 2" {
	netns_up 2
	echo_on 2
	if ! netns_has_netem; then
		run -2 netns_delay 2 50ms
		[[ $output == *"no netem"* ]]
		return 0
	fi
	netns_delay 2 50ms
	run -0 netns_exec 1 python3 "$ECHO" rtt "${NETNS_ADDR[2]}" 7000 3
	[[ ${lines[0]} =~ ^rtt_min=([0-9.]+)\  ]]
	awk -v r="${BASH_REMATCH[1]}" 'BEGIN { exit !(r >= 0.1) }'
	netns_delay 2 0
}

@test "netns_http serves a directory from a host" {
	local url
	netns_up 2
	mkdir "$BATS_TEST_TMPDIR/www"
	head -c 100000 /dev/urandom >"$BATS_TEST_TMPDIR/www/blob"
	url=$(netns_http 2 "$BATS_TEST_TMPDIR/www")
	[ "$url" = "http://${NETNS_ADDR[2]}:${url##*:}" ]
	[[ $url =~ ^http://[0-9.]+:[0-9]+/$ ]]
	netns_exec 1 python3 -c 'import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=30).read())' \
	    "${url}blob" >"$BATS_TEST_TMPDIR/got"
	cmp "$BATS_TEST_TMPDIR/www/blob" "$BATS_TEST_TMPDIR/got"
}

@test "netns_down leaves no namespace, link, address or process, and may run twice" {
	local before run pids p
	before=$(root_net)
	netns_up 4
	run=$NETNS_RUN
	echo_on 1
	netns_relay 2 "${NETNS_ADDR[1]}:7000" 10ms
	netns_http 3 "$BATS_TEST_TMPDIR"
	pids=$(for i in 1 2 3 4; do netns_pids "$i"; done)
	[ "$(wc -w <<<"$pids")" -eq 3 ]
	[ "$(root_net)" = "$before" ]
	netns_down
	run -0 ip netns list
	[[ $output != *"$run"* ]]
	[ "$(root_net)" = "$before" ]
	for p in $pids; do
		ft_gone "$p"
	done
	[ -z "$NETNS_RUN" ]
	[ ! -e "$BATS_TEST_TMPDIR/netns.state" ]
	netns_down
}

@test "netns_up: a failure half-way leaves nothing behind" {
	local before
	before=$(ip netns list)
	# An interface name longer than 15 bytes fails at the first host,
	# after the bridge's namespace was made.
	NETNS_IF=an-interface-name-too-long
	run -1 netns_up 3
	[[ $output == *"unable to make 3 hosts"* ]]
	[ "$(ip netns list)" = "$before" ]
	run -1 netns_up 0
	run -1 netns_up 251
}

@test "netns-clean.sh removes the runs of dead shells and keeps live ones" {
	local dead live
	dead=$(bash -c "source '$FT_ROOT/tests/netns.bash'; TMPDIR='$BATS_TEST_TMPDIR'
	    netns_up 2 && netns__spawn 1 sleep sleep 1000 && echo \$NETNS_RUN")
	netns_up 1
	live=$NETNS_RUN
	run -0 "$FT_ROOT/tests/netns-clean.sh"
	[[ $output == *"removed $dead"* ]]
	[[ $output == *"keeping $live"* ]]
	run -0 ip netns list
	[[ $output != *"$dead"* ]]
	[[ $output == *"$live-h1"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/$dead.d" ]
}
