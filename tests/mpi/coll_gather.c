/* SPDX-License-Identifier: ISC */
/*
 * coll_gather: MPI_Gather and MPI_Gatherv to every root.  Gather with
 * blocks from 0 to 20000 ints (the binomial tree on packed bytes for
 * short ones, straight receives for long ones), with MPI_IN_PLACE at the
 * root, with different but matching send and receive types (two
 * MPI_INT sent, one two-int contiguous type received), and into a
 * strided receive type whose gaps must stay untouched.  Gatherv with
 * uneven counts, some 0, placed in reverse order with gaps, and with
 * MPI_IN_PLACE.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_gather"
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
	return r * 100000 + i;
}

static void
gather_case(int blk, int root, int mode)
{
	MPI_Datatype two, vec;
	int *in, *out, i, r, len;

	len = blk * nprocs;
	in = xmalloc((size_t)blk * sizeof(int));
	out = xmalloc(((size_t)len * 2 + 1) * sizeof(int));
	for (i = 0; i < blk; i++)
		in[i] = v(myrank, i);
	for (i = 0; i < len * 2 + 1; i++)
		out[i] = -1;
	if (myrank == root && mode == 1)
		for (i = 0; i < blk; i++)
			out[root * blk + i] = v(root, i);
	switch (mode) {
	case 0:
		MPI_Gather(in, blk, MPI_INT, out, blk, MPI_INT, root,
		    MPI_COMM_WORLD);
		break;
	case 1:
		MPI_Gather(myrank == root ? MPI_IN_PLACE : in, blk, MPI_INT,
		    out, blk, MPI_INT, root, MPI_COMM_WORLD);
		break;
	case 2:
		if (blk % 2 != 0)
			break;
		MPI_Type_contiguous(2, MPI_INT, &two);
		MPI_Type_commit(&two);
		MPI_Gather(in, blk, MPI_INT, out, blk / 2, two, root,
		    MPI_COMM_WORLD);
		MPI_Type_free(&two);
		break;
	case 3:
		/* Every other int of out. */
		MPI_Type_vector(blk, 1, 2, MPI_INT, &vec);
		MPI_Type_create_resized(vec, 0,
		    (MPI_Aint)(2 * blk * sizeof(int)), &two);
		MPI_Type_commit(&two);
		MPI_Gather(in, blk, MPI_INT, out, 1, two, root,
		    MPI_COMM_WORLD);
		MPI_Type_free(&two);
		MPI_Type_free(&vec);
		break;
	}
	if (mode == 2 && blk % 2 != 0)
		goto out;
	if (myrank == root)
		for (r = 0; r < nprocs; r++)
			for (i = 0; i < blk; i++) {
				int at = mode == 3 ? 2 * (r * blk + i) :
				    r * blk + i;

				if (out[at] != v(r, i)) {
					fail("gather blk %d root %d mode %d: "
					    "rank %d element %d is %d", blk,
					    root, mode, r, i, out[at]);
					goto out;
				}
				if (mode == 3 && out[at + 1] != -1) {
					fail("gather blk %d mode 3: a gap "
					    "was written", blk);
					goto out;
				}
			}
	for (i = mode == 3 ? 2 * len : len; i < 2 * len + 1; i++)
		if (out[i] != -1) {
			fail("gather blk %d root %d mode %d: wrote past the "
			    "end", blk, root, mode);
			break;
		}
out:
	free(in);
	free(out);
}

static void
gatherv_case(int root, int inplace)
{
	int *in, *out, *counts, *displs, i, r, total = 0, my;

	counts = xmalloc((size_t)nprocs * sizeof(int));
	displs = xmalloc((size_t)nprocs * sizeof(int));
	for (r = 0; r < nprocs; r++)
		counts[r] = (r * 7) % 5;
	/* Reverse order, with a gap of 3 before each block. */
	for (r = nprocs - 1; r >= 0; r--) {
		displs[r] = total + 3;
		total += counts[r] + 3;
	}
	my = counts[myrank];
	in = xmalloc((size_t)my * sizeof(int));
	out = xmalloc((size_t)total * sizeof(int));
	for (i = 0; i < my; i++)
		in[i] = v(myrank, i);
	for (i = 0; i < total; i++)
		out[i] = -1;
	if (inplace && myrank == root)
		for (i = 0; i < my; i++)
			out[displs[root] + i] = v(root, i);
	MPI_Gatherv(inplace && myrank == root ? MPI_IN_PLACE : in, my,
	    MPI_INT, out, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
	if (myrank == root) {
		for (r = 0; r < nprocs; r++)
			for (i = 0; i < counts[r]; i++)
				if (out[displs[r] + i] != v(r, i)) {
					fail("gatherv root %d: rank %d "
					    "element %d is %d", root, r, i,
					    out[displs[r] + i]);
					goto out;
				}
		for (r = 0; r < nprocs; r++)
			for (i = 1; i <= 3; i++)
				if (out[displs[r] - i] != -1) {
					fail("gatherv root %d: a gap was "
					    "written", root);
					goto out;
				}
	}
out:
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
				gather_case(blks[b], root, mode);
			}
	for (root = 0; root < nprocs; root++) {
		gatherv_case(root, 0);
		gatherv_case(root, 1);
	}
	return finish();
}
