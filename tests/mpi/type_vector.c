/* SPDX-License-Identifier: ISC */
/*
 * type_vector: MPI_Type_contiguous, MPI_Type_vector and
 * MPI_Type_create_hvector, with positive, negative and touching
 * strides, zero counts and blocklengths, and a vector of vectors.  Each
 * type is built on MPI_INT and checked three ways against the ints its
 * type map names: sent typed and received as contiguous MPI_INT, sent
 * contiguous and received typed (holes keep their old value), and typed
 * on both sides; sizes, extents, MPI_Get_count and MPI_Get_elements
 * too.  Ranks pair up as (0,1), (2,3), ...; an odd last rank, or a lone
 * rank, is its own partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_vector"
#define TAG_ERRS	32000
#define NBUF		512
#define ORIGIN		256	/* buf + ORIGIN is where elements start */
#define HOLE		(-1)

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

/* The value rank r keeps at index i of its buffers. */
static int
val(int r, int i)
{
	return r * 100000 + i;
}

static void
xchg(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Status *st)
{
	MPI_Request	reqs[2];
	MPI_Status	sts[2];

	tag++;
	MPI_Irecv(rbuf, rcount, rtype, peer, tag, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(sbuf, scount, stype, peer, tag, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	*st = sts[0];
}

/*
 * Check count elements of t, whose one-element type map is the n int
 * indices map[] (from the element's start), against the ints.
 */
static void
check_map(const char *what, MPI_Datatype t, int count, const int *map,
    int n)
{
	int		src[NBUF], dst[NBUF], want[NBUF], flat[NBUF];
	int		idx[NBUF];
	MPI_Aint	lb, extent;
	MPI_Status	st;
	int		i, k, e, size, got, total = n * count;

	MPI_Type_commit(&t);
	MPI_Type_size(t, &size);
	if (size != n * (int)sizeof(int))
		fail("%s: size %d, expected %d", what, size,
		    n * (int)sizeof(int));
	MPI_Type_get_extent(t, &lb, &extent);
	if (extent % (MPI_Aint)sizeof(int) != 0) {
		fail("%s: extent %td is not a whole number of ints", what,
		    extent);
		return;
	}
	for (e = 0, k = 0; e < count; e++)
		for (i = 0; i < n; i++)
			idx[k++] = ORIGIN + map[i] +
			    e * (int)(extent / (MPI_Aint)sizeof(int));
	for (k = 0; k < total; k++)
		if (idx[k] < 0 || idx[k] >= NBUF) {
			fail("%s: index %d out of the test buffer", what,
			    idx[k]);
			return;
		}
	for (i = 0; i < NBUF; i++)
		src[i] = val(myrank, i);

	/* Typed to contiguous: the ints in type map order. */
	memset(flat, 0, sizeof(flat));
	xchg(src + ORIGIN, count, t, flat, NBUF, MPI_INT, &st);
	MPI_Get_count(&st, MPI_INT, &got);
	if (got != total)
		fail("%s: typed to MPI_INT: count %d, expected %d", what, got,
		    total);
	for (k = 0; k < total; k++)
		if (flat[k] != val(peer, idx[k])) {
			fail("%s: typed to MPI_INT: int %d is %d, expected %d",
			    what, k, flat[k], val(peer, idx[k]));
			break;
		}

	/* Contiguous to typed: the ints land in type map order. */
	for (i = 0; i < NBUF; i++)
		dst[i] = want[i] = HOLE;
	for (k = 0; k < total; k++)
		want[idx[k]] = val(peer, k);
	xchg(src, total, MPI_INT, dst + ORIGIN, count, t, &st);
	/* A type of size 0 received from 0 bytes counts 0 elements. */
	MPI_Get_count(&st, t, &got);
	if (got != (n > 0 ? count : 0))
		fail("%s: MPI_INT to typed: count %d, expected %d", what, got,
		    n > 0 ? count : 0);
	MPI_Get_elements(&st, t, &got);
	if (got != total)
		fail("%s: MPI_INT to typed: elements %d, expected %d", what,
		    got, total);
	for (i = 0; i < NBUF; i++)
		if (dst[i] != want[i]) {
			fail("%s: MPI_INT to typed: index %d is %d, "
			    "expected %d", what, i - ORIGIN, dst[i], want[i]);
			break;
		}

	/* Typed on both sides. */
	for (i = 0; i < NBUF; i++)
		dst[i] = want[i] = HOLE;
	for (k = 0; k < total; k++)
		want[idx[k]] = val(peer, idx[k]);
	xchg(src + ORIGIN, count, t, dst + ORIGIN, count, t, &st);
	for (i = 0; i < NBUF; i++)
		if (dst[i] != want[i]) {
			fail("%s: typed to typed: index %d is %d, expected %d",
			    what, i - ORIGIN, dst[i], want[i]);
			break;
		}
	MPI_Type_free(&t);
	if (t != MPI_DATATYPE_NULL)
		fail("%s: MPI_Type_free left the handle set", what);
}

static void
check_extent(const char *what, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent,
    MPI_Aint tlb, MPI_Aint textent)
{
	MPI_Aint	a, b;

	MPI_Type_get_extent(t, &a, &b);
	if (a != lb || b != extent)
		fail("%s: lb %td extent %td, expected %td %td", what, a, b, lb,
		    extent);
	MPI_Type_get_true_extent(t, &a, &b);
	if (a != tlb || b != textent)
		fail("%s: true lb %td extent %td, expected %td %td", what, a,
		    b, tlb, textent);
}

int
main(int argc, char *argv[])
{
	MPI_Datatype	t, u;
	int		size, isz = (int)sizeof(int);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	{
		static const int map[] = { 0, 1, 2, 3, 4 };

		MPI_Type_contiguous(5, MPI_INT, &t);
		check_extent("contiguous(5)", t, 0, 5 * isz, 0, 5 * isz);
		check_map("contiguous(5)", t, 3, map, 5);
	}
	{
		static const int map[] = { 0, 1, 3, 4, 6, 7, 9, 10 };

		MPI_Type_vector(4, 2, 3, MPI_INT, &t);
		check_extent("vector(4,2,3)", t, 0, 11 * isz, 0, 11 * isz);
		check_map("vector(4,2,3)", t, 2, map, 8);
	}
	{
		static const int map[] = { 0, -2, -4 };

		MPI_Type_vector(3, 1, -2, MPI_INT, &t);
		check_extent("vector(3,1,-2)", t, -4 * isz, 5 * isz,
		    -4 * isz, 5 * isz);
		check_map("vector(3,1,-2)", t, 2, map, 3);
	}
	{
		static const int map[] = { 0, 1, 2, 3, 4, 5 };

		/* Stride equal to the blocklength: one dense block. */
		MPI_Type_vector(3, 2, 2, MPI_INT, &t);
		check_map("vector(3,2,2)", t, 4, map, 6);
	}
	{
		static const int map[] = { 0, 1, 5, 6, 10, 11 };

		MPI_Type_create_hvector(3, 2, 5 * isz, MPI_INT, &t);
		check_extent("hvector(3,2,20)", t, 0, 12 * isz, 0, 12 * isz);
		check_map("hvector(3,2,20)", t, 2, map, 6);
	}
	{
		static const int map[] = { 0, -3 };

		MPI_Type_create_hvector(2, 1, -3 * isz, MPI_INT, &t);
		check_extent("hvector(2,1,-12)", t, -3 * isz, 4 * isz,
		    -3 * isz, 4 * isz);
		check_map("hvector(2,1,-12)", t, 3, map, 2);
	}
	{
		static const int map[] = { 0 };

		MPI_Type_vector(0, 2, 3, MPI_INT, &t);
		check_extent("vector(0,2,3)", t, 0, 0, 0, 0);
		check_map("vector(0,2,3)", t, 2, map, 0);
		MPI_Type_vector(3, 0, 3, MPI_INT, &t);
		check_map("vector(3,0,3)", t, 2, map, 0);
		MPI_Type_contiguous(0, MPI_INT, &t);
		check_map("contiguous(0)", t, 1, map, 0);
	}
	{
		static const int map[] = { 0, 3, 8, 11 };

		/* Inner: ints 0 and 3, extent 4 ints; outer stride 2 inner. */
		MPI_Type_vector(2, 1, 3, MPI_INT, &u);
		MPI_Type_vector(2, 1, 2, u, &t);
		MPI_Type_free(&u);
		check_extent("vector of vector", t, 0, 12 * isz, 0, 12 * isz);
		check_map("vector of vector", t, 2, map, 4);
	}
	{
		static const int map[] = { 0, 3, 1, 4, 2, 5 };

		/* Columns of a 2x3 matrix: the transpose, in map order. */
		MPI_Type_vector(2, 1, 3, MPI_INT, &u);
		MPI_Type_create_resized(u, 0, isz, &t);
		MPI_Type_free(&u);
		MPI_Type_contiguous(3, t, &u);
		MPI_Type_free(&t);
		check_map("three columns", u, 1, map, 6);
	}
	return finish();
}
