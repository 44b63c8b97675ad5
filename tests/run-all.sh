#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Run every test suite of ft and print one closing line
# "N passed, N failed, N skipped".  Every suite speaks TAP; a test
# binary that dies without saying "not ok" counts as one failure.
# Usage: tests/run-all.sh [SUITE ...]
#   (unit asan bats mpi mpi-r2 valgrind fuzz man)
set -u
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(unit asan bats mpi mpi-r2 valgrind fuzz man)
pass=0 fail=0 skip=0
log=build/test-log
mkdir -p "$log"

# Count TAP lines from stdin; show failures and their diagnostics.
tally() {
	local suite=$1 line shown=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*"# skip"* | "ok "*"# SKIP"*) skip=$((skip + 1)) ;;
		"ok "*) pass=$((pass + 1)) ;;
		"not ok "*)
			fail=$((fail + 1))
			echo "$suite: $line"
			shown=1
			;;
		"#"*) [ $shown -eq 1 ] && echo "$suite: $line" ;;
		*) shown=0 ;;
		esac
	done
}

# Run the test binaries of a suite, one a core at once (each makes its
# own temporary directories and takes port 0), then count their TAP
# output in order.
run_bins() {	# suite binary...
	local suite=$1 t out rc
	shift
	printf '%s\n' "$@" | xargs -r -P "$(nproc)" -I{} bash -c \
	    'out="$2/$3-$(basename "$1").tap"
	    timeout 300 "$1" >"$out" 2>&1
	    echo $? >"$out.rc"' _ {} "$log" "$suite"
	for t in "$@"; do
		out="$log/$suite-$(basename "$t").tap"
		rc=$(cat "$out.rc" 2>/dev/null || echo 127)
		rm -f "$out.rc"
		tally "$suite" <"$out"
		if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
			fail=$((fail + 1))
			echo "$suite: not ok - $(basename "$t") exited with status $rc (see $out)"
			tail -5 "$out" | sed "s/^/$suite: # /"
		fi
	done
}

# The executable files among the arguments.
executables() {
	local f
	for f in "$@"; do [ -x "$f" ] && echo "$f"; done
}

for s in "${suites[@]}"; do
	t0=$SECONDS
	case $s in
	unit)
		mapfile -t bins < <(executables build/unit/test_*)
		run_bins unit ${bins[@]+"${bins[@]}"} ;;
	asan)
		export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
		export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
		mapfile -t bins < <(executables build/asan/test_*)
		run_bins asan ${bins[@]+"${bins[@]}"} ;;
	bats)
		if ls tests/*.bats >/dev/null 2>&1; then
			# Files side by side, two a core (bats needs GNU
			# parallel for it), the tests of a file in order:
			# most of their time is spent waiting on jobs (all
			# 381 passed with four at once on 2 cores at load 28).
			par=()
			command -v parallel >/dev/null &&
			    par=(--jobs "$(($(nproc) * 2))"
			    --no-parallelize-within-files)
			bats "${par[@]}" --timing --tap tests/*.bats >"$log/bats.tap" 2>&1
			tally bats <"$log/bats.tap"
		fi ;;
	mpi)
		bash tests/mpi/run.sh >"$log/mpi.tap" 2>&1
		tally mpi <"$log/mpi.tap" ;;
	mpi-r2)
		# A subset of the MPI tests again, every rank as 2 replicas.
		FT_MPI_TESTS=tests/mpi/TESTS-r2 FT_MPI_OUT=build/mpi-r2 \
		    FTRUN_ARGS="-r 2" bash tests/mpi/run.sh \
		    >"$log/mpi-r2.tap" 2>&1
		tally mpi-r2 <"$log/mpi-r2.tap" ;;
	valgrind)
		bash tests/mpi/valgrind.sh >"$log/valgrind.tap" 2>&1
		tally valgrind <"$log/valgrind.tap"
		# The daemons, each through a short session.
		bash tests/valgrind-daemons.sh >"$log/valgrind-daemons.tap" 2>&1
		tally valgrind <"$log/valgrind-daemons.tap" ;;
	fuzz)
		# Each target is one busy process: run as many as there are
		# cores at once, then report them in order.
		fuzz_one() {
			local f=$1 corpus
			corpus="build/fuzz/corpus-$(basename "$f")"
			mkdir -p "$corpus"
			"$f" -max_total_time="${FUZZ_SECONDS:-3}" \
			    -print_final_stats=0 "$corpus" \
			    >"$log/$(basename "$f").log" 2>&1
			echo $? >"$log/$(basename "$f").rc"
		}
		export -f fuzz_one
		export log
		targets=()
		for f in build/fuzz/fuzz_*; do
			[ -x "$f" ] && targets+=("$f")
		done
		rm -f "$log"/fuzz_*.rc
		[ ${#targets[@]} -gt 0 ] && printf '%s\n' "${targets[@]}" |
		    xargs -P "$(nproc)" -I{} bash -c 'fuzz_one "$1"' _ {}
		tally fuzz < <(n=0
		for f in "${targets[@]}"; do
			n=$((n + 1))
			b=$(basename "$f")
			if [ "$(cat "$log/$b.rc" 2>/dev/null)" = 0 ]; then
				echo "ok $n - fuzz smoke $b"
			else
				echo "not ok $n - fuzz smoke $b (see $log/$b.log)"
			fi
		done) ;;
	man)
		tally man < <(n=0
		for m in man/man*/*.[0-9]; do
			[ -f "$m" ] || continue
			n=$((n + 1))
			if out=$(mandoc -Tlint -W warning "$m" 2>&1) && [ -z "$out" ]; then
				echo "ok $n - mandoc -Tlint $m"
			else
				echo "not ok $n - mandoc -Tlint $m"
				printf '%s\n' "$out" | sed 's/^/# /'
			fi
		done) ;;
	*)
		echo "run-all: unknown suite '$s'" >&2
		exit 100 ;;
	esac
	# CI's limit is on the whole run: say where the time goes.
	echo "run-all: $s took $((SECONDS - t0)) s"
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
