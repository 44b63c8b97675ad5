# SPDX-License-Identifier: ISC
# Jobs across hosts without root: several ftboot daemons on loopback
# ports, each with its own state directory and host name, driven by
# ftrun --host (which reserves slots on each and starts the job with the
# tokens).  Each daemon runs a job in a child, the host agent, parent of
# the job's processes there.  A "host" dies when that child is killed
# with SIGKILL: its ranks die with it (they die with their parent).

load common
bats_require_minimum_version 1.5.0

setup() {
	ft_setup
	export FT_ALLOW_ROOT=1
	KEY="$BATS_TEST_TMPDIR/cluster.key"
	ftboot keygen --key-file "$KEY" >/dev/null
	HOSTS=""
	AGENTS=()
}

# Start a daemon for host NAME; its address joins $HOSTS, its pid $AGENTS.
agent() {	# name [key file]
	local name=$1 key=${2:-$KEY} dir="$BATS_TEST_TMPDIR/$1.state"
	ft_bg ftboot start --foreground --listen tcp:127.0.0.1:0 \
	    --key-file "$key" --state-dir "$dir" --name "$name" --slots 16 \
	    --jobs 8 2>"$BATS_TEST_TMPDIR/$name.log"
	AGENTS+=("$bgpid")
	ft_await 30 "$dir/ftboot.addr" "$bgpid" "$BATS_TEST_TMPDIR/$name.log"
	HOSTS="${HOSTS:+$HOSTS,}$(sed 's/^tcp://' "$dir/ftboot.addr")"
}

agents() {	# count
	local i
	for ((i = 1; i <= $1; i++)); do
		agent "h$i"
	done
}

# The process serving the job in daemon K (1-based): the daemon's child
# that is the parent of the job's ranks.
job_of_agent() {
	local kid
	for kid in $(ft_children_of "${AGENTS[$(($1 - 1))]}"); do
		if [ -n "$(ft_children_of "$kid")" ]; then
			echo "$kid"
		fi
	done
}

# ring prints its speed: everything else of its line must match.
norm() {
	sed -E 's/, [0-9.]+ us per hop$//'
}

ev() {
	printf '%s\n' "$BATS_TEST_TMPDIR/ev"
}

# Two agents, and a gated job of 2 ranks x 2 replicas across them,
# every process in it (job: its pid), after a fault-free run of it
# (want: its lines sorted, as they interleave in any order).
gated_r2() {	# [ftrun options]
	ft_build gate
	agents 2
	want=$(ftrun -n 2 -r 2 --timeout 60 --key-file "$KEY" --host "$HOSTS" \
	    "$FT_PROGS/gate" /dev/null 50 | sed -E 's/ pid [0-9]+//' | sort)
	[[ $want == *"No Errors"* ]]
	ft_bg ftrun -n 2 -r 2 --timeout 60 "$@" --key-file "$KEY" \
	    --host "$HOSTS" --events "$(ev)" "$FT_PROGS/gate" \
	    "$BATS_TEST_TMPDIR/go" 50 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	job=$bgpid
	# Both ranks printed their line: every process joined the job.
	ft_poll 30 grep -q "^rank 1 " "$BATS_TEST_TMPDIR/out"
	ft_poll 30 grep -q "^rank 0 " "$BATS_TEST_TMPDIR/out"
}

# Is a partial file (a transfer under way) in the cache DIR?
partial_in() {	# dir
	compgen -G "$1/tmp.*" >/dev/null
}

# Has FILE exactly N lines matching RE?
log_count() {	# n re file
	[ "$(grep -c "$2" "$3")" -eq "$1" ]
}

@test "hosts: ring across 3 agents, correct, exit 0, every host used" {
	ft_build ring "$FT_ROOT/examples/ring.c"
	agents 3
	run -0 --separate-stderr ftrun -n 6 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --events "$(ev)" "$FT_PROGS/ring"
	[[ $output =~ ^ring:\ 6\ ranks,\ 1000\ rounds,\ token\ 5000\ \(expected\ 5000\) ]]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$stderr" ]
	for h in h1 h2 h3; do
		grep -q "started 2 processes" "$BATS_TEST_TMPDIR/$h.log"
	done
	[ "$(grep -c '"event":"spawn".*"host":' "$(ev)")" -eq 6 ]
	[ "$(grep -c '"event":"exit".*"status":0' "$(ev)")" -eq 6 ]
	# Each agent removed its job directory.
	for h in h1 h2 h3; do
		ft_poll 10 test -z "$(ls "$BATS_TEST_TMPDIR/$h.state/jobs")"
	done
}

@test "hosts: output lines are whole and tagged with the rank" {
	ft_build spew
	agents 2
	run -0 --separate-stderr ftrun -n 4 --timeout 60 --tag-output \
	    --key-file "$KEY" --host "$HOSTS" "$FT_PROGS/spew" 200 300
	[ "${#lines[@]}" -gt 0 ]
	for l in "${lines[@]}"; do
		[[ $l =~ ^\[[0-3]\]\  ]]
	done
	# Every rank's lines, each whole: the rank's own tag inside.
	for r in 0 1 2 3; do
		[ "$(printf '%s\n' "${lines[@]}" | grep -c "^\[$r\] ")" -gt 0 ]
	done
	# spew's lines: "r<rank> l<n> ", filler, " end", 300 bytes.
	! printf '%s\n' "${lines[@]}" | grep -Ev '^\[([0-3])\] r\1 l[0-9]+ [a-z]+ end$' |
	    grep -q .
	[ "$(printf '%s\n' "${lines[@]}" | grep -c ' end$')" -eq 800 ]
}

@test "hosts: the exit status of a failing remote rank is the job's" {
	agents 2
	printf '#!/bin/sh\n[ "$FT_RANK" = 1 ] && exit 3\nexit 0\n' \
	    >"$BATS_TEST_TMPDIR/fail1"
	chmod +x "$BATS_TEST_TMPDIR/fail1"
	run -3 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" "$BATS_TEST_TMPDIR/fail1"
	[[ $stderr == *"rank 1 "*"exited with status 3"* ]]
}

@test "hosts: a remote replica killed under -r 2, same output" {
	ft_build ring "$FT_ROOT/examples/ring.c"
	agents 2
	want=$(ftrun -n 4 --timeout 60 "$FT_PROGS/ring" | norm)
	run -0 --separate-stderr ftrun -n 4 -r 2 --timeout 60 \
	    --key-file "$KEY" --host "$HOSTS" --events "$(ev)" \
	    --inject kill:rank=1,replica=0,after-sends=250 "$FT_PROGS/ring"
	[ "$(printf '%s\n' "$output" | norm)" = "$want" ]
	grep -q '"event":"inject","rank":1,"replica":0,.*"after-sends"' "$(ev)"
	grep -q '"event":"failed","rank":1,"replica":0,' "$(ev)"
}

@test "hosts: a host killed under -r 2, replicas elsewhere, same output" {
	gated_r2
	victim=$(job_of_agent 2)
	[ -n "$victim" ]
	kill -KILL "$victim"
	ft_poll 30 grep -q '"event":"failed".*"how":"host"' "$(ev)"
	touch "$BATS_TEST_TMPDIR/go"
	st=0
	wait "$job" || st=$?
	[ "$st" -eq 0 ]
	[ "$(sed -E 's/ pid [0-9]+//' "$BATS_TEST_TMPDIR/out" | sort)" = "$want" ]
	[ "$(grep -c '"event":"failed".*"how":"host"' "$(ev)")" -eq 2 ]
	grep -q "lost with its host" "$BATS_TEST_TMPDIR/err"
	ft_events "$(ev)" >"$BATS_TEST_TMPDIR/summary"
	grep -q "^host lost host=" "$BATS_TEST_TMPDIR/summary"
}

@test "hosts: a hung host under -r 2 is found by the gossip detector, same output" {
	# Silence alone would not fail anything within the job's life.
	gated_r2 --hang-timeout 10min
	# Every process serving the job on host 2 stops: its agent, its
	# ranks and its detector module, as a host that hangs.
	victim=$(job_of_agent 2)
	[ -n "$victim" ]
	# Its detector module is running (it has joined the detector).
	ft_poll 30 grep -q "failure detector: member" "$BATS_TEST_TMPDIR/h2.log"
	stopped=("$victim" $(ft_children_of "$victim"))
	[ "${#stopped[@]}" -ge 3 ]
	kill -STOP "${stopped[@]}"
	ft_poll 60 grep -q '"event":"host","host":"h2","reason":"the failure detector declared it failed' "$(ev)"
	touch "$BATS_TEST_TMPDIR/go"
	st=0
	wait "$job" || st=$?
	kill -CONT "${stopped[@]}" 2>/dev/null || true
	[ "$st" -eq 0 ]
	[ "$(sed -E 's/ pid [0-9]+//' "$BATS_TEST_TMPDIR/out" | sort)" = "$want" ]
	# Woken, the agent finds its submitter gone and ends what is left.
	for p in "${stopped[@]}"; do
		ft_poll 30 ft_gone "$p"
	done
}

@test "hosts: a daemon that runs one job at a time takes jobs back to back" {
	local dir="$BATS_TEST_TMPDIR/one.state" i
	ft_bg ftboot start --foreground --listen tcp:127.0.0.1:0 \
	    --key-file "$KEY" --state-dir "$dir" --name one --slots 4 \
	    --jobs 1 2>"$BATS_TEST_TMPDIR/one.log"
	ft_await 30 "$dir/ftboot.addr" "$bgpid" "$BATS_TEST_TMPDIR/one.log"
	# ftrun ends once the daemon's agent is gone, so the next job finds
	# the daemon's one job slot free again.
	for i in 1 2 3 4 5; do
		run -0 ftrun -n 2 --timeout 60 --key-file "$KEY" \
		    --host "$(sed 's/^tcp://' "$dir/ftboot.addr")" true
	done
	ft_poll 10 log_count 5 'ended with status 0' "$BATS_TEST_TMPDIR/one.log"
}

@test "hosts: rank 0 on another host reads ftrun's standard input, every replica of it" {
	ft_build echoin "$FT_ROOT/tests/progs/echoin.c"
	agents 2
	# More than the window of input in flight: flow control is needed.
	seq 1 200000 >"$BATS_TEST_TMPDIR/in"
	want="lines 200000 sum $((200000 * 200001 / 2))"
	run -0 --separate-stderr ftrun -n 3 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" "$FT_PROGS/echoin" <"$BATS_TEST_TMPDIR/in"
	[ "$output" = "$want" ]
	run -0 --separate-stderr ftrun -n 2 -r 2 --timeout 60 \
	    --key-file "$KEY" --host "$HOSTS" "$FT_PROGS/echoin" \
	    <"$BATS_TEST_TMPDIR/in"
	[ "$output" = "$want" ]
	# Nothing on the input: rank 0 reads its end at once.
	run -0 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" "$FT_PROGS/echoin" </dev/null
	[ "$output" = "lines 0 sum 0" ]
}

@test "hosts: --record: ranks run by the daemons record on their host, and replay from there" {
	ft_build echoin "$FT_ROOT/tests/progs/echoin.c"
	agents 2
	cd "$BATS_TEST_TMPDIR"
	seq 1 3000 >in
	run -0 --separate-stderr ftrun -n 3 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --record rec "$FT_PROGS/echoin" <in
	[ "$output" = "lines 3000 sum 4501500" ]
	# Every rank ran under a daemon's agent (none under ftrun): each
	# wrote its record into DIR on its host (one file system here).
	[ "$(ls rec)" = "$(printf 'rank-0.ftr\nrank-1.ftr\nrank-2.ftr\nstdin.zst')" ]
	run -0 --separate-stderr ftreplay run --rank 0 rec -- \
	    "$FT_PROGS/echoin" </dev/null
	[ "$output" = "lines 3000 sum 4501500" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr ftreplay run --rank 2 rec -- "$FT_PROGS/echoin"
	[ -z "$output" ] && [ -z "$stderr" ]
}

@test "hosts: a rank 0 that does not read its input does not stall the job" {
	agents 2
	seq 1 300000 >"$BATS_TEST_TMPDIR/in"
	run -0 ftrun -n 2 --timeout 60 --key-file "$KEY" --host "$HOSTS" \
	    sh -c 'exec 0<&-; echo closed' <"$BATS_TEST_TMPDIR/in"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = closed ]
	run -0 ftrun -n 2 --timeout 60 --key-file "$KEY" --host "$HOSTS" \
	    true <"$BATS_TEST_TMPDIR/in"
}

@test "hosts: --ft ulfm, a host lost: the survivors get MPIX_ERR_PROC_FAILED and shrink" {
	ft_build ulfmgate
	agents 2
	ft_bg ftrun --ft ulfm -n 4 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --events "$(ev)" "$FT_PROGS/ulfmgate" \
	    "$BATS_TEST_TMPDIR/go" >"$BATS_TEST_TMPDIR/out" \
	    2>"$BATS_TEST_TMPDIR/err"
	job=$bgpid
	ft_poll 30 log_count 4 ' ready$' "$BATS_TEST_TMPDIR/out"
	# Which ranks the second host runs: they are lost with it.
	lost=$(grep -c '"event":"spawn".*"host":"h2"' "$(ev)")
	[ "$lost" -ge 1 ]
	[ "$lost" -lt 4 ]
	victim=$(job_of_agent 2)
	[ -n "$victim" ]
	kill -KILL "$victim"
	ft_poll 30 grep -q '"event":"host","host":"h2"' "$(ev)"
	touch "$BATS_TEST_TMPDIR/go"
	st=0
	wait "$job" || st=$?
	[ "$st" -eq 0 ]
	grep -qx "barrier PROC_FAILED, survivors $((4 - lost))" "$BATS_TEST_TMPDIR/out"
}

@test "hosts: ftrun killed with SIGKILL leaves no process of the job" {
	ft_build gate
	agents 2
	ft_bg ftrun -n 4 --timeout 60 --grace 1s --key-file "$KEY" \
	    --host "$HOSTS" --events "$(ev)" "$FT_PROGS/gate" \
	    "$BATS_TEST_TMPDIR/never" >"$BATS_TEST_TMPDIR/out" 2>&1
	job=$bgpid
	ft_poll 30 grep -q "^rank 3 " "$BATS_TEST_TMPDIR/out"
	mapfile -t pids < <(sed -nE 's/.*"event":"spawn".*"pid":([0-9]+).*/\1/p' "$(ev)")
	[ "${#pids[@]}" -eq 4 ]
	for p in "${pids[@]}"; do
		! ft_gone "$p"
	done
	kill -KILL "$job"
	ft_poll 30 ft_all_gone "${pids[@]}"
	# The agents serve on, and removed the job's directories.
	ft_poll 10 test -z "$(ls "$BATS_TEST_TMPDIR/h1.state/jobs")"
	ft_poll 10 test -z "$(ls "$BATS_TEST_TMPDIR/h2.state/jobs")"
	! ft_gone "${AGENTS[0]}"
	! ft_gone "${AGENTS[1]}"
}

@test "hosts: staging a file from the submitter, then from the cache" {
	agents 2
	printf 'staged data %s\n' "$RANDOM" >"$BATS_TEST_TMPDIR/data.txt"
	printf '#!/bin/sh\ncat data.txt\n' >"$BATS_TEST_TMPDIR/show"
	chmod +x "$BATS_TEST_TMPDIR/show"
	want=$(cat "$BATS_TEST_TMPDIR/data.txt")
	run -0 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --stage "$BATS_TEST_TMPDIR/data.txt" \
	    --events "$(ev)" "$BATS_TEST_TMPDIR/show"
	[ "${lines[0]}" = "$want" ]
	[ "${lines[1]}" = "$want" ]
	# Program and data went to each host once.
	[ "$(grep -c '"event":"stage".*"cached":0,"received":2,"fetched":0' "$(ev)")" -eq 2 ]
	# The second job finds both in the cache: nothing is sent again.
	run -0 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --stage "$BATS_TEST_TMPDIR/data.txt" \
	    --events "$(ev)" "$BATS_TEST_TMPDIR/show"
	[ "${lines[0]}" = "$want" ]
	[ "$(grep -c '"event":"stage".*"cached":2,"received":0,"fetched":0' "$(ev)")" -eq 2 ]
	[ "$(grep -c "^agent\[h1\].*received 'data.txt'" "$BATS_TEST_TMPDIR/h1.log")" -eq 1 ]
}

@test "hosts: staging a file:// URL, fetched by each agent" {
	agents 2
	printf 'from a URL\n' >"$BATS_TEST_TMPDIR/remote.txt"
	printf '#!/bin/sh\ncat remote.txt\n' >"$BATS_TEST_TMPDIR/show"
	chmod +x "$BATS_TEST_TMPDIR/show"
	run -0 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --stage "file://$BATS_TEST_TMPDIR/remote.txt" \
	    --events "$(ev)" "$BATS_TEST_TMPDIR/show"
	[ "${lines[0]}" = "from a URL" ]
	[ "${lines[1]}" = "from a URL" ]
	[ "$(grep -c '"event":"stage".*"fetched":1' "$(ev)")" -eq 2 ]
	# Pinned by its hash, the second job takes it from the cache.
	sum=$(sha256sum "$BATS_TEST_TMPDIR/remote.txt" | cut -d' ' -f1)
	run -0 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --events "$(ev)" \
	    --stage "file://$BATS_TEST_TMPDIR/remote.txt#sha256=$sum" \
	    "$BATS_TEST_TMPDIR/show"
	[ "${lines[0]}" = "from a URL" ]
	[ "$(grep -c '"event":"stage".*"cached":2,"received":0,"fetched":0' "$(ev)")" -eq 2 ]
}

@test "hosts: an agent stopped while it fetches leaves no partial file or job directory" {
	agents 1
	# A server that sends part of a file, then nothing more.
	cat >"$BATS_TEST_TMPDIR/stall.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
c.recv(65536)
c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 10000000\r\n\r\n" + b"x" * 100000)
time.sleep(120)
PY
	ft_bg python3 "$BATS_TEST_TMPDIR/stall.py" >"$BATS_TEST_TMPDIR/port"
	ft_await 30 "$BATS_TEST_TMPDIR/port" "$bgpid"
	port=$(cat "$BATS_TEST_TMPDIR/port")
	ft_bg ftrun -n 1 --timeout 100 --key-file "$KEY" --host "$HOSTS" \
	    --stage "http://127.0.0.1:$port/big" /bin/true \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	job=$bgpid
	# The agent has begun the file in its cache.
	state="$BATS_TEST_TMPDIR/h1.state"
	ft_poll 30 partial_in "$state/cache"
	agent=$(ft_children_of "${AGENTS[0]}")
	[ -n "$agent" ]
	kill -TERM $agent
	st=0
	wait "$job" || st=$?
	[ "$st" -ne 0 ]
	grep -q "told to stop while it staged" "$BATS_TEST_TMPDIR/err"
	! partial_in "$state/cache"
	[ -z "$(ls -A "$state/jobs")" ]
}

@test "hosts: a daemon removes what a killed agent left in its state directory" {
	local dir="$BATS_TEST_TMPDIR/left.state"
	mkdir -p "$dir/cache" "$dir/jobs/0123456789abcdef.4242"
	echo partial >"$dir/cache/tmp.AbCdEf"
	echo kept >"$dir/cache/0123"
	echo staged >"$dir/jobs/0123456789abcdef.4242/prog"
	ft_bg ftboot start --foreground --listen tcp:127.0.0.1:0 \
	    --key-file "$KEY" --state-dir "$dir" --name left \
	    2>"$BATS_TEST_TMPDIR/left.log"
	ft_await 30 "$dir/ftboot.addr" "$bgpid" "$BATS_TEST_TMPDIR/left.log"
	[ ! -e "$dir/cache/tmp.AbCdEf" ]
	[ -e "$dir/cache/0123" ]
	[ -z "$(ls -A "$dir/jobs")" ]
	grep -q "removed what killed jobs left: 1 partial file, 1 job directory" "$BATS_TEST_TMPDIR/left.log"
}

@test "hosts: a missing stage file is refused before anything starts" {
	agents 1
	run -100 --separate-stderr ftrun -n 1 --key-file "$KEY" \
	    --host "$HOSTS" --stage "$BATS_TEST_TMPDIR/nope" /bin/true
	[[ $stderr == "ftrun: error: --stage '$BATS_TEST_TMPDIR/nope': No such file or directory"* ]]
	! grep -q "started [0-9]* processes" "$BATS_TEST_TMPDIR/h1.log"
}

@test "hosts: a stage name with a path trick or a bad URL is refused" {
	agents 1
	run -100 --separate-stderr ftrun -n 1 --key-file "$KEY" \
	    --host "$HOSTS" --stage "http://127.0.0.1/" /bin/true
	[[ $stderr == *"--stage 'http://127.0.0.1/': the URL names no file"* ]]
	run -100 --separate-stderr ftrun -n 1 --key-file "$KEY" \
	    --host "$HOSTS" --stage "ftp://127.0.0.1/x" /bin/true
	[[ $stderr == *"only http, https and file URLs"* ]]
	run -100 --separate-stderr ftrun -n 1 --key-file "$KEY" \
	    --host "$HOSTS" --stage "http://127.0.0.1/a/.." /bin/true
	[[ $stderr == *"not a file name to stage"* ]]
}

@test "hosts: an unreachable URL fails the job with a clear error" {
	agents 1
	run --separate-stderr ftrun -n 1 --timeout 60 --key-file "$KEY" \
	    --host "$HOSTS" --stage "http://127.0.0.1:1/missing.dat" /bin/true
	[ "$status" -ne 0 ]
	[[ $stderr == *"host 'h1': unable to fetch 'http://127.0.0.1:1/missing.dat': "* ]]
	ft_poll 10 test -z "$(ls "$BATS_TEST_TMPDIR/h1.state/jobs")"
}

@test "hosts: a wrong cluster key is refused" {
	other="$BATS_TEST_TMPDIR/other.key"
	ftboot keygen --key-file "$other" >/dev/null
	agent h1 "$other"
	run -111 --separate-stderr ftrun -n 1 --key-file "$KEY" \
	    --host "$HOSTS" /bin/true
	[[ $stderr == *"the daemon does not hold our cluster key"* ]]
	ft_poll 10 grep -q "closed during the handshake (a different cluster key?)" \
	    "$BATS_TEST_TMPDIR/h1.log"
}

@test "hosts: a key file others may read is refused" {
	chmod 644 "$KEY"
	run -100 --separate-stderr ftrun -n 1 --key-file "$KEY" \
	    --host 127.0.0.1:1 /bin/true
	[[ $stderr == *"cluster key '$KEY' is open to others (mode 0644)"* ]]
}

@test "hosts: --boot has a daemon allocate the slots (host[:port] or tcp:)" {
	ft_build ring "$FT_ROOT/examples/ring.c"
	agents 1
	run -0 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --boot "$HOSTS" "$FT_PROGS/ring"
	[[ $output =~ ^ring:\ 2\ ranks,\ 1000\ rounds,\ token\ 1000\ \(expected\ 1000\) ]]
	grep -q "started 2 processes" "$BATS_TEST_TMPDIR/h1.log"
	run -0 --separate-stderr ftrun -n 2 --timeout 60 --key-file "$KEY" \
	    --boot "tcp:$HOSTS" "$FT_PROGS/ring"
	run -100 --separate-stderr ftrun -n 2 --key-file "$KEY" \
	    --boot "h1:99999" "$FT_PROGS/ring"
	[[ $stderr == *"--boot 'h1:99999' is not host[:port] or tcp:host:port"* ]]
}

@test "hosts: --log-server is refused across hosts, saying why" {
	run -100 --separate-stderr ftrun -n 2 --ft vlog --key-file "$KEY" \
	    --host 127.0.0.1 --log-server tcp:127.0.0.1:1 /bin/true
	[[ $stderr == *"--log-server is for jobs on this host only for now: across hosts, ftrun starts the job's logger where every host reaches it"* ]]
}
