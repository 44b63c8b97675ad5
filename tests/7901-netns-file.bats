# SPDX-License-Identifier: ISC
# tests/netns.bash with hosts made once in setup_file: every test finds
# them, and a test's teardown leaves them to teardown_file.

load common
load netns
bats_require_minimum_version 1.5.0

setup_file() {
	netns_check || return 0
	netns_up 2
	echo "$NETNS_RUN" >"$BATS_FILE_TMPDIR/run"
	netns__spawn 2 echo python3 "$FT_ROOT/tests/tcpecho.py" serve \
	    "${NETNS_ADDR[2]}" 7000
	netns__wait_line "$NETNS_DIR/echo.out" ' 7000$'
}

setup() {
	ft_setup
	netns_require
}

@test "netns (setup_file): a test finds the hosts of setup_file" {
	[ "$NETNS_RUN" = "$(cat "$BATS_FILE_TMPDIR/run")" ]
	[ "$NETNS_N" -eq 2 ]
	run -0 netns_exec 1 python3 "$FT_ROOT/tests/tcpecho.py" rtt \
	    "${NETNS_ADDR[2]}" 7000 1
}

@test "netns (setup_file): the previous test's teardown left them up" {
	run -0 ip netns list
	[[ $output == *"$(cat "$BATS_FILE_TMPDIR/run")-h2"* ]]
	run -0 netns_exec 1 python3 "$FT_ROOT/tests/tcpecho.py" rtt \
	    "${NETNS_ADDR[2]}" 7000 1
}
