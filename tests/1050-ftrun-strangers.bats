# SPDX-License-Identifier: ISC
# What a job shows the other users of its host.  Ranks listen on TCP
# only with --tcp: without it they talk over the Unix sockets of the
# job directory (mode 0700).  gate makes the ranks wait, after MPI_Init
# and before any message, until a file exists.  No timing: every wait
# polls for a condition.

load common
bats_require_minimum_version 1.5.0

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

rank_pid() {
	sed -n "s/^rank $1 pid //p" "$BATS_TEST_TMPDIR/out"
}

has_pids() {
	local r
	for ((r = 0; r < $1; r++)); do
		[ -n "$(rank_pid "$r")" ] || return 1
	done
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
