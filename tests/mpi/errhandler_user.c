/* SPDX-License-Identifier: ISC */
/*
 * errhandler_user: error handlers and error codes of the application.
 * A handler made by MPI_Comm_create_errhandler is called, with the
 * communicator and the error code, for errors in calls on its
 * communicator (MPI_COMM_WORLD's for calls on no valid one), after
 * which the call returns the code; new communicators inherit it;
 * MPI_Comm_get_errhandler hands out handles to free, and a handler
 * stays in use after its handles are freed.  MPI_Comm_call_errhandler
 * calls the handler, returning MPI_SUCCESS also under
 * MPI_ERRORS_RETURN.  MPI_Add_error_class, _code and _string add codes
 * above MPI_ERR_LASTCODE that MPI_Error_class, MPI_Error_string and
 * the MPI_LASTUSEDCODE attribute know.
 */

#define NAME		"errhandler_user"
#include "mtest.h"

/* What the handler saw. */
static int	calls, last_code;
static MPI_Comm	last_comm;

static void
handler(MPI_Comm *comm, int *code, ...)
{
	calls++;
	last_comm = *comm;
	last_code = *code;
}

static void
saw(int n, MPI_Comm comm, int cls, const char *what)
{
	int	c = -1;

	MPI_Error_class(last_code, &c);
	if (calls != n)
		fail("%s: the handler ran %d times, expected %d", what, calls,
		    n);
	else if (n > 0 && (last_comm != comm || c != cls))
		fail("%s: the handler got class %d, expected %d", what, c,
		    cls);
}

static void
handlers(void)
{
	MPI_Errhandler	eh, got, copy;
	MPI_Comm	c, d;
	int		rc, buf = 0, x;

	ok(MPI_Comm_create_errhandler(handler, &eh),
	    "Comm_create_errhandler");
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	ok(MPI_Comm_set_errhandler(c, eh), "Comm_set_errhandler");
	calls = 0;
	rc = MPI_Send(&buf, 1, MPI_INT, nprocs, 0, c);
	expect(rc, MPI_ERR_RANK, "Send to rank nprocs, user handler");
	saw(1, c, MPI_ERR_RANK, "Send to rank nprocs");

	/* Inherited, and kept after the handle is freed. */
	ok(MPI_Errhandler_free(&eh), "Errhandler_free");
	if (eh != MPI_ERRHANDLER_NULL)
		fail("Errhandler_free left the handle");
	MPI_Comm_dup(c, &d);
	calls = 0;
	rc = MPI_Recv(&buf, 1, MPI_INT, 0, -5, d, MPI_STATUS_IGNORE);
	expect(rc, MPI_ERR_TAG, "Recv with tag -5, inherited handler");
	saw(1, d, MPI_ERR_TAG, "Recv with tag -5");
	ok(MPI_Comm_get_errhandler(d, &got), "Comm_get_errhandler");
	copy = got;
	MPI_Comm_set_errhandler(MPI_COMM_SELF, got);
	ok(MPI_Errhandler_free(&got), "Errhandler_free of a handle got");

	/* Comm_call_errhandler: the handler runs, the call succeeds. */
	calls = 0;
	ok(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER), "Comm_call_errhandler");
	saw(1, d, MPI_ERR_OTHER, "Comm_call_errhandler");
	calls = 0;
	ok(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_ARG),
	    "Comm_call_errhandler on MPI_COMM_SELF");
	saw(1, MPI_COMM_SELF, MPI_ERR_ARG, "call on MPI_COMM_SELF");
	MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
	calls = 0;
	ok(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER),
	    "Comm_call_errhandler under MPI_ERRORS_RETURN");
	saw(0, d, 0, "call under MPI_ERRORS_RETURN");
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

	/* Calls on no valid communicator go to MPI_COMM_WORLD's. */
	ok(MPI_Comm_get_errhandler(c, &got), "Comm_get_errhandler");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, got);
	calls = 0;
	rc = MPI_Comm_rank(MPI_COMM_NULL, &x);
	expect(rc, MPI_ERR_COMM, "Comm_rank of MPI_COMM_NULL");
	saw(1, MPI_COMM_WORLD, MPI_ERR_COMM, "Comm_rank of MPI_COMM_NULL");
	ok(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh), "get on world");
	if (eh != got)
		fail("Comm_get_errhandler gave another handler");
	MPI_Errhandler_free(&eh);
	MPI_Errhandler_free(&got);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (is_ft())
		/* Every handle to it is freed: it is no handle any more. */
		expect(MPI_Comm_set_errhandler(c, copy), MPI_ERR_ARG,
		    "Comm_set_errhandler of a freed handler");
	expect(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG,
	    "Comm_create_errhandler without a function");
	expect(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER),
	    MPI_ERR_COMM, "Comm_call_errhandler on MPI_COMM_NULL");
	MPI_Comm_free(&d);
	MPI_Comm_free(&c);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void
codes(void)
{
	MPI_Errhandler	eh;
	MPI_Comm	c;
	char		str[MPI_MAX_ERROR_STRING], big[MPI_MAX_ERROR_STRING + 8];
	int		cls, cls2, code, code2, code3, r, len, flag, *last;

	ok(MPI_Add_error_class(&cls), "Add_error_class");
	ok(MPI_Add_error_code(cls, &code), "Add_error_code");
	ok(MPI_Add_error_class(&cls2), "Add_error_class");
	ok(MPI_Add_error_code(MPI_ERR_ARG, &code2), "Add_error_code, ARG");
	ok(MPI_Add_error_code(cls, &code3), "Add_error_code");
	if (cls <= MPI_ERR_LASTCODE || code <= MPI_ERR_LASTCODE ||
	    cls == code || cls2 == code || code2 == code3 || code3 == code)
		fail("new codes %d %d %d %d %d are not new", cls, code, cls2,
		    code2, code3);
	MPI_Error_class(cls, &r);
	if (r != cls)
		fail("Error_class of a new class is %d", r);
	MPI_Error_class(code, &r);
	if (r != cls)
		fail("Error_class of a new code is %d, expected %d", r, cls);
	MPI_Error_class(code2, &r);
	if (r != MPI_ERR_ARG)
		fail("Error_class of a code of MPI_ERR_ARG is %d", r);

	/* No string yet, then one, then another. */
	str[0] = 'x';
	ok(MPI_Error_string(code, str, &len), "Error_string");
	if (len != 0 || str[0] != '\0')
		fail("a code without a string gave \"%s\"", str);
	ok(MPI_Add_error_string(code, "first"), "Add_error_string");
	ok(MPI_Add_error_string(code, "the disk is full"), "again");
	ok(MPI_Add_error_string(cls, "storage trouble"), "for the class");
	MPI_Error_string(code, str, &len);
	if (strcmp(str, "the disk is full") != 0 || len != (int)strlen(str))
		fail("Error_string gave \"%s\", length %d", str, len);
	MPI_Error_string(cls, str, &len);
	if (strcmp(str, "storage trouble") != 0)
		fail("Error_string of the class gave \"%s\"", str);

	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
	if (!flag || *last < code3 || *last < cls2)
		fail("MPI_LASTUSEDCODE is %d, below %d", flag ? *last : -1,
		    code3);

	/* The handler gets the application's code. */
	MPI_Comm_create_errhandler(handler, &eh);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, eh);
	MPI_Errhandler_free(&eh);
	calls = 0;
	ok(MPI_Comm_call_errhandler(c, code), "Comm_call_errhandler");
	if (calls != 1 || last_code != code)
		fail("the handler got code %d, expected %d", last_code, code);
	MPI_Comm_free(&c);

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect(MPI_Add_error_string(MPI_ERR_ARG, "mine"), MPI_ERR_ARG,
	    "Add_error_string of a predefined code");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect(MPI_Add_error_string(code, big), MPI_ERR_ARG,
	    "Add_error_string longer than MPI_MAX_ERROR_STRING");
	expect(MPI_Add_error_class(NULL), MPI_ERR_ARG,
	    "Add_error_class(NULL)");
	if (is_ft()) {
		expect(MPI_Add_error_code(code, &r), MPI_ERR_ARG,
		    "Add_error_code of a code that is not a class");
		expect(MPI_Add_error_string(*last + 1, "x"), MPI_ERR_ARG,
		    "Add_error_string of a code not added");
		if (MPI_Error_class(*last + 1, &r) == MPI_SUCCESS)
			fail("Error_class of a code past the last used");
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	handlers();
	codes();
	return finish();
}
