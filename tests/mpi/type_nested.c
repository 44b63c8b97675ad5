/* SPDX-License-Identifier: ISC */
/*
 * type_nested: derived types of derived types (a vector of structs, an
 * indexed type of a resized int, a struct of vectors with a negative
 * displacement, a contiguous of an hindexed of a vector, duplicates and
 * resized versions of those, an hvector of an indexed_block of
 * MPI_DOUBLE_INT, a 3-d block of a 10x10x10 array, a vector big enough
 * to need more than one eager message) between ranks.  Each type goes
 * three ways: typed to MPI_BYTE (the bytes must be MPI_Pack's of the
 * sender's data), MPI_BYTE to typed (MPI_Unpack's result, with every
 * byte outside the type map untouched) and typed to typed.  A vector of
 * structs is also checked field by field, and MPI_Ssend, MPI_Bsend and
 * MPI_Sendrecv_replace carry derived types too.  Ranks pair up as
 * (0,1), (2,3), ...; an odd last rank, or a lone rank, is its own
 * partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_nested"
#define TAG_ERRS	32000
#define NB		(128 * 1024)
#define ORG		(64 * 1024)	/* buffers hold elements from here */
#define UNTOUCHED	0xee

static int	errs, myrank, peer, tag;

static unsigned char	sbuf[NB], rbuf[NB], ebuf[NB], xbuf[NB];
static unsigned char	packed[NB], epacked[NB];

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
	if (st != NULL)
		*st = sts[0];
}

/* The bytes rank r sends from. */
static void
fill(unsigned char *b, int r)
{
	size_t	i;

	for (i = 0; i < NB; i++)
		b[i] = (unsigned char)(i * 31 + (size_t)r * 7 + 1);
}

/* The first offset where a and b differ, or -1. */
static long
differ(const unsigned char *a, const unsigned char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

/* Commit t, check count elements of it both ways, and free it. */
static void
check(const char *what, MPI_Datatype t, int count)
{
	MPI_Aint	tlb, textent, lb, extent;
	MPI_Status	st;
	long		at;
	int		size, n, pos, got;

	MPI_Type_commit(&t);
	MPI_Type_size(t, &size);
	MPI_Type_get_extent(t, &lb, &extent);
	MPI_Type_get_true_extent(t, &tlb, &textent);
	n = size * count;
	if (n > NB || tlb < -ORG || tlb + textent + (count - 1) * extent >
	    NB - ORG) {
		fail("%s: does not fit the test buffers", what);
		MPI_Type_free(&t);
		return;
	}
	fill(sbuf, myrank);
	fill(ebuf, peer);
	pos = 0;
	MPI_Pack(ebuf + ORG, count, t, epacked, NB, &pos, MPI_COMM_WORLD);
	if (pos != n)
		fail("%s: MPI_Pack gave %d bytes, expected %d", what, pos, n);

	/* Typed to bytes. */
	memset(packed, 0, (size_t)n);
	xchg(sbuf + ORG, count, t, packed, NB, MPI_BYTE, &st);
	MPI_Get_count(&st, MPI_BYTE, &got);
	if (got != n)
		fail("%s: typed to MPI_BYTE: %d bytes, expected %d", what,
		    got, n);
	if ((at = differ(packed, epacked, (size_t)n)) >= 0)
		fail("%s: typed to MPI_BYTE: byte %ld differs", what, at);

	/* What MPI_Unpack makes of the peer's bytes. */
	memset(xbuf, UNTOUCHED, NB);
	pos = 0;
	MPI_Unpack(epacked, n, &pos, xbuf + ORG, count, t, MPI_COMM_WORLD);

	/* Bytes to typed: our own packed bytes go to the peer. */
	pos = 0;
	MPI_Pack(sbuf + ORG, count, t, packed, NB, &pos, MPI_COMM_WORLD);
	memset(rbuf, UNTOUCHED, NB);
	xchg(packed, n, MPI_BYTE, rbuf + ORG, count, t, &st);
	MPI_Get_count(&st, t, &got);
	if (got != (n > 0 ? count : 0))
		fail("%s: MPI_BYTE to typed: count %d, expected %d", what,
		    got, count);
	if ((at = differ(rbuf, xbuf, NB)) >= 0)
		fail("%s: MPI_BYTE to typed: byte %ld differs", what,
		    at - ORG);

	/* Typed to typed. */
	memset(rbuf, UNTOUCHED, NB);
	xchg(sbuf + ORG, count, t, rbuf + ORG, count, t, NULL);
	if ((at = differ(rbuf, xbuf, NB)) >= 0)
		fail("%s: typed to typed: byte %ld differs", what, at - ORG);
	MPI_Type_free(&t);
}

static MPI_Datatype
int_double(void)
{
	struct { int i; double d; } s;
	MPI_Datatype	t, types[2] = { MPI_INT, MPI_DOUBLE };
	MPI_Aint	disp[2];
	int		bl[2] = { 1, 1 };

	memset(&s, 0, sizeof(s));
	MPI_Get_address(&s.i, &disp[0]);
	MPI_Get_address(&s.d, &disp[1]);
	disp[1] = MPI_Aint_diff(disp[1], disp[0]);
	disp[0] = 0;
	MPI_Type_create_struct(2, bl, disp, types, &t);
	return t;
}

/* A vector of structs, checked field by field. */
static void
vector_of_structs(void)
{
	struct { int i; double d; } mine[12], got[12];
	MPI_Datatype	s, v;
	int		k;

	s = int_double();
	/* Structs 0, 1, 4, 5, 8, 9: 3 blocks of 2, stride 4. */
	MPI_Type_vector(3, 2, 4, s, &v);
	MPI_Type_commit(&v);
	memset(mine, 0, sizeof(mine));
	memset(got, 0, sizeof(got));
	for (k = 0; k < 12; k++) {
		mine[k].i = myrank * 100 + k;
		mine[k].d = myrank + k / 8.0;
		got[k].i = -1;
		got[k].d = -1;
	}
	xchg(mine, 1, v, got, 1, v, NULL);
	for (k = 0; k < 12; k++) {
		int in = k % 4 < 2 && k < 10;

		if (in && (got[k].i != peer * 100 + k ||
		    got[k].d != peer + k / 8.0))
			fail("vector of structs: struct %d is %d %g", k,
			    got[k].i, got[k].d);
		if (!in && (got[k].i != -1 || got[k].d != -1))
			fail("vector of structs: struct %d was written", k);
	}
	MPI_Type_free(&v);
	MPI_Type_free(&s);
}

/* Other send modes and calls carry derived types too. */
static void
other_calls(void)
{
	int		a[16], b[16], want[16], k, bsize;
	MPI_Datatype	v;
	void		*bb;

	MPI_Type_vector(4, 1, 3, MPI_INT, &v);	/* ints 0, 3, 6, 9 */
	MPI_Type_commit(&v);

	for (k = 0; k < 16; k++) {
		a[k] = myrank * 100 + k;
		b[k] = -1;
		want[k] = k % 3 == 0 && k < 12 ? peer * 100 + k : -1;
	}
	tag++;
	if (myrank < peer) {
		MPI_Ssend(a, 1, v, peer, tag, MPI_COMM_WORLD);
		MPI_Recv(b, 1, v, peer, tag, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	} else if (myrank > peer) {
		MPI_Recv(b, 1, v, peer, tag, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		MPI_Ssend(a, 1, v, peer, tag, MPI_COMM_WORLD);
	} else
		memcpy(b, want, sizeof(b));	/* no partner to Ssend to */
	if (memcmp(b, want, sizeof(b)) != 0)
		fail("MPI_Ssend of a vector: wrong data");

	MPI_Pack_size(1, v, MPI_COMM_WORLD, &bsize);
	bsize += MPI_BSEND_OVERHEAD;
	if ((bb = malloc((size_t)bsize)) == NULL)
		abort();
	MPI_Buffer_attach(bb, bsize);
	for (k = 0; k < 16; k++)
		b[k] = -1;
	tag++;
	MPI_Bsend(a, 1, v, peer, tag, MPI_COMM_WORLD);
	MPI_Recv(b, 1, v, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Buffer_detach(&bb, &bsize);
	free(bb);
	if (memcmp(b, want, sizeof(b)) != 0)
		fail("MPI_Bsend of a vector: wrong data");

	/* In place: typed positions come from the peer, holes stay ours. */
	for (k = 0; k < 16; k++)
		want[k] = k % 3 == 0 && k < 12 ? peer * 100 + k :
		    myrank * 100 + k;
	tag++;
	MPI_Sendrecv_replace(a, 1, v, peer, tag, peer, tag, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	if (memcmp(a, want, sizeof(a)) != 0)
		fail("MPI_Sendrecv_replace of a vector: wrong data");
	MPI_Type_free(&v);
}

int
main(int argc, char *argv[])
{
	MPI_Datatype	s, t, u, v, w, parts[3];
	MPI_Aint	disp[3];
	int		size, bl[3];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	vector_of_structs();
	other_calls();

	s = int_double();
	MPI_Type_vector(3, 2, 3, s, &t);
	check("vector of struct", t, 2);
	MPI_Type_free(&s);

	MPI_Type_create_resized(MPI_INT, 0, 12, &u);
	bl[0] = 2;
	bl[1] = 1;
	{
		int d[2] = { 0, 4 };

		MPI_Type_indexed(2, bl, d, u, &t);
	}
	MPI_Type_free(&u);
	check("indexed of resized", t, 3);

	MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &parts[0]);
	MPI_Type_contiguous(3, MPI_INT, &parts[1]);
	parts[2] = MPI_SHORT;
	disp[0] = 0;
	disp[1] = 64;
	disp[2] = -8;
	bl[0] = bl[1] = bl[2] = 1;
	MPI_Type_create_struct(3, bl, disp, parts, &t);
	MPI_Type_free(&parts[0]);
	MPI_Type_free(&parts[1]);
	MPI_Type_dup(t, &u);
	check("struct of vectors", t, 2);
	MPI_Type_create_resized(u, -16, 96, &w);
	MPI_Type_free(&u);
	check("resized struct of vectors", w, 3);

	MPI_Type_vector(2, 1, 2, MPI_INT, &v);
	bl[0] = 1;
	bl[1] = 2;
	disp[0] = 0;
	disp[1] = 40;
	MPI_Type_create_hindexed(2, bl, disp, v, &u);
	MPI_Type_free(&v);
	MPI_Type_contiguous(2, u, &t);
	MPI_Type_free(&u);
	MPI_Type_dup(t, &u);
	check("contiguous of hindexed of vector", t, 2);
	check("dup of that", u, 3);

	{
		int d[2] = { 0, 1 };

		MPI_Type_create_indexed_block(2, 1, d, MPI_DOUBLE_INT, &u);
	}
	MPI_Type_create_hvector(3, 1, 40, u, &t);
	MPI_Type_free(&u);
	check("hvector of indexed_block of MPI_DOUBLE_INT", t, 2);

	/* A 2x4x3 block of a 10x10x10 array of doubles. */
	MPI_Type_vector(4, 3, 10, MPI_DOUBLE, &u);
	MPI_Type_create_hvector(2, 1, 10 * 10 * sizeof(double), u, &t);
	MPI_Type_free(&u);
	check("3-d block", t, 1);

	MPI_Type_vector(1000, 3, 5, MPI_DOUBLE, &t);
	check("vector(1000,3,5) of 24000 bytes", t, 1);

	bl[0] = 2;
	bl[1] = 3;
	disp[0] = -40;
	disp[1] = 0;
	MPI_Type_vector(2, 1, 2, MPI_FLOAT, &v);
	MPI_Type_create_resized(v, 0, 16, &parts[1]);
	MPI_Type_free(&v);
	parts[0] = MPI_2INT;
	MPI_Type_create_struct(2, bl, disp, parts, &t);
	MPI_Type_free(&parts[1]);
	check("struct of MPI_2INT and resized vector", t, 3);
	return finish();
}
