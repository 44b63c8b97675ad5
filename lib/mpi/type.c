/* SPDX-License-Identifier: ISC */
/*
 * Datatypes: the predefined ones, the derived-type constructors, their
 * bounds and signatures, MPI_Pack and MPI_Unpack, and the packing hooks
 * point-to-point uses for data that is not one dense block.
 *
 * Committing a type compacts its description, as FT-MPI did: the type
 * map is flattened into byte blocks in type map order, adjacent blocks
 * are merged, and regular patterns become strided runs (a vector of N
 * blocks of L bytes with stride S is one run), so packing is a tight
 * loop of fixed-size copies.  Patterns that do not flatten to runs (a
 * vector of structs, say) become loops over a body, so the description
 * stays small whatever the counts.  See struct ft_type_seg in type.h.
 *
 * Handles are checked against a set of live types before they are
 * dereferenced, so a freed or garbage handle is an error, not a crash.
 */
#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

/* What every predefined type is. */
#define PREDEF(mpiname, tk)						\
	.predefined = 1, .committed = 1, .name = mpiname, .kind = tk,	\
	.magic = FT_TYPE_MAGIC, .built = 1

#define BASIC(var, ctype, mpiname, tk)					\
	static struct ft_type_seg var##_seg[1] = { {			\
		.count = 1, .len = sizeof(ctype), .size = sizeof(ctype) } }; \
	struct ft_mpi_type var = { PREDEF(mpiname, tk),			\
		.size = sizeof(ctype), .extent = sizeof(ctype),		\
		.contiguous = 1, .true_ub = sizeof(ctype),		\
		.align = alignof(ctype), .nbasic = 1, .ukind = tk,	\
		.un = 1, .udense = 1, .segs = var##_seg, .nsegs = 1 }

BASIC(ft_mpi_char, char, "MPI_CHAR", FT_TK_CHAR);
BASIC(ft_mpi_signed_char, signed char, "MPI_SIGNED_CHAR",
    FT_TK_SIGNED_CHAR);
BASIC(ft_mpi_unsigned_char, unsigned char, "MPI_UNSIGNED_CHAR",
    FT_TK_UNSIGNED_CHAR);
BASIC(ft_mpi_byte, unsigned char, "MPI_BYTE", FT_TK_BYTE);
BASIC(ft_mpi_wchar, wchar_t, "MPI_WCHAR", FT_TK_WCHAR);
BASIC(ft_mpi_short, short, "MPI_SHORT", FT_TK_SHORT);
BASIC(ft_mpi_unsigned_short, unsigned short, "MPI_UNSIGNED_SHORT",
    FT_TK_UNSIGNED_SHORT);
BASIC(ft_mpi_int, int, "MPI_INT", FT_TK_INT);
BASIC(ft_mpi_unsigned, unsigned, "MPI_UNSIGNED", FT_TK_UNSIGNED);
BASIC(ft_mpi_long, long, "MPI_LONG", FT_TK_LONG);
BASIC(ft_mpi_unsigned_long, unsigned long, "MPI_UNSIGNED_LONG",
    FT_TK_UNSIGNED_LONG);
BASIC(ft_mpi_long_long, long long, "MPI_LONG_LONG", FT_TK_LONG_LONG);
BASIC(ft_mpi_unsigned_long_long, unsigned long long,
    "MPI_UNSIGNED_LONG_LONG", FT_TK_UNSIGNED_LONG_LONG);
BASIC(ft_mpi_float, float, "MPI_FLOAT", FT_TK_FLOAT);
BASIC(ft_mpi_double, double, "MPI_DOUBLE", FT_TK_DOUBLE);
BASIC(ft_mpi_long_double, long double, "MPI_LONG_DOUBLE",
    FT_TK_LONG_DOUBLE);
BASIC(ft_mpi_c_bool, _Bool, "MPI_C_BOOL", FT_TK_C_BOOL);
BASIC(ft_mpi_int8_t, int8_t, "MPI_INT8_T", FT_TK_INT8_T);
BASIC(ft_mpi_int16_t, int16_t, "MPI_INT16_T", FT_TK_INT16_T);
BASIC(ft_mpi_int32_t, int32_t, "MPI_INT32_T", FT_TK_INT32_T);
BASIC(ft_mpi_int64_t, int64_t, "MPI_INT64_T", FT_TK_INT64_T);
BASIC(ft_mpi_uint8_t, uint8_t, "MPI_UINT8_T", FT_TK_UINT8_T);
BASIC(ft_mpi_uint16_t, uint16_t, "MPI_UINT16_T", FT_TK_UINT16_T);
BASIC(ft_mpi_uint32_t, uint32_t, "MPI_UINT32_T", FT_TK_UINT32_T);
BASIC(ft_mpi_uint64_t, uint64_t, "MPI_UINT64_T", FT_TK_UINT64_T);
BASIC(ft_mpi_c_float_complex, float _Complex, "MPI_C_FLOAT_COMPLEX",
    FT_TK_C_FLOAT_COMPLEX);
BASIC(ft_mpi_c_double_complex, double _Complex, "MPI_C_DOUBLE_COMPLEX",
    FT_TK_C_DOUBLE_COMPLEX);
BASIC(ft_mpi_c_long_double_complex, long double _Complex,
    "MPI_C_LONG_DOUBLE_COMPLEX", FT_TK_C_LONG_DOUBLE_COMPLEX);
BASIC(ft_mpi_aint, MPI_Aint, "MPI_AINT", FT_TK_AINT);
BASIC(ft_mpi_offset, MPI_Offset, "MPI_OFFSET", FT_TK_OFFSET);
BASIC(ft_mpi_count, MPI_Count, "MPI_COUNT", FT_TK_COUNT);
BASIC(ft_mpi_packed, unsigned char, "MPI_PACKED", FT_TK_PACKED);

/* The Fortran named types, as gfortran lays them out (type.h). */
BASIC(ft_mpi_character, char, "MPI_CHARACTER", FT_TK_CHARACTER);
BASIC(ft_mpi_logical, int32_t, "MPI_LOGICAL", FT_TK_LOGICAL);
BASIC(ft_mpi_integer, int32_t, "MPI_INTEGER", FT_TK_INTEGER);
BASIC(ft_mpi_real, float, "MPI_REAL", FT_TK_REAL);
BASIC(ft_mpi_double_precision, double, "MPI_DOUBLE_PRECISION",
    FT_TK_DOUBLE_PRECISION);
BASIC(ft_mpi_complex, float _Complex, "MPI_COMPLEX", FT_TK_COMPLEX);
BASIC(ft_mpi_double_complex, double _Complex, "MPI_DOUBLE_COMPLEX",
    FT_TK_DOUBLE_COMPLEX);
BASIC(ft_mpi_integer1, int8_t, "MPI_INTEGER1", FT_TK_INTEGER1);
BASIC(ft_mpi_integer2, int16_t, "MPI_INTEGER2", FT_TK_INTEGER2);
BASIC(ft_mpi_integer4, int32_t, "MPI_INTEGER4", FT_TK_INTEGER4);
BASIC(ft_mpi_integer8, int64_t, "MPI_INTEGER8", FT_TK_INTEGER8);
BASIC(ft_mpi_real4, float, "MPI_REAL4", FT_TK_REAL4);
BASIC(ft_mpi_real8, double, "MPI_REAL8", FT_TK_REAL8);
BASIC(ft_mpi_real16, ft_quad, "MPI_REAL16", FT_TK_REAL16);
BASIC(ft_mpi_complex8, float _Complex, "MPI_COMPLEX8", FT_TK_COMPLEX8);
BASIC(ft_mpi_complex16, double _Complex, "MPI_COMPLEX16", FT_TK_COMPLEX16);
BASIC(ft_mpi_complex32, ft_quad_complex, "MPI_COMPLEX32", FT_TK_COMPLEX32);

/*
 * The MPI-1 markers MPI_LB and MPI_UB: no data, and in a struct an
 * explicit lower or upper bound at their displacement, as the sticky
 * bounds of MPI_Type_create_resized are.
 */
#define MARKER(var, mpiname, tk, islb)					\
	struct ft_mpi_type var = { PREDEF(mpiname, tk), .align = 1,	\
		.sticky_lb = islb, .sticky_ub = !(islb),		\
		.ukind = FT_TK_DERIVED, .udense = 1 }

MARKER(ft_mpi_lb, "MPI_LB", FT_TK_LB, 1);
MARKER(ft_mpi_ub, "MPI_UB", FT_TK_UB, 0);

/*
 * The pair types of MAXLOC and MINLOC are predefined structs of a value
 * and an index, an int (a value of the same type for the Fortran
 * pairs), with the layout of the C struct (padding included).  They
 * are described as the struct constructor would, so the signature and
 * packing code treat them like any other struct; their compacted form
 * is one block when the int follows the value directly.
 */
struct pair_float_int { float v; int i; };
struct pair_double_int { double v; int i; };
struct pair_long_int { long v; int i; };
struct pair_2int { int v; int i; };
struct pair_short_int { short v; int i; };
struct pair_long_double_int { long double v; int i; };
struct pair_2integer { int32_t v; int32_t i; };
struct pair_2real { float v; float i; };
struct pair_2double_precision { double v; double i; };

#define PAIR_JOINED(st)	(offsetof(st, i) == sizeof(((st *)0)->v))
#define PAIR_SIZE(st)	(sizeof(((st *)0)->v) + sizeof(((st *)0)->i))

#define PAIR(var, st, vmpi, impi, mpiname, tk)				\
	static int var##_blens[2] = { 1, 1 };				\
	static MPI_Aint var##_disps[2] = { 0, offsetof(st, i) };	\
	static MPI_Datatype var##_types[2] = { &vmpi, &impi };		\
	static struct ft_type_seg var##_seg[2] = {			\
		{ .count = 1,						\
		  .len = PAIR_JOINED(st) ? PAIR_SIZE(st) :		\
		      sizeof(((st *)0)->v),				\
		  .size = PAIR_JOINED(st) ? PAIR_SIZE(st) :		\
		      sizeof(((st *)0)->v) },				\
		{ .off = offsetof(st, i), .count = 1,			\
		  .len = sizeof(((st *)0)->i),				\
		  .size = sizeof(((st *)0)->i) } };			\
	struct ft_mpi_type var = { PREDEF(mpiname, tk),			\
		.size = PAIR_SIZE(st), .extent = sizeof(st),		\
		.contiguous = PAIR_SIZE(st) == sizeof(st),		\
		.true_ub = offsetof(st, i) + sizeof(((st *)0)->i),	\
		.align = alignof(st), .nbasic = 2,			\
		.ukind = tk, .un = 1, .udense = 1,			\
		.comb = FT_TC_STRUCT, .nblk = 2, .blens = var##_blens,	\
		.disps = var##_disps, .types = var##_types,		\
		.segs = var##_seg, .nsegs = PAIR_JOINED(st) ? 1 : 2 }

PAIR(ft_mpi_float_int, struct pair_float_int, ft_mpi_float, ft_mpi_int,
    "MPI_FLOAT_INT", FT_TK_FLOAT_INT);
PAIR(ft_mpi_double_int, struct pair_double_int, ft_mpi_double, ft_mpi_int,
    "MPI_DOUBLE_INT", FT_TK_DOUBLE_INT);
PAIR(ft_mpi_long_int, struct pair_long_int, ft_mpi_long, ft_mpi_int,
    "MPI_LONG_INT", FT_TK_LONG_INT);
PAIR(ft_mpi_2int, struct pair_2int, ft_mpi_int, ft_mpi_int, "MPI_2INT",
    FT_TK_2INT);
PAIR(ft_mpi_short_int, struct pair_short_int, ft_mpi_short, ft_mpi_int,
    "MPI_SHORT_INT", FT_TK_SHORT_INT);
PAIR(ft_mpi_long_double_int, struct pair_long_double_int,
    ft_mpi_long_double, ft_mpi_int, "MPI_LONG_DOUBLE_INT",
    FT_TK_LONG_DOUBLE_INT);
PAIR(ft_mpi_2integer, struct pair_2integer, ft_mpi_integer, ft_mpi_integer,
    "MPI_2INTEGER", FT_TK_2INTEGER);
PAIR(ft_mpi_2real, struct pair_2real, ft_mpi_real, ft_mpi_real,
    "MPI_2REAL", FT_TK_2REAL);
PAIR(ft_mpi_2double_precision, struct pair_2double_precision,
    ft_mpi_double_precision, ft_mpi_double_precision,
    "MPI_2DOUBLE_PRECISION", FT_TK_2DOUBLE_PRECISION);

/* The markers are deprecated in mpi.h; this is no use of them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static struct ft_mpi_type *const predefined[] = {
	&ft_mpi_char, &ft_mpi_signed_char, &ft_mpi_unsigned_char,
	&ft_mpi_byte, &ft_mpi_wchar, &ft_mpi_short, &ft_mpi_unsigned_short,
	&ft_mpi_int, &ft_mpi_unsigned, &ft_mpi_long, &ft_mpi_unsigned_long,
	&ft_mpi_long_long, &ft_mpi_unsigned_long_long, &ft_mpi_float,
	&ft_mpi_double, &ft_mpi_long_double, &ft_mpi_c_bool, &ft_mpi_int8_t,
	&ft_mpi_int16_t, &ft_mpi_int32_t, &ft_mpi_int64_t, &ft_mpi_uint8_t,
	&ft_mpi_uint16_t, &ft_mpi_uint32_t, &ft_mpi_uint64_t,
	&ft_mpi_c_float_complex, &ft_mpi_c_double_complex,
	&ft_mpi_c_long_double_complex, &ft_mpi_aint, &ft_mpi_offset,
	&ft_mpi_count, &ft_mpi_packed, &ft_mpi_float_int, &ft_mpi_double_int,
	&ft_mpi_long_int, &ft_mpi_2int, &ft_mpi_short_int,
	&ft_mpi_long_double_int, &ft_mpi_character, &ft_mpi_logical,
	&ft_mpi_integer, &ft_mpi_real, &ft_mpi_double_precision,
	&ft_mpi_complex, &ft_mpi_double_complex, &ft_mpi_integer1,
	&ft_mpi_integer2, &ft_mpi_integer4, &ft_mpi_integer8, &ft_mpi_real4,
	&ft_mpi_real8, &ft_mpi_real16, &ft_mpi_complex8, &ft_mpi_complex16,
	&ft_mpi_complex32, &ft_mpi_2integer, &ft_mpi_2real,
	&ft_mpi_2double_precision, &ft_mpi_lb, &ft_mpi_ub,
};
#pragma GCC diagnostic pop

/* FT_TK_NKINDS counts FT_TK_DERIVED, which has no predefined type. */
_Static_assert(sizeof(predefined) / sizeof(predefined[0]) ==
    FT_TK_NKINDS - 1, "one predefined type per kind");

/*
 * The live handles: every predefined type and every derived type the
 * application holds, as an open-addressing set of addresses with
 * linear probing (deletion shifts entries back, so there are no
 * tombstones).  The predefined types go in on first use.
 */
static struct {
	const void	**slot;
	size_t		  n, cap;	/* cap is 0 or a power of two */
	int		  ready;
} live;

static size_t
live_hash(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p;

	h ^= h >> 29;
	h *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 17) & (cap - 1);
}

static int
live_grow(void)
{
	const void **old = live.slot, **ns;
	size_t oldcap = live.cap, cap = oldcap ? oldcap * 2 : 128, i, j;

	if ((ns = calloc(cap, sizeof(*ns))) == NULL)
		return -1;
	for (i = 0; i < oldcap; i++) {
		if (old[i] == NULL)
			continue;
		for (j = live_hash(old[i], cap); ns[j] != NULL;
		    j = (j + 1) & (cap - 1))
			;
		ns[j] = old[i];
	}
	free(old);
	live.slot = ns;
	live.cap = cap;
	return 0;
}

static int
live_add(const void *p)
{
	size_t j;

	if ((live.n + 1) * 2 > live.cap && live_grow() != 0)
		return -1;
	for (j = live_hash(p, live.cap); live.slot[j] != NULL;
	    j = (j + 1) & (live.cap - 1))
		if (live.slot[j] == p)
			return 0;
	live.slot[j] = p;
	live.n++;
	return 0;
}

static int
live_init(void)
{
	size_t i;

	if (live.ready)
		return 0;
	for (i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
		if (live_add(predefined[i]) != 0)
			return -1;
	live.ready = 1;
	return 0;
}

static int
live_has(const void *p)
{
	size_t j;

	if (p == NULL || live.cap == 0)
		return 0;
	for (j = live_hash(p, live.cap); live.slot[j] != NULL;
	    j = (j + 1) & (live.cap - 1))
		if (live.slot[j] == p)
			return 1;
	return 0;
}

static void
live_del(const void *p)
{
	size_t i, j, k;

	if (live.cap == 0)
		return;
	for (i = live_hash(p, live.cap); live.slot[i] != p;
	    i = (i + 1) & (live.cap - 1))
		if (live.slot[i] == NULL)
			return;
	live.slot[i] = NULL;
	live.n--;
	/* Shift back the entries whose probe sequence crossed slot i. */
	for (j = (i + 1) & (live.cap - 1); live.slot[j] != NULL;
	    j = (j + 1) & (live.cap - 1)) {
		k = live_hash(live.slot[j], live.cap);
		if ((j > i && (k <= i || k > j)) ||
		    (j < i && k <= i && k > j)) {
			live.slot[i] = live.slot[j];
			live.slot[j] = NULL;
			i = j;
		}
	}
}

/* Is t a handle the application may use (predefined or live derived)? */
static int
type_valid(MPI_Datatype t)
{
	if (t == MPI_DATATYPE_NULL)
		return 0;
	if (!live.ready)
		(void)live_init();
	if (live.ready)
		return live_has(t);
	/* Out of memory before the set existed: trust the magic. */
	return t->magic == FT_TYPE_MAGIC;
}

/* See type.h: a live handle (checked before it is read), committed. */
int
ft__mpi_type_ok(MPI_Datatype t)
{
	return type_valid(t) && t->committed;
}

/* See type.h. */
int
ft__mpi_type_valid(MPI_Datatype t)
{
	return type_valid(t);
}

/* See type.h. */
MPI_Datatype
ft__mpi_type_predef(size_t i)
{
	return i < sizeof(predefined) / sizeof(predefined[0]) ?
	    predefined[i] : MPI_DATATYPE_NULL;
}

/* Report an error of a datatype call on MPI_COMM_WORLD's handler. */
#define TERR(call, code, ...)						\
	ft__mpi_err(MPI_COMM_NULL, (code), (call), __VA_ARGS__)

/* Block i of a derived type's constructor. */
static MPI_Datatype
blk_type(MPI_Datatype t, size_t i)
{
	return t->types != NULL ? t->types[i] : t->old;
}

static size_t
blk_len(MPI_Datatype t, size_t i)
{
	return t->blens != NULL ? (size_t)t->blens[i] : t->blen;
}

static MPI_Aint
blk_disp(MPI_Datatype t, size_t i)
{
	return t->disps != NULL ? t->disps[i] : (MPI_Aint)i * t->stride;
}

/*
 * See type.h.  A predefined type of one basic element has no blocks;
 * the pair types are structs of two.
 */
int
ft__mpi_type_walk(MPI_Datatype t, const void *buf, size_t count,
    int (*fn)(void *, enum ft_type_kind, void *), void *arg)
{
	uintptr_t base = (uintptr_t)buf;
	MPI_Datatype c;
	size_t k, i;
	int rc;

	if (t->size == 0)
		return 0;
	for (k = 0; k < count; k++, base += (uintptr_t)t->extent) {
		if (t->predefined && t->nblk == 0) {
			if ((rc = fn(arg, t->kind, (void *)base)) != 0)
				return rc;
			continue;
		}
		for (i = 0; i < t->nblk; i++) {
			c = blk_type(t, i);
			if ((rc = ft__mpi_type_walk(c, (void *)(base +
			    (uintptr_t)blk_disp(t, i)), blk_len(t, i), fn,
			    arg)) != 0)
				return rc;
		}
	}
	return 0;
}

/* See type.h: one more reference to a derived type. */
void
ft__mpi_type_retain(MPI_Datatype t)
{
	if (t != MPI_DATATYPE_NULL && !t->predefined)
		t->refs++;
}

/*
 * See type.h: drop a reference; the last one frees the type and drops
 * its references to the types it was made from.
 */
void
ft__mpi_type_release(MPI_Datatype t)
{
	size_t i;

	if (t == MPI_DATATYPE_NULL || t->predefined || --t->refs > 0)
		return;
	ft__mpi_type_release(t->old);
	if (t->types != NULL)
		for (i = 0; i < t->nblk; i++)
			ft__mpi_type_release(t->types[i]);
	ft__mpi_type_record_free(t);
	free(t->blens);
	free(t->disps);
	free(t->types);
	free(t->segs);
	t->magic = 0;
	free(t);
}

/*
 * A new derived type made by comb, with room for nblk blocks of the
 * kinds of arrays given (blens, disps, types); its handle holds one
 * reference.  NULL when out of memory.
 */
static MPI_Datatype
type_new(enum ft_type_comb comb, size_t nblk, int with_blens,
    int with_disps, int with_types)
{
	MPI_Datatype t;
	size_t n = nblk > 0 ? nblk : 1;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->magic = FT_TYPE_MAGIC;
	t->refs = 1;
	t->handles = 1;
	t->comb = comb;
	t->kind = FT_TK_DERIVED;
	t->name = t->namebuf;
	t->nblk = nblk;
	if ((with_blens && (t->blens = calloc(n, sizeof(int))) == NULL) ||
	    (with_disps && (t->disps = calloc(n, sizeof(MPI_Aint))) == NULL) ||
	    (with_types && (t->types = calloc(n, sizeof(MPI_Datatype))) ==
	    NULL)) {
		free(t->blens);
		free(t->disps);
		free(t->types);
		free(t);
		return NULL;
	}
	return t;
}

static MPI_Aint
amin(MPI_Aint a, MPI_Aint b)
{
	return a < b ? a : b;
}

static MPI_Aint
amax(MPI_Aint a, MPI_Aint b)
{
	return a > b ? a : b;
}

/*
 * Work out a derived type's size, bounds, signature counts and unit
 * view from its blocks, following the standard: lb and ub are those of
 * the explicit bounds (MPI_Type_create_resized) when any block carries
 * them, else of the data; with no explicit ub, the extent is rounded up
 * to the largest alignment of the basic types inside (the epsilon of
 * the standard, which Open MPI and MPICH apply too).  Blocks of length
 * zero take no part.  Returns -1 when a size or an address overflows.
 */
static int
layout(MPI_Datatype t)
{
	MPI_Aint lb = 0, ub = 0, tlb = 0, tub = 0, ubase = 0, unext = 0, d0,
	    d1, lo, hi, span;
	size_t i, bl, size = 0, nbasic = 0, un = 0, align = 1, add;
	int slb = 0, sub = 0, have_b = 0, have_t = 0, ukset = 0, udense = 1;
	enum ft_type_kind uk = FT_TK_DERIVED;
	MPI_Datatype c;

	for (i = 0; i < t->nblk; i++)
		if (blk_len(t, i) > 0) {
			slb |= blk_type(t, i)->sticky_lb;
			sub |= blk_type(t, i)->sticky_ub;
		}
	for (i = 0; i < t->nblk; i++) {
		c = blk_type(t, i);
		bl = blk_len(t, i);
		if (i == 0)
			uk = c->ukind;	/* the kind of an empty type */
		if (bl == 0)
			continue;
		d0 = blk_disp(t, i);
		if (__builtin_mul_overflow((MPI_Aint)(bl - 1), c->extent,
		    &span) || __builtin_add_overflow(d0, span, &d1))
			return -1;
		lo = amin(d0, d1);
		hi = amax(d0, d1);
		if (c->sticky_lb || (!slb && c->size > 0)) {
			lb = have_b & 1 ? amin(lb, lo + c->lb) : lo + c->lb;
			have_b |= 1;
		}
		if (c->sticky_ub || (!sub && c->size > 0)) {
			ub = have_b & 2 ? amax(ub, hi + c->lb + c->extent) :
			    hi + c->lb + c->extent;
			have_b |= 2;
		}
		if (c->size > 0) {
			tlb = have_t ? amin(tlb, lo + c->true_lb) :
			    lo + c->true_lb;
			tub = have_t ? amax(tub, hi + c->true_ub) :
			    hi + c->true_ub;
			have_t = 1;
			if (c->align > align)
				align = c->align;
		}
		if (__builtin_mul_overflow(bl, c->size, &add) ||
		    __builtin_add_overflow(size, add, &size) ||
		    __builtin_mul_overflow(bl, c->nbasic, &add) ||
		    __builtin_add_overflow(nbasic, add, &nbasic))
			return -1;
		if (c->un > 0) {
			/* The units of block i lie from d0 + c->lb on. */
			if (!ukset) {
				uk = c->ukind;
				ubase = unext = d0 + c->lb;
			} else if (c->ukind != uk)
				uk = FT_TK_DERIVED;
			ukset = 1;
			if (!c->udense || d0 + c->lb != unext || c->extent < 0)
				udense = 0;
			unext = d0 + c->lb + (MPI_Aint)bl * c->extent;
			un += bl * c->un;
		}
	}
	/* With no bound at one end, the type is empty at the other. */
	if (!(have_b & 1))
		lb = have_b & 2 ? ub : 0;
	if (!(have_b & 2))
		ub = lb;
	if (!sub && align > 1 && ub > lb && (ub - lb) % (MPI_Aint)align != 0)
		ub += (MPI_Aint)align - (ub - lb) % (MPI_Aint)align;
	t->size = size;
	t->nbasic = nbasic;
	t->lb = lb;
	t->extent = ub - lb;
	t->true_lb = tlb;
	t->true_ub = tub;
	t->sticky_lb = slb;
	t->sticky_ub = sub;
	t->align = align;
	t->ukind = uk;
	t->un = un;
	t->udense = udense && lb == ubase && t->extent == unext - ubase;
	return 0;
}

/*
 * Record how a new type t was made (args), register it and hand it to
 * the application, or release it and report why not.
 */
static int
type_publish(const char *call, MPI_Datatype t,
    const struct ft_type_args *args, MPI_Datatype *newtype)
{
	if (ft__mpi_type_record(t, args) != 0 || live_init() != 0 ||
	    live_add(t) != 0) {
		ft__mpi_type_release(t);
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	}
	*newtype = t;
	return MPI_SUCCESS;
}

/* Work out the bounds of a new type t, then publish it. */
static int
type_finish(const char *call, MPI_Datatype t,
    const struct ft_type_args *args, MPI_Datatype *newtype)
{
	if (layout(t) != 0) {
		ft__mpi_type_release(t);
		return TERR(call, MPI_ERR_ARG, "the datatype is too large");
	}
	return type_publish(call, t, args, newtype);
}

/* The checks every constructor makes of its common arguments. */
static int
check_new(const char *call, int count, MPI_Datatype old,
    MPI_Datatype *newtype)
{
	FT_MPI_CHECK_INIT(call);
	if (count < 0)
		return TERR(call, MPI_ERR_COUNT, "negative count %d", count);
	if (old != MPI_DATATYPE_NULL && !type_valid(old))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (newtype == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL newtype");
	return MPI_SUCCESS;
}

/* A constructor with regular blocks: nblk blocks of blen at stride. */
static int
make_regular(const char *call, enum ft_type_comb comb, size_t nblk,
    size_t blen, MPI_Aint stride, MPI_Datatype old,
    const struct ft_type_args *args, MPI_Datatype *newtype)
{
	MPI_Datatype t;

	if ((t = type_new(comb, nblk, 0, 0, 0)) == NULL)
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	t->blen = blen;
	t->stride = stride;
	t->old = old;
	ft__mpi_type_retain(old);
	return type_finish(call, t, args, newtype);
}

/*
 * count copies of old, one after another.  MPI_ERR_COUNT for a negative
 * count, MPI_ERR_TYPE for a bad old, MPI_ERR_ARG for a NULL newtype.
 * The new type is the caller's, to free with MPI_Type_free.
 */
int
PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_contiguous";
	int rc;

	if ((rc = check_new(call, count, old, newtype)) != MPI_SUCCESS)
		return rc;
	if (old == MPI_DATATYPE_NULL)
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	return make_regular(call, FT_TC_CONTIGUOUS, 1, (size_t)count, 0, old,
	    &(struct ft_type_args){ .combiner = MPI_COMBINER_CONTIGUOUS,
	    .head = { count }, .nhead = 1, .types = &old, .ntypes = 1 },
	    newtype);
}

static int
hvector(const char *call, enum ft_type_comb comb, int count, int blen,
    MPI_Aint stride, MPI_Datatype old, const struct ft_type_args *args,
    MPI_Datatype *newtype)
{
	if (blen < 0)
		return TERR(call, MPI_ERR_ARG, "negative blocklength %d", blen);
	return make_regular(call, comb, (size_t)count, (size_t)blen, stride,
	    old, args, newtype);
}

/*
 * count blocks of blen copies of old, stride elements of old apart.
 * Errors as MPI_Type_contiguous, and MPI_ERR_ARG for a negative blen.
 */
int
PMPI_Type_vector(int count, int blen, int stride, MPI_Datatype old,
    MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_vector";
	MPI_Aint bytes;
	int rc;

	if ((rc = check_new(call, count, old, newtype)) != MPI_SUCCESS)
		return rc;
	if (old == MPI_DATATYPE_NULL)
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (__builtin_mul_overflow((MPI_Aint)stride, old->extent, &bytes))
		return TERR(call, MPI_ERR_ARG, "stride %d is too large",
		    stride);
	return hvector(call, FT_TC_VECTOR, count, blen, bytes, old,
	    &(struct ft_type_args){ .combiner = MPI_COMBINER_VECTOR,
	    .head = { count, blen, stride }, .nhead = 3, .types = &old,
	    .ntypes = 1 }, newtype);
}

/* MPI_Type_vector with the stride in bytes. */
int
PMPI_Type_create_hvector(int count, int blen, MPI_Aint stride,
    MPI_Datatype old, MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_create_hvector";
	int rc;

	if ((rc = check_new(call, count, old, newtype)) != MPI_SUCCESS)
		return rc;
	if (old == MPI_DATATYPE_NULL)
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	return hvector(call, FT_TC_HVECTOR, count, blen, stride, old,
	    &(struct ft_type_args){ .combiner = MPI_COMBINER_HVECTOR,
	    .head = { count, blen }, .nhead = 2, .addrs = &stride,
	    .naddrs = 1, .types = &old, .ntypes = 1 }, newtype);
}

/*
 * The indexed family: count blocks of blens[i] (or blen, when blens is
 * NULL) elements of old at idisps[i] elements or hdisps[i] bytes.
 */
static int
indexed(const char *call, enum ft_type_comb comb, int count,
    const int blens[], int blen, const int idisps[], const MPI_Aint hdisps[],
    MPI_Datatype old, MPI_Datatype *newtype)
{
	struct ft_type_args args = { .head = { count }, .nhead = 1,
	    .types = &old, .ntypes = 1 };
	MPI_Datatype t;
	int i, rc;

	if ((rc = check_new(call, count, old, newtype)) != MPI_SUCCESS)
		return rc;
	if (old == MPI_DATATYPE_NULL)
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (count > 0 && idisps == NULL && hdisps == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL array");
	if (blens == NULL && blen < 0)
		return TERR(call, MPI_ERR_ARG, "negative blocklength %d", blen);
	for (i = 0; blens != NULL && i < count; i++)
		if (blens[i] < 0)
			return TERR(call, MPI_ERR_ARG,
			    "negative blocklength %d in block %d", blens[i], i);
	if ((t = type_new(comb, (size_t)count, blens != NULL, 1, 0)) == NULL)
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	t->old = old;
	ft__mpi_type_retain(old);
	t->blen = blen > 0 ? (size_t)blen : 0;
	for (i = 0; i < count; i++) {
		if (blens != NULL)
			t->blens[i] = blens[i];
		if (hdisps != NULL)
			t->disps[i] = hdisps[i];
		else if (__builtin_mul_overflow((MPI_Aint)idisps[i],
		    old->extent, &t->disps[i])) {
			ft__mpi_type_release(t);
			return TERR(call, MPI_ERR_ARG,
			    "displacement %d is too large", idisps[i]);
		}
	}
	/* The arguments: count, blocklength(s), displacements. */
	args.combiner = comb == FT_TC_INDEXED ? MPI_COMBINER_INDEXED :
	    comb == FT_TC_HINDEXED ? MPI_COMBINER_HINDEXED :
	    comb == FT_TC_INDEXED_BLOCK ? MPI_COMBINER_INDEXED_BLOCK :
	    MPI_COMBINER_HINDEXED_BLOCK;
	if (blens != NULL) {
		args.a = blens;
		args.na = count;
	} else
		args.head[args.nhead++] = blen;
	if (hdisps != NULL) {
		args.addrs = hdisps;
		args.naddrs = count;
	} else if (blens != NULL) {
		args.b = idisps;
		args.nb = count;
	} else {
		args.a = idisps;
		args.na = count;
	}
	return type_finish(call, t, &args, newtype);
}

/*
 * count blocks of blens[i] copies of old at disps[i] elements of old.
 * MPI_ERR_ARG for NULL arrays or a negative blocklength.
 */
int
PMPI_Type_indexed(int count, const int blens[], const int disps[],
    MPI_Datatype old, MPI_Datatype *newtype)
{
	if (count > 0 && blens == NULL) {
		FT_MPI_CHECK_INIT("MPI_Type_indexed");
		return TERR("MPI_Type_indexed", MPI_ERR_ARG, "NULL array");
	}
	return indexed("MPI_Type_indexed", FT_TC_INDEXED, count, blens, 0,
	    disps, NULL, old, newtype);
}

/* MPI_Type_indexed with the displacements in bytes. */
int
PMPI_Type_create_hindexed(int count, const int blens[], const MPI_Aint disps[],
    MPI_Datatype old, MPI_Datatype *newtype)
{
	if (count > 0 && blens == NULL) {
		FT_MPI_CHECK_INIT("MPI_Type_create_hindexed");
		return TERR("MPI_Type_create_hindexed", MPI_ERR_ARG,
		    "NULL array");
	}
	return indexed("MPI_Type_create_hindexed", FT_TC_HINDEXED, count,
	    blens, 0, NULL, disps, old, newtype);
}

/* MPI_Type_indexed with one blocklength for every block. */
int
PMPI_Type_create_indexed_block(int count, int blen, const int disps[],
    MPI_Datatype old, MPI_Datatype *newtype)
{
	return indexed("MPI_Type_create_indexed_block", FT_TC_INDEXED_BLOCK,
	    count, NULL, blen, disps, NULL, old, newtype);
}

/* MPI_Type_create_hindexed with one blocklength for every block. */
int
PMPI_Type_create_hindexed_block(int count, int blen, const MPI_Aint disps[],
    MPI_Datatype old, MPI_Datatype *newtype)
{
	return indexed("MPI_Type_create_hindexed_block", FT_TC_HINDEXED_BLOCK,
	    count, NULL, blen, NULL, disps, old, newtype);
}

/*
 * count blocks of blens[i] copies of types[i] at disps[i] bytes.  Its
 * extent is padded to the largest alignment inside unless a part has
 * explicit bounds.  MPI_ERR_TYPE when a types[i] is bad.
 */
int
PMPI_Type_create_struct(int count, const int blens[], const MPI_Aint disps[],
    const MPI_Datatype types[], MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_create_struct";
	MPI_Datatype t;
	int i, rc;

	if ((rc = check_new(call, count, MPI_DATATYPE_NULL, newtype)) !=
	    MPI_SUCCESS)
		return rc;
	if (count > 0 && (blens == NULL || disps == NULL || types == NULL))
		return TERR(call, MPI_ERR_ARG, "NULL array");
	for (i = 0; i < count; i++) {
		if (blens[i] < 0)
			return TERR(call, MPI_ERR_ARG,
			    "negative blocklength %d in block %d", blens[i], i);
		if (!type_valid(types[i]))
			return TERR(call, MPI_ERR_TYPE,
			    "invalid datatype in block %d", i);
	}
	if ((t = type_new(FT_TC_STRUCT, (size_t)count, 1, 1, 1)) == NULL)
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < count; i++) {
		t->blens[i] = blens[i];
		t->disps[i] = disps[i];
		t->types[i] = types[i];
		ft__mpi_type_retain(types[i]);
	}
	return type_finish(call, t, &(struct ft_type_args){
	    .combiner = MPI_COMBINER_STRUCT, .head = { count }, .nhead = 1,
	    .a = blens, .na = count, .addrs = disps, .naddrs = count,
	    .types = types, .ntypes = count }, newtype);
}

/*
 * old with explicit bounds lb and lb + extent, which stay explicit in
 * types made from it.  The true extent still follows the data.
 */
int
PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
    MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_create_resized";
	MPI_Datatype t;
	MPI_Aint ub;
	int rc;

	if ((rc = check_new(call, 0, old, newtype)) != MPI_SUCCESS)
		return rc;
	if (old == MPI_DATATYPE_NULL)
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (__builtin_add_overflow(lb, extent, &ub))
		return TERR(call, MPI_ERR_ARG, "lb %td + extent %td overflows",
		    lb, extent);
	if ((t = type_new(FT_TC_RESIZED, 1, 0, 0, 0)) == NULL)
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	t->blen = 1;
	t->old = old;
	ft__mpi_type_retain(old);
	if (layout(t) != 0) {
		ft__mpi_type_release(t);
		return TERR(call, MPI_ERR_ARG, "the datatype is too large");
	}
	t->udense = old->udense && lb == old->lb && extent == old->extent;
	t->lb = lb;
	t->extent = extent;
	t->sticky_lb = t->sticky_ub = 1;
	return type_publish(call, t, &(struct ft_type_args){
	    .combiner = MPI_COMBINER_RESIZED, .addrs = (MPI_Aint [2]){ lb,
	    extent }, .naddrs = 2, .types = &old, .ntypes = 1 }, newtype);
}

/*
 * The compacted description under construction.  top is the index of
 * the last segment at the top level (SIZE_MAX when there is none): a
 * leaf appended after a top-level leaf may merge with it.
 */
struct prog {
	struct ft_type_seg	*s;
	size_t			 n, cap, top;
	int			 err;
};

static void
prog_put(struct prog *p, const struct ft_type_seg *s, size_t n)
{
	struct ft_type_seg *ns;
	size_t cap;

	if (p->err)
		return;
	if (p->cap - p->n < n) {
		cap = p->cap ? p->cap : 4;
		while (cap - p->n < n)
			cap *= 2;
		if ((ns = reallocarray(p->s, cap, sizeof(*ns))) == NULL) {
			p->err = 1;
			return;
		}
		p->s = ns;
		p->cap = cap;
	}
	memcpy(p->s + p->n, s, n * sizeof(*s));
	p->n += n;
}

/* A run whose blocks touch is one block. */
static void
leaf_normalize(struct ft_type_seg *s)
{
	if (s->count > 1 && s->stride == (MPI_Aint)s->len) {
		s->len *= s->count;
		s->size = s->len;
		s->count = 1;
		s->stride = 0;
	}
}

/*
 * Try to make leaf n part of leaf p, which comes just before it in
 * type map order: blocks that touch join, and blocks of one length at
 * a constant stride become (or extend) a run.
 */
static int
leaf_merge(struct ft_type_seg *p, const struct ft_type_seg *n)
{
	MPI_Aint next;

	if (p->len != n->len) {
		if (p->count == 1 && n->count == 1 &&
		    p->off + (MPI_Aint)p->len == n->off) {
			p->len += n->len;
			p->size = p->len;
			return 1;
		}
		return 0;
	}
	if (p->count == 1 && n->count == 1) {
		p->count = 2;
		p->stride = n->off - p->off;
	} else if (p->count == 1) {
		if (n->off - p->off != n->stride)
			return 0;
		p->count = n->count + 1;
		p->stride = n->stride;
	} else {
		if (__builtin_mul_overflow(p->stride, (MPI_Aint)p->count,
		    &next) || n->off != p->off + next ||
		    (n->count > 1 && n->stride != p->stride))
			return 0;
		p->count += n->count;
	}
	leaf_normalize(p);
	return 1;
}

/* Append top-level segment s, with the nbody segments of its body. */
static void
prog_top(struct prog *p, const struct ft_type_seg *s,
    const struct ft_type_seg *body, size_t nbody)
{
	if (s->len > 0 && p->top != SIZE_MAX && p->top == p->n - 1 &&
	    p->s[p->top].len > 0 && leaf_merge(&p->s[p->top], s))
		return;
	p->top = p->n;
	prog_put(p, s, 1);
	prog_put(p, body, nbody);
}

/* The data bytes of the n segments at b. */
static size_t
prog_size(const struct ft_type_seg *b, size_t n)
{
	size_t i, size = 0;

	for (i = 0; i < n; i += 1 + b[i].span)
		size += b[i].count * b[i].size;
	return size;
}

/*
 * Append count repetitions, stride bytes apart, of the n segments at b
 * shifted by shift bytes.  One segment repeated becomes a longer block
 * or run where it can; anything else repeated becomes a loop.
 */
static void
prog_add(struct prog *p, const struct ft_type_seg *b, size_t n, size_t count,
    MPI_Aint stride, MPI_Aint shift)
{
	struct ft_type_seg s;
	MPI_Aint reach;
	size_t i;

	if (n == 0 || count == 0)
		return;
	if (b[0].span + 1 == n) {
		s = b[0];
		s.off += shift;
		if (count == 1)
			goto one;
		if (s.count == 1 && s.len > 0 && (MPI_Aint)s.len == stride) {
			s.len *= count;
			s.size = s.len;
			goto one;
		}
		if (s.count == 1) {
			s.count = count;
			s.stride = stride;
			goto one;
		}
		if (!__builtin_mul_overflow(s.stride, (MPI_Aint)s.count,
		    &reach) && reach == stride) {
			s.count *= count;
			goto one;
		}
	} else if (count == 1) {
		for (i = 0; i < n; i += 1 + b[i].span) {
			s = b[i];
			s.off += shift;
			prog_top(p, &s, b + i + 1, b[i].span);
		}
		return;
	}
	memset(&s, 0, sizeof(s));
	s.off = shift;
	s.stride = stride;
	s.count = count;
	s.span = n;
	s.size = prog_size(b, n);
	prog_top(p, &s, b, n);
	return;
one:
	prog_top(p, &s, b + 1, n - 1);
}

/* Build the compacted description of t (and of its parts, as needed). */
static int
type_build(MPI_Datatype t)
{
	struct prog p = { NULL, 0, 0, SIZE_MAX, 0 };
	struct prog blk = { NULL, 0, 0, SIZE_MAX, 0 };
	MPI_Datatype c;
	size_t i;

	if (t->built)
		return 0;
	if (t->old != MPI_DATATYPE_NULL && type_build(t->old) != 0)
		return -1;
	for (i = 0; t->types != NULL && i < t->nblk; i++)
		if (type_build(t->types[i]) != 0)
			return -1;
	if (t->blens == NULL && t->disps == NULL && t->types == NULL) {
		/* Regular blocks: build one block, then repeat it. */
		c = t->old;
		prog_add(&blk, c->segs, c->nsegs, t->blen, c->extent, 0);
		prog_add(&p, blk.s, blk.n, t->nblk, t->stride, 0);
		if (blk.err)
			p.err = 1;
		free(blk.s);
	} else
		for (i = 0; i < t->nblk; i++) {
			c = blk_type(t, i);
			prog_add(&p, c->segs, c->nsegs, blk_len(t, i),
			    c->extent, blk_disp(t, i));
		}
	if (p.err) {
		free(p.s);
		return -1;
	}
	t->segs = p.s;
	t->nsegs = p.n;
	t->built = 1;
	t->contiguous = t->nsegs == 1 && t->segs[0].len > 0 &&
	    t->segs[0].count == 1 && t->segs[0].off == t->lb &&
	    t->extent == (MPI_Aint)t->size;
	return 0;
}

/*
 * Copy k blocks of len bytes, stride apart from at, to or from the
 * packed bytes at q.  The common lengths (4, 8, 12, 16) get loops of
 * their own, so the compiler turns each copy into loads and stores.
 */
#define COPY_LOOP(n, dst, src) do {					\
	for (i = 0; i < k; i++)						\
		memcpy(dst, src, (n));					\
} while (0)

static void
pack_leaf(uint8_t *q, const uint8_t *at, size_t len, size_t k,
    MPI_Aint stride)
{
	size_t i;

	if (k == 1) {
		memcpy(q, at, len);
		return;
	}
	switch (len) {
	case 4:
		COPY_LOOP(4, q + 4 * i, at + (MPI_Aint)i * stride);
		break;
	case 8:
		COPY_LOOP(8, q + 8 * i, at + (MPI_Aint)i * stride);
		break;
	case 12:
		COPY_LOOP(12, q + 12 * i, at + (MPI_Aint)i * stride);
		break;
	case 16:
		COPY_LOOP(16, q + 16 * i, at + (MPI_Aint)i * stride);
		break;
	default:
		COPY_LOOP(len, q + len * i, at + (MPI_Aint)i * stride);
		break;
	}
}

static void
unpack_leaf(const uint8_t *q, uint8_t *at, size_t len, size_t k,
    MPI_Aint stride)
{
	size_t i;

	if (k == 1) {
		memcpy(at, q, len);
		return;
	}
	switch (len) {
	case 4:
		COPY_LOOP(4, at + (MPI_Aint)i * stride, q + 4 * i);
		break;
	case 8:
		COPY_LOOP(8, at + (MPI_Aint)i * stride, q + 8 * i);
		break;
	case 12:
		COPY_LOOP(12, at + (MPI_Aint)i * stride, q + 12 * i);
		break;
	case 16:
		COPY_LOOP(16, at + (MPI_Aint)i * stride, q + 16 * i);
		break;
	default:
		COPY_LOOP(len, at + (MPI_Aint)i * stride, q + len * i);
		break;
	}
}

/* The packed side of a copy: where it is, and how many bytes remain. */
struct cursor {
	uint8_t		*p;
	size_t		 left;
	int		 unpack;
};

/* The address base + off, without pointer arithmetic on MPI_BOTTOM. */
static uint8_t *
addr(uintptr_t base, MPI_Aint off)
{
	return (uint8_t *)(base + (uintptr_t)off);
}

static void
leaf_copy(struct cursor *c, uintptr_t base, const struct ft_type_seg *g)
{
	size_t k = g->count, rest;

	if (g->count * g->len > c->left)
		k = c->left / g->len;
	if (k > 0) {
		if (c->unpack)
			unpack_leaf(c->p, addr(base, g->off), g->len, k,
			    g->stride);
		else
			pack_leaf(c->p, addr(base, g->off), g->len, k,
			    g->stride);
		c->p += k * g->len;
		c->left -= k * g->len;
	}
	if (k < g->count && c->left > 0) {
		/* The bytes run out inside block k. */
		rest = c->left;
		if (c->unpack)
			memcpy(addr(base, g->off + (MPI_Aint)k * g->stride),
			    c->p, rest);
		else
			memcpy(c->p, addr(base, g->off + (MPI_Aint)k *
			    g->stride), rest);
		c->p += rest;
		c->left = 0;
	}
}

/* One block of a common small length is a load and a store. */
static inline void
copy_block(uint8_t *dst, const uint8_t *src, size_t len)
{
	switch (len) {
	case 4:
		memcpy(dst, src, 4);
		break;
	case 8:
		memcpy(dst, src, 8);
		break;
	case 12:
		memcpy(dst, src, 12);
		break;
	case 16:
		memcpy(dst, src, 16);
		break;
	default:
		memcpy(dst, src, len);
		break;
	}
}

/*
 * A whole loop whose body is n leaves (a vector of structs, say), with
 * no byte budget to watch: a tight double loop, with no recursion.
 */
static void
loop_flat(struct cursor *c, uintptr_t base, const struct ft_type_seg *l)
{
	const struct ft_type_seg *b = l + 1, *g;
	uint8_t *q = c->p, *at;
	size_t r, j;

	for (r = 0; r < l->count; r++) {
		at = addr(base, l->off + (MPI_Aint)r * l->stride);
		for (j = 0, g = b; j < l->span; j++, g++) {
			if (g->count == 1 && c->unpack)
				copy_block(at + g->off, q, g->len);
			else if (g->count == 1)
				copy_block(q, at + g->off, g->len);
			else if (c->unpack)
				unpack_leaf(q, at + g->off, g->len, g->count,
				    g->stride);
			else
				pack_leaf(q, at + g->off, g->len, g->count,
				    g->stride);
			q += g->count * g->len;
		}
	}
	c->left -= (size_t)(q - c->p);
	c->p = q;
}

/* Is the body of loop l all leaves? */
static int
loop_is_flat(const struct ft_type_seg *l)
{
	size_t j;

	for (j = 1; j <= l->span; j++)
		if (l[j].len == 0)
			return 0;
	return 1;
}

/* Run the n segments at s on the typed buffer at base. */
static void
prog_run(const struct ft_type_seg *s, size_t n, uintptr_t base,
    struct cursor *c)
{
	size_t i, r;

	for (i = 0; i < n && c->left > 0; i += 1 + s[i].span) {
		if (s[i].len > 0) {
			leaf_copy(c, base, &s[i]);
			continue;
		}
		if (c->left >= s[i].count * s[i].size &&
		    loop_is_flat(&s[i])) {
			loop_flat(c, base, &s[i]);
			continue;
		}
		for (r = 0; r < s[i].count && c->left > 0; r++)
			prog_run(s + i + 1, s[i].span, base +
			    (uintptr_t)(s[i].off + (MPI_Aint)r * s[i].stride),
			    c);
	}
}

/*
 * Copy between count elements of t at buf and at most bytes packed
 * bytes at packed.  t must be built.
 */
static void
type_copy(MPI_Datatype t, const void *buf, size_t count, void *packed,
    size_t bytes, int unpack)
{
	struct cursor c = { packed, bytes, unpack };
	struct ft_type_seg one;
	uintptr_t base = (uintptr_t)buf;
	size_t i;

	if (count == 0 || t->size == 0 || bytes == 0)
		return;
	/*
	 * One leaf repeated count times is one longer block or run, as in
	 * prog_add: a strided pattern costs no loop per element.
	 */
	if (count > 1 && t->nsegs == 1 && t->segs[0].len > 0) {
		one = t->segs[0];
		if (one.count == 1 && (MPI_Aint)one.len == t->extent) {
			one.len *= count;
			one.size = one.len;
			leaf_copy(&c, base, &one);
			return;
		}
		if (one.count == 1) {
			one.count = count;
			one.stride = t->extent;
			leaf_copy(&c, base, &one);
			return;
		}
	}
	for (i = 0; i < count && c.left > 0; i++)
		prog_run(t->segs, t->nsegs, base + (uintptr_t)((MPI_Aint)i *
		    t->extent), &c);
}

/*
 * See type.h.  Dense means the compacted description is one block and,
 * for more than one element, the extent is the size.  type must be
 * committed.
 */
int
ft__mpi_type_dense(MPI_Datatype type, int count, MPI_Aint *offset)
{
	*offset = 0;
	if (count == 0 || type->size == 0)
		return 1;
	if (!type->built || type->nsegs != 1 || type->segs[0].len == 0 ||
	    type->segs[0].count != 1)
		return 0;
	if (count > 1 && type->extent != (MPI_Aint)type->size)
		return 0;
	*offset = type->segs[0].off;
	return 1;
}

/* See type.h. */
size_t
ft__mpi_kind_size(enum ft_type_kind k)
{
	size_t i;

	for (i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
		if (predefined[i]->kind == k)
			return predefined[i]->size;
	return 0;
}

/* See type.h.  type must be committed. */
void
ft__mpi_pack(const void *in, int count, MPI_Datatype type, void *out)
{
	if (count <= 0)
		return;
	type_copy(type, in, (size_t)count, out, (size_t)count * type->size,
	    0);
}

/* See type.h.  type must be committed. */
void
ft__mpi_unpack(const void *in, size_t bytes, void *out, int count,
    MPI_Datatype type)
{
	size_t max;

	if (count <= 0)
		return;
	max = (size_t)count * type->size;
	type_copy(type, out, (size_t)count, (void *)(uintptr_t)in,
	    bytes < max ? bytes : max, 1);
}

/* See type.h. */
int
ft__mpi_type_basic(MPI_Datatype type, enum ft_type_kind *kind, size_t *n)
{
	if (!type_valid(type) || type->ukind == FT_TK_DERIVED ||
	    !type->udense)
		return 0;
	*kind = type->ukind;
	*n = type->un;
	return 1;
}

/*
 * Build the compacted description of *type (see the top of this file);
 * committing twice, or a predefined type, does nothing.  MPI_ERR_NO_MEM
 * when out of memory, and then the type stays uncommitted.
 */
int
PMPI_Type_commit(MPI_Datatype *type)
{
	FT_MPI_CHECK_INIT("MPI_Type_commit");
	if (type == NULL)
		return TERR("MPI_Type_commit", MPI_ERR_ARG, "NULL argument");
	if (!type_valid(*type))
		return TERR("MPI_Type_commit", MPI_ERR_TYPE,
		    "invalid datatype");
	if ((*type)->committed)
		return MPI_SUCCESS;
	if (type_build(*type) != 0)
		return TERR("MPI_Type_commit", MPI_ERR_NO_MEM,
		    "out of memory");
	(*type)->committed = 1;
	return MPI_SUCCESS;
}

/*
 * Freeing drops the handle's reference and sets *type to
 * MPI_DATATYPE_NULL: types made from this one, and pending requests that
 * hold a reference (ft__mpi_type_retain), keep it alive until they are
 * done with it.  A predefined type cannot be freed (MPI_ERR_TYPE).
 * XXX: p2p.c does not yet take a reference for a receive that unpacks
 * at completion (utype), so freeing the type of such a pending receive
 * is unsafe until it does; tests/mpi/type_pending.c checks it.
 */
int
PMPI_Type_free(MPI_Datatype *type)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Type_free");
	if (type == NULL)
		return TERR("MPI_Type_free", MPI_ERR_ARG, "NULL argument");
	if (!type_valid(*type))
		return TERR("MPI_Type_free", MPI_ERR_TYPE, "invalid datatype");
	if ((*type)->predefined)
		return TERR("MPI_Type_free", MPI_ERR_TYPE,
		    "cannot free predefined datatype %s", (*type)->name);
	/* With the last handle go the attributes, and the handle. */
	if ((*type)->handles == 1) {
		if ((rc = ft__mpi_type_attrs_delete(*type)) != MPI_SUCCESS)
			return TERR("MPI_Type_free", rc, "the delete function "
			    "of an attribute failed");
		live_del(*type);
		ft__mpi_fint_forget(FT_FINT_TYPE, *type);
	}
	(*type)->handles--;
	ft__mpi_type_release(*type);
	*type = MPI_DATATYPE_NULL;
	return MPI_SUCCESS;
}

/* See type.h. */
int
ft__mpi_type_handle(MPI_Datatype t)
{
	if (t->handles == 0 && (live_init() != 0 || live_add(t) != 0))
		return -1;
	t->handles++;
	ft__mpi_type_retain(t);
	return 0;
}

/*
 * A new type with the type map and bounds of old, committed when old
 * is.  It does not take old's name.
 */
int
PMPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype)
{
	const char *call = "MPI_Type_dup";
	MPI_Datatype t;
	int rc;

	if ((rc = check_new(call, 0, old, newtype)) != MPI_SUCCESS)
		return rc;
	if (old == MPI_DATATYPE_NULL)
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if ((t = type_new(FT_TC_DUP, 1, 0, 0, 0)) == NULL)
		return TERR(call, MPI_ERR_NO_MEM, "out of memory");
	t->blen = 1;
	t->old = old;
	ft__mpi_type_retain(old);
	if (layout(t) != 0) {
		ft__mpi_type_release(t);
		return TERR(call, MPI_ERR_ARG, "the datatype is too large");
	}
	/* A duplicate has the bounds, explicit or not, of the original. */
	t->lb = old->lb;
	t->extent = old->extent;
	t->sticky_lb = old->sticky_lb;
	t->sticky_ub = old->sticky_ub;
	t->udense = old->udense;
	/* And it is committed when the original is. */
	if (old->committed) {
		if (type_build(t) != 0) {
			ft__mpi_type_release(t);
			return TERR(call, MPI_ERR_NO_MEM, "out of memory");
		}
		t->committed = 1;
	}
	/* The attributes go through their copy functions. */
	if ((rc = ft__mpi_type_attrs_copy(old, t)) != MPI_SUCCESS) {
		ft__mpi_type_release(t);
		return TERR(call, rc, "the copy function of an attribute "
		    "failed");
	}
	return type_publish(call, t, &(struct ft_type_args){
	    .combiner = MPI_COMBINER_DUP, .types = &old, .ntypes = 1 },
	    newtype);
}

/* Bytes of data in one element; MPI_UNDEFINED when over INT_MAX. */
int
PMPI_Type_size(MPI_Datatype type, int *size)
{
	FT_MPI_CHECK_INIT("MPI_Type_size");
	if (!type_valid(type))
		return TERR("MPI_Type_size", MPI_ERR_TYPE, "invalid datatype");
	if (size == NULL)
		return TERR("MPI_Type_size", MPI_ERR_ARG, "NULL argument");
	*size = type->size > INT_MAX ? MPI_UNDEFINED : (int)type->size;
	return MPI_SUCCESS;
}

/* MPI_Type_size as an MPI_Count. */
int
PMPI_Type_size_x(MPI_Datatype type, MPI_Count *size)
{
	FT_MPI_CHECK_INIT("MPI_Type_size_x");
	if (!type_valid(type))
		return TERR("MPI_Type_size_x", MPI_ERR_TYPE,
		    "invalid datatype");
	if (size == NULL)
		return TERR("MPI_Type_size_x", MPI_ERR_ARG, "NULL argument");
	*size = type->size > LLONG_MAX ? MPI_UNDEFINED : (MPI_Count)type->size;
	return MPI_SUCCESS;
}

static int
get_bounds(const char *call, MPI_Datatype type, const void *a, const void *b,
    int true_bounds, int wide)
{
	MPI_Aint lb, extent;

	FT_MPI_CHECK_INIT(call);
	if (!type_valid(type))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (a == NULL || b == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL argument");
	lb = true_bounds ? type->true_lb : type->lb;
	extent = true_bounds ? type->true_ub - type->true_lb : type->extent;
	if (wide) {
		*(MPI_Count *)(uintptr_t)a = lb;
		*(MPI_Count *)(uintptr_t)b = extent;
	} else {
		*(MPI_Aint *)(uintptr_t)a = lb;
		*(MPI_Aint *)(uintptr_t)b = extent;
	}
	return MPI_SUCCESS;
}

/* The lower bound and extent, explicit (resized) or not. */
int
PMPI_Type_get_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent)
{
	return get_bounds("MPI_Type_get_extent", type, lb, extent, 0, 0);
}

/* MPI_Type_get_extent as MPI_Counts. */
int
PMPI_Type_get_extent_x(MPI_Datatype type, MPI_Count *lb, MPI_Count *extent)
{
	return get_bounds("MPI_Type_get_extent_x", type, lb, extent, 0, 1);
}

/* The bounds of the data itself, ignoring explicit bounds. */
int
PMPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent)
{
	return get_bounds("MPI_Type_get_true_extent", type, lb, extent, 1, 0);
}

/* MPI_Type_get_true_extent as MPI_Counts. */
int
PMPI_Type_get_true_extent_x(MPI_Datatype type, MPI_Count *lb,
    MPI_Count *extent)
{
	return get_bounds("MPI_Type_get_true_extent_x", type, lb, extent, 1,
	    1);
}

/* Name a type, predefined ones included; the name is copied. */
int
PMPI_Type_set_name(MPI_Datatype type, const char *name)
{
	FT_MPI_CHECK_INIT("MPI_Type_set_name");
	if (!type_valid(type))
		return TERR("MPI_Type_set_name", MPI_ERR_TYPE,
		    "invalid datatype");
	if (name == NULL)
		return TERR("MPI_Type_set_name", MPI_ERR_ARG, "NULL name");
	/* Longer names are cut to MPI_MAX_OBJECT_NAME - 1 characters. */
	snprintf(type->namebuf, sizeof(type->namebuf), "%s", name);
	type->name = type->namebuf;
	return MPI_SUCCESS;
}

/*
 * The name of a type into name (MPI_MAX_OBJECT_NAME bytes) and its
 * length; a derived type never named has the empty name.
 */
int
PMPI_Type_get_name(MPI_Datatype type, char *name, int *len)
{
	FT_MPI_CHECK_INIT("MPI_Type_get_name");
	if (!type_valid(type))
		return TERR("MPI_Type_get_name", MPI_ERR_TYPE,
		    "invalid datatype");
	if (name == NULL || len == NULL)
		return TERR("MPI_Type_get_name", MPI_ERR_ARG, "NULL argument");
	snprintf(name, MPI_MAX_OBJECT_NAME, "%s",
	    type->name != NULL ? type->name : "");
	*len = (int)strlen(name);
	return MPI_SUCCESS;
}

/*
 * Whole elements of type in a received message, or MPI_UNDEFINED when
 * the bytes are not a whole number of them.
 */
int
PMPI_Get_count(const MPI_Status *st, MPI_Datatype type, int *count)
{
	if (st == NULL || count == NULL)
		return TERR("MPI_Get_count", MPI_ERR_ARG, "NULL argument");
	if (!type_valid(type))
		return TERR("MPI_Get_count", MPI_ERR_TYPE, "invalid datatype");
	if (type->size == 0)
		*count = st->ft_bytes == 0 ? 0 : MPI_UNDEFINED;
	else if (st->ft_bytes % type->size != 0 ||
	    st->ft_bytes / type->size > INT32_MAX)
		*count = MPI_UNDEFINED;
	else
		*count = (int)(st->ft_bytes / type->size);
	return MPI_SUCCESS;
}

/*
 * The basic elements in the first bytes of a message of type t, in *n:
 * whole elements of t, then a walk down the part of the signature that
 * the rest covers.  Every constructor but struct repeats one type, so
 * only struct needs a walk along its blocks.  Returns -1 when the bytes
 * end inside a basic element.
 */
static int
prefix_elements(MPI_Datatype t, size_t bytes, size_t *n)
{
	MPI_Datatype c;
	size_t rem, blk, m, i;

	if (t->size == 0) {
		*n = 0;
		return bytes == 0 ? 0 : -1;
	}
	*n = bytes / t->size * t->nbasic;
	if ((rem = bytes % t->size) == 0)
		return 0;
	if (t->comb == FT_TC_NAMED)
		return -1;
	if (t->comb != FT_TC_STRUCT) {
		if (prefix_elements(t->old, rem, &m) != 0)
			return -1;
		*n += m;
		return 0;
	}
	for (i = 0; i < t->nblk; i++) {
		c = t->types[i];
		blk = (size_t)t->blens[i] * c->size;
		if (rem <= blk) {
			if (prefix_elements(c, rem, &m) != 0)
				return -1;
			*n += m;
			return 0;
		}
		rem -= blk;
		*n += (size_t)t->blens[i] * c->nbasic;
	}
	return -1;
}

static int
get_elements(const char *call, const MPI_Status *st, MPI_Datatype type,
    MPI_Count *count)
{
	size_t n;

	if (st == NULL || count == NULL)
		return TERR(call, MPI_ERR_ARG, "NULL argument");
	if (!type_valid(type))
		return TERR(call, MPI_ERR_TYPE, "invalid datatype");
	if (prefix_elements(type, st->ft_bytes, &n) != 0 || n > LLONG_MAX)
		*count = MPI_UNDEFINED;
	else
		*count = (MPI_Count)n;
	return MPI_SUCCESS;
}

/*
 * Basic elements in a received message (a pair type such as
 * MPI_DOUBLE_INT counts two), or MPI_UNDEFINED when it ends inside
 * one.
 */
int
PMPI_Get_elements(const MPI_Status *st, MPI_Datatype type, int *count)
{
	MPI_Count n;
	int rc;

	if ((rc = get_elements("MPI_Get_elements", st, type, &n)) !=
	    MPI_SUCCESS)
		return rc;
	*count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
	return MPI_SUCCESS;
}

/* MPI_Get_elements as an MPI_Count. */
int
PMPI_Get_elements_x(const MPI_Status *st, MPI_Datatype type, MPI_Count *count)
{
	return get_elements("MPI_Get_elements_x", st, type, count);
}

/* The checks MPI_Pack and MPI_Unpack share; *need is the packed size. */
static int
check_pack(const char *call, int count, MPI_Datatype type, int size,
    const int *position, MPI_Comm comm, size_t *need)
{
	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, call,
		    "invalid communicator");
	if (count < 0)
		return ft__mpi_err(comm, MPI_ERR_COUNT, call,
		    "negative count %d", count);
	if (!type_valid(type))
		return ft__mpi_err(comm, MPI_ERR_TYPE, call,
		    "invalid datatype");
	if (!type->committed)
		return ft__mpi_err(comm, MPI_ERR_TYPE, call,
		    "datatype not committed");
	if (position == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "NULL position");
	if (size < 0 || *position < 0)
		return ft__mpi_err(comm, MPI_ERR_ARG, call,
		    "negative size %d or position %d", size, *position);
	if (__builtin_mul_overflow((size_t)count, type->size, need) ||
	    *position > size || *need > (size_t)(size - *position))
		return ft__mpi_err(comm, MPI_ERR_TRUNCATE, call,
		    "%d elements of %zu bytes do not fit in %d bytes after "
		    "position %d", count, type->size, size, *position);
	return MPI_SUCCESS;
}

/*
 * Pack incount elements at inbuf (MPI_BOTTOM with absolute addresses)
 * into outbuf at *position, and advance *position.  MPI_ERR_TRUNCATE,
 * leaving *position alone, when they do not fit in outsize bytes.
 */
int
PMPI_Pack(const void *inbuf, int incount, MPI_Datatype type, void *outbuf,
    int outsize, int *position, MPI_Comm comm)
{
	size_t need;
	int rc;

	if ((rc = check_pack("MPI_Pack", incount, type, outsize, position,
	    comm, &need)) != MPI_SUCCESS)
		return rc;
	if (need == 0)
		return MPI_SUCCESS;
	if (outbuf == NULL)
		return ft__mpi_err(comm, MPI_ERR_BUFFER, "MPI_Pack",
		    "NULL output buffer");
	type_copy(type, inbuf, (size_t)incount, (uint8_t *)outbuf + *position,
	    need, 0);
	*position += (int)need;
	return MPI_SUCCESS;
}

/*
 * Unpack outcount elements from inbuf at *position into outbuf, and
 * advance *position.  MPI_ERR_TRUNCATE when fewer than that many bytes
 * remain in insize.
 */
int
PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
    int outcount, MPI_Datatype type, MPI_Comm comm)
{
	size_t need;
	int rc;

	if ((rc = check_pack("MPI_Unpack", outcount, type, insize, position,
	    comm, &need)) != MPI_SUCCESS)
		return rc;
	if (need == 0)
		return MPI_SUCCESS;
	if (inbuf == NULL)
		return ft__mpi_err(comm, MPI_ERR_BUFFER, "MPI_Unpack",
		    "NULL input buffer");
	type_copy(type, outbuf, (size_t)outcount,
	    (uint8_t *)(uintptr_t)inbuf + *position, need, 1);
	*position += (int)need;
	return MPI_SUCCESS;
}

/*
 * An upper bound (here exact) on the bytes MPI_Pack needs for incount
 * elements; MPI_ERR_COUNT when it does not fit an int.
 */
int
PMPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm comm, int *size)
{
	size_t need;

	FT_MPI_CHECK_INIT("MPI_Pack_size");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Pack_size",
		    "invalid communicator");
	if (incount < 0)
		return ft__mpi_err(comm, MPI_ERR_COUNT, "MPI_Pack_size",
		    "negative count %d", incount);
	if (!type_valid(type))
		return ft__mpi_err(comm, MPI_ERR_TYPE, "MPI_Pack_size",
		    "invalid datatype");
	if (size == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Pack_size",
		    "NULL size");
	if (__builtin_mul_overflow((size_t)incount, type->size, &need) ||
	    need > INT_MAX)
		return ft__mpi_err(comm, MPI_ERR_COUNT, "MPI_Pack_size",
		    "%d elements of %zu bytes are too large for an int",
		    incount, type->size);
	*size = (int)need;
	return MPI_SUCCESS;
}

/* The address of location, for displacements from MPI_BOTTOM. */
int
PMPI_Get_address(const void *location, MPI_Aint *address)
{
	if (address == NULL)
		return TERR("MPI_Get_address", MPI_ERR_ARG, "NULL argument");
	*address = (MPI_Aint)(uintptr_t)location;
	return MPI_SUCCESS;
}

/* base + disp, in address arithmetic. */
MPI_Aint
PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

/* a - b, in address arithmetic. */
MPI_Aint
PMPI_Aint_diff(MPI_Aint a, MPI_Aint b)
{
	return (MPI_Aint)((uintptr_t)a - (uintptr_t)b);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
#pragma weak MPI_Type_vector = PMPI_Type_vector
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
#pragma weak MPI_Type_indexed = PMPI_Type_indexed
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
#pragma weak MPI_Type_commit = PMPI_Type_commit
#pragma weak MPI_Type_free = PMPI_Type_free
#pragma weak MPI_Type_dup = PMPI_Type_dup
#pragma weak MPI_Type_size = PMPI_Type_size
#pragma weak MPI_Type_size_x = PMPI_Type_size_x
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
#pragma weak MPI_Type_set_name = PMPI_Type_set_name
#pragma weak MPI_Type_get_name = PMPI_Type_get_name
#pragma weak MPI_Get_count = PMPI_Get_count
#pragma weak MPI_Get_elements = PMPI_Get_elements
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
#pragma weak MPI_Pack = PMPI_Pack
#pragma weak MPI_Unpack = PMPI_Unpack
#pragma weak MPI_Pack_size = PMPI_Pack_size
#pragma weak MPI_Get_address = PMPI_Get_address
#pragma weak MPI_Aint_add = PMPI_Aint_add
#pragma weak MPI_Aint_diff = PMPI_Aint_diff
