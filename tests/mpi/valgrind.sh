#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Run the MPI tests listed in tests/mpi/VALGRIND with every rank under
# valgrind memcheck, and print TAP: a test passes when the job exits 0,
# rank 0 printed "No Errors", and memcheck reported nothing (any report
# makes that rank exit 99).  Skips, saying so, when valgrind is missing.
set -u
cd "$(dirname "$0")/../.."
export PATH="$PWD/bin:$PATH"
out=build/mpi-valgrind
mkdir -p "$out"
n=0
while read -r name np; do
	case "$name" in "" | "#"*) continue ;; esac
	n=$((n + 1))
	if ! command -v valgrind >/dev/null; then
		echo "ok $n - $name -n $np under valgrind # SKIP valgrind is not installed"
		continue
	fi
	if ! ftcc -O1 -g -Wall -Werror -o "$out/$name" "tests/mpi/$name.c" \
	    >"$out/$name.build" 2>&1; then
		echo "not ok $n - $name: does not compile"
		sed 's/^/# /' "$out/$name.build"
		continue
	fi
	log="$out/$name.$np.log"
	timeout 600 ftrun -n "$np" --timeout 500 valgrind -q \
	    --error-exitcode=99 --leak-check=no "$out/$name" \
	    </dev/null >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -qx ' *No Errors' "$log" &&
	    ! grep -q '^==[0-9]*==' "$log"; then
		echo "ok $n - $name -n $np under valgrind"
	else
		echo "not ok $n - $name -n $np under valgrind (exit $rc)"
		grep -m 40 -e '^==[0-9]*==' -e 'Errors' "$log" | sed 's/^/# /'
	fi
done <tests/mpi/VALGRIND
echo "1..$n"
