/* SPDX-License-Identifier: ISC */
/*
 * Communicators: the predefined ones, the registry behind handle checks,
 * context-id agreement, dup, split, create, free, compare, names, and
 * attributes with their keyvals.  The one collective step these need,
 * an all-gather among the members, is done here on the parent's
 * collective context (ctx + 1) with tags of comm.c's own, so that
 * communicators do not depend on lib/mpi/coll.c.
 *
 * Every collective creation call first exchanges each member's error
 * class for its own arguments, so that a bad argument on one rank
 * makes every rank fail together rather than leaving the others
 * waiting.
 */
#include <stdio.h>
#include <stdlib.h>

#include "attr.h"

#ifdef MPI_ERR_KEYVAL
#define ERR_KEYVAL		MPI_ERR_KEYVAL
#else
#define ERR_KEYVAL		MPI_ERR_ARG
#endif

/* Tags of the agreement traffic on a parent's collective context. */
#define TAG_GATHER		(FT_MPI_COMM_TAG_BASE + 0)
#define TAG_BCAST		(FT_MPI_COMM_TAG_BASE + 1)
/* MPI_Comm_create_group puts the application's tag in the low bits. */
#define TAG_GROUP_GATHER	(FT_MPI_COMM_TAG_BASE + 0x10000000)
#define TAG_GROUP_BCAST		(FT_MPI_COMM_TAG_BASE + 0x20000000)
#define TAG_GROUP_MASK		0x0fffffff

/*
 * Context ids: world 0, self 2, then agreed ones, below those the
 * launcher hands out for intercommunicators between worlds
 * (FT_WIRE_CTX_JOB) and those of MPI_Comm_idup; never reused.
 */
#define CTX_FIRST		4
#define CTX_LAST		(FT_WIRE_CTX_JOB - 2)

/* Words of an agreement row: the error class, the next free context. */
#define ROW_ERR			0
#define ROW_CTX			1
#define ROW_EXTRA		2

struct ft_mpi_comm ft_mpi_comm_world = {
	.ctx = 0, .errh = &ft_mpi_errors_are_fatal, .name = "MPI_COMM_WORLD",
	.predefined = 1,
};
struct ft_mpi_comm ft_mpi_comm_self = {
	.ctx = 2, .errh = &ft_mpi_errors_are_fatal, .name = "MPI_COMM_SELF",
	.predefined = 1,
};

/*
 * The state of this file: the live user communicators, those freed
 * while an operation still holds them, the hidden local communicators
 * of intercommunicators, and the next free context id.  The keyvals
 * are attr.c's.
 */
static struct {
	struct ft_mpi_hset	 live;
	struct ft_mpi_hset	 held;
	struct ft_mpi_hset	 hidden;
	uint32_t		 next_ctx;
} cs = { .next_ctx = CTX_FIRST };

/* Address sets ------------------------------------------------------- */

static size_t
hslot(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static int
hset_grow(struct ft_mpi_hset *s, int map)
{
	const void **old = s->slot, **ns;
	uint32_t *oldv = s->val, *nv = NULL;
	size_t oldcap = s->cap, cap = s->cap == 0 ? 16 : s->cap * 2, i, j;

	if ((ns = calloc(cap, sizeof(*ns))) == NULL)
		return -1;
	if (map && (nv = calloc(cap, sizeof(*nv))) == NULL) {
		free(ns);
		return -1;
	}
	for (i = 0; i < oldcap; i++) {
		if (old[i] == NULL)
			continue;
		for (j = hslot(old[i], cap); ns[j] != NULL; j = (j + 1) &
		    (cap - 1))
			continue;
		ns[j] = old[i];
		if (map)
			nv[j] = oldv[i];
	}
	free(old);
	free(oldv);
	s->slot = ns;
	s->val = nv;
	s->cap = cap;
	return 0;
}

/* Where p is in s, or s->cap if it is not. */
static size_t
hset_find(const struct ft_mpi_hset *s, const void *p)
{
	size_t i;

	if (s->cap == 0 || p == NULL)
		return s->cap;
	for (i = hslot(p, s->cap); s->slot[i] != NULL; i = (i + 1) &
	    (s->cap - 1))
		if (s->slot[i] == p)
			return i;
	return s->cap;
}

/* Put p in s (not there yet) with value v, if s is a map. */
static int
hset_insert(struct ft_mpi_hset *s, const void *p, int map, uint32_t v)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap && hset_grow(s, map) != 0)
		return -1;
	for (i = hslot(p, s->cap); s->slot[i] != NULL; i = (i + 1) &
	    (s->cap - 1))
		continue;
	s->slot[i] = p;
	if (map)
		s->val[i] = v;
	s->n++;
	return 0;
}

int
ft__mpi_hset_add(struct ft_mpi_hset *s, const void *p)
{
	if (ft__mpi_hset_has(s, p))
		return 0;
	return hset_insert(s, p, 0, 0);
}

int
ft__mpi_hset_has(const struct ft_mpi_hset *s, const void *p)
{
	return hset_find(s, p) != s->cap;
}

int
ft__mpi_hset_put(struct ft_mpi_hset *s, const void *p, uint32_t v)
{
	size_t i;

	if ((i = hset_find(s, p)) != s->cap) {
		s->val[i] = v;
		return 0;
	}
	return hset_insert(s, p, 1, v);
}

int
ft__mpi_hset_get(const struct ft_mpi_hset *s, const void *p, uint32_t *v)
{
	size_t i;

	if ((i = hset_find(s, p)) == s->cap)
		return 0;
	*v = s->val[i];
	return 1;
}

void
ft__mpi_hset_del(struct ft_mpi_hset *s, const void *p)
{
	size_t i, j, k, mask = s->cap - 1;

	if ((i = hset_find(s, p)) == s->cap)
		return;
	s->slot[i] = NULL;
	s->n--;
	/*
	 * Shift later members of the probe run back into the hole when
	 * their home slot is not between the hole and where they are, so
	 * that lookups never stop early at it.
	 */
	for (j = (i + 1) & mask; s->slot[j] != NULL; j = (j + 1) & mask) {
		k = hslot(s->slot[j], s->cap);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->slot[i] = s->slot[j];
		if (s->val != NULL)
			s->val[i] = s->val[j];
		s->slot[j] = NULL;
		i = j;
	}
}

void
ft__mpi_hset_release(struct ft_mpi_hset *s)
{
	free(s->slot);
	free(s->val);
	s->slot = NULL;
	s->val = NULL;
	s->n = s->cap = 0;
}

/* Communicator objects ----------------------------------------------- */

int
ft__mpi_comm_ok(MPI_Comm c)
{
	if (c == MPI_COMM_NULL)
		return 0;
	if (c == MPI_COMM_WORLD || c == MPI_COMM_SELF)
		return 1;
	return ft__mpi_hset_has(&cs.live, c) ||
	    ft__mpi_hset_has(&cs.hidden, c);
}

int
ft__mpi_comm_intra(MPI_Comm c, const char *call)
{
	if (!ft__mpi_comm_ok(c))
		return ft__mpi_err(c, MPI_ERR_COMM, call,
		    "invalid communicator");
	if (FT_MPI_INTER(c))
		return ft__mpi_err(c, MPI_ERR_COMM, call,
		    "not defined on an intercommunicator");
	return MPI_SUCCESS;
}

MPI_Comm
ft__mpi_comm_new(MPI_Comm parent, uint32_t ctx, const uint32_t *world, int n,
    int rank)
{
	struct ft_mpi_comm *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if ((c->world = calloc((size_t)n, sizeof(*c->world))) == NULL ||
	    ft__mpi_hset_add(&cs.live, c) != 0) {
		free(c->world);
		free(c);
		return NULL;
	}
	memcpy(c->world, world, (size_t)n * sizeof(*c->world));
	c->ctx = ctx;
	c->size = n;
	c->rank = rank;
	c->errh = parent != MPI_COMM_NULL ? parent->errh :
	    MPI_ERRORS_ARE_FATAL;
	if (parent != MPI_COMM_NULL) {
		c->ftmpi_comm = parent->ftmpi_comm;
		c->ftmpi_msg = parent->ftmpi_msg;
	}
	c->ulfm_born = ft__mpi_ulfm_known();
	return c;
}

static void	comm_memfree(MPI_Comm);

MPI_Comm
ft__mpi_comm_new_inter(MPI_Comm parent, uint32_t ctx, const uint32_t *world,
    int n, int rank, const uint32_t *rworld, int rn)
{
	struct ft_mpi_comm *c, *l;

	if ((c = ft__mpi_comm_new(parent, ctx, world, n, rank)) == NULL)
		return NULL;
	/* The local one is made like a user one, then hidden. */
	if ((l = ft__mpi_comm_new(parent, ctx + 2, world, n, rank)) == NULL)
		goto fail;
	ft__mpi_hset_del(&cs.live, l);
	c->local = l;
	if (ft__mpi_hset_add(&cs.hidden, l) != 0 ||
	    (c->rworld = calloc((size_t)rn, sizeof(*c->rworld))) == NULL)
		goto fail;
	memcpy(c->rworld, rworld, (size_t)rn * sizeof(*rworld));
	c->rsize = rn;
	return c;
fail:
	ft__mpi_hset_del(&cs.live, c);
	comm_memfree(c);
	return NULL;
}

static void
comm_memfree(MPI_Comm c)
{
	if (c->local != NULL) {
		ft__mpi_hset_del(&cs.hidden, c->local);
		comm_memfree(c->local);
	}
	free(c->rworld);
	if (c->live != NULL)
		ft__mpi_ftmpi_free(c);
	ft__mpi_ulfm_free(c);
	ft__mpi_attrs_drop(&c->attrs);
	ft__mpi_topo_free(c->topo);
	free(c->world);
	free(c);
}

/*
 * The handle stops being valid at once; the memory goes when nothing
 * holds it any more.
 */
void
ft__mpi_comm_each(void (*fn)(MPI_Comm))
{
	MPI_Comm *v;
	size_t i, n = 0;

	fn(MPI_COMM_WORLD);
	if (cs.live.cap == 0 ||
	    (v = calloc(cs.live.cap, sizeof(*v))) == NULL)
		return;
	/* A copy: fn may make or free communicators. */
	for (i = 0; i < cs.live.cap; i++)
		if (cs.live.slot[i] != NULL && cs.live.slot[i] !=
		    (const void *)MPI_COMM_WORLD)
			v[n++] = (MPI_Comm)(uintptr_t)cs.live.slot[i];
	for (i = 0; i < n; i++)
		if (ft__mpi_hset_has(&cs.live, v[i]))
			fn(v[i]);
	free(v);
}

void
ft__mpi_comm_hide(MPI_Comm c)
{
	ft__mpi_hset_del(&cs.live, c);
	if (ft__mpi_hset_add(&cs.hidden, c) != 0)
		/* Unnamed but unchecked: collectives on it report
		 * MPI_ERR_COMM.  Out of memory, there is no better. */
		return;
}

void
ft__mpi_comm_drop_hidden(MPI_Comm c)
{
	ft__mpi_hset_del(&cs.hidden, c);
	comm_memfree(c);
}

static void
comm_destroy(MPI_Comm c)
{
	ft__mpi_hset_del(&cs.live, c);
	ft__mpi_fint_forget(FT_FINT_COMM, c);
	if (c->holds > 0 && ft__mpi_hset_add(&cs.held, c) == 0)
		return;
	/* Out of memory to remember it: leak it rather than free it. */
	if (c->holds == 0)
		comm_memfree(c);
}

void
ft__mpi_comm_hold(MPI_Comm c)
{
	if (!c->predefined)
		c->holds++;
}

void
ft__mpi_comm_release(MPI_Comm c)
{
	if (c->predefined || --c->holds > 0)
		return;
	if (ft__mpi_hset_has(&cs.held, c)) {
		ft__mpi_hset_del(&cs.held, c);
		comm_memfree(c);
	}
}

/* Agreement ---------------------------------------------------------- */

void
ft__mpi_reqs_abandon(struct ft_mpi_req *r, int nr, void *all)
{
	int i, pending = 0;

	for (i = 0; i < nr; i++) {
		if (!r[i].pt.done && r[i].kind == FT_MPI_REQ_RECV)
			(void)ft_pt_cancel(ft__mpi.pt, &r[i].pt);
		if (!r[i].pt.done)
			pending = 1;
	}
	if (pending)
		return;
	for (i = 0; i < nr; i++)
		ft__mpi_req_cleanup(&r[i]);
	free(r);
	free(all);
}

/*
 * Member 0 gathers the table and sends it back whole.  It does work
 * linear in m; creating communicators is rare enough for that, and a
 * tree would scale better.
 */
int
ft__mpi_comm_allgather(MPI_Comm comm, const char *call, const int *members,
    int m, int me, const uint32_t *mine, int n, int gtag, int btag,
    uint32_t **out)
{
	struct ft_mpi_req *r;
	uint32_t *all, cctx = comm->ctx + 1;
	int i, nr = 0, rc = MPI_SUCCESS, fail = 0;

#define MEMBER(i)	(members != NULL ? members[(i)] : (i))
	all = calloc((size_t)m * (size_t)n, sizeof(*all));
	r = calloc(m > 2 ? (size_t)m - 1 : 2, sizeof(*r));
	if (all == NULL || r == NULL) {
		free(all);
		free(r);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI communicator",
		    "out of memory");
	}
	memcpy(all + (size_t)me * n, mine, (size_t)n * sizeof(*mine));
	if (m == 1)
		goto done;
	if (me != 0) {
		ft__mpi_req_init(&r[0], FT_MPI_REQ_RECV, comm);
		ft__mpi_req_init(&r[1], FT_MPI_REQ_SEND, comm);
		if ((rc = ft__mpi_irecv_ctx(call, all, m * n, MPI_UINT32_T,
		    MEMBER(0), btag, comm, cctx, &r[0])) != MPI_SUCCESS)
			goto fail;
		nr = 1;
		if ((rc = ft__mpi_isend_ctx(call, mine, n, MPI_UINT32_T,
		    MEMBER(0), gtag, comm, cctx, &r[1])) != MPI_SUCCESS)
			goto fail;
		nr = 2;
		ft__mpi_wait_reqs(r, nr);
		goto check;
	}
	for (i = 1; i < m; i++) {
		ft__mpi_req_init(&r[nr], FT_MPI_REQ_RECV, comm);
		if ((rc = ft__mpi_irecv_ctx(call, all + (size_t)i * n, n,
		    MPI_UINT32_T, MEMBER(i), gtag, comm, cctx, &r[nr])) !=
		    MPI_SUCCESS)
			goto fail;
		nr++;
	}
	ft__mpi_wait_reqs(r, nr);
	for (i = 0; i < nr; i++)
		if (ft__mpi_ulfm_class(r[i].pt.st.error) != 0 &&
		    fail == 0)
			fail = ft__mpi_ulfm_class(r[i].pt.st.error);
	for (i = 0; i < nr && fail == 0; i++)
		if (r[i].pt.st.error != 0 || r[i].pt.st.bytes !=
		    (size_t)n * sizeof(*all)) {
			rc = ft__mpi_err(comm, MPI_ERR_INTERN,
			    "MPI communicator", "rank %d sent %zu bytes, "
			    "expected %zu", MEMBER(i + 1), r[i].pt.st.bytes,
			    (size_t)n * sizeof(*all));
			goto fail;
		}
	for (i = 0; i < nr; i++)
		ft__mpi_req_cleanup(&r[i]);
	/*
	 * ULFM: a member failed.  The others still get an answer (an empty
	 * table, which they take for the failure), so that none waits.
	 */
	for (i = 1, nr = 0; i < m; i++) {
		ft__mpi_req_init(&r[nr], FT_MPI_REQ_SEND, comm);
		if ((rc = ft__mpi_isend_ctx(call, all, fail != 0 ? 0 : m * n,
		    MPI_UINT32_T, MEMBER(i), btag, comm, cctx, &r[nr])) !=
		    MPI_SUCCESS)
			goto fail;
		nr++;
	}
	ft__mpi_wait_reqs(r, nr);
check:
	if (me != 0 && ft__mpi.ulfm && (r[0].pt.st.error != 0 ||
	    r[0].pt.st.bytes != (size_t)m * n * sizeof(*all)))
		fail = ft__mpi_ulfm_class(r[0].pt.st.error) != 0 ?
		    ft__mpi_ulfm_class(r[0].pt.st.error) :
		    MPIX_ERR_PROC_FAILED;
	if (fail != 0) {
		rc = ft__mpi_err(comm, fail, call, "%s",
		    fail == MPIX_ERR_REVOKED ? "the communicator is revoked" :
		    "a process of the communicator has failed");
		goto fail;
	}
	if (me != 0 && (r[0].pt.st.error != 0 || r[0].pt.st.bytes !=
	    (size_t)m * n * sizeof(*all))) {
		rc = ft__mpi_err(comm, MPI_ERR_INTERN, "MPI communicator",
		    "rank %d sent a table of %zu bytes, expected %zu",
		    MEMBER(0), r[0].pt.st.bytes, (size_t)m * n * sizeof(*all));
		goto fail;
	}
	for (i = 0; i < nr; i++)
		ft__mpi_req_cleanup(&r[i]);
done:
	free(r);
	*out = all;
	return MPI_SUCCESS;
fail:
	ft__mpi_reqs_abandon(r, nr, all);
	return rc;
#undef MEMBER
}

/*
 * Agree among the m members (as for allgather) on a new context id and
 * on whether every member's arguments were good: each member gives
 * err, its own error class (0 if fine, with why saying what is wrong),
 * and n extra words.  On success *ctx is the agreed id, the next free
 * id moves past it, and *table (freed by the caller) holds each
 * member's row of ROW_EXTRA + n words.  Returns an MPI error class,
 * already reported on comm: every member fails if any one does.
 */
static int
agree(MPI_Comm comm, const char *call, const int *members, int m, int me,
    int err, const char *why, const uint32_t *extra, int n, int gtag,
    int btag, uint32_t *ctx, uint32_t **table)
{
	uint32_t row[ROW_EXTRA + 4], *all = NULL, max = 0;
	int i, w = ROW_EXTRA + n, rc, bad = -1;

	if (n > 4)
		FT_BUG();
	row[ROW_ERR] = (uint32_t)err;
	row[ROW_CTX] = cs.next_ctx;
	if (n > 0)
		memcpy(row + ROW_EXTRA, extra, (size_t)n * sizeof(*extra));
	if ((rc = ft__mpi_comm_allgather(comm, call, members, m, me, row, w,
	    gtag, btag, &all)) != MPI_SUCCESS)
		return rc;
	for (i = 0; i < m; i++) {
		if (all[i * w + ROW_ERR] != 0 && bad < 0)
			bad = i;
		if (all[i * w + ROW_CTX] > max)
			max = all[i * w + ROW_CTX];
	}
	if (bad >= 0 || max > CTX_LAST) {
		rc = bad >= 0 ? (int)all[bad * w + ROW_ERR] : MPI_ERR_INTERN;
		free(all);
		if (err != 0)
			return ft__mpi_err(comm, err, call, "%s", why);
		if (bad >= 0)
			return ft__mpi_err(comm, rc, call, "rank %d passed an "
			    "invalid argument", members != NULL ?
			    members[bad] : bad);
		return ft__mpi_err(comm, rc, call,
		    "no context id is left for a new communicator");
	}
	*ctx = max;
	cs.next_ctx = max + 2;
	*table = all;
	return MPI_SUCCESS;
}

uint32_t
ft__mpi_ctx_next(void)
{
	return cs.next_ctx;
}

int
ft__mpi_ctx_take(uint32_t ctx, uint32_t n)
{
	if (ctx < cs.next_ctx || ctx > CTX_LAST + 2 - n)
		return -1;
	cs.next_ctx = ctx + n;
	return 0;
}

/* Creation ----------------------------------------------------------- */

int
ft__mpi_slot_cmp(const void *a, const void *b)
{
	const struct ft_mpi_slot *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int
ft__mpi_comm_split(MPI_Comm comm, int color, int key, int err,
    const char *why, const char *call, MPI_Comm *newcomm)
{
	struct ft_mpi_slot *s;
	uint32_t extra[2], *all, *world, ctx;
	int i, k = 0, me = -1, rc, *members, m, mi;

	if (FT_MPI_INTER(comm))
		return ft__mpi_inter_split(comm, color, key, err, why, call,
		    newcomm);
	extra[0] = (uint32_t)color;
	extra[1] = (uint32_t)key;
	/* FT-MPI's BLANK: among the live members (ftmpi.c). */
	if (ft__mpi_ftmpi_members(comm, &members, &m, &mi) != 0)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	rc = agree(comm, call, members, m, mi, err, why, extra, 2,
	    TAG_GATHER, TAG_BCAST, &ctx, &all);
	if (rc != MPI_SUCCESS) {
		free(members);
		return rc;
	}
	if (color == MPI_UNDEFINED) {
		free(all);
		free(members);
		*newcomm = MPI_COMM_NULL;
		return MPI_SUCCESS;
	}
	if ((s = calloc((size_t)comm->size, sizeof(*s))) == NULL ||
	    (world = calloc((size_t)comm->size, sizeof(*world))) == NULL) {
		free(s);
		free(all);
		free(members);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	for (i = 0; i < m; i++) {
		const uint32_t *row = all + i * (ROW_EXTRA + 2);

		if ((int)row[ROW_EXTRA] != color)
			continue;
		s[k].key = (int)row[ROW_EXTRA + 1];
		s[k++].rank = members != NULL ? members[i] : i;
	}
	free(all);
	free(members);
	/* Order by key, ties by rank in comm. */
	qsort(s, (size_t)k, sizeof(*s), ft__mpi_slot_cmp);
	for (i = 0; i < k; i++) {
		world[i] = comm->world[s[i].rank];
		if (s[i].rank == comm->rank)
			me = i;
	}
	free(s);
	*newcomm = ft__mpi_comm_new(comm, ctx, world, k, me);
	free(world);
	if (*newcomm == MPI_COMM_NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	const char *why = "";
	int err = 0;

	FT_MPI_CHECK_INIT("MPI_Comm_split");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_split",
		    "invalid communicator");
	if (newcomm == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL newcomm";
	} else if (color < 0 && color != MPI_UNDEFINED) {
		err = MPI_ERR_ARG;
		why = "negative color";
	}
	return ft__mpi_comm_split(comm, color, key, err, why, "MPI_Comm_split",
	    newcomm);
}

int
PMPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
    MPI_Comm *newcomm)
{
	const char *why = "";
	int err = 0, color = MPI_UNDEFINED;

	FT_MPI_CHECK_INIT("MPI_Comm_split_type");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_split_type",
		    "invalid communicator");
	if (newcomm == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL newcomm";
	} else if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info)) {
		err = MPI_ERR_INFO;
		why = "invalid info object";
	} else if (type == MPI_COMM_TYPE_SHARED) {
		/* Ranks share memory when they share a host. */
		color = (int)(ft__mpi.env.node & INT32_MAX);
	} else if (type != MPI_UNDEFINED) {
		err = MPI_ERR_ARG;
		why = "unknown split type";
	}
	return ft__mpi_comm_split(comm, color, key, err, why,
	    "MPI_Comm_split_type", newcomm);
}

static int	dup_finish(const char *, MPI_Comm, MPI_Comm, MPI_Comm *);

static int
comm_dup(const char *call, MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	MPI_Comm c;
	const char *why = "";
	uint32_t ctx, *all;
	int err = 0, rc;

	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, call,
		    "invalid communicator");
	if (newcomm == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL newcomm";
	} else if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info)) {
		err = MPI_ERR_INFO;
		why = "invalid info object";
	}
	if (FT_MPI_INTER(comm) && (err != 0 || !ft__mpi_ftmpi_recovers(comm))) {
		if ((rc = ft__mpi_inter_dup(comm, call, err, why, &c)) !=
		    MPI_SUCCESS)
			return rc;
		return dup_finish(call, comm, c, newcomm);
	}
	/* FT-MPI: the duplicate of a communicator in error is the
	 * recovered one (ft-ftmpi(3)), an intercommunicator's in SHRINK. */
	if (ft__mpi.ftmpi && err == 0) {
		if ((rc = ft__mpi_ftmpi_dup(comm, call, newcomm)) !=
		    MPI_SUCCESS)
			return rc;
		return info != MPI_INFO_NULL ? ft__mpi_ftmpi_set_info(*newcomm,
		    info, call) : MPI_SUCCESS;
	}
	if ((rc = agree(comm, call, NULL, comm->size, comm->rank, err, why,
	    NULL, 0, TAG_GATHER, TAG_BCAST, &ctx, &all)) != MPI_SUCCESS)
		return rc;
	free(all);
	return ft__mpi_comm_dup_local(call, comm, ctx, newcomm);
}

int
ft__mpi_comm_dup_local(const char *call, MPI_Comm comm, uint32_t ctx,
    MPI_Comm *newcomm)
{
	MPI_Comm c;

	if ((c = ft__mpi_comm_new(comm, ctx, comm->world, comm->size,
	    comm->rank)) == MPI_COMM_NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	return dup_finish(call, comm, c, newcomm);
}

int
ft__mpi_comm_finish(const char *call, MPI_Comm comm, MPI_Comm c,
    MPI_Comm *newcomm)
{
	return dup_finish(call, comm, c, newcomm);
}

/*
 * The rest of a duplicate c of comm, intra or inter: comm's topology,
 * and its attributes copied.  c is destroyed on failure.
 */
static int
dup_finish(const char *call, MPI_Comm comm, MPI_Comm c, MPI_Comm *newcomm)
{
	int rc;

	if (comm->topo != NULL &&
	    (c->topo = ft__mpi_topo_dup(comm->topo)) == NULL) {
		comm_destroy(c);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	}
	/* Copy attributes through their copy functions, keeping order. */
	if ((rc = ft__mpi_attrs_copy(FT_ATTR_COMM, comm, comm->attrs, c,
	    &c->attrs)) != MPI_SUCCESS) {
		comm_destroy(c);
		return ft__mpi_err(comm, rc, call, rc == MPI_ERR_NO_MEM ?
		    "out of memory" : "the copy function of an attribute "
		    "failed");
	}
	*newcomm = c;
	return MPI_SUCCESS;
}

int
PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	return comm_dup("MPI_Comm_dup", comm, MPI_INFO_NULL, newcomm);
}

int
PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	return comm_dup("MPI_Comm_dup_with_info", comm, info, newcomm);
}

/*
 * The comm ranks of group's members, in group order, into out (group
 * size entries).  Returns 0, or -1 if some member is not in comm.
 */
static int
group_in_comm(MPI_Comm comm, MPI_Group group, int *out)
{
	uint32_t np = ft__mpi_nprocs();
	int *map, i;

	if (group->size == 0)
		return 0;
	if ((map = malloc(np * sizeof(*map))) == NULL)
		return -2;
	for (i = 0; i < (int)np; i++)
		map[i] = -1;
	for (i = 0; i < comm->size; i++)
		if (comm->world[i] < np)
			map[comm->world[i]] = i;
	for (i = 0; i < group->size; i++) {
		if (group->world[i] >= np ||
		    map[group->world[i]] < 0) {
			free(map);
			return -1;
		}
		out[i] = map[group->world[i]];
	}
	free(map);
	return 0;
}

int
PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	const char *why = "";
	uint32_t ctx, *all, *world;
	int *ranks = NULL, *members, m, mi, n, me, err = 0, rc;

	FT_MPI_CHECK_INIT("MPI_Comm_create");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_create",
		    "invalid communicator");
	if (newcomm == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL newcomm";
	} else if (!ft__mpi_group_ok(group)) {
		err = MPI_ERR_GROUP;
		why = "invalid group";
	} else if ((ranks = calloc((size_t)group->size + 1,
	    sizeof(*ranks))) == NULL) {
		err = MPI_ERR_NO_MEM;
		why = "out of memory";
	} else if ((rc = group_in_comm(comm, group, ranks)) != 0) {
		err = rc == -1 ? MPI_ERR_GROUP : MPI_ERR_NO_MEM;
		why = rc == -1 ? "the group is not a subgroup of the "
		    "communicator's" : "out of memory";
	}
	if (FT_MPI_INTER(comm)) {
		free(ranks);
		return ft__mpi_inter_create(comm, group, err, why, newcomm);
	}
	/* FT-MPI's BLANK: among the live members (ftmpi.c). */
	if (ft__mpi_ftmpi_members(comm, &members, &m, &mi) != 0) {
		free(ranks);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_create",
		    "out of memory");
	}
	rc = agree(comm, "MPI_Comm_create", members, m, mi, err, why, NULL, 0,
	    TAG_GATHER, TAG_BCAST, &ctx, &all);
	if (rc == MPI_SUCCESS)
		free(all);
	if (rc != MPI_SUCCESS || group->rank == MPI_UNDEFINED) {
		free(members);
		free(ranks);
		if (rc == MPI_SUCCESS)
			*newcomm = MPI_COMM_NULL;
		return rc;
	}
	n = group->size;
	me = group->rank;
	if ((world = calloc((size_t)n, sizeof(*world))) == NULL) {
		free(members);
		free(ranks);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_create",
		    "out of memory");
	}
	memcpy(world, group->world, (size_t)n * sizeof(*world));
	/* A hole of comm is in no new communicator. */
	if (members != NULL)
		n = ft__mpi_ftmpi_unhole(comm, world, ranks, n, &me);
	free(members);
	free(ranks);
	*newcomm = ft__mpi_comm_new(comm, ctx, world, n, me);
	free(world);
	if (*newcomm == MPI_COMM_NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_create",
		    "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
    MPI_Comm *newcomm)
{
	uint32_t ctx, *all, *world;
	int *ranks, n, me, rc;

	FT_MPI_CHECK_INIT("MPI_Comm_create_group");
	if ((rc = ft__mpi_comm_intra(comm, "MPI_Comm_create_group")) !=
	    MPI_SUCCESS)
		return rc;
	if (!ft__mpi_group_ok(group))
		return ft__mpi_err(comm, MPI_ERR_GROUP, "MPI_Comm_create_group",
		    "invalid group");
	if (newcomm == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_create_group",
		    "NULL newcomm");
	if (tag < 0)
		return ft__mpi_err(comm, MPI_ERR_TAG, "MPI_Comm_create_group",
		    "invalid tag %d", tag);
	if ((ranks = calloc((size_t)group->size + 1, sizeof(*ranks))) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM,
		    "MPI_Comm_create_group", "out of memory");
	/*
	 * Only the members of group call this, all with the same group, so
	 * each of them finds the same argument errors without talking.
	 */
	if ((rc = group_in_comm(comm, group, ranks)) != 0) {
		free(ranks);
		if (rc == -1)
			return ft__mpi_err(comm, MPI_ERR_GROUP,
			    "MPI_Comm_create_group", "the group is not a "
			    "subgroup of the communicator's");
		return ft__mpi_err(comm, MPI_ERR_NO_MEM,
		    "MPI_Comm_create_group", "out of memory");
	}
	if (group->rank == MPI_UNDEFINED) {
		free(ranks);
		*newcomm = MPI_COMM_NULL;
		return MPI_SUCCESS;
	}
	n = group->size;
	me = group->rank;
	if ((world = calloc((size_t)n, sizeof(*world))) == NULL) {
		free(ranks);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM,
		    "MPI_Comm_create_group", "out of memory");
	}
	memcpy(world, group->world, (size_t)n * sizeof(*world));
	/* FT-MPI's BLANK: a hole of comm is in no new communicator. */
	if (ft__mpi_ftmpi_coll_comm(comm) != comm)
		n = ft__mpi_ftmpi_unhole(comm, world, ranks, n, &me);
	rc = agree(comm, "MPI_Comm_create_group", ranks, n, me, 0, "", NULL,
	    0, TAG_GROUP_GATHER | (tag & TAG_GROUP_MASK), TAG_GROUP_BCAST |
	    (tag & TAG_GROUP_MASK), &ctx, &all);
	free(ranks);
	if (rc != MPI_SUCCESS) {
		free(world);
		return rc;
	}
	free(all);
	*newcomm = ft__mpi_comm_new(comm, ctx, world, n, me);
	free(world);
	if (*newcomm == MPI_COMM_NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM,
		    "MPI_Comm_create_group", "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Comm_free(MPI_Comm *comm)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Comm_free");
	if (comm == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_free",
		    "NULL argument");
	if (!ft__mpi_comm_ok(*comm))
		return ft__mpi_err(*comm, MPI_ERR_COMM, "MPI_Comm_free",
		    "invalid communicator");
	if ((*comm)->predefined)
		return ft__mpi_err(*comm, MPI_ERR_COMM, "MPI_Comm_free",
		    "%s cannot be freed", (*comm)->name);
	if ((rc = ft__mpi_attrs_delete(FT_ATTR_COMM, *comm,
	    &(*comm)->attrs)) != MPI_SUCCESS)
		return ft__mpi_err(*comm, rc, "MPI_Comm_free",
		    "an attribute delete function failed");
	/*
	 * Context ids are never reused, so messages still travelling on
	 * this one can match nothing else: freeing is local.
	 */
	comm_destroy(*comm);
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}

static int
u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Compare two lists of n world ranks: MPI_IDENT if equal, MPI_SIMILAR
 * if equal as sets, else MPI_UNEQUAL (or -1 when out of memory).
 */
int
ft__mpi_ranks_compare(const uint32_t *a, const uint32_t *b, int n)
{
	uint32_t *x, *y;
	int res;

	if (n == 0 || memcmp(a, b, (size_t)n * sizeof(*a)) == 0)
		return MPI_IDENT;
	x = malloc((size_t)n * sizeof(*x));
	y = malloc((size_t)n * sizeof(*y));
	if (x == NULL || y == NULL) {
		free(x);
		free(y);
		return -1;
	}
	memcpy(x, a, (size_t)n * sizeof(*x));
	memcpy(y, b, (size_t)n * sizeof(*y));
	qsort(x, (size_t)n, sizeof(*x), u32_cmp);
	qsort(y, (size_t)n, sizeof(*y), u32_cmp);
	res = memcmp(x, y, (size_t)n * sizeof(*x)) == 0 ? MPI_SIMILAR :
	    MPI_UNEQUAL;
	free(x);
	free(y);
	return res;
}

int
PMPI_Comm_compare(MPI_Comm c1, MPI_Comm c2, int *result)
{
	int res, rres = MPI_IDENT;

	FT_MPI_CHECK_INIT("MPI_Comm_compare");
	if (!ft__mpi_comm_ok(c1) || !ft__mpi_comm_ok(c2))
		return ft__mpi_err(ft__mpi_comm_ok(c1) ? c1 : c2, MPI_ERR_COMM,
		    "MPI_Comm_compare", "invalid communicator");
	if (result == NULL)
		return ft__mpi_err(c1, MPI_ERR_ARG, "MPI_Comm_compare",
		    "NULL argument");
	if (c1 == c2) {
		*result = MPI_IDENT;
		return MPI_SUCCESS;
	}
	/*
	 * Intercommunicators compare both groups, the local ones then the
	 * remote ones; an intercommunicator and an intracommunicator
	 * are unequal.
	 */
	*result = MPI_UNEQUAL;
	if (c1->size != c2->size || FT_MPI_INTER(c1) != FT_MPI_INTER(c2) ||
	    (FT_MPI_INTER(c1) && c1->rsize != c2->rsize))
		return MPI_SUCCESS;
	if ((res = ft__mpi_ranks_compare(c1->world, c2->world,
	    c1->size)) < 0 || (FT_MPI_INTER(c1) && res != MPI_UNEQUAL &&
	    (rres = ft__mpi_ranks_compare(c1->rworld, c2->rworld,
	    c1->rsize)) < 0))
		return ft__mpi_err(c1, MPI_ERR_NO_MEM, "MPI_Comm_compare",
		    "out of memory");
	if (rres > res)
		res = rres;
	/* Distinct communicators over the same ranks are congruent. */
	*result = res == MPI_IDENT ? MPI_CONGRUENT : res;
	return MPI_SUCCESS;
}

int
PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	FT_MPI_CHECK_INIT("MPI_Comm_test_inter");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_test_inter",
		    "invalid communicator");
	if (flag == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_test_inter",
		    "NULL argument");
	*flag = FT_MPI_INTER(comm);
	return MPI_SUCCESS;
}

int
ft__mpi_comm_group_of(MPI_Comm comm, const char *call, const uint32_t *world,
    int n, MPI_Group *group)
{
	if (group == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "NULL argument");
	if ((*group = ft__mpi_group_new(world, n)) == MPI_GROUP_NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
	FT_MPI_CHECK_INIT("MPI_Comm_group");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_group",
		    "invalid communicator");
	return ft__mpi_comm_group_of(comm, "MPI_Comm_group", comm->world,
	    comm->size, group);
}

int
PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
	FT_MPI_CHECK_INIT("MPI_Comm_set_name");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_set_name",
		    "invalid communicator");
	if (name == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_set_name",
		    "NULL name");
	/* Longer names are cut, as the standard allows. */
	snprintf(comm->name, sizeof(comm->name), "%s", name);
	return MPI_SUCCESS;
}

int
PMPI_Comm_get_name(MPI_Comm comm, char *name, int *len)
{
	FT_MPI_CHECK_INIT("MPI_Comm_get_name");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_get_name",
		    "invalid communicator");
	if (name == NULL || len == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_name",
		    "NULL argument");
	snprintf(name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
	*len = (int)strlen(name);
	return MPI_SUCCESS;
}

int
PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
	FT_MPI_CHECK_INIT("MPI_Comm_set_info");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_set_info",
		    "invalid communicator");
	if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info))
		return ft__mpi_err(comm, MPI_ERR_INFO, "MPI_Comm_set_info",
		    "invalid info object");
	/* The one hint ft takes: FT-MPI's modes (ft-ftmpi(3)). */
	return ft__mpi_ftmpi_set_info(comm, info, "MPI_Comm_set_info");
}

int
PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Comm_get_info");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_get_info",
		    "invalid communicator");
	if (info == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_info",
		    "NULL argument");
	/* A new object the caller frees: FT-MPI's modes, if any. */
	if ((rc = MPI_Info_create(info)) != MPI_SUCCESS)
		return rc;
	if ((rc = ft__mpi_ftmpi_get_info(comm, *info)) != MPI_SUCCESS) {
		(void)MPI_Info_free(info);
		return ft__mpi_err(comm, rc, "MPI_Comm_get_info",
		    "out of memory");
	}
	return MPI_SUCCESS;
}

int
PMPI_Comm_rank(MPI_Comm comm, int *rank)
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
PMPI_Comm_size(MPI_Comm comm, int *size)
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

/* Attributes --------------------------------------------------------- */

int
ft_mpi_comm_dup_fn(MPI_Comm comm, int keyval, void *extra, void *in,
    void *out, int *flag)
{
	(void)comm;
	(void)keyval;
	(void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

int
PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy,
    MPI_Comm_delete_attr_function *del, int *keyval, void *extra)
{
	FT_MPI_CHECK_INIT("MPI_Comm_create_keyval");
	if (keyval == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Comm_create_keyval", "NULL keyval");
	if (ft__mpi_keyval_new(FT_ATTR_COMM, &(struct ft_attr_fns){
	    .comm_copy = copy, .comm_del = del }, extra, keyval) != 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
		    "MPI_Comm_create_keyval", "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Comm_free_keyval(int *keyval)
{
	FT_MPI_CHECK_INIT("MPI_Comm_free_keyval");
	if (keyval == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Comm_free_keyval", "NULL keyval");
	/* Attributes still set keep it alive for their delete calls. */
	if (ft__mpi_keyval_free(FT_ATTR_COMM, *keyval) != 0)
		return ft__mpi_err(MPI_COMM_NULL, ERR_KEYVAL,
		    "MPI_Comm_free_keyval", "invalid keyval %d", *keyval);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

int
PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Comm_set_attr");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_set_attr",
		    "invalid communicator");
	if (!ft__mpi_keyval_ok(FT_ATTR_COMM, keyval))
		return ft__mpi_err(comm, ERR_KEYVAL, "MPI_Comm_set_attr",
		    keyval > 0 && keyval < FT_KEYVAL_BASE ?
		    "predefined attribute %d cannot be set" :
		    "invalid keyval %d", keyval);
	/* An old value goes through its delete function first. */
	if ((rc = ft__mpi_attr_set(FT_ATTR_COMM, comm, &comm->attrs, keyval,
	    val)) != MPI_SUCCESS)
		return ft__mpi_err(comm, rc, "MPI_Comm_set_attr", "%s of "
		    "keyval %d", rc == MPI_ERR_NO_MEM ? "out of memory" :
		    "the delete function failed", keyval);
	return MPI_SUCCESS;
}

int
PMPI_Comm_get_attr(MPI_Comm comm, int key, void *val, int *flag)
{
	static int tag_ub = INT32_MAX, host = MPI_PROC_NULL,
	    io = MPI_ANY_SOURCE, wtime_global = 0, appnum = 0;
	static int universe, lastused, ftval;
	struct ft_mpi_attr *a;

	FT_MPI_CHECK_INIT("MPI_Comm_get_attr");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_get_attr",
		    "invalid communicator");
	if (val == NULL || flag == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_attr",
		    "NULL argument");
	*flag = 1;
	universe = (int)ft__mpi.env.universe;
	appnum = (int)ft__mpi.env.appnum;
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
		/* Each host's monotonic clock has its own origin. */
		*(int **)val = &wtime_global;
		break;
	case MPI_UNIVERSE_SIZE:
		*(int **)val = &universe;
		break;
	case MPI_APPNUM:
		*(int **)val = &appnum;
		break;
	case MPI_LASTUSEDCODE:
		lastused = ft__mpi_err_lastused();
		*(int **)val = &lastused;
		break;
	case MPI_FT:
		ftval = ft__mpi.ulfm;
		*(int **)val = &ftval;
		break;
	default:
		*flag = 0;
		if (!ft__mpi_keyval_ok(FT_ATTR_COMM, key))
			return ft__mpi_err(comm, ERR_KEYVAL,
			    "MPI_Comm_get_attr", "invalid keyval %d", key);
		if ((a = ft__mpi_attr_find(comm->attrs, key)) != NULL) {
			*(void **)val = a->val;
			*flag = 1;
		}
	}
	return MPI_SUCCESS;
}

int
PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Comm_delete_attr");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_delete_attr",
		    "invalid communicator");
	if (!ft__mpi_keyval_ok(FT_ATTR_COMM, keyval))
		return ft__mpi_err(comm, ERR_KEYVAL, "MPI_Comm_delete_attr",
		    "invalid keyval %d", keyval);
	if ((rc = ft__mpi_attr_delete(FT_ATTR_COMM, comm, &comm->attrs,
	    keyval)) != MPI_SUCCESS)
		return ft__mpi_err(comm, rc, "MPI_Comm_delete_attr",
		    "the delete function of keyval %d failed", keyval);
	return MPI_SUCCESS;
}

/* The MPI-1 names (deprecated, still common). */
int
PMPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del,
    int *keyval, void *extra)
{
	return MPI_Comm_create_keyval(copy, del, keyval, extra);
}

int
PMPI_Keyval_free(int *keyval)
{
	return MPI_Comm_free_keyval(keyval);
}

int
PMPI_Attr_put(MPI_Comm comm, int keyval, void *val)
{
	return MPI_Comm_set_attr(comm, keyval, val);
}

int
PMPI_Attr_get(MPI_Comm comm, int keyval, void *val, int *flag)
{
	return MPI_Comm_get_attr(comm, keyval, val, flag);
}

int
PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
	return MPI_Comm_delete_attr(comm, keyval);
}

/* MPI_Finalize ------------------------------------------------------- */

void
ft__mpi_comm_fini_begin(void)
{
	/* As if MPI_COMM_SELF were freed: a failure is the caller's. */
	(void)ft__mpi_attrs_delete(FT_ATTR_COMM, MPI_COMM_SELF,
	    &MPI_COMM_SELF->attrs);
}

void
ft__mpi_comm_fini_end(void)
{
	size_t i;

	for (i = 0; i < cs.live.cap; i++)
		if (cs.live.slot[i] != NULL)
			comm_memfree((MPI_Comm)(uintptr_t)cs.live.slot[i]);
	for (i = 0; i < cs.held.cap; i++)
		if (cs.held.slot[i] != NULL)
			comm_memfree((MPI_Comm)(uintptr_t)cs.held.slot[i]);
	ft__mpi_hset_release(&cs.live);
	ft__mpi_hset_release(&cs.held);
	ft__mpi_hset_release(&cs.hidden);
	ft__mpi_attrs_drop(&MPI_COMM_WORLD->attrs);
	ft__mpi_attrs_drop(&MPI_COMM_SELF->attrs);
	free(ft_mpi_comm_world.world);
	free(ft_mpi_comm_self.world);
	ft_mpi_comm_world.world = ft_mpi_comm_self.world = NULL;
	ft__mpi_keyval_fini();
	ft__mpi_group_fini();
	ft__mpi_info_fini();
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Comm_split = PMPI_Comm_split
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
#pragma weak MPI_Comm_dup = PMPI_Comm_dup
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
#pragma weak MPI_Comm_create = PMPI_Comm_create
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
#pragma weak MPI_Comm_free = PMPI_Comm_free
#pragma weak MPI_Comm_compare = PMPI_Comm_compare
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
#pragma weak MPI_Comm_group = PMPI_Comm_group
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
#pragma weak MPI_Comm_rank = PMPI_Comm_rank
#pragma weak MPI_Comm_size = PMPI_Comm_size
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
#pragma weak MPI_Keyval_create = PMPI_Keyval_create
#pragma weak MPI_Keyval_free = PMPI_Keyval_free
#pragma weak MPI_Attr_put = PMPI_Attr_put
#pragma weak MPI_Attr_get = PMPI_Attr_get
#pragma weak MPI_Attr_delete = PMPI_Attr_delete
