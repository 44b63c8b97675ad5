/* SPDX-License-Identifier: ISC */
/*
 * FT-MPI's communicator and message modes (Fagg and Dongarra, "FT-MPI:
 * Fault Tolerant MPI", EuroPVM/MPI 2000; ft-ftmpi(3)), under ftrun --ft
 * ftmpi, built on ULFM's machinery (ulfm.c, lib/proto/ulfm.c): the
 * failure list, the agreement, the revoke.
 *
 * A communicator is in error when one of its members failed and the
 * failure is not recovered.  Its message mode says what operations on
 * it do meanwhile: CONT, those with live processes go on (ULFM's
 * rules); NOP, every one fails, and those pending fail at once (the
 * communicator is revoked).  The recovery is FT-MPI's: MPI_Comm_dup of
 * the communicator, by every survivor, which agrees on the failed
 * members and gives, by the communicator mode:
 *
 *   SHRINK   the survivors, renumbered in order;
 *   BLANK    the same ranks, the failed ones holes: naming one is an
 *            MPI_ERR_RANK error, collectives run among the others;
 *   REBUILD  MPI_COMM_WORLD with a new process in each failed rank's
 *            place (the launcher starts it); other communicators
 *            shrink, to be made again from MPI_COMM_WORLD;
 *   ABORT    nothing: the failure ends the job.
 *
 * Recovering MPI_COMM_WORLD also recovers the handle MPI_COMM_WORLD in
 * place, as FT-MPI does, so that a program that names it goes on.  The
 * agreement's context index k (the largest proposed; each member draws
 * four in a row, k + i * universe) gives four context pairs: the
 * duplicate, MPI_COMM_WORLD, and the live communicators of the two
 * when BLANK leaves holes.
 */
#include <stdlib.h>

#include "mpi_impl.h"

/* The context pairs of one recovery, from the agreed index. */
enum {
	PAIR_DUP,
	PAIR_WORLD,
	PAIR_DUP_LIVE,
	PAIR_WORLD_LIVE,
	NPAIRS
};

static int
comm_mode(MPI_Comm c)
{
	return c->ftmpi_comm != 0 ? c->ftmpi_comm : ft__mpi.ftmpi_comm;
}

static int
msg_mode(MPI_Comm c)
{
	return c->ftmpi_msg != 0 ? c->ftmpi_msg : ft__mpi.ftmpi_msg;
}

/*
 * A new process draws its own context ids (ft__mpi_ctx_own) from a
 * count of calls that starts where no incarnation before it could have
 * been: each gets a stride of counts of its own.  The survivors may
 * still hold communicators, or revoke marks, with the ids its dead
 * incarnations drew, which it cannot know.
 */
static void
own_ids_past(unsigned long inc)
{
	uint64_t U = ft__mpi.env.universe > 0 ? ft__mpi.env.universe : 1;
	uint64_t stride = (uint64_t)FT_MPI_CTX_OWN_LIMIT / U / 16;

	if (stride > (1u << 20))
		stride = 1u << 20;
	if (stride == 0 || inc * stride < 1)
		return;
	ft__mpi_ctx_own_above((uint32_t)((inc * stride - 1) * U));
}

void
ft__mpi_ftmpi_init(void)
{
	const char *s;
	unsigned long inc;
	int m;

	if (strcmp(ft__mpi.env.proto, "ftmpi") != 0)
		return;
	ft__mpi.ftmpi = 1;
	ft__mpi.ftmpi_comm = FT_FTMPI_SHRINK;
	ft__mpi.ftmpi_msg = FT_FTMPI_CONT;
	/* ftrun checked them. */
	if ((m = ft_ftmpi_comm_parse(getenv(FT_ENV_FTMPI_COMM))) > 0)
		ft__mpi.ftmpi_comm = m;
	if ((m = ft_ftmpi_msg_parse(getenv(FT_ENV_FTMPI_MSG))) > 0)
		ft__mpi.ftmpi_msg = m;
	/* A process of REBUILD started in a failed one's place. */
	if ((s = getenv(FT_ENV_INCARNATION)) != NULL &&
	    (inc = strtoul(s, NULL, 10)) > 0 && inc < 1024) {
		ft__mpi.replacement = 1;
		own_ids_past(inc);
	}
}

/* Is rank peer of c a hole: a failure BLANK recovered? */
static int
is_hole(MPI_Comm c, int peer)
{
	const struct ft_mpi_ulfm *u = c->ulfm;
	int k;

	if (u == NULL || comm_mode(c) != FT_FTMPI_BLANK)
		return 0;
	for (k = 0; k < u->nacked; k++)
		if (u->failed[k] == c->world[peer])
			return 1;
	return 0;
}

static void FT_NORETURN
mode_abort(MPI_Comm c)
{
	(void)c;
	ft__mpi_abort(1, "a process of a communicator in mode ABORT failed "
	    "(--ft ftmpi): ending the job");
}

/*
 * An intercommunicator has one mode of its own, ABORT (ft-ftmpi(3)): a
 * failure in either group ends the job.  Else it follows ULFM's rules.
 */
static void
inter_abort(MPI_Comm c)
{
	if (comm_mode(c) == FT_FTMPI_ABORT && ft__mpi_ulfm_unacked(c))
		mode_abort(c);
}

int
ft__mpi_ftmpi_check(MPI_Comm comm, const char *call, int peer)
{
	if (!ft__mpi.ftmpi)
		return MPI_SUCCESS;
	if (FT_MPI_INTER(comm)) {
		inter_abort(comm);
		return MPI_SUCCESS;
	}
	if (peer >= 0 && peer < comm->size && is_hole(comm, peer))
		return ft__mpi_err(comm, MPI_ERR_RANK, call, "rank %d is a "
		    "hole: its process failed and the communicator was "
		    "recovered in mode BLANK", peer);
	if (!ft__mpi_ulfm_unacked(comm))
		return MPI_SUCCESS;
	if (comm_mode(comm) == FT_FTMPI_ABORT)
		mode_abort(comm);
	if (msg_mode(comm) == FT_FTMPI_NOP)
		return ft__mpi_err(comm, MPIX_ERR_PROC_FAILED, call, "the "
		    "communicator is in error (message mode NOP): recover "
		    "it with MPI_Comm_dup");
	return MPI_SUCCESS;
}

/* Revoke c, and its live communicator, so that all that waits fails. */
static void
revoke(MPI_Comm c)
{
	if (!ft__mpi_ulfm_revoked(c))
		(void)PMPIX_Comm_revoke(c);
	if (c->live != NULL && !ft__mpi_ulfm_revoked(c->live))
		(void)PMPIX_Comm_revoke(c->live);
}

static void
nop_revoke(MPI_Comm c)
{
	if (FT_MPI_INTER(c) || msg_mode(c) != FT_FTMPI_NOP ||
	    !ft__mpi_ulfm_unacked(c))
		return;
	revoke(c);
}

void
ft__mpi_ftmpi_tick(void)
{
	uint32_t n;

	if (!ft__mpi.ftmpi || (n = ft__mpi_ulfm_known()) ==
	    ft__mpi.ftmpi_known)
		return;
	ft__mpi.ftmpi_known = n;
	ft__mpi_comm_each(nop_revoke);
}

int
ft__mpi_ftmpi_pending(struct ft_mpi_req *r)
{
	MPI_Comm c = r->comm;

	if (ft__mpi.ftmpi && !r->pt.done && c != MPI_COMM_NULL &&
	    FT_MPI_INTER(c))
		inter_abort(c);
	if (!ft__mpi.ftmpi || r->pt.done || c == MPI_COMM_NULL ||
	    FT_MPI_INTER(c) || (msg_mode(c) != FT_FTMPI_NOP &&
	    comm_mode(c) != FT_FTMPI_ABORT) || !ft__mpi_ulfm_unacked(c))
		return 0;
	if (comm_mode(c) == FT_FTMPI_ABORT)
		mode_abort(c);
	/* Every pending operation on it fails (MPIX_ERR_REVOKED), here
	 * and at the other members. */
	revoke(c);
	return r->pt.done;
}

int
ft__mpi_ftmpi_gone(MPI_Comm comm, int peer)
{
	const uint32_t *f;
	int n, k;

	if (!ft__mpi.ftmpi || FT_MPI_INTER(comm) || peer < 0 ||
	    peer >= comm->size)
		return 0;
	f = ft__mpi_ulfm_failed(comm, &n);
	for (k = 0; k < n; k++)
		if (f[k] == comm->world[peer])
			return 1;
	return 0;
}

MPI_Comm
ft__mpi_ftmpi_coll_comm(MPI_Comm comm)
{
	if (!ft__mpi.ftmpi || !ft__mpi_comm_ok(comm) || comm->live == NULL)
		return comm;
	return comm->live;
}

void
ft__mpi_ftmpi_free(MPI_Comm c)
{
	if (c->live != NULL) {
		ft__mpi_comm_drop_hidden(c->live);
		c->live = NULL;
	}
}

/* See mpi_impl.h. */
int
ft__mpi_ftmpi_members(MPI_Comm comm, int **members, int *m, int *me)
{
	MPI_Comm live = ft__mpi_ftmpi_coll_comm(comm);
	int i, j;

	*members = NULL;
	*m = comm->size;
	*me = comm->rank;
	if (live == comm)
		return 0;
	if ((*members = calloc((size_t)live->size, sizeof(**members))) ==
	    NULL)
		return -1;
	/* The live members keep their order (make_live). */
	for (i = 0, j = 0; i < comm->size && j < live->size; i++)
		if (comm->world[i] == live->world[j])
			(*members)[j++] = i;
	*m = live->size;
	*me = live->rank;
	return 0;
}

/* See mpi_impl.h. */
int
ft__mpi_ftmpi_unhole(MPI_Comm comm, uint32_t *world, int *ranks, int n,
    int *me)
{
	int i, k, mine = *me;

	for (i = 0, k = 0; i < n; i++) {
		if (is_hole(comm, ranks[i]))
			continue;
		if (i == mine)
			*me = k;
		ranks[k] = ranks[i];
		world[k++] = world[i];
	}
	return k;
}

/* See mpi_impl.h. */
int
ft__mpi_ftmpi_local(MPI_Comm *local, int *leader, const char *call)
{
	MPI_Comm c = *local, live = ft__mpi_ftmpi_coll_comm(c);
	int i;

	if (live == c || *leader < 0 || *leader >= c->size)
		return MPI_SUCCESS;
	for (i = 0; i < live->size; i++)
		if (live->world[i] == c->world[*leader])
			break;
	if (i == live->size)
		return ft__mpi_err(c, MPI_ERR_RANK, call, "local_leader %d is "
		    "a hole: its process failed and the communicator was "
		    "recovered in mode BLANK", *leader);
	live->errh = c->errh;
	*local = live;
	*leader = i;
	return MPI_SUCCESS;
}

/* See mpi_impl.h. */
int
ft__mpi_ftmpi_whole(MPI_Comm comm, const char *call)
{
	if (ft__mpi_ftmpi_coll_comm(comm) == comm)
		return MPI_SUCCESS;
	return ft__mpi_err(comm, MPI_ERR_COMM, call, "the communicator has "
	    "holes (FT-MPI mode BLANK): %s", strcmp(call, "MPI_Comm_idup") ==
	    0 ? "duplicate it with MPI_Comm_dup" : "make the topology from a "
	    "communicator without holes (MPI_Comm_split or MPI_Comm_create "
	    "of this one gives one)");
}

/* The survivors of comm: world ranks and our rank among them. */
static uint32_t *
survivors(MPI_Comm comm, const uint8_t *failed, int *n, int *me)
{
	uint32_t *w;
	int i;

	if ((w = calloc((size_t)comm->size, sizeof(*w))) == NULL)
		return NULL;
	*n = 0;
	*me = -1;
	for (i = 0; i < comm->size; i++) {
		if ((failed[i / 8] >> (i % 8)) & 1)
			continue;
		if (i == comm->rank)
			*me = *n;
		w[(*n)++] = comm->world[i];
	}
	return w;
}

/* BLANK: the hidden communicator of c's live members, for collectives. */
static int
make_live(MPI_Comm c, uint32_t ctx, const uint8_t *failed)
{
	uint32_t *w;
	int n, me;

	if ((w = survivors(c, failed, &n, &me)) == NULL)
		return MPI_ERR_NO_MEM;
	if (me < 0 || (c->live = ft__mpi_comm_new(c, ctx, w, n, me)) ==
	    MPI_COMM_NULL) {
		free(w);
		return me < 0 ? MPI_ERR_INTERN : MPI_ERR_NO_MEM;
	}
	free(w);
	c->live->errh = c->errh;
	ft__mpi_comm_hide(c->live);
	return MPI_SUCCESS;
}

/*
 * MPI_COMM_WORLD recovered in place: members w (n, we being me), its
 * new context pair, and (BLANK) its holes' live communicator.
 */
static int
world_rebuild(uint32_t *w, int n, int me, uint32_t ctx, int blank,
    uint32_t livectx, const uint8_t *failed)
{
	MPI_Comm world = MPI_COMM_WORLD;

	ft__mpi_ftmpi_free(world);
	free(world->world);
	world->world = w;
	world->size = n;
	world->rank = me;
	world->ctx = ctx;
	if (ft__mpi_ulfm_absorb(world, blank) != 0)
		return MPI_ERR_NO_MEM;
	if (blank && failed != NULL)
		return make_live(world, livectx, failed);
	return MPI_SUCCESS;
}

/*
 * The survivors' JOIN is here, and so is the view the launcher gave us
 * when we joined the job (ftrun's process_rejoined): the deaths it
 * names are old news, which JOIN's list of members still failed covers.
 * The two come on different connections, in either order.
 */
static int
joined(void *arg)
{
	struct ft_ext *x = arg;

	x->op = FT_EXT_JOIN_TEST;
	return ft_pt_ext(ft__mpi.pt, x) == 0 && x->result && ft__mpi.views > 0;
}

/*
 * Every member of the rebuilt world that JOIN does not name failed runs
 * here too.  Our join view may name a member dead that another new
 * process took the place of since (two failed at once: the launcher
 * told us before the other one joined); the survivors saw it run again
 * before they sent JOIN, and its REVIVE is on its way to us, on another
 * connection than JOIN.  Until it comes, our engine takes the member
 * for dead and our first operation with it fails, at us alone: the
 * others would go on waiting for us in it (ft-ftmpi(3) BUGS, fixed).
 */
static int
members_alive(void *arg)
{
	const struct ft_ext *x = arg;
	MPI_Comm world = MPI_COMM_WORLD;
	uint32_t k;
	int i, still;

	for (i = 0; i < world->size; i++) {
		if (i == world->rank)
			continue;
		for (k = 0, still = 0; k < x->ndead && !still; k++)
			still = x->dead[k] == world->world[i];
		if (!still && !ft__mpi_ulfm_alive(world->world[i]))
			return 0;
	}
	return 1;
}

/*
 * A replacement's first MPI_Comm_dup of MPI_COMM_WORLD: wait for the
 * survivors' JOIN, and for the members it counts alive to be alive here
 * too; take the rebuilt world's context, and make the duplicate they
 * make.
 */
static int
join(const char *call, MPI_Comm *newcomm)
{
	struct ft_ext x;
	MPI_Comm world = MPI_COMM_WORLD, c;
	int rc;

	memset(&x, 0, sizeof(x));
	ft__mpi_wait(joined, &x);
	ft__mpi_wait(members_alive, &x);
	ft__mpi_ctx_own_above(x.seq);
	world->ctx = x.ctx;
	if (ft__mpi_ulfm_keep(world, x.dead, (int)x.ndead) != 0 ||
	    (c = ft__mpi_comm_new(world, x.ctxv, world->world, world->size,
	    world->rank)) == MPI_COMM_NULL)
		return ft__mpi_err(world, MPI_ERR_NO_MEM, call,
		    "out of memory");
	if ((rc = ft__mpi_comm_finish(call, world, c, newcomm)) !=
	    MPI_SUCCESS)
		return rc;
	ft__mpi.replacement = 2;
	(void)ft__mpi_ulfm_keep(*newcomm, x.dead, (int)x.ndead);
	ft__mpi.ftmpi_known = UINT32_MAX;
	return MPI_SUCCESS;
}

struct wait_alive {
	MPI_Comm	 comm;
	const uint8_t	*failed;
	const uint8_t	*pre;	/* comm's failed members before the decision */
	uint32_t	 n0;	/* the protocol's deaths known then */
};

/* Has this process seen w fail: before the decision, or in a view since? */
static int
seen_failed(const struct wait_alive *w, int i)
{
	struct ft_ext x = { .op = FT_EXT_FAILED };
	uint32_t k;

	if ((w->pre[i / 8] >> (i % 8)) & 1)
		return 1;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0)
		return 0;
	for (k = w->n0; k < x.ndead; k++)
		if (x.dead[k] == w->comm->world[i])
			return 1;
	return 0;
}

/*
 * Every member the decision names failed runs again: this process has
 * seen it fail (the launcher's view, which may come after the decision:
 * others knew first) and then run again (REVIVE, which comes after the
 * view).  Alive and not yet seen failed is not enough: that is a death
 * this process has yet to hear of.  The decision itself puts the
 * members it names in comm's list of failed ones, so what was seen is
 * told from that list as it was before the decision and from the views
 * that came since (the same rank failing again was taken for alive at
 * the survivors that had not had the view yet: they rebuilt, had it,
 * and found the rebuilt world in error).
 */
static int
all_alive(void *arg)
{
	const struct wait_alive *w = arg;
	int i;

	for (i = 0; i < w->comm->size; i++) {
		if (!((w->failed[i / 8] >> (i % 8)) & 1))
			continue;
		if (!seen_failed(w, i) ||
		    !ft__mpi_ulfm_alive(w->comm->world[i]))
			return 0;
	}
	return 1;
}

/*
 * REBUILD of MPI_COMM_WORLD at a survivor: wait until the launcher has
 * a new process in every failed rank's place, and have the lowest
 * survivor tell them the contexts.
 */
static int
rebuild_wait(const struct wait_alive *wa, const char *call, uint32_t k,
    uint32_t U, const uint32_t *still, int nstill)
{
	MPI_Comm comm = wa->comm;
	const uint8_t *failed = wa->failed;
	struct ft_ext x = { .op = FT_EXT_JOIN_SEND };
	uint32_t *to;
	int i, leader = -1, n = 0, rc = 0;

	ft__mpi_wait(all_alive, (void *)wa);
	for (i = 0; i < comm->size && leader < 0; i++)
		if (!((failed[i / 8] >> (i % 8)) & 1))
			leader = i;
	if (leader != comm->rank)
		return MPI_SUCCESS;
	if ((to = calloc((size_t)comm->size, sizeof(*to))) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	for (i = 0; i < comm->size; i++)
		if ((failed[i / 8] >> (i % 8)) & 1)
			to[n++] = comm->world[i];
	x.members = to;
	x.n = (uint32_t)n;
	x.ctx = FT_MPI_CTX_IDUP + 2 * (k + PAIR_WORLD * U);
	x.ctxv = FT_MPI_CTX_IDUP + 2 * (k + PAIR_DUP * U);
	x.seq = k + (NPAIRS - 1) * U;
	x.dead = still;
	x.ndead = (uint32_t)nstill;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0)
		rc = ft__mpi_err(comm, MPI_ERR_INTERN, call, "unable to tell "
		    "the new processes: %s", strerror(errno));
	free(to);
	return rc;
}

/* comm's failed members that the decision failed does not name. */
static uint32_t *
still_failed(MPI_Comm comm, const uint8_t *failed, int *n)
{
	const uint32_t *f;
	uint32_t *out;
	int nf, i, j, in;

	f = ft__mpi_ulfm_failed(comm, &nf);
	if ((out = calloc((size_t)nf + 1, sizeof(*out))) == NULL)
		return NULL;
	*n = 0;
	for (j = 0; j < nf; j++) {
		for (i = 0, in = 0; i < comm->size && !in; i++)
			in = comm->world[i] == f[j] &&
			    ((failed[i / 8] >> (i % 8)) & 1);
		if (!in)
			out[(*n)++] = f[j];
	}
	return out;
}

/* See mpi_impl.h. */
int
ft__mpi_ftmpi_dup(MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
	MPI_Comm base = comm, c;
	struct wait_alive wa;
	const uint32_t *f;
	uint8_t *failed, *pre;
	uint32_t k, first, U = ft__mpi.env.universe, *w = NULL, *still = NULL;
	int i, j, nf = 0, n, me, mode, rc, inworld, nstill = 0;

	if (ft__mpi.replacement == 1 && comm == MPI_COMM_WORLD)
		return join(call, newcomm);
	mode = comm_mode(comm);
	inworld = comm == MPI_COMM_WORLD;
	/* Four indices in a row: the largest proposed names them all. */
	first = ft__mpi_ctx_own();
	for (i = 1; i < NPAIRS; i++)
		(void)ft__mpi_ctx_own();
	if (first == FT_MPI_CTX_OWN_NONE ||
	    (uint64_t)first + (uint64_t)(NPAIRS - 1) * U >=
	    FT_MPI_CTX_OWN_LIMIT)
		return ft__mpi_err(comm, MPI_ERR_INTERN, call, "no context "
		    "id is left");
	/* failed, then pre: what this process saw fail before deciding. */
	if ((failed = calloc(((size_t)comm->size + 7) / 8, 2)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	pre = failed + ((size_t)comm->size + 7) / 8;
	/*
	 * A communicator in error: its members still in an operation on
	 * it (CONT lets them wait for a live process) must come to the
	 * recovery too, so everything pending on it fails, everywhere.
	 */
	if (ft__mpi_ulfm_unacked(comm))
		revoke(comm);
	/* What this process has seen fail, for rebuild_wait. */
	f = ft__mpi_ulfm_failed(comm, &n);
	for (j = 0; j < n; j++)
		for (i = 0; i < comm->size; i++)
			if (comm->world[i] == f[j])
				pre[i / 8] |= (uint8_t)(1u << (i % 8));
	wa.pre = pre;
	wa.n0 = ft__mpi_ulfm_known();
	if ((rc = ft__mpi_ulfm_decide(comm, call, first, failed, &k)) !=
	    MPI_SUCCESS)
		goto out;
	for (i = 0; i < comm->size; i++)
		nf += (failed[i / 8] >> (i % 8)) & 1;
#define CTX(pair)	(FT_MPI_CTX_IDUP + 2 * (k + (pair) * U))
	if (nf > 0 && mode == FT_FTMPI_ABORT)
		mode_abort(comm);
	if (nf > 0 && mode == FT_FTMPI_REBUILD && !inworld)
		mode = FT_FTMPI_SHRINK;
	if (nf > 0 && mode == FT_FTMPI_REBUILD) {
		/*
		 * Members failed that this recovery does not rebuild (they
		 * died after the agreement) stay failed in the rebuilt
		 * world, at the new processes too, though a new process may
		 * run in their place already: the next recovery has them.
		 */
		if ((still = still_failed(comm, failed, &nstill)) == NULL)
			goto nomem;
		wa.comm = comm;
		wa.failed = failed;
		if ((rc = rebuild_wait(&wa, call, k, U, still, nstill)) !=
		    MPI_SUCCESS)
			goto out;
		if ((w = calloc((size_t)comm->size, sizeof(*w))) == NULL)
			goto nomem;
		memcpy(w, comm->world, (size_t)comm->size * sizeof(*w));
		/* MPI_COMM_WORLD owns w from here. */
		rc = world_rebuild(w, comm->size, comm->rank, CTX(PAIR_WORLD),
		    0, 0, NULL);
		w = NULL;
		if (rc == MPI_SUCCESS &&
		    ft__mpi_ulfm_keep(MPI_COMM_WORLD, still, nstill) != 0)
			rc = MPI_ERR_NO_MEM;
		if (rc != MPI_SUCCESS)
			goto fail;
	} else if (nf > 0 && mode == FT_FTMPI_SHRINK) {
		if ((w = survivors(comm, failed, &n, &me)) == NULL)
			goto nomem;
		if (inworld) {
			rc = world_rebuild(w, n, me, CTX(PAIR_WORLD), 0, 0,
			    NULL);
			w = NULL;
			if (rc != MPI_SUCCESS)
				goto fail;
		} else {
			/* The survivors' communicator is made from w. */
			if ((c = ft__mpi_comm_new(comm, CTX(PAIR_DUP), w, n,
			    me)) == MPI_COMM_NULL)
				goto nomem;
			free(w);
			w = NULL;
			goto finish;
		}
	} else if (nf > 0 && inworld) {
		/* BLANK: the same members, with holes. */
		if ((w = calloc((size_t)comm->size, sizeof(*w))) == NULL)
			goto nomem;
		memcpy(w, comm->world, (size_t)comm->size * sizeof(*w));
		rc = world_rebuild(w, comm->size, comm->rank, CTX(PAIR_WORLD),
		    1, CTX(PAIR_WORLD_LIVE), failed);
		w = NULL;
		if (rc != MPI_SUCCESS)
			goto fail;
	}
	/* MPI_COMM_WORLD, rebuilt in place, is what the duplicate copies. */
	base = inworld ? MPI_COMM_WORLD : comm;
	if ((c = ft__mpi_comm_new(base, CTX(PAIR_DUP), base->world,
	    base->size, base->rank)) == MPI_COMM_NULL)
		goto nomem;
finish:
	if ((rc = ft__mpi_comm_finish(call, comm, c, newcomm)) != MPI_SUCCESS)
		goto out;
	if ((mode == FT_FTMPI_REBUILD && still != NULL ?
	    ft__mpi_ulfm_keep(*newcomm, still, nstill) :
	    ft__mpi_ulfm_absorb(*newcomm, mode == FT_FTMPI_BLANK)) != 0 ||
	    (mode == FT_FTMPI_BLANK && nf > 0 && make_live(*newcomm,
	    CTX(PAIR_DUP_LIVE), failed) != MPI_SUCCESS))
		rc = ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	else
		rc = MPI_SUCCESS;
	goto out;
#undef CTX
nomem:
	rc = ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	goto out;
fail:
	rc = ft__mpi_err(comm, rc, call, "unable to rebuild MPI_COMM_WORLD");
out:
	/*
	 * The recovered communicators may be in error from the start (a
	 * member failed after the agreement): the next tick looks at
	 * every communicator again, so that NOP revokes them.
	 */
	ft__mpi.ftmpi_known = UINT32_MAX;
	free(still);
	free(w);
	free(failed);
	return rc;
}

/* The info keys, and the values they take (ft-ftmpi(3)). */
#define KEY_COMM	"ft_comm_mode"
#define KEY_MSG		"ft_msg_mode"

int
ft__mpi_ftmpi_set_info(MPI_Comm comm, MPI_Info info, const char *call)
{
	char val[MPI_MAX_INFO_VAL + 1];
	int flag, cm = 0, mm = 0;

	if (info == MPI_INFO_NULL)
		return MPI_SUCCESS;
	if (MPI_Info_get(info, KEY_COMM, MPI_MAX_INFO_VAL, val, &flag) ==
	    MPI_SUCCESS && flag && (cm = ft_ftmpi_comm_parse(val)) < 0)
		return ft__mpi_err(comm, MPI_ERR_INFO_VALUE, call, "'%s' is "
		    "no communicator mode (%s: shrink, blank, rebuild or "
		    "abort)", val, KEY_COMM);
	if (MPI_Info_get(info, KEY_MSG, MPI_MAX_INFO_VAL, val, &flag) ==
	    MPI_SUCCESS && flag && (mm = ft_ftmpi_msg_parse(val)) < 0)
		return ft__mpi_err(comm, MPI_ERR_INFO_VALUE, call, "'%s' is "
		    "no message mode (%s: cont or nop)", val, KEY_MSG);
	if ((cm != 0 || mm != 0) && !ft__mpi.ftmpi)
		return ft__mpi_err(comm, MPI_ERR_INFO_VALUE, call, "the job "
		    "does not run under FT-MPI's modes: run it with ftrun "
		    "--ft ftmpi");
	/* No recovery of an intercommunicator: ABORT, or ULFM's rules. */
	if (FT_MPI_INTER(comm) && ((cm != 0 && cm != FT_FTMPI_ABORT) ||
	    mm == FT_FTMPI_NOP))
		return ft__mpi_err(comm, MPI_ERR_INFO_VALUE, call, "%s %s on "
		    "an intercommunicator: ft recovers intracommunicators "
		    "only; an intercommunicator takes %s abort or follows "
		    "ULFM's rules (recover the communicators of its groups "
		    "and make it again)", cm != 0 && cm != FT_FTMPI_ABORT ?
		    KEY_COMM : KEY_MSG, cm != 0 && cm != FT_FTMPI_ABORT ?
		    ft_ftmpi_comm_name(cm) : ft_ftmpi_msg_name(mm), KEY_COMM);
	if (cm != 0)
		comm->ftmpi_comm = cm;
	if (mm != 0)
		comm->ftmpi_msg = mm;
	return MPI_SUCCESS;
}

int
ft__mpi_ftmpi_get_info(MPI_Comm comm, MPI_Info info)
{
	if (!ft__mpi.ftmpi)
		return MPI_SUCCESS;
	/* An intercommunicator: ABORT, or no mode (ULFM's rules). */
	if (FT_MPI_INTER(comm))
		return comm_mode(comm) != FT_FTMPI_ABORT || MPI_Info_set(info,
		    KEY_COMM, ft_ftmpi_comm_name(FT_FTMPI_ABORT)) ==
		    MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_NO_MEM;
	if (MPI_Info_set(info, KEY_COMM,
	    ft_ftmpi_comm_name(comm_mode(comm))) != MPI_SUCCESS ||
	    MPI_Info_set(info, KEY_MSG, ft_ftmpi_msg_name(msg_mode(comm))) !=
	    MPI_SUCCESS)
		return MPI_ERR_NO_MEM;
	return MPI_SUCCESS;
}
