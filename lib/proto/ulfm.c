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
 *    failed members OR, acknowledged failures AND).
 *
 * The agreement relies on the launcher's views being a perfect failure
 * detector (a process is declared dead only once it is: ftrun makes
 * hangs into deaths), as ft's failure model says (ft(7)).  It is a
 * rotating coordinator consensus: the coordinator is the lowest member
 * not known dead.  Every member sends its contribution, and what it
 * holds of the instance, to the coordinator it believes in, and again
 * to each new one when a view says the old one died.  The coordinator
 * waits for every member not known dead, then decides: a value some
 * member holds committed, else the proposal of the highest round any
 * member holds, else the combination of the contributions.  It
 * proposes that value to all, waits for every live member's ACK, then
 * sends COMMIT, which each member forwards to all on first receipt.
 * A member returns on COMMIT.  Since a coordinator commits only once
 * every live member holds its proposal, any later coordinator finds
 * it (in its own state, at least) and proposes it again: the decision
 * is uniform, even when processes die during the agreement.  Messages:
 * O(n) at the coordinator per phase and O(n^2) forwarded COMMITs, in
 * three steps of latency; not yet the logarithmic trees of ULFM's ERA.
 */
#include <stdlib.h>

#include "proto.h"

/* Frames that arrive before their agreement is joined, at most. */
#define EARLY_MAX_BYTES	(64u << 20)
#define REVOKED_MAX	(1u << 20)

struct val {
	uint32_t	 flag, ctxv;
	uint8_t		*failed, *acked;
};

/* One agreement instance, from the moment this process joins it. */
struct agr {
	struct agr	*next;
	uint32_t	 ctx, seq, n, me;
	size_t		 nb;			/* bytes of a bitmap */
	uint32_t	*members;
	int		 owned;			/* the MPI layer's handle */
	struct val	 mine;
	/* Participant. */
	uint32_t	 sentto;		/* coordinator told, or none */
	uint32_t	 state;			/* enum ft_agree_state */
	uint32_t	 sround;
	struct val	 held;			/* proposal, or decision */
	/* Coordinator: what the members sent us. */
	uint8_t		*got;
	struct val	 acc;
	int		 acc_set;
	uint32_t	 best_state, best_round;
	struct val	 best;
	int		 proposing;
	uint8_t		*acks;
};

/* A frame for an agreement not joined yet. */
struct early {
	struct early	*next;
	uint32_t	 proc;
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

static int
val_alloc(struct val *v, size_t nb)
{
	if ((v->failed = calloc(2, nb)) == NULL)
		return -1;
	v->acked = v->failed + nb;
	return 0;
}

static void
val_copy(struct val *d, const struct ft_agree_val *s, size_t nb)
{
	d->flag = s->flag;
	d->ctxv = s->ctxv;
	memcpy(d->failed, s->failed, nb);
	memcpy(d->acked, s->acked, nb);
}

static struct ft_agree_val
val_wire(const struct val *v)
{
	return (struct ft_agree_val){ v->flag, v->ctxv, v->failed, v->acked };
}

static void
agr_free(struct agr *a)
{
	free(a->members);
	free(a->mine.failed);
	free(a->held.failed);
	free(a->acc.failed);
	free(a->best.failed);
	free(a->got);
	free(a->acks);
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
}

/* The coordinator: the lowest member not known dead. */
static uint32_t
coord_of(const struct ulfm *u, const struct agr *a)
{
	uint32_t i;

	for (i = 0; i < a->n; i++)
		if (!is_dead(u, a->members[i]))
			return i;
	return NONE;
}

/* Send one AGREE step to member to (never ourselves). */
static void
agree_send(struct ft_proto *p, struct agr *a, uint32_t to, uint32_t kind,
    uint32_t round, const struct val *v1, uint32_t state, uint32_t sround,
    const struct val *v2)
{
	struct ulfm *u = p->priv;
	struct ft_msg_agree m;
	struct ft_wbuf wb;

	if (to == a->me || is_dead(u, a->members[to]))
		return;
	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.ctx = a->ctx;
	m.seq = a->seq;
	m.round = round;
	m.from = a->me;
	m.n = a->n;
	m.state = state;
	m.sround = sround;
	if (v1 != NULL)
		m.v[m.nval++] = val_wire(v1);
	if (v2 != NULL)
		m.v[m.nval++] = val_wire(v2);
	ft_wbuf_init(&wb);
	/* A process that died meanwhile is the next view's news. */
	if (ft_msg_agree_encode(&wb, p->conf.proc, &m) == 0)
		(void)p->core->send_frame(p->cookie, a->members[to], &wb);
	ft_wbuf_release(&wb);
}

/* Fold member from's contribution (and what it holds) into ours. */
static void
contrib_apply(struct agr *a, uint32_t from, const struct ft_agree_val *v,
    uint32_t state, uint32_t sround, const struct ft_agree_val *held)
{
	size_t k;

	if (bit(a->got, from))
		return;
	bit_set(a->got, from);
	if (!a->acc_set) {
		val_copy(&a->acc, v, a->nb);
		a->acc_set = 1;
	} else {
		a->acc.flag &= v->flag;
		if (v->ctxv > a->acc.ctxv)
			a->acc.ctxv = v->ctxv;
		for (k = 0; k < a->nb; k++) {
			a->acc.failed[k] |= v->failed[k];
			a->acc.acked[k] &= v->acked[k];
		}
	}
	if (held == NULL || state == FT_AGREE_NONE)
		return;
	if (a->best_state == FT_AGREE_COMMITTED)
		return;
	if (state == FT_AGREE_COMMITTED || a->best_state == FT_AGREE_NONE ||
	    sround > a->best_round) {
		a->best_state = state;
		a->best_round = sround;
		val_copy(&a->best, held, a->nb);
	}
}

/* Our own contribution and state, to the coordinator (maybe us). */
static void
contrib_send(struct ft_proto *p, struct agr *a, uint32_t c)
{
	struct ft_agree_val mine = val_wire(&a->mine), held;

	if (c == a->me) {
		held = val_wire(&a->held);
		contrib_apply(a, a->me, &mine, a->state, a->sround, &held);
		return;
	}
	agree_send(p, a, c, FT_AGREE_CONTRIB, c, &a->mine, a->state,
	    a->sround, a->state != FT_AGREE_NONE ? &a->held : NULL);
}

/* The decision is in: hold it, and forward it to every member. */
static void
commit(struct ft_proto *p, struct agr *a, const struct ft_agree_val *v,
    uint32_t from)
{
	uint32_t i;

	if (a->state == FT_AGREE_COMMITTED)
		return;
	if (v != NULL)
		val_copy(&a->held, v, a->nb);
	a->state = FT_AGREE_COMMITTED;
	/* Whoever got COMMIT makes sure everyone does: a coordinator that
	 * dies while sending it leaves no member behind. */
	for (i = 0; i < a->n; i++)
		if (i != from)
			agree_send(p, a, i, FT_AGREE_COMMIT, from, &a->held,
			    FT_AGREE_NONE, 0, NULL);
}

static void
coord_run(struct ft_proto *p, struct agr *a)
{
	struct ulfm *u = p->priv;
	struct ft_agree_val v;
	uint32_t i;

	if (a->state == FT_AGREE_COMMITTED)
		return;
	if (!a->proposing) {
		for (i = 0; i < a->n; i++)
			if (!bit(a->got, i) && !is_dead(u, a->members[i]))
				return;
		if (a->best_state != FT_AGREE_NONE)
			v = val_wire(&a->best);
		else {
			/* Those we stopped waiting for are dead. */
			for (i = 0; i < a->n; i++)
				if (is_dead(u, a->members[i]))
					bit_set(a->acc.failed, i);
			v = val_wire(&a->acc);
		}
		val_copy(&a->held, &v, a->nb);
		a->state = FT_AGREE_PROPOSED;
		a->sround = a->me;
		a->proposing = 1;
		memset(a->acks, 0, a->nb);
		bit_set(a->acks, a->me);
		for (i = 0; i < a->n; i++)
			agree_send(p, a, i, FT_AGREE_PROPOSE, a->me, &a->held,
			    FT_AGREE_NONE, 0, NULL);
	}
	for (i = 0; i < a->n; i++)
		if (!bit(a->acks, i) && !is_dead(u, a->members[i]))
			return;
	commit(p, a, NULL, a->me);
}

/* Something changed for a: act on it. */
static void
agr_run(struct ft_proto *p, struct agr *a)
{
	struct ulfm *u = p->priv;
	uint32_t c;

	if (a->state == FT_AGREE_COMMITTED ||
	    (c = coord_of(u, a)) == NONE)
		return;
	if (a->sentto != c) {
		a->sentto = c;
		contrib_send(p, a, c);
	}
	if (c == a->me)
		coord_run(p, a);
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

/* Forget a (decided, and freed by the MPI layer). */
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

/* An AGREE step for a joined instance. */
static int
agree_in(struct ft_proto *p, struct agr *a, uint32_t proc,
    const struct ft_msg_agree *m)
{
	const struct ft_agree_val *held;

	if (m->n != a->n || a->members[m->from] != proc ||
	    m->from == a->me) {
		errno = EPROTO;
		return -1;
	}
	switch (m->kind) {
	case FT_AGREE_CONTRIB:
		if (a->state == FT_AGREE_COMMITTED) {
			/* It missed the decision: tell it. */
			agree_send(p, a, m->from, FT_AGREE_COMMIT, a->me,
			    &a->held, FT_AGREE_NONE, 0, NULL);
			return 0;
		}
		if (a->proposing)
			return 0;	/* a copy: we have all we wait for */
		held = m->nval > 1 ? &m->v[1] : NULL;
		contrib_apply(a, m->from, &m->v[0], m->state, m->sround, held);
		break;
	case FT_AGREE_PROPOSE:
		if (a->state != FT_AGREE_COMMITTED &&
		    (a->state == FT_AGREE_NONE || m->round >= a->sround)) {
			val_copy(&a->held, &m->v[0], a->nb);
			a->state = FT_AGREE_PROPOSED;
			a->sround = m->round;
		}
		agree_send(p, a, m->from, FT_AGREE_ACK, m->round, NULL,
		    FT_AGREE_NONE, 0, NULL);
		return 0;
	case FT_AGREE_ACK:
		if (!a->proposing || m->round != a->me)
			return 0;
		bit_set(a->acks, m->from);
		break;
	case FT_AGREE_COMMIT:
		commit(p, a, &m->v[0], m->from);
		return 0;
	}
	agr_run(p, a);
	return 0;
}

/* Keep a frame for an agreement we have not joined yet. */
static int
early_keep(struct ulfm *u, uint32_t proc, const uint8_t *body, size_t len)
{
	struct early *e;

	if (u->early_bytes + len > EARLY_MAX_BYTES) {
		errno = ENOBUFS;
		return -1;
	}
	if ((e = malloc(sizeof(*e) + len)) == NULL)
		return -1;
	e->proc = proc;
	e->len = len;
	memcpy(e->body, body, len);
	e->next = u->early;
	u->early = e;
	u->early_bytes += len;
	return 0;
}

static int
on_agree(struct ft_proto *p, uint32_t proc, const uint8_t *body, size_t len,
    int replay)
{
	struct ulfm *u = p->priv;
	struct ft_msg_agree m;
	struct agr *a;

	if (ft_msg_agree_decode(body, len, &m) != 0)
		return -1;
	if (is_late(u, m.ctx, m.seq))
		return 0;
	if ((a = agr_find(u, m.ctx, m.seq)) == NULL)
		return replay ? 0 : early_keep(u, proc, body, len);
	return agree_in(p, a, proc, &m);
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

static int
ulfm_frame(struct ft_proto *p, uint32_t proc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct ft_msg_revoke rv;
	size_t len = h->len - FT_WIRE_HDRLEN;

	switch (h->type) {
	case FT_MSG_ULFM_REVOKE:
		if (ft_msg_revoke_decode(body, len, &rv) != 0)
			return -1;
		revoke(p, &rv);
		return 0;
	case FT_MSG_ULFM_AGREE:
		return on_agree(p, proc, body, len, 0);
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
	return 0;
}

/* Join an agreement (FT_EXT_AGREE). */
static int
agree_join(struct ft_proto *p, struct ft_ext *x)
{
	struct ulfm *u = p->priv;
	struct early *e, **ep;
	struct agr *a;
	uint32_t i;
	size_t nb = ((size_t)x->n + 7) / 8;

	if (x->n == 0 || x->n > FT_WIRE_MAX_RANKS || x->me >= x->n ||
	    x->members[x->me] != p->conf.proc ||
	    agr_find(u, x->ctx, x->seq) != NULL ||
	    is_late(u, x->ctx, x->seq)) {
		errno = EINVAL;
		return -1;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return -1;
	a->nb = nb;
	if ((a->members = reallocarray(NULL, x->n, sizeof(*a->members))) ==
	    NULL || val_alloc(&a->mine, nb) != 0 ||
	    val_alloc(&a->held, nb) != 0 || val_alloc(&a->acc, nb) != 0 ||
	    val_alloc(&a->best, nb) != 0 || (a->got = calloc(1, nb)) == NULL ||
	    (a->acks = calloc(1, nb)) == NULL) {
		agr_free(a);
		return -1;
	}
	a->ctx = x->ctx;
	a->seq = x->seq;
	a->n = x->n;
	a->me = x->me;
	a->owned = 1;
	a->sentto = NONE;
	memcpy(a->members, x->members, x->n * sizeof(*a->members));
	a->mine.flag = x->flag;
	a->mine.ctxv = x->ctxv;
	memcpy(a->mine.failed, x->failed, nb);
	memcpy(a->mine.acked, x->acked, nb);
	for (i = 0; i < x->n; i++)
		if (is_dead(u, a->members[i]))
			bit_set(a->mine.failed, i);
	if (x->n % 8 != 0) {
		/* The bits past n travel as zeros. */
		a->mine.failed[nb - 1] &= (uint8_t)((1u << (x->n % 8)) - 1);
		a->mine.acked[nb - 1] &= (uint8_t)((1u << (x->n % 8)) - 1);
	}
	a->next = u->agrs;
	u->agrs = a;
	x->handle = a;
	/* What came for it before we joined, in arrival order. */
	for (;;) {
		struct early *last = NULL, **lastp = NULL;

		for (ep = &u->early; (e = *ep) != NULL; ep = &e->next) {
			struct ft_msg_agree m;

			if (ft_msg_agree_decode(e->body, e->len, &m) == 0 &&
			    m.ctx == a->ctx && m.seq == a->seq) {
				last = e;
				lastp = ep;
			}
		}
		if (last == NULL)
			break;
		*lastp = last->next;
		u->early_bytes -= last->len;
		/* A bad frame is its sender's problem, not ours. */
		(void)on_agree(p, last->proc, last->body, last->len, 1);
		free(last);
	}
	agr_run(p, a);
	return 0;
}

static int
agree_test(struct ft_proto *p, struct ft_ext *x)
{
	struct agr *a = x->handle;
	size_t k;

	(void)p;
	x->result = a->state == FT_AGREE_COMMITTED;
	if (!x->result)
		return 0;
	x->flag = a->held.flag;
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
		a = x->handle;
		a->owned = 0;
		if (a->state == FT_AGREE_COMMITTED)
			agr_forget(u, a);
		/*
		 * Else it goes on (other members may need us) and stays:
		 * XXX(#17) an instance abandoned before its decision is
		 * kept until MPI_Finalize.
		 */
		return 0;
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
