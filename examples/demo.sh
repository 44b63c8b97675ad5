#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# make demo: build the examples with ftcc and run real jobs with ftrun.
set -eu
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
out=build/examples
mkdir -p "$out"
say() { printf '\n$ %s\n' "$*"; }

say ftcc -O2 -o $out/ring examples/ring.c
ftcc -O2 -o "$out/ring" examples/ring.c
say ftcc -O2 -o $out/pi examples/pi.c -lm
ftcc -O2 -o "$out/pi" examples/pi.c -lm

say ftrun -n 8 $out/ring 1000
ftrun -n 8 "$out/ring" 1000
say ftrun -n 4 --tag-output $out/pi
ftrun -n 4 --tag-output "$out/pi"
say ftrun -n 4 --tag-output hostname
ftrun -n 4 --tag-output hostname

# No fault-tolerance protocol exists yet: with the default protocol
# 'none', the loss of a rank ends the job cleanly, as mpirun would.
say "ftrun -n 4 sh -c 'if [ \$FT_RANK = 2 ]; then kill -9 \$\$; fi; sleep 30'"
set +e
ftrun -n 4 sh -c 'if [ $FT_RANK = 2 ]; then kill -9 $$; fi; exec sleep 30'
rc=$?
set -e
echo "ftrun exited with status $rc (128 + SIGKILL = 137 expected)"
[ $rc -eq 137 ]
echo
echo "demo: all jobs ran as expected"
