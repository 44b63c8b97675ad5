# SPDX-License-Identifier: ISC
# Reservation and allocation: the gatekeeper's J and P, the allow and
# deny lists, tokens that expire, overbooking with the extra cancelled,
# spread and concentrate over the daemons of a supernode, replicas of a
# rank on distinct hosts (and a warning when there are too few), and
# --host / --hostfile.  `ftboot reserve` is the client (what ftrun
# does before it starts a job).

load common
load boot

setup() {
	fb_setup
}

teardown() {
	fb_teardown
}

# The number of distinct hosts in the "place" lines of $output.
hosts_used() {
	grep '^place ' <<<"$output" | sed 's/.* host=//' | sort -u | wc -l
}

# Every rank's replicas on distinct hosts in $output?
replicas_apart() {
	local pairs
	pairs=$(grep '^place ' <<<"$output" |
	    sed 's/.* rank=\([0-9]*\) replica=[0-9]* host=\(.*\)/\1 \2/')
	[ -n "$pairs" ]
	[ "$(sort <<<"$pairs" | uniq -d | wc -l)" -eq 0 ]
}

# Reservations held on daemon NAME (its status, with the key).
reserved_on() {
	ftboot status --state-dir "$FB_DIR/$1" --key-file "$FB_KEY" --json |
	    sed 's/.*"reserved":\([0-9]*\).*/\1/'
}

@test "reserve: P caps the slots a daemon grants, and the shortfall is named" {
	fb_start h1 --slots 3 --jobs 2
	a=$(fb_addr h1)
	run -1 --separate-stderr ftboot reserve -n 5 --host "${a#tcp:}" \
	    --key-file "$FB_KEY"
	[[ $stderr == "ftboot: fatal: asked for 5 slots, found 3 on 1 peer" ]]
	[ "$(reserved_on h1)" -eq 0 ]
	run -0 ftboot reserve -n 3 --host "${a#tcp:}" --key-file "$FB_KEY"
	[[ ${lines[0]} == "grant addr=$a host=h1 slots=3 procs=3 rtt_us="* ]]
	# Without --keep the reservation is cancelled at the end.
	[ "$(reserved_on h1)" -eq 0 ]
	grep -q "info: cancelled reservation" "$(fb_log h1)"
}

@test "reserve: J reservations at once, the next is refused naming J" {
	fb_start h1 --slots 4 --jobs 2
	a=$(fb_addr h1)
	run -0 ftboot reserve -n 2 --keep --boot "$a" --key-file "$FB_KEY"
	run -0 ftboot reserve -n 1 --keep --host "${a#tcp:}" --key-file "$FB_KEY"
	[ "$(reserved_on h1)" -eq 2 ]
	run -1 --separate-stderr ftboot reserve -n 1 --host "${a#tcp:}" \
	    --key-file "$FB_KEY"
	[[ $stderr == "ftboot: fatal: asked for 1 slots, found 0 on 0 peers; 1 refused, 0 unreachable: $a: busy: 0 of J=2 jobs running, 2 reserved" ]]
	grep -q "info: refused a reservation from 127.0.0.1: busy" "$(fb_log h1)"
}

@test "reserve: an unclaimed token expires and frees its place" {
	fb_start h1 --jobs 1 --reserve-ttl 1s
	a=$(fb_addr h1)
	run -0 ftboot reserve -n 1 --keep --boot "$a" --key-file "$FB_KEY"
	[[ ${lines[0]} == "grant addr=$a host=h1 slots=1 procs=1 "* ]]
	ft_poll 20 grep -q "info: 1 reservation expired unclaimed" "$(fb_log h1)"
	[ "$(reserved_on h1)" -eq 0 ]
	run -0 ftboot reserve -n 1 --keep --boot "$a" --key-file "$FB_KEY"
}

@test "reserve: the deny list refuses a submitter, naming it" {
	fb_start h1 --deny 127.0.0.0/8
	a=$(fb_addr h1)
	run -1 --separate-stderr ftboot reserve -n 1 --host "${a#tcp:}" \
	    --key-file "$FB_KEY"
	[[ $stderr == *"$a: submitter 127.0.0.1 is on the deny list" ]]
	run -1 --separate-stderr ftboot reserve -n 1 --boot "$a" \
	    --key-file "$FB_KEY"
	[[ $stderr == "ftboot: fatal: submitter 127.0.0.1 is on the deny list" ]]
	grep -q "info: refused an allocation for 127.0.0.1: submitter 127.0.0.1 is on the deny list" \
	    "$(fb_log h1)"
}

@test "reserve: the allow list admits only its submitters" {
	fb_start h1 --allow 10.0.0.0/8,192.168.0.0/16
	fb_start h2 --allow 127.0.0.1
	a1=$(fb_addr h1)
	a2=$(fb_addr h2)
	run -1 --separate-stderr ftboot reserve -n 1 --host "${a1#tcp:}" \
	    --key-file "$FB_KEY"
	[[ $stderr == *"$a1: submitter 127.0.0.1 is not on the allow list" ]]
	run -0 ftboot reserve -n 1 --host "${a2#tcp:}" --key-file "$FB_KEY"
	[[ ${lines[0]} == "grant addr=$a2 host=h2 "* ]]
}

@test "allocate: spread and concentrate over the supernode's daemons" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 300ms --slots 4
	fb_start h2 --supernode "$FB_SN" --refresh 300ms --slots 4
	fb_start h3 --supernode "$FB_SN" --refresh 300ms --slots 4
	ft_poll 20 fb_peers_with h1 h2 h3
	ft_poll 20 fb_peers_measured h1
	run -0 ftboot reserve -n 3 -a spread --state-dir "$FB_DIR/h1" \
	    --key-file "$FB_KEY"
	[ "$(hosts_used)" -eq 3 ]
	run -0 ftboot reserve -n 4 -a concentrate --state-dir "$FB_DIR/h1" \
	    --key-file "$FB_KEY"
	[ "$(hosts_used)" -eq 1 ]
	run -0 ftboot reserve -n 6 -a concentrate --state-dir "$FB_DIR/h1" \
	    --key-file "$FB_KEY"
	[ "$(hosts_used)" -eq 2 ]
	[ "$(grep -c '^grant ' <<<"$output")" -eq 2 ]
	run -1 --separate-stderr ftboot reserve -n 13 --state-dir "$FB_DIR/h1" \
	    --key-file "$FB_KEY"
	[[ $stderr == "ftboot: fatal: asked for 13 slots, found 12 on 3 peers" ]]
	[ "$(reserved_on h1)" -eq 0 ]
	[ "$(reserved_on h2)" -eq 0 ]
	[ "$(reserved_on h3)" -eq 0 ]
}

@test "allocate: the overbooked reservation is cancelled, the used ones kept" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 300ms --slots 4
	fb_start h2 --supernode "$FB_SN" --refresh 300ms --slots 4
	fb_start h3 --supernode "$FB_SN" --refresh 300ms --slots 4
	ft_poll 20 fb_peers_with h1 h2 h3
	run -0 ftboot reserve -n 4 -a concentrate --keep \
	    --state-dir "$FB_DIR/h1" --key-file "$FB_KEY"
	[ "$(grep -c '^grant ' <<<"$output")" -eq 1 ]
	# Two hosts were reserved (one extra), one remains.
	[ "$(cat "$(fb_log h1)" "$(fb_log h2)" "$(fb_log h3)" |
	    grep -c 'info: reserved')" -eq 2 ]
	[ $(( $(reserved_on h1) + $(reserved_on h2) + $(reserved_on h3) )) -eq 1 ]
}

@test "allocate -r 2: replicas of a rank on distinct hosts" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 300ms --slots 4
	fb_start h2 --supernode "$FB_SN" --refresh 300ms --slots 4
	fb_start h3 --supernode "$FB_SN" --refresh 300ms --slots 4
	ft_poll 20 fb_peers_with h1 h2 h3
	for a in spread concentrate; do
		run -0 --separate-stderr ftboot reserve -n 6 -r 2 -a "$a" \
		    --state-dir "$FB_DIR/h1" --key-file "$FB_KEY"
		[ -z "$stderr" ]
		replicas_apart
	done
	run -0 --separate-stderr ftboot reserve -n 2 -r 4 \
	    --state-dir "$FB_DIR/h1" --key-file "$FB_KEY"
	[[ $stderr == *"warning: replicas of 2 of 2 ranks share a host: 4 replicas of a rank need 4 hosts, and only 3 were granted" ]]
}

@test "reserve --hostfile: host slots=N lines" {
	fb_start h1 --slots 8
	fb_start h2 --slots 8
	a1=$(fb_addr h1)
	a2=$(fb_addr h2)
	printf '# two daemons\n%s slots=2\n%s\n' "${a1#tcp:}" "${a2#tcp:}" \
	    >"$FB_DIR/hosts"
	# slots=2 caps h1 below its P of 8; h2 gives what is left.
	run -0 ftboot reserve -n 10 --hostfile "$FB_DIR/hosts" \
	    --key-file "$FB_KEY"
	[[ $output == *"grant addr=$a1 host=h1 slots=2 procs=2 "* ]]
	[[ $output == *"grant addr=$a2 host=h2 slots=8 procs=8 "* ]]
	run -1 --separate-stderr ftboot reserve -n 11 \
	    --hostfile "$FB_DIR/hosts" --key-file "$FB_KEY"
	[[ $stderr == "ftboot: fatal: asked for 11 slots, found 10 on 2 peers" ]]
	printf '%s slots=x\n' "${a1#tcp:}" >"$FB_DIR/bad"
	run -100 --separate-stderr ftboot reserve -n 1 --hostfile "$FB_DIR/bad" \
	    --key-file "$FB_KEY"
	[[ $stderr == *"$FB_DIR/bad: line 1: slots 'x' is invalid"* ]]
	run -1 --separate-stderr ftboot reserve -n 1 --host 127.0.0.1:1 \
	    --key-file "$FB_KEY"
	[[ $stderr == *"1 unreachable: tcp:127.0.0.1:1: Connection refused" ]]
}

# A peer that accepts, takes HELLO and never answers: it writes its
# address to $1, then the number of HELLOs taken so far to $2, and
# holds every connection open.  Its pid is in $SILENT_PID.
silent_peer() {
	python3 - "$1" "$2" <<'PY' &
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1] + ".tmp", "w").write("tcp:127.0.0.1:%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept()
    c.recv(64)
    held.append(c)
    open(sys.argv[2] + ".tmp", "w").write("%d\n" % len(held))
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
PY
	FT_BG_PIDS+=("$!")
	SILENT_PID=$!
}

# Has the silent peer taken at least N HELLOs?
hellos() {
	[ -s "$2" ] && [ "$(cat "$2")" -ge "$1" ]
}

@test "allocate: the daemon answers while an allocation waits on a silent peer" {
	silent_peer "$FB_DIR/silent.addr" "$FB_DIR/silent.hello"
	ft_await 30 "$FB_DIR/silent.addr" "$SILENT_PID"
	mkdir -p "$FB_DIR/h1"
	printf '# ft-peers 1\n%s host=mute slots=4 jobs=1 rtt_us=1 seen=1\n' \
	    "$(cat "$FB_DIR/silent.addr")" >"$FB_DIR/h1/peers"
	fb_start h1 --slots 1 --refresh 1h
	ft_bg ftboot reserve -n 2 --state-dir "$FB_DIR/h1" --key-file "$FB_KEY" \
	    2>"$FB_DIR/reserve.err"
	rpid=$bgpid
	# The refresher's ping and then the allocation are in the
	# handshake with the silent peer.
	ft_poll 20 hellos 2 "$FB_DIR/silent.hello"
	run -0 ftboot status --state-dir "$FB_DIR/h1" --key-file "$FB_KEY"
	[[ ${lines[1]} == "ftboot: host h1, P=1 slots,"* ]]
	rc=0
	wait "$rpid" || rc=$?
	[ "$rc" -eq 1 ]
	grep -q "asked for 2 slots, found 1 on 1 peer; 0 refused, 1 unreachable: $(cat "$FB_DIR/silent.addr"): no answer within 5s (during the handshake)" \
	    "$FB_DIR/reserve.err"
}

@test "allocate: a submitter gone before its grants leaves nothing reserved" {
	silent_peer "$FB_DIR/silent.addr" "$FB_DIR/silent.hello"
	ft_await 30 "$FB_DIR/silent.addr" "$SILENT_PID"
	mkdir -p "$FB_DIR/h1"
	printf '# ft-peers 1\n%s host=mute slots=4 jobs=1 rtt_us=1 seen=1\n' \
	    "$(cat "$FB_DIR/silent.addr")" >"$FB_DIR/h1/peers"
	fb_start h1 --slots 1 --refresh 1h --reserve-ttl 1h
	ft_bg ftboot reserve -n 1 --state-dir "$FB_DIR/h1" --key-file "$FB_KEY"
	rpid=$bgpid
	# h1 reserved on itself, then overbooks on the silent peer (whose
	# other HELLO is the refresher's ping).
	ft_poll 20 hellos 2 "$FB_DIR/silent.hello"
	[ "$(reserved_on h1)" -eq 1 ]
	kill -KILL "$rpid"
	ft_poll 30 grep -q "info: the submitter went away: cancelled its 1 reservations" \
	    "$(fb_log h1)"
	[ "$(reserved_on h1)" -eq 0 ]
}

@test "allocate: a cache too short asks the supernode for more peers" {
	fb_supernode
	fb_start h1 --supernode "$FB_SN" --refresh 1h --slots 1
	ft_poll 20 grep -q "registered with the supernode $FB_SN (0 peers)" \
	    "$(fb_log h1)"
	fb_start h2 --supernode "$FB_SN" --refresh 1h --slots 1
	fb_start h3 --supernode "$FB_SN" --refresh 1h --slots 1
	ft_poll 20 grep -q "registered $(fb_addr h3)" "$FB_DIR/sn.log"
	# h1 refreshes once an hour: its cache knows neither.
	run -0 fb_peers_without h1 h2
	run -0 fb_peers_without h1 h3
	run -0 ftboot reserve -n 3 --state-dir "$FB_DIR/h1" --key-file "$FB_KEY"
	[ "$(hosts_used)" -eq 3 ]
	[[ $output == *"host=h2 slots=1 procs=1"* ]]
	[[ $output == *"host=h3 slots=1 procs=1"* ]]
}
