/* SPDX-License-Identifier: ISC */
/*
 * typex_fortran: the Fortran named types from C, with gfortran's
 * default sizes: their sizes and extents, MPI_Type_match_size, the
 * reductions the standard allows on each class (Fortran integers take
 * no logical operation, LOGICAL only logical ones, the pairs of MAXLOC
 * and MINLOC have an index of the value's type), over MPI_Allreduce on
 * every rank, and the operations they refuse.
 */
#define NAME	"typex_fortran"
#include "mtest.h"

#include <stdint.h>

static void
sizes(void)
{
	static const struct {
		MPI_Datatype	 t;
		const char	*name;
		int		 size;
	} f[] = {
		{ MPI_CHARACTER, "MPI_CHARACTER", 1 },
		{ MPI_LOGICAL, "MPI_LOGICAL", 4 },
		{ MPI_INTEGER, "MPI_INTEGER", 4 },
		{ MPI_REAL, "MPI_REAL", 4 },
		{ MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8 },
		{ MPI_COMPLEX, "MPI_COMPLEX", 8 },
		{ MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16 },
		{ MPI_INTEGER1, "MPI_INTEGER1", 1 },
		{ MPI_INTEGER2, "MPI_INTEGER2", 2 },
		{ MPI_INTEGER4, "MPI_INTEGER4", 4 },
		{ MPI_INTEGER8, "MPI_INTEGER8", 8 },
		{ MPI_REAL4, "MPI_REAL4", 4 },
		{ MPI_REAL8, "MPI_REAL8", 8 },
		{ MPI_REAL16, "MPI_REAL16", 16 },
		{ MPI_COMPLEX8, "MPI_COMPLEX8", 8 },
		{ MPI_COMPLEX16, "MPI_COMPLEX16", 16 },
		{ MPI_COMPLEX32, "MPI_COMPLEX32", 32 },
		{ MPI_2INTEGER, "MPI_2INTEGER", 8 },
		{ MPI_2REAL, "MPI_2REAL", 8 },
		{ MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16 },
	};
	static const struct {
		int		 tc, size;
		MPI_Datatype	 t;
	} m[] = {
		{ MPI_TYPECLASS_REAL, 4, MPI_REAL4 },
		{ MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
		{ MPI_TYPECLASS_REAL, 16, MPI_REAL16 },
		{ MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },
		{ MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
		{ MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },
		{ MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
	};
	MPI_Datatype	t;
	MPI_Aint	lb, ext;
	size_t		i;
	int		size, ni, na, nd, comb;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		MPI_Type_size(f[i].t, &size);
		MPI_Type_get_extent(f[i].t, &lb, &ext);
		MPI_Type_get_envelope(f[i].t, &ni, &na, &nd, &comb);
		if (size != f[i].size || lb != 0 || ext != f[i].size ||
		    comb != MPI_COMBINER_NAMED)
			fail("%s: size %d extent %td combiner %d, expected "
			    "size and extent %d, named", f[i].name, size, ext,
			    comb, f[i].size);
	}
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		t = MPI_DATATYPE_NULL;
		MPI_Type_match_size(m[i].tc, m[i].size, &t);
		if (t != m[i].t)
			fail("MPI_Type_match_size(%d, %d) is another type",
			    m[i].tc, m[i].size);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect_rc(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG,
	    "MPI_Type_match_size of a 3-byte real");
	expect_rc(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG,
	    "MPI_Type_match_size of class 99");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void
reductions(void)
{
	struct { float v, i; } r2[2], r2o[2];
	struct { double v, i; } d2, d2o;
	struct { int32_t v, i; } i2, i2o;
	double dc[2][2], dco[2][2];
	int64_t i8, i8o;
	int32_t in[2], ino[2], lg[3], lgo[3];
	int n = nprocs, r = myrank, k;

	in[0] = r;
	in[1] = -r;
	MPI_Allreduce(in, ino, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
	if (ino[0] != n * (n - 1) / 2 || ino[1] != -n * (n - 1) / 2)
		fail("MPI_INTEGER SUM: %d %d", ino[0], ino[1]);
	i8 = (int64_t)r << 40;
	MPI_Allreduce(&i8, &i8o, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD);
	if (i8o != (int64_t)(n - 1) << 40)
		fail("MPI_INTEGER8 MAX: %lld", (long long)i8o);
	in[0] = 0x10 << r % 8;
	MPI_Allreduce(in, ino, 1, MPI_INTEGER4, MPI_BOR, MPI_COMM_WORLD);
	for (k = 0, in[1] = 0; k < n; k++)
		in[1] |= 0x10 << k % 8;
	if (ino[0] != in[1])
		fail("MPI_INTEGER4 BOR: %#x, expected %#x", ino[0], in[1]);

	/*
	 * LOGICAL: any non-zero is true, and a result combined from more
	 * than one rank is 0 or 1 (one rank's value is left as it is).
	 */
	lg[0] = 7;			/* true everywhere */
	lg[1] = r == n - 1 ? 0 : -1;	/* false on the last rank */
	lg[2] = r == 0 ? 5 : 0;		/* true on rank 0 only */
	MPI_Allreduce(lg, lgo, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
	if (n > 1 && (lgo[0] != 1 || lgo[1] != 0 || lgo[2] != 0))
		fail("MPI_LOGICAL LAND: %d %d %d", lgo[0], lgo[1], lgo[2]);
	MPI_Allreduce(lg, lgo, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD);
	if (n > 1 && (lgo[0] != 1 || lgo[1] != 1 || lgo[2] != 1))
		fail("MPI_LOGICAL LOR: %d %d %d", lgo[0], lgo[1], lgo[2]);
	MPI_Allreduce(lg, lgo, 3, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD);
	if (!lgo[0] != !(n % 2) || !lgo[1] != !((n - 1) % 2) || !lgo[2])
		fail("MPI_LOGICAL LXOR: %d %d %d", lgo[0], lgo[1], lgo[2]);

	/* Complex, double: (1 + i)^n. */
	dc[0][0] = 1;
	dc[0][1] = 1;
	dc[1][0] = r;
	dc[1][1] = 0;
	MPI_Allreduce(dc, dco, 1, MPI_DOUBLE_COMPLEX, MPI_PROD,
	    MPI_COMM_WORLD);
	{
		double re = 1, im = 0, t;

		for (k = 0; k < n; k++) {
			t = re - im;
			im = re + im;
			re = t;
		}
		if (dco[0][0] != re || dco[0][1] != im)
			fail("MPI_DOUBLE_COMPLEX PROD: %g%+gi, expected %g%+gi",
			    dco[0][0], dco[0][1], re, im);
	}

	/* Pairs: the largest value, the lowest index among ties. */
	r2[0].v = (float)(r % 3);
	r2[0].i = (float)r;
	r2[1].v = (float)-r;
	r2[1].i = (float)r;
	MPI_Allreduce(r2, r2o, 2, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD);
	if (r2o[0].v != (float)(n > 2 ? 2 : n - 1) ||
	    r2o[0].i != (float)(n > 2 ? 2 : n - 1) || r2o[1].v != 0 ||
	    r2o[1].i != 0)
		fail("MPI_2REAL MAXLOC: (%g, %g) (%g, %g)", r2o[0].v,
		    r2o[0].i, r2o[1].v, r2o[1].i);
	d2.v = (double)(r % 2);
	d2.i = (double)(n - r);
	MPI_Allreduce(&d2, &d2o, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC,
	    MPI_COMM_WORLD);
	if (d2o.v != 0 || d2o.i != (double)(n - (n - 1) / 2 * 2))
		fail("MPI_2DOUBLE_PRECISION MINLOC: (%g, %g)", d2o.v, d2o.i);
	i2.v = 100 - r;
	i2.i = r;
	MPI_Allreduce(&i2, &i2o, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD);
	if (i2o.v != 100 - (n - 1) || i2o.i != n - 1)
		fail("MPI_2INTEGER MINLOC: (%d, %d)", i2o.v, i2o.i);

#ifdef __SIZEOF_FLOAT128__
	{
		__float128 q[2], qo[2];

		q[0] = 1;
		q[1] = (__float128)r / 4;
		MPI_Allreduce(q, qo, 2, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
		if (qo[0] != n || qo[1] != (__float128)(n * (n - 1) / 2) / 4)
			fail("MPI_REAL16 SUM: %g %g", (double)qo[0],
			    (double)qo[1]);
		q[0] = r + 1;		/* re */
		q[1] = 0;		/* im */
		MPI_Allreduce(q, qo, 1, MPI_COMPLEX32, MPI_SUM,
		    MPI_COMM_WORLD);
		if (qo[0] != n * (n + 1) / 2 || qo[1] != 0)
			fail("MPI_COMPLEX32 SUM: %g", (double)qo[0]);
	}
#endif
}

/* Pairings the standard does not allow are MPI_ERR_OP. */
static void
refused(void)
{
	static const struct {
		MPI_Datatype	 t;
		MPI_Op		 op;
		const char	*what;
	} bad[] = {
		{ MPI_INTEGER, MPI_LAND, "MPI_INTEGER LAND" },
		{ MPI_LOGICAL, MPI_SUM, "MPI_LOGICAL SUM" },
		{ MPI_LOGICAL, MPI_BAND, "MPI_LOGICAL BAND" },
		{ MPI_REAL, MPI_BOR, "MPI_REAL BOR" },
		{ MPI_COMPLEX, MPI_MAX, "MPI_COMPLEX MAX" },
		{ MPI_CHARACTER, MPI_MAX, "MPI_CHARACTER MAX" },
		{ MPI_2REAL, MPI_SUM, "MPI_2REAL SUM" },
		{ MPI_REAL8, MPI_MAXLOC, "MPI_REAL8 MAXLOC" },
	};
	char a[64], b[64];
	size_t i;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_rc(MPI_Reduce_local(a, b, 1, bad[i].t, bad[i].op),
		    MPI_ERR_OP, bad[i].what);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	sizes();
	reductions();
	refused();
	return finish();
}
