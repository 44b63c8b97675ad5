# SPDX-License-Identifier: ISC
# ftrun basics: programs with and without MPI, the rank environment,
# stdio forwarding (whole lines, tags, stdin to rank 0 only), options
# passed to every rank, and the job directory.

load common
bats_require_minimum_version 1.5.0

# Check spew's output: every line whole, in order within its rank,
# none missing.  With tags, the "[R] " prefix must name the line's rank.
# Prints "bad=B order=O missing=M".
spew_check() {	# text lines length ranks tagged every
	awk -v N="$2" -v L="$3" -v R="$4" -v T="$5" -v E="$6" '
	{
		if (T) {
			if (!match($0, /^\[[0-9]+\] /)) { bad++; next }
			tag = substr($0, 2, RLENGTH - 3)
			$0 = substr($0, RLENGTH + 1)
		}
		if (length($0) != L || NF != 4 || $1 !~ /^r[0-9]+$/ ||
		    $2 !~ /^l[0-9]+$/ || $4 != "end") { bad++; next }
		r = substr($1, 2) + 0
		n = substr($2, 2) + 0
		if (T && tag + 0 != r) { bad++; next }
		c = sprintf("%c", 97 + n % 26)
		f = $3
		gsub(c, "", f)
		if (f != "") { bad++; next }
		if (n != want[r] + 0) order++
		want[r] = n + E
		cnt[r]++
	}
	END {
		for (r = 0; r < R; r++)
			if (cnt[r] != N / E) missing++
		printf "bad=%d order=%d missing=%d\n", bad, order, missing
	}' <<<"$1"
}

@test "ftrun runs a program that never calls MPI on every rank" {
	run -0 --separate-stderr ftrun -n 4 hostname
	[ "${#lines[@]}" -eq 4 ]
	for l in "${lines[@]}"; do
		[ "$l" = "$(hostname)" ]
	done
	[ -z "$stderr" ]
}

@test "ftrun runs one rank by default" {
	run -0 --separate-stderr ftrun sh -c 'echo "$FT_RANK/$FT_SIZE"'
	[ "$output" = "0/1" ]
	[ -z "$stderr" ]
}

@test "ftrun gives every rank FT_RANK and FT_SIZE" {
	run -0 --separate-stderr ftrun -n 5 sh -c 'echo "$FT_RANK/$FT_SIZE"'
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "0/5 1/5 2/5 3/5 4/5 " ]
	[ -z "$stderr" ]
}

@test "ftrun runs an MPI program compiled with ftcc" {
	ft_build hello
	run -0 --separate-stderr ftrun -n 3 "$FT_PROGS/hello"
	[ "${#lines[@]}" -eq 4 ]
	[[ $output == *"hello from rank 0 of 3"* ]]
	[[ $output == *"hello from rank 1 of 3"* ]]
	[[ $output == *"hello from rank 2 of 3"* ]]
	[[ $output == *"No Errors"* ]]
	[ -z "$stderr" ]
}

@test "ftrun: -np is a synonym of -n, and -- ends ftrun's options" {
	run -0 --separate-stderr ftrun --np 2 -- sh -c 'echo "$FT_SIZE $*"' \
	    sh -n 5 --tag-output
	[ "$output" = "$(printf '2 -n 5 --tag-output\n2 -n 5 --tag-output')" ]
	[ -z "$stderr" ]
}

@test "ftrun stops at the program name: later options are the program's" {
	run -0 --separate-stderr ftrun -n 1 echo -n 3 --timeout x
	[ "$output" = "3 --timeout x" ]
	[ -z "$stderr" ]
}

@test "ftrun forwards the output of 8 fast ranks whole lines at a time" {
	ft_build spew
	run -0 --separate-stderr ftrun -n 8 "$FT_PROGS/spew" 200 3000
	n=${#lines[@]} err=$stderr
	run -0 spew_check "$output" 200 3000 8 0 1
	echo "stdout: $output, $n lines"
	[ "$output" = "bad=0 order=0 missing=0" ]
	[ "$n" -eq 1600 ]
	run -0 spew_check "$err" 200 3000 8 0 10
	echo "stderr: $output"
	[ "$output" = "bad=0 order=0 missing=0" ]
}

@test "ftrun forwards stdout and stderr whole lines with --tag-output" {
	ft_build spew
	run -0 --separate-stderr ftrun -n 8 --tag-output "$FT_PROGS/spew" \
	    200 3000
	out=$output err=$stderr
	run -0 spew_check "$out" 200 3000 8 1 1
	echo "stdout: $output"
	[ "$output" = "bad=0 order=0 missing=0" ]
	run -0 spew_check "$err" 200 3000 8 1 10
	echo "stderr: $output"
	[ "$output" = "bad=0 order=0 missing=0" ]
}

@test "ftrun --tag-output prefixes every line with its rank" {
	run -0 --separate-stderr ftrun -n 3 --tag-output sh -c \
	    'echo "out $FT_RANK"; echo "err $FT_RANK" >&2'
	[ "$(sort <<<"$output" | tr '\n' ' ')" = \
	    "[0] out 0 [1] out 1 [2] out 2 " ]
	[ "$(sort <<<"$stderr" | tr '\n' ' ')" = \
	    "[0] err 0 [1] err 1 [2] err 2 " ]
}

@test "ftrun completes a last line that has no newline" {
	# $output drops the final newline, so look at the bytes in a file.
	run -0 --separate-stderr bash -c \
	    'ftrun -n 2 --tag-output printf "no newline" >"$1"' _ \
	    "$BATS_TEST_TMPDIR/out"
	[ -z "$stderr" ]
	run -0 sort "$BATS_TEST_TMPDIR/out"
	[ "$output" = "$(printf '[0] no newline\n[1] no newline')" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -eq 2 ]
}

@test "ftrun gives stdin to rank 0 and /dev/null to the others" {
	printf 'one\ntwo\nthree\n' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr ftrun -n 3 --tag-output sh -c \
	    'echo "lines $(wc -l)"' <"$BATS_TEST_TMPDIR/in"
	[ "$(sort <<<"$output" | tr '\n' ' ')" = \
	    "[0] lines 3 [1] lines 0 [2] lines 0 " ]
	[ -z "$stderr" ]
}

@test "ftrun forwards a large stdin to rank 0 intact" {
	head -c 3000000 /dev/urandom >"$BATS_TEST_TMPDIR/in"
	want=$(cksum <"$BATS_TEST_TMPDIR/in")
	run -0 --separate-stderr ftrun -n 2 sh -c \
	    '[ "$FT_RANK" = 0 ] && cksum; exit 0' <"$BATS_TEST_TMPDIR/in"
	[ "$output" = "$want" ]
	[ -z "$stderr" ]
}

@test "ftrun exits 0 when rank 0 reads only part of stdin" {
	seq 1 500000 >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr ftrun -n 2 sh -c \
	    '[ "$FT_RANK" = 0 ] && exec head -n 1; exit 0' \
	    <"$BATS_TEST_TMPDIR/in"
	[ "$output" = 1 ]
	[ -z "$stderr" ]
}

@test "ftrun does not hang when its stdin is closed" {
	# bash closes fd 0 just before exec: run's own "<&-" would leave
	# the read end of the output pipe there.  timeout only bounds the
	# test: ftrun itself must exit 0.
	run -0 --separate-stderr timeout -s KILL 10 bash -c 'exec "$@" <&-' \
	    sh ftrun -n 2 --tag-output sh -c 'echo "lines $(wc -l)"'
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "[0] lines 0 [1] lines 0 " ]
	[ -z "$stderr" ]
}

@test "ftrun -x sets variables and exports them from its environment" {
	FT_TEST_FROM_ENV="from env" run -0 --separate-stderr ftrun -n 2 \
	    -x FT_TEST_SET=set -x FT_TEST_FROM_ENV -x FT_TEST_EMPTY= \
	    sh -c 'echo "$FT_TEST_SET|$FT_TEST_FROM_ENV|${FT_TEST_EMPTY-unset}"'
	[ "$output" = "$(printf 'set|from env|\nset|from env|')" ]
	[ -z "$stderr" ]
}

@test "ftrun --tcp tells the ranks to use TCP" {
	run -0 --separate-stderr ftrun -n 2 --tcp sh -c 'echo "tcp=$FT_TCP"'
	[ "$output" = "$(printf 'tcp=1\ntcp=1')" ]
	run -0 --separate-stderr ftrun -n 1 sh -c 'echo "tcp=${FT_TCP-unset}"'
	[ "$output" = "tcp=unset" ]
}

@test "ftrun gives each job a private directory and removes it" {
	run -0 --separate-stderr ftrun -n 2 sh -c \
	    'test -d "$FT_JOB_DIR" && test -O "$FT_JOB_DIR" &&
	    stat -c %a "$FT_JOB_DIR"'
	[ "$output" = "$(printf '700\n700')" ]
	[ -z "$stderr" ]
	run -0 find "$TMPDIR" -maxdepth 1 -name 'ft.*'
	[ -z "$output" ]
}

@test "ftrun finds the program in PATH" {
	mkdir "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho "found $FT_RANK"\n' >"$BATS_TEST_TMPDIR/bin/ft-test-prog"
	chmod +x "$BATS_TEST_TMPDIR/bin/ft-test-prog"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run -0 --separate-stderr \
	    ftrun -n 1 ft-test-prog
	[ "$output" = "found 0" ]
	[ -z "$stderr" ]
}

@test "ftrun raises its soft limit on open files to the hard limit, for the ranks too" {
	local hard
	hard=$(ulimit -Hn)
	[ "$hard" = unlimited ] || [ "$hard" -ge 512 ] ||
	    skip "the hard limit on open files is below 512"
	# With a soft limit of 64, ftrun would run out of descriptors after
	# about 20 ranks; a hard limit of 512 is plenty for 40.
	run -0 --separate-stderr bash -c 'ulimit -Sn 64 && ulimit -Hn 512 &&
	    exec "$@"' sh ftrun -n 40 sh -c 'ulimit -Sn'
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 40 ]
	[ "$(sort -u <<<"$output")" = 512 ]
}

@test "ranks inherit no descriptor but stdio, the job key's and the heartbeat pipe" {
	# Start ftrun with nothing but stdio open, then have each rank's
	# ls list its own descriptors: all but its directory's are the
	# rank's.
	run -0 --separate-stderr python3 -c '
import os, sys
os.closerange(3, 65536)
os.execvp(sys.argv[1], sys.argv[1:])' ftrun -n 3 --tag-output sh -c \
	    'echo "key $FT_KEY_FD hb $FT_HEARTBEAT_FD"; exec ls -l /proc/self/fd'
	[ -z "$stderr" ]
	for r in 0 1 2; do
		key=$(grep "^\[$r\] key " <<<"$output")
		hb=${key##* }
		key=${key#* key }
		key=${key%% *}
		extra=$(awk -v r="[$r]" -v key="$key" -v hb="$hb" '
		    $1 == r && $(NF - 1) == "->" && $NF !~ /^\/proc\/.*\/fd$/ &&
		    $(NF - 2) !~ /^[012]$/ && $(NF - 2) != key &&
		    $(NF - 2) != hb {
			print $(NF - 2) " -> " $NF
		    }' <<<"$output")
		echo "rank $r, key $key, heartbeat $hb, extra: $extra"
		[ -n "$key" ]
		[ -n "$hb" ]
		[ "$key" != "$hb" ]
		[ -z "$extra" ]
		# The heartbeat descriptor is the write end of a pipe.
		grep -Eq "^\[$r\] .* $hb -> pipe:" <<<"$output"
	done
}
