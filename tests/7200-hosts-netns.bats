# SPDX-License-Identifier: ISC
# Jobs across real hosts: network namespaces (tests/netns.bash), one
# ftboot daemon in each of hosts 1 to 4 listening on its own address,
# and ftrun submitting from host 5.  Ranks on different hosts talk TCP
# across the bridge.  A whole host is lost (every process in it killed,
# the daemon included) or cut off (its link down) while the job waits
# at a gate, before any rank has sent anything, so the outcome does not
# depend on timing: the job must end with the output of a job that lost
# nothing, and exit 0.  Needs root; skips, saying so, without.

load common
load netns
bats_require_minimum_version 1.5.0

setup() {
	ft_setup
	netns_require
	export FT_ALLOW_ROOT=1
	KEY="$BATS_TEST_TMPDIR/cluster.key"
	ftboot keygen --key-file "$KEY" >/dev/null
	netns_up 5
	local i dir
	HOSTS=""
	for i in 1 2 3 4; do
		dir="$BATS_TEST_TMPDIR/h$i.state"
		netns__spawn "$i" "boot$i" ftboot start --foreground \
		    --listen "tcp:${NETNS_ADDR[i]}:7707" --key-file "$KEY" \
		    --state-dir "$dir" --name "h$i" --slots 16 --jobs 4
		ft_await 30 "$dir/ftboot.addr" \
		    "$(cat "$NETNS_DIR/boot$i.pid")" "$NETNS_DIR/boot$i.err"
		HOSTS="${HOSTS:+$HOSTS,}${NETNS_ADDR[i]}:7707"
	done
	ft_build gate
}

ev() {
	printf '%s\n' "$BATS_TEST_TMPDIR/ev"
}

# The lines of a gate job, without pids, sorted (ranks print in any order).
lines_of() {
	sed -E 's/ pid [0-9]+//' "$1" | sort
}

# Which host each process of the last job ran on: "rank replica host".
placement() {
	sed -nE 's/.*"event":"spawn","rank":([0-9]+),"replica":([0-9]+),.*"host":"([^"]*)".*/\1 \2 \3/p' "$(ev)"
}

# Start a gated job of 16 ranks, 2 replicas each, from host 5.
start_gated() {	# [ftrun options]
	STATUS="$BATS_TEST_TMPDIR/status"
	netns__spawn 5 job sh -c 'f=$1; shift; ftrun "$@"; echo $? >"$f"' sh \
	    "$STATUS" -n 16 -r 2 --timeout 120 --key-file "$KEY" \
	    --host "$HOSTS" --events "$(ev)" "$@" "$FT_PROGS/gate" \
	    "$BATS_TEST_TMPDIR/go" 20
	OUT="$NETNS_DIR/job.out"
	# Every rank joined the job and printed its line.
	ft_poll 60 at_least 16 '^rank ' "$OUT"
}

# Does FILE have at least N lines matching RE?
at_least() {	# n re file
	[ "$(grep -c "$2" "$3" 2>/dev/null)" -ge "$1" ]
}

# The processes named COMM running in host I, one pid a line.
running_in() {	# i comm
	local p
	for p in $(netns_pids "$1"); do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ]; then
			echo "$p"
		fi
	done
}

# Is no process named COMM left in host I?
none_in() {	# i comm
	[ -z "$(running_in "$1" "$2")" ]
}

# Wait for the gated job to end; its exit status is in $STATUS.
wait_job() {
	ft_poll 120 test -s "$STATUS"
}

@test "netns: ftrun -n 16 -r 2 across 4 hosts, replicas apart, exit 0" {
	run -0 netns_exec 5 ftrun -n 16 -r 2 --timeout 120 --key-file "$KEY" \
	    --host "$HOSTS" --events "$(ev)" "$FT_PROGS/gate" /dev/null 20
	[[ $output == *"No Errors"* ]]
	[ "$(grep -c '^rank ' <<<"$output")" -eq 16 ]
	[ "$(placement | wc -l)" -eq 32 ]
	# The two replicas of every rank are on different hosts.
	[ -z "$(placement | awk '{ h[$1] = h[$1] " " $3 } END { for (r in h) { split(h[r], a, " "); if (a[1] == a[2]) print r } }')" ]
	# Every host ran some of the job.
	[ "$(placement | awk '{ print $3 }' | sort -u | wc -l)" -eq 4 ]
}

@test "netns: a file staged from an http:// URL, fetched by each host's agent" {
	mkdir "$BATS_TEST_TMPDIR/www"
	printf 'served over http\n' >"$BATS_TEST_TMPDIR/www/data.txt"
	printf '#!/bin/sh\ncat data.txt\n' >"$BATS_TEST_TMPDIR/show"
	chmod +x "$BATS_TEST_TMPDIR/show"
	url=$(netns_http 5 "$BATS_TEST_TMPDIR/www")
	run -0 --separate-stderr netns_exec 5 ftrun -n 4 --timeout 60 \
	    --key-file "$KEY" --host "$HOSTS" --events "$(ev)" \
	    --stage "${url}data.txt" "$BATS_TEST_TMPDIR/show"
	[ "${#lines[@]}" -eq 4 ]
	for l in "${lines[@]}"; do
		[ "$l" = "served over http" ]
	done
	# Every host that ran a process fetched it itself.
	n=$(grep -c '"event":"stage"' "$(ev)")
	[ "$n" -ge 2 ]
	[ "$(grep -c '"event":"stage".*"fetched":1' "$(ev)")" -eq "$n" ]
}

@test "netns: a whole host killed, the job ends as if nothing happened" {
	want=$(netns_exec 5 ftrun -n 16 -r 2 --timeout 120 --key-file "$KEY" \
	    --host "$HOSTS" "$FT_PROGS/gate" /dev/null 20 | sed -E 's/ pid [0-9]+//' | sort)
	[[ $want == *"No Errors"* ]]
	start_gated
	netns_kill_host 2
	ft_poll 60 grep -q '"event":"failed".*"how":"host"' "$(ev)"
	touch "$BATS_TEST_TMPDIR/go"
	wait_job
	[ "$(cat "$STATUS")" -eq 0 ]
	[ "$(lines_of "$OUT")" = "$want" ]
	grep -q '"event":"host"' "$(ev)"
}

@test "netns: a host cut off, the job ends as if nothing happened" {
	want=$(netns_exec 5 ftrun -n 16 -r 2 --timeout 120 --key-file "$KEY" \
	    --host "$HOSTS" "$FT_PROGS/gate" /dev/null 20 | sed -E 's/ pid [0-9]+//' | sort)
	start_gated --hang-timeout 2s
	netns_cut 3
	# Every process of h3 is declared failed: its heartbeats, or its
	# agent's keepalives, stop coming.
	n3=$(placement | awk '$3 == "h3"' | wc -l)
	[ "$n3" -gt 0 ]
	ft_poll 60 at_least "$n3" '"event":"failed"' "$(ev)"
	touch "$BATS_TEST_TMPDIR/go"
	wait_job
	[ "$(cat "$STATUS")" -eq 0 ]
	[ "$(lines_of "$OUT")" = "$want" ]
	# Cut off, the host's agent ended the job's processes there.
	ft_poll 30 none_in 3 gate
	netns_heal 3
}

@test "netns: a host cut off is found by the gossip detector, not by silence" {
	want=$(netns_exec 5 ftrun -n 16 -r 2 --timeout 120 --key-file "$KEY" \
	    --host "$HOSTS" "$FT_PROGS/gate" /dev/null 20 | sed -E 's/ pid [0-9]+//' | sort)
	# Silence alone would take longer than the job may last.
	start_gated --hang-timeout 10min
	netns_cut 4
	ft_poll 60 grep -q '"event":"host","host":"h4","reason":"the failure detector declared it failed' "$(ev)"
	touch "$BATS_TEST_TMPDIR/go"
	wait_job
	[ "$(cat "$STATUS")" -eq 0 ]
	[ "$(lines_of "$OUT")" = "$want" ]
	# The cut-off agent's detector excluded it, or declared the
	# submitter failed: it ended the job's
	# processes there, long before its submitter's silence would.
	ft_poll 30 none_in 4 gate
	grep -Eq "declared failed by the failure detector|the failure detector excluded it" "$NETNS_DIR/boot4.err"
	netns_heal 4
}

@test "netns: --ft ulfm, a host cut off: the gossip detector tells the survivors, who shrink" {
	ft_build ulfmgate
	STATUS="$BATS_TEST_TMPDIR/status"
	netns__spawn 5 job sh -c 'f=$1; shift; ftrun "$@"; echo $? >"$f"' sh \
	    "$STATUS" --ft ulfm -n 8 --timeout 120 --hang-timeout 10min \
	    --key-file "$KEY" --host "$HOSTS" --events "$(ev)" \
	    "$FT_PROGS/ulfmgate" "$BATS_TEST_TMPDIR/go"
	OUT="$NETNS_DIR/job.out"
	ft_poll 60 at_least 8 ' ready$' "$OUT"
	lost=$(grep -c '"event":"spawn".*"host":"h4"' "$(ev)")
	[ "$lost" -ge 1 ]
	netns_cut 4
	ft_poll 60 grep -q '"event":"host","host":"h4","reason":"the failure detector declared it failed' "$(ev)"
	touch "$BATS_TEST_TMPDIR/go"
	wait_job
	[ "$(cat "$STATUS")" -eq 0 ]
	grep -qx "barrier PROC_FAILED, survivors $((8 - lost))" "$OUT"
	ft_poll 30 none_in 4 ulfmgate
	netns_heal 4
}

@test "netns: the submitter killed, no process of the job is left on any host" {
	start_gated
	mapfile -t pids < <(sed -nE 's/.*"event":"spawn".*"pid":([0-9]+).*/\1/p' "$(ev)")
	[ "${#pids[@]}" -eq 32 ]
	ftrun_pid=$(running_in 5 ftrun)
	[ -n "$ftrun_pid" ]
	for i in 1 2 3 4; do
		! none_in "$i" gate
	done
	kill -KILL "$ftrun_pid"
	# pids are the hosts' own: look for the program in each namespace.
	for i in 1 2 3 4; do
		ft_poll 60 none_in "$i" gate
	done
}
