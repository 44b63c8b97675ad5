# SPDX-License-Identifier: ISC
# ftlog serve, dump and stat: the address on stdout, one logger per
# directory, every --sync mode, appends of many ranks read back by
# dump, stat and fetch, the dump format (golden), strangers, wrong keys
# and malformed frames, usage errors.

load common
load log

setup() {
	fl_setup
}

@test "ftlog serve: prints its loopback address, locks its directory" {
	fl_start "$FL_DIR/d"
	[[ $FL_ADDR =~ ^tcp:127\.0\.0\.1:[0-9]+$ ]]
	[ -d "$FL_DIR/d" ]
	[ "$(stat -c %a "$FL_DIR/d")" = 700 ]
	[ -f "$FL_DIR/d/ftlog.lock" ]
	run -1 --separate-stderr ftlog serve --dir "$FL_DIR/d" \
	    --key-file "$FL_KEY"
	[[ $stderr == "ftlog[logger]: fatal: log directory '$FL_DIR/d' is in use by another logger"* ]]
	[ -z "$output" ]
}

@test "ftlog serve: SIGTERM stops it with status 0" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 1 --ranks 2 --count 10
	kill -TERM "$FL_PID"
	rc=0
	wait "$FL_PID" || rc=$?
	[ "$rc" -eq 0 ]
	run -0 ftlog stat "$FL_DIR/d"
	[ "${#lines[@]}" -eq 2 ]
}

@test "ftlog serve: 8 ranks over 4 connections, read back by stat, dump and fetch" {
	fl_start "$FL_DIR/d"
	run -0 --separate-stderr fl_load "$FL_ADDR" --job 7 --ranks 8 \
	    --clients 4 --count 500 --batch 7
	[[ $output == "ranks=8 count=500 appended=4000 "*" errors=0" ]]
	run -0 --separate-stderr ftlog stat "$FL_DIR/d"
	[ "${#lines[@]}" -eq 8 ]
	for r in 0 1 2 3 4 5 6 7; do
		[[ ${lines[$r]} == "job=0000000000000007 rank=$r count=500 first=1 last=500 segments=1 "*" torn=0 from=20"* ]]
	done
	run -0 --separate-stderr ftlog dump "$FL_DIR/d"
	[ "${#lines[@]}" -eq 4000 ]
	ftlog dump --rank 5 "$FL_DIR/d" >"$FL_DIR/dump5"
	fl_fetch "$FL_ADDR" --job 7 --rank 5 >"$FL_DIR/fetch5"
	[ "$(wc -l <"$FL_DIR/fetch5")" -eq 500 ]
	cmp "$FL_DIR/dump5" "$FL_DIR/fetch5"
}

@test "ftlog serve: 250 ranks connecting at once are all served, with no warning" {
	fl_start "$FL_DIR/d"
	run -0 --separate-stderr fl_load "$FL_ADDR" --job 8 --ranks 250 \
	    --clients 250 --count 20
	[[ $output == "ranks=250 count=20 appended=5000 "*" errors=0" ]]
	[ -z "$stderr" ]
	run -0 ftlog stat "$FL_DIR/d"
	[ "${#lines[@]}" -eq 250 ]
	[ ! -s "$FL_DIR/d.err" ]
}

@test "ftlog serve: a second load goes on where the log ends" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 3 --ranks 2 --count 40
	run -0 fl_load "$FL_ADDR" --job 3 --ranks 2 --count 90
	[[ $output == "ranks=2 count=90 appended=100 "* ]]
	run -0 ftlog stat --rank 1 "$FL_DIR/d"
	[[ $output == "job=0000000000000003 rank=1 count=90 first=1 last=90 "* ]]
}

@test "ftlog serve: every --sync mode logs and acknowledges" {
	for m in always batch memory; do
		fl_start "$FL_DIR/$m" --sync "$m"
		run -0 fl_load "$FL_ADDR" --job 5 --ranks 3 --count 200 \
		    --batch 9
		[[ $output == "ranks=3 count=200 appended=600 "* ]]
		run -0 ftlog stat "$FL_DIR/$m"
		[[ ${lines[2]} == "job=0000000000000005 rank=2 count=200 "* ]]
	done
}

@test "ftlog serve: small segments roll over; fetch reads across them" {
	fl_start "$FL_DIR/d" --segment-size 4k
	run -0 fl_load "$FL_ADDR" --job 9 --ranks 1 --count 2000 --batch 1
	run -0 ftlog stat "$FL_DIR/d"
	[[ $output =~ count=2000\ first=1\ last=2000\ segments=([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -gt 10 ]
	fl_fetch "$FL_ADDR" --job 9 --rank 0 >"$FL_DIR/f"
	ftlog dump "$FL_DIR/d" >"$FL_DIR/dump"
	cmp "$FL_DIR/dump" "$FL_DIR/f"
}

@test "ftlog serve: fetch from a clock, from a seq" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 4 --ranks 1 --count 100
	# Rank 0's clock is twice its seq.
	run -0 --separate-stderr fl_fetch "$FL_ADDR" --job 4 --rank 0 \
	    --from-clock 151
	[ "${#lines[@]}" -eq 25 ]
	[[ ${lines[0]} == *" seq=76 clock=152 "* ]]
	run -0 --separate-stderr fl_fetch "$FL_ADDR" --job 4 --rank 0 \
	    --from-seq 99
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == *" seq=100 "* ]]
	run -0 --separate-stderr fl_fetch "$FL_ADDR" --job 4 --rank 3
	[ -z "$output" ]
}

@test "ftlog dump: the format of a known log (golden)" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 2a --ranks 2 --count 31 --batch 5
	run -0 fl_load "$FL_ADDR" --job 1f00 --ranks 1 --count 6 --batch 5
	ftlog dump "$FL_DIR/d" >"$FL_DIR/out"
	diff -u "$FT_ROOT/tests/golden/ftlog-dump.txt" "$FL_DIR/out"
	ftlog dump --json "$FL_DIR/d" >"$FL_DIR/out.json"
	diff -u "$FT_ROOT/tests/golden/ftlog-dump.json" "$FL_DIR/out.json"
	ftlog dump --job 1f00 "$FL_DIR/d" >"$FL_DIR/one"
	grep 'job=0000000000001f00' "$FT_ROOT/tests/golden/ftlog-dump.txt" |
	    diff -u - "$FL_DIR/one"
}

@test "ftlog serve: a wrong key is refused, and the logger goes on" {
	fl_start "$FL_DIR/d"
	run -1 fttest connect "$FL_ADDR"
	run -0 fl_load "$FL_ADDR" --job 1 --ranks 1 --count 10
	ft_poll 5 grep -q "cluster key" "$FL_DIR/d.err"
	ftboot keygen --key-file "$FL_DIR/other.key" >/dev/null
	run -99 --separate-stderr fttest log load "$FL_ADDR" \
	    --key-file "$FL_DIR/other.key" --job 1 --ranks 1 --count 10 \
	    --timeout 1s
	[[ $stderr == *"logger at $FL_ADDR: "*"different key"* ]]
}

@test "ftlog serve: garbage before and after the handshake is closed, and the logger goes on" {
	fl_start "$FL_DIR/d"
	port=${FL_ADDR##*:}
	# Not a frame: the logger closes the connection (cat sees its end,
	# or a reset when the logger had not read every byte; 124 would be
	# the timeout, a connection left open).
	exec 5<>"/dev/tcp/127.0.0.1/$port"
	printf 'GET / HTTP/1.0\r\n\r\n' >&5
	run timeout 10 cat <&5
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	exec 5<&-
	# A HELLO's header, then nothing: closed too, for silence.
	exec 5<>"/dev/tcp/127.0.0.1/$port"
	printf 'FT\001\001\000\000\000\200' >&5
	run timeout 20 cat <&5
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	exec 5<&-
	run -0 fttest log bad "$FL_ADDR" --key-file "$FL_KEY" --cut 1
	run -0 fttest log bad "$FL_ADDR" --key-file "$FL_KEY" --cut 30
	ft_poll 5 grep -q "malformed" "$FL_DIR/d.err"
	run -0 fl_load "$FL_ADDR" --job 1 --ranks 2 --count 100
	run -0 ftlog stat "$FL_DIR/d"
	[ "${#lines[@]}" -eq 2 ]
	[ -d "/proc/$FL_PID" ]
}

@test "ftlog: usage errors exit 100" {
	run -100 --separate-stderr ftlog serve --key-file "$FL_KEY"
	[[ $stderr == *"--dir is missing"* ]]
	run -100 --separate-stderr ftlog serve --dir "$FL_DIR/d" --sync never
	[[ $stderr == *"--sync 'never': always, batch or memory"* ]]
	run -100 --separate-stderr ftlog serve --dir "$FL_DIR/d" \
	    --segment-size 10
	[[ $stderr == *"out of range"* ]]
	run -100 --separate-stderr ftlog serve --dir "$FL_DIR/d" \
	    --key-file "$FL_KEY" --listen nowhere
	[[ $stderr == *"listening on nowhere"* ]]
	run -100 --separate-stderr ftlog dump --job xyz "$FL_DIR/d"
	[[ $stderr == *"--job 'xyz'"* ]]
	run -100 --separate-stderr ftlog dump "$FL_DIR/none"
	[[ $stderr == *"log directory '$FL_DIR/none'"* ]]
	run -100 --separate-stderr ftlog frob
	[[ $stderr == "usage: ftlog serve"* ]]
}
