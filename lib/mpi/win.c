/* SPDX-License-Identifier: ISC */
/*
 * Windows (MPI-3.1 11.2, 11.5): their creation and freeing, groups,
 * attributes, names, info and error handlers, and the synchronization
 * calls (fence, post-start-complete-wait, lock and unlock, flush), over
 * the requests of rma.c (win.h tells how they travel).
 *
 * Windows are made only under ftrun --ft none (and alone, without
 * ftrun) and --ft ulfm, where a failure is returned to the application:
 * the other protocols neither log nor replicate what a target applies
 * at progress, so their recovery would be silently wrong; MPI_Win_create
 * and its kin say so and fail (ft-mpi(3)).  Under ULFM a call that
 * needs a dead process (its acknowledgement, its post, its complete)
 * fails with MPIX_ERR_PROC_FAILED, and a target drops the locks of dead
 * origins.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "win.h"

/* The live windows: a set for handle checks, a list for progress. */
static struct ft_mpi_hset	 wins;
static struct ft_mpi_win	*first;

#define ASSERTS	(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | \
	MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

int
ft__mpi_win_ok(MPI_Win win)
{
	return win != MPI_WIN_NULL && ft__mpi_hset_has(&wins, win);
}

MPI_Win
ft__mpi_win_first(void)
{
	return first;
}

int
ft__mpi_win_err(MPI_Win win, int code, const char *call, const char *fmt,
    ...)
{
	char msg[512];
	va_list ap;

	if (!ft__mpi_win_ok(win))
		return ft__mpi_err(MPI_COMM_NULL, code, call, "invalid window");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ft__mpi_errh_win(win->errh, win, code, call, msg);
}

int
ft__mpi_win_check(MPI_Win win, const char *call)
{
	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_win_ok(win))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_WIN, call,
		    "invalid window");
	return MPI_SUCCESS;
}

/*
 * Why no window can be made in this job, or NULL: the fault-tolerance
 * protocols other than none (see the top of this file).
 */
static const char *
refused(void)
{
	static char why[160];
	const char *p = ft__mpi.singleton ? "none" : ft__mpi.env.proto;

	if (p == NULL || p[0] == '\0' || strcmp(p, "none") == 0 ||
	    strcmp(p, "ulfm") == 0)
		return NULL;
	snprintf(why, sizeof(why), "one-sided communication is not "
	    "available under --ft %s (ft-mpi(3): only --ft none and ulfm)",
	    p);
	return why;
}

static void
win_release(MPI_Win w)
{
	ft__mpi_attrs_drop(&w->attrs);
	if (w->info != MPI_INFO_NULL)
		(void)PMPI_Info_free(&w->info);
	if (w->alloc)
		free(w->base);
	free(w->sizes);
	free(w->units);
	free(w->regions);
	free(w->sent);
	free(w->locked);
	free(w->access);
	free(w->posted);
	free(w->posts);
	free(w->terr);
	free(w->held);
	free(w->exposing);
	free(w->waiting);
	w->magic = 0;
	free(w);
}

/*
 * Make a window of flavor on comm (collective): base and size are the
 * caller's memory (allocated here for ALLOCATE and SHARED), the
 * argument checks are agreed so that every rank fails together.
 */
static int
win_make(const char *call, MPI_Comm comm, int flavor, void *base,
    MPI_Aint size, int disp_unit, MPI_Info info, void *baseptr,
    MPI_Win *win)
{
	struct ft_mpi_win *w;
	const char *why = "";
	MPI_Comm wc = MPI_COMM_NULL;
	MPI_Aint *both;
	int err = 0, rc, i, n;

	FT_MPI_CHECK_INIT(call);
	ft__mpi_replay_refuse(call);
	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS)
		return rc;
	if (win == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL win";
	} else if (size < 0) {
		err = MPI_ERR_SIZE;
		why = "negative size";
	} else if (disp_unit <= 0) {
		err = MPI_ERR_DISP;
		why = "displacement unit not positive";
	} else if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info)) {
		err = MPI_ERR_INFO;
		why = "invalid info object";
	} else if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 &&
	    base == NULL) {
		err = MPI_ERR_BASE;
		why = "NULL base with a positive size";
	} else if ((flavor == MPI_WIN_FLAVOR_ALLOCATE ||
	    flavor == MPI_WIN_FLAVOR_SHARED) && baseptr == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL baseptr";
	} else if ((why = refused()) != NULL)
		err = MPI_ERR_OTHER;
	if (why == NULL)
		why = "";
	n = comm->size;
	if ((w = calloc(1, sizeof(*w))) != NULL) {
		w->sizes = calloc((size_t)n, sizeof(*w->sizes));
		w->units = calloc((size_t)n, sizeof(*w->units));
		w->sent = calloc((size_t)n, sizeof(*w->sent));
		w->locked = calloc((size_t)n, sizeof(*w->locked));
		w->access = calloc((size_t)n, sizeof(*w->access));
		w->posted = calloc((size_t)n, sizeof(*w->posted));
		w->posts = calloc((size_t)n, sizeof(*w->posts));
		w->terr = calloc((size_t)n, sizeof(*w->terr));
		w->held = calloc((size_t)n, sizeof(*w->held));
		w->exposing = calloc((size_t)n, sizeof(*w->exposing));
		w->info = MPI_INFO_NULL;
	}
	both = calloc((size_t)n * 2, sizeof(*both));
	if (err == 0 && (w == NULL || both == NULL || w->sizes == NULL ||
	    w->units == NULL || w->sent == NULL || w->locked == NULL ||
	    w->access == NULL || w->posted == NULL || w->posts == NULL ||
	    w->terr == NULL || w->held == NULL || w->exposing == NULL)) {
		err = MPI_ERR_NO_MEM;
		why = "out of memory";
	}
	if (err == 0 && (flavor == MPI_WIN_FLAVOR_ALLOCATE ||
	    flavor == MPI_WIN_FLAVOR_SHARED)) {
		if ((base = calloc(1, size > 0 ? (size_t)size : 1)) == NULL) {
			err = MPI_ERR_NO_MEM;
			why = "out of memory for the window";
		} else
			w->alloc = 1;
	}
	/* The window's own communicator, the same group in the same order;
	 * an argument error anywhere fails every member. */
	rc = ft__mpi_comm_split(comm, 0, comm->rank, err, why, call, &wc);
	if (rc != MPI_SUCCESS) {
		free(both);
		if (w != NULL) {
			w->base = base;
			win_release(w);
		}
		return rc;
	}
	ft__mpi_comm_hide(wc);
	/* Its errors come back here, for the window's handler. */
	wc->errh = MPI_ERRORS_RETURN;
	w->magic = FT_WIN_MAGIC;
	w->comm = wc;
	w->rank = wc->rank;
	w->size = n;
	w->flavor = flavor;
	w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : base;
	w->wsize = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
	w->disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit;
	w->errh = MPI_ERRORS_ARE_FATAL;
	w->excl = -1;
	w->opstail = &w->ops;
	w->intail = &w->in;
	w->repliestail = &w->replies;
	snprintf(w->name, sizeof(w->name), "window");
	/* Every member learns the others' sizes and units. */
	both[2 * w->rank] = w->wsize;
	both[2 * w->rank + 1] = w->disp_unit;
	rc = PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, both, 2,
	    MPI_AINT, wc);
	for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
		w->sizes[i] = both[2 * i];
		w->units[i] = (int)both[2 * i + 1];
	}
	free(both);
	if (rc != MPI_SUCCESS) {
		win_release(w);
		ft__mpi_comm_drop_hidden(wc);
		return ft__mpi_err(comm, rc, call, "the members could not "
		    "exchange their windows' sizes");
	}
	if (info != MPI_INFO_NULL && PMPI_Info_dup(info, &w->info) !=
	    MPI_SUCCESS)
		w->info = MPI_INFO_NULL;
	if (ft__mpi_hset_add(&wins, w) != 0) {
		win_release(w);
		ft__mpi_comm_drop_hidden(wc);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	w->next = first;
	first = w;
	if (baseptr != NULL)
		*(void **)baseptr = w->base;
	*win = w;
	return MPI_SUCCESS;
}

int
PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
    MPI_Comm comm, MPI_Win *win)
{
	return win_make("MPI_Win_create", comm, MPI_WIN_FLAVOR_CREATE, base,
	    size, disp_unit, info, NULL, win);
}

int
PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
    MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return win_make("MPI_Win_allocate", comm, MPI_WIN_FLAVOR_ALLOCATE,
	    NULL, size, disp_unit, info, baseptr, win);
}

/*
 * ft's processes share no memory: a shared window is an allocated one,
 * and MPI_Win_shared_query gives only the caller's own segment.
 */
int
PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
    MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return win_make("MPI_Win_allocate_shared", comm,
	    MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, baseptr, win);
}

int
PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
    void *baseptr)
{
	static const char call[] = "MPI_Win_shared_query";
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (win->flavor != MPI_WIN_FLAVOR_SHARED)
		return ft__mpi_win_err(win, MPI_ERR_RMA_FLAVOR, call,
		    "not a window of MPI_Win_allocate_shared");
	if (size == NULL || disp_unit == NULL || baseptr == NULL)
		return ft__mpi_win_err(win, MPI_ERR_ARG, call, "NULL argument");
	if (rank != MPI_PROC_NULL && (rank < 0 || rank >= win->size))
		return ft__mpi_win_err(win, MPI_ERR_RANK, call,
		    "rank %d out of range", rank);
	if (rank != MPI_PROC_NULL && rank != win->rank)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SHARED, call,
		    "ft's processes share no memory: only the caller's own "
		    "segment (rank %d) can be queried", win->rank);
	*size = win->wsize;
	*disp_unit = win->disp_unit;
	*(void **)baseptr = win->base;
	return MPI_SUCCESS;
}

int
PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	return win_make("MPI_Win_create_dynamic", comm, MPI_WIN_FLAVOR_DYNAMIC,
	    NULL, 0, 1, info, NULL, win);
}

int
PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	static const char call[] = "MPI_Win_attach";
	struct ft_rma_region *nr;
	uintptr_t b = (uintptr_t)base;
	int rc, i, cap;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return ft__mpi_win_err(win, MPI_ERR_RMA_FLAVOR, call,
		    "not a window of MPI_Win_create_dynamic");
	if (size < 0)
		return ft__mpi_win_err(win, MPI_ERR_SIZE, call,
		    "negative size");
	if (base == NULL && size > 0)
		return ft__mpi_win_err(win, MPI_ERR_BASE, call, "NULL base");
	for (i = 0; i < win->nregions; i++)
		if (b < win->regions[i].base + win->regions[i].size &&
		    win->regions[i].base < b + (size_t)size)
			return ft__mpi_win_err(win, MPI_ERR_RMA_ATTACH, call,
			    "memory overlaps a region already attached");
	if (win->nregions == win->capregions) {
		cap = win->capregions == 0 ? 4 : win->capregions * 2;
		if ((nr = reallocarray(win->regions, (size_t)cap,
		    sizeof(*nr))) == NULL)
			return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
			    "out of memory");
		win->regions = nr;
		win->capregions = cap;
	}
	win->regions[win->nregions].base = b;
	win->regions[win->nregions++].size = (size_t)size;
	return MPI_SUCCESS;
}

int
PMPI_Win_detach(MPI_Win win, const void *base)
{
	static const char call[] = "MPI_Win_detach";
	int rc, i;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return ft__mpi_win_err(win, MPI_ERR_RMA_FLAVOR, call,
		    "not a window of MPI_Win_create_dynamic");
	for (i = 0; i < win->nregions; i++)
		if (win->regions[i].base == (uintptr_t)base) {
			win->regions[i] = win->regions[--win->nregions];
			return MPI_SUCCESS;
		}
	return ft__mpi_win_err(win, MPI_ERR_RMA_ATTACH, call,
	    "no region attached at this address");
}

/*
 * Collective: once every member is here, no operation on the window is
 * pending anywhere (each closed its epochs, whose ends waited for
 * remote completion), so the barrier is the last traffic.
 */
int
PMPI_Win_free(MPI_Win *winp)
{
	static const char call[] = "MPI_Win_free";
	struct ft_mpi_win **pp;
	MPI_Win win;
	int rc, failed;

	FT_MPI_CHECK_INIT(call);
	if (winp == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL argument");
	if ((rc = ft__mpi_win_check(*winp, call)) != MPI_SUCCESS)
		return rc;
	win = *winp;
	if (win->nlocked > 0 || win->lock_all || win->naccess != 0 ||
	    win->exposed != 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "an epoch is still open (a lock, or a PSCW epoch)");
	if ((rc = ft__mpi_rma_local(win, call, -1)) != MPI_SUCCESS)
		return rc;
	if ((rc = ft__mpi_rma_flush_sent(win, call)) != MPI_SUCCESS)
		return rc;
	/* ULFM: a member is dead; the window goes here all the same, and
	 * the call says so. */
	if ((rc = PMPI_Barrier(win->comm)) != MPI_SUCCESS &&
	    (!ft__mpi.ulfm || rc == MPI_ERR_NO_MEM))
		return ft__mpi_win_err(win, rc, call, "the barrier failed");
	failed = rc;
	if ((rc = ft__mpi_attrs_delete(FT_ATTR_WIN, win, &win->attrs)) !=
	    MPI_SUCCESS)
		return ft__mpi_win_err(win, rc, call,
		    "an attribute's delete function failed");
	ft__mpi_rma_drop(win);
	for (pp = &first; *pp != NULL; pp = &(*pp)->next)
		if (*pp == win) {
			*pp = win->next;
			break;
		}
	ft__mpi_hset_del(&wins, win);
	ft__mpi_fint_forget(FT_FINT_WIN, win);
	ft__mpi_comm_drop_hidden(win->comm);
	win_release(win);
	*winp = MPI_WIN_NULL;
	if (failed != MPI_SUCCESS)
		return ft__mpi_err(MPI_COMM_NULL, failed, call, "a member of "
		    "the window has failed; the window is freed here");
	return MPI_SUCCESS;
}

int
PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, "MPI_Win_get_group")) !=
	    MPI_SUCCESS)
		return rc;
	return ft__mpi_comm_group_of(win->comm, "MPI_Win_get_group",
	    win->comm->world, win->size, group);
}

int
PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
	static const char call[] = "MPI_Win_set_info";
	MPI_Info dup;
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info))
		return ft__mpi_win_err(win, MPI_ERR_INFO, call,
		    "invalid info object");
	/* No hint changes what ft does; they are kept to be read back. */
	dup = MPI_INFO_NULL;
	if (info != MPI_INFO_NULL && PMPI_Info_dup(info, &dup) !=
	    MPI_SUCCESS)
		return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
		    "out of memory");
	if (win->info != MPI_INFO_NULL)
		(void)PMPI_Info_free(&win->info);
	win->info = dup;
	return MPI_SUCCESS;
}

int
PMPI_Win_get_info(MPI_Win win, MPI_Info *info)
{
	static const char call[] = "MPI_Win_get_info";
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (info == NULL)
		return ft__mpi_win_err(win, MPI_ERR_ARG, call, "NULL info");
	rc = win->info != MPI_INFO_NULL ? PMPI_Info_dup(win->info, info) :
	    PMPI_Info_create(info);
	if (rc != MPI_SUCCESS)
		return ft__mpi_win_err(win, rc, call, "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Win_set_name(MPI_Win win, const char *name)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, "MPI_Win_set_name")) != MPI_SUCCESS)
		return rc;
	if (name == NULL)
		return ft__mpi_win_err(win, MPI_ERR_ARG, "MPI_Win_set_name",
		    "NULL name");
	snprintf(win->name, sizeof(win->name), "%s", name);
	return MPI_SUCCESS;
}

int
PMPI_Win_get_name(MPI_Win win, char *name, int *len)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, "MPI_Win_get_name")) != MPI_SUCCESS)
		return rc;
	if (name == NULL || len == NULL)
		return ft__mpi_win_err(win, MPI_ERR_ARG, "MPI_Win_get_name",
		    "NULL argument");
	snprintf(name, MPI_MAX_OBJECT_NAME, "%s", win->name);
	*len = (int)strlen(name);
	return MPI_SUCCESS;
}

/* Attributes --------------------------------------------------------- */

int
ft_mpi_win_dup_fn(MPI_Win win, int keyval, void *extra, void *in, void *out,
    int *flag)
{
	(void)win;
	(void)keyval;
	(void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

int
PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy,
    MPI_Win_delete_attr_function *del, int *keyval, void *extra)
{
	static const char call[] = "MPI_Win_create_keyval";

	FT_MPI_CHECK_INIT(call);
	if (keyval == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL keyval");
	if (ft__mpi_keyval_new(FT_ATTR_WIN, &(struct ft_attr_fns){
	    .win_copy = copy, .win_del = del }, extra, keyval) != 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
		    "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Win_free_keyval(int *keyval)
{
	static const char call[] = "MPI_Win_free_keyval";

	FT_MPI_CHECK_INIT(call);
	if (keyval == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL keyval");
	if (ft__mpi_keyval_free(FT_ATTR_WIN, *keyval) != 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL, call,
		    "invalid keyval %d", *keyval);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

static int
check_attr(MPI_Win win, const char *call, int keyval)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (!ft__mpi_keyval_ok(FT_ATTR_WIN, keyval))
		return ft__mpi_win_err(win, MPI_ERR_KEYVAL, call,
		    "invalid keyval %d", keyval);
	return MPI_SUCCESS;
}

int
PMPI_Win_set_attr(MPI_Win win, int keyval, void *val)
{
	static const char call[] = "MPI_Win_set_attr";
	int rc;

	if ((rc = check_attr(win, call, keyval)) != MPI_SUCCESS)
		return rc;
	if ((rc = ft__mpi_attr_set(FT_ATTR_WIN, win, &win->attrs, keyval,
	    val)) != MPI_SUCCESS)
		return ft__mpi_win_err(win, rc, call, "%s",
		    rc == MPI_ERR_NO_MEM ? "out of memory" :
		    "the delete function failed");
	return MPI_SUCCESS;
}

/*
 * The predefined keys give pointers, as the standard says: the base
 * itself, and pointers to the size, unit, flavor and model.
 */
int
PMPI_Win_get_attr(MPI_Win win, int keyval, void *val, int *flag)
{
	static const char call[] = "MPI_Win_get_attr";
	struct ft_mpi_attr *a;
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (val == NULL || flag == NULL)
		return ft__mpi_win_err(win, MPI_ERR_ARG, call,
		    "NULL argument");
	*flag = 1;
	switch (keyval) {
	case MPI_WIN_BASE:
		*(void **)val = win->base;
		return MPI_SUCCESS;
	case MPI_WIN_SIZE:
		win->a_size = win->wsize;
		*(void **)val = &win->a_size;
		return MPI_SUCCESS;
	case MPI_WIN_DISP_UNIT:
		win->a_unit = win->disp_unit;
		*(void **)val = &win->a_unit;
		return MPI_SUCCESS;
	case MPI_WIN_CREATE_FLAVOR:
		win->a_flavor = win->flavor;
		*(void **)val = &win->a_flavor;
		return MPI_SUCCESS;
	case MPI_WIN_MODEL:
		win->a_model = MPI_WIN_UNIFIED;
		*(void **)val = &win->a_model;
		return MPI_SUCCESS;
	}
	*flag = 0;
	if (!ft__mpi_keyval_ok(FT_ATTR_WIN, keyval))
		return ft__mpi_win_err(win, MPI_ERR_KEYVAL, call,
		    "invalid keyval %d", keyval);
	if ((a = ft__mpi_attr_find(win->attrs, keyval)) != NULL) {
		*flag = 1;
		*(void **)val = a->val;
	}
	return MPI_SUCCESS;
}

int
PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
	static const char call[] = "MPI_Win_delete_attr";
	int rc;

	if ((rc = check_attr(win, call, keyval)) != MPI_SUCCESS)
		return rc;
	if ((rc = ft__mpi_attr_delete(FT_ATTR_WIN, win, &win->attrs,
	    keyval)) != MPI_SUCCESS)
		return ft__mpi_win_err(win, rc, call,
		    "the delete function failed");
	return MPI_SUCCESS;
}

/* Synchronization ---------------------------------------------------- */

static int
check_sync(MPI_Win win, const char *call, int assert)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if ((assert & ~ASSERTS) != 0)
		return ft__mpi_win_err(win, MPI_ERR_ASSERT, call,
		    "unknown assertion bits %#x", assert & ~ASSERTS);
	return MPI_SUCCESS;
}

/* Report a target's error that an acknowledgement brought, once. */
static int
target_err(MPI_Win win, const char *call)
{
	int32_t e = win->err;

	if (e == 0)
		return MPI_SUCCESS;
	win->err = 0;
	return ft__mpi_win_err(win, e, call, "%s", e == MPI_ERR_RMA_RANGE ?
	    "an operation of the epoch fell outside the target's window "
	    "(it was not applied)" : "the target refused an operation");
}

/*
 * Collective: every operation of the epoch that ends is complete at
 * its target (each origin flushes what it sent), then all meet.
 */
int
PMPI_Win_fence(int assert, MPI_Win win)
{
	static const char call[] = "MPI_Win_fence";
	int rc;

	if ((rc = check_sync(win, call, assert)) != MPI_SUCCESS)
		return rc;
	if (win->nlocked > 0 || win->lock_all || win->naccess != 0 ||
	    win->exposed != 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "a lock or PSCW epoch is open");
	if ((rc = ft__mpi_rma_local(win, call, -1)) != MPI_SUCCESS ||
	    (rc = ft__mpi_rma_flush_sent(win, call)) != MPI_SUCCESS)
		return rc;
	if ((rc = PMPI_Barrier(win->comm)) != MPI_SUCCESS)
		return ft__mpi_win_err(win, rc, call, "the barrier failed%s",
		    rc == MPIX_ERR_PROC_FAILED ? ": a member has failed" : "");
	win->fence = (assert & MPI_MODE_NOSUCCEED) == 0;
	return target_err(win, call);
}

/* The ranks of win of group's members, into the flags of v. */
static int
group_flags(MPI_Win win, const char *call, MPI_Group group, int *v, int *n)
{
	int i, j;

	if (!ft__mpi_group_ok(group))
		return ft__mpi_win_err(win, MPI_ERR_GROUP, call,
		    "invalid group");
	*n = 0;
	for (i = 0; i < group->size; i++) {
		for (j = 0; j < win->size; j++)
			if (win->comm->world[j] == group->world[i])
				break;
		if (j == win->size)
			return ft__mpi_win_err(win, MPI_ERR_GROUP, call,
			    "member %d of the group is not in the window", i);
		v[j] = 1;
		(*n)++;
	}
	return MPI_SUCCESS;
}

int
PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	static const char call[] = "MPI_Win_post";
	int *v, rc, n, i;

	if ((rc = check_sync(win, call, assert)) != MPI_SUCCESS)
		return rc;
	if (win->exposed != 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "an exposure epoch is already open");
	if ((v = calloc((size_t)win->size, sizeof(*v))) == NULL)
		return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
		    "out of memory");
	if ((rc = group_flags(win, call, group, v, &n)) == MPI_SUCCESS) {
		for (i = 0; i < win->size && rc == MPI_SUCCESS; i++)
			if (v[i])
				rc = ft__mpi_rma_ctl(win, call, FT_RMA_POST, i,
				    0, 0);
		if (rc == MPI_SUCCESS) {
			win->exposed = n > 0 ? n : -1;
			memcpy(win->exposing, v, (size_t)win->size *
			    sizeof(*v));
		}
	}
	free(v);
	return rc;
}

/* Access may begin at once: each target's POST is awaited at the
 * first operation to it, or at MPI_Win_complete. */
int
PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	static const char call[] = "MPI_Win_start";
	int rc, n;

	if ((rc = check_sync(win, call, assert)) != MPI_SUCCESS)
		return rc;
	if (win->naccess != 0 || win->nlocked > 0 || win->lock_all)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "an access epoch is already open");
	memset(win->access, 0, (size_t)win->size * sizeof(*win->access));
	memset(win->posted, 0, (size_t)win->size * sizeof(*win->posted));
	if ((rc = group_flags(win, call, group, win->access, &n)) !=
	    MPI_SUCCESS) {
		memset(win->access, 0, (size_t)win->size *
		    sizeof(*win->access));
		return rc;
	}
	win->naccess = n > 0 ? n : -1;
	return MPI_SUCCESS;
}

int
PMPI_Win_complete(MPI_Win win)
{
	static const char call[] = "MPI_Win_complete";
	int rc = MPI_SUCCESS, i;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (win->naccess == 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "no access epoch (MPI_Win_start) is open");
	for (i = 0; i < win->size && rc == MPI_SUCCESS; i++)
		if (win->access[i])
			rc = ft__mpi_rma_await_post(win, call, i);
	if (rc == MPI_SUCCESS)
		rc = ft__mpi_rma_local(win, call, -1);
	for (i = 0; i < win->size && rc == MPI_SUCCESS; i++)
		if (win->access[i])
			rc = ft__mpi_rma_ctl(win, call, FT_RMA_COMPLETE, i, 0,
			    0);
	memset(win->access, 0, (size_t)win->size * sizeof(*win->access));
	win->naccess = 0;
	return rc;
}

/* ULFM: is an origin of the exposure epoch dead? */
static int
exposer_dead(MPI_Win win)
{
	int i;

	for (i = 0; ft__mpi.ulfm && i < win->size; i++)
		if (win->exposing[i] && ft__mpi_rma_dead(win, i))
			return 1;
	return 0;
}

static int
all_completed(void *arg)
{
	MPI_Win win = arg;

	return win->exposed < 0 || win->completes >= win->exposed ||
	    exposer_dead(win);
}

static int
end_exposure(MPI_Win win, const char *call)
{
	int dead = win->exposed > 0 && win->completes < win->exposed;

	if (win->exposed > 0)
		win->completes = dead ? 0 : win->completes - win->exposed;
	win->exposed = 0;
	memset(win->exposing, 0, (size_t)win->size * sizeof(*win->exposing));
	if (dead)
		return ft__mpi_win_err(win, MPIX_ERR_PROC_FAILED, call,
		    "an origin of the exposure epoch has failed");
	return target_err(win, call);
}

int
PMPI_Win_wait(MPI_Win win)
{
	static const char call[] = "MPI_Win_wait";
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (win->exposed == 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "no exposure epoch (MPI_Win_post) is open");
	ft__mpi_wait(all_completed, win);
	return end_exposure(win, call);
}

int
PMPI_Win_test(MPI_Win win, int *flag)
{
	static const char call[] = "MPI_Win_test";
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (flag == NULL)
		return ft__mpi_win_err(win, MPI_ERR_ARG, call, "NULL flag");
	if (win->exposed == 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "no exposure epoch (MPI_Win_post) is open");
	if (!all_completed(win))
		ft__mpi_poll();
	if (!(*flag = all_completed(win)))
		return MPI_SUCCESS;
	return end_exposure(win, call);
}

static int
check_target(MPI_Win win, const char *call, int rank)
{
	if (rank < 0 || rank >= win->size)
		return ft__mpi_win_err(win, MPI_ERR_RANK, call,
		    "rank %d out of range (the window has %d)", rank,
		    win->size);
	return MPI_SUCCESS;
}

int
PMPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
	static const char call[] = "MPI_Win_lock";
	int rc;

	if ((rc = check_sync(win, call, assert)) != MPI_SUCCESS)
		return rc;
	if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE)
		return ft__mpi_win_err(win, MPI_ERR_LOCKTYPE, call,
		    "lock type %d is neither MPI_LOCK_SHARED nor "
		    "MPI_LOCK_EXCLUSIVE", type);
	if (rank == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if ((rc = check_target(win, call, rank)) != MPI_SUCCESS)
		return rc;
	if (win->locked[rank] != FT_WIN_LOCK_NONE || win->lock_all)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "rank %d is already locked by this process", rank);
	if (win->naccess != 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "a PSCW access epoch is open");
	if ((assert & MPI_MODE_NOCHECK) == 0 && (rc = ft__mpi_rma_ctl(win,
	    call, FT_RMA_LOCK, rank, type, 1)) != MPI_SUCCESS)
		return rc;
	win->locked[rank] = (assert & MPI_MODE_NOCHECK) != 0 ?
	    FT_WIN_LOCK_NOCHECK : type == MPI_LOCK_SHARED ?
	    FT_WIN_LOCK_SHARED : FT_WIN_LOCK_EXCL;
	win->nlocked++;
	return MPI_SUCCESS;
}

int
PMPI_Win_unlock(int rank, MPI_Win win)
{
	static const char call[] = "MPI_Win_unlock";
	int rc, nocheck;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (rank == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if ((rc = check_target(win, call, rank)) != MPI_SUCCESS)
		return rc;
	if (win->locked[rank] == FT_WIN_LOCK_NONE)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "rank %d is not locked by this process", rank);
	nocheck = win->locked[rank] == FT_WIN_LOCK_NOCHECK;
	win->locked[rank] = FT_WIN_LOCK_NONE;
	win->nlocked--;
	if ((rc = ft__mpi_rma_local(win, call, rank)) != MPI_SUCCESS)
		return rc;
	/* Without a lock taken, the target still acknowledges the ops. */
	if (nocheck && win->sent[rank] == 0)
		return MPI_SUCCESS;
	if ((rc = ft__mpi_rma_ctl(win, call, nocheck ? FT_RMA_FLUSH :
	    FT_RMA_UNLOCK, rank, 0, 1)) != MPI_SUCCESS)
		return rc;
	return target_err(win, call);
}

int
PMPI_Win_lock_all(int assert, MPI_Win win)
{
	static const char call[] = "MPI_Win_lock_all";
	MPI_Errhandler eh;
	int rc, i, *live;

	if ((rc = check_sync(win, call, assert)) != MPI_SUCCESS)
		return rc;
	if (win->lock_all || win->nlocked > 0 || win->naccess != 0)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "an access epoch is already open");
	if ((assert & MPI_MODE_NOCHECK) == 0 && (rc = ft__mpi_rma_ctl_all(win,
	    call, FT_RMA_LOCK, MPI_LOCK_SHARED, NULL)) != MPI_SUCCESS) {
		/* ULFM: give back the locks the live targets granted. */
		if (ft__mpi.ulfm && (live = calloc((size_t)win->size,
		    sizeof(*live))) != NULL) {
			for (i = 0; i < win->size; i++)
				live[i] = !ft__mpi_rma_dead(win, i);
			eh = win->errh;
			win->errh = MPI_ERRORS_RETURN;
			(void)ft__mpi_rma_ctl_all(win, call, FT_RMA_UNLOCK, 0,
			    live);
			win->errh = eh;
			win->err = 0;
			free(live);
		}
		return rc;
	}
	win->lock_all = (assert & MPI_MODE_NOCHECK) != 0 ?
	    FT_WIN_LOCK_NOCHECK : FT_WIN_LOCK_SHARED;
	return MPI_SUCCESS;
}

int
PMPI_Win_unlock_all(MPI_Win win)
{
	static const char call[] = "MPI_Win_unlock_all";
	int rc, nocheck;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (!win->lock_all)
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "no MPI_Win_lock_all epoch is open");
	nocheck = win->lock_all == FT_WIN_LOCK_NOCHECK;
	win->lock_all = 0;
	if ((rc = ft__mpi_rma_local(win, call, -1)) != MPI_SUCCESS)
		return rc;
	if (nocheck)
		rc = ft__mpi_rma_flush_sent(win, call);
	else
		rc = ft__mpi_rma_ctl_all(win, call, FT_RMA_UNLOCK, 0, NULL);
	if (rc != MPI_SUCCESS)
		return rc;
	return target_err(win, call);
}

/* Flushes belong to passive-target epochs. */
static int
check_passive(MPI_Win win, const char *call, int rank)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (rank != -1 && (rc = check_target(win, call, rank)) != MPI_SUCCESS)
		return rc;
	if (!win->lock_all && (rank == -1 ? win->nlocked == 0 :
	    win->locked[rank] == FT_WIN_LOCK_NONE))
		return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
		    "no passive-target epoch is open%s", rank == -1 ? "" :
		    " with this rank");
	return MPI_SUCCESS;
}

int
PMPI_Win_flush(int rank, MPI_Win win)
{
	static const char call[] = "MPI_Win_flush";
	int rc;

	if (rank == MPI_PROC_NULL)
		return ft__mpi_win_check(win, call);
	if ((rc = check_passive(win, call, rank)) != MPI_SUCCESS ||
	    (rc = ft__mpi_rma_local(win, call, rank)) != MPI_SUCCESS)
		return rc;
	if (win->sent[rank] > 0 && (rc = ft__mpi_rma_ctl(win, call,
	    FT_RMA_FLUSH, rank, 0, 1)) != MPI_SUCCESS)
		return rc;
	return target_err(win, call);
}

int
PMPI_Win_flush_all(MPI_Win win)
{
	static const char call[] = "MPI_Win_flush_all";
	int rc;

	if ((rc = check_passive(win, call, -1)) != MPI_SUCCESS ||
	    (rc = ft__mpi_rma_local(win, call, -1)) != MPI_SUCCESS ||
	    (rc = ft__mpi_rma_flush_sent(win, call)) != MPI_SUCCESS)
		return rc;
	return target_err(win, call);
}

int
PMPI_Win_flush_local(int rank, MPI_Win win)
{
	static const char call[] = "MPI_Win_flush_local";
	int rc;

	if (rank == MPI_PROC_NULL)
		return ft__mpi_win_check(win, call);
	if ((rc = check_passive(win, call, rank)) != MPI_SUCCESS)
		return rc;
	return ft__mpi_rma_local(win, call, rank);
}

int
PMPI_Win_flush_local_all(MPI_Win win)
{
	static const char call[] = "MPI_Win_flush_local_all";
	int rc;

	if ((rc = check_passive(win, call, -1)) != MPI_SUCCESS)
		return rc;
	return ft__mpi_rma_local(win, call, -1);
}

/* The unified model: the window is the memory; a barrier for the
 * compiler and the processor, and progress for the others' requests. */
int
PMPI_Win_sync(MPI_Win win)
{
	int rc;

	if ((rc = ft__mpi_win_check(win, "MPI_Win_sync")) != MPI_SUCCESS)
		return rc;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ft__mpi_poll();
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Win_create = PMPI_Win_create
#pragma weak MPI_Win_allocate = PMPI_Win_allocate
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
#pragma weak MPI_Win_attach = PMPI_Win_attach
#pragma weak MPI_Win_detach = PMPI_Win_detach
#pragma weak MPI_Win_free = PMPI_Win_free
#pragma weak MPI_Win_get_group = PMPI_Win_get_group
#pragma weak MPI_Win_set_info = PMPI_Win_set_info
#pragma weak MPI_Win_get_info = PMPI_Win_get_info
#pragma weak MPI_Win_set_name = PMPI_Win_set_name
#pragma weak MPI_Win_get_name = PMPI_Win_get_name
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
#pragma weak MPI_Win_fence = PMPI_Win_fence
#pragma weak MPI_Win_post = PMPI_Win_post
#pragma weak MPI_Win_start = PMPI_Win_start
#pragma weak MPI_Win_complete = PMPI_Win_complete
#pragma weak MPI_Win_wait = PMPI_Win_wait
#pragma weak MPI_Win_test = PMPI_Win_test
#pragma weak MPI_Win_lock = PMPI_Win_lock
#pragma weak MPI_Win_unlock = PMPI_Win_unlock
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
#pragma weak MPI_Win_flush = PMPI_Win_flush
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
#pragma weak MPI_Win_sync = PMPI_Win_sync
