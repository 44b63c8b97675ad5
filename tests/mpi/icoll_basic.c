/* SPDX-License-Identifier: ISC */
/*
 * icoll_basic: every nonblocking collective gives what its blocking
 * twin gives: MPI_Ibarrier, MPI_Ibcast (short and long), MPI_Ireduce,
 * MPI_Iallreduce (short and 1 MiB), MPI_Igather(v), MPI_Iscatter(v),
 * MPI_Iallgather(v), MPI_Ialltoall(v,w), MPI_Ireduce_scatter(_block),
 * MPI_Iscan and MPI_Iexscan, with MPI_IN_PLACE where allowed, completed
 * by MPI_Wait, by polling MPI_Test, or all at once by MPI_Waitall.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"icoll_basic"
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

static int	how;	/* 0: MPI_Wait, 1: MPI_Test loop */

static void
complete(MPI_Request *req, const char *what)
{
	int flag = 0, n = 0;

	if (how == 0) {
		MPI_Wait(req, MPI_STATUS_IGNORE);
	} else {
		while (!flag) {
			MPI_Test(req, &flag, MPI_STATUS_IGNORE);
			n++;
		}
	}
	if (*req != MPI_REQUEST_NULL)
		fail("%s: the request is not MPI_REQUEST_NULL after "
		    "completion", what);
}

static int
v(int r, int i)
{
	return (r * 31 + i * 7) % 1000 - 300;
}

static void
check_ints(const int *got, const int *want, int n, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i]) {
			fail("%s: element %d is %d, expected %d", what, i,
			    got[i], want[i]);
			return;
		}
}

static void
one_round(void)
{
	MPI_Request	 req;
	int		 n = nprocs, r = myrank, i, j, k, root;
	int		*a, *b, *c, *counts, *displs, *sc, *sd, len;
	MPI_Datatype	*types;

	len = 300000;	/* ints: more than 1 MiB */
	a = xmalloc((size_t)len * sizeof(int));
	b = xmalloc((size_t)len * sizeof(int));
	c = xmalloc((size_t)len * sizeof(int));
	counts = xmalloc((size_t)n * sizeof(int));
	displs = xmalloc((size_t)n * sizeof(int));
	sc = xmalloc((size_t)n * sizeof(int));
	sd = xmalloc((size_t)n * sizeof(int));
	types = xmalloc((size_t)n * sizeof(MPI_Datatype));

	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	complete(&req, "ibarrier");

	/* Ibcast, short and long, from the last rank. */
	for (k = 0; k < 2; k++) {
		int cnt = k ? 270000 : 10;

		root = n - 1;
		for (i = 0; i < cnt; i++)
			a[i] = r == root ? v(root, i) : 0;
		MPI_Ibcast(a, cnt, MPI_INT, root, MPI_COMM_WORLD, &req);
		complete(&req, "ibcast");
		for (i = 0; i < cnt; i++)
			b[i] = v(root, i);
		check_ints(a, b, cnt, k ? "ibcast long" : "ibcast");
	}

	/* Ireduce and Iallreduce against the blocking ones. */
	for (k = 0; k < 3; k++) {
		int cnt = k == 0 ? 1 : k == 1 ? 1000 : 262144;

		for (i = 0; i < cnt; i++)
			a[i] = v(r, i);
		MPI_Allreduce(a, c, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Iallreduce(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
		    &req);
		complete(&req, "iallreduce");
		check_ints(b, c, cnt, "iallreduce");
		MPI_Iallreduce(MPI_IN_PLACE, a, cnt, MPI_INT, MPI_SUM,
		    MPI_COMM_WORLD, &req);
		complete(&req, "iallreduce in place");
		check_ints(a, c, cnt, "iallreduce in place");
		for (i = 0; i < cnt; i++)
			a[i] = v(r, i);
		root = k % n;
		memset(b, 0, (size_t)cnt * sizeof(int));
		MPI_Ireduce(a, b, cnt, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD,
		    &req);
		complete(&req, "ireduce");
		if (r == root)
			check_ints(b, c, cnt, "ireduce");
	}

	/* Igather and Igatherv. */
	for (i = 0; i < 3; i++)
		a[i] = v(r, i);
	root = n / 2;
	MPI_Igather(a, 3, MPI_INT, b, 3, MPI_INT, root, MPI_COMM_WORLD, &req);
	complete(&req, "igather");
	if (r == root)
		for (j = 0; j < n; j++)
			for (i = 0; i < 3; i++)
				if (b[j * 3 + i] != v(j, i)) {
					fail("igather: rank %d element %d", j,
					    i);
					j = n;
					break;
				}
	for (j = 0, k = 0; j < n; j++) {
		counts[j] = j % 3;
		displs[j] = k;
		k += counts[j] + 1;
	}
	MPI_Igatherv(a, counts[r], MPI_INT, b, counts, displs, MPI_INT, root,
	    MPI_COMM_WORLD, &req);
	complete(&req, "igatherv");
	if (r == root)
		for (j = 0; j < n; j++)
			for (i = 0; i < counts[j]; i++)
				if (b[displs[j] + i] != v(j, i))
					fail("igatherv: rank %d element %d",
					    j, i);

	/* Iscatter and Iscatterv, in place at the root. */
	for (j = 0; j < n; j++)
		for (i = 0; i < 3; i++)
			a[j * 3 + i] = v(j, i);
	memset(b, 0, 3 * sizeof(int));
	MPI_Iscatter(a, 3, MPI_INT, r == root ? MPI_IN_PLACE : b, 3, MPI_INT,
	    root, MPI_COMM_WORLD, &req);
	complete(&req, "iscatter");
	if (r != root)
		for (i = 0; i < 3; i++)
			if (b[i] != v(r, i))
				fail("iscatter: element %d is %d", i, b[i]);
	for (j = 0; j < n; j++)
		for (i = 0; i < counts[j]; i++)
			a[displs[j] + i] = v(j, i);
	memset(b, 0, 3 * sizeof(int));
	MPI_Iscatterv(a, counts, displs, MPI_INT, b, counts[r], MPI_INT, root,
	    MPI_COMM_WORLD, &req);
	complete(&req, "iscatterv");
	for (i = 0; i < counts[r]; i++)
		if (b[i] != v(r, i))
			fail("iscatterv: element %d is %d", i, b[i]);

	/* Iallgather and Iallgatherv. */
	for (i = 0; i < 2; i++)
		a[i] = v(r, i);
	MPI_Iallgather(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD, &req);
	complete(&req, "iallgather");
	for (j = 0; j < n; j++)
		for (i = 0; i < 2; i++)
			if (b[j * 2 + i] != v(j, i))
				fail("iallgather: rank %d element %d", j, i);
	for (j = 0; j < n; j++)
		for (i = 0; i < counts[j]; i++)
			b[displs[j] + i] = j == r ? v(j, i) : -1;
	MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs,
	    MPI_INT, MPI_COMM_WORLD, &req);
	complete(&req, "iallgatherv");
	for (j = 0; j < n; j++)
		for (i = 0; i < counts[j]; i++)
			if (b[displs[j] + i] != v(j, i))
				fail("iallgatherv: rank %d element %d", j, i);

	/* Ialltoall, Ialltoallv, Ialltoallw: rank j gets v(r, j). */
	for (j = 0; j < n; j++)
		a[j] = v(r, j);
	MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, &req);
	complete(&req, "ialltoall");
	for (j = 0; j < n; j++)
		if (b[j] != v(j, r))
			fail("ialltoall: from rank %d got %d", j, b[j]);
	for (j = 0; j < n; j++) {
		sc[j] = 1;
		sd[j] = n - 1 - j;
		a[sd[j]] = v(r, j);
		counts[j] = 1;
		displs[j] = j;
		types[j] = MPI_INT;
	}
	memset(b, 0, (size_t)n * sizeof(int));
	MPI_Ialltoallv(a, sc, sd, MPI_INT, b, counts, displs, MPI_INT,
	    MPI_COMM_WORLD, &req);
	complete(&req, "ialltoallv");
	for (j = 0; j < n; j++)
		if (b[j] != v(j, r))
			fail("ialltoallv: from rank %d got %d", j, b[j]);
	for (j = 0; j < n; j++) {
		sd[j] *= (int)sizeof(int);
		displs[j] *= (int)sizeof(int);
	}
	memset(b, 0, (size_t)n * sizeof(int));
	MPI_Ialltoallw(a, sc, sd, types, b, counts, displs, types,
	    MPI_COMM_WORLD, &req);
	complete(&req, "ialltoallw");
	for (j = 0; j < n; j++)
		if (b[j] != v(j, r))
			fail("ialltoallw: from rank %d got %d", j, b[j]);

	/* Ireduce_scatter_block and Ireduce_scatter. */
	for (i = 0; i < 2 * n; i++)
		a[i] = v(r, i);
	MPI_Ireduce_scatter_block(a, b, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
	    &req);
	complete(&req, "ireduce_scatter_block");
	for (i = 0; i < 2; i++) {
		int want = v(0, 2 * r + i);

		for (j = 1; j < n; j++)
			if (v(j, 2 * r + i) > want)
				want = v(j, 2 * r + i);
		if (b[i] != want)
			fail("ireduce_scatter_block: element %d is %d", i,
			    b[i]);
	}
	for (j = 0; j < n; j++)
		counts[j] = (j + 1) % 3;
	for (j = 0, k = 0; j < r; j++)
		k += counts[j];
	MPI_Ireduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
	    &req);
	complete(&req, "ireduce_scatter");
	for (i = 0; i < counts[r]; i++) {
		int want = 0;

		for (j = 0; j < n; j++)
			want += v(j, k + i);
		if (b[i] != want)
			fail("ireduce_scatter: element %d is %d", i, b[i]);
	}

	/* Iscan and Iexscan. */
	a[0] = r + 1;
	MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	complete(&req, "iscan");
	if (b[0] != (r + 1) * (r + 2) / 2)
		fail("iscan gave %d", b[0]);
	b[0] = -1;
	MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	complete(&req, "iexscan");
	if (r > 0 && b[0] != r * (r + 1) / 2)
		fail("iexscan gave %d", b[0]);

	free(a);
	free(b);
	free(c);
	free(counts);
	free(displs);
	free(sc);
	free(sd);
	free(types);
}

/* Several at once on one communicator, completed by MPI_Waitall. */
static void
many_at_once(void)
{
	MPI_Request	reqs[6];
	int		x[6], y[6], i;

	for (i = 0; i < 6; i++)
		x[i] = myrank * 10 + i;
	MPI_Iallreduce(&x[0], &y[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
	    &reqs[0]);
	MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
	y[2] = myrank == 0 ? 77 : 0;
	MPI_Ibcast(&y[2], 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[2]);
	MPI_Iallreduce(&x[3], &y[3], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
	    &reqs[3]);
	MPI_Iscan(&x[4], &y[4], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
	    &reqs[4]);
	MPI_Iallreduce(&x[5], &y[5], 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD,
	    &reqs[5]);
	MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE);
	if (y[0] != 10 * nprocs * (nprocs - 1) / 2)
		fail("waitall: sum is %d", y[0]);
	if (y[2] != 77)
		fail("waitall: bcast gave %d", y[2]);
	if (y[3] != (nprocs - 1) * 10 + 3)
		fail("waitall: max is %d", y[3]);
	if (y[4] != 10 * myrank * (myrank + 1) / 2 + 4 * (myrank + 1))
		fail("waitall: scan is %d", y[4]);
	if (y[5] != 5)
		fail("waitall: min is %d", y[5]);
	for (i = 0; i < 6; i++)
		if (reqs[i] != MPI_REQUEST_NULL)
			fail("waitall: request %d not freed", i);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (how = 0; how < 2; how++)
		one_round();
	many_at_once();
	return finish();
}
