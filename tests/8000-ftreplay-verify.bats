# SPDX-License-Identifier: ISC
# ftreplay --verify: consistent logs hold (dump text, JSON, a file, a
# log directory written through ftlog serve); each invariant fails on a
# log mutated here, naming its rule, rank, clock and the records
# involved; input it cannot parse exits 100 with the line number.
#
# The logs are made by fttest log gen / load --pattern job, a job that
# could have run, until the vlog protocol writes logs of real jobs.

load common
load log

setup() {
	fl_setup
	G=$BATS_TEST_TMPDIR/g.txt
	fttest log gen --job 2a --ranks 2 --count 60 >"$G"
}

# set_field FILE RANK SEQ KEY VALUE: KEY=VALUE on that record, in place.
set_field() {
	awk -v r="rank=$2" -v s="seq=$3" -v k="$4" -v v="$5" '
	    $2 == r && $3 == s { for (i = 1; i <= NF; i++)
		if (index($i, k "=") == 1) $i = k "=" v }
	    { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# field FILE RANK SEQ KEY: the value of KEY on that record.
field() {
	awk -v r="rank=$2" -v s="seq=$3" -v k="$4" '
	    $2 == r && $3 == s { for (i = 1; i <= NF; i++)
		if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1"
}

@test "ftreplay --verify: a generated log of 8 ranks holds, as text, JSON and a file" {
	fttest log gen --job 7 --ranks 8 --count 500 >"$BATS_TEST_TMPDIR/d"
	run -0 --separate-stderr ftreplay --verify <"$BATS_TEST_TMPDIR/d"
	[ "$output" = "job=0000000000000007 ranks=8 determinants=4000 deliveries=2400 nondet=1600 result=ok" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr ftreplay verify "$BATS_TEST_TMPDIR/d"
	[ "$output" = "job=0000000000000007 ranks=8 determinants=4000 deliveries=2400 nondet=1600 result=ok" ]
	fttest log gen --job 7 --ranks 8 --count 500 --json >"$BATS_TEST_TMPDIR/j"
	run -0 --separate-stderr ftreplay --verify --json - <"$BATS_TEST_TMPDIR/j"
	[ "$output" = '{"job":"0000000000000007","ranks":8,"determinants":4000,"deliveries":2400,"nondet":1600,"result":"ok"}' ]
}

@test "ftreplay --verify: a log written through ftlog serve holds, read from the directory and from ftlog dump" {
	fl_start "$FL_DIR/d"
	run -0 fl_load "$FL_ADDR" --job 9 --ranks 4 --count 300 --pattern job
	[[ $output == "ranks=4 count=300 appended=1200 "*" errors=0" ]]
	run -0 --separate-stderr ftreplay --verify "$FL_DIR/d"
	[ "$output" = "job=0000000000000009 ranks=4 determinants=1200 deliveries=720 nondet=480 result=ok" ]
	ftlog dump "$FL_DIR/d" >"$BATS_TEST_TMPDIR/dump"
	run -0 --separate-stderr ftreplay --verify <"$BATS_TEST_TMPDIR/dump"
	[ "$output" = "job=0000000000000009 ranks=4 determinants=1200 deliveries=720 nondet=480 result=ok" ]
	# The generator agrees with what went through the logger.
	fttest log gen --job 9 --ranks 4 --count 300 >"$BATS_TEST_TMPDIR/gen"
	cmp "$BATS_TEST_TMPDIR/gen" "$BATS_TEST_TMPDIR/dump"
}

@test "ftreplay --verify: the golden log of ftlog's tests fails, on its probes" {
	run -1 --separate-stderr ftreplay --verify "$FT_ROOT/tests/golden/ftlog-dump.txt"
	[[ ${lines[0]} == *" rule=probes result=violation" ]]
}

@test "ftreplay --verify: a record dropped fails rule seq" {
	awk '!($2 == "rank=1" && $3 == "seq=20")' "$G" >"$G.m"
	run -1 --separate-stderr ftreplay --verify "$G.m"
	[ "${lines[0]}" = "job=000000000000002a rank=1 clock=24 rule=seq result=violation" ]
	[[ ${lines[1]} == "involved job=000000000000002a rank=1 seq=19 "*" line=79" ]]
	[[ ${lines[2]} == "involved job=000000000000002a rank=1 seq=21 "*" line=80" ]]
	[ "${#lines[@]}" -eq 3 ]
	[[ $stderr == "ftreplay: error: job 000000000000002a rank 1 clock 24: rule seq: rank 1 seq 21 follows seq 19"* ]]
}

@test "ftreplay --verify: two records swapped fail rule clock" {
	# Records 10 and 13 of rank 0 change places, seqs renumbered.
	awk '{ l[NR] = $0 } END {
		for (i = 1; i <= NR; i++) {
			if (l[i] ~ /rank=0 seq=10 /) x = i
			if (l[i] ~ /rank=0 seq=13 /) y = i
		}
		t = l[x]; l[x] = l[y]; l[y] = t
		sub(/seq=13/, "seq=10", l[x]); sub(/seq=10/, "seq=13", l[y])
		for (i = 1; i <= NR; i++) print l[i]
	    }' "$G" >"$G.m"
	run -1 --separate-stderr ftreplay --verify "$G.m"
	[ "${lines[0]}" = "job=000000000000002a rank=0 clock=14 rule=clock result=violation" ]
	[[ ${lines[1]} == "involved job=000000000000002a rank=0 seq=10 clock=16 "* ]]
	[[ ${lines[2]} == "involved job=000000000000002a rank=0 seq=11 clock=14 "* ]]
}

@test "ftreplay --verify: a clock raised fails rule clock" {
	set_field "$G" 1 20 clock 1000
	run -1 --separate-stderr ftreplay --verify "$G"
	[ "${lines[0]}" = "job=000000000000002a rank=1 clock=24 rule=clock result=violation" ]
	[[ ${lines[1]} == *"rank=1 seq=20 clock=1000 "* ]]
	[[ $stderr == *"the receiver's clock goes up at each delivery and never down"* ]]
}

@test "ftreplay --verify: a delivery duplicated fails rule duplicate, naming both" {
	# Rank 1 delivers rank 0's message of clock 13 again, at its end.
	last=$(grep -c "rank=1 " "$G")
	clock=$(field "$G" 1 "$last" clock)
	echo "job=000000000000002a rank=1 seq=$((last + 1)) clock=$((clock + 1)) kind=deliver sender=0 sclock=13 probes=0" >>"$G"
	run -1 --separate-stderr ftreplay --verify "$G"
	[ "${lines[0]}" = "job=000000000000002a rank=1 clock=$((clock + 1)) rule=duplicate result=violation" ]
	[[ ${lines[1]} == "involved job=000000000000002a rank=1 seq=10 clock=14 kind=deliver sender=0 sclock=13 "* ]]
	[[ ${lines[2]} == "involved job=000000000000002a rank=1 seq=$((last + 1)) "* ]]
}

@test "ftreplay --verify: a channel's messages delivered out of order fail rule channel-order" {
	set_field "$G" 0 9 sclock 13
	set_field "$G" 0 10 sclock 11
	run -1 --separate-stderr ftreplay --verify "$G"
	[ "${lines[0]}" = "job=000000000000002a rank=0 clock=14 rule=channel-order result=violation" ]
	# --no-channel-order lets it pass (a program receiving by tag).
	run -0 --separate-stderr ftreplay --verify --no-channel-order "$G"
	[[ $output == *"result=ok" ]]
}

@test "ftreplay --verify: a message of a clock at which its sender delivered fails rule send-clock" {
	# Rank 1's clock 12 is a delivery (its seq 9): no send has it.
	[ "$(field "$G" 1 9 clock)" = 12 ]
	set_field "$G" 0 10 sclock 12
	run -1 --separate-stderr ftreplay --verify "$G"
	[ "${lines[0]}" = "job=000000000000002a rank=0 clock=14 rule=send-clock result=violation" ]
	[[ ${lines[2]} == "involved job=000000000000002a rank=1 seq=9 clock=12 kind=deliver "* ]]
}

@test "ftreplay --verify: messages received before they were sent make a cycle, rule causality" {
	# Every message rank 0 gets from rank 1 is said sent two rounds later.
	awk '$2 == "rank=0" && $6 == "sender=1" {
		split($7, f, "="); $7 = "sclock=" f[2] + 4 } { print }' "$G" >"$G.m"
	run -1 --separate-stderr ftreplay --verify "$G.m"
	[ "${lines[0]}" = "job=000000000000002a rank=0 clock=2 rule=causality result=violation" ]
	[[ ${lines[1]} == "involved job=000000000000002a rank=0 seq=1 clock=2 kind=deliver sender=1 sclock=5 "* ]]
	[[ ${lines[2]} == "involved job=000000000000002a rank=1 seq=2 clock=4 "* ]]
	[[ $stderr == *"the happened-before graph has a cycle"* ]]
}

@test "ftreplay --verify: an ANY_SOURCE outcome naming another message fails rule anysrc" {
	[ "$(field "$G" 0 3 kind)" = anysrc ]
	cp "$G" "$G.2"
	# The message it names was delivered before (rank 0's seq 2).
	set_field "$G" 0 3 sclock 3
	run -1 --separate-stderr ftreplay --verify "$G"
	[ "${lines[0]}" = "job=000000000000002a rank=0 clock=5 rule=anysrc result=violation" ]
	[[ ${lines[2]} == "involved job=000000000000002a rank=0 seq=2 clock=4 kind=deliver sender=1 sclock=3 "* ]]
	[[ $stderr == *"an ANY_SOURCE receive matched rank 1's message 3, which was delivered before" ]]
	# A later message of the channel is delivered before the one named.
	set_field "$G.2" 0 12 sclock 14
	run -1 --separate-stderr ftreplay --verify "$G.2"
	[ "${lines[0]}" = "job=000000000000002a rank=0 clock=16 rule=anysrc result=violation" ]
	[[ $stderr == *"delivers rank 1's message 15 before message 14, which its ANY_SOURCE receive matched at clock 15" ]]
}

@test "ftreplay --verify: a wrong count of probes fails rule probes, an outcome out of range rule outcome" {
	cp "$G" "$G.2"
	set_field "$G" 0 6 probes 0
	run -1 --separate-stderr ftreplay --verify "$G"
	[ "${lines[0]}" = "job=000000000000002a rank=0 clock=8 rule=probes result=violation" ]
	set_field "$G.2" 1 11 a 2
	run -1 --separate-stderr ftreplay --verify "$G.2"
	[ "${lines[0]}" = "job=000000000000002a rank=1 clock=14 rule=outcome result=violation" ]
}

@test "ftreplay --verify --json: a violation as one JSON object, records and lines" {
	set_field "$G" 1 20 clock 1000
	run -1 --separate-stderr ftreplay --verify --json "$G"
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jq -r .rule <<<"$output")" = clock ]
	[ "$(jq -r '.records[0].clock' <<<"$output")" = 1000 ]
	[ "$(jq -r '.records[0].line' <<<"$output")" = 80 ]
}

@test "ftreplay --verify: --sclock seq reads the sender clock as a channel number" {
	# What the vlog protocol writes today: numbers from 0 on each channel.
	cat >"$BATS_TEST_TMPDIR/v" <<-EOF
	rank=0 seq=1 clock=1 kind=anysrc sender=1 sclock=0 probes=0 a=1 b=1 c=0
	rank=0 seq=2 clock=2 kind=deliver sender=1 sclock=0 probes=0
	rank=1 seq=1 clock=1 kind=deliver sender=0 sclock=0 probes=0
	rank=1 seq=2 clock=3 kind=deliver sender=0 sclock=1 probes=0
	EOF
	run -1 --separate-stderr ftreplay --verify "$BATS_TEST_TMPDIR/v"
	[[ ${lines[0]} == *" rule=send-clock result=violation" ]]
	run -0 --separate-stderr ftreplay --verify --sclock seq "$BATS_TEST_TMPDIR/v"
	[ "$output" = "job=0000000000000000 ranks=2 determinants=4 deliveries=3 nondet=1 result=ok" ]
}

@test "ftreplay --verify: input it cannot parse exits 100 with the line number" {
	sed '5s/clock=[0-9]*/clock=x7/' "$G" >"$G.m"
	run -100 --separate-stderr ftreplay --verify "$G.m"
	[ "$stderr" = "ftreplay: fatal: $G.m line 5: clock 'x7' is not a decimal number (0 to 18446744073709551615)" ]
	[ -z "$output" ]
	printf 'job=1 rank=0 seq=1 clock=1 kind=deliver sender=0 sclock=1 probes=0 color=red\n' >"$G.m"
	run -100 --separate-stderr ftreplay --verify <"$G.m"
	[ "$stderr" = "ftreplay: fatal: stdin line 1: unknown key 'color'" ]
	printf '\n{"rank":0,"seq":1,"clock":2,"kind":"deliver","sender":1,"sclock":1,"probes":0\n' >"$G.m"
	run -100 --separate-stderr ftreplay --verify <"$G.m"
	[ "$stderr" = "ftreplay: fatal: stdin line 2: ',' or '}' is expected after 'probes'" ]
	head -c 2000 /dev/zero | tr '\0' a >"$G.m"
	run -100 --separate-stderr ftreplay --verify <"$G.m"
	[ "$stderr" = "ftreplay: fatal: stdin line 1: longer than 1024 bytes" ]
}

@test "ftreplay --verify: a rank met again after another's records exits 100" {
	{ grep "rank=0 seq=[1-5] " "$G"; grep "rank=1 " "$G"; grep "rank=0 seq=6 " "$G"; } >"$G.m"
	run -100 --separate-stderr ftreplay --verify "$G.m"
	[[ $stderr == "ftreplay: fatal: $G.m line 66: job 000000000000002a rank 0 comes again after other records"* ]]
}

@test "ftreplay: usage errors exit 100" {
	run -100 --separate-stderr ftreplay
	[[ $stderr == "usage: ftreplay --verify"* ]]
	run -100 --separate-stderr ftreplay --verify --sclock lamport
	[ "$stderr" = "ftreplay: fatal: --sclock 'lamport': clock or seq" ]
	run -100 --separate-stderr ftreplay --verify "$BATS_TEST_TMPDIR/nothing"
	[[ $stderr == "ftreplay: fatal: '$BATS_TEST_TMPDIR/nothing': No such file"* ]]
	run -100 --separate-stderr ftreplay --verify --svg x.svg
	[[ $stderr == "usage: "* ]]
}
