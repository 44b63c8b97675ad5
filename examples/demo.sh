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

# With the default protocol 'none', the loss of a rank ends the job
# cleanly, as mpirun would.
say "ftrun -n 4 sh -c 'if [ \$FT_RANK = 2 ]; then kill -9 \$\$; fi; sleep 30'"
set +e
ftrun -n 4 sh -c 'if [ $FT_RANK = 2 ]; then kill -9 $$; fi; exec sleep 30'
rc=$?
set -e
echo "ftrun exited with status $rc (128 + SIGKILL = 137 expected)"
[ $rc -eq 137 ]

# Replication survives it: every rank runs twice, the master of rank 0
# is killed mid-run, and the job prints what a run without faults prints.
say ftcc -O2 -o $out/jacobi examples/jacobi.c -lm
ftcc -O2 -o "$out/jacobi" examples/jacobi.c -lm
say ftrun -n 4 $out/jacobi 256 3000
ftrun -n 4 "$out/jacobi" 256 3000 | tee "$out/jacobi.ref"
say ftrun -n 4 -r 2 --inject kill:rank=0,role=master,at=0.3s $out/jacobi 256 3000
ftrun -n 4 -r 2 --inject kill:rank=0,role=master,at=0.3s "$out/jacobi" 256 \
    3000 | tee "$out/jacobi.r2"
cmp "$out/jacobi.ref" "$out/jacobi.r2"
echo "the replicated job lost rank 0's master and printed the same"
say ftrun -n 4 -r 2 --hang-timeout 2s --inject kill:rank=2,replica=1,after-sends=200,signal=19 $out/jacobi 256 3000
ftrun -n 4 -r 2 --hang-timeout 2s \
    --inject kill:rank=2,replica=1,after-sends=200,signal=19 "$out/jacobi" \
    256 3000 | tee "$out/jacobi.stop"
cmp "$out/jacobi.ref" "$out/jacobi.stop"
echo "a replica stopped itself (SIGSTOP); silent for 2s, it was killed, and the job printed the same"

# ULFM: the failure comes back to the application, which agrees,
# shrinks, and shares the dead rank's work among the survivors.
say ftcc -O2 -o $out/ulfm_pi examples/ulfm_pi.c -lm
ftcc -O2 -o "$out/ulfm_pi" examples/ulfm_pi.c -lm
say ftrun --ft ulfm -n 4 $out/ulfm_pi
ftrun --ft ulfm -n 4 "$out/ulfm_pi" | tee "$out/ulfm.ref"
say "ftrun --ft ulfm -n 4 $out/ulfm_pi 10000000 2    (rank 2 dies by SIGKILL)"
ftrun --ft ulfm -n 4 "$out/ulfm_pi" 10000000 2 | tee "$out/ulfm.fault"
cmp "$out/ulfm.ref" "$out/ulfm.fault"
echo "rank 2 died; the three survivors shrank and printed the same pi"

# FT-MPI's modes: the master-worker program of the FT-MPI paper.  Worker 2
# dies at its 5th task and its new process at its 2nd; MPI_Comm_dup of
# MPI_COMM_WORLD rebuilds the world with a new process in its place.
say ftcc -O2 -o $out/ftmpi_farm examples/ftmpi_farm.c
ftcc -O2 -o "$out/ftmpi_farm" examples/ftmpi_farm.c
say ftrun -n 6 $out/ftmpi_farm 300
ftrun -n 6 "$out/ftmpi_farm" 300 | tee "$out/farm.ref"
say ftrun -n 6 --ft ftmpi --comm-mode rebuild --msg-mode nop --inject kill:rank=2,after-sends=5 --inject kill:rank=2,after-sends=2 $out/ftmpi_farm 300
ftrun -n 6 --ft ftmpi --comm-mode rebuild --msg-mode nop \
    --inject kill:rank=2,after-sends=5 --inject kill:rank=2,after-sends=2 \
    "$out/ftmpi_farm" 300 | tee "$out/farm.rebuild"
cmp "$out/farm.ref" "$out/farm.rebuild"
echo "worker 2 died twice; each time a new process took its place, and the farm printed the same"

# Checkpoints: a Jacobi that protects its grid with ft.h is killed
# after its checkpoint of iteration 90, and --restart goes on from it.
ck=$(mktemp -d)
say ftcc -O2 -o $out/ckjacobi tests/progs/ckjacobi.c
ftcc -O2 -o "$out/ckjacobi" tests/progs/ckjacobi.c
say ftrun -n 4 $out/ckjacobi 64 150
ftrun -n 4 "$out/ckjacobi" 64 150 | tail -n 1 | tee "$out/ck.ref"
say "ftrun -n 4 --ckpt-dir DIR -x FT_TEST_DIE_AT=90 $out/ckjacobi 64 150    (rank 3 dies after iteration 90)"
set +e
ftrun -n 4 --ckpt-dir "$ck" -x FT_TEST_DIE_AT=90 "$out/ckjacobi" 64 150 \
    >/dev/null 2>&1
set -e
say ftckpt ls DIR
ftckpt ls "$ck" | tail -n 4
say ftrun -n 4 --ckpt-dir DIR --restart $out/ckjacobi 64 150
ftrun -n 4 --ckpt-dir "$ck" --restart "$out/ckjacobi" 64 150 |
    tee "$out/ck.restart"
tail -n 1 "$out/ck.restart" | cmp - "$out/ck.ref"
rm -rf "$ck"
echo "restarted from its images, the job ended with the checksum of a run that was never killed"

# The gossip failure detector survives what the job above did not: six
# members, one killed, the five others agree on a view without it.
g=$(mktemp -d /tmp/ftdemo.XXXXXX)
(umask 077 && head -c 32 /dev/urandom >"$g/key")
for i in 0 1 2 3 4 5; do echo "$i unix:$g/$i.sock"; done >"$g/members"
say "ftgossip run --self I --members members --key-file key --period 50ms  (I = 0 .. 5)"
pids=()
for i in 0 1 2 3 4 5; do
	ftgossip run --self "$i" --members "$g/members" --key-file "$g/key" \
	    --period 50ms </dev/null >"$g/ev.$i" 2>&1 &
	pids+=($!)
done
sleep 1
say "kill -9 <member 3>"
kill -9 "${pids[3]}"
wait "${pids[3]}" 2>/dev/null || true
agreed=
for _ in $(seq 100); do
	sleep 0.1
	views=$(for i in 0 1 2 4 5; do grep ' event=view ' "$g/ev.$i" |
	    tail -n 1 | sed 's/^t=[0-9.]* self=[0-9]* //'; done | sort -u)
	if [ "$views" = "event=view epoch=1 root=0 n=5 members=0,1,2,4,5" ]; then
		agreed=1
		break
	fi
done
grep -h -e ' event=failed ' -e ' event=stable ' "$g"/ev.* | sort
kill "${pids[@]}" 2>/dev/null || true
wait 2>/dev/null || true
rm -rf "$g"
[ -n "$agreed" ]
echo "the five survivors agree: view epoch 1, members 0,1,2,4,5"
echo
echo "demo: all jobs ran as expected"
