# SPDX-License-Identifier: ISC
# Shared set-up for the bats tests (`load common`): PATH to the build,
# test programs compiled with ftcc, background jobs, bounded polling,
# and a teardown that kills whatever a test left running.
#
# Conventions:
#   ft_build NAME [SOURCE]	compile tests/progs/NAME.c (or SOURCE) with
#				ftcc into $FT_PROGS/NAME, once per .bats file
#   ft_bg CMD ...		run CMD in the background; its pid is in
#				$bgpid and teardown kills it and its tree
#   ft_poll SECS CMD ...	run CMD every 50 ms until it succeeds;
#				fail after SECS seconds
#   ft_await SECS FILE PID [ERR]	wait for process PID to write FILE;
#				fail at once, showing ERR, if PID exits
#   $BATS_TEST_TMPDIR/*.pid	pids a test wants killed in teardown
#   ft_events FILE		check an --events file, print a summary
# Jobs put their job directory in $TMPDIR, which is the test's own
# directory, and read /dev/null unless a test gives them a stdin.

bats_require_minimum_version 1.5.0

FT_ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd -P)
PATH="$FT_ROOT/bin:$PATH"
FT_PROGS="$BATS_FILE_TMPDIR"
# A hung job must fail its test, not the whole run.
: "${BATS_TEST_TIMEOUT:=90}"

ft_setup() {
	export TMPDIR="$BATS_TEST_TMPDIR"
	exec </dev/null
	FT_BG_PIDS=()
	# Before the test starts anything: what it must spare.
	FT_WATCH_KEEP=" $(ft_children_of $$ | tr '\n' ' ') "
	ft_bg ft_watchdog >/dev/null 2>&1
}

# Bats's own timeout kills only the test's children, and a job that
# `run` started is a grandchild holding the output pipe, which bats then
# waits for: a hung job would hang the whole run.  Shortly before that
# timeout, kill every process the test started (what ran before the
# test, bats's own countdown, is spared), so the test fails instead.
ft_watchdog() {
	local p
	sleep $((BATS_TEST_TIMEOUT > 10 ? BATS_TEST_TIMEOUT - 5 : \
	    BATS_TEST_TIMEOUT))
	for p in $(ft_children_of $$); do
		[[ $p == "$BASHPID" || $FT_WATCH_KEEP == *" $p "* ]] &&
		    continue
		kill -KILL $(ft_descendants "$p") "$p" 2>/dev/null
	done
}

setup() {
	ft_setup
}

teardown() {
	ft_kill_leftovers
}

# Compile a test program with ftcc, once per .bats file.
ft_build() {
	local name=$1 src=${2:-$FT_ROOT/tests/progs/$1.c} out log
	out="$FT_PROGS/$name"
	log="$FT_PROGS/$name.log"
	if [ -x "$out" ] && [ "$out" -nt "$src" ]; then
		return 0
	fi
	if ! ftcc -O1 -g -Wall -Wextra -Werror -o "$out" "$src" \
	    >"$log" 2>&1; then
		echo "ft_build: ftcc failed on '$src':" >&2
		cat "$log" >&2
		rm -f "$out"
		return 1
	fi
}

# Run a command in the background, its pid in $bgpid.  Bats waits for
# fd 3 to close, so a background job must not hold it.
ft_bg() {
	"$@" 3>&- &
	bgpid=$!
	FT_BG_PIDS+=("$bgpid")
}

# Poll a condition every 50 ms for at most SECS seconds.
ft_poll() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	"$@" && return 0
	echo "ft_poll: '$*' still false after ${secs}s" >&2
	return 1
}

# Wait at most SECS seconds for FILE to be non-empty, as process PID
# writes it (a daemon's address, a helper's "ready"): if PID exits
# first, fail at once, saying so and showing ERR (its stderr), instead
# of polling on for the whole SECS.
ft_await() {	# secs file pid [err]
	local secs=$1 file=$2 pid=$3 err=${4:-}
	ft_poll "$secs" ft__written_or_gone "$file" "$pid" 2>/dev/null
	[ -s "$file" ] && return 0
	if ft_gone "$pid"; then
		echo "ft_await: process $pid exited before writing '$file'" >&2
	else
		echo "ft_await: '$file' still empty after ${secs}s" >&2
	fi
	if [ -n "$err" ] && [ -s "$err" ]; then
		echo "ft_await: its stderr ($err):" >&2
		cat "$err" >&2
	fi
	return 1
}

ft__written_or_gone() {
	[ -s "$1" ] || ft_gone "$2"
}

# The state letter of a process (R, S, Z...), nothing if it is gone.
ft_state() {
	local s
	read -r s 2>/dev/null <"/proc/$1/stat" || return 0
	s=${s##*) }
	printf '%s\n' "${s%% *}"
}

# Is the process gone?  A zombie counts as gone: it no longer runs,
# and whether anyone reaps it is up to its new parent.
ft_gone() {
	local st
	st=$(ft_state "$1")
	[ -z "$st" ] || [ "$st" = Z ]
}

ft_all_gone() {
	local p
	for p in "$@"; do
		ft_gone "$p" || return 1
	done
}

# The live children of a process, one pid a line.
ft_children_of() {
	local parent=$1 f s a
	for f in /proc/[0-9]*/stat; do
		read -r s 2>/dev/null <"$f" || continue
		# After the command name: state ppid pgrp ...
		read -r -a a <<<"${s##*) }"
		if [ "${a[1]}" = "$parent" ] && [ "${a[0]}" != Z ]; then
			f=${f#/proc/}
			printf '%s\n' "${f%/stat}"
		fi
	done
}

# The process group of a process, nothing if it is gone.
ft_pgid() {
	local s a
	read -r s 2>/dev/null <"/proc/$1/stat" || return 0
	read -r -a a <<<"${s##*) }"
	printf '%s\n' "${a[2]}"
}

# Every descendant of a process, deepest last.
ft_descendants() {
	local kid
	for kid in $(ft_children_of "$1"); do
		printf '%s\n' "$kid"
		ft_descendants "$kid"
	done
}

# Kill what the test started and what it left behind: background jobs
# and their process trees (ranks have process groups of their own), and
# the pids in $BATS_TEST_TMPDIR/*.pid.
ft_kill_leftovers() {
	local p pids=() tree mypg pg f
	for p in "${FT_BG_PIDS[@]}"; do
		ft_gone "$p" && continue
		mapfile -t tree < <(ft_descendants "$p")
		pids+=("${tree[@]}" "$p")
	done
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[ -f "$f" ] || continue
		while read -r p; do
			[[ $p =~ ^[0-9]+$ ]] && ! ft_gone "$p" && pids+=("$p")
		done <"$f"
	done
	[ ${#pids[@]} -eq 0 ] && return 0
	mypg=$(ft_pgid $$)
	for p in "${pids[@]}"; do
		pg=$(ft_pgid "$p")
		# Never our own group: it is bats's.
		if [ "$pg" = "$p" ] && [ "$pg" != "$mypg" ]; then
			kill -KILL -- "-$pg" 2>/dev/null
		fi
		kill -KILL "$p" 2>/dev/null
	done
	# Reap our own jobs quietly: no "Killed" notices in the TAP.
	for p in "${FT_BG_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	return 0
}

# Check an --events file: every line is one JSON object with a numeric
# "t" that never goes back and a known "event".  Prints one line per
# event without "t" and pids, in file order:
#   spawn rank=R | exit rank=R status=S | exit rank=R signal=N |
#   abort key=value ...
# and checks that each exit names the pid its spawn did.
ft_events() {
	python3 - "$1" <<'EOF'
import json, sys

spawned = {}
last = None
with open(sys.argv[1]) as f:
    for n, line in enumerate(f, 1):
        try:
            e = json.loads(line)
        except ValueError as err:
            sys.exit("line %d is not JSON (%s): %r" % (n, err, line))
        if not isinstance(e, dict):
            sys.exit("line %d is not an object: %r" % (n, line))
        t = e.get("t")
        if not isinstance(t, (int, float)) or isinstance(t, bool):
            sys.exit("line %d: no numeric t: %r" % (n, line))
        if last is not None and t < last:
            sys.exit("line %d: t went back: %r" % (n, line))
        last = t
        ev = e.get("event")
        if ev == "spawn":
            if not isinstance(e.get("pid"), int) or e["pid"] <= 0:
                sys.exit("line %d: spawn without a pid: %r" % (n, line))
            spawned[(e["rank"], e.get("replica", 0))] = e["pid"]
            print("spawn rank=%d" % e["rank"])
        elif ev == "exit":
            r = e["rank"]
            if spawned.get((r, e.get("replica", 0))) != e.get("pid"):
                sys.exit("line %d: exit of rank %r with pid %r, spawned "
                         "as %r" % (n, r, e.get("pid"), spawned.get((r, e.get("replica", 0)))))
            if ("status" in e) == ("signal" in e):
                sys.exit("line %d: exit needs status or signal: %r"
                         % (n, line))
            if "status" in e:
                print("exit rank=%d status=%d" % (r, e["status"]))
            else:
                print("exit rank=%d signal=%d" % (r, e["signal"]))
        elif ev == "abort":
            if not isinstance(e.get("reason"), str):
                sys.exit("line %d: abort without a reason: %r" % (n, line))
            print("abort " + " ".join("%s=%s" % (k, e[k]) for k in
                  sorted(e) if k not in ("t", "event")))
        elif ev == "failed":
            r = e["rank"]
            if spawned.get((r, e.get("replica", 0))) != e.get("pid"):
                sys.exit("line %d: failed rank %r with pid %r, spawned "
                         "as %r" % (n, r, e.get("pid"), spawned.get((r, e.get("replica", 0)))))
            print("failed rank=%d by=%s how=%s detector=%s" %
                  (r, e["by"], e["how"], e["detector"]))
        elif ev == "finalize":
            r = e["rank"]
            if spawned.get((r, e.get("replica", 0))) != e.get("pid"):
                sys.exit("line %d: finalize of rank %r with pid %r, "
                         "spawned as %r" % (n, r, e.get("pid"),
                                            spawned.get((r, e.get("replica", 0)))))
            print("finalize rank=%d" % r)
        elif ev in ("stopped", "continued", "hang"):
            r = e["rank"]
            if spawned.get((r, e.get("replica", 0))) != e.get("pid"):
                sys.exit("line %d: %s of rank %r with pid %r, spawned as %r"
                         % (n, ev, r, e.get("pid"), spawned.get((r, e.get("replica", 0)))))
            if ev == "hang" and not isinstance(e.get("silent_ms"), int):
                sys.exit("line %d: hang without silent_ms: %r" % (n, line))
            print("%s rank=%d" % (ev, r))
        elif ev == "master":
            r = e["rank"]
            if spawned.get((r, e.get("replica", 0))) != e.get("pid") or \
                    not isinstance(e.get("epoch"), int):
                sys.exit("line %d: master of rank %r: bad pid or epoch: %r"
                         % (n, r, line))
            print("master rank=%d replica=%d" % (r, e["replica"]))
        elif ev == "heartbeats":
            for k in ("beats", "period_ms", "max_gap_ms", "timeout_ms"):
                if not isinstance(e.get(k), (int, float)):
                    sys.exit("line %d: heartbeats without %s: %r"
                             % (n, k, line))
            print("heartbeats")
        elif ev == "stage":
            for k in ("cached", "received", "fetched"):
                if not isinstance(e.get(k), int):
                    sys.exit("line %d: stage without %s: %r" % (n, k, line))
            print("stage host=%s cached=%d received=%d fetched=%d" % (
                  e["host"], e["cached"], e["received"], e["fetched"]))
        elif ev == "host":
            if not isinstance(e.get("reason"), str):
                sys.exit("line %d: host without a reason: %r" % (n, line))
            print("host lost host=%s" % e["host"])
        elif ev == "view":
            if not isinstance(e.get("members"), list) or \
                    e.get("n") != len(e["members"]):
                sys.exit("line %d: view without members: %r" % (n, line))
            print("view epoch=%d members=%s" % (e["epoch"], ",".join(
                  str(m) for m in e["members"])))
        else:
            sys.exit("line %d: unknown event: %r" % (n, line))
EOF
}
