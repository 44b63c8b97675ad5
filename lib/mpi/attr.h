/* SPDX-License-Identifier: ISC */
/*
 * Attributes cached on communicators, datatypes and windows, and their
 * keyvals (attr.c), for comm.c, typex.c and win.c.  A keyval belongs to one kind of
 * object; the keyvals of every kind are numbered in one sequence from
 * FT_KEYVAL_BASE up (the predefined keys of communicators are lower),
 * and never reused, so a freed keyval, or one of another kind, stays
 * invalid.  An attribute list (struct ft_mpi_attr, comm.h) is newest
 * first, and each attribute holds a reference to its keyval.
 */
#ifndef FT_MPI_ATTR_H
#define FT_MPI_ATTR_H

#include "mpi_impl.h"

#define FT_KEYVAL_BASE	64

enum ft_attr_kind {
	FT_ATTR_COMM = 1,
	FT_ATTR_TYPE,
	FT_ATTR_WIN,		/* windows (win.c) */
};

/* The callbacks of a keyval: those of its kind (NULL: none). */
struct ft_attr_fns {
	MPI_Comm_copy_attr_function	*comm_copy;
	MPI_Comm_delete_attr_function	*comm_del;
	MPI_Type_copy_attr_function	*type_copy;
	MPI_Type_delete_attr_function	*type_del;
	MPI_Win_copy_attr_function	*win_copy;	/* never called */
	MPI_Win_delete_attr_function	*win_del;
};

/* A new keyval into *keyval.  Returns 0, or -1 when out of memory. */
int	 ft__mpi_keyval_new(enum ft_attr_kind, const struct ft_attr_fns *,
	    void *extra, int *keyval);
/* May the application use keyval on an object of this kind? */
int	 ft__mpi_keyval_ok(enum ft_attr_kind, int keyval);
/*
 * The application frees keyval; attributes still set with it keep it
 * alive for their delete functions.  Returns 0, or -1 if keyval is not
 * ft__mpi_keyval_ok.
 */
int	 ft__mpi_keyval_free(enum ft_attr_kind, int keyval);
/* MPI_Finalize: forget every keyval (attributes left behind are
 * dropped without them). */
void	 ft__mpi_keyval_fini(void);

/*
 * The attribute lists of objects: obj is the object (its handle), of
 * kind, passed to the callbacks; list is where its list starts.  The
 * keyvals given must be ft__mpi_keyval_ok.
 */
struct ft_mpi_attr *ft__mpi_attr_find(struct ft_mpi_attr *list, int keyval);
/*
 * Set keyval to val; an old value goes through the delete function
 * first.  Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or what the delete
 * function returned (the old value then stays).
 */
int	 ft__mpi_attr_set(enum ft_attr_kind, void *obj,
	    struct ft_mpi_attr **list, int keyval, void *val);
/*
 * Delete keyval's attribute through its delete function (none set is
 * no error).  Returns MPI_SUCCESS or what the function returned (the
 * attribute then stays).
 */
int	 ft__mpi_attr_delete(enum ft_attr_kind, void *obj,
	    struct ft_mpi_attr **list, int keyval);
/*
 * Delete every attribute, newest first, through its delete function;
 * stops at the first failure and returns its code, leaving the rest.
 */
int	 ft__mpi_attrs_delete(enum ft_attr_kind, void *obj,
	    struct ft_mpi_attr **list);
/* Drop every attribute without calling anything (failures, the end). */
void	 ft__mpi_attrs_drop(struct ft_mpi_attr **list);
/*
 * Copy the attributes of from (on object old) through their copy
 * functions to *to (on object obj), keeping their order.  Returns
 * MPI_SUCCESS, MPI_ERR_NO_MEM, or what a copy function returned; on
 * failure what was copied is deleted again.
 */
int	 ft__mpi_attrs_copy(enum ft_attr_kind, void *old,
	    struct ft_mpi_attr *from, void *obj, struct ft_mpi_attr **to);

#endif
