# SPDX-License-Identifier: ISC
# ftgossip run: real detector processes on Unix sockets.  Members are
# killed (kill -9), reported dead on stdin, given a wrong key, or come
# back with --join alive; every survivor must end with the same view
# (epoch, root, members), the root must see it stable, and no live
# member may be declared failed.  Outcomes are polled for with a
# deadline, never timed.
#
# Helpers (gs_*):
#   gs_init N		members file (unix:DIR/sID) and key for N members
#   gs_start ID [OPT ...]	start member ID in the background; its events
#				go to ${GS_OUT[ID]}, its pid is ${GS_PID[ID]};
#				$GS_IN is its stdin (default /dev/null),
#				${GS_KEY_OF[ID]} its key file if set (else
#				$GS_KEY); ${GS_OPTS[@]} go to every member
#   gs_start_all [OPT ...]	start members 0 .. N-1 and wait for them
#   gs_kill ID ...		kill -9 members and reap them
#   gs_wait_view MEMBERS ID ...	wait until members ID ... hold the same
#				last view, with MEMBERS (0,1,...), and the
#				root has seen it stable; sets GS_EPOCH and
#				GS_ROOT
#   gs_check_failed DEAD ID ...	every failed event of members ID ... names
#				an id of DEAD, and each id of DEAD has one

load common
bats_require_minimum_version 1.5.0

setup() {
	ft_setup
	# A ping timeout well above Tcleanup (450 ms here): a member that a
	# busy machine stalls for half a second is not declared failed.  A
	# killed member is found by a refused connection, not by the timeout.
	GS_OPTS=(--period 50ms --startup 3s --ping-timeout 3s)
	GS_PID=()
	GS_OUT=()
	GS_GEN=()
	GS_KEY_OF=()
	GS_RMDIR=
}

teardown() {
	local p
	# The members have no children: kill them here, which is faster
	# than ft_kill_leftovers's walk of /proc, then let it check.
	for p in "${FT_BG_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in "${FT_BG_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	ft_kill_leftovers
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		gs_dump
	fi
	if [ -n "$GS_RMDIR" ]; then
		rm -rf "$GS_RMDIR"
	fi
}

# The members file and the key of N members, in a directory short
# enough for sun_path.
gs_init() {
	local i
	GS_N=$1
	GS_DIR=$BATS_TEST_TMPDIR
	if [ ${#GS_DIR} -gt 80 ]; then
		GS_DIR=$(mktemp -d /tmp/ftg.XXXXXX)
		GS_RMDIR=$GS_DIR
	fi
	GS_MEMBERS=$GS_DIR/members
	for ((i = 0; i < GS_N; i++)); do
		echo "$i unix:$GS_DIR/s$i"
	done >"$GS_MEMBERS"
	GS_KEY=$GS_DIR/key
	gs_mkkey "$GS_KEY"
}

# A fresh random key, mode 0600.
gs_mkkey() {
	(umask 077 && head -c 32 /dev/urandom >"$1")
}

# The key $GS_KEY in hex, for fttest.
gs_hexkey() {
	od -An -v -tx1 "$GS_KEY" | tr -d ' \n'
}

# gs_forge STATUS ARGS: as member 2, send member 0 one GOSSIP frame
# (fttest gossip ARGS), then a PING; fttest must exit STATUS: 0 if the
# PONG came back, 1 if member 0 closed the connection.
gs_forge() {
	local want=$1
	shift
	run "-$want" --separate-stderr fttest gossip "unix:$GS_DIR/s0" \
	    --key "$(gs_hexkey)" --id 2 "$@"
}

# In the background job: become member ID.
gs_exec() {
	local in=$1 out=$2 err=$3
	shift 3
	exec ftgossip run "$@" <"$in" >"$out" 2>"$err"
}

gs_start() {
	local id=$1 gen
	shift
	gen=$((${GS_GEN[id]:-0} + 1))
	GS_GEN[id]=$gen
	GS_OUT[id]=$GS_DIR/out$id.$gen
	ft_bg gs_exec "${GS_IN:-/dev/null}" "${GS_OUT[id]}" \
	    "$GS_DIR/err$id.$gen" --self "$id" --members "$GS_MEMBERS" \
	    --key-file "${GS_KEY_OF[id]:-$GS_KEY}" "${GS_OPTS[@]}" "$@"
	GS_PID[id]=$bgpid
}

# Have members "$@" printed their start event (they are listening)?
gs_started() {
	local id files=()
	for id; do
		[ -e "${GS_OUT[id]}" ] || return 1
		files+=("${GS_OUT[id]}")
	done
	# -L lists the files without a start event.
	[ -z "$(grep -LE ' event=start |"event":"start"' "${files[@]}")" ]
}

# Start every member, wait for their start events, then give them a few
# gossip cycles to hear of each other.  A member never heard of gets
# --startup before it can be suspected: 3 s here, not the default 10 s,
# in case a killed member was not heard of in time.
gs_start_all() {
	local i
	for ((i = 0; i < GS_N; i++)); do
		gs_start "$i" "$@"
	done
	ft_poll 30 gs_started $(seq 0 $((GS_N - 1)))
	sleep 0.5
}

gs_kill() {
	local id
	for id; do
		kill -KILL "${GS_PID[id]}"
	done
	for id; do
		wait "${GS_PID[id]}" 2>/dev/null || true
	done
}

# The ids 0 .. N-1 that are not in the words "$1".
gs_except() {
	local i
	for ((i = 0; i < GS_N; i++)); do
		[[ " $1 " == *" $i "* ]] || printf '%s\n' "$i"
	done
}

# The ids "$@" joined with commas.
gs_list() {
	local IFS=,
	echo "$*"
}

# The value of KEY in the key=value line LINE.
gs_field() {
	local kv
	for kv in $1; do
		[[ $kv == "$2="* ]] && { echo "${kv#*=}"; return 0; }
	done
	return 1
}

# Do members "$@" hold the same last view, with members $want, and has
# its root said it is stable?  Sets GS_EPOCH and GS_ROOT.
gs_agree() {
	local want=$1 id i files=() line v first='' stable=()
	shift
	for id; do
		files+=("${GS_OUT[id]}")
	done
	# Per file: "epoch root members|epoch members" of its last view
	# and of its last stable event.
	while IFS='|' read -r v line; do
		[ -n "$v" ] || return 1
		[ "${v##* }" = "$want" ] || return 1
		[ -n "$first" ] || first=$v
		[ "$v" = "$first" ] || return 1
		stable+=("$line")
	done < <(awk '
	function f(k,	i) {
		for (i = 4; i <= NF; i++)
			if (index($i, k "=") == 1)
				return substr($i, length(k) + 2)
		return ""
	}
	$3 == "event=view" { v[FILENAME] = f("epoch") " " f("root") " " \
	    f("members") }
	$3 == "event=stable" { s[FILENAME] = f("epoch") " " f("members") }
	END {
		for (i = 1; i < ARGC; i++)
			print v[ARGV[i]] "|" s[ARGV[i]]
	}' "${files[@]}")
	[ ${#stable[@]} = $# ] || return 1
	GS_EPOCH=${first%% *}
	first=${first#* }
	GS_ROOT=${first%% *}
	# The root's last stable event is for this view.
	line=
	i=0
	for id; do
		[ "$id" != "$GS_ROOT" ] || line=${stable[i]}
		i=$((i + 1))
	done
	[ "$line" = "$GS_EPOCH $want" ]
}

# Poll for gs_agree, up to 20 s.
gs_wait_view() {
	local end=$((SECONDS + 20))
	while ((SECONDS < end)); do
		gs_agree "$@" && return 0
		sleep 0.1
	done
	gs_agree "$@" && return 0
	echo "gs_wait_view: members ${*:2} do not agree on a view" \
	    "with members=$1 after 20 s" >&2
	return 1
}

# Each failed event of members ID ... names an id of DEAD, and every id
# of DEAD has a failed event in each.
gs_check_failed() {
	local dead=" $1 " id f ids
	shift
	for id; do
		ids=" $(awk '$3 == "event=failed" { sub(/^id=/, "", $4);
		    printf "%s ", $4 }' "${GS_OUT[id]}")"
		for f in $ids; do
			if [[ $dead != *" $f "* ]]; then
				echo "member $id declared live member $f failed" >&2
				return 1
			fi
		done
		for f in $dead; do
			if [[ $ids != *" $f "* ]]; then
				echo "member $id has no failed event for $f" >&2
				return 1
			fi
		done
	done
}

# Are members "$@" still running?
gs_running() {
	local id
	for id; do
		if ft_gone "${GS_PID[id]}"; then
			echo "member $id is no longer running" >&2
			return 1
		fi
	done
}

# Every member's output, for a failed test.
gs_dump() {
	local f
	[ -n "${GS_DIR:-}" ] || return 0
	for f in "$GS_DIR"/out* "$GS_DIR"/err*; do
		[ -s "$f" ] || continue
		echo "--- ${f##*/}" >&2
		cat "$f" >&2
	done
}

# Kill the members DEAD at once; the others must agree on a view without
# them, with root ROOT.
gs_kill_scenario() {
	local dead=$1 root=$2 live
	live=$(gs_except "$dead")
	gs_kill $dead
	gs_wait_view "$(gs_list $live)" $live
	[ "$GS_ROOT" = "$root" ]
	gs_check_failed "$dead" $live
	gs_running $live
}

@test "kill -9 of one member: the survivors agree on the view without it" {
	gs_init 8
	gs_start_all
	gs_kill_scenario 3 0
	[ "$GS_EPOCH" = 1 ]
	# The start event says what the member runs.
	line=$(grep ' event=start ' "${GS_OUT[5]}")
	[ "$(gs_field "$line" n)" = 8 ]
	[ "$(gs_field "$line" protocol)" = dbrr ]
	[ "$(gs_field "$line" period_ms)" = 50.000 ]
	[ "$(gs_field "$line" addr)" = "unix:$GS_DIR/s5" ]
	# SIGTERM: exit 0, and the socket file is gone.
	kill -TERM "${GS_PID[5]}"
	rc=0
	wait "${GS_PID[5]}" || rc=$?
	[ "$rc" = 0 ]
	[ ! -e "$GS_DIR/s5" ]
}

@test "kill -9 of 3 members out of 12 at once" {
	gs_init 12
	gs_start_all
	gs_kill_scenario "2 7 10" 0
}

@test "kill -9 of the root: member 1 becomes the root" {
	gs_init 8
	gs_start_all
	gs_kill_scenario 0 1
}

@test "kill -9 of the root, then of the next root: member 2 is the root" {
	gs_init 8
	gs_start_all
	gs_kill_scenario 0 1
	first=$GS_EPOCH
	gs_kill 1
	live=$(gs_except "0 1")
	gs_wait_view "$(gs_list $live)" $live
	[ "$GS_ROOT" = 2 ]
	[ "$GS_EPOCH" -gt "$first" ]
	gs_check_failed "0 1" $live
	gs_running $live
}

@test "kill -9 of roots 0 and 1 at once: member 2 is the root" {
	gs_init 8
	gs_start_all
	gs_kill_scenario "0 1" 2
}

# Eight members with a Tcleanup of 60 s, so that only a report can
# find a failure in time; member 2 reads its reports from the fifo open
# on fd $in2.
gs_start_reporting() {
	local i
	gs_init 8
	GS_OPTS+=(--cleanup 60s)
	mkfifo "$GS_DIR/in2"
	exec {in2}<>"$GS_DIR/in2"
	for i in 0 1 3 4 5 6 7; do
		gs_start "$i"
	done
	GS_IN=$GS_DIR/in2 gs_start 2
	ft_poll 30 gs_started 0 1 2 3 4 5 6 7
	sleep 0.5
}

@test "dead ID on stdin: a killed member is dropped at once, by the reporter" {
	gs_start_reporting
	gs_kill 5
	echo "dead 5" >&"$in2"
	live=$(gs_except 5)
	gs_wait_view "$(gs_list $live)" $live
	[ "$GS_ROOT" = 0 ]
	gs_check_failed 5 $live
	gs_running $live
	# Member 2 found it itself; the others heard it from 2.
	for id in $live; do
		line=$(grep ' event=failed id=5 ' "${GS_OUT[id]}")
		if [ "$id" = 2 ]; then
			[ "$(gs_field "$line" by)" = self ]
		else
			[ "$(gs_field "$line" by)" = 2 ]
		fi
	done
	exec {in2}>&-
}

@test "dead ID on stdin for a live member: it is excluded, exits 1, and the others drop it" {
	gs_start_reporting
	# Lines that are not death reports, and one about member 2 itself,
	# change nothing.
	printf 'hello\ndead 99\ndead 2\ndead 6\n' >&"$in2"
	live=$(gs_except 6)
	gs_wait_view "$(gs_list $live)" $live
	[ "$GS_ROOT" = 0 ]
	gs_check_failed 6 $live
	gs_running $live
	# Member 6 learns it was left out, says so and exits 1.
	ft_poll 20 ft_gone "${GS_PID[6]}"
	rc=0
	wait "${GS_PID[6]}" || rc=$?
	[ "$rc" = 1 ]
	line=$(grep ' event=excluded ' "${GS_OUT[6]}")
	[ "$(gs_field "$line" epoch)" = "$GS_EPOCH" ]
	# Its last event; it removed its socket file.
	[ "$(tail -n 1 "${GS_OUT[6]}")" = "$line" ]
	[ ! -e "$GS_DIR/s6" ]
	grep -qxF "ftgossip: warning: input: 'hello' is not \"dead ID\"" \
	    "$GS_DIR/err2.1"
	grep -qxF "ftgossip: warning: input: member '99' is too large" \
	    "$GS_DIR/err2.1"
	exec {in2}>&-
}

@test "--json: every event is a JSON object, with the view" {
	if ! command -v python3 >/dev/null; then
		skip "python3 is not installed"
	fi
	gs_init 5
	GS_OPTS+=(--json)
	gs_start_all
	gs_kill 2
	# Wait for the JSON view, then check every line.
	json_agree() {
		local id
		for id in 0 1 3 4; do
			grep '"event":"view"' "${GS_OUT[id]}" | tail -n 1 |
			    grep -q '"members":\[0,1,3,4\]' || return 1
		done
		grep -q '"event":"stable".*"members":\[0,1,3,4\]' "${GS_OUT[0]}"
	}
	ft_poll 20 json_agree
	run -0 python3 - "${GS_OUT[0]}" "${GS_OUT[1]}" "${GS_OUT[3]}" \
	    "${GS_OUT[4]}" <<'EOF'
import json, sys

views = set()
for path in sys.argv[1:]:
    last = None
    with open(path) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        try:
            e = json.loads(line)
        except ValueError as err:
            sys.exit("%s:%d: not JSON (%s): %r" % (path, n, err, line))
        if not isinstance(e, dict):
            sys.exit("%s:%d: not an object: %r" % (path, n, line))
        if not isinstance(e.get("t"), float) or \
                not isinstance(e.get("self"), int) or \
                not isinstance(e.get("event"), str):
            sys.exit("%s:%d: no t, self or event: %r" % (path, n, line))
        if n == 1 and (e["event"] != "start" or e.get("n") != 5 or
                       e.get("protocol") != "dbrr" or
                       e.get("period_ms") != 50.0):
            sys.exit("%s:%d: not the start event: %r" % (path, n, line))
        if e["event"] == "failed" and (
                e.get("id") != 2 or not isinstance(e.get("epoch"), int) or
                not (e.get("by") == "self" or
                     type(e.get("by")) is int)):
            sys.exit("%s:%d: a wrong failure: %r" % (path, n, line))
        if e["event"] == "view":
            last = e
    if last is None:
        sys.exit("%s: no view" % path)
    if last["members"] != [0, 1, 3, 4] or last["n"] != 4:
        sys.exit("%s: last view %r" % (path, last))
    views.add((last["epoch"], last["root"]))
if views != {(1, 0)}:
    sys.exit("the members disagree: %r" % views)
print("ok")
EOF
	[ "$output" = ok ]
}

# Run ftgossip run "$@", which must exit 100 and print nothing on its
# standard output; a member that wrongly starts is stopped by timeout.
gs_run100() {
	run -100 --separate-stderr timeout 10 ftgossip run "$@"
	[ -z "$output" ]
}

@test "usage errors of run exit 100 with a clear message" {
	gs_init 2
	m=$GS_DIR/m
	chmod 644 "$GS_KEY"
	gs_run100 --self 0 --members "$GS_MEMBERS" --key-file "$GS_KEY"
	[ "$stderr" = "ftgossip: fatal: key file '$GS_KEY' is open to others (mode 0644); chmod 600 it" ]
	chmod 600 "$GS_KEY"

	printf '0 unix:%s/a\n2 unix:%s/c\n' "$GS_DIR" "$GS_DIR" >"$m"
	gs_run100 --self 0 --members "$m" --key-file "$GS_KEY"
	[ "$stderr" = "ftgossip: fatal: $m: ids must be 0 .. 1; 1 is missing" ]

	printf '0 unix:%s/a\n1 unix:%s/b\n1 unix:%s/c\n' "$GS_DIR" "$GS_DIR" \
	    "$GS_DIR" >"$m"
	gs_run100 --self 0 --members "$m" --key-file "$GS_KEY"
	[ "$stderr" = "ftgossip: fatal: $m:3: id 1 appears twice" ]

	for bad in udp:127.0.0.1:5000 "$GS_DIR/b" unix-b; do
		printf '0 unix:%s/a\n1 %s\n' "$GS_DIR" "$bad" >"$m"
		gs_run100 --self 0 --members "$m" --key-file "$GS_KEY"
		[ "$stderr" = "ftgossip: fatal: $m:2: address '$bad' is not unix:PATH or tcp:HOST:PORT" ]
	done

	printf '0 unix:%s/a\n1\n' "$GS_DIR" >"$m"
	gs_run100 --self 0 --members "$m" --key-file "$GS_KEY"
	[ "$stderr" = "ftgossip: fatal: $m:2: expected \"ID ADDRESS\"" ]

	gs_run100 --self 2 --members "$GS_MEMBERS" --key-file "$GS_KEY"
	[ "$stderr" = "ftgossip: fatal: --self 2 is not in $GS_MEMBERS (ids 0 .. 1)" ]

	gs_run100 --self 0 --members "$GS_MEMBERS" --key-file "$GS_KEY" \
	    --protocol swim
	[ "$stderr" = "ftgossip: fatal: unknown protocol 'swim' (valid: random, rr, brr, dbrr)" ]

	# Nothing was left listening.
	[ ! -e "$GS_DIR/s0" ]
	[ ! -e "$GS_DIR/a" ]
}

@test "members file: a tcp address without a host or a port, or an empty unix path, exits 100" {
	gs_init 2
	m=$GS_DIR/m
	for bad in tcp:127.0.0.1 tcp:127.0.0.1: tcp::5000 tcp:127.0.0.1:70000 \
	    unix:; do
		printf '0 unix:%s/a\n1 %s\n' "$GS_DIR" "$bad" >"$m"
		for self in 0 1; do
			# A member that wrongly starts is stopped by timeout.
			run -100 --separate-stderr timeout 5 ftgossip run \
			    --self "$self" --members "$m" --key-file "$GS_KEY"
			[ "$stderr" = "ftgossip: fatal: $m:2: address '$bad' is not unix:PATH or tcp:HOST:PORT" ]
		done
	done
}

@test "a members file or a key file that is a directory exits 100" {
	gs_init 3
	# Mode 0755: it must not be taken for a key file open to others.
	mkdir -m 755 "$GS_DIR/dir"
	gs_run100 --self 0 --members "$GS_DIR/dir" --key-file "$GS_KEY"
	[ "$stderr" = "ftgossip: fatal: members file '$GS_DIR/dir' is a directory" ]
	gs_run100 --self 0 --members "$GS_DIR/none" --key-file "$GS_KEY"
	[ "$stderr" = "ftgossip: fatal: members file '$GS_DIR/none': No such file or directory" ]
	gs_run100 --self 0 --members "$GS_MEMBERS" --key-file "$GS_DIR/dir"
	[ "$stderr" = "ftgossip: fatal: key file '$GS_DIR/dir' is a directory" ]
	[ ! -e "$GS_DIR/s0" ]
}

# Members SELF ... given the members file $m must each exit 100 with
# the message "ftgossip: fatal: MSG", and leave no socket behind.
gs_refuse_members() {
	local msg=$1 self
	shift
	for self; do
		gs_run100 --self "$self" --members "$m" --key-file "$GS_KEY"
		[ "$stderr" = "ftgossip: fatal: $msg" ]
	done
	[ ! -e "$GS_DIR/a" ]
	[ ! -e "$GS_DIR/b" ]
}

@test "a NUL byte in the members file exits 100, not a cut address" {
	gs_init 3
	m=$GS_DIR/m
	printf '0 unix:%s/a\n1 unix:%s/b\0c\n2 unix:%s/c\n' "$GS_DIR" \
	    "$GS_DIR" "$GS_DIR" >"$m"
	gs_refuse_members "$m:2: the line holds a NUL byte" 0 1
}

@test "two members with the same address exit 100" {
	gs_init 3
	m=$GS_DIR/m
	printf '0 unix:%s/a\n1 unix:%s/b\n2 unix:%s/a\n' "$GS_DIR" "$GS_DIR" \
	    "$GS_DIR" >"$m"
	gs_refuse_members "$m:3: member 2 has the address of member 0, 'unix:$GS_DIR/a'" 0 1 2
}

@test "the all-zero key exits 100, from a file or from FT_KEY_FD" {
	gs_init 3
	head -c 32 /dev/zero >"$GS_DIR/zero"
	printf '%064d\n' 0 >"$GS_DIR/zerohex"
	chmod 600 "$GS_DIR/zero" "$GS_DIR/zerohex"
	for k in zero zerohex; do
		gs_run100 --self 0 --members "$GS_MEMBERS" \
		    --key-file "$GS_DIR/$k"
		[ "$stderr" = "ftgossip: fatal: the key is all zeros; make a random one" ]
	done
	run -100 --separate-stderr env FT_KEY_FD=4 timeout 10 ftgossip run \
	    --self 0 --members "$GS_MEMBERS" 4<"$GS_DIR/zero"
	[ "$stderr" = "ftgossip: fatal: the key is all zeros; make a random one" ]
	[ -z "$output" ]
	[ ! -e "$GS_DIR/s0" ]
}

@test "a member with a wrong key is declared failed by all the others" {
	gs_init 6
	GS_OPTS+=(--startup 1s)
	GS_KEY_OF[5]=$GS_DIR/key5
	gs_mkkey "${GS_KEY_OF[5]}"
	gs_start_all
	gs_wait_view 0,1,2,3,4 0 1 2 3 4
	[ "$GS_ROOT" = 0 ]
	gs_check_failed 5 0 1 2 3 4
	gs_running 0 1 2 3 4
	# Each side is told which member failed authentication, where:
	# once, not once per connection tried (one more line could come a
	# minute later, which the test timeout leaves no time for).
	for id in 0 1 2 3 4; do
		n=$(grep -c "^ftgossip: warning: member 5 at 'unix:$GS_DIR/s5' failed authentication: not the same key?" \
		    "$GS_DIR/err$id.1")
		((n >= 1 && n <= 2))
	done
	grep -qE "^ftgossip: warning: member [0-4] at 'unix:$GS_DIR/s[0-4]' failed authentication: not the same key\?" \
	    "$GS_DIR/err5.1"
	n=$(grep -c 'failed authentication' "$GS_DIR/err5.1")
	((n <= 2))
}

@test "a killed member comes back with --join alive and all views hold it" {
	gs_init 6
	gs_start_all
	gs_kill_scenario 3 0
	first=$GS_EPOCH
	gs_start 3 --join alive
	gs_wait_view 0,1,2,3,4,5 0 1 2 3 4 5
	[ "$GS_ROOT" = 0 ]
	[ "$GS_EPOCH" -gt "$first" ]
	grep -q ' event=join id=3$' "${GS_OUT[0]}"
	# The new member 3 never saw a failure.
	run -1 grep ' event=failed ' "${GS_OUT[3]}"
	gs_running 0 1 2 3 4 5
}

@test "--protocol brr: one kill -9" {
	gs_init 8
	GS_OPTS+=(--protocol brr)
	gs_start_all
	gs_kill_scenario 4 0
	grep -q ' event=start .* protocol=brr ' "${GS_OUT[0]}"
}

@test "--protocol rr: one kill -9" {
	gs_init 8
	GS_OPTS+=(--protocol rr)
	gs_start_all
	gs_kill_scenario 4 0
	grep -q ' event=start .* protocol=rr ' "${GS_OUT[0]}"
}

@test "--protocol random: one kill -9" {
	gs_init 8
	GS_OPTS+=(--protocol random)
	gs_start_all
	gs_kill_scenario 4 0
	grep -q ' event=start .* protocol=random ' "${GS_OUT[0]}"
}

@test "a forged heartbeat of 2^64-1 is refused, and the member it names is not suspected" {
	gs_init 6
	# Member 5 never starts, and nobody suspects it for a minute unless
	# its counter grows; Tcleanup is long enough for a busy machine.
	GS_OPTS+=(--startup 60s --cleanup 2s)
	for id in 0 1 2 3 4; do
		gs_start "$id"
	done
	ft_poll 30 gs_started 0 1 2 3 4
	# Member 1's counter at 2^64-1 and member 5's at the clock: member 0
	# takes 5's and refuses 1's, and keeps the connection.
	gs_forge 0 0 18446744073709551615 0 0 0 "$(date +%s%6N)"
	[ "$output" = pong ]
	grep -qE "^ftgossip: warning: member 2: the heartbeat of member 1 is [0-9.e+]+ s ahead of this host's clock; ignored$" \
	    "$GS_DIR/err0.1"
	# Tcleanup later member 0 suspects 5; its ping finds nobody, and
	# the view drops it.  Had member 0 taken 1's counter, that counter
	# would have stopped growing at the same time as 5's, and the same
	# check would have suspected 1.
	gs_wait_view 0,1,2,3,4 0 1 2 3 4
	gs_check_failed 5 0 1 2 3 4
	run -1 grep -h ' event=suspect id=1$' "${GS_OUT[@]}"
	gs_running 0 1 2 3 4
}

@test "a malformed GOSSIP frame closes its connection, with one warning; a good one does not" {
	gs_init 5
	gs_start_all
	# Six members in a group of five, none, a body one byte short,
	# twice each: each closes the connection it came on.
	for i in 1 2; do
		gs_forge 1 0 0 0 0 0 0
		[ "$output" = closed ]
		gs_forge 1 --count 0
		[ "$output" = closed ]
		gs_forge 1 --cut 1 0 0 0 0 0
		[ "$output" = closed ]
	done
	# One warning for the six, not one each (one more could come a
	# minute later, which the test timeout leaves no time for).
	n=$(grep -c '^ftgossip: warning: member 2: malformed gossip' \
	    "$GS_DIR/err0.1")
	((n >= 1 && n <= 2))
	# A well-formed frame is taken, and the connection kept.
	gs_forge 0 0 0 0 0 0
	[ "$output" = pong ]
	# The members go on: a kill is still detected by all.
	gs_kill_scenario 4 0
}
