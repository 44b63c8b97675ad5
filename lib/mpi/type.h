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
	FT_TK_NKINDS
};

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
};

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
 * the type places its data elsewhere: at absolute addresses, say.  Predefined types give n = 1; the pair
 * types (MPI_DOUBLE_INT, ...) are units of their own kind.  Returns 1
 * and sets *kind and *n, else returns 0 and leaves them alone.
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
