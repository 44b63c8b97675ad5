/* SPDX-License-Identifier: ISC */
/*
 * errh_winfile: error handlers of windows and files (MPI-3.1 8.3.2,
 * 8.3.3, 13.7).  MPI_Win_create_errhandler and
 * MPI_File_create_errhandler make handlers that MPI_Errhandler_free
 * frees, and that only objects of their own kind take: neither is a
 * communicator's, nor a communicator's a file's.  MPI_FILE_NULL holds
 * the default file error handler, MPI_ERRORS_RETURN at first, which
 * MPI_File_set_errhandler and _get_errhandler set and get, and which
 * MPI_File_call_errhandler calls with the code.  MPI_WIN_NULL is no
 * window (MPI_ERR_WIN).  MPI_ERR_WIN and MPI_ERR_FILE are classes with
 * texts.  The test wraps MPI_File_call_errhandler, as a tool would, and
 * calls the PMPI_ names of the rest.
 */

#define NAME	"errh_winfile"
#include "mtest.h"

static int	fcalls, fcode, wcalls, ccalls, ccode, wrapped;
static MPI_File	fseen;

static void
file_handler(MPI_File *fh, int *code, ...)
{
	fcalls++;
	fseen = *fh;
	fcode = *code;
}

static void
win_handler(MPI_Win *win, int *code, ...)
{
	wcalls++;
}

static void
comm_handler(MPI_Comm *comm, int *code, ...)
{
	ccalls++;
	ccode = *code;
}

/* The profiling interface: this wrapper replaces the library's. */
int
MPI_File_call_errhandler(MPI_File fh, int code)
{
	wrapped++;
	return PMPI_File_call_errhandler(fh, code);
}

static void
kinds(void)
{
	MPI_Errhandler	weh, feh, ceh, got;
	MPI_Comm	c;

	ok(MPI_Win_create_errhandler(win_handler, &weh),
	    "Win_create_errhandler");
	ok(MPI_File_create_errhandler(file_handler, &feh),
	    "File_create_errhandler");
	ok(MPI_Comm_create_errhandler(comm_handler, &ceh),
	    "Comm_create_errhandler");
	if (weh == MPI_ERRHANDLER_NULL || feh == MPI_ERRHANDLER_NULL ||
	    weh == feh)
		fail("the new handlers are null or the same");

	/* Not interchangeable: the communicator keeps its handler. */
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	ok(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), "set RETURN");
	expect(MPI_Comm_set_errhandler(c, weh), MPI_ERR_ARG,
	    "Comm_set_errhandler with a window handler");
	expect(MPI_Comm_set_errhandler(c, feh), MPI_ERR_ARG,
	    "Comm_set_errhandler with a file handler");
	ok(MPI_Comm_get_errhandler(c, &got), "Comm_get_errhandler");
	if (got != MPI_ERRORS_RETURN)
		fail("a refused handler replaced the communicator's");
	MPI_Errhandler_free(&got);
	expect(MPI_File_set_errhandler(MPI_FILE_NULL, weh), MPI_ERR_ARG,
	    "File_set_errhandler with a window handler");
	expect(MPI_File_set_errhandler(MPI_FILE_NULL, ceh), MPI_ERR_ARG,
	    "File_set_errhandler with a communicator handler");
	ok(MPI_File_get_errhandler(MPI_FILE_NULL, &got),
	    "File_get_errhandler");
	if (got != MPI_ERRORS_RETURN)
		fail("a refused handler replaced the default file handler");
	MPI_Errhandler_free(&got);
	MPI_Comm_free(&c);

	ok(MPI_Errhandler_free(&weh), "Errhandler_free of a window handler");
	ok(MPI_Errhandler_free(&feh), "Errhandler_free of a file handler");
	ok(MPI_Errhandler_free(&ceh), "Errhandler_free of a comm handler");
	if (weh != MPI_ERRHANDLER_NULL || feh != MPI_ERRHANDLER_NULL)
		fail("Errhandler_free left a handle");
	expect(MPI_Errhandler_free(&feh), MPI_ERR_ARG,
	    "Errhandler_free of a freed handle");
}

static void
files(void)
{
	MPI_Errhandler	feh, got;
	int		cls, code, rc;

	/* The default file handler: MPI_ERRORS_RETURN at first. */
	ok(MPI_File_get_errhandler(MPI_FILE_NULL, &got),
	    "File_get_errhandler of MPI_FILE_NULL");
	if (got != MPI_ERRORS_RETURN)
		fail("the default file handler is not MPI_ERRORS_RETURN");
	ok(MPI_Errhandler_free(&got), "free the handle got");
	wrapped = 0;
	ok(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_OTHER),
	    "File_call_errhandler under MPI_ERRORS_RETURN");
	if (wrapped != 1)
		fail("the MPI_File_call_errhandler wrapper ran %d times",
		    wrapped);

	/* A user handler as the default, called with the code. */
	ok(PMPI_File_create_errhandler(file_handler, &feh),
	    "PMPI_File_create_errhandler");
	ok(PMPI_File_set_errhandler(MPI_FILE_NULL, feh),
	    "PMPI_File_set_errhandler");
	ok(PMPI_File_get_errhandler(MPI_FILE_NULL, &got),
	    "PMPI_File_get_errhandler");
	if (got != feh)
		fail("File_get_errhandler did not give the handler set");
	ok(MPI_Errhandler_free(&got), "free the handle got");
	fcalls = 0;
	fseen = (MPI_File)&fcalls;
	ok(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_ARG),
	    "File_call_errhandler, user handler");
	if (fcalls != 1 || fcode != MPI_ERR_ARG || fseen != MPI_FILE_NULL)
		fail("file handler: %d calls, code %d, file %sMPI_FILE_NULL",
		    fcalls, fcode, fseen == MPI_FILE_NULL ? "" : "not ");

	/* An application's code; the handler stays after its free. */
	ok(MPI_Add_error_class(&cls), "Add_error_class");
	ok(MPI_Add_error_code(cls, &code), "Add_error_code");
	ok(MPI_Errhandler_free(&feh), "free the file handler");
	fcalls = 0;
	ok(PMPI_File_call_errhandler(MPI_FILE_NULL, code),
	    "PMPI_File_call_errhandler, freed handle");
	if (fcalls != 1 || fcode != code)
		fail("freed file handler: %d calls, code %d (want %d)",
		    fcalls, fcode, code);

	/*
	 * An invalid file is raised on the default file handler (ft:
	 * ft never looks at the handle, which another MPI might).
	 */
	if (is_ft()) {
		fcalls = 0;
		rc = MPI_File_get_errhandler((MPI_File)&fcalls, &got);
		expect(rc, MPI_ERR_FILE, "File_get_errhandler, bad file");
		if (fcalls != 1 || fcode != rc)
			fail("bad file: the default handler ran %d times",
			    fcalls);
	}

	ok(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN),
	    "File_set_errhandler back to MPI_ERRORS_RETURN");
	fcalls = 0;
	ok(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_OTHER),
	    "File_call_errhandler after restoring");
	if (fcalls != 0)
		fail("the replaced file handler still ran");
}

static void
windows(void)
{
	MPI_Errhandler	weh, got = MPI_ERRHANDLER_NULL, ceh;

	ok(PMPI_Win_create_errhandler(win_handler, &weh),
	    "PMPI_Win_create_errhandler");
	expect(MPI_Win_set_errhandler(MPI_WIN_NULL, weh), MPI_ERR_WIN,
	    "Win_set_errhandler on MPI_WIN_NULL");
	expect(PMPI_Win_set_errhandler(MPI_WIN_NULL, MPI_ERRORS_RETURN),
	    MPI_ERR_WIN, "PMPI_Win_set_errhandler on MPI_WIN_NULL");
	expect(MPI_Win_get_errhandler(MPI_WIN_NULL, &got), MPI_ERR_WIN,
	    "Win_get_errhandler on MPI_WIN_NULL");
	expect(PMPI_Win_get_errhandler(MPI_WIN_NULL, &got), MPI_ERR_WIN,
	    "PMPI_Win_get_errhandler on MPI_WIN_NULL");
	if (got != MPI_ERRHANDLER_NULL)
		fail("Win_get_errhandler on MPI_WIN_NULL gave a handler");
	expect(MPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_OTHER),
	    MPI_ERR_WIN, "Win_call_errhandler on MPI_WIN_NULL");
	expect(PMPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_OTHER),
	    MPI_ERR_WIN, "PMPI_Win_call_errhandler on MPI_WIN_NULL");
	if (wcalls != 0)
		fail("the window handler ran %d times", wcalls);

	/* Raised as for an invalid communicator: on MPI_COMM_WORLD. */
	ok(MPI_Comm_create_errhandler(comm_handler, &ceh),
	    "Comm_create_errhandler");
	ok(MPI_Comm_set_errhandler(MPI_COMM_WORLD, ceh), "set on world");
	ccalls = 0;
	expect(MPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_OTHER),
	    MPI_ERR_WIN, "Win_call_errhandler, world's user handler");
	if (ccalls != 1 || ccode != MPI_ERR_WIN)
		fail("world's handler: %d calls, code %d", ccalls, ccode);
	ok(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
	    "world back to MPI_ERRORS_RETURN");
	MPI_Errhandler_free(&ceh);
	ok(MPI_Errhandler_free(&weh), "free the window handler");
}

static void
classes(void)
{
	char	s1[MPI_MAX_ERROR_STRING], s2[MPI_MAX_ERROR_STRING];
	int	cls, len1 = 0, len2 = 0;

	if (MPI_ERR_WIN > MPI_ERR_LASTCODE || MPI_ERR_FILE > MPI_ERR_LASTCODE ||
	    MPI_ERR_WIN <= MPI_SUCCESS || MPI_ERR_FILE <= MPI_SUCCESS ||
	    MPI_ERR_WIN == MPI_ERR_FILE)
		fail("MPI_ERR_WIN %d, MPI_ERR_FILE %d, MPI_ERR_LASTCODE %d",
		    MPI_ERR_WIN, MPI_ERR_FILE, MPI_ERR_LASTCODE);
	ok(MPI_Error_class(MPI_ERR_WIN, &cls), "Error_class of MPI_ERR_WIN");
	if (cls != MPI_ERR_WIN)
		fail("MPI_ERR_WIN is of class %d", cls);
	ok(MPI_Error_class(MPI_ERR_FILE, &cls), "Error_class of MPI_ERR_FILE");
	if (cls != MPI_ERR_FILE)
		fail("MPI_ERR_FILE is of class %d", cls);
	ok(MPI_Error_string(MPI_ERR_WIN, s1, &len1), "Error_string WIN");
	ok(MPI_Error_string(MPI_ERR_FILE, s2, &len2), "Error_string FILE");
	if (len1 <= 0 || len2 <= 0 || strcmp(s1, s2) == 0 ||
	    (int)strlen(s1) != len1)
		fail("texts '%s' and '%s'", s1, s2);
	if (is_ft() && (strncmp(s1, "MPI_ERR_WIN:", 12) != 0 ||
	    strncmp(s2, "MPI_ERR_FILE:", 13) != 0))
		fail("texts '%s' and '%s' do not name their class", s1, s2);
}

int
main(int argc, char **argv)
{
	init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	kinds();
	files();
	windows();
	classes();
	return finish();
}
