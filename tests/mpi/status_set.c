/* SPDX-License-Identifier: ISC */
/*
 * status_set: MPI_Status_set_elements, _set_elements_x and
 * MPI_Status_set_cancelled, read back by MPI_Get_count,
 * MPI_Get_elements, MPI_Get_elements_x and MPI_Test_cancelled: counts
 * of predefined types, of pair types, and of derived types that end
 * inside an element, counts too large for an int, and zero.  Also
 * MPI_Type_size_x and MPI_Type_get_extent_x of MPI_COUNT.
 */

#define NAME		"status_set"
#include "mtest.h"

/* Set n elements of t; check count and elements against want. */
static void
check(MPI_Datatype t, MPI_Count n, int want_count, const char *what)
{
	MPI_Status	st;
	MPI_Count	ex;
	int		c = -2, e = -2;

	memset(&st, 0, sizeof(st));
	if (n <= 0x7fffffff)
		ok(MPI_Status_set_elements(&st, t, (int)n), what);
	else
		ok(MPI_Status_set_elements_x(&st, t, n), what);
	MPI_Get_count(&st, t, &c);
	MPI_Get_elements(&st, t, &e);
	MPI_Get_elements_x(&st, t, &ex);
	if (c != want_count || ex != n ||
	    e != (n > 0x7fffffff ? MPI_UNDEFINED : (int)n))
		fail("%s: count %d elements %d elements_x %lld, expected "
		    "%d %lld", what, c, e, (long long)ex, want_count,
		    (long long)n);
	/* The _x form sets the same. */
	memset(&st, 0, sizeof(st));
	ok(MPI_Status_set_elements_x(&st, t, n), what);
	MPI_Get_elements_x(&st, t, &ex);
	if (ex != n)
		fail("%s: set_elements_x then elements_x %lld", what,
		    (long long)ex);
}

int
main(int argc, char *argv[])
{
	MPI_Datatype	pair, vec, st2;
	MPI_Status	st;
	MPI_Count	size, lb, ext;
	MPI_Aint	disp[2];
	MPI_Datatype	types[2] = { MPI_INT, MPI_DOUBLE };
	int		flag, blens[2] = { 1, 2 };
	struct { int i; double d[2]; } s;

	init(&argc, &argv);

	check(MPI_INT, 5, 5, "5 ints");
	check(MPI_BYTE, 0, 0, "0 bytes");
	check(MPI_DOUBLE_INT, 4, 2, "4 elements of MPI_DOUBLE_INT");
	check(MPI_BYTE, 3000000000LL, MPI_UNDEFINED, "3e9 bytes");
	MPI_Type_vector(3, 2, 4, MPI_SHORT, &vec);
	MPI_Type_commit(&vec);
	check(vec, 12, 2, "12 shorts of a vector of 6");
	check(vec, 7, MPI_UNDEFINED, "7 shorts of a vector of 6");
	MPI_Get_address(&s.i, &disp[0]);
	MPI_Get_address(&s.d, &disp[1]);
	disp[1] -= disp[0];
	disp[0] = 0;
	MPI_Type_create_struct(2, blens, disp, types, &st2);
	MPI_Type_commit(&st2);
	check(st2, 3, 1, "3 elements of a struct of 3");
	check(st2, 4, MPI_UNDEFINED, "4 elements of a struct of 3");
	check(st2, 5, MPI_UNDEFINED, "5 elements of a struct of 3");
	MPI_Type_contiguous(2, MPI_2INT, &pair);
	MPI_Type_commit(&pair);
	check(pair, 6, MPI_UNDEFINED, "6 elements of 2 MPI_2INT");

	MPI_Status_set_elements(&st, MPI_INT, 1);
	ok(MPI_Status_set_cancelled(&st, 1), "Status_set_cancelled");
	MPI_Test_cancelled(&st, &flag);
	if (!flag)
		fail("set_cancelled(1) then Test_cancelled gave false");
	MPI_Status_set_cancelled(&st, 0);
	MPI_Test_cancelled(&st, &flag);
	if (flag)
		fail("set_cancelled(0) then Test_cancelled gave true");

	MPI_Type_size_x(MPI_COUNT, &size);
	MPI_Type_get_extent_x(MPI_COUNT, &lb, &ext);
	if (size != (MPI_Count)sizeof(MPI_Count) || lb != 0 || ext != size)
		fail("MPI_COUNT has size %lld, extent %lld", (long long)size,
		    (long long)ext);

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect(MPI_Status_set_elements(&st, MPI_INT, -1), ANY_ERROR,
	    "Status_set_elements(-1)");
	expect(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1),
	    MPI_ERR_TYPE, "Status_set_elements of MPI_DATATYPE_NULL");
	expect(MPI_Status_set_elements(MPI_STATUS_IGNORE, MPI_INT, 1),
	    ANY_ERROR, "Status_set_elements(MPI_STATUS_IGNORE)");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Type_free(&vec);
	MPI_Type_free(&st2);
	MPI_Type_free(&pair);
	return finish();
}
