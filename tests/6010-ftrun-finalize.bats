# SPDX-License-Identifier: ISC
# The finalize barrier: no process leaves MPI_Finalize while another may
# still talk to it, whichever processes die meanwhile.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	export TMPDIR="$BATS_FILE_TMPDIR"
	ft_build latefin
}

# Lines of the events file that match a pattern.
nmatch() {
	grep -c "$1" "$BATS_TEST_TMPDIR/ev" 2>/dev/null || true
}

# Does the events file have exactly N lines matching a pattern?
nmatch_is() {	# pattern n
	[ "$(nmatch "$1")" -eq "$2" ]
}

# The line number of the first event matching a pattern, or 0.
first_line() {
	grep -n "$1" "$BATS_TEST_TMPDIR/ev" | head -n 1 | cut -d: -f1
}

@test "finalize: a replica killed inside MPI_Finalize does not release the others early (-r 2)" {
	local ev="$BATS_TEST_TMPDIR/ev" go="$BATS_TEST_TMPDIR/go" r pid
	local out="$BATS_TEST_TMPDIR/out" lfin lexit st=0
	ft_bg ftrun -n 9 -r 2 --timeout 120 --events "$ev" \
	    "$FT_PROGS/latefin" "$go" 4 >"$out" 2>"$BATS_TEST_TMPDIR/err"
	# Both replicas of ranks 0-3 are inside MPI_Finalize.
	ft_poll 60 nmatch_is '"event":"finalize","rank":[0-3],' 8
	# Kill replica 1 of each: each was counted as finalized.
	for r in 0 1 2 3; do
		pid=$(grep "\"event\":\"spawn\",\"rank\":$r,\"replica\":1," "$ev" |
		    sed -E 's/.*"pid":([0-9]+).*/\1/')
		kill -9 "$pid"
	done
	ft_poll 60 nmatch_is '"event":"failed"' 4
	# Only now may ranks 4-7 finish.
	touch "$go"
	wait "$bgpid" || st=$?
	[ "$st" -eq 0 ]
	[ "$(grep -c '^rank [4-7] done$' "$out")" -eq 4 ]
	# Replica 0 of ranks 0-3 left only after every late rank finalized.
	lfin=$(grep -n '"event":"finalize","rank":[4-8],' "$ev" | tail -n 1 |
	    cut -d: -f1)
	for r in 0 1 2 3; do
		lexit=$(first_line "\"event\":\"exit\",\"rank\":$r,\"replica\":0,")
		[ -n "$lexit" ]
		[ -n "$lfin" ]
		[ "$lexit" -gt "$lfin" ]
	done
	[ "$(nmatch '"event":"finalize","rank":[4-8],')" -eq 10 ]
}
