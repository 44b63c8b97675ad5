/* SPDX-License-Identifier: ISC */
/*
 * ftreplay --verify: a job's log against the invariants of pessimistic
 * message logging (ftreplay(1) lists them).  Two passes over the
 * scratch file: rank by rank for what one rank's log holds (seq,
 * clock, probes, outcome, duplicate, channel-order, anysrc), then a
 * simulation of the whole job that takes each rank's events in turn,
 * a reception only once its sender has reached the send (send-clock,
 * causality): when no rank can go on, the ranks that wait for each
 * other are a cycle of happened-before.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../proto/proto.h"
#include "replay.h"

#define PAGE_SHIFT	12			/* clocks a page */
#define PAGE_BYTES	((1u << PAGE_SHIFT) / 8)
#define ANY_MAX		4096	/* ANY_SOURCE matches awaiting delivery */
#define CUR_BUF		(64u << 10)
#define CUR_BUF_ALL	(32u << 20)		/* all cursors together */
#define OWN_SENT	(1ull << 40)		/* owners of sent bits */

/*
 * A set of (owner, clock) pairs: one bit a clock in pages of 4096
 * clocks made on demand, found through an open-addressing table.
 */
struct cpage {
	uint64_t	 owner, pageno;
	uint8_t		*bits;
};

struct clockset {
	struct cpage	*t;
	size_t		 cap, n;	/* cap a power of 2 */
	uint64_t	 mem, max_mem;
	struct cpage	*last;
};

static void
cs_release(struct clockset *cs)
{
	size_t i;

	for (i = 0; i < cs->cap; i++)
		free(cs->t[i].bits);
	free(cs->t);
	memset(cs, 0, sizeof(*cs));
}

static uint64_t
mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ x >> 29;
}

static struct cpage *
cs_find(struct clockset *cs, uint64_t owner, uint64_t pageno, int make)
{
	struct cpage *nt, *e;
	size_t i, j, ncap;

	if (cs->last != NULL && cs->last->owner == owner &&
	    cs->last->pageno == pageno)
		return cs->last;
	if (cs->cap > 0)
		for (i = mix(owner, pageno) & (cs->cap - 1);;
		    i = (i + 1) & (cs->cap - 1)) {
			e = &cs->t[i];
			if (e->bits == NULL)
				break;
			if (e->owner == owner && e->pageno == pageno)
				return cs->last = e;
		}
	if (!make)
		return NULL;
	if (cs->mem + PAGE_BYTES + 2 * sizeof(*e) > cs->max_mem) {
		errno = ENOMEM;
		return NULL;
	}
	if ((cs->n + 1) * 10 > cs->cap * 7) {
		ncap = cs->cap == 0 ? 1024 : cs->cap * 2;
		if ((nt = calloc(ncap, sizeof(*nt))) == NULL)
			return NULL;
		for (j = 0; j < cs->cap; j++) {
			if (cs->t[j].bits == NULL)
				continue;
			for (i = mix(cs->t[j].owner, cs->t[j].pageno) &
			    (ncap - 1); nt[i].bits != NULL;
			    i = (i + 1) & (ncap - 1))
				;
			nt[i] = cs->t[j];
		}
		cs->mem += (ncap - cs->cap) * sizeof(*nt);
		free(cs->t);
		cs->t = nt;
		cs->cap = ncap;
	}
	for (i = mix(owner, pageno) & (cs->cap - 1); cs->t[i].bits != NULL;
	    i = (i + 1) & (cs->cap - 1))
		;
	e = &cs->t[i];
	if ((e->bits = calloc(1, PAGE_BYTES)) == NULL)
		return NULL;
	e->owner = owner;
	e->pageno = pageno;
	cs->n++;
	cs->mem += PAGE_BYTES;
	return cs->last = e;
}

/* Is (owner, clock) in the set? */
static int
cs_has(struct clockset *cs, uint64_t owner, uint64_t clock)
{
	struct cpage *e;
	uint64_t b = clock & ((1u << PAGE_SHIFT) - 1);

	if ((e = cs_find(cs, owner, clock >> PAGE_SHIFT, 0)) == NULL)
		return 0;
	return e->bits[b / 8] >> (b % 8) & 1;
}

/* Add it: 0, or -1 with ENOMEM (over max_mem). */
static int
cs_add(struct clockset *cs, uint64_t owner, uint64_t clock)
{
	struct cpage *e;
	uint64_t b = clock & ((1u << PAGE_SHIFT) - 1);

	if ((e = cs_find(cs, owner, clock >> PAGE_SHIFT, 1)) == NULL)
		return -1;
	e->bits[b / 8] |= (uint8_t)(1u << (b % 8));
	return 0;
}

struct vctx {
	struct ft_replay		*l;
	const struct ft_replay_opts	*o;
	uint64_t			 job;
	const struct ft__rchunk		*ch;
	size_t				 nch;
	struct clockset			 cs;
	struct ft_replay_violation	*v;
	struct ft_replay_stats		*st;
	char				*why;
	size_t				 whysize;
};

static int
violation(struct vctx *x, const char *rule, const struct ft_rrec *at,
    const char *fmt, ...) FT_PRINTF(4, 5);

static int
violation(struct vctx *x, const char *rule, const struct ft_rrec *at,
    const char *fmt, ...)
{
	va_list ap;

	memset(x->v, 0, sizeof(*x->v));
	x->v->rule = rule;
	x->v->job = x->job;
	x->v->rank = at->rank;
	x->v->clock = at->d.clock;
	va_start(ap, fmt);
	vsnprintf(x->v->what, sizeof(x->v->what), fmt, ap);
	va_end(ap);
	return 1;
}

static void
involve(struct vctx *x, const struct ft_rrec *r)
{
	if (x->v->nrec < FT_REPLAY_INVOLVED)
		x->v->rec[x->v->nrec++] = *r;
}

/* The index of rank in the job's chunks, or -1. */
static ssize_t
rank_index(const struct vctx *x, uint32_t rank)
{
	size_t lo = 0, hi = x->nch, i;

	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (x->ch[i].rank == rank)
			return (ssize_t)i;
		if (x->ch[i].rank < rank)
			lo = i + 1;
		else
			hi = i;
	}
	return -1;
}

/*
 * Find, for a message, the first record of rank that match() takes:
 * 1 with it in *out, 0 if none, -1 on a read error.
 */
static int
find_rec(struct vctx *x, uint32_t rank,
    int (*match)(const struct ft_rrec *, const void *), const void *arg,
    struct ft_rrec *out)
{
	struct ft__rcur c;
	ssize_t i;
	int rc;

	if ((i = rank_index(x, rank)) < 0)
		return 0;
	if (ft__rcur_open(&c, x->l, &x->ch[i], CUR_BUF) != 0)
		return -1;
	while ((rc = ft__rcur_next(&c, out)) == 1)
		if (match(out, arg))
			break;
	ft__rcur_release(&c);
	return rc;
}

static int
same_msg(const struct ft_rrec *r, const void *arg)
{
	const struct ft_rrec *m = arg;

	return r->d.kind == FT_DET_DELIVERY && r->d.sender == m->d.sender &&
	    r->d.sclock == m->d.sclock;
}

static int
delivery_at(const struct ft_rrec *r, const void *arg)
{
	const uint64_t *clock = arg;

	return r->d.kind == FT_DET_DELIVERY && r->d.clock == *clock;
}

static uint64_t
sent_owner(const struct vctx *x, const struct ft_rrec *r)
{
	/* As a clock, sclock names one send of the sender; as a channel
	 * number, one send on the channel to this receiver. */
	if (x->o->sclock == FT_REPLAY_SCLOCK_SEQ)
		return OWN_SENT | (uint64_t)r->d.sender << 20 | r->rank;
	return OWN_SENT | r->d.sender;
}

/* Per sender, what this rank has delivered from it. */
struct chan {
	int		 seen;
	struct ft_rrec	 last;		/* last delivery on the channel */
};

struct rstate {
	struct chan	*chan;
	size_t		 nchan;
	uint32_t	*touched;
	size_t		 ntouched, captouched;
	struct ft_rrec	*any;		/* ANY_SOURCE matches pending */
	size_t		 nany, capany;
};

static struct chan *
chan_of(struct rstate *s, uint32_t sender)
{
	struct chan *nc;
	uint32_t *nt;
	size_t n;

	if (sender >= s->nchan) {
		n = (size_t)sender + 1 > 2 * s->nchan ? (size_t)sender + 1 :
		    2 * s->nchan;
		if ((nc = reallocarray(s->chan, n, sizeof(*nc))) == NULL)
			return NULL;
		memset(nc + s->nchan, 0, (n - s->nchan) * sizeof(*nc));
		s->chan = nc;
		s->nchan = n;
	}
	if (!s->chan[sender].seen) {
		if ((nt = ft_grow(s->touched, &s->captouched, s->ntouched,
		    sizeof(*nt))) == NULL)
			return NULL;
		s->touched = nt;
		s->touched[s->ntouched++] = sender;
	}
	return &s->chan[sender];
}

static void
rstate_reset(struct rstate *s)
{
	size_t i;

	for (i = 0; i < s->ntouched; i++)
		s->chan[s->touched[i]].seen = 0;
	s->ntouched = 0;
	s->nany = 0;
}

static void
rstate_release(struct rstate *s)
{
	free(s->chan);
	free(s->touched);
	free(s->any);
}

/* One record of a rank's log, after prev (NULL for its first). */
static int
check_one(struct vctx *x, struct rstate *s, const struct ft_rrec *prev,
    const struct ft_rrec *r, uint32_t *probes)
{
	const struct ft_det *d = &r->d;
	struct ft_rrec first, *na;
	struct chan *c;
	const char *bad;
	size_t i;
	int rc;

	if (prev != NULL && d->seq != prev->d.seq + 1) {
		violation(x, "seq", r, "rank %u seq %" PRIu64 " follows seq %"
		    PRIu64 ": a rank's determinants follow each other by one",
		    r->rank, d->seq, prev->d.seq);
		involve(x, prev);
		involve(x, r);
		return 1;
	}
	if ((d->kind == FT_DET_DELIVERY && d->clock == 0) ||
	    (prev != NULL && (d->clock < prev->d.clock ||
	    (d->kind == FT_DET_DELIVERY && d->clock == prev->d.clock)))) {
		violation(x, "clock", r, "rank %u clock %" PRIu64 " (seq %"
		    PRIu64 ", a %s) after clock %" PRIu64 ": the receiver's "
		    "clock goes up at each delivery and never down",
		    r->rank, d->clock, d->seq, ft_det_kind_name(d->kind),
		    prev != NULL ? prev->d.clock : 0);
		if (prev != NULL)
			involve(x, prev);
		involve(x, r);
		return 1;
	}
	if (d->probes != *probes) {
		violation(x, "probes", r, "rank %u clock %" PRIu64 " (seq %"
		    PRIu64 ") counts %u unsuccessful probes, the log shows %u "
		    "since the last delivery", r->rank, d->clock, d->seq,
		    d->probes, *probes);
		involve(x, r);
		return 1;
	}
	bad = NULL;
	if ((d->kind == FT_DET_DELIVERY || d->kind == FT_ND_ANYSRC) &&
	    d->sender == FT_DET_NOSENDER)
		bad = "without a sender";
	else if (d->kind != FT_DET_DELIVERY && d->kind != FT_ND_ANYSRC &&
	    d->sender != FT_DET_NOSENDER)
		bad = "with a sender";
	else if ((d->kind == FT_ND_PROBE || d->kind == FT_ND_FLAG) &&
	    d->v[0] > 1)
		bad = "whose outcome a is neither 0 nor 1";
	if (bad != NULL) {
		violation(x, "outcome", r, "rank %u clock %" PRIu64 " (seq %"
		    PRIu64 "): a %s %s", r->rank, d->clock, d->seq,
		    ft_det_kind_name(d->kind), bad);
		involve(x, r);
		return 1;
	}
	if (d->kind == FT_ND_PROBE && d->v[0] == 0)
		(*probes)++;
	if (d->kind == FT_ND_ANYSRC) {
		if (cs_has(&x->cs, sent_owner(x, r), d->sclock)) {
			violation(x, "anysrc", r, "rank %u clock %" PRIu64
			    ": an ANY_SOURCE receive matched rank %u's "
			    "message %" PRIu64 ", which was delivered before",
			    r->rank, d->clock, d->sender, d->sclock);
			involve(x, r);
			if ((rc = find_rec(x, r->rank, same_msg, r,
			    &first)) == 1)
				involve(x, &first);
			return rc < 0 ? -1 : 1;
		}
		for (i = 0; i < s->nany; i++)
			if (s->any[i].d.sender == d->sender &&
			    s->any[i].d.sclock == d->sclock) {
				violation(x, "anysrc", r, "rank %u clock %"
				    PRIu64 ": two ANY_SOURCE receives matched "
				    "rank %u's message %" PRIu64, r->rank,
				    d->clock, d->sender, d->sclock);
				involve(x, &s->any[i]);
				involve(x, r);
				return 1;
			}
		if (s->nany >= ANY_MAX) {
			violation(x, "anysrc", r, "rank %u clock %" PRIu64
			    ": more than %u ANY_SOURCE matches wait for their "
			    "delivery", r->rank, d->clock, ANY_MAX);
			involve(x, r);
			return 1;
		}
		if ((na = ft_grow(s->any, &s->capany, s->nany,
		    sizeof(*na))) == NULL)
			return ft__replay_say(x->why, x->whysize, ENOMEM, "out of memory");
		s->any = na;
		s->any[s->nany++] = *r;
		return 0;
	}
	if (d->kind != FT_DET_DELIVERY)
		return 0;
	*probes = 0;
	if ((c = chan_of(s, d->sender)) == NULL)
		return ft__replay_say(x->why, x->whysize, ENOMEM, "out of memory");
	if (cs_has(&x->cs, sent_owner(x, r), d->sclock)) {
		violation(x, "duplicate", r, "rank %u clock %" PRIu64 " (seq %"
		    PRIu64 ") delivers rank %u's message %" PRIu64 " again",
		    r->rank, d->clock, d->seq, d->sender, d->sclock);
		rc = 0;
		for (i = 0; i < x->nch && rc == 0; i++)
			if ((x->o->sclock != FT_REPLAY_SCLOCK_SEQ ||
			    x->ch[i].rank == r->rank) && (rc = find_rec(x, x->ch[i].rank, same_msg, r,
			    &first)) == 1)
				involve(x, &first);
		involve(x, r);
		return rc < 0 ? -1 : 1;
	}
	if (!x->o->no_channel_order && c->seen &&
	    d->sclock <= c->last.d.sclock) {
		violation(x, "channel-order", r, "rank %u clock %" PRIu64
		    " delivers rank %u's message %" PRIu64 " after its "
		    "message %" PRIu64 ": per channel, sender clocks go up",
		    r->rank, d->clock, d->sender, d->sclock,
		    c->last.d.sclock);
		involve(x, &c->last);
		involve(x, r);
		return 1;
	}
	for (i = 0; i < s->nany; i++) {
		if (s->any[i].d.sender != d->sender)
			continue;
		if (s->any[i].d.sclock == d->sclock) {
			s->any[i] = s->any[--s->nany];
			break;
		}
		if (!x->o->no_channel_order &&
		    s->any[i].d.sclock < d->sclock) {
			violation(x, "anysrc", r, "rank %u clock %" PRIu64
			    " delivers rank %u's message %" PRIu64 " before "
			    "message %" PRIu64 ", which its ANY_SOURCE receive "
			    "matched at clock %" PRIu64, r->rank, d->clock,
			    d->sender, d->sclock, s->any[i].d.sclock,
			    s->any[i].d.clock);
			involve(x, &s->any[i]);
			involve(x, r);
			return 1;
		}
	}
	c->seen = 1;
	c->last = *r;
	if (cs_add(&x->cs, sent_owner(x, r), d->sclock) != 0 ||
	    cs_add(&x->cs, r->rank, d->clock) != 0)
		return ft__replay_say(x->why, x->whysize, ENOMEM, "checking the log needs more than %"
		    PRIu64 " MiB for its clocks", x->cs.max_mem >> 20);
	return 0;
}

/* Pass 1: each rank's log alone. */
static int
check_ranks(struct vctx *x)
{
	struct rstate s;
	struct ft__rcur c;
	struct ft_rrec r[2];
	uint32_t probes;
	size_t i;
	int rc = 0, k, n;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < x->nch && rc == 0; i++) {
		if (ft__rcur_open(&c, x->l, &x->ch[i], CUR_BUF) != 0) {
			rstate_release(&s);
			return ft__replay_say(x->why, x->whysize, ENOMEM, "out of memory");
		}
		rstate_reset(&s);
		probes = 0;
		for (k = 0, n = 0; rc == 0; k ^= 1, n++) {
			if ((rc = ft__rcur_next(&c, &r[k])) != 1) {
				if (rc < 0)
					rc = ft__replay_say(x->why, x->whysize, errno, "reading the "
					    "scratch file: %s", strerror(errno));
				break;
			}
			x->st->dets++;
			if (r[k].d.kind == FT_DET_DELIVERY)
				x->st->deliveries++;
			else
				x->st->nondet++;
			rc = check_one(x, &s, n > 0 ? &r[k ^ 1] : NULL, &r[k],
			    &probes);
		}
		ft__rcur_release(&c);
	}
	rstate_release(&s);
	return rc;
}

/*
 * Pass 2: the job's events in an order consistent with happened-before.
 * A rank's next event waits while it is a reception whose sender has
 * not yet taken every event before the send (those of a lower clock).
 */
struct simrank {
	struct ft__rcur	 cur;
	struct ft_rrec	 head;
	int		 done, inq;
	ssize_t		 waiting;	/* the rank waited for, or -1 */
	uint64_t	 thr;		/* until its head's clock reaches it */
	ssize_t		 waiters;	/* first rank waiting for this one */
	ssize_t		 nextw;		/* next in that list */
	uint64_t	 minthr;	/* lowest thr of the waiters */
	/* For the diagram: Lamport times of the last events. */
	uint64_t	 ring_clock[64], ring_t[64];
	size_t		 ring_n;
	uint64_t	 t;
};

/* The clock the sender had reached when it sent r's message. */
static uint64_t
send_threshold(const struct ft_replay_opts *o, const struct ft_rrec *r)
{
	/*
	 * As a clock, events of the sender below sclock came before the
	 * send.  As the message's number k on its channel, the sender
	 * had sent k messages before it, so its clock was above k.
	 */
	if (o->sclock == FT_REPLAY_SCLOCK_SEQ)
		return r->d.sclock == UINT64_MAX ? UINT64_MAX :
		    r->d.sclock + 1;
	return r->d.sclock;
}

static void
ring_put(struct simrank *s, uint64_t clock, uint64_t t)
{
	size_t i = s->ring_n % FT_NELEM(s->ring_clock);

	s->ring_clock[i] = clock;
	s->ring_t[i] = t;
	s->ring_n++;
}

/* A Lamport time of rank s at clock: from its last event below it. */
static uint64_t
ring_time(const struct simrank *s, uint64_t clock)
{
	size_t n = s->ring_n < FT_NELEM(s->ring_clock) ? s->ring_n :
	    FT_NELEM(s->ring_clock), k, i;

	for (k = 0; k < n; k++) {
		i = (s->ring_n - 1 - k) % FT_NELEM(s->ring_clock);
		if (s->ring_clock[i] < clock)
			return s->ring_t[i] + (clock - s->ring_clock[i]);
	}
	if (n == 0)
		return clock;
	i = (s->ring_n - n) % FT_NELEM(s->ring_clock);
	return s->ring_t[i];
}

struct sim {
	struct vctx	*x;
	struct simrank	*r;
	size_t		*q;
	size_t		 qh, qn;
	/* Called for each event with its Lamport time and, for a
	 * reception, its send's (else UINT64_MAX): 0, 1 (a violation),
	 * or -1. */
	int		(*event)(void *, const struct ft_rrec *, uint64_t t,
			    uint64_t tsend);
	void		*arg;
	uint64_t	 stuck;		/* events a cycle blocks */
};

static void
enqueue(struct sim *m, size_t i)
{
	if (m->r[i].inq || m->r[i].done)
		return;
	m->r[i].inq = 1;
	m->q[(m->qh + m->qn++) % m->x->nch] = i;
}

static int
advance(struct sim *m, size_t i)
{
	struct simrank *s = &m->r[i];
	int rc;

	if ((rc = ft__rcur_next(&s->cur, &s->head)) < 0)
		return ft__replay_say(m->x->why, m->x->whysize, errno, "reading the scratch file: %s",
		    strerror(errno));
	if (rc == 0)
		s->done = 1;
	return 0;
}

/* Wake the ranks waiting for i that it no longer holds back. */
static void
wake(struct sim *m, size_t i)
{
	struct simrank *s = &m->r[i], *w;
	ssize_t *pp, j;

	if (s->waiters < 0 || (!s->done && s->head.d.clock < s->minthr))
		return;
	s->minthr = UINT64_MAX;
	for (pp = &s->waiters; (j = *pp) >= 0;) {
		w = &m->r[j];
		if (s->done || s->head.d.clock >= w->thr) {
			*pp = w->nextw;
			w->waiting = -1;
			enqueue(m, (size_t)j);
		} else {
			if (w->thr < s->minthr)
				s->minthr = w->thr;
			pp = &w->nextw;
		}
	}
}

static int
cycle(struct sim *m)
{
	struct vctx *x = m->x;
	struct simrank *s;
	char *w = x->v->what;
	size_t i, j, start, n, len;
	int k;

	for (start = 0; start < x->nch && m->r[start].done; start++)
		;
	/* Every rank left waits for another: walk until one repeats. */
	for (i = start, n = 0; n < x->nch; n++)
		i = (size_t)m->r[i].waiting;
	violation(x, "causality", &m->r[i].head, "the happened-before graph "
	    "has a cycle:");
	len = strlen(w);
	for (j = i, k = 0; k == 0 || j != i; k++) {
		s = &m->r[j];
		involve(x, &s->head);
		ft_appendf(w, sizeof(x->v->what), &len, " rank %u clock %"
		    PRIu64 " (seq %" PRIu64 ") receives rank %u's message %"
		    PRIu64 ", sent after", s->head.rank, s->head.d.clock,
		    s->head.d.seq, s->head.d.sender, s->head.d.sclock);
		j = (size_t)s->waiting;
	}
	ft_appendf(w, sizeof(x->v->what), &len, " rank %u clock %" PRIu64,
	    m->r[i].head.rank, m->r[i].head.d.clock);
	return 1;
}

static int
simulate(struct vctx *x, int (*event)(void *, const struct ft_rrec *,
    uint64_t, uint64_t), void *arg, uint64_t *stuck, int report)
{
	struct sim m;
	struct simrank *s, *ss;
	const struct ft_rrec *h;
	size_t i, bufsize;
	ssize_t j;
	uint64_t thr, t, tsend;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	m.x = x;
	m.event = event;
	m.arg = arg;
	if (x->nch == 0)
		return 0;
	bufsize = CUR_BUF_ALL / x->nch;
	if (bufsize > CUR_BUF)
		bufsize = CUR_BUF;
	if ((m.r = calloc(x->nch, sizeof(*m.r))) == NULL ||
	    (m.q = calloc(x->nch, sizeof(*m.q))) == NULL) {
		free(m.r);
		return ft__replay_say(x->why, x->whysize, ENOMEM, "out of memory");
	}
	for (i = 0; i < x->nch; i++) {
		s = &m.r[i];
		s->waiting = s->waiters = s->nextw = -1;
		s->minthr = UINT64_MAX;
		if (ft__rcur_open(&s->cur, x->l, &x->ch[i], bufsize) != 0) {
			rc = ft__replay_say(x->why, x->whysize, ENOMEM, "out of memory");
			goto out;
		}
		if ((rc = advance(&m, i)) != 0)
			goto out;
		enqueue(&m, i);
	}
	while (m.qn > 0 && rc == 0) {
		i = m.q[m.qh];
		m.qh = (m.qh + 1) % x->nch;
		m.qn--;
		s = &m.r[i];
		s->inq = 0;
		while (!s->done && rc == 0) {
			h = &s->head;
			tsend = UINT64_MAX;
			if (h->d.sender != FT_DET_NOSENDER &&
			    (h->d.kind == FT_DET_DELIVERY ||
			    h->d.kind == FT_ND_ANYSRC)) {
				thr = send_threshold(x->o, h);
				j = rank_index(x, h->d.sender);
				if (j >= 0 && !m.r[j].done &&
				    m.r[j].head.d.clock < thr) {
					ss = &m.r[j];
					s->waiting = j;
					s->thr = thr;
					s->nextw = ss->waiters;
					ss->waiters = (ssize_t)i;
					if (thr < ss->minthr)
						ss->minthr = thr;
					break;
				}
				tsend = j >= 0 ? ring_time(&m.r[j], thr) : thr;
			}
			t = s->ring_n > 0 ? ring_time(s, h->d.clock + 1) - 1 :
			    h->d.clock;
			if (tsend != UINT64_MAX && t <= tsend)
				t = tsend + 1;
			if (s->ring_n > 0 && t < s->t)
				t = s->t;
			s->t = t;
			ring_put(s, h->d.clock, t);
			if ((rc = event(arg, h, t, tsend)) != 0)
				break;
			if ((rc = advance(&m, i)) != 0)
				break;
			wake(&m, i);
		}
	}
	if (rc == 0)
		for (i = 0; i < x->nch; i++)
			if (!m.r[i].done) {
				*stuck += 1;
				rc = 2;
			}
	if (rc == 2)
		rc = report ? cycle(&m) : 0;
out:
	for (i = 0; i < x->nch; i++)
		ft__rcur_release(&m.r[i].cur);
	free(m.r);
	free(m.q);
	return rc;
}

static int
cross_event(void *arg, const struct ft_rrec *r, uint64_t t, uint64_t tsend)
{
	struct vctx *x = arg;
	struct ft_rrec other;
	int rc;

	(void)t;
	if (tsend == UINT64_MAX || x->o->sclock == FT_REPLAY_SCLOCK_SEQ)
		return 0;
	if (r->d.sclock == 0) {
		violation(x, "send-clock", r, "rank %u clock %" PRIu64
		    " receives rank %u's message of clock 0: a send ticks "
		    "the clock, from 0 to 1 at the first", r->rank,
		    r->d.clock, r->d.sender);
		involve(x, r);
		return 1;
	}
	if (!cs_has(&x->cs, r->d.sender, r->d.sclock))
		return 0;
	violation(x, "send-clock", r, "rank %u clock %" PRIu64 " receives "
	    "rank %u's message of clock %" PRIu64 ", a clock at which rank %u "
	    "delivered a message, not sent one", r->rank, r->d.clock,
	    r->d.sender, r->d.sclock, r->d.sender);
	involve(x, r);
	if ((rc = find_rec(x, r->d.sender, delivery_at, &r->d.sclock,
	    &other)) == 1)
		involve(x, &other);
	return rc < 0 ? -1 : 1;
}

static int
vctx_init(struct vctx *x, struct ft_replay *l, uint64_t job,
    const struct ft_replay_opts *o, struct ft_replay_stats *st,
    struct ft_replay_violation *v, char *why, size_t whysize)
{
	memset(x, 0, sizeof(*x));
	x->l = l;
	x->o = o;
	x->job = job;
	x->st = st;
	x->v = v;
	x->why = why;
	x->whysize = whysize;
	x->cs.max_mem = o->max_mem != 0 ? o->max_mem : FT_REPLAY_MEM_DEFAULT;
	memset(st, 0, sizeof(*st));
	st->job = job;
	if (ft__replay_ranks(l, job, &x->ch, &x->nch, why, whysize) != 0)
		return -1;
	st->ranks = (uint32_t)x->nch;
	return 0;
}

int
ft_replay_verify(struct ft_replay *l, uint64_t job,
    const struct ft_replay_opts *o, struct ft_replay_stats *st,
    struct ft_replay_violation *v, char *why, size_t whysize)
{
	struct vctx x;
	uint64_t stuck = 0;
	int rc;

	if (vctx_init(&x, l, job, o, st, v, why, whysize) != 0)
		return -1;
	if ((rc = check_ranks(&x)) == 0)
		rc = simulate(&x, cross_event, &x, &stuck, 1);
	st->mem = x.cs.mem;
	cs_release(&x.cs);
	return rc;
}

int
ft__replay_walk(struct ft_replay *l, uint64_t job,
    const struct ft_replay_opts *o,
    int (*event)(void *, const struct ft_rrec *, uint64_t, uint64_t),
    void *arg, uint64_t *stuck, char *why, size_t whysize)
{
	struct ft_replay_violation v;
	struct ft_replay_stats st;
	struct vctx x;
	int rc;

	if (vctx_init(&x, l, job, o, &st, &v, why, whysize) != 0)
		return -1;
	*stuck = 0;
	rc = simulate(&x, event, arg, stuck, 0);
	cs_release(&x.cs);
	return rc < 0 ? -1 : 0;
}
