#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Build every self-checking MPI test listed in tests/mpi/TESTS with ftcc,
# run it with ftrun at each rank count listed, and print TAP: a test
# passes when the job exits 0 and rank 0 printed "No Errors".
# Usage: tests/mpi/run.sh [NAME ...]
set -u
cd "$(dirname "$0")/../.."
export PATH="$PWD/bin:$PATH"
out=build/mpi
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
		timeout 180 ftrun -n "$np" ${FTRUN_ARGS:-} --timeout 120 "$out/$name" \
		    </dev/null >"$log" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && grep -qx ' *No Errors' "$log"; then
			echo "ok $n - $name -n $np"
		else
			echo "not ok $n - $name -n $np (exit $rc)"
			tail -15 "$log" | sed 's/^/# /'
		fi
	done
done <tests/mpi/TESTS
echo "1..$n"
