# SPDX-License-Identifier: ISC
# ftlog under failures: a logger killed with SIGKILL while ranks append
# and started again over its directory (no acknowledged determinant is
# lost, the ranks carry on), a full disk (a small tmpfs, when root), a
# log directory that vanishes, torn tails, corrupt and foreign segments.

load common
load log

setup() {
	fl_setup
}

teardown() {
	ft_kill_leftovers
	if mountpoint -q "$FL_DIR/full" 2>/dev/null; then
		umount "$FL_DIR/full"
	fi
}

# kill -9 the logger while 4 ranks append, check that everything
# acknowledged is on disk, start it again on the same port, and let
# the ranks finish: the log must equal one written without a crash.
crash_and_restart() {
	local mode=$1 port r acked last rc
	fl_start "$FL_DIR/d" --sync "$mode"
	port=${FL_ADDR##*:}
	ft_bg fl_load "$FL_ADDR" --job 11 --ranks 4 --count 6000 --batch 4 \
	    --hold-at 3000 --go-file "$FL_DIR/go" --ack-file "$FL_DIR/acks" \
	    --timeout 60s >"$FL_DIR/load.out" 2>"$FL_DIR/load.err"
	loadpid=$bgpid
	ft_poll 10 fl_lines_at_least "$FL_DIR/acks" 40
	fl_kill
	# The load holds at 3000 until told: it is there to see the crash.
	! ft_gone "$loadpid"
	for r in 0 1 2 3; do
		acked=$(fl_acked "$FL_DIR/acks" $r)
		last=$(fl_lastseq "$FL_DIR/d" $r)
		echo "rank $r: acknowledged $acked, on disk $last"
		[ "$last" -ge "$acked" ]
	done
	fl_start "$FL_DIR/d" --sync "$mode" --listen "tcp:127.0.0.1:$port"
	touch "$FL_DIR/go"
	rc=0
	wait "$loadpid" || rc=$?
	cat "$FL_DIR/load.err"
	[ "$rc" -eq 0 ]
	# The same load, without a crash.
	fl_start "$FL_DIR/ref"
	run -0 fl_load "$FL_ADDR" --job 11 --ranks 4 --count 6000 --batch 4
	ftlog dump "$FL_DIR/ref" >"$FL_DIR/ref.txt"
	ftlog dump "$FL_DIR/d" >"$FL_DIR/d.txt"
	[ "$(wc -l <"$FL_DIR/d.txt")" -eq 24000 ]
	cmp "$FL_DIR/ref.txt" "$FL_DIR/d.txt"
}

@test "ftlog serve --sync memory: kill -9 and restart, no acknowledged determinant lost" {
	crash_and_restart memory
}

@test "ftlog serve --sync batch: kill -9 and restart, no acknowledged determinant lost" {
	crash_and_restart batch
}

@test "ftlog serve: a full disk is an error to the client, never an acknowledgement" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "a full disk needs a small tmpfs, which only root can mount"
	fi
	mkdir "$FL_DIR/full"
	mount -t tmpfs -o size=64k tmpfs "$FL_DIR/full"
	fl_start "$FL_DIR/full/log" --sync batch
	run -99 --separate-stderr fl_load "$FL_ADDR" --job 1 --ranks 2 \
	    --count 5000 --batch 50 --ack-file "$FL_DIR/acks" --timeout 3s
	[[ $stderr == *"rank "*": error 1: log of job 0000000000000001 rank "*" in '$FL_DIR/full/log': "*"No space left on device"* ]]
	for r in 0 1; do
		acked=$(fl_acked "$FL_DIR/acks" $r)
		last=$(fl_lastseq "$FL_DIR/full/log" $r)
		echo "rank $r: acknowledged $acked, on disk $last"
		[ "$last" -ge "$acked" ]
	done
	# Cut back to whole records: nothing torn, and the logger lives.
	run -0 ftlog stat "$FL_DIR/full/log"
	[[ $output != *"torn=0 "*"torn=[1-9]"* ]]
	[[ ${lines[0]} == *" torn=0 "* ]]
	[[ ${lines[1]} == *" torn=0 "* ]]
	[ -d "/proc/$FL_PID" ]
}

@test "ftlog serve: a log directory that vanishes is an error to the client" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 1 --ranks 1 --count 100
	rm -rf "$FL_DIR/d/job-0000000000000001"
	run -99 --separate-stderr fl_load "$FL_ADDR" --job 1 --ranks 1 \
	    --count 200 --ack-file "$FL_DIR/acks" --timeout 2s
	[[ $stderr == *"rank 0: error 3: "*"its segment was removed (the log directory vanished?)"* ]]
	[ "$(fl_acked "$FL_DIR/acks" 0)" -eq 100 ]
	rm -rf "$FL_DIR/d"
	run -99 --separate-stderr fl_load "$FL_ADDR" --job 2 --ranks 1 \
	    --count 10 --ack-file "$FL_DIR/acks2" --timeout 2s
	[[ $stderr == *"rank 0: error 3: "*"making its directory: No such file or directory"* ]]
	[ "$(fl_acked "$FL_DIR/acks2" 0)" -eq 0 ]
}

@test "ftlog: a torn tail is left out by dump, cut by serve, and the log goes on" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 6 --ranks 1 --count 50
	fl_kill
	seg=$(ls "$FL_DIR"/d/job-0000000000000006/rank-0/*.ftl)
	printf '\000\000\000\074\001\002' >>"$seg"
	run -0 --separate-stderr ftlog dump "$FL_DIR/d"
	[ "${#lines[@]}" -eq 50 ]
	[[ $stderr == *"job 0000000000000006 rank 0: a torn tail of 6 bytes is left out"* ]]
	run -0 ftlog stat "$FL_DIR/d"
	[[ $output == *" count=50 "*" torn=6 "* ]]
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 6 --ranks 1 --count 80
	run -0 --separate-stderr ftlog stat "$FL_DIR/d"
	[[ $output == *" count=80 first=1 last=80 "*" torn=0 "* ]]
}

@test "ftlog: a corrupt record is refused, naming the file and offset" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 6 --ranks 2 --count 50
	fl_kill
	seg=$(ls "$FL_DIR"/d/job-0000000000000006/rank-1/*.ftl)
	printf '\377' | dd of="$seg" bs=1 seek=100 conv=notrunc 2>/dev/null
	run -1 --separate-stderr ftlog dump "$FL_DIR/d"
	[[ $stderr == "ftlog: fatal: segment '$seg': corrupt record at offset "*" (bad checksum), followed by good ones" ]]
	run -1 --separate-stderr ftlog stat "$FL_DIR/d"
	[[ $stderr == *"'$seg': corrupt record"* ]]
	# Rank 0 alone is fine.
	run -0 --separate-stderr ftlog dump --rank 0 "$FL_DIR/d"
	[ "${#lines[@]}" -eq 50 ]
	fl_start "$FL_DIR/d"
	run -1 --separate-stderr fl_fetch "$FL_ADDR" --job 6 --rank 1
	[[ $stderr == *"error 4: segment '$seg': corrupt record"* ]]
	[ -z "$output" ]
	run -0 fl_fetch "$FL_ADDR" --job 6 --rank 0
	[ "${#lines[@]}" -eq 50 ]
	[ "$(wc -c <"$seg")" -gt 100 ]
}

@test "ftlog: foreign and truncated segments are refused" {
	mkdir -p "$FL_DIR/d/job-0000000000000001/rank-0"
	seg=$FL_DIR/d/job-0000000000000001/rank-0/00000000000000000001.ftl
	printf 'this is not a segment of any log, and it says so\n' >"$seg"
	run -1 --separate-stderr ftlog dump "$FL_DIR/d"
	[[ $stderr == "ftlog: fatal: segment '$seg': not an ft event-log segment (49 bytes)" ]]
	printf 'FTLG\000\001' >"$seg"
	run -1 --separate-stderr ftlog stat "$FL_DIR/d"
	[[ $stderr == "ftlog: fatal: segment '$seg': a truncated header (6 bytes)" ]]
	{ printf 'FTLG\000\011'; head -c 42 /dev/zero; } >"$seg"
	run -1 --separate-stderr ftlog stat "$FL_DIR/d"
	[[ $stderr == "ftlog: fatal: segment '$seg': version 9, this build reads versions 1 to 2" ]]
}

@test "ftlog: a logger that comes back holding less than it acknowledged is reported" {
	fl_start "$FL_DIR/d"
	port=${FL_ADDR##*:}
	ft_bg fl_load "$FL_ADDR" --job 12 --ranks 1 --count 200 \
	    --hold-at 100 --go-file "$FL_DIR/go" --ack-file "$FL_DIR/acks" \
	    --timeout 4s >"$FL_DIR/load.out" 2>"$FL_DIR/load.err"
	loadpid=$bgpid
	ft_poll 10 grep -qx '0 100' "$FL_DIR/acks"
	fl_kill
	# What it held is gone, as after its host's crash in memory mode.
	rm -rf "$FL_DIR/d"
	fl_start "$FL_DIR/d" --listen "tcp:127.0.0.1:$port"
	touch "$FL_DIR/go"
	rc=0
	wait "$loadpid" || rc=$?
	[ "$rc" -eq 99 ]
	grep -q "rank 0: error 3: logger at $FL_ADDR holds seq 0 of rank 0, but 100 was acknowledged" "$FL_DIR/load.err"
}
