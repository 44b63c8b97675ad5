# SPDX-License-Identifier: ISC
# What a job shows the other users of its host, and how it stands a
# stranger's connections.  Ranks listen on TCP only with --tcp: without
# it they talk over the Unix sockets of the job directory (mode 0700).
# A flood of connections that never finish the handshake (tests/progs/
# flood.py) costs a rank, or ftrun, a bounded number of descriptors and
# of warning lines (ft-wire(7)), and the job still ends.  gate makes
# the ranks wait, after MPI_Init and before any message, until a file
# exists.  No timing: every wait polls for a condition.

load common
bats_require_minimum_version 1.5.0

FLOOD="$FT_ROOT/tests/progs/flood.py"

# The TCP sockets a process listens on, "PORT QUEUE" a line, QUEUE
# being the connections waiting in its accept queue (from /proc).
tcp_listening() {
	python3 - "$1" <<'EOF'
import os, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        continue
    if link.startswith("socket:["):
        inodes.add(link[8:-1])
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    with open(table) as f:
        next(f)
        for line in f:
            x = line.split()
            if x[3] == "0A" and x[9] in inodes:
                print(int(x[1].rsplit(":", 1)[1], 16),
                      int(x[4].split(":")[1], 16))
EOF
}

# The open descriptors of a process.
nfds() {
	local fds=(/proc/"$1"/fd/*)
	echo "${#fds[@]}"
}

rank_pid() {
	sed -n "s/^rank $1 pid 0*//p" "$BATS_TEST_TMPDIR/out"
}

has_pids() {
	local r
	for ((r = 0; r < $1; r++)); do
		[ -n "$(rank_pid "$r")" ] || return 1
	done
}

# Is the accept queue of every TCP listener of a process empty?
accepted_all() {
	local port queue
	while read -r port queue; do
		[ "$queue" -eq 0 ] || return 1
	done < <(tcp_listening "$1")
}

# Run gate with N ranks and more ftrun options, under a descriptor limit
# of 256, and wait until every rank has printed its pid.
start_gate() {
	local n=$1
	shift
	ft_build gate
	ft_bg bash -c 'ulimit -n 256 && exec "$@"' sh ftrun -n "$n" "$@" \
	    "$FT_PROGS/gate" "$BATS_TEST_TMPDIR/go" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	job=$bgpid
	ft_poll 60 has_pids "$n"
}

# Let the ring go and wait for the job; its status in $status.
finish_gate() {
	touch "$BATS_TEST_TMPDIR/go"
	ft_poll 60 ft_gone "$job"
	status=0
	wait "$job" || status=$?
}

@test "without --tcp, no rank and not ftrun listens on a TCP port" {
	start_gate 2
	run -0 tcp_listening "$(rank_pid 0)"
	[ -z "$output" ]
	run -0 tcp_listening "$(rank_pid 1)"
	[ -z "$output" ]
	run -0 tcp_listening "$job"
	[ -z "$output" ]
	[ -S "$(echo "$BATS_TEST_TMPDIR"/ft.*/r1.sock)" ]
	finish_gate
	[ "$status" -eq 0 ]
	grep -qx "No Errors" "$BATS_TEST_TMPDIR/out"
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "with --tcp, every rank listens on one TCP port, and on no Unix socket" {
	start_gate 2 --tcp
	run -0 tcp_listening "$(rank_pid 0)"
	[ "${#lines[@]}" -eq 1 ]
	run -0 tcp_listening "$(rank_pid 1)"
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$(echo "$BATS_TEST_TMPDIR"/ft.*)/r1.sock" ]
	finish_gate
	[ "$status" -eq 0 ]
	grep -qx "No Errors" "$BATS_TEST_TMPDIR/out"
}

@test "a rank flooded with 2000 silent TCP connections keeps a few descriptors, and the job ends with few warnings" {
	local pid port queue base n refused
	start_gate 3 --tcp
	pid=$(rank_pid 1)
	read -r port queue < <(tcp_listening "$pid")
	base=$(nfds "$pid")
	# A first flood while the ranks wait: rank 1 (in MPI_Recv) accepts
	# every connection, and keeps at most 3 + 64 in the handshake,
	# though its limit of 256 descriptors would allow more.
	ft_bg python3 "$FLOOD" "tcp:127.0.0.1:$port" 1000 \
	    "$BATS_TEST_TMPDIR/ready1"
	ft_await 60 "$BATS_TEST_TMPDIR/ready1" "$bgpid"
	[ "$(cat "$BATS_TEST_TMPDIR/ready1")" -gt 900 ]
	ft_poll 30 accepted_all "$pid"
	n=$(nfds "$pid")
	echo "rank 1 holds $n descriptors, $base before the flood"
	[ "$n" -le $((base + 3 + 64)) ]
	# A second one while the ranks connect to each other.
	ft_bg python3 "$FLOOD" "tcp:127.0.0.1:$port" 1000
	finish_gate
	[ "$status" -eq 0 ]
	grep -qx "No Errors" "$BATS_TEST_TMPDIR/out"
	refused=$(grep -c "\[rank 1\]: warning: refused a connection" \
	    "$BATS_TEST_TMPDIR/err")
	echo "$refused lines of refusal"
	[ "$refused" -ge 5 ]
	[ "$refused" -lt 100 ]
	grep -q "\[rank 1\]: warning: [0-9]* more refused connections suppressed" \
	    "$BATS_TEST_TMPDIR/err"
}

@test "ftrun closes silent connections beyond its cap, with few warnings, and the job goes on" {
	# 300 connections, 2 ranks: at most 2 + 64 stay in the handshake.
	ft_build hello
	run -0 --separate-stderr ftrun -n 2 sh -c '
	    if [ "$FT_RANK" = 0 ]; then
		    python3 "$2" "$FT_LAUNCHER" 300 - 234 || exit 1
	    fi
	    exec "$1"' sh "$FT_PROGS/hello" "$FLOOD"
	[[ $output == *"flood: closed "*" of 300"* ]]
	[[ $output == *"No Errors"* ]]
	refused=$(grep -c "ftrun: warning: refused a connection" <<<"$stderr")
	echo "$refused lines of refusal"
	[ "$refused" -ge 5 ]
	[ "$refused" -lt 100 ]
	[[ $stderr == *"ftrun: warning: "*" more refused connections suppressed"* ]]
}
