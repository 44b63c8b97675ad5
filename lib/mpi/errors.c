/* SPDX-License-Identifier: ISC */
/*
 * Error handlers, error classes and their texts, and error reporting
 * through a communicator's error handler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_impl.h"

struct ft_mpi_errh ft_mpi_errors_are_fatal = { FT_ERRH_FATAL };
struct ft_mpi_errh ft_mpi_errors_return = { FT_ERRH_RETURN };
struct ft_mpi_errh ft_mpi_errors_abort = { FT_ERRH_ABORT };

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
};

_Static_assert(sizeof(err_text) / sizeof(err_text[0]) == MPI_ERR_LASTCODE + 1,
    "every error class has a text");

int
MPI_Error_string(int code, char *str, int *len)
{
	if (str == NULL || len == NULL)
		return MPI_ERR_ARG;
	if (code < 0 || code > MPI_ERR_LASTCODE) {
		snprintf(str, MPI_MAX_ERROR_STRING, "unknown error code %d",
		    code);
		*len = (int)strlen(str);
		return MPI_ERR_ARG;
	}
	snprintf(str, MPI_MAX_ERROR_STRING, "%s", err_text[code]);
	*len = (int)strlen(str);
	return MPI_SUCCESS;
}

int
MPI_Error_class(int code, int *cls)
{
	if (cls == NULL || code < 0 || code > MPI_ERR_LASTCODE)
		return MPI_ERR_ARG;
	*cls = code;
	return MPI_SUCCESS;
}

int
ft__mpi_err(MPI_Comm comm, int code, const char *call, const char *fmt, ...)
{
	MPI_Errhandler eh;
	char msg[512];
	char why[700];
	va_list ap;

	if (!ft__mpi_comm_ok(comm))
		comm = MPI_COMM_WORLD;
	eh = comm->errh;
	if (eh != NULL && eh->kind == FT_ERRH_RETURN)
		return code;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(why, sizeof(why), "%s: %s (%s)", call, msg,
	    code >= 0 && code <= MPI_ERR_LASTCODE ? err_text[code] : "?");
	/* The launcher prints why, once; alone we print it ourselves. */
	if (!ft__mpi.initialized || ft__mpi.finalized) {
		ft_warnx("%s", why);
		fflush(NULL);
		_exit(code);
	}
	ft__mpi_abort(code, why);
}

int
MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
	FT_MPI_CHECK_INIT("MPI_Comm_set_errhandler");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM,
		    "MPI_Comm_set_errhandler", "invalid communicator");
	if (eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_RETURN &&
	    eh != MPI_ERRORS_ABORT)
		return ft__mpi_err(comm, MPI_ERR_ARG,
		    "MPI_Comm_set_errhandler", "invalid error handler");
	comm->errh = eh;
	/* Errors in an intercommunicator's local steps are its own. */
	if (comm->local != NULL)
		comm->local->errh = eh;
	return MPI_SUCCESS;
}

int
MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh)
{
	FT_MPI_CHECK_INIT("MPI_Comm_get_errhandler");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM,
		    "MPI_Comm_get_errhandler", "invalid communicator");
	if (eh == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG,
		    "MPI_Comm_get_errhandler", "NULL argument");
	*eh = comm->errh;
	return MPI_SUCCESS;
}

int
MPI_Errhandler_free(MPI_Errhandler *eh)
{
	FT_MPI_CHECK_INIT("MPI_Errhandler_free");
	if (eh == NULL || *eh == MPI_ERRHANDLER_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Errhandler_free", "invalid error handler");
	/* Predefined handlers are never freed, only the handle is. */
	*eh = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}

