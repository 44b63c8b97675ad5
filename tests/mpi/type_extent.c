/* SPDX-License-Identifier: ISC */
/*
 * type_extent: lower bounds, extents and true extents (and their _x
 * forms, and MPI_Type_size_x) of types with negative displacements,
 * of resized types (whose explicit bounds stick through later
 * constructors, while the true extent still follows the data), of
 * structs padded to their alignment, and of duplicates; MPI_Get_address
 * with MPI_Aint_add and MPI_Aint_diff; and arrays sent with a resized
 * type, whose extent sets where each element starts.  Ranks pair up as
 * (0,1), (2,3), ...; an odd last rank, or a lone rank, is its own
 * partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_extent"
#define TAG_ERRS	32000

static int	errs, myrank, peer, tag;

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
	int	i, size, e, total = errs;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (myrank == 0) {
		for (i = 1; i < size; i++) {
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

/* Check every bound of t, in both widths. */
static void
bounds(const char *what, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent,
    MPI_Aint tlb, MPI_Aint textent, int size)
{
	MPI_Aint	a, b;
	MPI_Count	ca, cb, cs;
	int		s;

	MPI_Type_get_extent(t, &a, &b);
	if (a != lb || b != extent)
		fail("%s: lb %td extent %td, expected %td %td", what, a, b, lb,
		    extent);
	MPI_Type_get_true_extent(t, &a, &b);
	if (a != tlb || b != textent)
		fail("%s: true lb %td extent %td, expected %td %td", what, a,
		    b, tlb, textent);
	MPI_Type_get_extent_x(t, &ca, &cb);
	if (ca != lb || cb != extent)
		fail("%s: extent_x %lld %lld", what, (long long)ca,
		    (long long)cb);
	MPI_Type_get_true_extent_x(t, &ca, &cb);
	if (ca != tlb || cb != textent)
		fail("%s: true_extent_x %lld %lld", what, (long long)ca,
		    (long long)cb);
	MPI_Type_size(t, &s);
	MPI_Type_size_x(t, &cs);
	if (s != size || cs != size)
		fail("%s: size %d (x %lld), expected %d", what, s,
		    (long long)cs, size);
}

static void
test_bounds(void)
{
	MPI_Datatype	t, u, r, types[2];
	MPI_Aint	disp[2];
	int		bl[2] = { 1, 1 }, idisp[2] = { -3, 2 };

	bounds("MPI_INT", MPI_INT, 0, 4, 0, 4, 4);
	bounds("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 0, 16, 0, 12, 12);
	bounds("MPI_SHORT_INT", MPI_SHORT_INT, 0, 8, 0, 8, 6);

	/* Ints at -12 and 8. */
	MPI_Type_indexed(2, bl, idisp, MPI_INT, &t);
	bounds("indexed at -3 and 2", t, -12, 24, -12, 24, 8);

	/* Resized: explicit bounds; the true extent is the data's. */
	MPI_Type_create_resized(t, -20, 64, &r);
	bounds("resized(-20, 64)", r, -20, 64, -12, 24, 8);
	MPI_Type_dup(r, &u);
	bounds("dup of resized", u, -20, 64, -12, 24, 8);
	MPI_Type_free(&u);

	/* Two of them: the second starts 64 bytes on. */
	MPI_Type_contiguous(2, r, &u);
	bounds("contiguous(2) of resized", u, -20, 128, -12, 88, 16);
	MPI_Type_free(&u);

	/* The resized part's bounds win over a double lower down. */
	types[0] = r;
	types[1] = MPI_DOUBLE;
	disp[0] = 100;
	disp[1] = 0;
	MPI_Type_create_struct(2, bl, disp, types, &u);
	bounds("struct of resized and double", u, 80, 64, 0, 112, 16);
	MPI_Type_free(&u);
	MPI_Type_free(&r);
	MPI_Type_free(&t);

	/* A struct padded to its alignment: char at 0, double at 8. */
	types[0] = MPI_DOUBLE;
	types[1] = MPI_CHAR;
	disp[0] = 0;
	disp[1] = 8;
	MPI_Type_create_struct(2, bl, disp, types, &t);
	bounds("struct { double; char; }", t, 0, 16, 0, 9, 9);
	/* Resized to no padding: then elements pack tightly. */
	MPI_Type_create_resized(t, 0, 9, &u);
	bounds("resized to 9", u, 0, 9, 0, 9, 9);
	MPI_Type_free(&u);
	MPI_Type_free(&t);

	/* A negative extent is allowed, if strange. */
	MPI_Type_create_resized(MPI_INT, 0, -4, &t);
	bounds("resized(0, -4)", t, 0, -4, 0, 4, 4);
	MPI_Type_free(&t);
}

static void
test_address(void)
{
	int		a[10];
	MPI_Aint	p0, p5, q;

	memset(a, 0, sizeof(a));
	MPI_Get_address(&a[0], &p0);
	MPI_Get_address(&a[5], &p5);
	if (MPI_Aint_diff(p5, p0) != 5 * (MPI_Aint)sizeof(int))
		fail("MPI_Aint_diff: %td", MPI_Aint_diff(p5, p0));
	q = MPI_Aint_add(p0, 5 * (MPI_Aint)sizeof(int));
	if (q != p5)
		fail("MPI_Aint_add: %td, expected %td", q, p5);
	if (MPI_Aint_add(p5, -5 * (MPI_Aint)sizeof(int)) != p0)
		fail("MPI_Aint_add of a negative displacement");
}

/* Every third int of an array, by resizing MPI_INT to 12 bytes. */
static void
test_resized_array(void)
{
	MPI_Request	reqs[2];
	MPI_Datatype	t;
	int		a[12], r[12], k;

	MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &t);
	MPI_Type_commit(&t);
	for (k = 0; k < 12; k++) {
		a[k] = myrank * 100 + k;
		r[k] = -1;
	}
	tag++;
	MPI_Irecv(r, 4, t, peer, tag, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(a, 4, t, peer, tag, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
	for (k = 0; k < 12; k++)
		if (r[k] != (k % 3 == 0 ? peer * 100 + k : -1)) {
			fail("resized array: int %d is %d", k, r[k]);
			break;
		}
	MPI_Type_free(&t);
}

int
main(int argc, char *argv[])
{
	int	size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	test_bounds();
	test_address();
	test_resized_array();
	return finish();
}
