/* SPDX-License-Identifier: ISC */
/*
 * coll_errors: under MPI_ERRORS_RETURN every collective, blocking and
 * nonblocking, returns the right error class and does not crash:
 * MPI_ERR_COMM for MPI_COMM_NULL, MPI_ERR_ROOT for a root outside the
 * communicator, MPI_ERR_COUNT for a negative count, MPI_ERR_TYPE for
 * MPI_DATATYPE_NULL and for a type not committed, MPI_ERR_OP for
 * MPI_OP_NULL, and MPI_ERR_BUFFER or MPI_ERR_ARG for MPI_IN_PLACE where
 * it is not allowed.  Every rank makes the same mistake, so no
 * collective starts half-way; the communicator works afterwards.
 */

#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_errors"
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

static void
expect(int rc, int want, int want2, const char *what)
{
	int cls;

	if (rc == MPI_SUCCESS) {
		fail("%s: succeeded", what);
		return;
	}
	MPI_Error_class(rc, &cls);
	if (cls != want && cls != want2)
		fail("%s: error class %d, expected %d", what, cls, want);
}

#define E(call, want) expect(call, want, want, #call)
#define E2(call, want, want2) expect(call, want, want2, #call)

int
main(int argc, char *argv[])
{
	MPI_Comm	 nc = MPI_COMM_NULL, w = MPI_COMM_WORLD;
	MPI_Datatype	 nt = MPI_DATATYPE_NULL, loose;
	MPI_Request	 req;
	int		*a, *b, *cnt, *dsp, n, i, x;
	MPI_Datatype	*types;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	n = nprocs;
	a = xmalloc((size_t)n * 16 * sizeof(int));
	b = xmalloc((size_t)n * 16 * sizeof(int));
	cnt = xmalloc((size_t)n * sizeof(int));
	dsp = xmalloc((size_t)n * sizeof(int));
	types = xmalloc((size_t)n * sizeof(MPI_Datatype));
	for (i = 0; i < n; i++) {
		cnt[i] = 1;
		dsp[i] = i;
		types[i] = MPI_INT;
	}
	MPI_Type_contiguous(2, MPI_INT, &loose);	/* never committed */

	/* MPI_ERR_COMM */
	E(MPI_Barrier(nc), MPI_ERR_COMM);
	E(MPI_Bcast(a, 1, MPI_INT, 0, nc), MPI_ERR_COMM);
	E(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, 0, nc), MPI_ERR_COMM);
	E(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, nc), MPI_ERR_COMM);
	E(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, nc), MPI_ERR_COMM);
	E(MPI_Gatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, 0, nc),
	    MPI_ERR_COMM);
	E(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, 0, nc), MPI_ERR_COMM);
	E(MPI_Scatterv(a, cnt, dsp, MPI_INT, b, 1, MPI_INT, 0, nc),
	    MPI_ERR_COMM);
	E(MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, nc), MPI_ERR_COMM);
	E(MPI_Allgatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, nc),
	    MPI_ERR_COMM);
	E(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, nc), MPI_ERR_COMM);
	E(MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, nc),
	    MPI_ERR_COMM);
	E(MPI_Alltoallw(a, cnt, dsp, types, b, cnt, dsp, types, nc),
	    MPI_ERR_COMM);
	E(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, nc), MPI_ERR_COMM);
	E(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, nc),
	    MPI_ERR_COMM);
	E(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, nc), MPI_ERR_COMM);
	E(MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, nc), MPI_ERR_COMM);
	E(MPI_Ibarrier(nc, &req), MPI_ERR_COMM);
	E(MPI_Ibcast(a, 1, MPI_INT, 0, nc, &req), MPI_ERR_COMM);
	E(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, nc, &req), MPI_ERR_COMM);
	E(MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, nc, &req),
	    MPI_ERR_COMM);
	E(MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, nc, &req), MPI_ERR_COMM);

	/* MPI_ERR_ROOT */
	E(MPI_Bcast(a, 1, MPI_INT, n, w), MPI_ERR_ROOT);
	E(MPI_Bcast(a, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
	E(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, n, w), MPI_ERR_ROOT);
	E(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, n, w), MPI_ERR_ROOT);
	E(MPI_Gatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, -5, w),
	    MPI_ERR_ROOT);
	E(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, n + 3, w), MPI_ERR_ROOT);
	E(MPI_Scatterv(a, cnt, dsp, MPI_INT, b, 1, MPI_INT, n, w),
	    MPI_ERR_ROOT);
	E(MPI_Ibcast(a, 1, MPI_INT, n, w, &req), MPI_ERR_ROOT);
	E(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, n, w, &req), MPI_ERR_ROOT);
	E(MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, n, w, &req),
	    MPI_ERR_ROOT);
	E(MPI_Iscatterv(a, cnt, dsp, MPI_INT, b, 1, MPI_INT, -1, w, &req),
	    MPI_ERR_ROOT);

	/* MPI_ERR_COUNT */
	E(MPI_Bcast(a, -1, MPI_INT, 0, w), MPI_ERR_COUNT);
	E(MPI_Reduce(a, b, -2, MPI_INT, MPI_SUM, 0, w), MPI_ERR_COUNT);
	E(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
	E(MPI_Allgather(a, -1, MPI_INT, b, -1, MPI_INT, w), MPI_ERR_COUNT);
	E(MPI_Alltoall(a, -1, MPI_INT, b, -1, MPI_INT, w), MPI_ERR_COUNT);
	E(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
	E(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, w),
	    MPI_ERR_COUNT);
	/* Counts whose total over the ranks no int can hold: refused
	 * before any buffer is touched (the buffers here are tiny). */
	if (nprocs >= 2) {
		E(MPI_Reduce_scatter_block(a, b, INT_MAX / nprocs + 1,
		    MPI_CHAR, MPI_SUM, w), MPI_ERR_COUNT);
		E(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_CHAR, b,
		    INT_MAX / nprocs + 1, MPI_CHAR, w), MPI_ERR_COUNT);
	}
	cnt[0] = -1;
	E(MPI_Allgatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, w),
	    MPI_ERR_COUNT);
	E(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
	E(MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, w),
	    MPI_ERR_COUNT);
	cnt[0] = 1;
	E(MPI_Iallreduce(a, b, -1, MPI_INT, MPI_SUM, w, &req), MPI_ERR_COUNT);
	E(MPI_Ibcast(a, -7, MPI_INT, 0, w, &req), MPI_ERR_COUNT);

	/* MPI_ERR_TYPE */
	E(MPI_Bcast(a, 1, nt, 0, w), MPI_ERR_TYPE);
	E(MPI_Bcast(a, 1, loose, 0, w), MPI_ERR_TYPE);
	E(MPI_Allreduce(a, b, 1, nt, MPI_SUM, w), MPI_ERR_TYPE);
	E(MPI_Allgather(a, 1, nt, b, 1, nt, w), MPI_ERR_TYPE);
	E(MPI_Alltoall(a, 1, loose, b, 1, loose, w), MPI_ERR_TYPE);
	types[0] = nt;
	E(MPI_Alltoallw(a, cnt, dsp, types, b, cnt, dsp, types, w),
	    MPI_ERR_TYPE);
	types[0] = MPI_INT;
	E(MPI_Iallreduce(a, b, 1, nt, MPI_SUM, w, &req), MPI_ERR_TYPE);
	E(MPI_Iallgather(a, 1, loose, b, 1, loose, w, &req), MPI_ERR_TYPE);

	/* MPI_ERR_OP */
	E(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
	E(MPI_Reduce(a, b, 1, MPI_INT, MPI_OP_NULL, 0, w), MPI_ERR_OP);
	E(MPI_Scan(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
	E(MPI_Exscan(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
	E(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_OP_NULL, w),
	    MPI_ERR_OP);
	E(MPI_Allreduce(a, b, 1, MPI_2INT, MPI_SUM, w), MPI_ERR_OP);
	E(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w, &req),
	    MPI_ERR_OP);
	E(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);

	/* MPI_IN_PLACE where it is not allowed. */
	E2(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_ARG,
	    MPI_ERR_BUFFER);
	E2(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w),
	    MPI_ERR_BUFFER, MPI_ERR_ARG);
	E2(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w),
	    MPI_ERR_BUFFER, MPI_ERR_ARG);
	E2(MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w),
	    MPI_ERR_BUFFER, MPI_ERR_ARG);
	/* Root: receive buffer in place; the others: send buffer. */
	E2(MPI_Reduce(myrank == 0 ? a : MPI_IN_PLACE,
	    myrank == 0 ? MPI_IN_PLACE : b, 1, MPI_INT, MPI_SUM, 0, w),
	    MPI_ERR_ARG, MPI_ERR_BUFFER);
	E2(MPI_Gather(myrank == 0 ? a : MPI_IN_PLACE, 1, MPI_INT,
	    myrank == 0 ? MPI_IN_PLACE : b, 1, MPI_INT, 0, w),
	    MPI_ERR_ARG, MPI_ERR_BUFFER);
	E2(MPI_Scatter(myrank == 0 ? MPI_IN_PLACE : a, 1, MPI_INT,
	    myrank == 0 ? a : MPI_IN_PLACE, 1, MPI_INT, 0, w),
	    MPI_ERR_ARG, MPI_ERR_BUFFER);
	E2(MPI_Iallreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w, &req),
	    MPI_ERR_BUFFER, MPI_ERR_ARG);

	/* A NULL request. */
	E2(MPI_Ibarrier(w, NULL), MPI_ERR_REQUEST, MPI_ERR_ARG);

	/* The communicator still works. */
	x = myrank;
	if (MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, w) !=
	    MPI_SUCCESS || x != n * (n - 1) / 2)
		fail("allreduce after the errors gave %d", x);
	MPI_Type_free(&loose);
	free(a);
	free(b);
	free(cnt);
	free(dsp);
	free(types);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return finish();
}
