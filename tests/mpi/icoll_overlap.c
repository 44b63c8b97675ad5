/* SPDX-License-Identifier: ISC */
/*
 * icoll_overlap: nonblocking collectives in flight together.  Twenty
 * on one communicator completed newest first; two communicators whose
 * collectives different ranks start in different orders (allowed: only
 * the order on each communicator must agree) and wait for in opposite
 * orders, which deadlocks unless waiting on one drives the others;
 * a blocking collective on one communicator while a peer waits on a
 * nonblocking one on another; a blocking collective on the same
 * communicator as pending nonblocking ones; MPI_Waitany and
 * MPI_Testall over collectives and point-to-point requests together;
 * and a user operation and a derived datatype freed while the
 * collective that uses them is still pending.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"icoll_overlap"
#define TAG_ERRS	32000
#define NREQ		20

static int	errs;
static int	myrank, nprocs;

static void
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 20)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
finish(void)
{
	int	i, e, total = errs;

	if (myrank == 0) {
		for (i = 1; i < nprocs; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, TAG_ERRS, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			total += e;
		}
		if (total == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, TAG_ERRS, MPI_COMM_WORLD);
	MPI_Finalize();
	return total != 0;
}

static void *xmalloc(size_t) __attribute__((unused));

static void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = calloc(1, n > 0 ? n : 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static void
addop(void *in, void *inout, int *len, MPI_Datatype *type)
{
	int *a = in, *b = inout, i;

	(void)type;
	for (i = 0; i < *len; i++)
		b[i] += a[i];
}

int
main(int argc, char *argv[])
{
	MPI_Request	 reqs[NREQ], two[2], mix[3];
	MPI_Comm	 ca, cb;
	MPI_Datatype	 vec;
	MPI_Op		 op;
	int		 x[NREQ], y[NREQ], i, a, b, idx, flag, big[64], p2p;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_dup(MPI_COMM_WORLD, &ca);
	MPI_Comm_dup(MPI_COMM_WORLD, &cb);

	/* Twenty in flight on one communicator, completed newest first. */
	for (i = 0; i < NREQ; i++) {
		x[i] = myrank + i;
		y[i] = -1;
		if (i % 3 == 2) {
			y[i] = myrank == i % nprocs ? 1000 + i : 0;
			MPI_Ibcast(&y[i], 1, MPI_INT, i % nprocs, ca,
			    &reqs[i]);
		} else
			MPI_Iallreduce(&x[i], &y[i], 1, MPI_INT,
			    i % 3 ? MPI_MAX : MPI_SUM, ca, &reqs[i]);
	}
	for (i = NREQ - 1; i >= 0; i--)
		MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
	for (i = 0; i < NREQ; i++) {
		int want = i % 3 == 2 ? 1000 + i : i % 3 ?
		    nprocs - 1 + i : nprocs * (nprocs - 1) / 2 + nprocs * i;

		if (y[i] != want)
			fail("stream: collective %d gave %d, expected %d", i,
			    y[i], want);
	}

	/*
	 * Two communicators, started in different orders by even and odd
	 * ranks, waited for in opposite orders.
	 */
	a = b = -1;
	x[0] = myrank;
	x[1] = 2 * myrank;
	if (myrank % 2 == 0) {
		MPI_Iallreduce(&x[0], &a, 1, MPI_INT, MPI_SUM, ca, &two[0]);
		MPI_Iallreduce(&x[1], &b, 1, MPI_INT, MPI_SUM, cb, &two[1]);
		MPI_Wait(&two[1], MPI_STATUS_IGNORE);
		MPI_Wait(&two[0], MPI_STATUS_IGNORE);
	} else {
		MPI_Iallreduce(&x[1], &b, 1, MPI_INT, MPI_SUM, cb, &two[1]);
		MPI_Iallreduce(&x[0], &a, 1, MPI_INT, MPI_SUM, ca, &two[0]);
		MPI_Wait(&two[0], MPI_STATUS_IGNORE);
		MPI_Wait(&two[1], MPI_STATUS_IGNORE);
	}
	if (a != nprocs * (nprocs - 1) / 2 || b != nprocs * (nprocs - 1))
		fail("two communicators: %d and %d", a, b);

	/*
	 * Rank 0 waits for an Ibarrier on ca before a Barrier on cb; the
	 * others are in that Barrier first, and must drive the Ibarrier.
	 */
	MPI_Ibarrier(ca, &two[0]);
	if (myrank == 0) {
		MPI_Wait(&two[0], MPI_STATUS_IGNORE);
		MPI_Barrier(cb);
	} else {
		MPI_Barrier(cb);
		MPI_Wait(&two[0], MPI_STATUS_IGNORE);
	}

	/* A blocking collective behind pending ones on the same comm. */
	x[0] = myrank;
	MPI_Iallreduce(&x[0], &a, 1, MPI_INT, MPI_SUM, ca, &two[0]);
	b = myrank == 0 ? 5 : 0;
	MPI_Ibcast(&b, 1, MPI_INT, 0, ca, &two[1]);
	MPI_Allreduce(&x[0], &y[0], 1, MPI_INT, MPI_MAX, ca);
	MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
	if (a != nprocs * (nprocs - 1) / 2 || b != 5 || y[0] != nprocs - 1)
		fail("behind a blocking one: %d %d %d", a, b, y[0]);

	/* Waitany and Testall over a mix with point-to-point. */
	x[0] = myrank;
	MPI_Iallreduce(&x[0], &a, 1, MPI_INT, MPI_SUM, ca, &mix[0]);
	MPI_Irecv(&p2p, 1, MPI_INT, (myrank + nprocs - 1) % nprocs, 9,
	    MPI_COMM_WORLD, &mix[1]);
	MPI_Isend(&x[0], 1, MPI_INT, (myrank + 1) % nprocs, 9,
	    MPI_COMM_WORLD, &mix[2]);
	for (i = 0; i < 3; i++) {
		MPI_Waitany(3, mix, &idx, MPI_STATUS_IGNORE);
		if (idx == MPI_UNDEFINED)
			fail("waitany: no request left at step %d", i);
	}
	MPI_Waitany(3, mix, &idx, MPI_STATUS_IGNORE);
	if (idx != MPI_UNDEFINED)
		fail("waitany: index %d with every request done", idx);
	if (a != nprocs * (nprocs - 1) / 2 ||
	    p2p != (myrank + nprocs - 1) % nprocs)
		fail("waitany mix: %d %d", a, p2p);
	MPI_Ibarrier(cb, &mix[0]);
	MPI_Ibarrier(ca, &mix[1]);
	mix[2] = MPI_REQUEST_NULL;
	flag = 0;
	while (!flag)
		MPI_Testall(3, mix, &flag, MPI_STATUSES_IGNORE);

	/* Free the op and the datatype while they are in use. */
	MPI_Op_create(addop, 1, &op);
	MPI_Type_vector(8, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (i = 0; i < 64; i++)
		big[i] = myrank == nprocs - 1 ? i : -1;
	x[0] = 1;
	MPI_Iallreduce(&x[0], &a, 1, MPI_INT, op, ca, &two[0]);
	MPI_Ibcast(big, 2, vec, nprocs - 1, cb, &two[1]);
	MPI_Op_free(&op);
	MPI_Type_free(&vec);
	MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
	if (a != nprocs)
		fail("freed op: sum is %d", a);
	/* Element 0 is ints 0, 2, ... 14; element 1 (extent 15) 15 ... 29. */
	for (i = 0; i < 32; i++)
		if (big[i] != ((i < 15 && i % 2 == 0) ||
		    (i >= 15 && i < 30 && i % 2 == 1) ||
		    myrank == nprocs - 1 ? i : -1)) {
			fail("freed type: int %d is %d", i, big[i]);
			break;
		}

	MPI_Comm_free(&ca);
	MPI_Comm_free(&cb);
	return finish();
}
