/* SPDX-License-Identifier: ISC */
/*
 * The "ulfm" protocol: failures are the application's news (ULFM,
 * ft-ulfm(3)).  It sets FT_PROTO_FAILS, so that the engine completes in
 * error every request to or from a dead process, and keeps what the
 * MPI layer's MPIX_ calls need below it:
 *
 *  - the processes known dead, in the order learnt (the launcher's
 *    views: waitpid on this host, the gossip detector across hosts);
 *  - revoked contexts: a revoke is a reliable broadcast, every process
 *    forwarding the first REVOKE it sees of a communicator to all its
 *    members, so it reaches every live member even when the initiator
 *    dies while sending it;
 *  - agreements (MPIX_Comm_agree, _shrink): a consensus among the live
 *    members of a communicator on a value (flag AND, context id MAX,
 *    failed members OR, acknowledged failures AND).  On an
 *    intercommunicator the members are those of both groups, and the
 *    value carries each group's flag apart (IAGREE frames): the MPI
 *    layer gives each side the other's.
 *
 * The agreement relies on the launcher's views being a perfect failure
 * detector (a process is declared dead only once it is: ftrun makes
 * hangs into deaths), as ft's failure model says (ft(7)).  It runs on a
 * tree of radix FANOUT (4), in the manner of the Early Returning
 * Agreement of ULFM (Herault et al., SC'15).  The root is the lowest
 * member not known dead, and its member index names the round; the
 * tree hangs below it by relative position (the parent of position q
 * is q with its lowest nonzero base-4 digit cleared), and a member
 * whose parent is dead hangs from its nearest live ancestor, so every
 * member computes the tree from what it knows, without messages.  Four
 * sweeps, each ceil(log4 n) message delays deep and n - 1 messages:
 *
 *  1. UP: each member sends its parent the combination of its own
 *     contribution and those of its subtree, once it has them all, and
 *     the set of members covered;
 *  2. PROPOSE: the root, covering every member not known dead, proposes
 *     the value it holds from an earlier round if any, else the
 *     combination (with every member known dead in the failed set),
 *     and it goes down the tree;
 *  3. UP again: each member, holding the proposal, tells its parent
 *     once its whole subtree holds it;
 *  4. COMMIT: the root, once every live member holds its proposal,
 *     decides, and the decision goes down (and up: a decided member
 *     tells every tree neighbour that has not told it).  A member
 *     returns as soon as it has the decision.
 *
 * Failures: a member whose parent dies sends what it has again to its
 * new parent, which answers with the proposal or decision it holds;
 * the subtree of a dead child comes through the nearest live ancestor,
 * and waiting for the dead one stops; when the root dies, the next
 * lowest live member is root of a new round and the sweeps start over
 * (contributions already combined are kept).  Uniformity: a root
 * decides only once every live member holds its proposal, so the root
 * of any later round holds it too and proposes it again; a decision
 * made by a process that died since is the decision of all.  A frame
 * of round r tells that members below r are dead (the sender's view
 * says so, and views are perfect).  Agreements on one context run one
 * at a time, in order; a decided instance is kept, to answer members
 * that have not decided it, until a later one on its context is
 * decided (then every live member has decided it).
 */
#include <stdlib.h>

#include "proto.h"

/* Frames that arrive before their agreement is joined, at most. */
#define EARLY_MAX_BYTES	(64u << 20)
#define REVOKED_MAX	(1u << 20)
/* The radix of the agreement's tree: depth ceil(log4 n). */
#define FANOUT		4

/* What a member holds of an agreement. */
enum hold {
	HOLD_NONE = 0,
	HOLD_PROPOSED,
	HOLD_COMMITTED,
};

struct val {
	uint32_t	 flag, ctxv;
	uint8_t		*failed, *acked;
	uint32_t	 flag2;		/* inter: the second group's flag */
};

/* The bitmaps of an instance, nb bytes each, in one block. */
enum {
	BM_GONE,		/* members known dead: views, and rounds */
	BM_COVERED,		/* members whose contribution is in acc */
	BM_ACKS,		/* members holding the proposal of round root */
	BM_TOLDP,		/* members we sent that proposal to */
	BM_TOLDC,		/* members known to hold the decision */
	BM_NUM
};

/* One agreement instance, from the moment this process joins it. */
struct agr {
	struct agr	*next;
	uint32_t	 ctx, seq, n, me;
	size_t		 nb;			/* bytes of a bitmap */
	uint32_t	*members;
	int		 owned;			/* the MPI layer's handle */
	int		 started;		/* earlier ones decided */
	int		 inter;			/* IAGREE: both groups */
	uint8_t		*bm[BM_NUM];
	uint32_t	 root;			/* the round */
	struct val	 acc;			/* contributions combined */
	uint32_t	 hold, hround;		/* enum hold, and its round */
	struct val	 held;			/* proposal, or decision */
	/* The last UP sent: to whom, in which round and phase, how full. */
	uint32_t	 up_to, up_round, up_phase, up_count;
};

/* A frame for an agreement not joined (or not started) yet. */
struct early {
	struct early	*next;
	uint32_t	 proc;
	int		 inter;			/* an IAGREE */
	size_t		 len;
	uint8_t		 body[];
};

/* Agreements forgotten: frames of seq <= floor on ctx are late. */
struct floor {
	uint32_t	 ctx, seq;
};

struct ulfm {
	uint8_t		*dead;		/* bitmap by process id */
	size_t		 capdead;	/* bytes */
	uint32_t	*order;		/* dead processes, as learnt */
	uint32_t	 norder, caporder;
	uint32_t	*revoked;
	size_t		 nrevoked, caprevoked;
	struct agr	*agrs;
	struct early	*early;
	size_t		 early_bytes;
	struct floor	*floors;
	size_t		 nfloors, capfloors;
	/* "ftmpi": the first FTMPI_JOIN that came (a replacement's). */
	int		 joined;
	struct ft_msg_ftmpi_join join;
	uint32_t	*join_failed;	/* join.n of them */
	uint32_t	*join_members;	/* join.nm entries of 4 words */
};

#define NONE	UINT32_MAX

static int
bit(const uint8_t *bm, uint32_t i)
{
	return (bm[i / 8] >> (i % 8)) & 1;
}

static void
bit_set(uint8_t *bm, uint32_t i)
{
	bm[i / 8] |= (uint8_t)(1u << (i % 8));
}

static int
is_dead(const struct ulfm *u, uint32_t proc)
{
	return (size_t)proc / 8 < u->capdead && bit(u->dead, proc);
}

static void
val_copy(struct val *d, const struct ft_agree_val *s, size_t nb)
{
	d->flag = s->flag;
	d->ctxv = s->ctxv;
	d->flag2 = s->flag2;
	memcpy(d->failed, s->failed, nb);
	memcpy(d->acked, s->acked, nb);
}

static struct ft_agree_val
val_wire(const struct val *v)
{
	return (struct ft_agree_val){ v->flag, v->ctxv, v->failed, v->acked,
	    v->flag2 };
}

static void
agr_free(struct agr *a)
{
	free(a->members);
	free(a->bm[0]);
	free(a);
}

static int
ulfm_init(struct ft_proto *p, const struct ft_conf *conf)
{
	(void)p;
	/* One process a rank: the engine's process ids are ranks. */
	if (conf->ppr > 1) {
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

static void
ulfm_fini(struct ft_proto *p)
{
	struct ulfm *u = p->priv;
	struct agr *a;
	struct early *e;

	if (u == NULL)
		return;
	while ((a = u->agrs) != NULL) {
		u->agrs = a->next;
		agr_free(a);
	}
	while ((e = u->early) != NULL) {
		u->early = e->next;
		free(e);
	}
	free(u->dead);
	free(u->order);
	free(u->revoked);
	free(u->floors);
	free(u->join_failed);
	free(u->join_members);
}

/*
 * The tree.  Positions are member indices relative to the root, in
 * base FANOUT; the parent of position q > 0 is q with its lowest
 * nonzero digit cleared, so that the descendants of q are q + 1 to
 * q + unit(q) - 1, unit(q) being the weight of that digit, and those of
 * the root every other position.
 */

/* The weight of the lowest nonzero digit of q > 0. */
static uint64_t
unit_of(uint64_t q)
{
	uint64_t unit = 1;

	while ((q / unit) % FANOUT == 0)
		unit *= FANOUT;
	return unit;
}

/* The nearest live ancestor of member i (not the root). */
static uint32_t
parent_of(const struct agr *a, uint32_t i)
{
	uint64_t q = i - a->root, unit;

	do {
		unit = unit_of(q);
		q -= (q / unit) % FANOUT * unit;
	} while (q != 0 && bit(a->bm[BM_GONE], a->root + (uint32_t)q));
	return a->root + (uint32_t)q;
}

/* One past the last member of i's subtree (i itself included). */
static uint32_t
subtree_end(const struct agr *a, uint32_t i)
{
	uint64_t q = i - a->root, end;

	end = q == 0 ? a->n : (uint64_t)i + unit_of(q);
	return end > a->n ? a->n : (uint32_t)end;
}

/* Does bitmap bm hold every live member of our subtree?  count: how
 * many it holds there. */
static int
subtree_full(const struct agr *a, const uint8_t *bm, uint32_t *count)
{
	uint32_t i, end = subtree_end(a, a->me);
	int full = 1;

	*count = 0;
	for (i = a->me; i < end; i++) {
		if (bit(bm, i))
			(*count)++;
		else if (!bit(a->bm[BM_GONE], i))
			full = 0;
	}
	return full;
}

/* Send one AGREE step to member to (never ourselves, nor the dead). */
static void
agree_send(struct ft_proto *p, struct agr *a, uint32_t to, uint32_t kind,
    const struct val *v)
{
	struct ft_msg_agree m;
	struct ft_wbuf wb;

	if (to == a->me || bit(a->bm[BM_GONE], to))
		return;
	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.ctx = a->ctx;
	m.seq = a->seq;
	m.round = kind == FT_AGREE_COMMIT ? 0 : a->root;
	m.from = a->me;
	m.n = a->n;
	m.v = val_wire(v);
	m.inter = a->inter;
	if (kind == FT_AGREE_UP) {
		m.covered = a->bm[BM_COVERED];
		m.acks = a->bm[BM_ACKS];
	}
	ft_wbuf_init(&wb);
	/* A process that died meanwhile is the next view's news. */
	if (ft_msg_agree_encode(&wb, p->conf.proc, &m) == 0)
		(void)p->core->send_frame(p->cookie, a->members[to], &wb);
	ft_wbuf_release(&wb);
}

/* Tell member to the decision, once. */
static void
tell_commit(struct ft_proto *p, struct agr *a, uint32_t to)
{
	if (bit(a->bm[BM_TOLDC], to))
		return;
	bit_set(a->bm[BM_TOLDC], to);
	agree_send(p, a, to, FT_AGREE_COMMIT, &a->held);
}

/* Tell member to the proposal of this round, once. */
static void
tell_proposal(struct ft_proto *p, struct agr *a, uint32_t to)
{
	if (bit(a->bm[BM_TOLDP], to))
		return;
	bit_set(a->bm[BM_TOLDP], to);
	agree_send(p, a, to, FT_AGREE_PROPOSE, &a->held);
}

/*
 * Bring what a knows of the dead up to date: the views, and members
 * below round (a frame's root: its sender knows them dead).  A new
 * root is a new round.
 */
static void
agr_sync(const struct ulfm *u, struct agr *a, uint32_t round)
{
	uint32_t i, r = NONE;

	for (i = 0; i < a->n; i++) {
		if (i < round || is_dead(u, a->members[i]))
			bit_set(a->bm[BM_GONE], i);
		if (r == NONE && !bit(a->bm[BM_GONE], i))
			r = i;
	}
	/* We are alive, and round <= me was checked: r <= me. */
	if (r != a->root) {
		a->root = r;
		memset(a->bm[BM_ACKS], 0, a->nb);
		memset(a->bm[BM_TOLDP], 0, a->nb);
	}
}

/* Send what a decided member sends: the decision to tree neighbours. */
static void
push_commit(struct ft_proto *p, struct agr *a)
{
	uint32_t i, end = subtree_end(a, a->me);

	if (a->me != a->root)
		tell_commit(p, a, parent_of(a, a->me));
	for (i = a->me + 1; i < end; i++)
		if (!bit(a->bm[BM_GONE], i) && parent_of(a, i) == a->me)
			tell_commit(p, a, i);
}

static void
decide(struct ft_proto *p, struct agr *a, const struct ft_agree_val *v)
{
	if (a->hold == HOLD_COMMITTED)
		return;
	if (v != NULL)
		val_copy(&a->held, v, a->nb);
	a->hold = HOLD_COMMITTED;
	bit_set(a->bm[BM_TOLDC], a->me);
	push_commit(p, a);
}

/* The root has every live member's contribution: propose. */
static void
propose(struct agr *a)
{
	uint32_t i;

	/* A value held from an earlier round may have been decided by
	 * someone: it must win.  Else the combination, with the dead in
	 * the failed set. */
	if (a->hold == HOLD_NONE) {
		a->held.flag = a->acc.flag;
		a->held.ctxv = a->acc.ctxv;
		a->held.flag2 = a->acc.flag2;
		memcpy(a->held.failed, a->acc.failed, a->nb);
		memcpy(a->held.acked, a->acc.acked, a->nb);
		for (i = 0; i < a->n; i++)
			if (bit(a->bm[BM_GONE], i))
				bit_set(a->held.failed, i);
	}
	a->hold = HOLD_PROPOSED;
	a->hround = a->root;
}

/* Something changed for a: act on it. */
static void
agr_run(struct ft_proto *p, struct agr *a)
{
	struct ulfm *u = p->priv;
	uint32_t i, end, parent, phase, count;
	int full;

	if (!a->started)
		return;
	agr_sync(u, a, 0);
	if (a->hold == HOLD_COMMITTED) {
		push_commit(p, a);
		return;
	}
	phase = a->hold == HOLD_PROPOSED && a->hround == a->root;
	if (!phase) {
		full = subtree_full(a, a->bm[BM_COVERED], &count);
		if (!full)
			return;
		if (a->me != a->root)
			goto up;
		propose(a);
		phase = 1;
	}
	/* We hold this round's proposal: so does our subtree, soon. */
	bit_set(a->bm[BM_ACKS], a->me);
	end = subtree_end(a, a->me);
	for (i = a->me + 1; i < end; i++)
		if (!bit(a->bm[BM_GONE], i) && parent_of(a, i) == a->me)
			tell_proposal(p, a, i);
	if (!subtree_full(a, a->bm[BM_ACKS], &count))
		return;
	if (a->me == a->root) {
		decide(p, a, NULL);
		return;
	}
up:
	parent = parent_of(a, a->me);
	if (a->up_to == parent && a->up_round == a->root &&
	    a->up_phase == phase && a->up_count == count)
		return;
	a->up_to = parent;
	a->up_round = a->root;
	a->up_phase = phase;
	a->up_count = count;
	agree_send(p, a, parent, FT_AGREE_UP, &a->acc);
}

static struct agr *
agr_find(struct ulfm *u, uint32_t ctx, uint32_t seq)
{
	struct agr *a;

	for (a = u->agrs; a != NULL; a = a->next)
		if (a->ctx == ctx && a->seq == seq)
			return a;
	return NULL;
}

static uint32_t
floor_of(const struct ulfm *u, uint32_t ctx, int *found)
{
	size_t i;

	for (i = 0; i < u->nfloors; i++)
		if (u->floors[i].ctx == ctx) {
			*found = 1;
			return u->floors[i].seq;
		}
	*found = 0;
	return 0;
}

/* Is seq on ctx an agreement this process is done with? */
static int
is_late(const struct ulfm *u, uint32_t ctx, uint32_t seq)
{
	int found;
	uint32_t f = floor_of(u, ctx, &found);

	return found && seq <= f;
}

/* Forget a (decided, freed by the MPI layer, and decided by all). */
static void
agr_forget(struct ulfm *u, struct agr *a)
{
	struct agr **pp;
	struct floor *nf;
	size_t i;

	for (pp = &u->agrs; *pp != a; pp = &(*pp)->next)
		;
	*pp = a->next;
	for (i = 0; i < u->nfloors; i++)
		if (u->floors[i].ctx == a->ctx)
			break;
	if (i == u->nfloors) {
		if (u->nfloors == u->capfloors) {
			nf = reallocarray(u->floors, u->capfloors * 2 + 8,
			    sizeof(*nf));
			if (nf == NULL)
				goto out;	/* late frames just wait */
			u->floors = nf;
			u->capfloors = u->capfloors * 2 + 8;
		}
		u->floors[u->nfloors++] = (struct floor){ a->ctx, a->seq };
	} else if (a->seq > u->floors[i].seq)
		u->floors[i].seq = a->seq;
out:
	agr_free(a);
}

static void
merge(struct agr *a, const struct ft_msg_agree *m)
{
	size_t k;

	a->acc.flag &= m->v.flag;
	a->acc.flag2 &= m->v.flag2;
	if (m->v.ctxv > a->acc.ctxv)
		a->acc.ctxv = m->v.ctxv;
	for (k = 0; k < a->nb; k++) {
		a->acc.failed[k] |= m->v.failed[k];
		a->acc.acked[k] &= m->v.acked[k];
		a->bm[BM_COVERED][k] |= m->covered[k];
		/* Acks are of the sender's round: ours, or none. */
		if (m->round == a->root)
			a->bm[BM_ACKS][k] |= m->acks[k];
	}
}

/* An AGREE step for a started instance. */
static int
agree_in(struct ft_proto *p, struct agr *a, uint32_t proc,
    const struct ft_msg_agree *m)
{
	struct ulfm *u = p->priv;

	/* A frame of round r says members below r are dead: never us. */
	if (m->n != a->n || m->inter != a->inter ||
	    a->members[m->from] != proc ||
	    m->from == a->me || (m->kind != FT_AGREE_COMMIT &&
	    m->round > a->me)) {
		errno = EPROTO;
		return -1;
	}
	agr_sync(u, a, m->kind == FT_AGREE_COMMIT ? 0 : m->round);
	if (m->kind == FT_AGREE_COMMIT) {
		bit_set(a->bm[BM_TOLDC], m->from);
		decide(p, a, &m->v);
		return 0;
	}
	if (a->hold == HOLD_COMMITTED) {
		/* It has not decided: tell it. */
		tell_commit(p, a, m->from);
		return 0;
	}
	switch (m->kind) {
	case FT_AGREE_UP:
		merge(a, m);
		/* A member that came to us after its parent died: give it
		 * the proposal it may have missed. */
		if (m->round == a->root && a->hold == HOLD_PROPOSED &&
		    a->hround == a->root && !bit(m->acks, m->from))
			tell_proposal(p, a, m->from);
		break;
	case FT_AGREE_PROPOSE:
		/* Only the root's, of our round: an older one's root is
		 * dead, and never decided it without us. */
		if (m->round == a->root && !(a->hold == HOLD_PROPOSED &&
		    a->hround == a->root)) {
			val_copy(&a->held, &m->v, a->nb);
			a->hold = HOLD_PROPOSED;
			a->hround = a->root;
		}
		break;
	}
	agr_run(p, a);
	return 0;
}

/* Keep a frame for an agreement we have not joined yet. */
static int
early_keep(struct ulfm *u, uint32_t proc, const uint8_t *body, size_t len,
    int inter)
{
	struct early *e;

	if (u->early_bytes + len > EARLY_MAX_BYTES) {
		errno = ENOBUFS;
		return -1;
	}
	if ((e = malloc(sizeof(*e) + len)) == NULL)
		return -1;
	e->proc = proc;
	e->inter = inter;
	e->len = len;
	memcpy(e->body, body, len);
	e->next = u->early;
	u->early = e;
	u->early_bytes += len;
	return 0;
}

/* Decode an AGREE, or an IAGREE when inter. */
static int
agree_decode(const uint8_t *body, size_t len, int inter,
    struct ft_msg_agree *m)
{
	return inter ? ft_msg_iagree_decode(body, len, m) :
	    ft_msg_agree_decode(body, len, m);
}

static int
on_agree(struct ft_proto *p, uint32_t proc, const uint8_t *body, size_t len,
    int inter)
{
	struct ulfm *u = p->priv;
	struct ft_msg_agree m;
	struct agr *a;

	if (agree_decode(body, len, inter, &m) != 0)
		return -1;
	if ((a = agr_find(u, m.ctx, m.seq)) == NULL) {
		if (is_late(u, m.ctx, m.seq))
			return 0;
		return early_keep(u, proc, body, len, inter);
	}
	if (!a->started)
		return early_keep(u, proc, body, len, inter);
	return agree_in(p, a, proc, &m);
}

/* Start a: what came for it before, in arrival order, then our part. */
static void
agr_start(struct ft_proto *p, struct agr *a)
{
	struct ulfm *u = p->priv;
	struct early *e, **ep, *last, **lastp;
	struct ft_msg_agree m;

	a->started = 1;
	for (;;) {
		last = NULL;
		lastp = NULL;
		for (ep = &u->early; (e = *ep) != NULL; ep = &e->next)
			if (agree_decode(e->body, e->len, e->inter, &m) == 0 &&
			    m.ctx == a->ctx && m.seq == a->seq) {
				last = e;
				lastp = ep;
			}
		if (last == NULL)
			break;
		*lastp = last->next;
		u->early_bytes -= last->len;
		/* A bad frame is its sender's problem, not ours. */
		if (agree_decode(last->body, last->len, last->inter,
		    &m) == 0)
			(void)agree_in(p, a, last->proc, &m);
		free(last);
	}
	agr_run(p, a);
}

/*
 * Start the agreements whose predecessors on their context are
 * decided here, and forget those decided and freed that a later
 * decided one on their context makes useless: it had every live
 * member's contribution, and a member contributes to an agreement only
 * once it decided those before.
 */
static void
settle(struct ft_proto *p)
{
	struct ulfm *u = p->priv;
	struct agr *a, *b;
	int again, blocked, useless;

	do {
		again = 0;
		for (a = u->agrs; a != NULL; a = a->next) {
			blocked = useless = 0;
			for (b = u->agrs; b != NULL; b = b->next) {
				if (b->ctx != a->ctx || b == a)
					continue;
				if (b->seq < a->seq &&
				    b->hold != HOLD_COMMITTED)
					blocked = 1;
				if (b->seq > a->seq &&
				    b->hold == HOLD_COMMITTED)
					useless = 1;
			}
			if (!a->started && !blocked) {
				agr_start(p, a);
				again = 1;
				break;
			}
			if (useless && !a->owned &&
			    a->hold == HOLD_COMMITTED) {
				agr_forget(u, a);
				again = 1;
				break;
			}
		}
	} while (again);
}

static void
revoked_add(struct ulfm *u, uint32_t ctx, uint32_t nctx)
{
	uint32_t *nr;
	uint32_t k;

	for (k = 0; k < nctx; k++) {
		if (u->nrevoked == u->caprevoked) {
			if (u->caprevoked >= REVOKED_MAX ||
			    (nr = reallocarray(u->revoked,
			    u->caprevoked * 2 + 16, sizeof(*nr))) == NULL)
				return;
			u->revoked = nr;
			u->caprevoked = u->caprevoked * 2 + 16;
		}
		u->revoked[u->nrevoked++] = ctx + k;
	}
}

static int
is_revoked(const struct ulfm *u, uint32_t ctx)
{
	size_t i;

	for (i = 0; i < u->nrevoked; i++)
		if (u->revoked[i] == ctx)
			return 1;
	return 0;
}

/*
 * Revoke m's contexts, unless done already, and forward m to its
 * members: the first REVOKE a process sees, or its own.
 */
static void
revoke(struct ft_proto *p, const struct ft_msg_revoke *m)
{
	struct ulfm *u = p->priv;
	struct ft_wbuf wb;
	uint32_t i, q;

	if (is_revoked(u, m->ctx))
		return;
	revoked_add(u, m->ctx, m->nctx);
	p->core->fail_ctx(p->cookie, m->ctx, m->nctx, ECANCELED);
	ft_wbuf_init(&wb);
	if (ft_msg_revoke_encode(&wb, p->conf.proc, m) == 0)
		for (i = 0; i < m->n; i++) {
			q = m->members != NULL ? m->members[i] :
			    ft_msg_revoke_member(m, i);
			if (q != p->conf.proc && !is_dead(u, q))
				(void)p->core->send_frame(p->cookie, q, &wb);
		}
	ft_wbuf_release(&wb);
}

/*
 * FT-MPI's REBUILD ("ftmpi").  A replacement process waits, in its first
 * MPI_Comm_dup of MPI_COMM_WORLD, for the survivors' JOIN; only the
 * first counts (every survivor's leader sends the same).
 */
static int
on_join(struct ft_proto *p, const uint8_t *body, size_t len)
{
	struct ulfm *u = p->priv;
	struct ft_msg_ftmpi_join m;
	struct ft_join_member jm;
	uint32_t i, *w;

	if (ft_msg_ftmpi_join_decode(body, len, &m) != 0)
		return -1;
	if (u->joined)
		return 0;
	if (m.n > 0 && (u->join_failed = reallocarray(NULL, m.n,
	    sizeof(*u->join_failed))) == NULL)
		return -1;
	for (i = 0; i < m.n; i++)
		u->join_failed[i] = ft_msg_ftmpi_join_failed(&m, i);
	if (m.nm > 0 && (u->join_members = reallocarray(NULL, m.nm,
	    FT_JOIN_MEMBER_WORDS * sizeof(*u->join_members))) == NULL)
		return -1;
	for (i = 0; i < m.nm; i++) {
		ft_msg_ftmpi_join_member(&m, i, &jm);
		w = u->join_members + (size_t)i * FT_JOIN_MEMBER_WORDS;
		w[0] = jm.inc;
		w[1] = jm.covered;
		w[2] = jm.node;
		w[3] = jm.pid;
	}
	u->join = m;
	u->join.raw = NULL;
	u->join.failed = u->join_failed;
	u->join.mraw = NULL;
	u->join.members = u->join_members;
	u->joined = 1;
	return 0;
}

static int
join_send(struct ft_proto *p, const struct ft_ext *x)
{
	struct ulfm *u = p->priv;
	struct ft_msg_ftmpi_join m = { x->ctx, x->ctxv, x->seq, x->ndead,
	    x->dead, NULL, x->njmembers, x->jmembers, NULL };
	struct ft_wbuf wb;
	uint32_t k;
	int rc = 0;

	ft_wbuf_init(&wb);
	if (ft_msg_ftmpi_join_encode(&wb, p->conf.proc, &m) != 0) {
		ft_wbuf_release(&wb);
		return -1;
	}
	for (k = 0; k < x->n; k++)
		/* Dead again: the next recovery deals with it. */
		if (!is_dead(u, x->members[k]) && p->core->send_frame(p->cookie,
		    x->members[k], &wb) != 0 && errno != ECONNRESET)
			rc = -1;
	ft_wbuf_release(&wb);
	return rc;
}

/* A dead process runs again (ft_pt_revive): alive until a view says. */
static void
ulfm_revive(struct ft_proto *p, uint32_t proc)
{
	struct ulfm *u = p->priv;

	if (is_dead(u, proc))
		u->dead[proc / 8] &= (uint8_t)~(1u << (proc % 8));
}

static int
ulfm_frame(struct ft_proto *p, uint32_t proc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct ft_msg_revoke rv;
	size_t len = h->len - FT_WIRE_HDRLEN;
	int rc;

	switch (h->type) {
	case FT_MSG_ULFM_REVOKE:
		if (ft_msg_revoke_decode(body, len, &rv) != 0)
			return -1;
		revoke(p, &rv);
		return 0;
	case FT_MSG_ULFM_AGREE:
	case FT_MSG_ULFM_IAGREE:
		rc = on_agree(p, proc, body, len,
		    h->type == FT_MSG_ULFM_IAGREE);
		settle(p);
		return rc;
	case FT_MSG_FTMPI_JOIN:
		if (p->ops != &ft__proto_ftmpi) {
			errno = EPROTO;
			return -1;
		}
		return on_join(p, body, len);
	default:
		errno = EPROTO;
		return -1;
	}
}

static int
ulfm_view(struct ft_proto *p, const uint32_t *dead, uint32_t ndead)
{
	struct ulfm *u = p->priv;
	struct agr *a, *next;
	uint32_t i, q, *no;
	uint8_t *nd;
	size_t need;
	int news = 0;

	for (i = 0; i < ndead; i++) {
		q = dead[i];
		if (q >= FT_WIRE_MAX_RANKS || is_dead(u, q))
			continue;
		if ((need = (size_t)q / 8 + 1) > u->capdead) {
			if ((nd = realloc(u->dead, need + 64)) == NULL)
				return -1;
			memset(nd + u->capdead, 0, need + 64 - u->capdead);
			u->dead = nd;
			u->capdead = need + 64;
		}
		if (u->norder == u->caporder) {
			if ((no = reallocarray(u->order, u->caporder * 2 + 16,
			    sizeof(*no))) == NULL)
				return -1;
			u->order = no;
			u->caporder = u->caporder * 2 + 16;
		}
		bit_set(u->dead, q);
		u->order[u->norder++] = q;
		news = 1;
	}
	if (!news)
		return 0;
	for (a = u->agrs; a != NULL; a = next) {
		next = a->next;
		agr_run(p, a);
	}
	settle(p);
	return 0;
}

/* Join an agreement (FT_EXT_AGREE). */
static int
agree_join(struct ft_proto *p, struct ft_ext *x)
{
	struct ulfm *u = p->priv;
	struct agr *a;
	uint8_t *block;
	size_t nb = ((size_t)x->n + 7) / 8;
	uint32_t k;

	if (x->n == 0 || x->n > FT_WIRE_MAX_RANKS || x->me >= x->n ||
	    x->members[x->me] != p->conf.proc ||
	    agr_find(u, x->ctx, x->seq) != NULL ||
	    is_late(u, x->ctx, x->seq)) {
		errno = EINVAL;
		return -1;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return -1;
	/* BM_NUM bitmaps, then acc's and held's two each. */
	if ((a->members = reallocarray(NULL, x->n, sizeof(*a->members))) ==
	    NULL || (block = calloc(BM_NUM + 4, nb)) == NULL) {
		agr_free(a);
		return -1;
	}
	for (k = 0; k < BM_NUM; k++)
		a->bm[k] = block + k * nb;
	a->acc.failed = block + BM_NUM * nb;
	a->acc.acked = block + (BM_NUM + 1) * nb;
	a->held.failed = block + (BM_NUM + 2) * nb;
	a->held.acked = block + (BM_NUM + 3) * nb;
	a->nb = nb;
	a->ctx = x->ctx;
	a->seq = x->seq;
	a->n = x->n;
	a->me = x->me;
	a->owned = 1;
	a->root = NONE;
	a->up_to = NONE;
	memcpy(a->members, x->members, x->n * sizeof(*a->members));
	a->acc.flag = x->flag;
	a->acc.ctxv = x->ctxv;
	a->inter = x->inter != 0;
	a->acc.flag2 = a->inter ? x->flag2 : UINT32_MAX;
	memcpy(a->acc.failed, x->failed, nb);
	memcpy(a->acc.acked, x->acked, nb);
	for (k = 0; k < x->n; k++) {
		if (is_dead(u, a->members[k]))
			bit_set(a->acc.failed, k);
		/*
		 * A member the caller counts failed stays out of this
		 * agreement, though it may run again by now: a replacement
		 * of FT-MPI's REBUILD takes no part in the agreement that
		 * rebuilds its communicator.
		 */
		if (bit(x->failed, k))
			bit_set(a->bm[BM_GONE], k);
	}
	if (x->n % 8 != 0) {
		/* The bits past n travel as zeros. */
		a->acc.failed[nb - 1] &= (uint8_t)((1u << (x->n % 8)) - 1);
		a->acc.acked[nb - 1] &= (uint8_t)((1u << (x->n % 8)) - 1);
	}
	bit_set(a->bm[BM_COVERED], a->me);
	a->next = u->agrs;
	u->agrs = a;
	x->handle = a;
	settle(p);
	return 0;
}

static int
agree_test(struct ft_proto *p, struct ft_ext *x)
{
	struct agr *a = x->handle;
	size_t k;

	(void)p;
	x->result = a->hold == HOLD_COMMITTED;
	if (!x->result)
		return 0;
	x->flag = a->held.flag;
	x->flag2 = a->held.flag2;
	x->ctxv = a->held.ctxv;
	x->err = 0;
	for (k = 0; k < a->nb; k++)
		if (a->held.failed[k] & ~a->held.acked[k])
			x->err = 1;
	if (x->failed != NULL)
		memcpy(x->failed, a->held.failed, a->nb);
	return 0;
}

static int
ulfm_ext(struct ft_proto *p, struct ft_ext *x)
{
	struct ulfm *u = p->priv;
	struct ft_msg_revoke rv;
	struct agr *a;

	switch (x->op) {
	case FT_EXT_FAILED:
		x->dead = u->order;
		x->ndead = u->norder;
		return 0;
	case FT_EXT_REVOKE:
		rv = (struct ft_msg_revoke){ x->ctx, x->nctx, x->n,
		    x->members, NULL };
		if (x->nctx == 0 || x->nctx > FT_ULFM_NCTX_MAX || x->n == 0 ||
		    x->n > FT_WIRE_MAX_RANKS) {
			errno = EINVAL;
			return -1;
		}
		revoke(p, &rv);
		return 0;
	case FT_EXT_REVOKED:
		x->result = is_revoked(u, x->ctx);
		return 0;
	case FT_EXT_AGREE:
		return agree_join(p, x);
	case FT_EXT_AGREE_TEST:
		return agree_test(p, x);
	case FT_EXT_AGREE_FREE:
		/* It goes on as long as other members may need us. */
		a = x->handle;
		a->owned = 0;
		settle(p);
		return 0;
	case FT_EXT_AGREE_KEPT:
		x->result = 0;
		for (a = u->agrs; a != NULL; a = a->next)
			x->result++;
		return 0;
	case FT_EXT_ALIVE:
		x->result = !is_dead(u, x->me);
		return 0;
	case FT_EXT_JOIN_SEND:
		if (p->ops != &ft__proto_ftmpi)
			break;
		return join_send(p, x);
	case FT_EXT_JOIN_TEST:
		if (p->ops != &ft__proto_ftmpi)
			break;
		x->result = u->joined;
		x->ctx = u->join.wctx;
		x->ctxv = u->join.dctx;
		x->seq = u->join.own;
		x->dead = u->join_failed;
		x->ndead = u->join.n;
		x->jmembers = u->join_members;
		x->njmembers = u->join.nm;
		return 0;
	default:
		break;		/* another protocol's (coord) */
	}
	errno = ENOTSUP;
	return -1;
}

const struct ft_proto_ops ft__proto_ulfm = {
	.abi = FT_PROTO_ABI,
	.name = "ulfm",
	.privsize = sizeof(struct ulfm),
	.flags = FT_PROTO_FAILS,
	.init = ulfm_init,
	.fini = ulfm_fini,
	.frame = ulfm_frame,
	.view = ulfm_view,
	.ext = ulfm_ext,
};

/*
 * "ftmpi": FT-MPI's modes (ft-ftmpi(3)) over the same machinery.  The
 * MPI layer keeps the modes; below it, the one difference is REBUILD:
 * the launcher starts a dead process again as the same process id
 * (FT_PROTO_RESTARTS, as for vlog), and the survivors tell it the
 * rebuilt world's context ids (FTMPI_JOIN).
 */
const struct ft_proto_ops ft__proto_ftmpi = {
	.abi = FT_PROTO_ABI,
	.name = "ftmpi",
	.privsize = sizeof(struct ulfm),
	.flags = FT_PROTO_FAILS | FT_PROTO_RESTARTS,
	.init = ulfm_init,
	.fini = ulfm_fini,
	.frame = ulfm_frame,
	.view = ulfm_view,
	.ext = ulfm_ext,
	.revive = ulfm_revive,
};
