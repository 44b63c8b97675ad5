/* SPDX-License-Identifier: ISC */
/*
 * typex_external: "external32" between ranks.  Each rank packs records
 * of a C struct (int, long, double, long double, wchar_t, short, chars,
 * _Bool; padding in between) described by a struct type, and a strided
 * vector of doubles, with MPI_Pack_external, sends the bytes to the
 * next rank as MPI_BYTE, which unpacks them: the values must come back,
 * the sizes be the standard's (long 4 bytes, long double 16, wchar_t 2,
 * no padding), and the bytes big-endian.  Also from MPI_BOTTOM with a
 * type of absolute addresses, and the errors of a bad data
 * representation and of too small a buffer.
 */
#define NAME	"typex_external"
#include "mtest.h"

#include <wchar.h>

#define NREC	3
#define XREC	(4 + 4 + 8 + 16 + 2 + 2 + 3 + 1)	/* external32 bytes */

struct rec {
	int		i;
	long		l;
	double		d;
	long double	ld;
	wchar_t		w;
	short		s;
	char		c[3];
	_Bool		b;
};

static void
rec_fill(struct rec *x, int r, int k)
{
	memset(x, 0, sizeof(*x));
	x->i = 0x01020304 + r * 16 + k;
	x->l = -100000L * (r + 1) - k;
	x->d = 1.0 / (r + k + 3);
	x->ld = (long double)1 / 3 + r - k;
	x->w = (wchar_t)(0xe9 + r + k);
	x->s = (short)(-r - k);
	memcpy(x->c, "ab", 3);
	x->c[2] = (char)('a' + r % 26);
	x->b = (r + k) % 2;
}

static int
rec_same(const struct rec *x, const struct rec *y)
{
	return x->i == y->i && x->l == y->l && x->d == y->d &&
	    x->ld == y->ld && x->w == y->w && x->s == y->s &&
	    memcmp(x->c, y->c, 3) == 0 && x->b == y->b;
}

static MPI_Datatype
rec_type(void)
{
	struct rec	x = { 0 };
	MPI_Datatype	s, t, types[8] = { MPI_INT, MPI_LONG, MPI_DOUBLE,
			    MPI_LONG_DOUBLE, MPI_WCHAR, MPI_SHORT, MPI_CHAR,
			    MPI_C_BOOL };
	MPI_Aint	d[8];
	int		bl[8] = { 1, 1, 1, 1, 1, 1, 3, 1 }, i;

	d[0] = addr(&x.i);
	d[1] = addr(&x.l);
	d[2] = addr(&x.d);
	d[3] = addr(&x.ld);
	d[4] = addr(&x.w);
	d[5] = addr(&x.s);
	d[6] = addr(x.c);
	d[7] = addr(&x.b);
	for (i = 7; i >= 0; i--)
		d[i] -= d[0];
	MPI_Type_create_struct(8, bl, d, types, &s);
	MPI_Type_create_resized(s, 0, (MPI_Aint)sizeof(x), &t);
	MPI_Type_free(&s);
	MPI_Type_commit(&t);
	return t;
}

static void
exchange(void)
{
	MPI_Datatype	 t, v;
	MPI_Aint	 size, vsize, pos;
	struct rec	 out[NREC], in[NREC], want;
	double		 dv[8], dvin[8];
	unsigned char	*buf, *rbuf;
	int		 next = (myrank + 1) % nprocs, k, n;
	int		 prev = (myrank + nprocs - 1) % nprocs;

	t = rec_type();
	MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &v);
	MPI_Type_commit(&v);
	MPI_Pack_external_size("external32", NREC, t, &size);
	MPI_Pack_external_size("external32", 1, v, &vsize);
	if (size != NREC * XREC || vsize != 4 * 8)
		fail("MPI_Pack_external_size: %td and %td, expected %d and "
		    "32", size, vsize, NREC * XREC);
	buf = xzalloc((size_t)(size + vsize));
	rbuf = xzalloc((size_t)(size + vsize));
	for (k = 0; k < NREC; k++)
		rec_fill(&out[k], myrank, k);
	for (k = 0; k < 8; k++)
		dv[k] = myrank + k / 8.0;
	pos = 0;
	MPI_Pack_external("external32", out, NREC, t, buf, size + vsize,
	    &pos);
	MPI_Pack_external("external32", dv, 1, v, buf, size + vsize, &pos);
	if (pos != size + vsize)
		fail("MPI_Pack_external: position %td, expected %td", pos,
		    size + vsize);
	/* The first int, big-endian, then the long in 4 bytes. */
	if (buf[0] != 0x01 || buf[1] != 0x02 || buf[2] != 0x03 ||
	    buf[4] != 0xff)
		fail("external32 bytes: %02x %02x %02x .. %02x", buf[0],
		    buf[1], buf[2], buf[4]);
	MPI_Sendrecv(buf, (int)pos, MPI_BYTE, next, 1, rbuf, (int)pos,
	    MPI_BYTE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	memset(in, 0x55, sizeof(in));
	memset(dvin, 0, sizeof(dvin));
	pos = 0;
	MPI_Unpack_external("external32", rbuf, size + vsize, &pos, in, NREC,
	    t);
	MPI_Unpack_external("external32", rbuf, size + vsize, &pos, dvin, 1,
	    v);
	for (k = 0; k < NREC; k++) {
		rec_fill(&want, prev, k);
		if (!rec_same(&in[k], &want))
			fail("record %d from rank %d: i %#x l %ld, expected "
			    "%#x %ld", k, prev, in[k].i, in[k].l, want.i,
			    want.l);
	}
	for (k = n = 0; k < 8; k++)
		n += dvin[k] != (k % 2 ? 0 : prev + k / 8.0);
	if (n != 0)
		fail("the strided doubles from rank %d: %d wrong", prev, n);
	free(buf);
	free(rbuf);
	MPI_Type_free(&t);
	MPI_Type_free(&v);
}

/* From MPI_BOTTOM; and the errors. */
static void
bottom_and_errors(void)
{
	MPI_Datatype	t;
	MPI_Aint	pos, d;
	unsigned char	buf[16];
	long double	ld = -2.5L, back = 0;
	int		bl = 1, x = 7;

	d = addr(&ld);
	MPI_Type_create_hindexed(1, &bl, &d, MPI_LONG_DOUBLE, &t);
	MPI_Type_commit(&t);
	pos = 0;
	MPI_Pack_external("external32", MPI_BOTTOM, 1, t, buf, sizeof(buf),
	    &pos);
	/* -2.5 = -1.25 * 2^1: sign, exponent 0x4000, fraction .01 */
	if (pos != 16 || buf[0] != 0xc0 || buf[1] != 0x00 || buf[2] != 0x40)
		fail("MPI_Pack_external of -2.5L from MPI_BOTTOM: %td bytes "
		    "%02x %02x %02x", pos, buf[0], buf[1], buf[2]);
	pos = 0;
	MPI_Unpack_external("external32", buf, 16, &pos, &back, 1,
	    MPI_LONG_DOUBLE);
	if (back != ld)
		fail("-2.5L came back as %Lg", back);
	MPI_Type_free(&t);

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	pos = 0;
	expect_rc(MPI_Pack_external("internal", &x, 1, MPI_INT, buf,
	    sizeof(buf), &pos), MPI_ERR_ARG, "data representation internal");
	pos = 14;
	expect_rc(MPI_Pack_external("external32", &x, 1, MPI_INT, buf,
	    sizeof(buf), &pos), MPI_ERR_TRUNCATE, "packing past the end");
	if (pos != 14)
		fail("packing past the end moved the position to %td", pos);
	expect_rc(MPI_Pack_external_size("external32", -1, MPI_INT, &pos),
	    MPI_ERR_COUNT, "MPI_Pack_external_size of -1");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	exchange();
	bottom_and_errors();
	return finish();
}
