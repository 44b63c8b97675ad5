#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Build every self-checking MPI test listed in tests/mpi/TESTS with ftcc,
# run it with ftrun at each rank count listed, and print TAP: a test
# passes when the job exits 0 and rank 0 printed "No Errors".
# A line "<name> <np> ... -- <options>" gives ftrun more options for
# that test (e.g. --universe-size for the tests that spawn).
# Usage: tests/mpi/run.sh [NAME ...]
# Environment:
#   FT_MPI_TESTS	the list to run instead of tests/mpi/TESTS (same
#			format), e.g. tests/mpi/TESTS-r2
#   FT_MPI_OUT		where programs and logs go instead of build/mpi;
#			give each list its own, so that two runs side by
#			side do not share files
#   FTRUN_ARGS		more ftrun options, e.g. "-r 2"; they appear in
#			the name of every test
set -u
cd "$(dirname "$0")/../.."
export PATH="$PWD/bin:$PATH"
list=${FT_MPI_TESTS:-tests/mpi/TESTS}
out=${FT_MPI_OUT:-build/mpi}
args=${FTRUN_ARGS:-}
if [ ! -r "$list" ]; then
	echo "run.sh: unable to read the list '$list'" >&2
	exit 100
fi
mkdir -p "$out"
n=0
want=("$@")

selected() {
	[ ${#want[@]} -eq 0 ] && return 0
	local w
	for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

while read -r name nps; do
	case "$name" in "" | "#"*) continue ;; esac
	# "<name> <np> ... -- <ftrun options>": options for this test only.
	targs=
	case "$nps" in *" -- "*) targs=${nps#* -- }; nps=${nps%% -- *} ;; esac
	selected "$name" || continue
	if ! ftcc -O1 -g -Wall -Werror -o "$out/$name" "tests/mpi/$name.c" \
	    >"$out/$name.build" 2>&1; then
		n=$((n + 1))
		echo "not ok $n - $name: does not compile"
		sed 's/^/# /' "$out/$name.build"
		continue
	fi
	for np in $nps; do
		n=$((n + 1))
		log="$out/$name.$np.log"
		# shellcheck disable=SC2086
		timeout 180 ftrun -n "$np" $args $targs --timeout 120 "$out/$name" \
		    </dev/null >"$log" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && grep -qx ' *No Errors' "$log"; then
			echo "ok $n - $name -n $np${args:+ $args}"
		else
			echo "not ok $n - $name -n $np${args:+ $args} (exit $rc)"
			tail -15 "$log" | sed 's/^/# /'
		fi
	done
done <"$list"
echo "1..$n"
