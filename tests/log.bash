# SPDX-License-Identifier: ISC
# Helpers of the ftlog tests (load common, then load log): a cluster
# key, loggers on loopback ports, each over a directory under the
# test's own, stopped in teardown.
#
#   fl_setup			a cluster key in $FL_KEY
#   fl_start DIR [OPT ...]	start "ftlog serve --dir DIR" with the key;
#				its address in $FL_ADDR, pid in $FL_PID,
#				stderr in DIR.err (beside DIR)
#   fl_kill			kill -9 the logger, wait until it is gone
#   fl_load ADDR OPT ...	fttest log load with the key
#   fl_fetch ADDR OPT ...	fttest log fetch with the key
#   fl_acked FILE RANK		the highest seq acknowledged for RANK in an
#				--ack-file, 0 if none
#   fl_lastseq DIR RANK		the last seq ftlog dump shows for RANK

fl_setup() {
	ft_setup
	FL_DIR=$BATS_TEST_TMPDIR
	FL_KEY=$FL_DIR/cluster.key
	ftboot keygen --key-file "$FL_KEY" >/dev/null
}

fl_start() {
	local dir=$1
	shift
	rm -f "$dir.addr"
	ft_bg ftlog serve --dir "$dir" --key-file "$FL_KEY" "$@" \
	    >"$dir.addr" 2>"$dir.err"
	FL_PID=$bgpid
	# A failed start fails the test at once, with its reason.
	ft_await 30 "$dir.addr" "$FL_PID" "$dir.err" || return 1
	FL_ADDR=$(cat "$dir.addr")
}

# Kill the logger at once, and wait until it is gone: its listening
# socket lives until then, and a logger restarted on the same port
# before would find it taken.
fl_kill() {
	kill -9 "$FL_PID"
	ft_poll 30 ft_gone "$FL_PID"
}

fl_load() {
	local addr=$1
	shift
	fttest log load "$addr" --key-file "$FL_KEY" "$@"
}

fl_fetch() {
	local addr=$1
	shift
	fttest log fetch "$addr" --key-file "$FL_KEY" "$@"
}

fl_acked() {
	awk -v r="$2" '$1 == r && $2 > m { m = $2 } END { print m + 0 }' "$1"
}

fl_lastseq() {
	ftlog dump --rank "$2" "$1" |
	    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^seq=/) s = substr($i, 5) }
	    END { print s + 0 }'
}

# Does FILE hold at least N lines?
fl_lines_at_least() {
	[ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]
}
