# SPDX-License-Identifier: ISC
# Authentication: every connection, launcher <-> rank and rank <-> rank,
# must prove it knows the per-job key.  A connection with a wrong key is
# refused and logged ("refused a connection..."), and the job goes on.
# "fttest connect" plays the stranger: by default it runs the client
# side of the handshake with a random key; --key gives it the real one;
# --no-verify makes it answer a challenge it could not check, as a
# client that does not care would, so that the accepting side's own
# check runs.

load common
bats_require_minimum_version 1.5.0

setup() {
	ft_setup
	if [ ! -x "$FT_ROOT/bin/fttest" ]; then
		echo "bin/fttest is not built (make all)" >&2
		return 1
	fi
}

@test "fttest: usage errors exit 100" {
	run -100 --separate-stderr fttest
	[[ $stderr == "usage: fttest connect ADDR"* ]]
	run -100 --separate-stderr fttest nosuch
	[[ $stderr == "fttest: fatal: unknown command 'nosuch'"*"usage: fttest"* ]]
	run -100 --separate-stderr fttest connect
	[[ $stderr == "usage: fttest connect ADDR"* ]]
	run -100 --separate-stderr fttest connect unix:/x --key 1234
	[ "$stderr" = "fttest: fatal: --key '1234' is not 64 hex digits" ]
	run -100 --separate-stderr fttest connect nowhere
	[[ $stderr == "fttest: fatal: 'nowhere' is not an address"* ]]
	[ -z "$output" ]
}

@test "fttest: messages about options start with 'fttest: fatal:', not its path" {
	run -100 --separate-stderr "$FT_ROOT/bin/fttest" -x
	[ "${stderr_lines[0]}" = "fttest: fatal: invalid option -- 'x'" ]
	[[ ${stderr_lines[1]} == "usage: fttest connect ADDR"* ]]
	run -100 --separate-stderr "$FT_ROOT/bin/fttest" connect --bogus unix:/x
	[ "${stderr_lines[0]}" = "fttest: fatal: unrecognized option '--bogus'" ]
	[[ ${stderr_lines[1]} == "usage: fttest connect ADDR"* ]]
	run -100 --separate-stderr "$FT_ROOT/bin/fttest" connect --key
	[ "${stderr_lines[0]}" = "fttest: fatal: option '--key' requires an argument" ]
}

@test "fttest: nothing listening exits 111" {
	run -111 --separate-stderr fttest connect "unix:$BATS_TEST_TMPDIR/none.sock"
	[[ $stderr == "fttest: fatal: unable to connect to 'unix:$BATS_TEST_TMPDIR/none.sock': No such file or directory" ]]
}

@test "fttest: a peer that never answers exits 99" {
	# A listener that accepts and then says nothing.
	ft_bg python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
open(sys.argv[2], "w").write("ready\n")
c, _ = s.accept()
time.sleep(60)
' "$BATS_TEST_TMPDIR/mute.sock" "$BATS_TEST_TMPDIR/mute.ready"
	ft_await 30 "$BATS_TEST_TMPDIR/mute.ready" "$bgpid"
	run -99 --separate-stderr fttest connect "unix:$BATS_TEST_TMPDIR/mute.sock"
	[ "$stderr" = "fttest: fatal: the handshake timed out" ]
}

@test "the launcher refuses a connection with a wrong key, logs it, and the job goes on" {
	ft_build hello
	run -0 --separate-stderr ftrun -n 2 sh -c '
	    if [ "$FT_RANK" = 0 ]; then
		    fttest connect "$FT_LAUNCHER"
		    echo "rc=$?"
	    fi
	    exec "$1"' sh "$FT_PROGS/hello"
	[[ $output == *"rc=1"* ]]
	[[ $output == *"No Errors"* ]]
	[[ $stderr == *"fttest: warning: refused: "* ]]
	[[ $stderr == *"ftrun: warning: refused a connection"* ]]
}

@test "the launcher refuses a wrong AUTH and logs it" {
	ft_build hello
	run -0 --separate-stderr ftrun -n 2 sh -c '
	    if [ "$FT_RANK" = 0 ]; then
		    fttest connect --no-verify "$FT_LAUNCHER"
		    echo "rc=$?"
	    fi
	    exec "$1"' sh "$FT_PROGS/hello"
	[[ $output == *"rc=1"* ]]
	[[ $output == *"No Errors"* ]]
	[[ $stderr == *"ftrun: warning: refused a connection: wrong job key"* ]]
}

@test "the launcher accepts the handshake with the job key" {
	# The control: the same client with the key the ranks are given.
	ft_build hello
	run -0 --separate-stderr ftrun -n 2 sh -c '
	    if [ "$FT_RANK" = 0 ]; then
		    key=$(od -An -tx1 -v "/dev/fd/$FT_KEY_FD" | tr -d " \n")
		    fttest connect --key "$key" "$FT_LAUNCHER"
		    echo "rc=$?"
		    exit 0
	    fi'
	[[ $output == *"handshake completed"* ]]
	[[ $output == *"rc=0"* ]]
	[[ $stderr != *"refused"* ]]
}

@test "a rank refuses a connection with a wrong key, logs it, and the job goes on" {
	ft_build authpeer
	run -0 --separate-stderr ftrun -n 2 "$FT_PROGS/authpeer"
	[[ $output == *"fttest was refused"* ]]
	[[ $output == *"No Errors"* ]]
	[[ $stderr == *"fttest: warning: refused: "* ]]
	[[ $stderr == *"[rank 0]: warning: refused a connection"* ]]
}

@test "a rank refuses a wrong AUTH, logs it, and the job goes on" {
	ft_build authpeer
	run -0 --separate-stderr ftrun -n 2 "$FT_PROGS/authpeer" --no-verify
	[[ $output == *"fttest was refused"* ]]
	[[ $output == *"No Errors"* ]]
	[[ $stderr == *"[rank 0]: warning: refused a connection"* ]]
}

@test "ftrun shows the control characters in a replica's warning instead of sending them to the terminal" {
	ft_build authpeer
	# A replica's warnings start with the program's name, which here
	# holds an escape sequence that clears the screen.  Replicated, the
	# rank sends its warning about the wrong AUTH to ftrun to print.
	cp "$FT_PROGS/authpeer" "$BATS_TEST_TMPDIR/auth"$'\033'"[2Jpeer"
	run -0 --separate-stderr ftrun -n 2 -r 2 \
	    "$BATS_TEST_TMPDIR/auth"$'\033'"[2Jpeer" --no-verify
	[[ $output == *"No Errors"* ]]
	[[ $stderr == *'auth\x1b[2Jpeer[rank 0.0]: warning: refused a connection: wrong job key'* ]]
	[[ $stderr != *$'\033'* ]]
}
