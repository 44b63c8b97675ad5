/* SPDX-License-Identifier: ISC */
/*
 * Error handlers, error classes and their texts, and error reporting
 * through a communicator's error handler.  The application may add
 * error classes and codes above MPI_ERR_LASTCODE, each with a text, and
 * error handlers of its own, which ft calls and then returns the code
 * as MPI_ERRORS_RETURN does.  Windows and files have handlers of their
 * own kind; a window's errors go to its handler (win.c), and since no
 * file exists the only file is MPI_FILE_NULL, whose handler is the default one
 * for files (MPI-3.1 13.7).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_impl.h"
#include "win.h"

struct ft_mpi_errh ft_mpi_errors_are_fatal = { .kind = FT_ERRH_FATAL };
struct ft_mpi_errh ft_mpi_errors_return = { .kind = FT_ERRH_RETURN };
struct ft_mpi_errh ft_mpi_errors_abort = { .kind = FT_ERRH_ABORT };

/*
 * The codes added by the application: code MPI_ERR_LASTCODE + 1 + i is
 * ucodes.v[i], of class cls (itself for a class), with text str (NULL:
 * none yet).  The user error handlers ever made, until MPI_Finalize.
 */
static struct {
	struct ucode {
		int	 cls;
		char	*str;
	}			*v;
	int			 n;
} ucodes;
static struct ft_mpi_hset uerrhs;
/* The default file error handler, MPI_FILE_NULL's. */
static MPI_Errhandler file_errh = MPI_ERRORS_RETURN;

static const char *const err_text[] = {
	[MPI_SUCCESS] = "MPI_SUCCESS: no error",
	[MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
	[MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
	[MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
	[MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
	[MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
	[MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
	[MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
	[MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
	[MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
	[MPI_ERR_OP] = "MPI_ERR_OP: invalid reduce operation",
	[MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid communicator topology",
	[MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
	[MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument of some other kind",
	[MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
	[MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
	[MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
	[MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
	[MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
	[MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
	[MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
	[MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute key",
	[MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
	[MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: info key too long",
	[MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: info value too long",
	[MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key",
	[MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: unable to spawn processes",
	[MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
	[MPI_ERR_NAME] = "MPI_ERR_NAME: no such service name",
	[MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
	[MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
	[MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
	[MPIX_ERR_PROC_FAILED] = "MPIX_ERR_PROC_FAILED: a process in the "
	    "operation has failed",
	[MPIX_ERR_PROC_FAILED_PENDING] = "MPIX_ERR_PROC_FAILED_PENDING: a "
	    "process that could match the receive has failed; the request "
	    "is still pending",
	[MPIX_ERR_REVOKED] = "MPIX_ERR_REVOKED: the communicator is revoked",
	[MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
	[MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
	[MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses "
	    "to a window",
	[MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of "
	    "RMA calls",
	[MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory is not part "
	    "of the window",
	[MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be "
	    "attached",
	[MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
	[MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
	[MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size argument",
	[MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement argument",
	[MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert argument",
};

_Static_assert(sizeof(err_text) / sizeof(err_text[0]) == MPI_ERR_LASTCODE + 1,
    "every error class has a text");

/* The entry of a code the application added, or NULL. */
static struct ucode *
ucode(int code)
{
	if (code <= MPI_ERR_LASTCODE || code - MPI_ERR_LASTCODE > ucodes.n)
		return NULL;
	return &ucodes.v[code - MPI_ERR_LASTCODE - 1];
}

/* The text of a known code, or NULL. */
static const char *
code_text(int code)
{
	const struct ucode *u;

	if (code >= 0 && code <= MPI_ERR_LASTCODE)
		return err_text[code];
	if ((u = ucode(code)) != NULL)
		return u->str != NULL ? u->str : "";
	return NULL;
}

int
ft__mpi_err_lastused(void)
{
	return MPI_ERR_LASTCODE + ucodes.n;
}

int
PMPI_Error_string(int code, char *str, int *len)
{
	const char *text;

	if (str == NULL || len == NULL)
		return MPI_ERR_ARG;
	if ((text = code_text(code)) == NULL) {
		snprintf(str, MPI_MAX_ERROR_STRING, "unknown error code %d",
		    code);
		*len = (int)strlen(str);
		return MPI_ERR_ARG;
	}
	snprintf(str, MPI_MAX_ERROR_STRING, "%s", text);
	*len = (int)strlen(str);
	return MPI_SUCCESS;
}

int
PMPI_Error_class(int code, int *cls)
{
	const struct ucode *u;

	if (cls == NULL)
		return MPI_ERR_ARG;
	if (code >= 0 && code <= MPI_ERR_LASTCODE)
		*cls = code;
	else if ((u = ucode(code)) != NULL)
		*cls = u->cls;
	else
		return MPI_ERR_ARG;
	return MPI_SUCCESS;
}

/* A new code of class cls (-1: the new code is a class). */
static int
code_add(const char *call, int cls, int *code)
{
	struct ucode *nv;

	if (code == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL argument");
	if (ucodes.n >= INT32_MAX - MPI_ERR_LASTCODE - 1 ||
	    (nv = reallocarray(ucodes.v, (size_t)ucodes.n + 1,
	    sizeof(*nv))) == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
		    "out of memory");
	ucodes.v = nv;
	*code = MPI_ERR_LASTCODE + 1 + ucodes.n;
	nv[ucodes.n].cls = cls < 0 ? *code : cls;
	nv[ucodes.n++].str = NULL;
	return MPI_SUCCESS;
}

int
PMPI_Add_error_class(int *cls)
{
	FT_MPI_CHECK_INIT("MPI_Add_error_class");
	return code_add("MPI_Add_error_class", -1, cls);
}

int
PMPI_Add_error_code(int cls, int *code)
{
	const struct ucode *u;

	FT_MPI_CHECK_INIT("MPI_Add_error_code");
	/* A class: a predefined one but MPI_SUCCESS, or one added. */
	if (cls <= MPI_SUCCESS || (cls > MPI_ERR_LASTCODE &&
	    ((u = ucode(cls)) == NULL || u->cls != cls)))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Add_error_code", "%d is not an error class", cls);
	return code_add("MPI_Add_error_code", cls, code);
}

int
PMPI_Add_error_string(int code, const char *str)
{
	struct ucode *u;
	char *copy;

	FT_MPI_CHECK_INIT("MPI_Add_error_string");
	if ((u = ucode(code)) == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Add_error_string", "%d is not an error code or "
		    "class added by the application", code);
	if (str == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Add_error_string", "NULL string");
	if (strlen(str) >= MPI_MAX_ERROR_STRING)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Add_error_string", "a string of %zu characters (at "
		    "most %d allowed)", strlen(str), MPI_MAX_ERROR_STRING - 1);
	if ((copy = strdup(str)) == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
		    "MPI_Add_error_string", "out of memory");
	free(u->str);
	u->str = copy;
	return MPI_SUCCESS;
}

/* The end of an error under MPI_ERRORS_ARE_FATAL or _ABORT. */
static void FT_NORETURN
fatal(int code, const char *call, const char *fmt, va_list ap)
{
	const char *text;
	char msg[512];
	char why[700];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	text = code_text(code);
	snprintf(why, sizeof(why), "%s: %s (%s)", call, msg,
	    text != NULL ? text : "?");
	/* --ft coord: a peer's death is ftrun's to handle (a rollback). */
	if (code == MPI_ERR_OTHER && ft__mpi.initialized && !ft__mpi.finalized)
		ft__ckpt_hold(code, why);
	/* The launcher prints why, once; alone we print it ourselves. */
	if (!ft__mpi.initialized || ft__mpi.finalized) {
		ft_warnx("%s", why);
		fflush(NULL);
		_exit(code);
	}
	ft__mpi_abort(code, why);
}

static void FT_NORETURN FT_PRINTF(3, 4)
fatal_str(int code, const char *call, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fatal(code, call, fmt, ap);
}

/* Can a user handler run: between MPI_Init and MPI_Finalize. */
static int
user_runs(MPI_Errhandler eh)
{
	return eh != NULL && eh->kind == FT_ERRH_USER &&
	    ft__mpi.initialized && !ft__mpi.finalized;
}

/*
 * Raise an error on comm: its handler gets handed, the call returns
 * returned (they differ only for MPI_ERR_IN_STATUS).
 */
static int
raise_on(MPI_Comm comm, int handed, int returned, const char *call,
    const char *fmt, va_list ap)
{
	MPI_Errhandler eh;
	MPI_Comm c;
	int e;

	if (!ft__mpi_comm_ok(comm))
		comm = MPI_COMM_WORLD;
	eh = comm->errh;
	if (eh != NULL && eh->kind == FT_ERRH_RETURN)
		return returned;
	if (user_runs(eh)) {
		/*
		 * The handler gets copies, and the name of the call (an ft
		 * extension): the call then returns returned.
		 */
		c = comm;
		e = handed;
		eh->fn(&c, &e, call);
		return returned;
	}
	fatal(handed, call, fmt, ap);
}

int
ft__mpi_err(MPI_Comm comm, int code, const char *call, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = raise_on(comm, code, code, call, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * A call on many requests (Waitall, Testall, Waitsome, Testsome) in
 * which one failed: it returns MPI_ERR_IN_STATUS, and comm's handler
 * gets the first failed request's own code, as Open MPI does, so that
 * a handler that looks at the class sees MPIX_ERR_PROC_FAILED, say,
 * and not "look in the statuses".
 */
int
ft__mpi_err_in_status(MPI_Comm comm, int first, const char *call,
    const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = raise_on(comm, first, MPI_ERR_IN_STATUS, call, fmt, ap);
	va_end(ap);
	return rc;
}

/* An error on MPI_FILE_NULL, raised on the default file handler. */
static int
file_err(int code, const char *call, const char *fmt, ...)
{
	MPI_File f;
	va_list ap;
	int e;

	if (file_errh->kind == FT_ERRH_RETURN)
		return code;
	if (user_runs(file_errh)) {
		f = MPI_FILE_NULL;
		e = code;
		file_errh->ffn(&f, &e, call);
		return code;
	}
	va_start(ap, fmt);
	fatal(code, call, fmt, ap);
}

/*
 * Is eh a handler the application holds a handle to: predefined, or
 * made and not freed as often as it was handed out?
 */
int
ft__mpi_errh_ok(MPI_Errhandler eh)
{
	if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN ||
	    eh == MPI_ERRORS_ABORT)
		return 1;
	return ft__mpi_hset_has(&uerrhs, eh) && eh->refs > 0;
}

/* A new user handler for objects of kind obj, in *eh. */
static int
errh_new(const char *call, int obj, int nofn, MPI_Errhandler *eh)
{
	struct ft_mpi_errh *h;

	FT_MPI_CHECK_INIT(call);
	if (nofn || eh == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL argument");
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    ft__mpi_hset_add(&uerrhs, h) != 0) {
		free(h);
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	h->kind = FT_ERRH_USER;
	h->obj = obj;
	h->refs = 1;
	*eh = h;
	return MPI_SUCCESS;
}

int
ft__mpi_errh_create(const char *call, MPI_Comm_errhandler_function *fn,
    MPI_Errhandler *eh)
{
	int rc;

	if ((rc = errh_new(call, FT_ERRH_COMM, fn == NULL, eh)) ==
	    MPI_SUCCESS)
		(*eh)->fn = fn;
	return rc;
}

/*
 * Can eh be set on an object of kind obj: a predefined handler, or a
 * user one made for that kind (MPI-3.1 8.3.1).
 */
static int
errh_fits(MPI_Errhandler eh, int obj)
{
	return ft__mpi_errh_ok(eh) &&
	    (eh->kind != FT_ERRH_USER || eh->obj == obj);
}

/* A handle to eh, handed out: one more to free. */
static MPI_Errhandler
errh_hand(MPI_Errhandler eh)
{
	if (eh->kind == FT_ERRH_USER)
		eh->refs++;
	return eh;
}

int
PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
    MPI_Errhandler *eh)
{
	return ft__mpi_errh_create("MPI_Comm_create_errhandler", fn, eh);
}

/* The checks of the calls on a communicator's handler. */
static int
check_comm(MPI_Comm comm, const char *call)
{
	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, call,
		    "invalid communicator");
	return MPI_SUCCESS;
}

int
PMPI_Comm_call_errhandler(MPI_Comm comm, int code)
{
	int rc;

	if ((rc = check_comm(comm, "MPI_Comm_call_errhandler")) !=
	    MPI_SUCCESS)
		return rc;
	/* The handler ran (if it returns at all): that is success. */
	(void)ft__mpi_err(comm, code, "MPI_Comm_call_errhandler",
	    "the application raised error code %d", code);
	return MPI_SUCCESS;
}

int
PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
	int rc;

	if ((rc = check_comm(comm, "MPI_Comm_set_errhandler")) !=
	    MPI_SUCCESS)
		return rc;
	if (!errh_fits(eh, FT_ERRH_COMM))
		return ft__mpi_err(comm, MPI_ERR_ARG,
		    "MPI_Comm_set_errhandler", "not an error handler for "
		    "communicators");
	comm->errh = eh;
	/* Errors in an intercommunicator's local steps are its own. */
	if (comm->local != NULL)
		comm->local->errh = eh;
	return MPI_SUCCESS;
}

int
PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh)
{
	int rc;

	if ((rc = check_comm(comm, "MPI_Comm_get_errhandler")) !=
	    MPI_SUCCESS)
		return rc;
	if (eh == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG,
		    "MPI_Comm_get_errhandler", "NULL argument");
	*eh = errh_hand(comm->errh);
	return MPI_SUCCESS;
}

int
PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn,
    MPI_Errhandler *eh)
{
	int rc;

	if ((rc = errh_new("MPI_Win_create_errhandler", FT_ERRH_WIN,
	    fn == NULL, eh)) == MPI_SUCCESS)
		(*eh)->wfn = fn;
	return rc;
}

/* See win.h: the end of an error on window win. */
int
ft__mpi_errh_win(MPI_Errhandler eh, MPI_Win win, int code, const char *call,
    const char *msg)
{
	MPI_Win w;
	int e;

	if (eh != NULL && eh->kind == FT_ERRH_RETURN)
		return code;
	if (user_runs(eh)) {
		w = win;
		e = code;
		eh->wfn(&w, &e, call);
		return code;
	}
	fatal_str(code, call, "%s", msg);
}

int
PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler eh)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, "MPI_Win_set_errhandler")) !=
	    MPI_SUCCESS)
		return rc;
	if (!errh_fits(eh, FT_ERRH_WIN))
		return ft__mpi_win_err(win, MPI_ERR_ARG,
		    "MPI_Win_set_errhandler", "not an error handler for "
		    "windows");
	win->errh = eh;
	return MPI_SUCCESS;
}

int
PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *eh)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, "MPI_Win_get_errhandler")) !=
	    MPI_SUCCESS)
		return rc;
	if (eh == NULL)
		return ft__mpi_win_err(win, MPI_ERR_ARG,
		    "MPI_Win_get_errhandler", "NULL argument");
	*eh = errh_hand(win->errh);
	return MPI_SUCCESS;
}

int
PMPI_Win_call_errhandler(MPI_Win win, int code)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, "MPI_Win_call_errhandler")) !=
	    MPI_SUCCESS)
		return rc;
	/* The handler ran (if it returns at all): that is success. */
	(void)ft__mpi_win_err(win, code, "MPI_Win_call_errhandler",
	    "the application raised error code %d", code);
	return MPI_SUCCESS;
}

int
PMPI_File_create_errhandler(MPI_File_errhandler_function *fn,
    MPI_Errhandler *eh)
{
	int rc;

	if ((rc = errh_new("MPI_File_create_errhandler", FT_ERRH_FILE,
	    fn == NULL, eh)) == MPI_SUCCESS)
		(*eh)->ffn = fn;
	return rc;
}

/*
 * The checks of the calls on a file's handler: MPI_FILE_NULL is the
 * only file, and errors with an invalid file are raised on its
 * handler, as MPI_File_open's are (MPI-3.1 13.7).
 */
static int
check_file(MPI_File fh, const char *call)
{
	FT_MPI_CHECK_INIT(call);
	if (fh != MPI_FILE_NULL)
		return file_err(MPI_ERR_FILE, call, "invalid file handle "
		    "(ft has no I/O yet)");
	return MPI_SUCCESS;
}

int
PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler eh)
{
	int rc;

	if ((rc = check_file(fh, "MPI_File_set_errhandler")) != MPI_SUCCESS)
		return rc;
	if (!errh_fits(eh, FT_ERRH_FILE))
		return file_err(MPI_ERR_ARG, "MPI_File_set_errhandler",
		    "not an error handler for files");
	file_errh = eh;
	return MPI_SUCCESS;
}

int
PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *eh)
{
	int rc;

	if ((rc = check_file(fh, "MPI_File_get_errhandler")) != MPI_SUCCESS)
		return rc;
	if (eh == NULL)
		return file_err(MPI_ERR_ARG, "MPI_File_get_errhandler",
		    "NULL argument");
	*eh = errh_hand(file_errh);
	return MPI_SUCCESS;
}

int
PMPI_File_call_errhandler(MPI_File fh, int code)
{
	int rc;

	if ((rc = check_file(fh, "MPI_File_call_errhandler")) != MPI_SUCCESS)
		return rc;
	/* The handler ran (if it returns at all): that is success. */
	(void)file_err(code, "MPI_File_call_errhandler",
	    "the application raised error code %d", code);
	return MPI_SUCCESS;
}

int
PMPI_Errhandler_free(MPI_Errhandler *eh)
{
	FT_MPI_CHECK_INIT("MPI_Errhandler_free");
	if (eh == NULL || !ft__mpi_errh_ok(*eh))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Errhandler_free", "invalid error handler");
	/*
	 * Predefined handlers are never freed, only the handle is; a user
	 * handler's memory stays for the communicators that use it.
	 */
	if ((*eh)->kind == FT_ERRH_USER && --(*eh)->refs == 0)
		ft__mpi_fint_forget(FT_FINT_ERRH, *eh);
	*eh = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}

void
ft__mpi_errors_fini(void)
{
	size_t i;
	int k;

	/* Errors after MPI_Finalize must not call freed handlers. */
	if (ft_mpi_comm_world.errh->kind == FT_ERRH_USER)
		ft_mpi_comm_world.errh = MPI_ERRORS_ARE_FATAL;
	if (ft_mpi_comm_self.errh->kind == FT_ERRH_USER)
		ft_mpi_comm_self.errh = MPI_ERRORS_ARE_FATAL;
	file_errh = MPI_ERRORS_RETURN;
	for (i = 0; i < uerrhs.cap; i++)
		free((void *)(uintptr_t)uerrhs.slot[i]);
	ft__mpi_hset_release(&uerrhs);
	for (k = 0; k < ucodes.n; k++)
		free(ucodes.v[k].str);
	free(ucodes.v);
	ucodes.v = NULL;
	ucodes.n = 0;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Error_string = PMPI_Error_string
#pragma weak MPI_Error_class = PMPI_Error_class
#pragma weak MPI_Add_error_class = PMPI_Add_error_class
#pragma weak MPI_Add_error_code = PMPI_Add_error_code
#pragma weak MPI_Add_error_string = PMPI_Add_error_string
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
