/* SPDX-License-Identifier: ISC */
/*
 * coll_alltoall: MPI_Alltoall with blocks from 0 ints to 280 KB (all
 * transfers at once for short ones, pairwise exchange for long ones),
 * with MPI_IN_PLACE and with different but matching types;
 * MPI_Alltoallv with uneven counts, some 0, at shuffled displacements,
 * and in place; MPI_Alltoallw with a different datatype for each peer
 * (ints, doubles, a strided vector) at byte displacements, and in
 * place.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_alltoall"
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

/* Element i of what rank s sends to rank d. */
static int
v(int s, int d, int i)
{
	return s * 1000000 + d * 10000 + i % 10000 + 1;
}

static void
alltoall_case(int blk, int mode)
{
	MPI_Datatype two;
	int *in, *out, i, r, len;

	len = blk * nprocs;
	in = xmalloc((size_t)len * sizeof(int));
	out = xmalloc(((size_t)len + 1) * sizeof(int));
	for (r = 0; r < nprocs; r++)
		for (i = 0; i < blk; i++)
			in[r * blk + i] = v(myrank, r, i);
	for (i = 0; i <= len; i++)
		out[i] = -1;
	switch (mode) {
	case 0:
		MPI_Alltoall(in, blk, MPI_INT, out, blk, MPI_INT,
		    MPI_COMM_WORLD);
		break;
	case 1:
		memcpy(out, in, (size_t)len * sizeof(int));
		MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, blk,
		    MPI_INT, MPI_COMM_WORLD);
		break;
	case 2:
		if (blk % 2 != 0)
			goto out;
		MPI_Type_contiguous(2, MPI_INT, &two);
		MPI_Type_commit(&two);
		MPI_Alltoall(in, blk, MPI_INT, out, blk / 2, two,
		    MPI_COMM_WORLD);
		MPI_Type_free(&two);
		break;
	}
	for (r = 0; r < nprocs; r++)
		for (i = 0; i < blk; i++)
			if (out[r * blk + i] != v(r, myrank, i)) {
				fail("alltoall blk %d mode %d: from rank %d "
				    "element %d is %d", blk, mode, r, i,
				    out[r * blk + i]);
				goto out;
			}
	if (out[len] != -1)
		fail("alltoall blk %d mode %d: wrote past the end", blk, mode);
out:
	free(in);
	free(out);
}

/*
 * What s sends to d in the v test: symmetric, as MPI_IN_PLACE needs
 * (what goes to a peer and what comes from it share their place).
 */
static int
cnt(int s, int d)
{
	return (s + d + (s * d) % 3) % 4;
}

static void
alltoallv_case(int inplace)
{
	int *in, *out, *sc, *sd, *rc, *rd, i, r, st = 0, rt = 0;

	sc = xmalloc((size_t)nprocs * sizeof(int));
	sd = xmalloc((size_t)nprocs * sizeof(int));
	rc = xmalloc((size_t)nprocs * sizeof(int));
	rd = xmalloc((size_t)nprocs * sizeof(int));
	for (r = nprocs - 1; r >= 0; r--) {
		sc[r] = cnt(myrank, r);
		sd[r] = st + 1;
		st += sc[r] + 1;
	}
	for (r = 0; r < nprocs; r++) {
		rc[r] = inplace ? cnt(myrank, r) : cnt(r, myrank);
		rd[r] = rt + 2;
		rt += rc[r] + 2;
	}
	in = xmalloc((size_t)st * sizeof(int));
	out = xmalloc((size_t)rt * sizeof(int));
	for (r = 0; r < nprocs; r++)
		for (i = 0; i < sc[r]; i++)
			in[sd[r] + i] = v(myrank, r, i);
	for (i = 0; i < rt; i++)
		out[i] = -1;
	if (inplace) {
		/* In place, what goes to r and what comes from it agree. */
		for (r = 0; r < nprocs; r++)
			for (i = 0; i < rc[r]; i++)
				out[rd[r] + i] = v(myrank, r, i);
		MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL,
		    out, rc, rd, MPI_INT, MPI_COMM_WORLD);
	} else
		MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT,
		    MPI_COMM_WORLD);
	for (r = 0; r < nprocs; r++) {
		for (i = 0; i < rc[r]; i++)
			if (out[rd[r] + i] != v(r, myrank, i)) {
				fail("alltoallv%s: from rank %d element %d "
				    "is %d", inplace ? " in place" : "", r, i,
				    out[rd[r] + i]);
				goto out;
			}
		if (out[rd[r] - 1] != -1 || out[rd[r] - 2] != -1) {
			fail("alltoallv: a gap was written");
			goto out;
		}
	}
out:
	free(in);
	free(out);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
}

/*
 * Alltoallw: to and from peer r, (r % 3) picks the type: ints, doubles,
 * or every other int (a vector).  Each block gets its own 64-byte slot.
 */
static void
alltoallw_case(int inplace)
{
	MPI_Datatype types[3], *st, *rt, vec;
	int *sc, *sd, *rc, *rd, r, i, k;
	char *in, *out;

	MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	types[0] = MPI_INT;
	types[1] = MPI_DOUBLE;
	types[2] = vec;
	sc = xmalloc((size_t)nprocs * sizeof(int));
	sd = xmalloc((size_t)nprocs * sizeof(int));
	rc = xmalloc((size_t)nprocs * sizeof(int));
	rd = xmalloc((size_t)nprocs * sizeof(int));
	st = xmalloc((size_t)nprocs * sizeof(MPI_Datatype));
	rt = xmalloc((size_t)nprocs * sizeof(MPI_Datatype));
	in = xmalloc((size_t)nprocs * 64);
	out = xmalloc((size_t)nprocs * 64);
	for (r = 0; r < nprocs; r++) {
		/* A pair of ranks use the type of the lower one. */
		k = (myrank < r ? myrank : r) % 3;
		st[r] = rt[r] = types[k];
		sc[r] = rc[r] = k == 2 ? 1 : 3;
		sd[r] = (nprocs - 1 - r) * 64;
		rd[r] = r * 64;
	}
	memset(in, 0, (size_t)nprocs * 64);
	memset(out, 0xff, (size_t)nprocs * 64);
	for (r = 0; r < nprocs; r++) {
		k = (myrank < r ? myrank : r) % 3;
		for (i = 0; i < 3; i++) {
			char *p = (inplace ? out + rd[r] : in + sd[r]);

			if (k == 1)
				((double *)p)[i] = v(myrank, r, i) + 0.5;
			else
				((int *)p)[k == 2 ? 2 * i : i] =
				    v(myrank, r, i);
		}
	}
	if (inplace)
		MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, out, rc, rd, rt,
		    MPI_COMM_WORLD);
	else
		MPI_Alltoallw(in, sc, sd, st, out, rc, rd, rt,
		    MPI_COMM_WORLD);
	for (r = 0; r < nprocs; r++) {
		const char *p = out + rd[r];

		k = (myrank < r ? myrank : r) % 3;
		for (i = 0; i < 3; i++) {
			int ok = k == 1 ? ((const double *)p)[i] ==
			    v(r, myrank, i) + 0.5 :
			    ((const int *)p)[k == 2 ? 2 * i : i] ==
			    v(r, myrank, i);

			if (!ok) {
				fail("alltoallw%s: from rank %d element %d is "
				    "wrong", inplace ? " in place" : "", r,
				    i);
				goto out;
			}
		}
		if (k == 2 && ((const int *)p)[1] != -1 && !inplace) {
			fail("alltoallw: a gap of the vector was written");
			goto out;
		}
	}
out:
	MPI_Type_free(&vec);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(st);
	free(rt);
	free(in);
	free(out);
}

int
main(int argc, char *argv[])
{
	static const int blks[] = { 0, 1, 2, 7, 300, 4000, 70000 };
	int b, mode;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (b = 0; b < (int)(sizeof(blks) / sizeof(blks[0])); b++)
		for (mode = 0; mode < 3; mode++)
			alltoall_case(blks[b], mode);
	alltoallv_case(0);
	alltoallv_case(1);
	alltoallw_case(0);
	alltoallw_case(1);
	return finish();
}
