# SPDX-License-Identifier: ISC
# ftreplay inspect: the summary per rank and the message matrix of a
# small log written by hand, --json, --job, the time span of a log
# directory, and the SVG diagram of 64 ranks and a million messages:
# well-formed (xmllint), rendered to PNG (rsvg-convert), aggregated.

load common
load log

setup() {
	fl_setup
	L=$BATS_TEST_TMPDIR/l.txt
	# Rank 0 gets two messages from rank 1 and one from rank 2 (which
	# has no log), probes once in vain; rank 1 gets one from rank 0.
	cat >"$L" <<-EOF
	job=0000000000000005 rank=0 seq=1 clock=2 kind=deliver sender=1 sclock=1 probes=0
	job=0000000000000005 rank=0 seq=2 clock=2 kind=probe sender=none sclock=0 probes=0 a=0 b=2 c=0
	job=0000000000000005 rank=0 seq=3 clock=2 kind=anysrc sender=2 sclock=1 probes=1 a=2 b=1 c=2
	job=0000000000000005 rank=0 seq=4 clock=3 kind=deliver sender=2 sclock=1 probes=1
	job=0000000000000005 rank=0 seq=5 clock=5 kind=deliver sender=1 sclock=3 probes=0
	job=0000000000000005 rank=1 seq=1 clock=2 kind=deliver sender=0 sclock=1 probes=0
	EOF
}

@test "ftreplay inspect: a line a rank, then the message matrix" {
	run -0 ftreplay verify "$L"
	run -0 --separate-stderr ftreplay inspect "$L"
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[0]}" = "job=0000000000000005 rank=0 determinants=5 received=3 sent=1 unsuccessful_probes=1 anysrc=1 probe=1 flag=0 index=0 count=0 clock=0 first_clock=2 last_clock=5" ]
	[ "${lines[1]}" = "job=0000000000000005 rank=1 determinants=1 received=1 sent=2 unsuccessful_probes=0 anysrc=0 probe=0 flag=0 index=0 count=0 clock=0 first_clock=2 last_clock=2" ]
	[ "${lines[2]}" = "job=0000000000000005 rank=2 determinants=0 received=0 sent=1 unsuccessful_probes=0 anysrc=0 probe=0 flag=0 index=0 count=0 clock=0 first_clock=0 last_clock=0" ]
	[ "${lines[3]}" = "job=0000000000000005 from=0 to=1 messages=1" ]
	[ "${lines[4]}" = "job=0000000000000005 from=1 to=0 messages=2" ]
	[ "${lines[5]}" = "job=0000000000000005 from=2 to=0 messages=1" ]
	[ -z "$stderr" ]
}

@test "ftreplay inspect --json: one object a line, for jq" {
	run -0 --separate-stderr ftreplay inspect --json "$L"
	[ "${#lines[@]}" -eq 6 ]
	[ "$(jq -s '[.[] | select(.from != null) | .messages] | add' <<<"$output")" = 4 ]
	[ "$(jq -r 'select(.rank == 0) | .received' <<<"$output")" = 3 ]
}

@test "ftreplay inspect --job: one job of two; a job not there exits 1" {
	fttest log gen --job 6 --ranks 2 --count 10 >>"$L"
	run -0 --separate-stderr ftreplay inspect --job 6 "$L"
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[0]} == "job=0000000000000006 rank=0 determinants=10 "* ]]
	run -1 --separate-stderr ftreplay inspect --job 7 "$L"
	[ "$stderr" = "ftreplay: fatal: no job 0000000000000007 in the log" ]
	run -100 --separate-stderr ftreplay inspect --svg "$BATS_TEST_TMPDIR/x.svg" "$L"
	[[ $stderr == "ftreplay: fatal: the log holds 2 jobs: say which to draw with --job" ]]
}

@test "ftreplay inspect: a log directory gives each rank's time span" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 3 --ranks 2 --count 50 --pattern job
	run -0 --separate-stderr ftreplay inspect "$FL_DIR/d"
	[[ ${lines[0]} == "job=0000000000000003 rank=0 determinants=50 received=30 sent=30 "*" span="* ]]
}

@test "ftreplay inspect --svg: 64 ranks and a million messages, aggregated, well-formed and rendered" {
	fttest log gen --job 1 --ranks 64 --count 26100 >"$BATS_TEST_TMPDIR/big"
	run -0 --separate-stderr ftreplay inspect --svg "$BATS_TEST_TMPDIR/big.svg" "$BATS_TEST_TMPDIR/big"
	[ "${#lines[@]}" -eq $((64 + 64 * 63)) ]
	msgs=$(awk '/ from=/ { split($4, f, "="); n += f[2] } END { print n }' <<<"$output")
	[ "$msgs" -ge 1000000 ]
	svg=$BATS_TEST_TMPDIR/big.svg
	grep -q "64 ranks, .* events, $msgs messages in [0-9]* arrows" "$svg"
	arrows=$(grep -c '<line x1=.*<title>' "$svg")
	[ "$arrows" -le 20000 ]
	[ "$arrows" -gt 100 ]
	[ "$(grep -c '>rank [0-9]*</text>' "$svg")" -eq 64 ]
	if ! command -v xmllint >/dev/null; then
		skip "xmllint is missing (libxml2-utils): the SVG is not checked"
	fi
	xmllint --noout "$svg"
	if ! command -v rsvg-convert >/dev/null; then
		skip "rsvg-convert is missing (librsvg2-bin): the SVG is not rendered"
	fi
	rsvg-convert -o "$BATS_TEST_TMPDIR/big.png" "$svg"
	[ "$(head -c 8 "$BATS_TEST_TMPDIR/big.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
}

@test "ftreplay inspect --svg: a log with a cycle is drawn up to it, and says so" {
	fttest log gen --job 2 --ranks 2 --count 40 |
	    awk '$2 == "rank=0" && $6 == "sender=1" {
		split($7, f, "="); $7 = "sclock=" f[2] + 4 } { print }' >"$L"
	run -1 ftreplay --verify "$L"
	run -0 --separate-stderr ftreplay inspect --svg "$BATS_TEST_TMPDIR/c.svg" "$L"
	grep -q "ranks blocked by a cycle of happened-before are cut" "$BATS_TEST_TMPDIR/c.svg"
	if command -v xmllint >/dev/null; then
		xmllint --noout "$BATS_TEST_TMPDIR/c.svg"
	fi
}

@test "ftreplay inspect --svg --events: a vlog job's kill and restart marked on rank 1's line" {
	ft_build replaycalc
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr ftrun -n 3 --ft vlog --log-dir logs \
	    --events ev.jsonl --inject kill:rank=1,after-sends=25 \
	    "$FT_PROGS/replaycalc" 10
	grep -q '"event":"failed","rank":1' ev.jsonl
	run -0 --separate-stderr ftreplay inspect --svg j.svg --events ev.jsonl logs
	grep -q '2 marks from ftrun --events' j.svg
	# One cross and one circle, on rank 1's line, each at a determinant
	# that rank 1 logged after it (it went on logging once restarted).
	[ "$(grep -c '<path d=.*<title>rank 1 failed at [0-9.]* s (ftrun.s clock) (drawn at its determinant seq [0-9]*, Lamport time [0-9]*)</title></path>' j.svg)" -eq 1 ]
	[ "$(grep -c '<circle .*<title>rank 1 restart at [0-9.]* s (ftrun.s clock) (drawn at its determinant seq [0-9]*, Lamport time [0-9]*)</title></circle>' j.svg)" -eq 1 ]
	# Bad input: a file that is not ftrun's events, no --svg, a dump.
	echo "not an event" >bad.jsonl
	run -100 --separate-stderr ftreplay inspect --svg k.svg --events bad.jsonl logs
	[ "$stderr" = "ftreplay: fatal: --events 'bad.jsonl' line 1: not an event of ftrun --events" ]
	run -100 --separate-stderr ftreplay inspect --events ev.jsonl logs
	[[ $stderr == *"--events draws on the diagram: give --svg FILE too" ]]
	run -100 --separate-stderr bash -c 'ftlog dump logs | ftreplay inspect --svg k.svg --events ev.jsonl'
	[[ $stderr == *"--events needs the log directory (its time stamps), not ftlog dump's output" ]]
	if ! command -v xmllint >/dev/null; then
		skip "xmllint is missing (libxml2-utils): the SVG is not checked"
	fi
	xmllint --noout j.svg
	if ! command -v rsvg-convert >/dev/null; then
		skip "rsvg-convert is missing (librsvg2-bin): the SVG is not rendered"
	fi
	rsvg-convert -o j.png j.svg
	[ "$(head -c 8 j.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
}
