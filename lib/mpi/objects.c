/* SPDX-License-Identifier: ISC */
/*
 * Predefined MPI objects (communicators, datatypes, error handlers),
 * error classes and their texts, and error reporting through a
 * communicator's error handler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_impl.h"

struct ft_mpi_errh ft_mpi_errors_are_fatal = { FT_ERRH_FATAL };
struct ft_mpi_errh ft_mpi_errors_return = { FT_ERRH_RETURN };
struct ft_mpi_errh ft_mpi_errors_abort = { FT_ERRH_ABORT };

/* Context ids: even ones carry point-to-point, odd ones collectives. */
struct ft_mpi_comm ft_mpi_comm_world = {
	.ctx = 0, .errh = &ft_mpi_errors_are_fatal, .name = "MPI_COMM_WORLD",
	.predefined = 1,
};
struct ft_mpi_comm ft_mpi_comm_self = {
	.ctx = 2, .errh = &ft_mpi_errors_are_fatal, .name = "MPI_COMM_SELF",
	.predefined = 1,
};

#define BASIC(var, ctype, mpiname)					\
	struct ft_mpi_type var = { sizeof(ctype), 0, sizeof(ctype), 1, 1, 1, \
	    mpiname }

BASIC(ft_mpi_char, char, "MPI_CHAR");
BASIC(ft_mpi_signed_char, signed char, "MPI_SIGNED_CHAR");
BASIC(ft_mpi_unsigned_char, unsigned char, "MPI_UNSIGNED_CHAR");
BASIC(ft_mpi_byte, unsigned char, "MPI_BYTE");
BASIC(ft_mpi_wchar, wchar_t, "MPI_WCHAR");
BASIC(ft_mpi_short, short, "MPI_SHORT");
BASIC(ft_mpi_unsigned_short, unsigned short, "MPI_UNSIGNED_SHORT");
BASIC(ft_mpi_int, int, "MPI_INT");
BASIC(ft_mpi_unsigned, unsigned, "MPI_UNSIGNED");
BASIC(ft_mpi_long, long, "MPI_LONG");
BASIC(ft_mpi_unsigned_long, unsigned long, "MPI_UNSIGNED_LONG");
BASIC(ft_mpi_long_long, long long, "MPI_LONG_LONG");
BASIC(ft_mpi_unsigned_long_long, unsigned long long,
    "MPI_UNSIGNED_LONG_LONG");
BASIC(ft_mpi_float, float, "MPI_FLOAT");
BASIC(ft_mpi_double, double, "MPI_DOUBLE");
BASIC(ft_mpi_long_double, long double, "MPI_LONG_DOUBLE");
BASIC(ft_mpi_c_bool, _Bool, "MPI_C_BOOL");
BASIC(ft_mpi_int8_t, int8_t, "MPI_INT8_T");
BASIC(ft_mpi_int16_t, int16_t, "MPI_INT16_T");
BASIC(ft_mpi_int32_t, int32_t, "MPI_INT32_T");
BASIC(ft_mpi_int64_t, int64_t, "MPI_INT64_T");
BASIC(ft_mpi_uint8_t, uint8_t, "MPI_UINT8_T");
BASIC(ft_mpi_uint16_t, uint16_t, "MPI_UINT16_T");
BASIC(ft_mpi_uint32_t, uint32_t, "MPI_UINT32_T");
BASIC(ft_mpi_uint64_t, uint64_t, "MPI_UINT64_T");
BASIC(ft_mpi_c_float_complex, float _Complex, "MPI_C_FLOAT_COMPLEX");
BASIC(ft_mpi_c_double_complex, double _Complex, "MPI_C_DOUBLE_COMPLEX");
BASIC(ft_mpi_c_long_double_complex, long double _Complex,
    "MPI_C_LONG_DOUBLE_COMPLEX");
BASIC(ft_mpi_aint, MPI_Aint, "MPI_AINT");
BASIC(ft_mpi_offset, MPI_Offset, "MPI_OFFSET");
BASIC(ft_mpi_count, MPI_Count, "MPI_COUNT");

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
ft__mpi_comm_ok(MPI_Comm c)
{
	if (c == MPI_COMM_NULL)
		return 0;
	return c == MPI_COMM_WORLD || c == MPI_COMM_SELF;
}

int
ft__mpi_type_ok(MPI_Datatype t)
{
	return t != MPI_DATATYPE_NULL && t->committed;
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
	ft_warnx("%s", why);
	if (!ft__mpi.initialized || ft__mpi.finalized)
		_exit(code);
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

int
MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	FT_MPI_CHECK_INIT("MPI_Comm_rank");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_rank",
		    "invalid communicator");
	if (rank == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_rank",
		    "NULL argument");
	*rank = comm->rank;
	return MPI_SUCCESS;
}

int
MPI_Comm_size(MPI_Comm comm, int *size)
{
	FT_MPI_CHECK_INIT("MPI_Comm_size");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_size",
		    "invalid communicator");
	if (size == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_size",
		    "NULL argument");
	*size = comm->size;
	return MPI_SUCCESS;
}

int
MPI_Comm_get_attr(MPI_Comm comm, int key, void *val, int *flag)
{
	static int tag_ub = INT32_MAX, host = MPI_PROC_NULL,
	    io = MPI_ANY_SOURCE, wtime_global = 0, appnum = 0,
	    lastused = MPI_ERR_LASTCODE;
	static int universe;

	FT_MPI_CHECK_INIT("MPI_Comm_get_attr");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_get_attr",
		    "invalid communicator");
	if (val == NULL || flag == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_attr",
		    "NULL argument");
	*flag = 1;
	universe = (int)ft__mpi.env.size;
	switch (key) {
	case MPI_TAG_UB:
		*(int **)val = &tag_ub;
		break;
	case MPI_HOST:
		*(int **)val = &host;
		break;
	case MPI_IO:
		*(int **)val = &io;
		break;
	case MPI_WTIME_IS_GLOBAL:
		*(int **)val = &wtime_global;
		break;
	case MPI_UNIVERSE_SIZE:
		*(int **)val = &universe;
		break;
	case MPI_APPNUM:
		*(int **)val = &appnum;
		break;
	case MPI_LASTUSEDCODE:
		*(int **)val = &lastused;
		break;
	default:
		*flag = 0;
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_attr",
		    "unknown attribute key %d", key);
	}
	return MPI_SUCCESS;
}

int
MPI_Type_size(MPI_Datatype type, int *size)
{
	FT_MPI_CHECK_INIT("MPI_Type_size");
	if (type == MPI_DATATYPE_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE,
		    "MPI_Type_size", "invalid datatype");
	if (size == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Type_size", "NULL argument");
	*size = type->size > INT32_MAX ? MPI_UNDEFINED : (int)type->size;
	return MPI_SUCCESS;
}

int
MPI_Get_count(const MPI_Status *st, MPI_Datatype type, int *count)
{
	if (st == NULL || count == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_count",
		    "NULL argument");
	if (type == MPI_DATATYPE_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE,
		    "MPI_Get_count", "invalid datatype");
	if (type->size == 0)
		*count = st->ft_bytes == 0 ? 0 : MPI_UNDEFINED;
	else if (st->ft_bytes % type->size != 0 ||
	    st->ft_bytes / type->size > INT32_MAX)
		*count = MPI_UNDEFINED;
	else
		*count = (int)(st->ft_bytes / type->size);
	return MPI_SUCCESS;
}
