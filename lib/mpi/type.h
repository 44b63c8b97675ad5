/* SPDX-License-Identifier: ISC */
/*
 * Datatypes inside the MPI layer, and the hooks point-to-point uses to
 * move data that is not one dense block.
 */
#ifndef FT_MPI_TYPE_H
#define FT_MPI_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "../include/mpi.h"

/*
 * The predefined datatypes, one value each (MPI_LONG_LONG_INT is
 * MPI_LONG_LONG), for code that must know what the bytes are, such as
 * reductions.  The pair types of MAXLOC and MINLOC are units of their
 * own: MPI_DOUBLE_INT is FT_TK_DOUBLE_INT, a struct { double; int; }.
 * Every derived type is FT_TK_DERIVED.
 */
enum ft_type_kind {
	FT_TK_DERIVED = 0,
	FT_TK_CHAR,
	FT_TK_SIGNED_CHAR,
	FT_TK_UNSIGNED_CHAR,
	FT_TK_BYTE,
	FT_TK_WCHAR,
	FT_TK_SHORT,
	FT_TK_UNSIGNED_SHORT,
	FT_TK_INT,
	FT_TK_UNSIGNED,
	FT_TK_LONG,
	FT_TK_UNSIGNED_LONG,
	FT_TK_LONG_LONG,
	FT_TK_UNSIGNED_LONG_LONG,
	FT_TK_FLOAT,
	FT_TK_DOUBLE,
	FT_TK_LONG_DOUBLE,
	FT_TK_C_BOOL,
	FT_TK_INT8_T,
	FT_TK_INT16_T,
	FT_TK_INT32_T,
	FT_TK_INT64_T,
	FT_TK_UINT8_T,
	FT_TK_UINT16_T,
	FT_TK_UINT32_T,
	FT_TK_UINT64_T,
	FT_TK_C_FLOAT_COMPLEX,
	FT_TK_C_DOUBLE_COMPLEX,
	FT_TK_C_LONG_DOUBLE_COMPLEX,
	FT_TK_AINT,
	FT_TK_OFFSET,
	FT_TK_COUNT,
	FT_TK_PACKED,
	/* Pairs for MPI_MAXLOC and MPI_MINLOC. */
	FT_TK_2INT,
	FT_TK_FLOAT_INT,
	FT_TK_DOUBLE_INT,
	FT_TK_LONG_INT,
	FT_TK_SHORT_INT,
	FT_TK_LONG_DOUBLE_INT,
	/*
	 * The Fortran named types, as gfortran lays them out by default
	 * (typex.c): LOGICAL is a 4-byte integer, 0 false and 1 true;
	 * REAL16 and COMPLEX32 are IEEE binary128.  The Fortran pairs of
	 * MAXLOC and MINLOC have an index of the value's own type.
	 */
	FT_TK_CHARACTER,
	FT_TK_LOGICAL,
	FT_TK_INTEGER,
	FT_TK_REAL,
	FT_TK_DOUBLE_PRECISION,
	FT_TK_COMPLEX,
	FT_TK_DOUBLE_COMPLEX,
	FT_TK_INTEGER1,
	FT_TK_INTEGER2,
	FT_TK_INTEGER4,
	FT_TK_INTEGER8,
	FT_TK_REAL4,
	FT_TK_REAL8,
	FT_TK_REAL16,
	FT_TK_COMPLEX8,
	FT_TK_COMPLEX16,
	FT_TK_COMPLEX32,
	FT_TK_2INTEGER,
	FT_TK_2REAL,
	FT_TK_2DOUBLE_PRECISION,
	/* The MPI-1 bound markers: no data, explicit bounds in a struct. */
	FT_TK_LB,
	FT_TK_UB,
	FT_TK_NKINDS
};

/*
 * IEEE binary128, the C type of REAL16 where the compiler has one
 * (FT_HAVE_QUAD); elsewhere REAL16 is 16 bytes that only travel.
 */
#if defined(__SIZEOF_FLOAT128__)
#define FT_HAVE_QUAD	1
typedef __float128	ft_quad;
#elif defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113
#define FT_HAVE_QUAD	1
typedef long double	ft_quad;
#else
typedef struct { _Alignas(16) unsigned char b[16]; } ft_quad;
#endif
typedef struct { ft_quad re, im; } ft_quad_complex;

/*
 * The committed form of a type (the "compacted description", as in
 * FT-MPI): a small program of byte copies, in type map order.  A leaf
 * (len > 0) copies count blocks of len bytes, each stride bytes after
 * the one before, the first at off.  A loop (len == 0) runs the span
 * segments after it count times, each time stride bytes further; the
 * offsets in its body count from base + off + i * stride.  Every off
 * counts from the base of the enclosing loop (the buffer at top level).
 * size is the data bytes of one repetition.
 */
struct ft_type_seg {
	MPI_Aint	 off;
	MPI_Aint	 stride;
	size_t		 count;		/* at least 1 */
	size_t		 len;		/* leaf: bytes per block; loop: 0 */
	size_t		 span;		/* loop: segments in its body */
	size_t		 size;		/* data bytes of one repetition */
};

/* How a type was made. */
enum ft_type_comb {
	FT_TC_NAMED = 0,	/* predefined */
	FT_TC_DUP,
	FT_TC_CONTIGUOUS,
	FT_TC_VECTOR,
	FT_TC_HVECTOR,
	FT_TC_INDEXED,
	FT_TC_HINDEXED,
	FT_TC_INDEXED_BLOCK,
	FT_TC_HINDEXED_BLOCK,
	FT_TC_STRUCT,
	FT_TC_RESIZED,
};

#define FT_TYPE_MAGIC	0x46545459u	/* "FTTY" */

struct ft_mpi_type {
	size_t		 size;		/* bytes of data */
	MPI_Aint	 lb, extent;
	int		 predefined;
	int		 committed;
	int		 contiguous;	/* data is size bytes at buf + lb */
	const char	*name;
	enum ft_type_kind kind;		/* FT_TK_DERIVED unless predefined */

	/* Everything below is the datatype engine's (type.c). */
	uint32_t	 magic;		/* FT_TYPE_MAGIC while valid */
	int		 refs;		/* derived: handle, parents, requests */
	MPI_Aint	 true_lb, true_ub;	/* the bytes of data */
	int		 sticky_lb, sticky_ub;	/* explicit bounds (resized) */
	size_t		 align;		/* largest alignment of its basics */
	size_t		 nbasic;	/* basic elements in one element */
	/*
	 * The unit view, for ft__mpi_type_basic: un units of predefined
	 * type ukind (FT_TK_DERIVED when mixed), which are dense when unit
	 * k is at lb + k * (its extent) and extent covers the units.
	 */
	enum ft_type_kind ukind;
	size_t		 un;
	int		 udense;
	/*
	 * The constructor: nblk blocks; block i is blens[i] (or blen)
	 * elements of types[i] (or old), displaced disps[i] bytes (or
	 * i * stride when disps is NULL).
	 */
	enum ft_type_comb comb;
	MPI_Datatype	 old;
	size_t		 nblk;
	size_t		 blen;
	MPI_Aint	 stride;
	int		*blens;
	MPI_Aint	*disps;
	MPI_Datatype	*types;
	/* The compacted description, built at commit (predefined: static). */
	struct ft_type_seg *segs;
	size_t		 nsegs;
	int		 built;
	char		 namebuf[MPI_MAX_OBJECT_NAME];
	/*
	 * What the application sees (typex.c): the constructor and its
	 * arguments for MPI_Type_get_contents (combiner 0 when predefined;
	 * ctypes hold references), the handles it holds (MPI_Type_free
	 * drops one; MPI_Type_get_contents may hand out more), and the
	 * attributes.
	 */
	int		 combiner;
	int		 nints, naddrs, ntypes;
	int		*ints;
	MPI_Aint	*addrs;
	MPI_Datatype	*ctypes;
	int		 handles;
	struct ft_mpi_attr *attrs;	/* attr.h */
};

/*
 * The arguments of a constructor, as MPI_Type_get_contents returns
 * them: the integers are head[0 .. nhead), then a[0 .. na), then
 * b[0 .. nb).
 */
struct ft_type_args {
	int			 combiner;	/* MPI_COMBINER_* */
	int			 head[3];
	int			 nhead;
	const int		*a, *b;
	int			 na, nb;
	const MPI_Aint		*addrs;
	int			 naddrs;
	const MPI_Datatype	*types;
	int			 ntypes;
};

/*
 * Record how t was made (typex.c), taking a reference to each of its
 * derived types.  Returns 0, or -1 when out of memory; what it holds is
 * freed with the type.
 */
int	 ft__mpi_type_record(MPI_Datatype, const struct ft_type_args *);
/* Free what ft__mpi_type_record and the attributes hold. */
void	 ft__mpi_type_record_free(MPI_Datatype);
/*
 * Attributes (typex.c): copy old's to new through their copy functions
 * (MPI_Type_dup), and delete t's through their delete functions, newest
 * first, when its last handle is freed.  They return MPI_SUCCESS or the
 * code a callback returned (not reported).
 */
int	 ft__mpi_type_attrs_copy(MPI_Datatype old, MPI_Datatype t);
int	 ft__mpi_type_attrs_delete(MPI_Datatype);

/* Is t a handle the application may use, committed or not? */
int	 ft__mpi_type_valid(MPI_Datatype);
/* The i-th predefined type, in a fixed order; NULL past the last. */
MPI_Datatype ft__mpi_type_predef(size_t i);
/*
 * One more application handle to derived type t (MPI_Type_get_contents
 * hands out the types a type was made from): MPI_Type_free takes it
 * back.  Returns 0, or -1 when out of memory.
 */
int	 ft__mpi_type_handle(MPI_Datatype);
/*
 * Visit the basic elements of count elements of type at buf in type
 * map order, calling fn with each one's kind (a predefined kind, never
 * a pair, FT_TK_LB or FT_TK_UB) and address; stops at the first fn that
 * returns non-zero, and returns that, else 0.
 */
int	 ft__mpi_type_walk(MPI_Datatype, const void *buf, size_t count,
	    int (*fn)(void *arg, enum ft_type_kind, void *addr), void *arg);

/* Is type a valid, committed datatype? */
int	 ft__mpi_type_ok(MPI_Datatype);

/*
 * Is the data of count elements of type one dense block?  If so, it is
 * count * size bytes at buf + *offset.
 */
int	 ft__mpi_type_dense(MPI_Datatype, int count, MPI_Aint *offset);
/*
 * The address off bytes from buf, in address arithmetic: buf may be
 * MPI_BOTTOM, a null pointer, and off an absolute address.
 */
static inline void *
ft__mpi_addr(const void *buf, MPI_Aint off)
{
	return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* Pack count elements at in into out (count * size bytes). */
/* The size of predefined kind k (0: none, FT_TK_DERIVED). */
size_t	 ft__mpi_kind_size(enum ft_type_kind);
void	 ft__mpi_pack(const void *in, int count, MPI_Datatype, void *out);
/*
 * Unpack bytes packed bytes (possibly fewer than count elements, when a
 * shorter message arrived) from in into count elements at out.
 */
void	 ft__mpi_unpack(const void *in, size_t bytes, void *out, int count,
	    MPI_Datatype);

/*
 * Does type consist of *n units of one predefined type *kind, laid out
 * densely from buf + lb of type (unit k at buf + lb + k * its extent,
 * and count elements of type are count * *n units)?  lb is 0 unless
 * the type places its data elsewhere: at absolute addresses, say.
 * Predefined types give n = 1; the pair types (MPI_DOUBLE_INT, ...)
 * are units of their own kind.  Returns 1 and sets *kind and *n, else
 * returns 0 and leaves them alone.
 */
int	 ft__mpi_type_basic(MPI_Datatype, enum ft_type_kind *kind, size_t *n);

/*
 * Keep a datatype alive while something other than the application's
 * handle refers to it: a pending request that will unpack into it, say.
 * MPI_Type_free drops the handle's reference; the type is destroyed
 * when the last one goes.  Both are no-ops for predefined types and
 * MPI_DATATYPE_NULL.
 */
void	 ft__mpi_type_retain(MPI_Datatype);
void	 ft__mpi_type_release(MPI_Datatype);

#endif
