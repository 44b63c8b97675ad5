/* SPDX-License-Identifier: ISC */
/*
 * coll_comms: collectives on communicators other than MPI_COMM_WORLD:
 * the halves of an MPI_Comm_split by parity, ordered by a reversing key
 * (so communicator ranks differ from world ranks), at the same time on
 * both halves; a duplicate of MPI_COMM_WORLD interleaved with it; and
 * MPI_COMM_SELF.  Results are checked against world ranks.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_comms"
#define TAG_ERRS	32000

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

int
main(int argc, char *argv[])
{
	MPI_Comm	 half, dup;
	int		 hr, hn, i, x, y, *all, *w, want, big[3000];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, nprocs - myrank, &half);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hn);

	/* The world ranks of the half, in its order (reversed). */
	w = xmalloc((size_t)hn * sizeof(int));
	MPI_Allgather(&myrank, 1, MPI_INT, w, 1, MPI_INT, half);
	for (i = 0; i < hn; i++) {
		want = (nprocs - 1 - (nprocs - 1 - myrank % 2) % 2) - 2 * i;
		if (w[i] != want) {
			fail("half rank %d is world rank %d, expected %d", i,
			    w[i], want);
			break;
		}
	}

	/* Sums on the half and on the duplicate, interleaved. */
	x = myrank;
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
	for (i = 0, want = 0; i < hn; i++)
		want += w[i];
	if (y != want)
		fail("allreduce on the half gave %d, expected %d", y, want);
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup);
	if (y != nprocs * (nprocs - 1) / 2)
		fail("allreduce on the duplicate gave %d", y);

	/* A long broadcast from the half's last rank. */
	for (i = 0; i < 3000; i++)
		big[i] = hr == hn - 1 ? w[hn - 1] * 7 + i : -1;
	MPI_Bcast(big, 3000, MPI_INT, hn - 1, half);
	for (i = 0; i < 3000; i++)
		if (big[i] != w[hn - 1] * 7 + i) {
			fail("bcast on the half: element %d is %d", i, big[i]);
			break;
		}

	/* Alltoall on the half: send my world rank times 100 plus j. */
	all = xmalloc((size_t)hn * 2 * sizeof(int));
	for (i = 0; i < hn; i++)
		all[i] = myrank * 100 + i;
	MPI_Alltoall(all, 1, MPI_INT, all + hn, 1, MPI_INT, half);
	for (i = 0; i < hn; i++)
		if (all[hn + i] != w[i] * 100 + hr)
			fail("alltoall on the half: from %d got %d", i,
			    all[hn + i]);

	/* Scan on the half follows the half's order. */
	MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, half);
	for (i = 0, want = 0; i <= hr; i++)
		want += w[i];
	if (y != want)
		fail("scan on the half gave %d, expected %d", y, want);

	/* Nonblocking on both at once. */
	{
		MPI_Request r[2];
		int a, b;

		MPI_Iallreduce(&x, &a, 1, MPI_INT, MPI_MAX, half, &r[0]);
		MPI_Iallreduce(&x, &b, 1, MPI_INT, MPI_MIN, dup, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		if (a != w[0] || b != 0)
			fail("iallreduce on two communicators: %d %d", a, b);
	}

	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
	if (y != myrank)
		fail("allreduce on MPI_COMM_SELF gave %d", y);
	MPI_Gather(&x, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_SELF);
	if (y != myrank)
		fail("gather on MPI_COMM_SELF gave %d", y);

	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	free(w);
	free(all);
	return finish();
}
