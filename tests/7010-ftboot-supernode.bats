# SPDX-License-Identifier: ISC
# The supernode and the peer cache: daemons register and learn of each
# other, ping each other (RTT and last seen in the cache), go on from
# their cache when the supernode is gone, and lose a dead daemon once
# the supernode forgets it.  A daemon or client with another cluster
# key gets nowhere, and says why.  Outcomes are polled for, never timed.

load common
load boot

setup() {
	fb_setup
}

teardown() {
	fb_teardown
}

@test "supernode: daemons register and list each other with RTT" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 300ms --slots 2 --jobs 3
	fb_start h2 --supernode "$FB_SN" --refresh 300ms --slots 5
	fb_start h3 --supernode "$FB_SN" --refresh 300ms
	ft_poll 20 fb_peers_with h1 h2 h3
	ft_poll 20 fb_peers_with h2 h1 h3
	ft_poll 20 fb_peers_measured h1
	run -0 fb_peers_without h1 h1
	run -0 ftboot peers --state-dir "$FB_DIR/h1"
	[[ ${lines[0]} == "HOST"*"ADDRESS"*"RTT"*"LAST SEEN"*"SLOTS"*"JOBS" ]]
	[ ${#lines[@]} -eq 3 ]
	[[ $output == *"h2 "*"$(fb_addr h2)"*"ms"*"s ago"*" 5 "*" 1"* ]]
	ft_poll 20 fb_peers_with h3 h1
	run -0 ftboot peers --state-dir "$FB_DIR/h3" --json
	[[ $output == *'{"host":"h1","addr":"'"$(fb_addr h1)"'","rtt_us":'[1-9]*',"seen":'[1-9]*',"slots":2,"jobs":3}'* ]]
	# One JSON array.
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert len(d) == 2' <<<"$output"
	grep -q "info: registered $(fb_addr h2) (h2, 5 slots, 1 jobs)" \
	    "$FB_DIR/sn.log"
	# The cache file is the documented text format.
	head -1 "$FB_DIR/h1/peers" | grep -qx '# ft-peers 1'
	grep -Eq '^tcp:127\.0\.0\.1:[0-9]+ host=h2 slots=5 jobs=1 rtt_us=[0-9]+ seen=[0-9]+$' \
	    "$FB_DIR/h1/peers"
}

@test "supernode gone: daemons work from their cache, and say so" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 300ms --slots 2
	fb_start h2 --supernode "$FB_SN" --refresh 300ms --slots 2
	ft_poll 20 fb_peers_with h1 h2
	kill -TERM "$FB_SN_PID"
	ft_poll 20 grep -q "supernode unreachable (.*): working from the cache (1 peers)" \
	    "$(fb_log h1)"
	run -0 fb_peers_with h1 h2
	# Allocation still finds h2 through the cache.
	run -0 ftboot reserve -n 4 -a spread --state-dir "$FB_DIR/h1" \
	    --key-file "$FB_KEY"
	[[ $output == *"grant addr=$(fb_addr h1) host=h1 slots=2"* ]]
	[[ $output == *"grant addr=$(fb_addr h2) host=h2 slots=2"* ]]
}

@test "supernode: a dead daemon is forgotten, and leaves the caches" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 300ms
	fb_start h2 --supernode "$FB_SN" --refresh 300ms
	fb_start h3 --supernode "$FB_SN" --refresh 300ms
	ft_poll 20 fb_peers_with h1 h2 h3
	a3=$(fb_addr h3)
	kill -KILL "$(cat "$FB_DIR/h3/ftboot.pid")"
	ft_poll 30 grep -q "info: forgot $a3 (h3): not seen for 3 refresh periods" \
	    "$FB_DIR/sn.log"
	ft_poll 20 fb_peers_without h1 h3
	ft_poll 20 fb_peers_with h1 h2
}

@test "another cluster key: the supernode and daemons refuse it, and say so" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 300ms
	ftboot keygen --key-file "$FB_DIR/other.key" >/dev/null
	FB_NAMES+=(x)
	ftboot start --listen tcp:127.0.0.1:0 --key-file "$FB_DIR/other.key" \
	    --state-dir "$FB_DIR/x" --name x --supernode "$FB_SN" \
	    --refresh 300ms >/dev/null
	ft_poll 20 grep -q "supernode unreachable ($FB_SN: authentication failed: the daemon does not hold our cluster key)" \
	    "$FB_DIR/x/ftboot.log"
	ft_poll 20 grep -q "connection from 127.0.0.1 closed during the handshake (a different cluster key?)" \
	    "$FB_DIR/sn.log"
	fb_start h2 --supernode "$FB_SN" --refresh 300ms
	ft_poll 20 fb_peers_with h1 h2
	run -0 fb_peers_without h1 x
	# A client with the wrong key.
	run -1 --separate-stderr ftboot reserve -n 1 --boot "$(fb_addr h1)" \
	    --key-file "$FB_DIR/other.key"
	[[ $stderr == "ftboot: fatal: $(fb_addr h1): authentication failed: the daemon does not hold our cluster key" ]]
	run -0 ftboot status --state-dir "$FB_DIR/h1" --key-file "$FB_DIR/other.key"
	[[ ${lines[1]} == "ftboot: no details ($(fb_addr h1): authentication failed"* ]]
}

@test "supernode: strangers without the key cannot hold it up" {
	fb_supernode
	# Connections that never speak, and one that does not finish.
	exec 7<>"/dev/tcp/127.0.0.1/${FB_SN##*:}"
	exec 8<>"/dev/tcp/127.0.0.1/${FB_SN##*:}"
	fttest connect "$FB_SN" --no-verify >/dev/null 2>&1 || true
	fb_start h1 --supernode "$FB_SN" --refresh 300ms
	fb_start h2 --supernode "$FB_SN" --refresh 300ms
	ft_poll 20 fb_peers_with h1 h2
	exec 7>&- 8>&-
}

@test "ftboot peers: a damaged cache is named, line and all" {
	mkdir -p "$FB_DIR/h1"
	printf '# ft-peers 1\ntcp:127.0.0.1:9 host=a slots=1 jobs=1\nbogus\n' \
	    >"$FB_DIR/h1/peers"
	run -1 --separate-stderr ftboot peers --state-dir "$FB_DIR/h1"
	[[ $stderr == "ftboot: fatal: $FB_DIR/h1/peers: line 3: 'bogus' is not tcp:HOST:PORT" ]]
	printf '# ft-peers 9\n' >"$FB_DIR/h1/peers"
	run -1 --separate-stderr ftboot peers --state-dir "$FB_DIR/h1"
	[[ $stderr == *"line 1 is not \"# ft-peers 1\" (an unknown format or version)" ]]
	# A daemon starts all the same, and makes a new cache.
	fb_start h1 --refresh 200ms
	ft_poll 20 grep -q "starting a new cache" "$(fb_log h1)"
	ft_poll 20 ftboot peers --state-dir "$FB_DIR/h1"
}

@test "supernode: peers are ranked by measured RTT, a delayed link last" {
	local port relay try rc
	fb_supernode
	# h2 is reached through a relay that delays each way by 40ms: it
	# advertises the relay's address, so every ping to it takes the
	# slow road.  A free port for h2, then the relay in front of it.
	# The port is free only when probed: should another process take
	# it before h2 listens (status 111), both start again on another.
	FB_NAMES+=(h2)
	for try in 1 2 3 4 5; do
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		ft_bg fttest relay --listen 127.0.0.1:0 --to "127.0.0.1:$port" \
		    --delay 40ms >"$FB_DIR/relay.addr"
		ft_await 30 "$FB_DIR/relay.addr" "$bgpid"
		relay=$(head -1 "$FB_DIR/relay.addr")
		rc=0
		ftboot start --listen "tcp:127.0.0.1:$port" --advertise "$relay" \
		    --key-file "$FB_KEY" --state-dir "$FB_DIR/h2" --name h2 \
		    --supernode "$FB_SN" --refresh 300ms >/dev/null || rc=$?
		[ "$rc" -eq 111 ] || break
		kill -KILL "$bgpid"
		wait "$bgpid" 2>/dev/null || true
	done
	[ "$rc" -eq 0 ]
	cp "$FB_DIR/h2/ftboot.pid" "$FB_DIR/h2.pid"
	fb_start h1 --supernode "$FB_SN" --refresh 300ms
	fb_start h3 --supernode "$FB_SN" --refresh 300ms
	ft_poll 20 fb_peers_with h1 h2 h3
	ft_poll 20 fb_peers_measured h1
	run -0 ftboot peers --state-dir "$FB_DIR/h1" --json
	rtt2=$(python3 -c 'import json, sys; print([p["rtt_us"] for p in json.load(sys.stdin) if p["host"] == "h2"][0])' <<<"$output")
	rtt3=$(python3 -c 'import json, sys; print([p["rtt_us"] for p in json.load(sys.stdin) if p["host"] == "h3"][0])' <<<"$output")
	# A round trip through the relay takes at least twice its delay.
	[ "$rtt2" -ge 80000 ]
	[ "$rtt3" -lt "$rtt2" ]
	# The listing goes nearest first: h3, then h2.
	run -0 ftboot peers --state-dir "$FB_DIR/h1"
	[[ ${lines[1]} == "h3 "* ]]
	[[ ${lines[2]} == "h2 "* ]]
	# Concentrate fills the nearest peer first: h1 asks for 3 of h3's 4.
	run -0 ftboot reserve -n 3 -a concentrate --state-dir "$FB_DIR/h1" \
	    --key-file "$FB_KEY"
	[[ $output == *"host=h3"* ]]
	[[ $output != *"host=h2"* ]]
}
