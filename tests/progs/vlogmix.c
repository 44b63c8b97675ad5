/* SPDX-License-Identifier: ISC */
/*
 * vlogmix: a program whose run depends on every kind of nondeterministic
 * outcome (ANY_SOURCE, Iprobe, Test, Waitany, Wtime) and on collectives,
 * and checks that a restarted rank replays them exactly.
 *
 * Each rank folds the outcomes it sees into a chain L (a hash).  Each
 * round it sends rank 0 its chain before and after the round; rank 0
 * checks that "before" is the "after" it got the round before.  A rank
 * that replayed an outcome differently after a restart would send a
 * "before" that rank 0 never saw (its first sends of those rounds were
 * not sent again), and rank 0 says so.  Rank 0's own chain is
 * broadcast every round and folded by everyone into G; at the end
 * every G must be equal.  Each round also passes a large message (by
 * rendezvous, BIG bytes made from the chain) around the ring.  What rank 0 prints depends on nothing
 * nondeterministic: the output of a run with failures must be the
 * output of a run without.  Usage: vlogmix [ROUNDS [GATE]]: with GATE,
 * rank 0 waits halfway, outside MPI, until the file GATE exists (a test
 * does something to the job there).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BIG	(160 * 1024)

static unsigned long long
fold(unsigned long long h, unsigned long long v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

int
main(int argc, char *argv[])
{
	int rank, size, rounds = 50, r, k, idx, flag, bad = 0;
	unsigned long long L = 1, G = 1, pair[2], *pairs = NULL, *prev = NULL;
	unsigned long long gmin, gmax;
	long v, sum, polls, tests;
	MPI_Request *reqs = NULL, rq, big[2];
	static unsigned char bout[BIG], bin[BIG];
	size_t b;
	MPI_Status st;
	long *vals = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		rounds = (int)strtol(argv[1], NULL, 10);
	if (rank == 0) {
		pairs = calloc(2 * (size_t)size, sizeof(*pairs));
		prev = calloc((size_t)size, sizeof(*prev));
		reqs = calloc((size_t)size, sizeof(*reqs));
		vals = calloc((size_t)size, sizeof(*vals));
		if (pairs == NULL || prev == NULL || reqs == NULL ||
		    vals == NULL)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (k = 0; k < size; k++)
			prev[k] = 1;
	}
	for (r = 0; r < rounds; r++) {
		while (rank == 0 && argc > 2 && r == rounds / 2 &&
		    access(argv[2], F_OK) != 0)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		pair[0] = L;
		/* ANY_SOURCE: rank 0 takes one value from each other rank. */
		sum = 0;
		if (rank == 0) {
			for (k = 1; k < size; k++) {
				MPI_Recv(&v, 1, MPI_LONG, MPI_ANY_SOURCE, r,
				    MPI_COMM_WORLD, &st);
				L = fold(L, (unsigned long long)st.MPI_SOURCE);
				sum += v;
			}
		} else {
			v = rank * 1000L + r;
			MPI_Send(&v, 1, MPI_LONG, 0, r, MPI_COMM_WORLD);
		}
		/* Waitany: the order the answers come in. */
		if (rank == 0) {
			for (k = 1; k < size; k++)
				MPI_Irecv(&vals[k], 1, MPI_LONG, k, 100000 + r,
				    MPI_COMM_WORLD, &reqs[k]);
			for (k = 1; k < size; k++) {
				MPI_Waitany(size - 1, reqs + 1, &idx, &st);
				L = fold(L, (unsigned long long)idx);
				sum += vals[idx + 1];
			}
		} else {
			v = rank + r;
			MPI_Send(&v, 1, MPI_LONG, 0, 100000 + r,
			    MPI_COMM_WORLD);
		}
		/* Iprobe: how many polls until rank 1's message is here. */
		if (size > 2 && rank == 1) {
			v = r;
			MPI_Send(&v, 1, MPI_LONG, 2, 200000 + r,
			    MPI_COMM_WORLD);
		} else if (size > 2 && rank == 2) {
			polls = 0;
			do {
				MPI_Iprobe(1, 200000 + r, MPI_COMM_WORLD, &flag,
				    &st);
				polls++;
			} while (!flag);
			MPI_Recv(&v, 1, MPI_LONG, 1, 200000 + r,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			L = fold(L, (unsigned long long)polls);
		}
		/* Test: how many tests until rank 0's message is here. */
		if (rank != 0) {
			MPI_Irecv(&v, 1, MPI_LONG, 0, 300000 + r,
			    MPI_COMM_WORLD, &rq);
			tests = 0;
			do {
				MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
				tests++;
			} while (!flag);
			L = fold(L, (unsigned long long)tests);
		} else
			for (k = 1; k < size; k++) {
				v = r;
				MPI_Send(&v, 1, MPI_LONG, k, 300000 + r,
				    MPI_COMM_WORLD);
			}
		/* A large message around the ring, made from the chain. */
		for (b = 0; b < BIG; b++)
			bout[b] = (unsigned char)((L >> (8 * (b % 8))) + b);
		MPI_Irecv(bin, BIG, MPI_BYTE, (rank + size - 1) % size,
		    400000 + r, MPI_COMM_WORLD, &big[0]);
		MPI_Isend(bout, BIG, MPI_BYTE, (rank + 1) % size, 400000 + r,
		    MPI_COMM_WORLD, &big[1]);
		MPI_Waitall(2, big, MPI_STATUSES_IGNORE);
		for (b = 0; b < BIG; b += 4096)
			L = fold(L, bin[b] + (unsigned long long)bin[BIG - 1]);
		/* Wtime: a bit of the clock. */
		L = fold(L, (unsigned long long)(MPI_Wtime() * 1e9) & 1);
		/* Collectives: everyone's chain to rank 0, rank 0's to all. */
		pair[1] = L;
		MPI_Gather(pair, 2, MPI_UNSIGNED_LONG_LONG, pairs, 2,
		    MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
		if (rank == 0)
			for (k = 0; k < size; k++) {
				if (pairs[2 * k] != prev[k] && !bad) {
					printf("vlogmix: rank %d replayed round "
					    "%d differently\n", k, r);
					bad = 1;
				}
				prev[k] = pairs[2 * k + 1];
			}
		pair[0] = L;
		MPI_Bcast(pair, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
		G = fold(G, pair[0]);
		MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM,
		    MPI_COMM_WORLD);
		if (rank == 0 && r % 10 == 0)
			printf("round %d sum %ld\n", r, sum);
	}
	MPI_Allreduce(&G, &gmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN,
	    MPI_COMM_WORLD);
	MPI_Allreduce(&G, &gmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
	    MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		if (gmin != gmax) {
			printf("vlogmix: the ranks saw different chains\n");
			bad = 1;
		}
		printf("vlogmix: %d ranks, %d rounds, %s\n", size, rounds,
		    bad ? "INCONSISTENT" : "consistent");
	}
	MPI_Finalize();
	return bad;
}
