#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# The figures of issue 12 (jobs across hosts), with hosts made of network
# namespaces (tests/netns.bash) on this machine:
#  (a) start-up of `ftrun -n 64 true` across 4 namespace hosts, on one
#      namespace host through its daemon, and in ftrun's local mode,
#      against `mpirun.openmpi -n 64 --oversubscribe true` on this host;
#  (b) DAEMONS (256) ftboot daemons on loopback ports registered with one
#      supernode: the time until every daemon's peer cache holds them all,
#      then the time of `ftrun --boot ADDR -n 2*DAEMONS true`, and within
#      it the time until the first rank is spawned (allocation);
#  (c) the time to detect the loss of a host: a job of 8 ranks x 2
#      replicas across 4 hosts, one host killed (every process in it,
#      SIGKILL), then in other runs cut off (its link down), from the
#      kill or the cut to the first "failed" event in ftrun's events
#      file, against the gossip detector's bound (`ftgossip predict`);
#  (d) ping-pong latency and bandwidth (bench/pingpong.c) between two
#      namespace hosts, ft against Open MPI over TCP.
# Parts that need what is not there (root, ftboot, ftrun --host,
# mpirun.openmpi) say so and are skipped, so the script runs before and
# after issue 12 is merged.  Times are min and median of the repeats
# (hyperfine, where it is installed, for the start-up).  Benchmarks
# measure; nothing here asserts.  Every namespace and daemon is removed
# at the end, whatever happens.
#
# usage: bench/multihost.sh [-r repeats] [-p parts] [-d daemons]
#   -p	the parts to run, such as "ad" (default: abcd)
#
# FTBIN is the directory holding ftrun, ftcc, ftboot, ftgossip and
# fttest (default: $PWD/bin).  Open MPI across namespaces: mpirun runs
# in the first host, and starts its daemon in the second through
# --mca plm_rsh_agent, a script that runs the command with `ip netns
# exec` (there is no ssh); --bind-to none, as both "hosts" share this
# machine's cores.
# Exit status: 0, 1 if a part failed, 100 for a usage error.

set -uo pipefail

prog=multihost.sh
repeats=5
parts=abcd
daemons=256
port=7400		# ftboot's port in each namespace host

usage() {
	echo "usage: bench/multihost.sh [-r repeats] [-p parts] [-d daemons]" >&2
	exit 100
}

while getopts "r:p:d:" opt; do
	case $opt in
	r) repeats=$OPTARG ;;
	p) parts=$OPTARG ;;
	d) daemons=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($# == 0)) || usage
[[ $repeats =~ ^[1-9][0-9]*$ ]] && ((repeats <= 100)) ||
	{ echo "$prog: fatal: repeats '$repeats' is not from 1 to 100" >&2; exit 100; }
[[ $parts =~ ^[abcd]+$ ]] ||
	{ echo "$prog: fatal: parts '$parts' are not letters of abcd" >&2; exit 100; }
[[ $daemons =~ ^[1-9][0-9]*$ ]] && ((daemons <= 1024)) ||
	{ echo "$prog: fatal: daemons '$daemons' is not from 1 to 1024" >&2; exit 100; }

benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FTBIN=$(cd "${FTBIN:-$PWD/bin}" 2>/dev/null && pwd) ||
	{ echo "$prog: fatal: FTBIN '${FTBIN:-$PWD/bin}' is not a directory" >&2; exit 100; }
export PATH="$FTBIN:$PATH"
# shellcheck source=tests/netns.bash
source "$benchdir/../tests/netns.bash"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftmultihost.XXXXXX")
# Daemons, supernodes and jobs started in this namespace, killed at the end.
bgpids=()
cleanup() {
	((${#bgpids[@]})) && kill -KILL "${bgpids[@]}" 2>/dev/null
	((${#bgpids[@]})) && wait "${bgpids[@]}" 2>/dev/null
	netns_down -f
	# Any run of this shell, should one have been lost track of.
	netns__purge "$NETNS_PREFIX-$$"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
failed=0
ulimit -n 65536 2>/dev/null || ulimit -n 4096 2>/dev/null || true

# Keep the user's own key, state and daemons out of it.
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state \
	XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
key=$XDG_CONFIG_HOME/ft/cluster.key
# ftboot refuses root unless told (as mpirun does); this is a bench.
[ "$(id -u)" = 0 ] && export FT_ALLOW_ROOT=1
ompi=(mpirun.openmpi --oversubscribe)
[ "$(id -u)" = 0 ] && ompi+=(--allow-run-as-root)

skip() {	# PART WHY
	echo "part ($1): skipped: $2"
	echo
}

partfail() {	# PART WHAT [FILE]
	echo "part ($1): failed: $2"
	[ -n "${3:-}" ] && [ -s "$3" ] && tail -n 15 "$3" | sed 's/^/    /'
	echo
	failed=1
}

# calc EXPR: the value of an arithmetic expression of decimals.
calc() { awk "BEGIN { printf \"%.6f\\n\", $1 }"; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
minimum() { sort -g | head -n 1; }

# The prerequisites, each a reason to skip or nothing.
need_ftboot() {
	[ -x "$FTBIN/ftboot" ] && return 0
	echo "no '$FTBIN/ftboot' (issue 12's ftboot is not built)"
	return 1
}
need_ftrun() {	# OPTION
	local out
	out=$("$FTBIN/ftrun" --help 2>&1)
	[[ $out == *"$1"* ]] && return 0
	echo "'$FTBIN/ftrun' has no $1 (issue 12's remote execution is not built)"
	return 1
}
need_root() {
	netns_check && return 0
	echo "$NETNS_WHY"
	return 1
}
need_ompi() {
	command -v mpirun.openmpi >/dev/null && command -v mpicc.openmpi \
	    >/dev/null && return 0
	echo "no mpirun.openmpi or mpicc.openmpi (make deps-bench)"
	return 1
}

# The cluster key, once.
keygen() {
	[ -s "$key" ] && return 0
	ftboot keygen >"$tmp/keygen.log" 2>&1 && [ -s "$key" ] && return 0
	echo "ftboot keygen did not write '$key':"
	sed 's/^/    /' "$tmp/keygen.log"
	return 1
}

# mono CMD ...: print CLOCK_MONOTONIC (as ftrun's events' "t"), then
# exec CMD.
mono() {
	python3 -c 'import os, sys, time
print("%.6f" % time.monotonic(), flush=True)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# poll SECS CMD ...: run CMD every 50 ms until it succeeds.
poll() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# Namespace hosts 1 .. N, one ftboot each on ADDR:$port with SLOTS
# slots; $hostfile names them.  1 with the reason in $why if they do
# not come up.  Not in a subshell: the hosts are this shell's.
boot_hosts() {	# N SLOTS
	local n=$1 i
	why=
	netns_up "$n" 2>"$tmp/up.err" || { why=$(cat "$tmp/up.err"); return 1; }
	hostfile=$tmp/hostfile
	: >"$hostfile"
	for ((i = 1; i <= n; i++)); do
		netns__spawn "$i" "boot.$i" ftboot start --name "h$i" --listen \
		    "${NETNS_ADDR[i]}:$port" --slots "$2" --jobs 4 \
		    --key-file "$key" --state-dir "$tmp/boot.$i" --foreground
		echo "${NETNS_ADDR[i]}:$port slots=$2" >>"$hostfile"
	done
	for ((i = 1; i <= n; i++)); do
		if ! poll 20 netns_exec "$i" ftboot status --state-dir \
		    "$tmp/boot.$i" >/dev/null 2>&1; then
			why="the daemon of host $i did not answer in 20 s:
$(tail -n 10 "$NETNS_DIR/boot.$i.err" | sed 's/^/    /')"
			return 1
		fi
	done
}

# timeit LABEL NS CMD ...: time CMD, run in namespace NS ("-": this
# one), $repeats times; print a row of min, median and mean in ms.
timeit() {
	local label=$1 ns=$2 i t0 t1 st=0 wrap=()
	shift 2
	[ "$ns" = - ] || wrap=(ip netns exec "$ns")
	: >"$tmp/times"
	if command -v hyperfine >/dev/null; then
		"${wrap[@]}" hyperfine -N --warmup 1 --runs "$repeats" \
		    --style none --export-json "$tmp/hf.json" "$*" \
		    >"$tmp/hf.log" 2>&1 || st=$?
		((st == 0)) && python3 -c 'import json, sys
for t in json.load(open(sys.argv[1]))["results"][0]["times"]:
    print(t * 1e3)' "$tmp/hf.json" >"$tmp/times"
		cp "$tmp/hf.log" "$tmp/run.err"
	else
		for ((i = 0; i < repeats && st == 0; i++)); do
			t0=$(date +%s%N)
			"${wrap[@]}" "$@" >/dev/null 2>"$tmp/run.err" || st=$?
			t1=$(date +%s%N)
			calc "$(((t1 - t0) / 1000)) / 1000" >>"$tmp/times"
		done
	fi
	if ((st != 0)); then
		printf '  %-44s failed (status %d)\n' "$label" "$st"
		tail -n 10 "$tmp/run.err" | sed 's/^/      /'
		failed=1
		return 1
	fi
	printf '  %-44s %9.1f %9.1f %9.1f\n' "$label" "$(minimum <"$tmp/times")" \
	    "$(median <"$tmp/times")" \
	    "$(awk '{ s += $1 } END { print s / NR }' "$tmp/times")"
}

part_a() {
	local why h1
	echo "(a) start-up of 64 ranks of true, ms ($repeats runs$(command -v hyperfine >/dev/null && echo ", hyperfine"))"
	printf '  %-44s %9s %9s %9s\n' "" min median mean
	timeit "ft, this host, local mode" - ftrun -n 64 true
	if why=$(need_ompi); then
		# odls_base_cutoff: as bench/run.sh, Open MPI 4.1's threaded
		# fork from 32 local processes on hangs with true.
		timeit "Open MPI, this host" - "${ompi[@]}" --mca \
		    odls_base_cutoff 1000000 -n 64 true
	else
		echo "  Open MPI: skipped: $why"
	fi
	if ! why=$(need_root) || ! why=$(need_ftboot) ||
	    ! why=$(need_ftrun --hostfile) || ! why=$(keygen); then
		echo "  ft across namespace hosts: skipped: $why"
		echo
		return
	fi
	if ! boot_hosts 4 64; then
		partfail a "the hosts did not come up: $why"
		netns_down -f
		return
	fi
	h1=${NETNS_HOST[1]}
	head -n 1 "$hostfile" >"$tmp/hostfile1"
	timeit "ft, 1 namespace host, through its daemon" "$h1" ftrun \
	    --hostfile "$tmp/hostfile1" -n 64 true
	sed 's/slots=64/slots=16/' "$hostfile" >"$tmp/hostfile4"
	timeit "ft, 4 namespace hosts, 16 ranks each" "$h1" ftrun \
	    --hostfile "$tmp/hostfile4" -n 64 true
	timeit "(ip netns exec alone)" - ip netns exec "$h1" true
	netns_down -f
	echo
}

# How many peers a daemon's cache holds, from `ftboot peers --json`: a
# list of peers, or an object with one.
count_peers() {	# STATEDIR
	ftboot peers --state-dir "$1" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
if isinstance(d, dict):
    d = next((v for v in d.values() if isinstance(v, list)), [])
print(len(d))'
}

# Ports free on loopback now, N of them.
free_ports() {	# N
	python3 -c 'import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

part_b() {
	local why ports sp i t0 t1 n want=$((daemons - 1)) ev first
	echo "(b) $daemons daemons on loopback, one supernode, then -n $((2 * daemons))"
	if ! why=$(need_ftboot) || ! why=$(need_ftrun --boot) ||
	    ! why=$(keygen); then
		skip b "$why"
		return
	fi
	read -r -a ports <<<"$(free_ports $((daemons + 1)))"
	sp=${ports[daemons]}
	ftboot supernode --listen "127.0.0.1:$sp" --key-file "$key" \
	    >"$tmp/super.log" 2>&1 &
	bgpids+=($!)
	t0=$(date +%s%N)
	for ((i = 0; i < daemons; i++)); do
		ftboot start --supernode "127.0.0.1:$sp" --listen \
		    "127.0.0.1:${ports[i]}" --slots 2 --jobs 1 --key-file "$key" \
		    --state-dir "$tmp/b.$i" --foreground \
		    >"$tmp/b.$i.log" 2>&1 &
		bgpids+=($!)
	done
	# Registered: the first and the last daemon know every other.
	if ! poll 300 eval '[ "$(count_peers "$tmp/b.0")" -ge '"$want"' ] &&
	    [ "$(count_peers "$tmp/b.$((daemons - 1))")" -ge '"$want"' ]'; then
		partfail b "the peer caches did not reach $want peers in 300 s (daemon 0 has $(count_peers "$tmp/b.0"))" "$tmp/b.0.log"
		kill -KILL "${bgpids[@]}" 2>/dev/null
		wait "${bgpids[@]}" 2>/dev/null
		bgpids=()
		return
	fi
	t1=$(date +%s%N)
	echo "  all registered (daemons 0 and $((daemons - 1)) see $want peers): $(((t1 - t0) / 1000000)) ms after the first start"
	n=$((2 * daemons))
	printf '  %-44s %9s %9s %9s\n' "" min median mean
	: >"$tmp/alloc"
	for ((i = 0; i < repeats; i++)); do
		ev=$tmp/b.events.$i
		mono ftrun --boot "127.0.0.1:${ports[0]}" --events "$ev" -n "$n" \
		    true >"$tmp/b.t0" 2>"$tmp/run.err" || {
			partfail b "ftrun --boot -n $n failed" "$tmp/run.err"
			break
		}
		first=$(grep -m 1 '"event":"spawn"' "$ev" | sed 's/^{"t":\([0-9.]*\),.*/\1/')
		[ -n "$first" ] &&
			calc "($first - $(cat "$tmp/b.t0")) * 1000" >>"$tmp/alloc"
	done
	timeit "ftrun --boot -n $n true (whole job)" - ftrun --boot \
	    "127.0.0.1:${ports[0]}" -n "$n" true
	[ -s "$tmp/alloc" ] &&
		printf '  %-44s %9.1f %9.1f %9.1f\n' "  of which until the first spawn" \
		    "$(minimum <"$tmp/alloc")" "$(median <"$tmp/alloc")" \
		    "$(awk '{ s += $1 } END { print s / NR }' "$tmp/alloc")"
	kill -TERM "${bgpids[@]}" 2>/dev/null
	poll 10 eval '! kill -0 '"${bgpids[*]}"' 2>/dev/null'
	kill -KILL "${bgpids[@]}" 2>/dev/null
	wait "${bgpids[@]}" 2>/dev/null
	bgpids=()
	echo
}

part_c() {
	local why bound tclean per r ev tkill first last nfail mode ping \
	    period=100ms
	echo "(c) detection of a host's loss: 8 ranks x 2 replicas on 4 hosts, host 3 killed, then cut off"
	if ! why=$(need_root) || ! why=$(need_ftboot) ||
	    ! why=$(need_ftrun --hostfile) || ! why=$(keygen); then
		skip c "$why"
		return
	fi
	# The members: ftrun (member 0) and the agents of the 4 hosts.
	bound=$(ftgossip predict --protocol dbrr -n 5 --period "$period")
	tclean=$(sed -n 's/.* tcleanup=\([0-9.]*\)s.*/\1/p' <<<"$bound")
	per=$(sed -n 's/.* period=\([0-9.]*\)s.*/\1/p' <<<"$bound")
	# The ping timeout ftgossip run takes by default: max(Tcleanup, 1 s).
	ping=$(calc "($tclean > 1) ? $tclean : 1" 2>/dev/null || echo 1)
	echo "  detector: dbrr, period $period, 5 members; a killed host: its connections end at once; a cut host: bound Tcleanup + ping + period = $(calc "$tclean + $ping + $per") s"
	if ! ftcc -O2 -o "$tmp/gate" "$benchdir/../tests/progs/gate.c" \
	    >"$tmp/cc.log" 2>&1; then
		partfail c "ftcc failed" "$tmp/cc.log"
		return
	fi
	for mode in kill cut; do
	: >"$tmp/first"
	: >"$tmp/last"
	for ((r = 0; r < repeats; r++)); do
		if ! boot_hosts 4 4; then
			partfail c "the hosts did not come up: $why"
			netns_down -f
			return
		fi
		ev=$tmp/c.events.$mode.$r
		# An MPI program that waits (gate: rank 0 for a file that
		# never comes, the others in a receive); a hang timeout
		# longer than the run: only the detector finds a cut.
		netns__spawn 1 job ftrun --hostfile "$hostfile" -n 8 -r 2 \
		    --detector dbrr --gossip-period "$period" \
		    --hang-timeout 10min --events "$ev" \
		    "$tmp/gate" "$tmp/never"
		if ! poll 60 events_at_least "$ev" spawn 16 ||
		    ! poll 60 grep -q "failure detector: member" "$NETNS_DIR/boot.3.err"; then
			partfail c "the job did not spawn 16 processes and start its detector in 60 s" "$NETNS_DIR/job.err"
			netns_down -f
			return
		fi
		# Let every member hear of every other once: a member never
		# heard from has the detector's start-up grace (10 s).
		sleep 1
		# The time on the clock of the events (monotonic), taken
		# just before the first SIGKILL or the cut.
		if [ "$mode" = kill ]; then
			tkill=$(netns_pids 3 | python3 -c 'import os, sys, time
pids = [int(p) for p in sys.stdin.read().split()]
t = time.monotonic()
for p in pids:
    try:
        os.kill(p, 9)
    except ProcessLookupError:
        pass
print("%.6f" % t)')
			netns_kill_host 3
		else
			tkill=$(python3 -c 'import time; print("%.6f" % time.monotonic())')
			netns_cut 3
		fi
		if ! poll 60 grep -q '"event":"failed"' "$ev"; then
			echo "  $mode run $r: no failed event within 60 s"
			failed=1
			netns_down -f
			continue
		fi
		# Give the other failed events of the host time to come.
		sleep "$(calc "2 * ($tclean + $per) + 1")"
		nfail=$(grep -c '"event":"failed"' "$ev")
		first=$(grep '"event":"failed"' "$ev" | head -n 1 | sed 's/^{"t":\([0-9.]*\),.*/\1/')
		last=$(grep '"event":"failed"' "$ev" | tail -n 1 | sed 's/^{"t":\([0-9.]*\),.*/\1/')
		calc "$first - $tkill" >>"$tmp/first"
		calc "$last - $tkill" >>"$tmp/last"
		printf '  %s run %d: %d failed events, the first %.3f s after it (%s)\n' \
		    "$mode" "$r" "$nfail" "$(calc "$first - $tkill")" \
		    "$(grep -o '"event":"host","host":"[^"]*","reason":"[^"(]*' "$ev" | head -n 1 | sed 's/.*"reason":"//')"
		netns_down -f
	done
	if [ -s "$tmp/first" ]; then
		printf '  %s: detection, s: first failed event min %.3f median %.3f; last min %.3f median %.3f\n' \
		    "$mode" "$(minimum <"$tmp/first")" "$(median <"$tmp/first")" \
		    "$(minimum <"$tmp/last")" "$(median <"$tmp/last")"
	fi
	done
	echo
}

events_at_least() {	# EV NAME N
	local n
	n=$(grep -c "\"event\":\"$2\"" "$1" 2>/dev/null)
	((${n:-0} >= $3))
}

# The agent Open MPI's mpirun runs instead of ssh: HOST CMD ... runs
# CMD in the namespace whose address is HOST.
write_rsh_agent() {
	local i
	{
		echo '#!/bin/sh'
		echo 'host=$1; shift'
		echo 'case $host in'
		for ((i = 1; i <= NETNS_N; i++)); do
			echo "${NETNS_ADDR[i]}) ns=${NETNS_HOST[i]} ;;"
		done
		echo '*) echo "nsrsh: unknown host $host" >&2; exit 255 ;;'
		echo 'esac'
		echo 'exec ip netns exec "$ns" /bin/sh -c "$*"'
	} >"$tmp/nsrsh"
	chmod +x "$tmp/nsrsh"
}

part_d() {
	local why r cols=() st
	echo "(d) ping-pong between two namespace hosts (bench/pingpong.c), $repeats runs"
	if ! why=$(need_root); then
		skip d "$why"
		return
	fi
	if ! netns_up 2 2>"$tmp/up.err"; then
		partfail d "netns_up failed" "$tmp/up.err"
		return
	fi
	: >"$tmp/pp"
	if why=$(need_ompi); then
		if mpicc.openmpi -O2 -o "$tmp/pp_ompi" "$benchdir/pingpong.c" \
		    >"$tmp/cc.log" 2>&1; then
			write_rsh_agent
			printf '%s slots=1\n' "${NETNS_ADDR[1]}" \
			    "${NETNS_ADDR[2]}" >"$tmp/ompi.hosts"
			cols+=(ompi-tcp)
		else
			partfail d "mpicc.openmpi failed" "$tmp/cc.log"
		fi
	else
		echo "  Open MPI: skipped: $why"
	fi
	if why=$(need_ftboot) && why=$(need_ftrun --host) &&
	    why=$(keygen); then
		netns_down -f
		if ! boot_hosts 2 1; then
			partfail d "the hosts did not come up: $why"
		elif ! ftcc -O2 -o "$tmp/pp_ft" "$benchdir/pingpong.c" \
		    >"$tmp/cc.log" 2>&1; then
			partfail d "ftcc failed" "$tmp/cc.log"
		else
			cols=(ft "${cols[@]}")
		fi
		# boot_hosts made new hosts: the agent must name them.
		[ -x "$tmp/nsrsh" ] && write_rsh_agent
		[ -s "$tmp/ompi.hosts" ] && printf '%s slots=1\n' \
		    "${NETNS_ADDR[1]}" "${NETNS_ADDR[2]}" >"$tmp/ompi.hosts"
	else
		echo "  ft: skipped: $why"
	fi
	[[ " ${cols[*]} " == *" ft "* ]] &&
		echo "  ft: in host 1, ftrun --host H1:$port,H2:$port -n 2 ./pp_ft (ftboot --slots 1 in each host)"
	[[ " ${cols[*]} " == *" ompi-tcp "* ]] &&
		echo "  ompi-tcp: in host 1, ${ompi[*]} --hostfile H1,H2 -np 2 --map-by node --bind-to none --mca plm_rsh_agent NSRSH --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include $NETNS_IF --mca oob_tcp_if_include $NETNS_IF ./pp_ompi"
	for ((r = 1; r <= repeats; r++)); do
		for c in "${cols[@]}"; do
			st=0
			case $c in
			ft)
				(cd "$tmp" && timeout -k 5 120 ip netns exec \
				    "${NETNS_HOST[1]}" ftrun --host \
				    "${NETNS_ADDR[1]}:$port,${NETNS_ADDR[2]}:$port" \
				    -n 2 ./pp_ft) >"$tmp/$c.out" 2>"$tmp/$c.err" || st=$?
				;;
			ompi-tcp)
				(cd "$tmp" && timeout -k 5 120 ip netns exec \
				    "${NETNS_HOST[1]}" "${ompi[@]}" --hostfile \
				    "$tmp/ompi.hosts" -np 2 --map-by node \
				    --bind-to none --mca plm_rsh_agent "$tmp/nsrsh" \
				    --mca pml ob1 --mca btl tcp,self \
				    --mca btl_tcp_if_include "$NETNS_IF" \
				    --mca oob_tcp_if_include "$NETNS_IF" \
				    ./pp_ompi) >"$tmp/$c.out" 2>"$tmp/$c.err" || st=$?
				;;
			esac
			if ((st != 0)); then
				partfail d "$c, run $r: status $st" "$tmp/$c.err"
				continue
			fi
			awk -v t="$c" '/^(lat|bw) [0-9]+ [0-9.]+$/ { print t, $0 }' \
			    "$tmp/$c.out" >>"$tmp/pp"
		done
	done
	netns_down -f
	if [ ! -s "$tmp/pp" ]; then
		echo "  no results"
		echo
		return
	fi
	PYTHONPATH=$benchdir python3 - "$tmp/pp" <<'EOF'
# Latency (half round trip, usec): min and median; bandwidth (MB/s):
# max and median; per tool and size.
import statistics
import sys

from benchfmt import fmt, size_name

data = {}
tools = []
for line in open(sys.argv[1]):
    tool, kind, size, value = line.split()
    if tool not in tools:
        tools.append(tool)
    data.setdefault((kind, int(size), tool), []).append(float(value))
for kind, title, best in (("lat", "latency, usec", min),
                          ("bw", "bandwidth, MB/s", max)):
    sizes = sorted({s for (k, s, _) in data if k == kind and
                    (kind == "lat" or s > 0)})
    print("  %s: %s and median" % (title, best.__name__))
    print("  %-8s" % "size" + "".join("%20s" % t for t in tools) +
          ("%20s" % "ft/ompi-tcp" if len(tools) == 2 else ""))
    for s in sizes:
        row = "  %-8s" % size_name(s)
        got = []
        for t in tools:
            vs = data.get((kind, s, t))
            b = best(vs) if vs else None
            m = statistics.median(vs) if vs else None
            got.append((b, m))
            row += fmt(b, 10) + fmt(m, 10)
        if len(tools) == 2 and all(g[0] for g in got):
            row += fmt(got[0][0] / got[1][0], 10) + \
                fmt(got[0][1] / got[1][1], 10)
        print(row)
    print()
EOF
}

echo "ft multi-host figures: $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(nproc) CPUs, $(uname -sr), load $(cut -d' ' -f1 /proc/loadavg)"
echo "FTBIN=$FTBIN; hosts are network namespaces on this machine (tests/netns.bash)"
echo
[[ $parts == *a* ]] && part_a
[[ $parts == *b* ]] && part_b
[[ $parts == *c* ]] && part_c
[[ $parts == *d* ]] && part_d
exit $failed
