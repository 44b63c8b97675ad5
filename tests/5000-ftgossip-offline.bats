# SPDX-License-Identifier: ISC
# ftgossip's offline subcommands: predict (dissemination bounds and the
# default Tcleanup) and simulate (the probability that failures cut the
# detector's gossip paths, exact and Monte Carlo), and their usage errors.

load common
bats_require_minimum_version 1.5.0

# Print the value of field KEY in the key=value line $output.
field() {
	local kv
	for kv in $output; do
		[[ $kv == "$1="* ]] && { echo "${kv#*=}"; return 0; }
	done
	return 1
}

@test "ftgossip predict: dbrr, 64 members, 100 ms" {
	run -0 --separate-stderr ftgossip predict --protocol dbrr -n 64
	[ "$output" = "protocol=dbrr n=64 period=0.1s cycle_rounds=12 min_rounds=12 tcleanup_min=1.2s cleanup_rounds=18 tcleanup=1.8s" ]
	[ -z "$stderr" ]
}

@test "ftgossip predict: brr and rr bounds, another period" {
	run -0 ftgossip predict --protocol brr -n 1000 --period 20ms
	[ "$(field min_rounds)" = 10 ]
	[ "$(field tcleanup_min)" = 0.2s ]
	[ "$(field cleanup_rounds)" = 15 ]
	run -0 ftgossip predict --protocol rr -n 64
	[ "$(field min_rounds)" = 11 ]
}

@test "ftgossip simulate --exact and Monte Carlo agree (brr, n=14)" {
	run -0 --separate-stderr ftgossip simulate --protocol brr -n 14 \
	    --fail-prob 0.2 --exact
	[ "$(field sets)" = 16384 ]
	exact=$(field probability)
	run -0 --separate-stderr ftgossip simulate --protocol brr -n 14 \
	    --fail-prob 0.2 --trials 1000000 --seed 3
	[ "$(field trials)" = 1000000 ]
	mc=$(field probability)
	# Within 5 standard errors of sqrt(p(1-p)/10^6).
	awk -v e="$exact" -v m="$mc" 'BEGIN {
		se = sqrt(e * (1 - e) / 1e6)
		exit !(e > 0.01 && m > e - 5 * se && m < e + 5 * se) }'
}

@test "ftgossip simulate: the same seed gives the same count" {
	run -0 ftgossip simulate --protocol dbrr -n 32 --fail-prob 0.3 \
	    --trials 64000 --seed 99 --threads 2
	a=$(field failures)
	run -0 ftgossip simulate --protocol dbrr -n 32 --fail-prob 0.3 \
	    --trials 64000 --seed 99 --threads 2
	[ "$(field failures)" = "$a" ]
}

@test "ftgossip simulate: dbrr fails less often than brr" {
	run -0 ftgossip simulate --protocol brr -n 12 --fail-prob 0.2 --exact
	brr=$(field probability)
	run -0 ftgossip simulate --protocol dbrr -n 12 --fail-prob 0.2 --exact
	dbrr=$(field probability)
	awk -v b="$brr" -v d="$dbrr" 'BEGIN { exit !(d < b) }'
}

@test "ftgossip: usage errors exit 100 with a clear message" {
	run -100 --separate-stderr ftgossip
	[[ $stderr == "usage: ftgossip run"* ]]
	[[ $stderr == *"ftgossip simulate"* ]]
	[[ $stderr == *"ftgossip predict"* ]]
	run -100 --separate-stderr ftgossip predict -n 8
	[ "$stderr" = "ftgossip: fatal: --protocol is missing" ]
	run -100 --separate-stderr ftgossip predict --protocol swim -n 8
	[ "$stderr" = "ftgossip: fatal: unknown protocol 'swim' (valid: random, rr, brr, dbrr)" ]
	run -100 --separate-stderr ftgossip simulate --protocol brr -n 8 \
	    --fail-prob 1.5 --trials 10
	[[ $stderr == *"--fail-prob '1.5' is not a probability"* ]]
	run -100 --separate-stderr ftgossip simulate --protocol random -n 8 \
	    --fail-prob 0.1 --exact
	[[ $stderr == *"--exact needs a deterministic schedule"* ]]
	run -100 --separate-stderr ftgossip simulate --protocol brr -n 40 \
	    --fail-prob 0.1 --exact
	[[ $stderr == *"-n 40 is above 30"* ]]
	run -100 --separate-stderr ftgossip simulate --protocol brr -n 8 \
	    --fail-prob 0.1
	[ "$stderr" = "ftgossip: fatal: --trials is missing" ]
	run -100 --separate-stderr ftgossip run
}

@test "ftgossip: option and command errors start with 'ftgossip: fatal:', not a path" {
	run -100 --separate-stderr "$FT_ROOT/bin/ftgossip" run --bogus
	[ "${stderr_lines[0]}" = "ftgossip: fatal: unrecognized option '--bogus'" ]
	[[ ${stderr_lines[1]} == "usage: ftgossip run "* ]]
	run -100 --separate-stderr "$FT_ROOT/bin/ftgossip" frob
	[ "${stderr_lines[0]}" = "ftgossip: fatal: unknown command 'frob'" ]
}
