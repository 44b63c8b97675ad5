/* SPDX-License-Identifier: ISC */
/*
 * coll_scatter: MPI_Scatter and MPI_Scatterv from every root.  Scatter
 * with blocks from 0 to 20000 ints (the binomial tree on packed bytes
 * for short ones, straight sends for long ones), with MPI_IN_PLACE at
 * the root, with different but matching types, and from a strided send
 * type.  Scatterv with uneven counts, some 0, taken in reverse order
 * from a buffer with gaps, and with MPI_IN_PLACE.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_scatter"
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
	return r * 100000 + i + 1;
}

static void
scatter_case(int blk, int root, int mode)
{
	MPI_Datatype two, vec;
	int *in, *out, i, r, len;

	len = blk * nprocs;
	in = xmalloc(((size_t)len * 2 + 1) * sizeof(int));
	out = xmalloc(((size_t)blk + 1) * sizeof(int));
	for (r = 0; r < nprocs; r++)
		for (i = 0; i < blk; i++) {
			if (mode == 3) {
				in[2 * (r * blk + i)] = v(r, i);
				in[2 * (r * blk + i) + 1] = -5;
			} else
				in[r * blk + i] = v(r, i);
		}
	for (i = 0; i <= blk; i++)
		out[i] = -1;
	switch (mode) {
	case 0:
		MPI_Scatter(in, blk, MPI_INT, out, blk, MPI_INT, root,
		    MPI_COMM_WORLD);
		break;
	case 1:
		MPI_Scatter(in, blk, MPI_INT,
		    myrank == root ? MPI_IN_PLACE : out, blk, MPI_INT, root,
		    MPI_COMM_WORLD);
		if (myrank == root)
			memcpy(out, in + root * blk,
			    (size_t)blk * sizeof(int));
		break;
	case 2:
		if (blk % 2 != 0)
			goto out;
		MPI_Type_contiguous(2, MPI_INT, &two);
		MPI_Type_commit(&two);
		MPI_Scatter(in, blk / 2, two, out, blk, MPI_INT, root,
		    MPI_COMM_WORLD);
		MPI_Type_free(&two);
		break;
	case 3:
		MPI_Type_vector(blk, 1, 2, MPI_INT, &vec);
		MPI_Type_create_resized(vec, 0,
		    (MPI_Aint)(2 * blk * sizeof(int)), &two);
		MPI_Type_commit(&two);
		MPI_Scatter(in, 1, two, out, blk, MPI_INT, root,
		    MPI_COMM_WORLD);
		MPI_Type_free(&two);
		MPI_Type_free(&vec);
		break;
	}
	for (i = 0; i < blk; i++)
		if (out[i] != v(myrank, i)) {
			fail("scatter blk %d root %d mode %d: element %d is %d",
			    blk, root, mode, i, out[i]);
			break;
		}
	if (out[blk] != -1)
		fail("scatter blk %d root %d mode %d: wrote past the end",
		    blk, root, mode);
out:
	free(in);
	free(out);
}

static void
scatterv_case(int root, int inplace)
{
	int *in, *out, *counts, *displs, i, r, total = 0, my;

	counts = xmalloc((size_t)nprocs * sizeof(int));
	displs = xmalloc((size_t)nprocs * sizeof(int));
	for (r = 0; r < nprocs; r++)
		counts[r] = (r * 5 + 1) % 4;
	for (r = nprocs - 1; r >= 0; r--) {
		displs[r] = total + 2;
		total += counts[r] + 2;
	}
	my = counts[myrank];
	in = xmalloc((size_t)total * sizeof(int));
	out = xmalloc(((size_t)my + 1) * sizeof(int));
	for (i = 0; i < total; i++)
		in[i] = -3;
	for (r = 0; r < nprocs; r++)
		for (i = 0; i < counts[r]; i++)
			in[displs[r] + i] = v(r, i);
	for (i = 0; i <= my; i++)
		out[i] = -1;
	MPI_Scatterv(in, counts, displs, MPI_INT,
	    inplace && myrank == root ? MPI_IN_PLACE : out, my, MPI_INT, root,
	    MPI_COMM_WORLD);
	if (inplace && myrank == root)
		for (i = 0; i < my; i++)
			out[i] = in[displs[root] + i];
	for (i = 0; i < my; i++)
		if (out[i] != v(myrank, i)) {
			fail("scatterv root %d: element %d is %d", root, i,
			    out[i]);
			break;
		}
	if (out[my] != -1)
		fail("scatterv root %d: wrote past the end", root);
	free(in);
	free(out);
	free(counts);
	free(displs);
}

int
main(int argc, char *argv[])
{
	static const int blks[] = { 0, 1, 2, 5, 100, 600, 20000 };
	int b, root, mode;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (b = 0; b < (int)(sizeof(blks) / sizeof(blks[0])); b++)
		for (root = 0; root < nprocs; root++)
			for (mode = 0; mode < 4; mode++) {
				if (blks[b] == 0 && mode == 3)
					continue;
				if (blks[b] > 1000 && root > 1)
					continue;
				scatter_case(blks[b], root, mode);
			}
	for (root = 0; root < nprocs; root++) {
		scatterv_case(root, 0);
		scatterv_case(root, 1);
	}
	return finish();
}
