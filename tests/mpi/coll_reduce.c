/* SPDX-License-Identifier: ISC */
/*
 * coll_reduce: MPI_Reduce to every root of int and double vectors from
 * 0 to 1 MiB with MPI_SUM, MPI_MAX and MPI_MIN, with MPI_IN_PLACE at the
 * root, and with a NULL receive buffer at the other ranks (where it is
 * not significant); only the root's buffer may change.  Also
 * MPI_Reduce_local.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_reduce"
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
	return (r * 37 + i * 11) % 997 - 400;
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
		else
			x = y < x ? y : x;
	}
	return x;
}

static void
int_case(int count, int root, MPI_Op op, const char *opname, int mode)
{
	int *in, *out, i;

	in = xmalloc((size_t)count * sizeof(int));
	out = xmalloc(((size_t)count + 1) * sizeof(int));
	for (i = 0; i < count; i++) {
		in[i] = v(myrank, i);
		out[i] = mode == 1 ? in[i] : 777;
	}
	out[count] = -99;
	if (mode == 1 && myrank == root)
		MPI_Reduce(MPI_IN_PLACE, out, count, MPI_INT, op, root,
		    MPI_COMM_WORLD);
	else if (mode == 2 && myrank != root)
		MPI_Reduce(in, NULL, count, MPI_INT, op, root, MPI_COMM_WORLD);
	else
		MPI_Reduce(in, out, count, MPI_INT, op, root, MPI_COMM_WORLD);
	for (i = 0; i < count; i++) {
		int want = myrank == root ? expect(op, i) :
		    mode == 1 ? in[i] : 777;

		if (out[i] != want) {
			fail("%s count %d root %d mode %d: element %d is %d, "
			    "expected %d", opname, count, root, mode, i,
			    out[i], want);
			break;
		}
	}
	if (out[count] != -99)
		fail("%s count %d root %d: wrote past the end", opname, count,
		    root);
	free(in);
	free(out);
}

int
main(int argc, char *argv[])
{
	static const int counts[] = { 0, 1, 3, 64, 1000, 20000, 262144 };
	double	d[4], e[4];
	int	c, root, i, a[3] = { 1, 5, -3 }, b[3] = { 2, 2, 2 };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); c++)
		for (root = 0; root < nprocs; root++) {
			if (counts[c] > 1000 && root != 0 &&
			    root != nprocs - 1)
				continue;
			int_case(counts[c], root, MPI_SUM, "MPI_SUM", 0);
			int_case(counts[c], root, MPI_MAX, "MPI_MAX", 1);
			int_case(counts[c], root, MPI_MIN, "MPI_MIN", 2);
		}

	for (i = 0; i < 4; i++)
		d[i] = myrank * 0.25 + i;
	MPI_Reduce(d, e, 4, MPI_DOUBLE, MPI_SUM, nprocs - 1, MPI_COMM_WORLD);
	if (myrank == nprocs - 1)
		for (i = 0; i < 4; i++)
			if (e[i] != 0.25 * nprocs * (nprocs - 1) / 2 +
			    (double)i * nprocs)
				fail("double sum: element %d is %g", i, e[i]);

	MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX);
	if (b[0] != 2 || b[1] != 5 || b[2] != 2)
		fail("MPI_Reduce_local MAX gave %d %d %d", b[0], b[1], b[2]);
	MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
	if (b[0] != 3 || b[1] != 10 || b[2] != -1)
		fail("MPI_Reduce_local SUM gave %d %d %d", b[0], b[1], b[2]);
	return finish();
}
