/* SPDX-License-Identifier: ISC */
/*
 * type_elements: MPI_Get_count and MPI_Get_elements (and the _x forms)
 * when a message fills only part of a receive of a derived type: whole
 * elements, part of an element ending between basic elements (count
 * MPI_UNDEFINED, elements the basic elements received) and inside one
 * (both MPI_UNDEFINED); the received part lands where the type map
 * says and the rest of the buffer is left alone.  Covers a struct of
 * an int and a double, a vector of doubles, MPI_DOUBLE_INT (two basic
 * elements each) and empty messages.  Ranks pair up as (0,1), (2,3),
 * ...; an odd last rank, or a lone rank, is its own partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_elements"
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

static void
xchg(const void *sb, int scount, MPI_Datatype stype, void *rb, int rcount,
    MPI_Datatype rtype, MPI_Status *st)
{
	MPI_Request	reqs[2];
	MPI_Status	sts[2];

	tag++;
	MPI_Irecv(rb, rcount, rtype, peer, tag, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(sb, scount, stype, peer, tag, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	*st = sts[0];
}

static void
expect(const char *what, const MPI_Status *st, MPI_Datatype t, int count,
    int elements)
{
	MPI_Count	cx;
	int		c;

	MPI_Get_count(st, t, &c);
	if (c != count)
		fail("%s: count %d, expected %d", what, c, count);
	MPI_Get_elements(st, t, &c);
	if (c != elements)
		fail("%s: elements %d, expected %d", what, c, elements);
	MPI_Get_elements_x(st, t, &cx);
	if (cx != elements)
		fail("%s: elements_x %lld, expected %d", what, (long long)cx,
		    elements);
}

struct id { int i; double d; };

static MPI_Datatype
id_type(void)
{
	struct id	s;
	MPI_Datatype	t, types[2] = { MPI_INT, MPI_DOUBLE };
	MPI_Aint	disp[2];
	int		bl[2] = { 1, 1 };

	memset(&s, 0, sizeof(s));
	MPI_Get_address(&s.i, &disp[0]);
	MPI_Get_address(&s.d, &disp[1]);
	disp[1] -= disp[0];
	disp[0] = 0;
	MPI_Type_create_struct(2, bl, disp, types, &t);
	MPI_Type_commit(&t);
	return t;
}

static void
reset(struct id *r, int n)
{
	int	k;

	memset(r, 0, (size_t)n * sizeof(*r));
	for (k = 0; k < n; k++) {
		r[k].i = -1;
		r[k].d = -1;
	}
}

static void
structs(void)
{
	MPI_Datatype	t, t3, types[3] = { MPI_INT, MPI_DOUBLE, MPI_INT };
	struct id	r[3], s[2];
	MPI_Status	st;
	unsigned char	bytes[6];
	int		one = 7 + myrank, bl[3] = { 1, 1, 1 };
	MPI_Aint	disp[3] = { 0, 8, 16 };
	struct { int a; double b; int c; } three;

	t = id_type();

	/* An int alone: one basic element, no whole struct. */
	reset(r, 3);
	xchg(&one, 1, MPI_INT, r, 3, t, &st);
	expect("an int into structs", &st, t, MPI_UNDEFINED, 1);
	if (r[0].i != 7 + peer || r[0].d != -1 || r[1].i != -1)
		fail("an int into structs: landed wrong");

	/* One whole struct. */
	memset(s, 0, sizeof(s));
	s[0].i = 10 + myrank;
	s[0].d = 0.5 + myrank;
	reset(r, 3);
	xchg(s, 1, t, r, 3, t, &st);
	expect("one struct into three", &st, t, 1, 2);
	if (r[0].i != 10 + peer || r[0].d != 0.5 + peer || r[1].i != -1)
		fail("one struct into three: landed wrong");

	/* A struct and one more int: 3 elements, no whole count. */
	MPI_Type_create_struct(3, bl, disp, types, &t3);
	MPI_Type_commit(&t3);
	memset(&three, 0, sizeof(three));
	three.a = 20 + myrank;
	three.b = 1.5 + myrank;
	three.c = 30 + myrank;
	reset(r, 3);
	xchg(&three, 1, t3, r, 3, t, &st);
	expect("int, double, int into structs", &st, t, MPI_UNDEFINED, 3);
	if (r[0].i != 20 + peer || r[0].d != 1.5 + peer ||
	    r[1].i != 30 + peer || r[1].d != -1)
		fail("int, double, int into structs: landed wrong");
	MPI_Type_free(&t3);

	/* Six bytes end inside the double: both undefined. */
	memset(bytes, 0x11, sizeof(bytes));
	reset(r, 3);
	xchg(bytes, 6, MPI_BYTE, r, 3, t, &st);
	expect("6 bytes into structs", &st, t, MPI_UNDEFINED, MPI_UNDEFINED);

	/* Nothing at all. */
	reset(r, 3);
	xchg(s, 0, t, r, 3, t, &st);
	expect("no structs", &st, t, 0, 0);
	MPI_Type_free(&t);
}

static void
vectors(void)
{
	MPI_Datatype	v;
	MPI_Status	st;
	double		d[3], r[16];
	int		k;

	MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &v);	/* 0, 2, 4, 6 */
	MPI_Type_commit(&v);
	for (k = 0; k < 3; k++)
		d[k] = myrank * 10 + k;
	for (k = 0; k < 16; k++)
		r[k] = -1;
	xchg(d, 3, MPI_DOUBLE, r, 2, v, &st);
	expect("3 doubles into 2 vectors", &st, v, MPI_UNDEFINED, 3);
	for (k = 0; k < 16; k++) {
		double want = k % 2 == 0 && k < 6 ? peer * 10 + k / 2 : -1;

		if (r[k] != want) {
			fail("3 doubles into 2 vectors: [%d] is %g, "
			    "expected %g", k, r[k], want);
			break;
		}
	}
	MPI_Type_free(&v);
}

/*
 * The standard defines MPI_DOUBLE_INT as if made by
 * MPI_Type_create_struct from a double and an int: two basic elements
 * each.  (Open MPI 4 counts one per pair and fails these checks.)
 */
static void
pairs(void)
{
	struct { double v; int i; } s[2], r[3];
	MPI_Status	st;
	double		x = 3.25;

	memset(s, 0, sizeof(s));
	s[0].v = 1.5;
	s[0].i = 1;
	s[1].v = 2.5;
	s[1].i = 2;
	memset(r, 0, sizeof(r));
	xchg(s, 2, MPI_DOUBLE_INT, r, 3, MPI_DOUBLE_INT, &st);
	expect("2 MPI_DOUBLE_INT", &st, MPI_DOUBLE_INT, 2, 4);
	if (r[1].v != 2.5 || r[1].i != 2)
		fail("2 MPI_DOUBLE_INT: landed wrong");

	xchg(&x, 1, MPI_DOUBLE, r, 3, MPI_DOUBLE_INT, &st);
	expect("a double into MPI_DOUBLE_INT", &st, MPI_DOUBLE_INT,
	    MPI_UNDEFINED, 1);
	if (r[0].v != 3.25 || r[0].i != 1)
		fail("a double into MPI_DOUBLE_INT: landed wrong");
}

int
main(int argc, char *argv[])
{
	int	size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	structs();
	vectors();
	pairs();
	return finish();
}
