/* SPDX-License-Identifier: ISC */
/*
 * coll_redscat: MPI_Reduce_scatter_block and MPI_Reduce_scatter with
 * MPI_SUM and MPI_MAX, blocks of 0 to 100000 ints, uneven counts (some
 * 0), with and without MPI_IN_PLACE (the input then is the whole
 * receive buffer, and the result lands at its start).
 * (coll_noncomm checks the order of ranks.)
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_redscat"
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

static int
v(int r, int i)
{
	return (r * 29 + i * 3) % 211 - 100;
}

static int
expect(MPI_Op op, int i)
{
	int r, x = v(0, i);

	for (r = 1; r < nprocs; r++)
		x = op == MPI_SUM ? x + v(r, i) : (v(r, i) > x ? v(r, i) : x);
	return x;
}

/* counts NULL: the block variant with blk each. */
static void
case_(const int *counts, int blk, MPI_Op op, int inplace)
{
	int *in, *out, i, total = 0, off = 0, mine, r;

	for (r = 0; r < nprocs; r++) {
		if (r == myrank)
			off = total;
		total += counts != NULL ? counts[r] : blk;
	}
	mine = counts != NULL ? counts[myrank] : blk;
	in = xmalloc((size_t)total * sizeof(int));
	out = xmalloc(((size_t)(inplace ? total : mine) + 1) * sizeof(int));
	for (i = 0; i < total; i++)
		in[i] = v(myrank, i);
	if (inplace)
		memcpy(out, in, (size_t)total * sizeof(int));
	out[inplace ? total : mine] = -99;
	if (counts == NULL)
		MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : in, out, blk,
		    MPI_INT, op, MPI_COMM_WORLD);
	else
		MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : in, out, counts,
		    MPI_INT, op, MPI_COMM_WORLD);
	for (i = 0; i < mine; i++)
		if (out[i] != expect(op, off + i)) {
			fail("reduce_scatter%s %d%s: element %d is %d, "
			    "expected %d", counts == NULL ? "_block" : "",
			    counts == NULL ? blk : -1,
			    inplace ? " in place" : "", i, out[i],
			    expect(op, off + i));
			break;
		}
	if (out[inplace ? total : mine] != -99)
		fail("reduce_scatter: wrote past the end");
	free(in);
	free(out);
}

int
main(int argc, char *argv[])
{
	static const int blks[] = { 0, 1, 3, 500, 100000 };
	int b, r, *counts;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (b = 0; b < (int)(sizeof(blks) / sizeof(blks[0])); b++) {
		case_(NULL, blks[b], MPI_SUM, 0);
		case_(NULL, blks[b], MPI_SUM, 1);
		case_(NULL, blks[b], MPI_MAX, 0);
	}
	counts = xmalloc((size_t)nprocs * sizeof(int));
	for (b = 1; b <= 1000; b *= 10) {
		for (r = 0; r < nprocs; r++)
			counts[r] = ((r * 3 + b) % 4) * b;
		case_(counts, 0, MPI_SUM, 0);
		case_(counts, 0, MPI_SUM, 1);
		case_(counts, 0, MPI_MAX, 1);
	}
	free(counts);
	return finish();
}
