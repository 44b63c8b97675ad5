# SPDX-License-Identifier: ISC
# End to end: examples/ring.c built with ftcc and run with ftrun at 1, 2
# and 8 ranks, over Unix sockets and over TCP (--tcp).  ring passes a
# token around all ranks 1000 times, each rank adding one; rank 0
# checks the total and the job exits 1 if it is wrong.

load common
bats_require_minimum_version 1.5.0

ring() {	# ranks [ftrun options]
	local n=$1
	shift
	ft_build ring "$FT_ROOT/examples/ring.c"
	# --timeout only bounds a hung job; 8 ranks on 2 cores take well
	# under a second.
	run -0 --separate-stderr ftrun -n "$n" --timeout 60 "$@" \
	    "$FT_PROGS/ring"
	# Rank 0's line, tagged or not.
	[[ $output =~ ^(\[0\]\ )?ring:\ $n\ ranks,\ 1000\ rounds,\ token\ ([0-9]+)\ \(expected\ ([0-9]+)\) ]]
	[ "${BASH_REMATCH[2]}" -eq $((1000 * (n - 1))) ]
	[ "${BASH_REMATCH[2]}" -eq "${BASH_REMATCH[3]}" ]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$stderr" ]
}

@test "ring: 1 rank" {
	ring 1
}

@test "ring: 2 ranks" {
	ring 2
}

@test "ring: 8 ranks" {
	ring 8
}

@test "ring: 1 rank over TCP" {
	ring 1 --tcp
}

@test "ring: 2 ranks over TCP" {
	ring 2 --tcp
}

@test "ring: 8 ranks over TCP" {
	ring 8 --tcp
}

@test "ring: 8 ranks with tagged output and an events file" {
	ring 8 --tag-output --events "$BATS_TEST_TMPDIR/ev"
	run -0 ft_events "$BATS_TEST_TMPDIR/ev"
	[ "$(grep -c '^exit rank=[0-7] status=0$' <<<"$output")" -eq 8 ]
	[ "$(grep -c '^abort' <<<"$output")" -eq 0 ]
}
