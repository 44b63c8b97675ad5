# SPDX-License-Identifier: ISC
# fttest relay on loopback, as any user: a round trip through the relay
# takes at least twice its delay (a lower bound, which holds on any
# machine), bytes come out whole and in order past the relay's buffer
# cap, the end of a stream is passed on, connections run side by side,
# and a target that refuses resets the client without stopping the
# relay.  tests/tcpecho.py is the echo server and its client.

load common
bats_require_minimum_version 1.5.0

ECHO="$FT_ROOT/tests/tcpecho.py"

# Start the echo server; its port is in $echo_port.
echo_start() {
	ft_bg python3 "$ECHO" serve 127.0.0.1 >"$BATS_TEST_TMPDIR/echo.out"
	ft_await 30 "$BATS_TEST_TMPDIR/echo.out" "$bgpid"
	echo_port=$(cut -d' ' -f2 "$BATS_TEST_TMPDIR/echo.out")
}

# relay_start TO DELAY: start a relay to TO; its port is in $relay_port.
relay_start() {
	ft_bg fttest relay --listen 127.0.0.1:0 --to "$1" --delay "$2" \
	    >"$BATS_TEST_TMPDIR/relay.out" 2>"$BATS_TEST_TMPDIR/relay.err"
	ft_await 30 "$BATS_TEST_TMPDIR/relay.out" "$bgpid" \
	    "$BATS_TEST_TMPDIR/relay.err"
	grep -q '^tcp:127.0.0.1:[0-9]' "$BATS_TEST_TMPDIR/relay.out"
	relay_port=$(sed 's/.*://' "$BATS_TEST_TMPDIR/relay.out")
}

# min_at_least LINE SECONDS: LINE's rtt_min is at least SECONDS.
min_at_least() {
	[[ $1 =~ ^rtt_min=([0-9.]+)\  ]] || return 1
	awk -v r="${BASH_REMATCH[1]}" -v m="$2" 'BEGIN { exit !(r >= m) }'
}

@test "fttest relay: a round trip takes at least twice the delay" {
	echo_start
	relay_start "127.0.0.1:$echo_port" 50ms
	run -0 python3 "$ECHO" rtt 127.0.0.1 "$relay_port" 5 1
	min_at_least "${lines[0]}" 0.1
	run -0 python3 "$ECHO" rtt 127.0.0.1 "$relay_port" 3 100000
	min_at_least "${lines[0]}" 0.1
}

@test "fttest relay: many MiB come back whole and in order, then the end of stream" {
	echo_start
	relay_start "tcp:127.0.0.1:$echo_port" 5ms
	# 8 MiB through a relay that holds 1 MiB a direction.
	run -0 python3 "$ECHO" rtt 127.0.0.1 "$relay_port" 0 1 8388608
	[ "$output" = "bulk=8388608 ok" ]
}

@test "fttest relay: connections side by side" {
	local i pids=()
	echo_start
	relay_start "127.0.0.1:$echo_port" 20ms
	for i in $(seq 20); do
		python3 "$ECHO" rtt 127.0.0.1 "$relay_port" 2 10 100000 \
		    >"$BATS_TEST_TMPDIR/c.$i" 2>&1 3>&- &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[i]}"
	done
	for i in $(seq 20); do
		min_at_least "$(head -1 "$BATS_TEST_TMPDIR/c.$i")" 0.04
		grep -qx 'bulk=100000 ok' "$BATS_TEST_TMPDIR/c.$i"
	done
}

@test "fttest relay: a target that refuses resets the client, and the relay goes on" {
	local port relay
	# A port nobody listens on: the echo server's, once it is gone.
	echo_start
	port=$echo_port
	kill -KILL "$bgpid"
	wait "$bgpid" 2>/dev/null || true
	relay_start "127.0.0.1:$port" 1ms
	relay=$bgpid
	# The reset may come before or after the client's connect is done:
	# status 1 or 111, never an echo.
	run ! python3 "$ECHO" rtt 127.0.0.1 "$relay_port" 1
	[[ $output == *"reset by peer"* ]]
	grep -q "unable to connect to 'tcp:127.0.0.1:$port'" \
	    "$BATS_TEST_TMPDIR/relay.err"
	# Still listening: the next client is accepted, and reset too.
	run ! python3 "$ECHO" rtt 127.0.0.1 "$relay_port" 1
	[[ $output == *"reset by peer"* ]]
	! ft_gone "$relay"
}

@test "fttest relay: usage errors exit 100, an address in use 111" {
	run -100 --separate-stderr fttest relay --listen 127.0.0.1:0 \
	    --to 127.0.0.1:1
	[[ $stderr == *"usage: fttest connect"*"fttest relay --listen ADDR"* ]]
	run -100 --separate-stderr fttest relay --listen 127.0.0.1:0 \
	    --to 127.0.0.1:1 --delay 5x
	[ "$stderr" = "fttest: fatal: --delay '5x' is not a duration from 0 to 1h" ]
	run -100 --separate-stderr fttest relay --listen nowhere \
	    --to 127.0.0.1:1 --delay 1ms
	[[ $stderr == "fttest: fatal: 'tcp:nowhere' is not an address"* ]]
	run -100 --separate-stderr fttest relay --listen 127.0.0.1:0 \
	    --to 127.0.0.1:1 --delay 1ms extra
	echo_start
	run -111 --separate-stderr fttest relay --listen "127.0.0.1:$echo_port" \
	    --to 127.0.0.1:1 --delay 1ms
	[[ $stderr == "fttest: fatal: unable to listen on 'tcp:127.0.0.1:$echo_port': "* ]]
}
