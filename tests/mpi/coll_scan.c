/* SPDX-License-Identifier: ISC */
/*
 * coll_scan: MPI_Scan and MPI_Exscan with MPI_SUM and MPI_MAX on int
 * vectors of 0 to 100000 elements, with and without MPI_IN_PLACE, and
 * with MPI_MINLOC on MPI_DOUBLE_INT; MPI_Exscan leaves rank 0's buffer
 * alone.  (coll_noncomm checks the order of ranks.)
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_scan"
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
	return (r * 17 + i * 5) % 101 - 50;
}

/* Op over ranks 0 .. hi - 1 of element i. */
static int
expect(MPI_Op op, int hi, int i)
{
	int r, x = v(0, i);

	for (r = 1; r < hi; r++)
		x = op == MPI_SUM ? x + v(r, i) : (v(r, i) > x ? v(r, i) : x);
	return x;
}

static void
scan_case(int count, MPI_Op op, int exclusive, int inplace)
{
	int *in, *out, i;
	const char *what = exclusive ? "exscan" : "scan";

	in = xmalloc((size_t)count * sizeof(int));
	out = xmalloc(((size_t)count + 1) * sizeof(int));
	for (i = 0; i < count; i++) {
		in[i] = v(myrank, i);
		out[i] = inplace ? in[i] : -7777;
	}
	out[count] = -99;
	if (exclusive)
		MPI_Exscan(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT,
		    op, MPI_COMM_WORLD);
	else
		MPI_Scan(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT, op,
		    MPI_COMM_WORLD);
	for (i = 0; i < count; i++) {
		int want;

		if (exclusive && myrank == 0)
			want = inplace ? in[i] : -7777;
		else
			want = expect(op, exclusive ? myrank : myrank + 1, i);
		if (out[i] != want) {
			fail("%s count %d%s: element %d is %d, expected %d",
			    what, count, inplace ? " in place" : "", i, out[i],
			    want);
			break;
		}
	}
	if (out[count] != -99)
		fail("%s count %d: wrote past the end", what, count);
	free(in);
	free(out);
}

int
main(int argc, char *argv[])
{
	static const int counts[] = { 0, 1, 2, 13, 1000, 100000 };
	struct {
		double	v;
		int	i;
	} in, out;
	int c, r;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); c++) {
		scan_case(counts[c], MPI_SUM, 0, 0);
		scan_case(counts[c], MPI_SUM, 0, 1);
		scan_case(counts[c], MPI_MAX, 0, 0);
		scan_case(counts[c], MPI_SUM, 1, 0);
		scan_case(counts[c], MPI_SUM, 1, 1);
		scan_case(counts[c], MPI_MAX, 1, 0);
	}

	/* MINLOC: the value falls every other rank; ties keep the lower. */
	in.v = (double)((myrank + 1) / 2) * -1.0;
	in.i = myrank;
	MPI_Scan(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
	r = myrank % 2 == 0 ? (myrank == 0 ? 0 : myrank - 1) : myrank;
	if (out.v != (double)((myrank + 1) / 2) * -1.0 || out.i != r)
		fail("minloc scan gave (%g, %d), expected (%g, %d)", out.v,
		    out.i, (double)((myrank + 1) / 2) * -1.0, r);
	return finish();
}
