/* SPDX-License-Identifier: ISC */
/*
 * coll_allreduce: MPI_Allreduce on vectors from 0 to 1 MiB, across the
 * switch from recursive doubling to Rabenseifner's reduce-scatter and
 * allgather (including counts that do not divide by the number of
 * ranks, and counts smaller than it), with MPI_SUM, MPI_MAX, MPI_MIN,
 * MPI_PROD and MPI_BXOR on int, MPI_SUM on double and long long, with
 * and without MPI_IN_PLACE, on MPI_COMM_WORLD and MPI_COMM_SELF, and
 * (an ft extension) with a predefined operation on a contiguous derived
 * type.  Every rank checks every element.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_allreduce"
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

/* Rank r's element i. */
static int
v(int r, int i)
{
	return (r * 131 + i * 7) % 1009 - 500;
}

static int
expect(MPI_Op op, int i)
{
	int r, x = v(0, i), y;

	for (r = 1; r < nprocs; r++) {
		y = v(r, i);
		if (op == MPI_SUM)
			x += y;
		else if (op == MPI_MAX)
			x = y > x ? y : x;
		else if (op == MPI_MIN)
			x = y < x ? y : x;
		else if (op == MPI_PROD)
			x = (int)((unsigned)x * (unsigned)(y % 3 == 0 ? 1 :
			    y % 3));
		else if (op == MPI_BXOR)
			x ^= y;
	}
	return x;
}

static int
input(MPI_Op op, int r, int i)
{
	int y = v(r, i);

	/* Keep products small and well defined. */
	if (op == MPI_PROD)
		return r == 0 ? y : (y % 3 == 0 ? 1 : y % 3);
	return y;
}

static void
int_case(int count, MPI_Op op, const char *opname, int inplace)
{
	int *in, *out, i;

	in = xmalloc((size_t)count * sizeof(int) + 1);
	out = xmalloc(((size_t)count + 1) * sizeof(int));
	for (i = 0; i < count; i++) {
		in[i] = input(op, myrank, i);
		out[i] = inplace ? in[i] : 12345;
	}
	out[count] = -99;
	MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT, op,
	    MPI_COMM_WORLD);
	for (i = 0; i < count; i++)
		if (out[i] != expect(op, i)) {
			fail("%s count %d%s: element %d is %d, expected %d",
			    opname, count, inplace ? " in place" : "", i,
			    out[i], expect(op, i));
			break;
		}
	if (out[count] != -99)
		fail("%s count %d: wrote past the end", opname, count);
	free(in);
	free(out);
}

static void
double_case(int count, int inplace)
{
	double *in, *out, want;
	int i, r;

	in = xmalloc((size_t)count * sizeof(double));
	out = xmalloc((size_t)count * sizeof(double));
	for (i = 0; i < count; i++)
		in[i] = out[i] = v(myrank, i) * 0.5;
	MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, count, MPI_DOUBLE,
	    MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < count; i++) {
		for (r = 0, want = 0; r < nprocs; r++)
			want += v(r, i) * 0.5;
		if (out[i] != want) {
			fail("double sum count %d%s: element %d is %g, "
			    "expected %g", count, inplace ? " in place" : "",
			    i, out[i], want);
			break;
		}
	}
	free(in);
	free(out);
}

int
main(int argc, char *argv[])
{
	static const int counts[] = {
		0, 1, 2, 3, 7, 8, 9, 100, 1023, 1024, 1025, 4099, 65536 + 3,
		262144
	};
	static const struct {
		MPI_Op		 op;
		const char	*name;
	} ops[] = {
		{ MPI_SUM, "MPI_SUM" }, { MPI_MAX, "MPI_MAX" },
		{ MPI_MIN, "MPI_MIN" }, { MPI_PROD, "MPI_PROD" },
		{ MPI_BXOR, "MPI_BXOR" },
	};
	MPI_Datatype	 pair;
	long long	 ll, llsum;
	int		 c, o, i, x, y[6];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); c++)
		for (o = 0; o < (int)(sizeof(ops) / sizeof(ops[0])); o++) {
			/* The long ones with two operations are enough. */
			if (counts[c] > 5000 && o > 1)
				continue;
			int_case(counts[c], ops[o].op, ops[o].name, 0);
			if (o < 2)
				int_case(counts[c], ops[o].op, ops[o].name, 1);
		}
	double_case(1, 0);
	double_case(5000, 1);
	double_case(131072, 0);	/* 1 MiB */
	double_case(131072, 1);

	ll = (long long)myrank << 33;
	MPI_Allreduce(&ll, &llsum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (llsum != ((long long)nprocs * (nprocs - 1) / 2) << 33)
		fail("long long sum is %lld", llsum);

	x = myrank + 1;
	MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
	if (x != myrank + 1)
		fail("MPI_COMM_SELF allreduce gave %d", x);

#ifdef FT_MPI_API
	/*
	 * ft's extension: a predefined operation on a derived type made of
	 * ints (the standard leaves it erroneous; Open MPI refuses it).
	 */
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	for (i = 0; i < 6; i++)
		y[i] = myrank + i;
	if (MPI_Allreduce(MPI_IN_PLACE, y, 3, pair, MPI_SUM,
	    MPI_COMM_WORLD) != MPI_SUCCESS)
		fail("MPI_SUM on a contiguous type of MPI_INT failed");
	for (i = 0; i < 6; i++)
		if (y[i] != nprocs * (nprocs - 1) / 2 + nprocs * i)
			fail("MPI_SUM on pairs: element %d is %d", i, y[i]);
	MPI_Type_free(&pair);
#else
	(void)pair;
	(void)i;
	(void)y;
#endif
	return finish();
}
