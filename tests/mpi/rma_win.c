/* SPDX-License-Identifier: ISC */
/*
 * rma_win: windows as objects (MPI-3.1 11.2, 6.7.3, 8.3.2) and their
 * errors (11.8).  The predefined attributes of each flavor, user
 * keyvals with a delete function called at MPI_Win_free, names, info,
 * the group, MPI_Win_shared_query; a dynamic window with memory
 * attached, written with MPI_Put at an address sent by the target, then
 * detached.  Errors return their class through the window's handler
 * (MPI_ERRORS_RETURN, then a user handler): a window used after free
 * (MPI_ERR_WIN), a displacement past the window (MPI_ERR_RMA_RANGE), an
 * operation outside an epoch, an unlock without lock, a lock twice
 * (MPI_ERR_RMA_SYNC), a bad lock type (MPI_ERR_LOCKTYPE), a bad
 * assertion (MPI_ERR_ASSERT), a rank out of range (MPI_ERR_RANK),
 * attaching to a window that is not dynamic (MPI_ERR_RMA_FLAVOR), and
 * a dynamic window's target address attached nowhere (MPI_ERR_RMA_RANGE
 * at the flush that completes it).  MPI_Win_c2f and MPI_Win_f2c.
 */
#define NAME	"rma_win"
#include "mtest.h"

static int	deletes, handled, last_code;

static int
del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
	(void)win;
	(void)keyval;
	(void)extra;
	if (val == (void *)&deletes)
		deletes++;
	return MPI_SUCCESS;
}

static void
handler(MPI_Win *win, int *code, ...)
{
	(void)win;
	handled++;
	last_code = *code;
}

static void
attrs(MPI_Win win, void *base, MPI_Aint size, int unit, int flavor)
{
	void *v;
	MPI_Aint *sz;
	int *u, *f, *m, flag;

	ok(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag), "get BASE");
	if (!flag || v != base)
		fail("flavor %d: MPI_WIN_BASE %p, want %p", flavor, v, base);
	ok(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag), "get SIZE");
	if (!flag || *sz != size)
		fail("flavor %d: MPI_WIN_SIZE %td, want %td", flavor, *sz,
		    size);
	ok(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &u, &flag), "get UNIT");
	if (!flag || *u != unit)
		fail("flavor %d: MPI_WIN_DISP_UNIT %d, want %d", flavor, *u,
		    unit);
	ok(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &flag),
	    "get FLAVOR");
	if (!flag || *f != flavor)
		fail("MPI_WIN_CREATE_FLAVOR %d, want %d", *f, flavor);
	ok(MPI_Win_get_attr(win, MPI_WIN_MODEL, &m, &flag), "get MODEL");
	if (!flag || *m != MPI_WIN_UNIFIED)
		fail("MPI_WIN_MODEL %d, want MPI_WIN_UNIFIED", *m);
}

int
main(int argc, char **argv)
{
	MPI_Win win, dwin, freed;
	MPI_Group g, wg;
	MPI_Info info, got;
	MPI_Errhandler eh;
	MPI_Aint a, qsize;
	char name[MPI_MAX_OBJECT_NAME], val[64];
	int buf[8], *abuf, *sbuf, dyn[4], key, flag, len, cmp, v = 1, qunit;
	MPI_Fint fw;
	int *big;
	void *qbase;

	init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* Objects. */
	MPI_Info_create(&info);
	MPI_Info_set(info, "no_locks", "false");
	ok(MPI_Win_create(buf, sizeof(buf), 4, info, MPI_COMM_WORLD, &win),
	    "Win_create");
	attrs(win, buf, sizeof(buf), 4, MPI_WIN_FLAVOR_CREATE);
	ok(MPI_Win_get_info(win, &got), "Win_get_info");
	ok(MPI_Info_get(got, "no_locks", sizeof(val) - 1, val, &flag),
	    "Info_get");
	if (!flag || strcmp(val, "false") != 0)
		fail("Win_get_info lost no_locks");
	MPI_Info_free(&got);
	MPI_Info_free(&info);
	ok(MPI_Win_set_name(win, "the window"), "Win_set_name");
	ok(MPI_Win_get_name(win, name, &len), "Win_get_name");
	if (strcmp(name, "the window") != 0 || len != 10)
		fail("Win_get_name: '%s' (%d)", name, len);
	ok(MPI_Win_get_group(win, &g), "Win_get_group");
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_compare(g, wg, &cmp);
	if (cmp != MPI_IDENT)
		fail("Win_get_group: not the group of MPI_COMM_WORLD (%d)",
		    cmp);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	ok(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL),
	    "Win_create_keyval");
	ok(MPI_Win_set_attr(win, key, &deletes), "Win_set_attr");
	ok(MPI_Win_get_attr(win, key, &qbase, &flag), "Win_get_attr");
	if (!flag || qbase != &deletes)
		fail("Win_get_attr: wrong value");
	ok(MPI_Win_free_keyval(&key), "Win_free_keyval");
	if (key != MPI_KEYVAL_INVALID)
		fail("Win_free_keyval left the keyval");

	/* Errors through MPI_ERRORS_RETURN. */
	ok(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN),
	    "Win_set_errhandler");
	expect(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win),
	    MPI_ERR_RMA_SYNC, "Put outside an epoch");
	expect(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC, "unlock unlocked");
	expect(MPI_Win_lock(99, 0, 0, win), MPI_ERR_LOCKTYPE, "bad lock type");
	expect(MPI_Win_fence(1, win), MPI_ERR_ASSERT, "bad assertion");
	expect(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC, "flush unlocked");
	expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "complete, no start");
	expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "wait, no post");
	expect(MPI_Win_attach(win, dyn, sizeof(dyn)), MPI_ERR_RMA_FLAVOR,
	    "attach to a created window");
	expect(MPI_Win_shared_query(win, 0, &qsize, &qunit, &qbase),
	    MPI_ERR_RMA_FLAVOR, "shared_query of a created window");
	ok(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), "Win_lock");
	expect(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC,
	    "lock twice");
	expect(MPI_Put(&v, 1, MPI_INT, 0, 8, 1, MPI_INT, win),
	    MPI_ERR_RMA_RANGE, "Put past the window");
	expect(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win),
	    MPI_ERR_RMA_RANGE, "Put before the window");
	expect(MPI_Get(&v, 2, MPI_INT, 0, 7, 2, MPI_INT, win),
	    MPI_ERR_RMA_RANGE, "Get across the window's end");
	expect(MPI_Put(&v, 1, MPI_INT, nprocs, 0, 1, MPI_INT, win),
	    MPI_ERR_RANK, "Put to a rank out of range");
	expect(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL,
	    win), MPI_ERR_OP, "Accumulate with MPI_OP_NULL");
	expect(MPI_Put(&v, 1, MPI_INT, 0, 0, 2, MPI_INT, win), MPI_ERR_TYPE,
	    "Put of 1 int into 2");
	expect(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "free while locked");
	ok(MPI_Win_unlock(0, win), "Win_unlock");
	/* A user handler sees the code. */
	ok(MPI_Win_create_errhandler(handler, &eh), "Win_create_errhandler");
	ok(MPI_Win_set_errhandler(win, eh), "Win_set_errhandler (user)");
	expect(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC, "unlock (user)");
	if (handled != 1 || last_code != MPI_ERR_RMA_SYNC)
		fail("the user handler ran %d times, code %d", handled,
		    last_code);
	MPI_Errhandler_free(&eh);
	fw = MPI_Win_c2f(win);
	if (fw == 0 || MPI_Win_f2c(fw) != win)
		fail("Win_c2f/f2c: %d does not convert back", fw);
	freed = win;
	ok(MPI_Win_free(&win), "Win_free");
	if (MPI_Win_f2c(fw) != MPI_WIN_NULL)
		fail("Win_f2c of a freed window is not MPI_WIN_NULL");
	if (deletes != 1)
		fail("the delete function ran %d times at Win_free", deletes);
	expect(MPI_Win_fence(0, freed), MPI_ERR_WIN, "fence on a freed "
	    "window");
	expect(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, freed), MPI_ERR_WIN,
	    "Put on a freed window");
	expect(MPI_Win_free(&freed), MPI_ERR_WIN, "free twice");

	/* Allocated and shared windows. */
	ok(MPI_Win_allocate(16, 2, MPI_INFO_NULL, MPI_COMM_WORLD, &abuf,
	    &win), "Win_allocate");
	attrs(win, abuf, 16, 2, MPI_WIN_FLAVOR_ALLOCATE);
	ok(MPI_Win_free(&win), "Win_free (allocate)");
	ok(MPI_Win_allocate_shared(32, 4, MPI_INFO_NULL, MPI_COMM_WORLD,
	    &sbuf, &win), "Win_allocate_shared");
	attrs(win, sbuf, 32, 4, MPI_WIN_FLAVOR_SHARED);
	ok(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN), "set_errhandler");
	ok(MPI_Win_shared_query(win, myrank, &qsize, &qunit, &qbase),
	    "Win_shared_query (own)");
	if (qsize != 32 || qunit != 4 || qbase != sbuf)
		fail("Win_shared_query: %td %d %p", qsize, qunit, qbase);
	if (nprocs > 1)
		expect(MPI_Win_shared_query(win, (myrank + 1) % nprocs,
		    &qsize, &qunit, &qbase), MPI_ERR_RMA_SHARED,
		    "Win_shared_query (another rank)");
	ok(MPI_Win_free(&win), "Win_free (shared)");
	expect(MPI_Win_create(buf, -1, 4, MPI_INFO_NULL, MPI_COMM_WORLD,
	    &win), MPI_ERR_SIZE, "Win_create with a negative size");
	expect(MPI_Win_create(buf, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD,
	    &win), MPI_ERR_DISP, "Win_create with unit 0");

	/* A dynamic window: rank r writes into r+1's attached memory. */
	ok(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin),
	    "Win_create_dynamic");
	attrs(dwin, NULL, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
	ok(MPI_Win_set_errhandler(dwin, MPI_ERRORS_RETURN), "set_errhandler");
	memset(dyn, 0, sizeof(dyn));
	ok(MPI_Win_attach(dwin, dyn, sizeof(dyn)), "Win_attach");
	expect(MPI_Win_attach(dwin, dyn + 1, sizeof(int)), MPI_ERR_RMA_ATTACH,
	    "attach overlapping memory");
	MPI_Get_address(dyn, &a);
	{
		MPI_Aint ra;
		int right = (myrank + 1) % nprocs, left = (myrank + nprocs -
		    1) % nprocs, w = 500 + myrank;

		MPI_Sendrecv(&a, 1, MPI_AINT, left, 0, &ra, 1, MPI_AINT, right,
		    0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		ok(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, dwin),
		    "lock (dynamic)");
		ok(MPI_Put(&w, 1, MPI_INT, right, ra + 2 * sizeof(int), 1,
		    MPI_INT, dwin), "Put (dynamic)");
		ok(MPI_Win_unlock(right, dwin), "unlock (dynamic)");
		/* An address attached nowhere: refused at the target. */
		ok(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, dwin),
		    "lock (dynamic, bad)");
		ok(MPI_Put(&w, 1, MPI_INT, right, ra + 64 * sizeof(int), 1,
		    MPI_INT, dwin), "Put (dynamic, unattached)");
		expect(MPI_Win_flush(right, dwin), MPI_ERR_RMA_RANGE,
		    "flush of a Put to unattached memory");
		/* The same of 80 KiB, whose data travels on its own. */
		big = xzalloc(20000 * sizeof(int));
		ok(MPI_Put(big, 20000, MPI_INT, right, ra + 4 * sizeof(int),
		    20000, MPI_INT, dwin), "Put of 80 KiB (dynamic, too long)");
		expect(MPI_Win_flush(right, dwin), MPI_ERR_RMA_RANGE,
		    "flush of an 80 KiB Put past attached memory");
		free(big);
		ok(MPI_Win_unlock(right, dwin), "unlock (dynamic, bad)");
		MPI_Barrier(MPI_COMM_WORLD);
		if (dyn[2] != 500 + left || dyn[0] != 0 || dyn[1] != 0 ||
		    dyn[3] != 0)
			fail("dynamic: %d %d %d %d, want 0 0 %d 0", dyn[0],
			    dyn[1], dyn[2], dyn[3], 500 + left);
	}
	ok(MPI_Win_detach(dwin, dyn), "Win_detach");
	expect(MPI_Win_detach(dwin, dyn), MPI_ERR_RMA_ATTACH, "detach twice");
	ok(MPI_Win_free(&dwin), "Win_free (dynamic)");
	return finish();
}
