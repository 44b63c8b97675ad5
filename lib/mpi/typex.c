/* SPDX-License-Identifier: ISC */
/*
 * Datatype extras: how a type was made (MPI_Type_get_envelope and
 * MPI_Type_get_contents, from what the constructors in type.c record),
 * the array constructors MPI_Type_create_subarray and
 * MPI_Type_create_darray, attributes on datatypes, MPI_Type_match_size,
 * and the canonical packing MPI_Pack_external ("external32").
 *
 * The array constructors build the type map from the standard's
 * definition: in each dimension, the indices this process has are runs
 * of consecutive ones (one run for a subarray, one block or several
 * cyclic ones for a distributed array); a dimension is an indexed type
 * of those runs of the next inner dimension's type, resized to the whole
 * dimension.  The result is a duplicate of that, which records the
 * array constructor's own arguments.
 *
 * "external32" is big-endian, with the standard's fixed sizes: long is
 * 4 bytes and wchar_t 2, long double is IEEE binary128 (16 bytes);
 * conversion walks the type map one basic element at a time.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "attr.h"

#define TERR(call, code, ...)						\
	ft__mpi_err(MPI_COMM_NULL, (code), (call), __VA_ARGS__)

/* Arguments ---------------------------------------------------------- */

/* Drop the recorded arguments of t. */
static void
args_free(MPI_Datatype t)
{
	int i;

	for (i = 0; i < t->ntypes; i++)
		ft__mpi_type_release(t->ctypes[i]);
	free(t->ints);
	free(t->addrs);
	free(t->ctypes);
	t->ints = NULL;
	t->addrs = NULL;
	t->ctypes = NULL;
	t->nints = t->naddrs = t->ntypes = 0;
}

/* See type.h. */
int
ft__mpi_type_record(MPI_Datatype t, const struct ft_type_args *a)
{
	int ni = a->nhead + a->na + a->nb, i;

	t->combiner = a->combiner;
	if ((ni > 0 && (t->ints = calloc((size_t)ni, sizeof(int))) == NULL) ||
	    (a->naddrs > 0 && (t->addrs = calloc((size_t)a->naddrs,
	    sizeof(MPI_Aint))) == NULL) ||
	    (a->ntypes > 0 && (t->ctypes = calloc((size_t)a->ntypes,
	    sizeof(MPI_Datatype))) == NULL))
		return -1;	/* freed with the type */
	if (a->nhead > 0)
		memcpy(t->ints, a->head, (size_t)a->nhead * sizeof(int));
	if (a->na > 0)
		memcpy(t->ints + a->nhead, a->a, (size_t)a->na * sizeof(int));
	if (a->nb > 0)
		memcpy(t->ints + a->nhead + a->na, a->b,
		    (size_t)a->nb * sizeof(int));
	if (a->naddrs > 0)
		memcpy(t->addrs, a->addrs, (size_t)a->naddrs *
		    sizeof(MPI_Aint));
	for (i = 0; i < a->ntypes; i++) {
		t->ctypes[i] = a->types[i];
		ft__mpi_type_retain(a->types[i]);
	}
	t->nints = ni;
	t->naddrs = a->naddrs;
	t->ntypes = a->ntypes;
	return 0;
}

/* See type.h. */
void
ft__mpi_type_record_free(MPI_Datatype t)
{
	args_free(t);
	ft__mpi_attrs_drop(&t->attrs);
}

/*
 * The numbers of integers, addresses and datatypes the constructor of
 * type was given, and which constructor; a predefined type is
 * MPI_COMBINER_NAMED with none.  MPI_ERR_TYPE for a bad type,
 * MPI_ERR_ARG for a NULL argument.
 */
int
PMPI_Type_get_envelope(MPI_Datatype type, int *nints, int *naddrs,
    int *ntypes, int *combiner)
{
	const char *call = "MPI_Type_get_envelope";

	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_type_valid(type))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (nints == NULL || naddrs == NULL || ntypes == NULL ||
	    combiner == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL argument");
	*nints = type->nints;
	*naddrs = type->naddrs;
	*ntypes = type->ntypes;
	*combiner = type->predefined ? MPI_COMBINER_NAMED : type->combiner;
	return MPI_SUCCESS;
}

/*
 * The arguments of the constructor of a derived type, in the standard's
 * order.  A derived type in them is handed out as a new handle to the
 * same type, for the caller to free with MPI_Type_free; a predefined
 * one is itself.  MPI_ERR_TYPE for a predefined type (it has no
 * constructor), MPI_ERR_ARG for arrays smaller than
 * MPI_Type_get_envelope says or NULL.
 */
int
PMPI_Type_get_contents(MPI_Datatype type, int maxints, int maxaddrs,
    int maxtypes, int ints[], MPI_Aint addrs[], MPI_Datatype types[])
{
	const char *call = "MPI_Type_get_contents";
	MPI_Datatype c;
	int i, j;

	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_type_valid(type))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (type->predefined)
		return TERR(call, MPI_ERR_TYPE, "%s is a named predefined "
		    "datatype", type->name);
	if (maxints < type->nints || maxaddrs < type->naddrs ||
	    maxtypes < type->ntypes)
		return TERR(call, MPI_ERR_ARG, "room for %d, %d and %d "
		    "arguments, %d, %d and %d needed", maxints, maxaddrs,
		    maxtypes, type->nints, type->naddrs, type->ntypes);
	if ((type->nints > 0 && ints == NULL) ||
	    (type->naddrs > 0 && addrs == NULL) ||
	    (type->ntypes > 0 && types == NULL))
		return TERR(call, MPI_ERR_ARG, "NULL array");
	for (i = 0; i < type->ntypes; i++) {
		c = type->ctypes[i];
		if (!c->predefined && ft__mpi_type_handle(c) != 0) {
			for (j = 0; j < i; j++)
				if (!types[j]->predefined)
					(void)MPI_Type_free(&types[j]);
			return TERR(call, MPI_ERR_NO_MEM, "out of memory");
		}
		types[i] = c;
	}
	if (type->nints > 0)
		memcpy(ints, type->ints, (size_t)type->nints * sizeof(int));
	if (type->naddrs > 0)
		memcpy(addrs, type->addrs, (size_t)type->naddrs *
		    sizeof(MPI_Aint));
	return MPI_SUCCESS;
}

/* Subarrays and distributed arrays ----------------------------------- */

/* The indices of one dimension a process has: n runs. */
struct runs {
	int	*start, *len;
	int	 n;
};

static void
runs_add(struct runs *r, int start, int len)
{
	r->start[r->n] = start;
	r->len[r->n] = len;
	r->n++;
}

static void
runs_free(struct runs *r, int ndims)
{
	int d;

	for (d = 0; r != NULL && d < ndims; d++) {
		free(r[d].start);
		free(r[d].len);
	}
	free(r);
}

/* Room for at most n runs in r; -1 when out of memory. */
static int
runs_alloc(struct runs *r, int n)
{
	size_t m = n > 0 ? (size_t)n : 1;

	r->n = 0;
	if ((r->start = calloc(m, sizeof(int))) == NULL ||
	    (r->len = calloc(m, sizeof(int))) == NULL)
		return -1;
	return 0;
}

/*
 * The type of an array of gsizes[] elements of old in the given order
 * of which this process has the runs[] of each dimension: from the
 * fastest dimension out, an indexed type of the runs of the type of the
 * dimension inside, resized to cover the whole dimension.  Then a
 * duplicate of that, recording args.  Errors (out of memory) are
 * reported by the calls made.
 */
static int
grid_type(int ndims, const int gsizes[], const struct runs *runs, int order,
    MPI_Datatype old, const struct ft_type_args *args, MPI_Datatype *newtype)
{
	MPI_Datatype t = old, idx, rt;
	MPI_Aint lb, ext;
	int k, d, rc;

	for (k = 0; k < ndims; k++) {
		d = order == MPI_ORDER_C ? ndims - 1 - k : k;
		(void)MPI_Type_get_extent(t, &lb, &ext);
		if ((rc = MPI_Type_indexed(runs[d].n, runs[d].len,
		    runs[d].start, t, &idx)) != MPI_SUCCESS)
			break;
		rc = MPI_Type_create_resized(idx, 0, gsizes[d] * ext, &rt);
		(void)MPI_Type_free(&idx);
		if (rc != MPI_SUCCESS)
			break;
		if (t != old)
			(void)MPI_Type_free(&t);
		t = rt;
	}
	if (k == ndims && (rc = MPI_Type_dup(t, newtype)) == MPI_SUCCESS) {
		args_free(*newtype);
		if (ft__mpi_type_record(*newtype, args) != 0) {
			(void)MPI_Type_free(newtype);
			rc = TERR(args->combiner == MPI_COMBINER_SUBARRAY ?
			    "MPI_Type_create_subarray" :
			    "MPI_Type_create_darray", MPI_ERR_NO_MEM,
			    "out of memory");
		}
	}
	if (t != old)
		(void)MPI_Type_free(&t);
	return rc;
}

/*
 * The end of both array constructors: unless rc says they failed
 * already, the type of the runs, recording the constructor and its
 * nints arguments ints.  runs and ints are freed.
 */
static int
grid_done(int rc, int ndims, const int gsizes[], struct runs *runs,
    int order, MPI_Datatype old, int combiner, int *ints, int nints,
    MPI_Datatype *newtype)
{
	if (rc == MPI_SUCCESS)
		rc = grid_type(ndims, gsizes, runs, order, old,
		    &(struct ft_type_args){ .combiner = combiner, .a = ints,
		    .na = nints, .types = &old, .ntypes = 1 }, newtype);
	runs_free(runs, ndims);
	free(ints);
	return rc;
}

/*
 * The checks both array constructors make: ndims arrays, the order,
 * old, newtype, and that an array of gsizes[] elements of old has an
 * extent an MPI_Aint holds.
 */
static int
check_array(const char *call, int ndims, const int *a, const int *b,
    const int *c, const int *d, int order, MPI_Datatype old,
    MPI_Datatype *newtype, const int *gsizes)
{
	MPI_Aint ext;
	int i;

	FT_MPI_CHECK_INIT(call);
	if (ndims <= 0)
		return TERR(call, MPI_ERR_DIMS, "%d dimensions", ndims);
	if (a == NULL || b == NULL || c == NULL || d == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL array");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return TERR(call, MPI_ERR_ARG, "unknown order %d", order);
	if (!ft__mpi_type_valid(old))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (newtype == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL newtype");
	ext = old->extent;
	for (i = 0; i < ndims; i++) {
		if (gsizes[i] <= 0)
			return TERR(call, MPI_ERR_ARG, "size %d in dimension "
			    "%d", gsizes[i], i);
		if (__builtin_mul_overflow(ext, (MPI_Aint)gsizes[i], &ext))
			return TERR(call, MPI_ERR_ARG, "the array is too "
			    "large");
	}
	return MPI_SUCCESS;
}

/*
 * The subarray subsizes[] at starts[] of an array of sizes[] elements
 * of old, in C or Fortran order: lb 0 and the extent of the whole
 * array.  MPI_ERR_DIMS for ndims < 1, MPI_ERR_ARG for sizes below 1,
 * a subarray not inside the array or another order.
 */
int
PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
    const int starts[], int order, MPI_Datatype old, MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_create_subarray";
	struct runs *runs;
	int *ints, i, rc;

	if ((rc = check_array(call, ndims, sizes, subsizes, starts, sizes,
	    order, old, newtype, sizes)) != MPI_SUCCESS)
		return rc;
	for (i = 0; i < ndims; i++)
		if (subsizes[i] < 1 || starts[i] < 0 ||
		    starts[i] > sizes[i] - subsizes[i])
			return TERR(call, MPI_ERR_ARG, "subarray of %d at %d "
			    "is not inside %d in dimension %d", subsizes[i],
			    starts[i], sizes[i], i);
	if ((runs = calloc((size_t)ndims, sizeof(*runs))) == NULL ||
	    (ints = calloc(3 * (size_t)ndims + 2, sizeof(int))) == NULL) {
		free(runs);
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	}
	ints[0] = ndims;
	for (i = 0; i < ndims; i++) {
		ints[1 + i] = sizes[i];
		ints[1 + ndims + i] = subsizes[i];
		ints[1 + 2 * ndims + i] = starts[i];
		if (runs_alloc(&runs[i], 1) != 0) {
			rc = TERR(call, MPI_ERR_NO_MEM, "out of memory");
			goto out;
		}
		runs_add(&runs[i], starts[i], subsizes[i]);
	}
	ints[1 + 3 * ndims] = order;
out:
	return grid_done(rc, ndims, sizes, runs, order, old,
	    MPI_COMBINER_SUBARRAY, ints, 3 * ndims + 2, newtype);
}

/*
 * The indices of a dimension of g elements that process c of p has
 * under distrib and darg, into r.  Returns an error message, or NULL.
 */
static const char *
dim_runs(int distrib, int darg, int g, int p, int c, struct runs *r)
{
	long long b, s, step;

	switch (distrib) {
	case MPI_DISTRIBUTE_NONE:
		if (p != 1)
			return "MPI_DISTRIBUTE_NONE over more than 1 process";
		b = g;
		step = g;
		break;
	case MPI_DISTRIBUTE_BLOCK:
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? g / p + (g % p != 0) :
		    darg;
		if (b <= 0 || b * p < g)
			return "blocks that do not cover the dimension";
		step = b * p;
		break;
	case MPI_DISTRIBUTE_CYCLIC:
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
		if (b <= 0)
			return "a cyclic block length below 1";
		step = b * p;
		break;
	default:
		return "an unknown distribution";
	}
	/* Blocks of b, dealt round the p processes: c has every p-th. */
	s = c * b;
	if (runs_alloc(r, s < g ? (int)((g - s + step - 1) / step) : 0) != 0)
		return "out of memory";
	for (; s < g; s += step)
		runs_add(r, (int)s, (int)(g - s < b ? g - s : b));
	return NULL;
}

/*
 * The part that process rank of size, in a grid of psizes[] processes
 * numbered in row-major order, has of an array of gsizes[] elements of
 * old in C or Fortran order, distributed by distribs[] with dargs[]:
 * lb 0 and the extent of the whole array.  MPI_ERR_DIMS for ndims < 1,
 * MPI_ERR_RANK for a rank outside the grid, MPI_ERR_ARG for a grid not
 * of size processes, a bad distribution or argument.
 */
int
PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
    const int distribs[], const int dargs[], const int psizes[], int order,
    MPI_Datatype old, MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_create_darray";
	struct runs *runs = NULL;
	const char *why;
	long long grid = 1;
	int *ints = NULL, i, rc, r, c;

	if ((rc = check_array(call, ndims, gsizes, distribs, dargs, psizes,
	    order, old, newtype, gsizes)) != MPI_SUCCESS)
		return rc;
	for (i = 0; i < ndims; i++) {
		if (psizes[i] <= 0)
			return TERR(call, MPI_ERR_ARG, "%d processes in "
			    "dimension %d", psizes[i], i);
		if ((grid *= psizes[i]) > INT_MAX)
			break;
	}
	if (size <= 0 || grid != size)
		return TERR(call, MPI_ERR_ARG, "a grid of %lld processes, not "
		    "%d", grid, size);
	if (rank < 0 || rank >= size)
		return TERR(call, MPI_ERR_RANK, "rank %d of %d", rank, size);
	if ((runs = calloc((size_t)ndims, sizeof(*runs))) == NULL ||
	    (ints = calloc(4 * (size_t)ndims + 4, sizeof(int))) == NULL) {
		rc = TERR(call, MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	/* This process's coordinates, the last dimension fastest. */
	for (i = 0, r = rank; i < ndims; i++) {
		grid /= psizes[i];
		c = (int)(r / grid);
		r = (int)(r % grid);
		if ((why = dim_runs(distribs[i], dargs[i], gsizes[i],
		    psizes[i], c, &runs[i])) != NULL) {
			rc = TERR(call, strcmp(why, "out of memory") == 0 ?
			    MPI_ERR_NO_MEM : MPI_ERR_ARG, "%s in dimension %d",
			    why, i);
			goto out;
		}
		ints[3 + i] = gsizes[i];
		ints[3 + ndims + i] = distribs[i];
		ints[3 + 2 * ndims + i] = dargs[i];
		ints[3 + 3 * ndims + i] = psizes[i];
	}
	ints[0] = size;
	ints[1] = rank;
	ints[2] = ndims;
	ints[3 + 4 * ndims] = order;
out:
	return grid_done(rc, ndims, gsizes, runs, order, old,
	    MPI_COMBINER_DARRAY, ints, 4 * ndims + 4, newtype);
}

/*
 * The predefined type of typeclass (MPI_TYPECLASS_REAL, _INTEGER or
 * _COMPLEX) and size bytes: the size-specific Fortran types MPI_REAL4,
 * MPI_INTEGER8, MPI_COMPLEX16 and so on.  MPI_ERR_ARG for a class or
 * size there is none of.
 */
int
PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *type)
{
	static const struct {
		int		 typeclass, size;
		MPI_Datatype	 type;
	} match[] = {
		{ MPI_TYPECLASS_REAL, 4, MPI_REAL4 },
		{ MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
		{ MPI_TYPECLASS_REAL, 16, MPI_REAL16 },
		{ MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },
		{ MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
		{ MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },
		{ MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
		{ MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },
		{ MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 },
		{ MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
	};
	size_t i;

	FT_MPI_CHECK_INIT("MPI_Type_match_size");
	if (type == NULL)
		return TERR("MPI_Type_match_size", MPI_ERR_ARG,
		    "NULL argument");
	for (i = 0; i < sizeof(match) / sizeof(match[0]); i++)
		if (match[i].typeclass == typeclass && match[i].size == size) {
			*type = match[i].type;
			return MPI_SUCCESS;
		}
	return TERR("MPI_Type_match_size", MPI_ERR_ARG, "no type of class %d "
	    "and %d bytes", typeclass, size);
}

/* Fortran kinds (MPI-3.1 17.1.9) ------------------------------------- */

/*
 * The kinds gfortran has, smallest first, with the decimal precision
 * and exponent range its PRECISION and RANGE give them; the first that
 * is enough is the one SELECTED_INT_KIND or SELECTED_REAL_KIND picks.
 * Kind 10, x87 extended, is C's long double on x86; ft has no
 * MPI_INTEGER16.
 */
struct f90_kind {
	int		 p, r;
	MPI_Datatype	 real, complex;
};

static const struct f90_kind f90_reals[] = {
	{ 6, 37, MPI_REAL4, MPI_COMPLEX8 },
	{ 15, 307, MPI_REAL8, MPI_COMPLEX16 },
#if LDBL_MANT_DIG == 64
	{ 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX },
#endif
	{ 33, 4931, MPI_REAL16, MPI_COMPLEX32 },
};

/* Precision p and range r, either MPI_UNDEFINED: a real or complex type. */
static int
f90_real(const char *call, int p, int r, int complex, MPI_Datatype *newtype)
{
	size_t i;

	FT_MPI_CHECK_INIT(call);
	if (newtype == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL argument");
	*newtype = MPI_DATATYPE_NULL;
	if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
		return TERR(call, MPI_ERR_ARG, "p and r are both "
		    "MPI_UNDEFINED");
	for (i = 0; i < sizeof(f90_reals) / sizeof(f90_reals[0]); i++)
		if ((p == MPI_UNDEFINED || p <= f90_reals[i].p) &&
		    (r == MPI_UNDEFINED || r <= f90_reals[i].r)) {
			*newtype = complex ? f90_reals[i].complex :
			    f90_reals[i].real;
			return MPI_SUCCESS;
		}
	return TERR(call, MPI_ERR_ARG, "no %s type has a precision of %d "
	    "and an exponent range of %d digits", complex ? "complex" : "real",
	    p, r);
}

/*
 * The predefined types of the Fortran kinds SELECTED_REAL_KIND(p, r),
 * REAL and COMPLEX, and SELECTED_INT_KIND(r); MPI_ERR_ARG when there is
 * no such kind (and *newtype is MPI_DATATYPE_NULL).  They are
 * predefined, so MPI_Type_get_envelope says MPI_COMBINER_NAMED.
 */
int
PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
	return f90_real("MPI_Type_create_f90_real", p, r, 0, newtype);
}

int
PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
	return f90_real("MPI_Type_create_f90_complex", p, r, 1, newtype);
}

int
PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
	static const struct {
		int		 r;
		MPI_Datatype	 type;
	} ints[] = {
		{ 2, MPI_INTEGER1 },
		{ 4, MPI_INTEGER2 },
		{ 9, MPI_INTEGER4 },
		{ 18, MPI_INTEGER8 },
	};
	const char *call = "MPI_Type_create_f90_integer";
	size_t i;

	FT_MPI_CHECK_INIT(call);
	if (newtype == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL argument");
	*newtype = MPI_DATATYPE_NULL;
	if (r == MPI_UNDEFINED)
		return TERR(call, MPI_ERR_ARG, "r is MPI_UNDEFINED");
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (r <= ints[i].r) {
			*newtype = ints[i].type;
			return MPI_SUCCESS;
		}
	return TERR(call, MPI_ERR_ARG, "no integer type has an exponent range "
	    "of %d digits", r);
}

/* Attributes (attr.c) ------------------------------------------------ */

/* See type.h. */
int
ft__mpi_type_attrs_copy(MPI_Datatype old, MPI_Datatype t)
{
	return ft__mpi_attrs_copy(FT_ATTR_TYPE, old, old->attrs, t, &t->attrs);
}

/* See type.h. */
int
ft__mpi_type_attrs_delete(MPI_Datatype t)
{
	return ft__mpi_attrs_delete(FT_ATTR_TYPE, t, &t->attrs);
}

/* MPI_TYPE_DUP_FN: the duplicate gets the same value. */
int
ft_mpi_type_dup_fn(MPI_Datatype type, int keyval, void *extra, void *in,
    void *out, int *flag)
{
	(void)type;
	(void)keyval;
	(void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

/*
 * A new keyval for datatype attributes, with copy (run by
 * MPI_Type_dup; NULL copies nothing) and delete (run by
 * MPI_Type_delete_attr, MPI_Type_set_attr over a value, and the
 * MPI_Type_free of the last handle) functions and their extra state.
 * Keyvals of communicators are not valid on datatypes, and the reverse.
 */
int
PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy,
    MPI_Type_delete_attr_function *del, int *keyval, void *extra)
{
	const char *call = "MPI_Type_create_keyval";

	FT_MPI_CHECK_INIT(call);
	if (keyval == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL keyval");
	if (ft__mpi_keyval_new(FT_ATTR_TYPE, &(struct ft_attr_fns){
	    .type_copy = copy, .type_del = del }, extra, keyval) != 0)
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	return MPI_SUCCESS;
}

/*
 * Free a keyval and set it to MPI_KEYVAL_INVALID; attributes still set
 * with it keep it alive for their delete functions.
 */
int
PMPI_Type_free_keyval(int *keyval)
{
	const char *call = "MPI_Type_free_keyval";

	FT_MPI_CHECK_INIT(call);
	if (keyval == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL keyval");
	if (ft__mpi_keyval_free(FT_ATTR_TYPE, *keyval) != 0)
		return TERR(call, MPI_ERR_KEYVAL, "invalid keyval %d",
		    *keyval);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

/* The checks the attribute calls share. */
static int
check_attr(const char *call, MPI_Datatype type, int keyval)
{
	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_type_valid(type))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (!ft__mpi_keyval_ok(FT_ATTR_TYPE, keyval))
		return TERR(call, MPI_ERR_KEYVAL, "invalid keyval %d",
		    keyval);
	return MPI_SUCCESS;
}

/*
 * Set an attribute of type, predefined or not; an old value goes
 * through the delete function first, and its error is returned.
 */
int
PMPI_Type_set_attr(MPI_Datatype type, int keyval, void *val)
{
	const char *call = "MPI_Type_set_attr";
	int rc;

	if ((rc = check_attr(call, type, keyval)) != MPI_SUCCESS)
		return rc;
	if ((rc = ft__mpi_attr_set(FT_ATTR_TYPE, type, &type->attrs, keyval,
	    val)) != MPI_SUCCESS)
		return TERR(call, rc, "%s", rc == MPI_ERR_NO_MEM ?
		    "out of memory" : "the delete function failed");
	return MPI_SUCCESS;
}

/* The value of an attribute into *(void **)val, and *flag 1; or 0. */
int
PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *val, int *flag)
{
	const char *call = "MPI_Type_get_attr";
	struct ft_mpi_attr *a;
	int rc;

	if ((rc = check_attr(call, type, keyval)) != MPI_SUCCESS)
		return rc;
	if (val == NULL || flag == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL argument");
	a = ft__mpi_attr_find(type->attrs, keyval);
	*flag = a != NULL;
	if (a != NULL)
		*(void **)val = a->val;
	return MPI_SUCCESS;
}

/*
 * Delete an attribute through its delete function, whose error is
 * returned (the attribute then stays); none set is no error.
 */
int
PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
	const char *call = "MPI_Type_delete_attr";
	int rc;

	if ((rc = check_attr(call, type, keyval)) != MPI_SUCCESS)
		return rc;
	if ((rc = ft__mpi_attr_delete(FT_ATTR_TYPE, type, &type->attrs,
	    keyval)) != MPI_SUCCESS)
		return TERR(call, rc, "the delete function of keyval %d "
		    "failed", keyval);
	return MPI_SUCCESS;
}

/* external32 --------------------------------------------------------- */

/* How a basic element converts. */
enum xclass {
	X_NONE = 0,
	X_BYTES,	/* as it is */
	X_SINT,		/* two's complement, big-endian */
	X_UINT,
	X_BOOL,		/* 0 false, anything else true (1 here) */
	X_FLOAT,	/* IEEE single or double, big-endian */
	X_LDOUBLE,	/* long double, to IEEE binary128 */
	X_QUAD,		/* IEEE binary128 already */
};

/* A basic element: parts (2 for complex) of nsize bytes, xsize packed. */
struct xkind {
	unsigned char	cls, parts, nsize, xsize;
};

#define XK(k, c, p, n, x)	[k] = { c, p, n, x }

static const struct xkind xkinds[FT_TK_NKINDS] = {
	XK(FT_TK_CHAR, X_BYTES, 1, 1, 1),
	XK(FT_TK_SIGNED_CHAR, X_SINT, 1, 1, 1),
	XK(FT_TK_UNSIGNED_CHAR, X_UINT, 1, 1, 1),
	XK(FT_TK_BYTE, X_BYTES, 1, 1, 1),
	XK(FT_TK_WCHAR, X_UINT, 1, sizeof(wchar_t), 2),
	XK(FT_TK_SHORT, X_SINT, 1, sizeof(short), 2),
	XK(FT_TK_UNSIGNED_SHORT, X_UINT, 1, sizeof(short), 2),
	XK(FT_TK_INT, X_SINT, 1, sizeof(int), 4),
	XK(FT_TK_UNSIGNED, X_UINT, 1, sizeof(int), 4),
	XK(FT_TK_LONG, X_SINT, 1, sizeof(long), 4),
	XK(FT_TK_UNSIGNED_LONG, X_UINT, 1, sizeof(long), 4),
	XK(FT_TK_LONG_LONG, X_SINT, 1, sizeof(long long), 8),
	XK(FT_TK_UNSIGNED_LONG_LONG, X_UINT, 1, sizeof(long long), 8),
	XK(FT_TK_FLOAT, X_FLOAT, 1, 4, 4),
	XK(FT_TK_DOUBLE, X_FLOAT, 1, 8, 8),
	XK(FT_TK_LONG_DOUBLE, X_LDOUBLE, 1, sizeof(long double), 16),
	XK(FT_TK_C_BOOL, X_BOOL, 1, sizeof(_Bool), 1),
	XK(FT_TK_INT8_T, X_SINT, 1, 1, 1),
	XK(FT_TK_INT16_T, X_SINT, 1, 2, 2),
	XK(FT_TK_INT32_T, X_SINT, 1, 4, 4),
	XK(FT_TK_INT64_T, X_SINT, 1, 8, 8),
	XK(FT_TK_UINT8_T, X_UINT, 1, 1, 1),
	XK(FT_TK_UINT16_T, X_UINT, 1, 2, 2),
	XK(FT_TK_UINT32_T, X_UINT, 1, 4, 4),
	XK(FT_TK_UINT64_T, X_UINT, 1, 8, 8),
	XK(FT_TK_C_FLOAT_COMPLEX, X_FLOAT, 2, 4, 4),
	XK(FT_TK_C_DOUBLE_COMPLEX, X_FLOAT, 2, 8, 8),
	XK(FT_TK_C_LONG_DOUBLE_COMPLEX, X_LDOUBLE, 2, sizeof(long double),
	    16),
	XK(FT_TK_AINT, X_SINT, 1, sizeof(MPI_Aint), 8),
	XK(FT_TK_OFFSET, X_SINT, 1, sizeof(MPI_Offset), 8),
	XK(FT_TK_COUNT, X_SINT, 1, sizeof(MPI_Count), 8),
	XK(FT_TK_PACKED, X_BYTES, 1, 1, 1),
	XK(FT_TK_CHARACTER, X_BYTES, 1, 1, 1),
	XK(FT_TK_LOGICAL, X_BOOL, 1, 4, 4),
	XK(FT_TK_INTEGER, X_SINT, 1, 4, 4),
	XK(FT_TK_REAL, X_FLOAT, 1, 4, 4),
	XK(FT_TK_DOUBLE_PRECISION, X_FLOAT, 1, 8, 8),
	XK(FT_TK_COMPLEX, X_FLOAT, 2, 4, 4),
	XK(FT_TK_DOUBLE_COMPLEX, X_FLOAT, 2, 8, 8),
	XK(FT_TK_INTEGER1, X_SINT, 1, 1, 1),
	XK(FT_TK_INTEGER2, X_SINT, 1, 2, 2),
	XK(FT_TK_INTEGER4, X_SINT, 1, 4, 4),
	XK(FT_TK_INTEGER8, X_SINT, 1, 8, 8),
	XK(FT_TK_REAL4, X_FLOAT, 1, 4, 4),
	XK(FT_TK_REAL8, X_FLOAT, 1, 8, 8),
	XK(FT_TK_REAL16, X_QUAD, 1, 16, 16),
	XK(FT_TK_COMPLEX8, X_FLOAT, 2, 4, 4),
	XK(FT_TK_COMPLEX16, X_FLOAT, 2, 8, 8),
	XK(FT_TK_COMPLEX32, X_QUAD, 2, 16, 16),
};

_Static_assert(sizeof(float) == 4 && sizeof(double) == 8 &&
    sizeof(MPI_Aint) <= 8 && sizeof(long) <= 8,
    "external32 conversions assume these sizes");

static uint64_t
get_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void
put_be(uint8_t *p, size_t n, uint64_t v)
{
	while (n-- > 0) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

/*
 * Where the n low-order bytes of a uint64_t are in memory, for the
 * native integers of n bytes.
 */
static size_t
low_bytes(size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	(void)n;
	return 0;
#else
	return 8 - n;
#endif
}

/* v, an integer of n bytes, sign-extended to 8. */
static uint64_t
sext(uint64_t v, size_t n)
{
	if (n < 8 && v >> (8 * n - 1) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	return v;
}

/* The native integer of n bytes at p, widened (sign-extended if sign). */
static uint64_t
get_native(const void *p, size_t n, int sign)
{
	uint64_t v = 0;

	memcpy((uint8_t *)&v + low_bytes(n), p, n);
	return sign ? sext(v, n) : v;
}

/* Store the low n bytes of v at p as a native integer. */
static void
put_native(void *p, size_t n, uint64_t v)
{
	memcpy(p, (uint8_t *)&v + low_bytes(n), n);
}

/*
 * long double to and from IEEE binary128, big-endian: through frexpl
 * and ldexpl, so for any format long double has (x87 extended, binary128
 * or double); a narrower long double rounds to nearest.
 */
static void
ld_to_quad(long double x, uint8_t q[16])
{
	uint64_t hi, lo;
	long double m, f, h;
	int e, ex;

	hi = signbit(x) ? (uint64_t)1 << 63 : 0;
	lo = 0;
	x = fabsl(x);
	if (isnan(x))
		hi |= (uint64_t)0x7fff << 48 | (uint64_t)1 << 47;
	else if (isinf(x))
		hi |= (uint64_t)0x7fff << 48;
	else if (x != 0) {
		m = frexpl(x, &e);	/* x = m * 2^e, 1/2 <= m < 1 */
		ex = e - 1 + 16383;
		if (ex >= 0x7fff) {
			hi |= (uint64_t)0x7fff << 48;
			goto out;
		}
		/* The 112 fraction bits, as an integer f < 2^112. */
		if (ex <= 0) {
			f = ldexpl(m, e + 16382 + 112);
			ex = 0;
		} else
			f = ldexpl(2 * m - 1, 112);
		h = floorl(ldexpl(f, -64));
		hi |= (uint64_t)ex << 48 | (uint64_t)h;
		lo = (uint64_t)(f - ldexpl(h, 64));
	}
out:
	put_be(q, 8, hi);
	put_be(q + 8, 8, lo);
}

static long double
quad_to_ld(const uint8_t q[16])
{
	uint64_t hi = get_be(q, 8), lo = get_be(q + 8, 8);
	uint64_t frac = hi & (((uint64_t)1 << 48) - 1);
	int ex = (int)(hi >> 48 & 0x7fff);
	long double x;

	if (ex == 0x7fff)
		x = frac != 0 || lo != 0 ? (long double)NAN :
		    (long double)INFINITY;
	else if (ex == 0)
		x = ldexpl((long double)frac * 0x1p64L + (long double)lo,
		    -16382 - 112);
	else
		x = ldexpl((long double)(frac | (uint64_t)1 << 48) * 0x1p64L +
		    (long double)lo, ex - 16383 - 112);
	return hi >> 63 ? -x : x;
}

/*
 * The bytes of a long double that hold its value: x87 extended leaves
 * the rest padding, which an unpack must not write (elements may
 * overlap it).
 */
#if LDBL_MANT_DIG == 64
#define LD_BYTES	10
#else
#define LD_BYTES	sizeof(long double)
#endif

/* The packed side of a conversion. */
struct xcursor {
	uint8_t		*p;
	size_t		 left;
	int		 unpack;
};

/* Convert the part of n native bytes at a to or from x bytes at c. */
static void
x_part(const struct xkind *k, uint8_t *a, uint8_t *c, int unpack)
{
	long double ld;
	uint64_t v;
	size_t i;

	switch (k->cls) {
	case X_BYTES:
		if (unpack)
			memcpy(a, c, k->nsize);
		else
			memcpy(c, a, k->nsize);
		break;
	case X_SINT:
	case X_UINT:
	case X_BOOL:
		if (!unpack) {
			v = get_native(a, k->nsize, k->cls == X_SINT);
			put_be(c, k->xsize, k->cls == X_BOOL ? v != 0 : v);
			break;
		}
		v = get_be(c, k->xsize);
		if (k->cls == X_SINT)
			v = sext(v, k->xsize);
		put_native(a, k->nsize, k->cls == X_BOOL ? v != 0 : v);
		break;
	case X_FLOAT:
	case X_QUAD:
		/* IEEE in the host's byte order: reverse if little-endian. */
		for (i = 0; i < k->nsize; i++) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			if (unpack)
				a[i] = c[k->nsize - 1 - i];
			else
				c[k->nsize - 1 - i] = a[i];
#else
			if (unpack)
				a[i] = c[i];
			else
				c[i] = a[i];
#endif
		}
		break;
	case X_LDOUBLE:
		if (unpack) {
			ld = quad_to_ld(c);
			memcpy(a, &ld, LD_BYTES);
		} else {
			memcpy(&ld, a, sizeof(ld));
			ld_to_quad(ld, c);
		}
		break;
	}
}

/* ft__mpi_type_walk callback: one basic element. */
static int
x_elem(void *arg, enum ft_type_kind kind, void *addr)
{
	const struct xkind *k = &xkinds[kind];
	struct xcursor *c = arg;
	int j;

	if (k->cls == X_NONE)
		return -1;	/* no such basic element */
	if (c->p == NULL) {	/* only counting */
		c->left += (size_t)k->parts * k->xsize;
		return 0;
	}
	for (j = 0; j < k->parts; j++) {
		x_part(k, (uint8_t *)addr + (size_t)j * k->nsize, c->p,
		    c->unpack);
		c->p += k->xsize;
	}
	return 0;
}

/* The external32 bytes of count elements of type, into *size. */
static int
x_size(MPI_Datatype type, size_t count, size_t *size)
{
	struct xcursor c = { NULL, 0, 0 };

	if (ft__mpi_type_walk(type, NULL, 1, x_elem, &c) != 0)
		return -1;
	return __builtin_mul_overflow(c.left, count, size) ? -1 : 0;
}

/*
 * The checks of the three external32 calls, the type committed unless
 * only sizing; *need is the bytes of count elements.  Errors go to
 * MPI_COMM_WORLD's handler.
 */
static int
check_external(const char *call, const char *datarep, int count,
    MPI_Datatype type, int sizing, size_t *need)
{
	FT_MPI_CHECK_INIT(call);
	if (datarep == NULL || strcmp(datarep, "external32") != 0)
		return TERR(call, MPI_ERR_ARG, "data representation '%s' is "
		    "not external32", datarep != NULL ? datarep : "(null)");
	if (count < 0)
		return TERR(call, MPI_ERR_COUNT, "negative count %d", count);
	if (!ft__mpi_type_valid(type))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (!sizing && !type->committed)
		return TERR(call, MPI_ERR_TYPE, "datatype not committed");
	if (x_size(type, (size_t)count, need) != 0 ||
	    *need > (size_t)PTRDIFF_MAX)
		return TERR(call, MPI_ERR_COUNT, "%d elements are too large",
		    count);
	return MPI_SUCCESS;
}

/* The bytes incount elements of type take in external32, into *size. */
int
PMPI_Pack_external_size(const char datarep[], int incount,
    MPI_Datatype type, MPI_Aint *size)
{
	size_t need;
	int rc;

	if ((rc = check_external("MPI_Pack_external_size", datarep, incount,
	    type, 1, &need)) != MPI_SUCCESS)
		return rc;
	if (size == NULL)
		return TERR("MPI_Pack_external_size", MPI_ERR_ARG,
		    "NULL size");
	*size = (MPI_Aint)need;
	return MPI_SUCCESS;
}

/*
 * Convert count elements of type between buf and the external32 bytes
 * of packed at *position (of size bytes), and advance *position.
 */
static int
external(const char *call, const char *datarep, void *buf, int count,
    MPI_Datatype type, void *packed, MPI_Aint size, MPI_Aint *position,
    int unpack)
{
	struct xcursor c;
	size_t need;
	int rc;

	if ((rc = check_external(call, datarep, count, type, 0, &need)) !=
	    MPI_SUCCESS)
		return rc;
	if (position == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL position");
	if (size < 0 || *position < 0 || *position > size)
		return TERR(call, MPI_ERR_ARG, "position %td in %td bytes",
		    *position, size);
	if (need > (size_t)(size - *position))
		return TERR(call, MPI_ERR_TRUNCATE, "%zu bytes do not fit in "
		    "%td bytes after position %td", need, size, *position);
	if (need == 0)
		return MPI_SUCCESS;
	if (packed == NULL || (buf == NULL && type->predefined))
		return TERR(call, MPI_ERR_BUFFER, "NULL buffer");
	c.p = (uint8_t *)packed + *position;
	c.left = need;
	c.unpack = unpack;
	(void)ft__mpi_type_walk(type, buf, (size_t)count, x_elem, &c);
	*position += (MPI_Aint)need;
	return MPI_SUCCESS;
}

/*
 * Pack incount elements of type at inbuf (MPI_BOTTOM with absolute
 * addresses) in "external32", the only data representation, into
 * outbuf at *position, and advance *position.  MPI_ERR_ARG for another
 * representation, MPI_ERR_TRUNCATE (position unchanged) when they do
 * not fit in outsize bytes.  A value of long or unsigned long keeps its
 * low 4 bytes, and of wchar_t its low 2, as the standard's sizes say.
 */
int
PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
    MPI_Datatype type, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
	return external("MPI_Pack_external", datarep, (void *)(uintptr_t)inbuf,
	    incount, type, outbuf, outsize, position, 0);
}

/*
 * Unpack outcount elements of type from the "external32" bytes of
 * inbuf at *position into outbuf, and advance *position.  Errors as
 * MPI_Pack_external's; MPI_ERR_TRUNCATE when fewer bytes remain.
 */
int
PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
    MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype type)
{
	return external("MPI_Unpack_external", datarep, outbuf, outcount,
	    type, (void *)(uintptr_t)inbuf, insize, position, 1);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
#pragma weak MPI_Type_match_size = PMPI_Type_match_size
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
#pragma weak MPI_Pack_external = PMPI_Pack_external
#pragma weak MPI_Unpack_external = PMPI_Unpack_external
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
