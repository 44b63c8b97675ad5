# SPDX-License-Identifier: ISC
# examples/ulfm_pi under --ft ulfm: a rank dies before its first
# reduction; the survivors agree the step failed, shrink, share the
# work, and print the answer of a run that lost nothing.  The victim
# is chosen from a seed, at 4, 8 and 16 ranks.

load common
bats_require_minimum_version 1.5.0

setup() {
	ft_setup
	ft_build ulfm_pi "$FT_ROOT/examples/ulfm_pi.c"
}

@test "ulfm example: pi survives the death of a rank at 4, 8 and 16 ranks" {
	local n seed victim want
	for n in 4 8 16; do
		run -0 --separate-stderr ftrun --ft ulfm -n "$n" --timeout 120 \
		    "$FT_PROGS/ulfm_pi" 1000000
		want=$output
		[[ $want == "pi is approximately 3.14159265"* ]]
		[[ $stderr == *"$n ranks finished the work after 0 failed steps"* ]]
		for seed in 1 2 3; do
			victim=$(((seed * 7919 + n) % n))
			run -0 --separate-stderr ftrun --ft ulfm -n "$n" \
			    --timeout 120 "$FT_PROGS/ulfm_pi" 1000000 "$victim"
			[ "$output" = "$want" ]
			[[ $stderr == *"rank $victim (pid "*"the job goes on (--ft ulfm)"* ]]
			[[ $stderr == *"$((n - 1)) ranks finished the work after 1 failed step"* ]]
		done
	done
}
