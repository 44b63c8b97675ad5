/* SPDX-License-Identifier: ISC */
/*
 * Attributes and keyvals of every kind of object (attr.h): one table of
 * keyvals, and attribute lists whose callbacks are called with the
 * object of their own kind.
 */
#include <stdlib.h>

#include "attr.h"

struct keyval {
	enum ft_attr_kind	 kind;
	struct ft_attr_fns	 fns;
	void			*extra;
	int			 handle;	/* not freed yet */
	int			 refs;		/* handle + attributes */
};

/* The keyvals; slots are never reused. */
static struct keyval	*kvs;
static int		 nkvs;

/* A keyval of kind still alive: not freed, or still set somewhere. */
static struct keyval *
kv_any(enum ft_attr_kind kind, int keyval)
{
	struct keyval *kv;

	if (keyval < FT_KEYVAL_BASE || keyval - FT_KEYVAL_BASE >= nkvs)
		return NULL;
	kv = &kvs[keyval - FT_KEYVAL_BASE];
	return kv->refs > 0 && kv->kind == kind ? kv : NULL;
}

int
ft__mpi_keyval_new(enum ft_attr_kind kind, const struct ft_attr_fns *fns,
    void *extra, int *keyval)
{
	struct keyval *nk;

	if (nkvs >= INT32_MAX - FT_KEYVAL_BASE ||
	    (nk = reallocarray(kvs, (size_t)nkvs + 1, sizeof(*nk))) == NULL)
		return -1;
	kvs = nk;
	nk[nkvs] = (struct keyval){ kind, *fns, extra, 1, 1 };
	*keyval = FT_KEYVAL_BASE + nkvs++;
	return 0;
}

int
ft__mpi_keyval_ok(enum ft_attr_kind kind, int keyval)
{
	struct keyval *kv = kv_any(kind, keyval);

	return kv != NULL && kv->handle;
}

int
ft__mpi_keyval_free(enum ft_attr_kind kind, int keyval)
{
	struct keyval *kv = kv_any(kind, keyval);

	if (kv == NULL || !kv->handle)
		return -1;
	kv->handle = 0;
	kv->refs--;
	return 0;
}

void
ft__mpi_keyval_fini(void)
{
	free(kvs);
	kvs = NULL;
	nkvs = 0;
}

struct ft_mpi_attr *
ft__mpi_attr_find(struct ft_mpi_attr *list, int keyval)
{
	for (; list != NULL; list = list->next)
		if (list->keyval == keyval)
			return list;
	return NULL;
}

/* Run the delete function of a, an attribute of obj (which stays). */
static int
attr_del(enum ft_attr_kind kind, void *obj, const struct ft_mpi_attr *a)
{
	struct keyval *kv = kv_any(kind, a->keyval);

	if (kv == NULL)
		return MPI_SUCCESS;
	if (kind == FT_ATTR_COMM && kv->fns.comm_del != NULL)
		return kv->fns.comm_del(obj, a->keyval, a->val, kv->extra);
	if (kind == FT_ATTR_TYPE && kv->fns.type_del != NULL)
		return kv->fns.type_del(obj, a->keyval, a->val, kv->extra);
	if (kind == FT_ATTR_WIN && kv->fns.win_del != NULL)
		return kv->fns.win_del(obj, a->keyval, a->val, kv->extra);
	return MPI_SUCCESS;
}

/* Take a off the list, if it is still there (a callback may have taken
 * it), and free it. */
static void
attr_unlink(enum ft_attr_kind kind, struct ft_mpi_attr **list,
    struct ft_mpi_attr *a)
{
	struct ft_mpi_attr **pp;
	struct keyval *kv;

	for (pp = list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			if ((kv = kv_any(kind, a->keyval)) != NULL)
				kv->refs--;
			free(a);
			return;
		}
}

int
ft__mpi_attr_set(enum ft_attr_kind kind, void *obj,
    struct ft_mpi_attr **list, int keyval, void *val)
{
	struct ft_mpi_attr *a;
	int rc;

	if ((a = ft__mpi_attr_find(*list, keyval)) != NULL) {
		if ((rc = attr_del(kind, obj, a)) != MPI_SUCCESS)
			return rc;
		a->val = val;
		return MPI_SUCCESS;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return MPI_ERR_NO_MEM;
	a->keyval = keyval;
	a->val = val;
	a->next = *list;
	*list = a;
	kv_any(kind, keyval)->refs++;
	return MPI_SUCCESS;
}

int
ft__mpi_attr_delete(enum ft_attr_kind kind, void *obj,
    struct ft_mpi_attr **list, int keyval)
{
	struct ft_mpi_attr *a;
	int rc;

	if ((a = ft__mpi_attr_find(*list, keyval)) == NULL)
		return MPI_SUCCESS;
	if ((rc = attr_del(kind, obj, a)) != MPI_SUCCESS)
		return rc;
	attr_unlink(kind, list, a);
	return MPI_SUCCESS;
}

int
ft__mpi_attrs_delete(enum ft_attr_kind kind, void *obj,
    struct ft_mpi_attr **list)
{
	struct ft_mpi_attr *a;
	int rc;

	while ((a = *list) != NULL) {
		if ((rc = attr_del(kind, obj, a)) != MPI_SUCCESS)
			return rc;
		attr_unlink(kind, list, a);
	}
	return MPI_SUCCESS;
}

void
ft__mpi_attrs_drop(struct ft_mpi_attr **list)
{
	struct ft_mpi_attr *a;

	while ((a = *list) != NULL) {
		*list = a->next;
		if (a->keyval >= FT_KEYVAL_BASE &&
		    a->keyval - FT_KEYVAL_BASE < nkvs)
			kvs[a->keyval - FT_KEYVAL_BASE].refs--;
		free(a);
	}
}

int
ft__mpi_attrs_copy(enum ft_attr_kind kind, void *old,
    struct ft_mpi_attr *from, void *obj, struct ft_mpi_attr **to)
{
	struct ft_mpi_attr *a, *na, **head = to;
	struct keyval *kv;
	void *out;
	int flag, rc;

	for (a = from; a != NULL; a = a->next) {
		if ((kv = kv_any(kind, a->keyval)) == NULL)
			continue;
		out = NULL;
		flag = 0;
		if (kind == FT_ATTR_COMM && kv->fns.comm_copy != NULL)
			rc = kv->fns.comm_copy(old, a->keyval, kv->extra,
			    a->val, &out, &flag);
		else if (kind == FT_ATTR_TYPE && kv->fns.type_copy != NULL)
			rc = kv->fns.type_copy(old, a->keyval, kv->extra,
			    a->val, &out, &flag);
		else
			continue;
		if (rc == MPI_SUCCESS && flag &&
		    (na = calloc(1, sizeof(*na))) == NULL)
			rc = MPI_ERR_NO_MEM;
		if (rc != MPI_SUCCESS) {
			(void)ft__mpi_attrs_delete(kind, obj, head);
			return rc;
		}
		if (!flag)
			continue;
		na->keyval = a->keyval;
		na->val = out;
		kv->refs++;
		*to = na;
		to = &na->next;
	}
	return MPI_SUCCESS;
}
