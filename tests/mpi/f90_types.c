/* SPDX-License-Identifier: ISC */
/*
 * f90_types: MPI_Type_create_f90_integer, _real and _complex give the
 * type of the smallest Fortran kind with the decimal range (and
 * precision) asked for, as SELECTED_INT_KIND and SELECTED_REAL_KIND
 * pick it: its size says which, and under ft it is the named type
 * itself.  Either p or r may be MPI_UNDEFINED; both, or a range or
 * precision no kind has, is MPI_ERR_ARG with MPI_DATATYPE_NULL.  The
 * types work in a reduction.  Also MPI_Pcontrol, which does nothing
 * and succeeds at any level, with or without more arguments.
 */

#define NAME	"f90_types"
#include "mtest.h"

#include <float.h>

#define U	MPI_UNDEFINED

/* Kind 10 (x87 extended) where long double is it, else kind 16. */
#if LDBL_MANT_DIG == 64
#define REAL10		MPI_LONG_DOUBLE
#define COMPLEX10	MPI_C_LONG_DOUBLE_COMPLEX
#define SIZE10		((int)sizeof(long double))
#else
#define REAL10		MPI_REAL16
#define COMPLEX10	MPI_COMPLEX32
#define SIZE10		16
#endif

/* rc and got: what a call returned (call first, then check). */
static void
check(int rc, MPI_Datatype got, MPI_Datatype want, int size,
    const char *what)
{
	int	s = -1, ni, na, nt, comb = -1;

	ok(rc, what);
	if (rc != MPI_SUCCESS)
		return;
	MPI_Type_size(got, &s);
	if (s != size)
		fail("%s: a type of %d bytes, expected %d", what, s, size);
	if (!is_ft())
		return;
	if (got != want)
		fail("%s: not the expected named type", what);
	MPI_Type_get_envelope(got, &ni, &na, &nt, &comb);
	if (comb != MPI_COMBINER_NAMED)
		fail("%s: combiner %d, not MPI_COMBINER_NAMED", what, comb);
}

static void
none(int rc, MPI_Datatype got, const char *what)
{
	expect(rc, MPI_ERR_ARG, what);
	if (got != MPI_DATATYPE_NULL)
		fail("%s: a type, not MPI_DATATYPE_NULL", what);
}

static void
integers(void)
{
	static const struct {
		int		 r, size;
		MPI_Datatype	 want;
	} c[] = {
		{ 0, 1, MPI_INTEGER1 }, { 1, 1, MPI_INTEGER1 },
		{ 2, 1, MPI_INTEGER1 }, { 3, 2, MPI_INTEGER2 },
		{ 4, 2, MPI_INTEGER2 }, { 5, 4, MPI_INTEGER4 },
		{ 9, 4, MPI_INTEGER4 }, { 10, 8, MPI_INTEGER8 },
		{ 18, 8, MPI_INTEGER8 },
	};
	MPI_Datatype	t;
	char		what[64];
	size_t		i;
	int		rc;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(what, sizeof(what), "f90_integer(%d)", c[i].r);
		t = MPI_DATATYPE_NULL;
		rc = MPI_Type_create_f90_integer(c[i].r, &t);
		check(rc, t, c[i].want, c[i].size, what);
	}
	if (!is_ft())
		return;		/* others may have INTEGER16 */
	t = MPI_INT;
	rc = MPI_Type_create_f90_integer(19, &t);
	none(rc, t, "f90_integer(19)");
	t = MPI_INT;
	rc = MPI_Type_create_f90_integer(U, &t);
	none(rc, t, "f90_integer(MPI_UNDEFINED)");
}

static void
reals(void)
{
	static const struct {
		int		 p, r, size;
		MPI_Datatype	 real, cplx;
	} c[] = {
		{ 1, U, 4, MPI_REAL4, MPI_COMPLEX8 },
		{ 6, U, 4, MPI_REAL4, MPI_COMPLEX8 },
		{ U, 37, 4, MPI_REAL4, MPI_COMPLEX8 },
		{ 6, 37, 4, MPI_REAL4, MPI_COMPLEX8 },
		{ 7, U, 8, MPI_REAL8, MPI_COMPLEX16 },
		{ U, 38, 8, MPI_REAL8, MPI_COMPLEX16 },
		{ 3, 300, 8, MPI_REAL8, MPI_COMPLEX16 },
		{ 15, 307, 8, MPI_REAL8, MPI_COMPLEX16 },
		{ 16, U, SIZE10, REAL10, COMPLEX10 },
		{ U, 308, SIZE10, REAL10, COMPLEX10 },
		{ 19, U, 16, MPI_REAL16, MPI_COMPLEX32 },
		{ 33, 4931, 16, MPI_REAL16, MPI_COMPLEX32 },
	};
	MPI_Datatype	t;
	char		what[64];
	size_t		i;
	int		rc;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(what, sizeof(what), "f90_real(%d, %d)", c[i].p,
		    c[i].r);
		t = MPI_DATATYPE_NULL;
		rc = MPI_Type_create_f90_real(c[i].p, c[i].r, &t);
		check(rc, t, c[i].real, c[i].size, what);
		snprintf(what, sizeof(what), "f90_complex(%d, %d)", c[i].p,
		    c[i].r);
		t = MPI_DATATYPE_NULL;
		rc = MPI_Type_create_f90_complex(c[i].p, c[i].r, &t);
		check(rc, t, c[i].cplx, 2 * c[i].size, what);
	}
	/* No kind of gfortran's has these. */
	t = MPI_INT;
	rc = MPI_Type_create_f90_real(34, U, &t);
	none(rc, t, "f90_real(34, U)");
	t = MPI_INT;
	rc = MPI_Type_create_f90_real(U, 4932, &t);
	none(rc, t, "f90_real(U, 4932)");
	t = MPI_INT;
	rc = MPI_Type_create_f90_complex(40, 5000, &t);
	none(rc, t, "f90_complex(40, 5000)");
	t = MPI_INT;
	rc = MPI_Type_create_f90_real(U, U, &t);
	none(rc, t, "f90_real(U, U)");
	t = MPI_INT;
	rc = MPI_Type_create_f90_complex(U, U, &t);
	none(rc, t, "f90_complex(U, U)");
}

/* The types returned carry data: a sum over every rank. */
static void
reduce(void)
{
	MPI_Datatype	ti, tr;
	int		in = myrank + 1, out = 0;
	double		din = 0.5 * (myrank + 1), dout = 0;

	ok(MPI_Type_create_f90_integer(9, &ti), "f90_integer(9)");
	ok(MPI_Type_create_f90_real(15, U, &tr), "f90_real(15, U)");
	ok(MPI_Allreduce(&in, &out, 1, ti, MPI_SUM, MPI_COMM_WORLD),
	    "MPI_Allreduce of f90_integer(9)");
	ok(MPI_Allreduce(&din, &dout, 1, tr, MPI_SUM, MPI_COMM_WORLD),
	    "MPI_Allreduce of f90_real(15)");
	if (out != nprocs * (nprocs + 1) / 2)
		fail("integer sum %d, not %d", out, nprocs * (nprocs + 1) / 2);
	if (dout != 0.25 * nprocs * (nprocs + 1))
		fail("real sum %g, not %g", dout, 0.25 * nprocs * (nprocs + 1));
}

int
main(int argc, char **argv)
{
	init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	integers();
	reals();
	reduce();
	ok(MPI_Pcontrol(0), "MPI_Pcontrol(0)");
	ok(MPI_Pcontrol(1), "MPI_Pcontrol(1)");
	ok(MPI_Pcontrol(2, "more", 3.5), "MPI_Pcontrol(2, ...)");
	ok(MPI_Pcontrol(-1), "MPI_Pcontrol(-1)");
	return finish();
}
