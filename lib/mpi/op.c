/* SPDX-License-Identifier: ISC */
/*
 * Reduction operations: the predefined ones on every C type the
 * standard defines them for, user operations (MPI_Op_create), and
 * MPI_Reduce_local.  Signed integer arithmetic wraps (it is done on the
 * unsigned type) instead of being undefined; MAXLOC and MINLOC resolve
 * ties to the lower index.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "op.h"

#define PREDEF(var, code, commute, mpiname)				\
	struct ft_mpi_op var = { code, NULL, commute, 1, 1, mpiname }

PREDEF(ft_mpi_op_max, FT_OP_MAX, 1, "MPI_MAX");
PREDEF(ft_mpi_op_min, FT_OP_MIN, 1, "MPI_MIN");
PREDEF(ft_mpi_op_sum, FT_OP_SUM, 1, "MPI_SUM");
PREDEF(ft_mpi_op_prod, FT_OP_PROD, 1, "MPI_PROD");
PREDEF(ft_mpi_op_land, FT_OP_LAND, 1, "MPI_LAND");
PREDEF(ft_mpi_op_band, FT_OP_BAND, 1, "MPI_BAND");
PREDEF(ft_mpi_op_lor, FT_OP_LOR, 1, "MPI_LOR");
PREDEF(ft_mpi_op_bor, FT_OP_BOR, 1, "MPI_BOR");
PREDEF(ft_mpi_op_lxor, FT_OP_LXOR, 1, "MPI_LXOR");
PREDEF(ft_mpi_op_bxor, FT_OP_BXOR, 1, "MPI_BXOR");
PREDEF(ft_mpi_op_maxloc, FT_OP_MAXLOC, 1, "MPI_MAXLOC");
PREDEF(ft_mpi_op_minloc, FT_OP_MINLOC, 1, "MPI_MINLOC");
PREDEF(ft_mpi_op_replace, FT_OP_REPLACE, 0, "MPI_REPLACE");
PREDEF(ft_mpi_op_no_op, FT_OP_NO_OP, 0, "MPI_NO_OP");

static struct ft_mpi_op *const predefined[] = {
	&ft_mpi_op_max, &ft_mpi_op_min, &ft_mpi_op_sum, &ft_mpi_op_prod,
	&ft_mpi_op_land, &ft_mpi_op_band, &ft_mpi_op_lor, &ft_mpi_op_bor,
	&ft_mpi_op_lxor, &ft_mpi_op_bxor, &ft_mpi_op_maxloc,
	&ft_mpi_op_minloc, &ft_mpi_op_replace, &ft_mpi_op_no_op,
};

/*
 * The live user operations, so that a bad handle is found without
 * dereferencing it.  Programs make few of them.
 */
static struct ft_mpi_op	**user_ops;
static size_t		  nuser_ops, capuser_ops;

/* What a predefined type is, as far as the operations care. */
enum tclass {
	TC_NONE = 0,
	TC_INT,		/* C integer */
	TC_FINT,	/* Fortran integer: no logical operations */
	TC_FLOAT,	/* floating point */
	TC_COMPLEX,
	TC_BOOL,	/* logical */
	TC_BYTE,
	TC_PAIR,	/* MAXLOC and MINLOC */
};

static enum tclass
kind_class(enum ft_type_kind k)
{
	switch (k) {
	case FT_TK_CHAR:	/* not in the standard's list; Open MPI
				 * takes it, and so do we */
	case FT_TK_SIGNED_CHAR:
	case FT_TK_UNSIGNED_CHAR:
	case FT_TK_SHORT:
	case FT_TK_UNSIGNED_SHORT:
	case FT_TK_INT:
	case FT_TK_UNSIGNED:
	case FT_TK_LONG:
	case FT_TK_UNSIGNED_LONG:
	case FT_TK_LONG_LONG:
	case FT_TK_UNSIGNED_LONG_LONG:
	case FT_TK_INT8_T:
	case FT_TK_INT16_T:
	case FT_TK_INT32_T:
	case FT_TK_INT64_T:
	case FT_TK_UINT8_T:
	case FT_TK_UINT16_T:
	case FT_TK_UINT32_T:
	case FT_TK_UINT64_T:
	case FT_TK_AINT:
	case FT_TK_OFFSET:
	case FT_TK_COUNT:
		return TC_INT;
	case FT_TK_INTEGER:
	case FT_TK_INTEGER1:
	case FT_TK_INTEGER2:
	case FT_TK_INTEGER4:
	case FT_TK_INTEGER8:
		return TC_FINT;
	case FT_TK_FLOAT:
	case FT_TK_DOUBLE:
	case FT_TK_LONG_DOUBLE:
	case FT_TK_REAL:
	case FT_TK_DOUBLE_PRECISION:
	case FT_TK_REAL4:
	case FT_TK_REAL8:
		return TC_FLOAT;
	case FT_TK_C_FLOAT_COMPLEX:
	case FT_TK_C_DOUBLE_COMPLEX:
	case FT_TK_C_LONG_DOUBLE_COMPLEX:
	case FT_TK_COMPLEX:
	case FT_TK_DOUBLE_COMPLEX:
	case FT_TK_COMPLEX8:
	case FT_TK_COMPLEX16:
		return TC_COMPLEX;
#ifdef FT_HAVE_QUAD
	case FT_TK_REAL16:
		return TC_FLOAT;
	case FT_TK_COMPLEX32:
		return TC_COMPLEX;
#endif
	case FT_TK_C_BOOL:
	case FT_TK_LOGICAL:
		return TC_BOOL;
	case FT_TK_BYTE:
		return TC_BYTE;
	case FT_TK_2INT:
	case FT_TK_FLOAT_INT:
	case FT_TK_DOUBLE_INT:
	case FT_TK_LONG_INT:
	case FT_TK_SHORT_INT:
	case FT_TK_LONG_DOUBLE_INT:
	case FT_TK_2INTEGER:
	case FT_TK_2REAL:
	case FT_TK_2DOUBLE_PRECISION:
		return TC_PAIR;
	default:
		return TC_NONE;
	}
}

/* The standard's table: which classes each predefined op takes. */
static int
class_ok(enum ft_op_code code, enum tclass c)
{
	switch (code) {
	case FT_OP_MAX:
	case FT_OP_MIN:
		return c == TC_INT || c == TC_FINT || c == TC_FLOAT;
	case FT_OP_SUM:
	case FT_OP_PROD:
		return c == TC_INT || c == TC_FINT || c == TC_FLOAT ||
		    c == TC_COMPLEX;
	case FT_OP_LAND:
	case FT_OP_LOR:
	case FT_OP_LXOR:
		return c == TC_INT || c == TC_BOOL;
	case FT_OP_BAND:
	case FT_OP_BOR:
	case FT_OP_BXOR:
		return c == TC_INT || c == TC_FINT || c == TC_BYTE;
	case FT_OP_MAXLOC:
	case FT_OP_MINLOC:
		return c == TC_PAIR;
	default:
		/* REPLACE and NO_OP belong to one-sided accumulates. */
		return 0;
	}
}

/*
 * The predefined unit a type is made of: its own kind when predefined,
 * else what the datatype engine says.  Returns 0 when the type is not
 * made of one predefined unit laid out densely.
 */
static int
unit_of(MPI_Datatype type, enum ft_type_kind *kind, size_t *n)
{
	if (type->predefined) {
		*kind = type->kind;
		*n = 1;
		return 1;
	}
	return ft__mpi_type_basic(type, kind, n) && *kind != FT_TK_DERIVED;
}

MPI_Op
ft__mpi_op_predef(size_t i)
{
	return i < sizeof(predefined) / sizeof(predefined[0]) ?
	    predefined[i] : MPI_OP_NULL;
}

int
ft__mpi_op_ok(MPI_Op op)
{
	size_t i;

	if (op == MPI_OP_NULL)
		return 0;
	for (i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
		if (op == predefined[i])
			return 1;
	for (i = 0; i < nuser_ops; i++)
		if (op == user_ops[i])
			return 1;
	return 0;
}

int
ft__mpi_op_check(MPI_Op op, MPI_Datatype type)
{
	enum ft_type_kind k;
	size_t n;

	if (!ft__mpi_op_ok(op))
		return MPI_ERR_OP;
	if (op->code == FT_OP_USER)
		return MPI_SUCCESS;
	if (!unit_of(type, &k, &n) || !class_ok(op->code, kind_class(k)))
		return MPI_ERR_OP;
	return MPI_SUCCESS;
}

/*
 * One function per C type, each doing every operation the type's class
 * allows.  in is a, inout is b: b[i] = a[i] op b[i].
 */
#define MAXMIN(a, b, i)							\
	case FT_OP_MAX:							\
		for (i = 0; i < n; i++)					\
			if (a[i] > b[i])				\
				b[i] = a[i];				\
		break;							\
	case FT_OP_MIN:							\
		for (i = 0; i < n; i++)					\
			if (a[i] < b[i])				\
				b[i] = a[i];				\
		break;

#define LOGICAL(a, b, i)						\
	case FT_OP_LAND:						\
		for (i = 0; i < n; i++)					\
			b[i] = (a[i] != 0) && (b[i] != 0);		\
		break;							\
	case FT_OP_LOR:							\
		for (i = 0; i < n; i++)					\
			b[i] = (a[i] != 0) || (b[i] != 0);		\
		break;							\
	case FT_OP_LXOR:						\
		for (i = 0; i < n; i++)					\
			b[i] = (a[i] != 0) != (b[i] != 0);		\
		break;

#define BITWISE(a, b, i)						\
	case FT_OP_BAND:						\
		for (i = 0; i < n; i++)					\
			b[i] &= a[i];					\
		break;							\
	case FT_OP_BOR:							\
		for (i = 0; i < n; i++)					\
			b[i] |= a[i];					\
		break;							\
	case FT_OP_BXOR:						\
		for (i = 0; i < n; i++)					\
			b[i] ^= a[i];					\
		break;

/*
 * Integers: arithmetic on the unsigned type U, so overflow wraps.  The
 * 1u keeps narrow types from being promoted to a signed int product.
 */
#define INT_FN(name, T, U)						\
static void								\
name(enum ft_op_code code, const void *in, void *inout, size_t n)	\
{									\
	const T *a = in;						\
	T *b = inout;							\
	size_t i;							\
									\
	switch (code) {							\
	MAXMIN(a, b, i)							\
	case FT_OP_SUM:							\
		for (i = 0; i < n; i++)					\
			b[i] = (T)((U)a[i] + (U)b[i]);			\
		break;							\
	case FT_OP_PROD:						\
		for (i = 0; i < n; i++)					\
			b[i] = (T)(U)((U)a[i] * (1u * (U)b[i]));	\
		break;							\
	LOGICAL(a, b, i)						\
	BITWISE(a, b, i)						\
	default:							\
		break;							\
	}								\
}

#define FLOAT_FN(name, T)						\
static void								\
name(enum ft_op_code code, const void *in, void *inout, size_t n)	\
{									\
	const T *a = in;						\
	T *b = inout;							\
	size_t i;							\
									\
	switch (code) {							\
	MAXMIN(a, b, i)							\
	case FT_OP_SUM:							\
		for (i = 0; i < n; i++)					\
			b[i] += a[i];					\
		break;							\
	case FT_OP_PROD:						\
		for (i = 0; i < n; i++)					\
			b[i] *= a[i];					\
		break;							\
	default:							\
		break;							\
	}								\
}

#define COMPLEX_FN(name, T)						\
static void								\
name(enum ft_op_code code, const void *in, void *inout, size_t n)	\
{									\
	const T *a = in;						\
	T *b = inout;							\
	size_t i;							\
									\
	switch (code) {							\
	case FT_OP_SUM:							\
		for (i = 0; i < n; i++)					\
			b[i] += a[i];					\
		break;							\
	case FT_OP_PROD:						\
		for (i = 0; i < n; i++)					\
			b[i] = a[i] * b[i];				\
		break;							\
	default:							\
		break;							\
	}								\
}

/* MAXLOC and MINLOC: ties go to the lower index, of type I. */
#define PAIR_FN(name, T, I)						\
struct name##_pair {							\
	T	v;							\
	I	i;							\
};									\
static void								\
name(enum ft_op_code code, const void *in, void *inout, size_t n)	\
{									\
	const struct name##_pair *a = in;				\
	struct name##_pair *b = inout;					\
	size_t i;							\
									\
	for (i = 0; i < n; i++) {					\
		if ((code == FT_OP_MAXLOC && a[i].v > b[i].v) ||	\
		    (code == FT_OP_MINLOC && a[i].v < b[i].v))		\
			b[i] = a[i];					\
		else if (a[i].v == b[i].v && a[i].i < b[i].i)		\
			b[i].i = a[i].i;				\
	}								\
}

INT_FN(op_char, char, unsigned char)
INT_FN(op_schar, signed char, unsigned char)
INT_FN(op_uchar, unsigned char, unsigned char)
INT_FN(op_short, short, unsigned short)
INT_FN(op_ushort, unsigned short, unsigned short)
INT_FN(op_int, int, unsigned int)
INT_FN(op_uint, unsigned int, unsigned int)
INT_FN(op_long, long, unsigned long)
INT_FN(op_ulong, unsigned long, unsigned long)
INT_FN(op_llong, long long, unsigned long long)
INT_FN(op_ullong, unsigned long long, unsigned long long)
INT_FN(op_i8, int8_t, uint8_t)
INT_FN(op_i16, int16_t, uint16_t)
INT_FN(op_i32, int32_t, uint32_t)
INT_FN(op_i64, int64_t, uint64_t)
INT_FN(op_u8, uint8_t, uint8_t)
INT_FN(op_u16, uint16_t, uint16_t)
INT_FN(op_u32, uint32_t, uint32_t)
INT_FN(op_u64, uint64_t, uint64_t)
INT_FN(op_aint, MPI_Aint, size_t)
INT_FN(op_offset, MPI_Offset, unsigned long long)
INT_FN(op_count, MPI_Count, unsigned long long)
FLOAT_FN(op_float, float)
FLOAT_FN(op_double, double)
FLOAT_FN(op_ldouble, long double)
COMPLEX_FN(op_cfloat, float _Complex)
COMPLEX_FN(op_cdouble, double _Complex)
COMPLEX_FN(op_cldouble, long double _Complex)
PAIR_FN(op_2int, int, int)
PAIR_FN(op_float_int, float, int)
PAIR_FN(op_double_int, double, int)
PAIR_FN(op_long_int, long, int)
PAIR_FN(op_short_int, short, int)
PAIR_FN(op_ldouble_int, long double, int)
PAIR_FN(op_2real, float, float)
PAIR_FN(op_2dprec, double, double)
#ifdef FT_HAVE_QUAD
FLOAT_FN(op_quad, ft_quad)

/* COMPLEX32 is a pair of binary128, with no C complex type of its own. */
static void
op_cquad(enum ft_op_code code, const void *in, void *inout, size_t n)
{
	const ft_quad_complex *a = in;
	ft_quad_complex *b = inout;
	ft_quad re;
	size_t i;

	for (i = 0; i < n; i++) {
		if (code == FT_OP_SUM) {
			b[i].re += a[i].re;
			b[i].im += a[i].im;
		} else if (code == FT_OP_PROD) {
			re = a[i].re * b[i].re - a[i].im * b[i].im;
			b[i].im = a[i].re * b[i].im + a[i].im * b[i].re;
			b[i].re = re;
		}
	}
}
#endif

static void
op_bool(enum ft_op_code code, const void *in, void *inout, size_t n)
{
	const bool *a = in;
	bool *b = inout;
	size_t i;

	switch (code) {
	LOGICAL(a, b, i)
	default:
		break;
	}
}

/* Fortran LOGICAL: 4 bytes, any non-zero true, results 0 or 1. */
static void
op_logical(enum ft_op_code code, const void *in, void *inout, size_t n)
{
	const int32_t *a = in;
	int32_t *b = inout;
	size_t i;

	switch (code) {
	LOGICAL(a, b, i)
	default:
		break;
	}
}

static void
op_byte(enum ft_op_code code, const void *in, void *inout, size_t n)
{
	const unsigned char *a = in;
	unsigned char *b = inout;
	size_t i;

	switch (code) {
	BITWISE(a, b, i)
	default:
		break;
	}
}

typedef void (*op_fn)(enum ft_op_code, const void *, void *, size_t);

static const op_fn kind_fn[FT_TK_NKINDS] = {
	[FT_TK_CHAR] = op_char,
	[FT_TK_SIGNED_CHAR] = op_schar,
	[FT_TK_UNSIGNED_CHAR] = op_uchar,
	[FT_TK_BYTE] = op_byte,
	[FT_TK_SHORT] = op_short,
	[FT_TK_UNSIGNED_SHORT] = op_ushort,
	[FT_TK_INT] = op_int,
	[FT_TK_UNSIGNED] = op_uint,
	[FT_TK_LONG] = op_long,
	[FT_TK_UNSIGNED_LONG] = op_ulong,
	[FT_TK_LONG_LONG] = op_llong,
	[FT_TK_UNSIGNED_LONG_LONG] = op_ullong,
	[FT_TK_FLOAT] = op_float,
	[FT_TK_DOUBLE] = op_double,
	[FT_TK_LONG_DOUBLE] = op_ldouble,
	[FT_TK_C_BOOL] = op_bool,
	[FT_TK_INT8_T] = op_i8,
	[FT_TK_INT16_T] = op_i16,
	[FT_TK_INT32_T] = op_i32,
	[FT_TK_INT64_T] = op_i64,
	[FT_TK_UINT8_T] = op_u8,
	[FT_TK_UINT16_T] = op_u16,
	[FT_TK_UINT32_T] = op_u32,
	[FT_TK_UINT64_T] = op_u64,
	[FT_TK_C_FLOAT_COMPLEX] = op_cfloat,
	[FT_TK_C_DOUBLE_COMPLEX] = op_cdouble,
	[FT_TK_C_LONG_DOUBLE_COMPLEX] = op_cldouble,
	[FT_TK_AINT] = op_aint,
	[FT_TK_OFFSET] = op_offset,
	[FT_TK_COUNT] = op_count,
	[FT_TK_2INT] = op_2int,
	[FT_TK_FLOAT_INT] = op_float_int,
	[FT_TK_DOUBLE_INT] = op_double_int,
	[FT_TK_LONG_INT] = op_long_int,
	[FT_TK_SHORT_INT] = op_short_int,
	[FT_TK_LONG_DOUBLE_INT] = op_ldouble_int,
	[FT_TK_LOGICAL] = op_logical,
	[FT_TK_INTEGER] = op_i32,
	[FT_TK_REAL] = op_float,
	[FT_TK_DOUBLE_PRECISION] = op_double,
	[FT_TK_COMPLEX] = op_cfloat,
	[FT_TK_DOUBLE_COMPLEX] = op_cdouble,
	[FT_TK_INTEGER1] = op_i8,
	[FT_TK_INTEGER2] = op_i16,
	[FT_TK_INTEGER4] = op_i32,
	[FT_TK_INTEGER8] = op_i64,
	[FT_TK_REAL4] = op_float,
	[FT_TK_REAL8] = op_double,
	[FT_TK_COMPLEX8] = op_cfloat,
	[FT_TK_COMPLEX16] = op_cdouble,
#ifdef FT_HAVE_QUAD
	[FT_TK_REAL16] = op_quad,
	[FT_TK_COMPLEX32] = op_cquad,
#endif
	[FT_TK_2INTEGER] = op_2int,
	[FT_TK_2REAL] = op_2real,
	[FT_TK_2DOUBLE_PRECISION] = op_2dprec,
};

void
ft__mpi_op_apply(MPI_Op op, const void *in, void *inout, int count,
    MPI_Datatype type)
{
	enum ft_type_kind k;
	size_t n;

	if (count <= 0)
		return;
	if (op->code == FT_OP_USER) {
		/* The standard's signature takes no const. */
		op->fn((void *)(uintptr_t)in, inout, &count, &type);
		return;
	}
	if (!unit_of(type, &k, &n) || k >= FT_TK_NKINDS ||
	    kind_fn[k] == NULL)
		return;		/* ft__mpi_op_check said no */
	/* Dense units start at the buffer plus lb (0 if predefined). */
	kind_fn[k](op->code, ft__mpi_addr(in, type->lb),
	    ft__mpi_addr(inout, type->lb), n * (size_t)count);
}

int
ft__mpi_op_check_kind(MPI_Op op, enum ft_type_kind k)
{
	if (!ft__mpi_op_ok(op) || op->code == FT_OP_USER)
		return MPI_ERR_OP;
	if (op->code == FT_OP_REPLACE || op->code == FT_OP_NO_OP)
		return MPI_SUCCESS;
	return class_ok(op->code, kind_class(k)) ? MPI_SUCCESS : MPI_ERR_OP;
}

int
ft__mpi_op_apply_kind(MPI_Op op, enum ft_type_kind k, const void *in,
    void *inout, size_t n)
{
	if (op->code == FT_OP_USER || k <= FT_TK_DERIVED ||
	    k >= FT_TK_NKINDS || kind_fn[k] == NULL)
		return -1;
	if (n > 0)
		kind_fn[k](op->code, in, inout, n);
	return 0;
}

void
ft__mpi_op_retain(MPI_Op op)
{
	if (!op->predefined)
		op->refs++;
}

void
ft__mpi_op_release(MPI_Op op)
{
	size_t i;

	if (op->predefined || --op->refs > 0)
		return;
	for (i = 0; i < nuser_ops; i++)
		if (user_ops[i] == op) {
			user_ops[i] = user_ops[--nuser_ops];
			break;
		}
	free(op);
}

int
PMPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
	struct ft_mpi_op *o, **n;

	FT_MPI_CHECK_INIT("MPI_Op_create");
	if (fn == NULL || op == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Op_create",
		    "NULL argument");
	if (nuser_ops == capuser_ops) {
		size_t cap = capuser_ops == 0 ? 8 : capuser_ops * 2;

		if ((n = reallocarray(user_ops, cap, sizeof(*n))) == NULL)
			return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
			    "MPI_Op_create", "out of memory");
		user_ops = n;
		capuser_ops = cap;
	}
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
		    "MPI_Op_create", "out of memory");
	o->code = FT_OP_USER;
	o->fn = fn;
	o->commute = commute != 0;
	o->refs = 1;
	o->name = "user operation";
	user_ops[nuser_ops++] = o;
	*op = o;
	return MPI_SUCCESS;
}

/*
 * Operations still used by a nonblocking collective stay alive until
 * it completes: the handle goes now, the object with the last schedule.
 */
int
PMPI_Op_free(MPI_Op *op)
{
	FT_MPI_CHECK_INIT("MPI_Op_free");
	if (op == NULL || !ft__mpi_op_ok(*op))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_OP, "MPI_Op_free",
		    "invalid operation");
	if ((*op)->predefined)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_OP, "MPI_Op_free",
		    "%s is predefined", (*op)->name);
	ft__mpi_fint_forget(FT_FINT_OP, *op);
	ft__mpi_op_release(*op);
	*op = MPI_OP_NULL;
	return MPI_SUCCESS;
}

int
PMPI_Op_commutative(MPI_Op op, int *commute)
{
	FT_MPI_CHECK_INIT("MPI_Op_commutative");
	if (!ft__mpi_op_ok(op))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_OP,
		    "MPI_Op_commutative", "invalid operation");
	if (commute == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Op_commutative", "NULL argument");
	*commute = op->commute;
	return MPI_SUCCESS;
}

int
PMPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype type,
    MPI_Op op)
{
	static const char call[] = "MPI_Reduce_local";

	FT_MPI_CHECK_INIT(call);
	if (count < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, call,
		    "negative count %d", count);
	if (!ft__mpi_type_ok(type))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, call,
		    "invalid datatype");
	if (ft__mpi_op_check(op, type) != MPI_SUCCESS)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_OP, call,
		    "invalid operation for %s", type->name != NULL ?
		    type->name : "this datatype");
	if (in == MPI_IN_PLACE || inout == MPI_IN_PLACE)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER, call,
		    "MPI_IN_PLACE is not allowed");
	if (count > 0 && type->predefined && type->size > 0 &&
	    (in == NULL || inout == NULL))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER, call,
		    "NULL buffer with count %d", count);
	ft__mpi_op_apply(op, in, inout, count, type);
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Op_create = PMPI_Op_create
#pragma weak MPI_Op_free = PMPI_Op_free
#pragma weak MPI_Op_commutative = PMPI_Op_commutative
#pragma weak MPI_Reduce_local = PMPI_Reduce_local
