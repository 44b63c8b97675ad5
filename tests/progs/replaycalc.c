/* SPDX-License-Identifier: ISC */
/*
 * replaycalc: a program whose output depends on what it receives and on
 * every kind of nondeterministic outcome, for ftreplay run (issue 16).
 * Each round: every rank sends rank 0 a value, which takes them by
 * MPI_ANY_SOURCE and folds the order they came in; every rank sends
 * its right neighbour a message and polls MPI_Iprobe for its left
 * neighbour's, folding how many polls it took; two receives finish by
 * MPI_Waitany, whose index is folded; an MPI_Allreduce; a large message
 * (by rendezvous) around the ring; and MPI_Wtime's microseconds are
 * folded.  Each rank prints one line at the end: the
 * same line under ftreplay run only if all of it is replayed.  Usage:
 * replaycalc [ROUNDS [CHANGE]]: with CHANGE, the value each rank sends
 * rank 0 in round CHANGE is one more (a program changed).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BIG	(100 * 1024)

static unsigned long long
fold(unsigned long long h, unsigned long long v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

int
main(int argc, char *argv[])
{
	int rank, size, rounds = 20, change = -1, r, k, flag, idx;
	unsigned long long acc = 1, sum;
	long v, polls = 0, a, b, out;
	MPI_Request rq[2], sr;
	MPI_Status st;
	static unsigned char bout[BIG], bin[BIG];
	size_t i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		rounds = (int)strtol(argv[1], NULL, 10);
	if (argc > 2)
		change = (int)strtol(argv[2], NULL, 10);
	for (r = 0; r < rounds; r++) {
		if (rank != 0) {
			v = rank * 100L + r + (long)(acc % 7) + (r == change);
			MPI_Send(&v, 1, MPI_LONG, 0, r, MPI_COMM_WORLD);
		} else
			for (k = 1; k < size; k++) {
				MPI_Recv(&v, 1, MPI_LONG, MPI_ANY_SOURCE, r,
				    MPI_COMM_WORLD, &st);
				acc = fold(acc, (unsigned long long)
				    (st.MPI_SOURCE * 1000L + v));
			}
		out = (long)(acc % 1000) + r;
		MPI_Isend(&out, 1, MPI_LONG, (rank + 1) % size, 1000 + r,
		    MPI_COMM_WORLD, &sr);
		do {
			MPI_Iprobe((rank + size - 1) % size, 1000 + r,
			    MPI_COMM_WORLD, &flag, &st);
			polls++;
		} while (!flag);
		MPI_Recv(&v, 1, MPI_LONG, st.MPI_SOURCE, 1000 + r,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
		acc = fold(acc, (unsigned long long)v);
		MPI_Irecv(&a, 1, MPI_LONG, (rank + size - 1) % size, 2000 + r,
		    MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(&b, 1, MPI_LONG, (rank + 1) % size, 3000 + r,
		    MPI_COMM_WORLD, &rq[1]);
		v = rank;
		MPI_Send(&v, 1, MPI_LONG, (rank + 1) % size, 2000 + r,
		    MPI_COMM_WORLD);
		MPI_Send(&v, 1, MPI_LONG, (rank + size - 1) % size, 3000 + r,
		    MPI_COMM_WORLD);
		MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
		acc = fold(acc, (unsigned long long)idx);
		MPI_Wait(&rq[1 - idx], MPI_STATUS_IGNORE);
		MPI_Allreduce(&acc, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
		    MPI_COMM_WORLD);
		acc = fold(acc, sum);
		for (i = 0; i < BIG; i++)
			bout[i] = (unsigned char)(acc >> (i % 64));
		MPI_Sendrecv(bout, BIG, MPI_BYTE, (rank + 1) % size, 4000 + r,
		    bin, BIG, MPI_BYTE, (rank + size - 1) % size, 4000 + r,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < BIG; i += 4096)
			acc = fold(acc, bin[i]);
		acc = fold(acc, (unsigned long long)(MPI_Wtime() * 1e6));
	}
	printf("rank %d: acc=%llu polls=%ld\n", rank, acc, polls);
	MPI_Finalize();
	return 0;
}
