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
 * An intercommunicator takes SHRINK (MPIX_Comm_shrink: the survivors
 * of both groups) and ABORT only.
 *
 * Recovering MPI_COMM_WORLD also recovers the handle MPI_COMM_WORLD in
 * place, as FT-MPI does, so that a program that names it goes on.  The
 * agreement's context index k (the largest proposed; each member draws
 * four in a row, ft__mpi_ctx_after(k, i)) gives four context pairs: the
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
	uint64_t stride = (uint64_t)FT_MPI_CTX_OWN_SPLIT / U / 16;

	if (stride > (1u << 20))
		stride = 1u << 20;
	if (stride == 0 || inc * stride < 1)
		return;
	ft__mpi_ctx_own_above((uint32_t)((inc * stride - 1) * U));
}

/*
 * REBUILD's ledger, by process: the incarnation running in its place as
 * this process knows it (0 at the start, then each REVIVE's, or the
 * survivors' in a JOIN), how many of its deaths recoveries have rebuilt
 * (covered), and its process (node, pid: the launcher's table, then
 * REVIVE's).  A process has a death not rebuilt when its incarnation,
 * plus one if it is dead now, passes covered: that is what makes it a
 * failed member of the rebuilt MPI_COMM_WORLD.  A recovery that names
 * it rebuilds one more of its deaths: every survivor waits until it
 * knows an incarnation past those rebuilt (the new one's REVIVE), then
 * counts it covered.  Counting deaths, not remembering which were seen
 * when, makes every process tell the same story whatever order the
 * views, REVIVEs, JOINs and agreements came in (ft-ftmpi(3) BUGS, the
 * hangs of two failures at once and of a new process dying again).
 */
static struct {
	uint32_t		 n;
	struct ft_join_member	*m;
	uint8_t			*revived;	/* inc is a REVIVE's */
	uint32_t		 self_inc;
} ledger;

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
		ledger.self_inc = (uint32_t)inc;
	}
}

/* The ledger holds processes 0..n-1. */
static int
ledger_grow(uint32_t n)
{
	struct ft_join_member *m;
	uint8_t *r;

	if (n <= ledger.n)
		return 0;
	if ((m = reallocarray(ledger.m, n, sizeof(*m))) == NULL)
		return -1;
	ledger.m = m;
	if ((r = realloc(ledger.revived, n)) == NULL)
		return -1;
	ledger.revived = r;
	memset(ledger.m + ledger.n, 0, (n - ledger.n) * sizeof(*m));
	memset(ledger.revived + ledger.n, 0, n - ledger.n);
	ledger.n = n;
	return 0;
}

void
ft__mpi_ftmpi_table(const struct ft_rank_addr *a, uint32_t n)
{
	uint32_t q;

	if (!ft__mpi.ftmpi || ledger_grow(n) != 0)
		return;
	for (q = 0; q < n; q++) {
		ledger.m[q].node = a[q].node;
		ledger.m[q].pid = a[q].pid;
	}
}

void
ft__mpi_ftmpi_revived(uint32_t q, uint32_t inc, const struct ft_rank_addr *a)
{
	if (!ft__mpi.ftmpi || q >= FT_WIRE_MAX_RANKS || ledger_grow(q + 1) != 0)
		return;
	ledger.m[q].inc = inc;
	ledger.m[q].node = a->node;
	ledger.m[q].pid = a->pid;
	ledger.revived[q] = 1;
}

/* Process w died more times than recoveries rebuilt it. */
static int
uncovered(uint32_t w)
{
	if (w >= ledger.n)
		return 0;
	return ledger.m[w].inc + !ft__mpi_ulfm_alive(w) >
	    ledger.m[w].covered;
}

/*
 * The members of MPI_COMM_WORLD (world ranks w, n of them, we being
 * me) failed in the rebuilt world: those with a death not rebuilt.
 */
static uint32_t *
ledger_failed(const uint32_t *w, int n, int me, int *nout)
{
	uint32_t *out;
	int i;

	if ((out = calloc((size_t)n + 1, sizeof(*out))) == NULL)
		return NULL;
	*nout = 0;
	for (i = 0; i < n; i++)
		if (i != me && uncovered(w[i]))
			out[(*nout)++] = w[i];
	return out;
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
 * An intercommunicator takes two modes (ft-ftmpi(3)): ABORT, a failure
 * in either group ends the job; SHRINK, MPI_Comm_dup recovers it to the
 * survivors of both groups (REBUILD shrinks it too, as it does every
 * communicator but MPI_COMM_WORLD).  Else (BLANK: an intercommunicator
 * has no holes) it follows ULFM's rules, and in every mode its message
 * mode is CONT.  0: ULFM's rules.
 */
static int
inter_mode(MPI_Comm c)
{
	int m = comm_mode(c);

	if (m == FT_FTMPI_REBUILD)
		return FT_FTMPI_SHRINK;
	return m == FT_FTMPI_ABORT || m == FT_FTMPI_SHRINK ? m : 0;
}

int
ft__mpi_ftmpi_recovers(MPI_Comm c)
{
	return ft__mpi.ftmpi && (!FT_MPI_INTER(c) ||
	    inter_mode(c) == FT_FTMPI_SHRINK);
}

/*
 * SHRINK of an intercommunicator: MPIX_Comm_shrink, then what a
 * duplicate takes (its attributes copied).  As for an
 * intracommunicator, a member that knows of a failure revokes it first,
 * so that members still waiting on it come to the recovery.
 */
static int
inter_recover(MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
	MPI_Comm c;
	int rc;

	if (ft__mpi_ulfm_unacked(comm) && !ft__mpi_ulfm_revoked(comm))
		(void)PMPIX_Comm_revoke(comm);
	if ((rc = ft__mpi_ulfm_shrink(comm, call, &c)) != MPI_SUCCESS)
		return rc;
	return ft__mpi_comm_finish(call, comm, c, newcomm);
}

/* ABORT on an intercommunicator: a failure in either group ends the
 * job. */
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
 * when we joined the job (ftrun's process_rejoined): the members it
 * names dead count in the ledger.  The two come on different
 * connections, in either order.
 */
static int
joined(void *arg)
{
	struct ft_ext *x = arg;

	x->op = FT_EXT_JOIN_TEST;
	return ft_pt_ext(ft__mpi.pt, x) == 0 && x->result && ft__mpi.views > 0;
}

/*
 * The survivors' JOIN names, for each member, the process they have in
 * its place (node, pid); ours is that one, or a later one we had a
 * REVIVE for (it failed again: the next recovery has it).  Ours may be
 * behind: a member that died since we joined the job, whose REVIVE is
 * on its way, on another connection than JOIN.  The survivors know all
 * the launcher told us before our table (their JOIN came after our
 * REVIVE, which the launcher sent after it), so ours is never ahead
 * without a REVIVE.
 */
static int
members_known(void *arg)
{
	const struct ft_ext *x = arg;
	MPI_Comm world = MPI_COMM_WORLD;
	struct ft_join_member j;
	const struct ft_join_member *m;
	const uint32_t *v;
	uint32_t w;
	int i;

	for (i = 0; i < world->size; i++) {
		if (i == world->rank)
			continue;
		w = world->world[i];
		v = x->jmembers + (size_t)i * FT_JOIN_MEMBER_WORDS;
		j = (struct ft_join_member){ v[0], v[1], v[2], v[3] };
		if (w >= ledger.n)
			return 0;
		m = &ledger.m[w];
		if (!(m->node == j.node && m->pid == j.pid) &&
		    !(ledger.revived[w] && m->inc > j.inc))
			return 0;
	}
	return 1;
}

/*
 * A replacement's first MPI_Comm_dup of MPI_COMM_WORLD: wait for the
 * survivors' JOIN, and for the processes it names to be ours too; take
 * the survivors' ledger, the rebuilt world's context, and make the
 * duplicate they make.
 */
static int
join(const char *call, MPI_Comm *newcomm)
{
	struct ft_ext x;
	MPI_Comm world = MPI_COMM_WORLD, c;
	const uint32_t *v;
	uint32_t w, *failed;
	int i, nfailed, rc;

	memset(&x, 0, sizeof(x));
	ft__mpi_wait(joined, &x);
	if (x.njmembers != (uint32_t)world->size ||
	    ledger_grow((uint32_t)world->size) != 0)
		return ft__mpi_err(world, MPI_ERR_INTERN, call, "the "
		    "survivors' JOIN names %u processes, not the %d of "
		    "MPI_COMM_WORLD", x.njmembers, world->size);
	ft__mpi_wait(members_known, &x);
	for (i = 0; i < world->size; i++) {
		w = world->world[i];
		v = x.jmembers + (size_t)i * FT_JOIN_MEMBER_WORDS;
		if (i == world->rank)
			ledger.m[w].inc = ledger.self_inc;
		else if (!(ledger.revived[w] && ledger.m[w].inc > v[0]))
			ledger.m[w].inc = v[0];
		ledger.m[w].covered = v[1];
	}
	if ((failed = ledger_failed(world->world, world->size, world->rank,
	    &nfailed)) == NULL)
		return ft__mpi_err(world, MPI_ERR_NO_MEM, call,
		    "out of memory");
	ft__mpi_ctx_own_above(x.seq);
	world->ctx = x.ctx;
	if (ft__mpi_ulfm_keep(world, failed, nfailed) != 0 ||
	    (c = ft__mpi_comm_new(world, x.ctxv, world->world, world->size,
	    world->rank)) == MPI_COMM_NULL) {
		free(failed);
		return ft__mpi_err(world, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	if ((rc = ft__mpi_comm_finish(call, world, c, newcomm)) !=
	    MPI_SUCCESS) {
		free(failed);
		return rc;
	}
	ft__mpi.replacement = 2;
	(void)ft__mpi_ulfm_keep(*newcomm, failed, nfailed);
	free(failed);
	ft__mpi.ftmpi_known = UINT32_MAX;
	return MPI_SUCCESS;
}

/*
 * Every member the decision names failed runs again: this process knows
 * an incarnation of it past those rebuilt (its REVIVE), and takes it
 * for alive.  A survivor that has not heard of the death the decision
 * is about yet (the same rank failing again: others knew first) waits
 * for its view and then the REVIVE; one that heard of it before the
 * decision, or whose list of failed members lost it, does not wait for
 * news that came already.
 */
struct wait_alive {
	MPI_Comm	 comm;
	const uint8_t	*failed;
};

static int
all_alive(void *arg)
{
	const struct wait_alive *w = arg;
	uint32_t q;
	int i;

	for (i = 0; i < w->comm->size; i++) {
		if (!((w->failed[i / 8] >> (i % 8)) & 1))
			continue;
		q = w->comm->world[i];
		if (q >= ledger.n || ledger.m[q].inc <= ledger.m[q].covered ||
		    !ft__mpi_ulfm_alive(q))
			return 0;
	}
	return 1;
}

/*
 * REBUILD of MPI_COMM_WORLD at a survivor: wait until a new process
 * runs in every failed rank's place, count those deaths rebuilt, and
 * have the lowest survivor tell the new processes the contexts and the
 * ledger.
 */
static int
rebuild_wait(const struct wait_alive *wa, const char *call, uint32_t k)
{
	MPI_Comm comm = wa->comm;
	const uint8_t *failed = wa->failed;
	struct ft_ext x = { .op = FT_EXT_JOIN_SEND };
	uint32_t *to, *v, *still, q;
	int i, leader = -1, n = 0, nstill, rc = 0;

	ft__mpi_wait(all_alive, (void *)wa);
	for (i = 0; i < comm->size; i++)
		if ((failed[i / 8] >> (i % 8)) & 1)
			ledger.m[comm->world[i]].covered++;
	for (i = 0; i < comm->size && leader < 0; i++)
		if (!((failed[i / 8] >> (i % 8)) & 1))
			leader = i;
	if (leader != comm->rank)
		return MPI_SUCCESS;
	/* The new processes work out the same list from the ledger. */
	if ((still = ledger_failed(comm->world, comm->size, comm->rank,
	    &nstill)) == NULL || (to = calloc((size_t)comm->size *
	    (1 + FT_JOIN_MEMBER_WORDS), sizeof(*to))) == NULL) {
		free(still);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	v = to + comm->size;
	for (i = 0; i < comm->size; i++) {
		q = comm->world[i];
		if ((failed[i / 8] >> (i % 8)) & 1)
			to[n++] = q;
		v[i * FT_JOIN_MEMBER_WORDS] = i == comm->rank ?
		    ledger.self_inc : ledger.m[q].inc;
		v[i * FT_JOIN_MEMBER_WORDS + 1] = ledger.m[q].covered;
		v[i * FT_JOIN_MEMBER_WORDS + 2] = ledger.m[q].node;
		v[i * FT_JOIN_MEMBER_WORDS + 3] = ledger.m[q].pid;
	}
	x.members = to;
	x.n = (uint32_t)n;
	x.ctx = FT_MPI_CTX_IDUP + 2 * ft__mpi_ctx_after(k, PAIR_WORLD);
	x.ctxv = FT_MPI_CTX_IDUP + 2 * ft__mpi_ctx_after(k, PAIR_DUP);
	x.seq = ft__mpi_ctx_after(k, NPAIRS - 1);
	x.dead = still;
	x.ndead = (uint32_t)nstill;
	x.jmembers = v;
	x.njmembers = (uint32_t)comm->size;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0)
		rc = ft__mpi_err(comm, MPI_ERR_INTERN, call, "unable to tell "
		    "the new processes: %s", strerror(errno));
	free(still);
	free(to);
	return rc;
}

/* See mpi_impl.h. */
int
ft__mpi_ftmpi_dup(MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
	MPI_Comm base = comm, c;
	struct wait_alive wa;
	uint8_t *failed;
	uint32_t k, first, *w = NULL, *still = NULL;
	int i, nf = 0, n, me, mode, rc, inworld, nstill = 0;

	if (FT_MPI_INTER(comm))
		return inter_recover(comm, call, newcomm);
	if (ft__mpi.replacement == 1 && comm == MPI_COMM_WORLD)
		return join(call, newcomm);
	mode = comm_mode(comm);
	inworld = comm == MPI_COMM_WORLD;
	/* Four indices in a row: the largest proposed names them all. */
	first = ft__mpi_ctx_own();
	for (i = 1; i < NPAIRS; i++)
		(void)ft__mpi_ctx_own();
	if (first == FT_MPI_CTX_OWN_NONE ||
	    ft__mpi_ctx_after(first, NPAIRS - 1) == FT_MPI_CTX_OWN_NONE)
		return ft__mpi_err(comm, MPI_ERR_INTERN, call, "no context "
		    "id is left");
	if ((failed = calloc(((size_t)comm->size + 7) / 8, 1)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	/*
	 * A communicator in error: its members still in an operation on
	 * it (CONT lets them wait for a live process) must come to the
	 * recovery too, so everything pending on it fails, everywhere.
	 */
	if (ft__mpi_ulfm_unacked(comm))
		revoke(comm);
	if ((rc = ft__mpi_ulfm_decide(comm, call, first, failed, &k)) !=
	    MPI_SUCCESS)
		goto out;
	/* Every member checked its own draws: k's four are there. */
	if (ft__mpi_ctx_after(k, NPAIRS - 1) == FT_MPI_CTX_OWN_NONE) {
		rc = ft__mpi_err(comm, MPI_ERR_INTERN, call, "the agreed "
		    "context index %u has no four ids", k);
		goto out;
	}
	for (i = 0; i < comm->size; i++)
		nf += (failed[i / 8] >> (i % 8)) & 1;
#define CTX(pair)	(FT_MPI_CTX_IDUP + 2 * ft__mpi_ctx_after(k, (pair)))
	if (nf > 0 && mode == FT_FTMPI_ABORT)
		mode_abort(comm);
	if (nf > 0 && mode == FT_FTMPI_REBUILD && !inworld)
		mode = FT_FTMPI_SHRINK;
	if (nf > 0 && mode == FT_FTMPI_REBUILD) {
		wa.comm = comm;
		wa.failed = failed;
		if ((rc = rebuild_wait(&wa, call, k)) != MPI_SUCCESS)
			goto out;
		/*
		 * Members with a death this recovery does not rebuild (they
		 * died after the agreement) stay failed in the rebuilt
		 * world, at the new processes too, though a new process may
		 * run in their place already: the next recovery has them.
		 * Taken with no progress pass until both lists are kept,
		 * so that no view falls between the ledger and the lists.
		 */
		if ((still = ledger_failed(comm->world, comm->size,
		    comm->rank, &nstill)) == NULL)
			goto nomem;
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
	/* An intercommunicator: SHRINK, ABORT, or ULFM's rules. */
	if (FT_MPI_INTER(comm) && (cm == FT_FTMPI_BLANK ||
	    cm == FT_FTMPI_REBUILD || mm == FT_FTMPI_NOP))
		return ft__mpi_err(comm, MPI_ERR_INFO_VALUE, call, "%s %s on "
		    "an intercommunicator: it takes %s shrink (MPI_Comm_dup "
		    "recovers it to the survivors of both groups) or abort, "
		    "and its message mode is cont; to have holes or new "
		    "processes, recover the communicators of its groups and "
		    "make it again", mm == FT_FTMPI_NOP ? KEY_MSG : KEY_COMM,
		    mm == FT_FTMPI_NOP ? ft_ftmpi_msg_name(mm) :
		    ft_ftmpi_comm_name(cm), KEY_COMM);
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
	/* An intercommunicator: SHRINK, ABORT, or no mode (ULFM's rules). */
	if (FT_MPI_INTER(comm))
		return inter_mode(comm) == 0 || MPI_Info_set(info, KEY_COMM,
		    ft_ftmpi_comm_name(inter_mode(comm))) == MPI_SUCCESS ?
		    MPI_SUCCESS : MPI_ERR_NO_MEM;
	if (MPI_Info_set(info, KEY_COMM,
	    ft_ftmpi_comm_name(comm_mode(comm))) != MPI_SUCCESS ||
	    MPI_Info_set(info, KEY_MSG, ft_ftmpi_msg_name(msg_mode(comm))) !=
	    MPI_SUCCESS)
		return MPI_ERR_NO_MEM;
	return MPI_SUCCESS;
}
