/* SPDX-License-Identifier: ISC */
/*
 * The "replicate" protocol (P2P-MPI's replication, ARCHITECTURE.md
 * section 4, ftrun -r R).  Every rank runs as R processes, process id
 * rank * R + replica.  The master of a rank (its lowest live replica)
 * sends each message to every live replica of the destination and then
 * commits it to its own replicas; the others keep a copy until the
 * commit and send nothing.  Receivers take each message once, in the
 * sender's order, whichever replica it comes from.  A new view names
 * the dead; when a master dies, the next replica collects the decisions
 * the old one made (NDSYNC), then resends every message not committed.
 *
 * Whatever may differ between two runs is decided by the master and
 * followed by its replicas (DECIDE): the source an ANY_SOURCE receive
 * matches, and the outcome of a probe, a test, a wait for any or some,
 * and the clock.
 *
 * The protocol acts only through the core's effects (proto.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto.h"

/* A message a master has sent and will commit once it is out. */
struct cmt {
	struct cmt	*next;
	uint64_t	 seq;
	size_t		 len;
	uint32_t	 crc;
	int		 done;		/* the engine says it is out */
};

/*
 * Commits wait for company: a frame per message would wake each replica
 * once more per message.  They go out once this many messages or bytes
 * are out (bounding the copies a replica keeps), with decisions, and
 * when the process is about to leave.  Late commits cost nothing but
 * the replicas' memory: a new master resends what was not committed,
 * and receivers drop what they have.
 */
#define COMMIT_BATCH	64
#define COMMIT_BYTES	(128u << 10)

/* A message that came ahead of its turn, held by its handle. */
struct early {
	struct early	*next;
	uint64_t	 seq;
	uint32_t	 proc;
	void		*handle;
};

/* One rank as a peer: message numbers taken, and our tables for it. */
struct rpeer {
	uint64_t		 rseq;		/* next number we take from it */
	struct early		*early;		/* ahead of rseq, by number */
	struct ft_rep_backup	 bk;		/* our uncommitted copies to it */
	struct cmt		*ch, *ct;	/* master: sent, not committed */
};

/*
 * Decisions received, waiting for their event: d[first .. first + n).
 * A master polling MPI_Test decides once a call, and its replica takes
 * them from the front: that must cost O(1), or a replica that falls
 * behind falls further behind with every decision.
 */
struct ndq {
	struct ft_decision	*d;
	size_t			 first, n, cap;
};

/* A replica's ANY_SOURCE receive waiting for the master's choice. */
struct waiting {
	struct ft_req	*req;
	uint64_t	 site;
};

struct rep {
	struct ft_proto		*p;
	uint32_t		 rank, size, nrep, replica, self, nproc;
	uint8_t			*gone;		/* nproc, from the views */
	uint32_t		*master;	/* size: each rank's master */
	int			 check_div;
	struct rpeer		*peers;		/* size */
	size_t			 cmt_pending;
	size_t			 cmt_done, done_bytes;	/* out, to commit */
	int			 flush_due;	/* leaving: commit all */
	/* Batches: commits and decisions to send, and to decode into. */
	struct ft_commit	*cbatch, *rcbatch;
	struct ft_decision	*dbatch, *rdbatch;
	uint32_t		 ndbatch;
	int			 diverged;
	struct ft_nd_log	 ndlog;		/* decisions made or received */
	uint64_t		 nd_made;	/* decisions below were ours */
	uint64_t		 nd_out;	/* ... and the replicas have these */
	uint64_t		 nd_sync_site;	/* next event in program order */
	uint64_t		 nd_any_site;	/* last ANY_SOURCE receive */
	struct ndq		 nd_sync, nd_any;	/* received, unused */
	struct waiting		*wait;		/* in posting order */
	size_t			 nwait, capwait;
	int			 takeover;	/* becoming master */
	uint32_t		 old_master;	/* process we take over from */
	uint8_t			*asked;		/* takeover: NDSYNC owed by */
	uint8_t			*sync_owed;	/* replicas asked us */
	uint64_t		*sync_have;	/* ... and what they hold */
};

#define CORE(s)		((s)->p->core)
#define CORE_ARG(s)	((s)->p->cookie)

static struct rep *
rep_of(struct ft_proto *p)
{
	return p->priv;
}

static int
is_gone(struct rep *s, uint32_t q)
{
	return (CORE(s)->proc_state(CORE_ARG(s), q) & FT_PROC_GONE) != 0;
}

/* Master of our rank, with every decision of the old one collected. */
static int
is_master(const struct rep *s)
{
	return s->master[s->rank] == s->replica && !s->takeover;
}

#define note(s, kind, ...) \
	ft__proto_note((s)->p, &(s)->diverged, (kind), __VA_ARGS__)

static int
rep_init(struct ft_proto *p, const struct ft_conf *cf)
{
	struct rep *s = rep_of(p);

	s->p = p;
	s->rank = cf->rank;
	s->size = cf->size;
	s->nrep = cf->ppr > 0 ? cf->ppr : 1;
	s->self = cf->proc;
	s->replica = cf->proc % s->nrep;
	s->nproc = cf->size * s->nrep;
	s->check_div = cf->check_divergence;
	if (s->nrep > FT_PROTO_MULTI_MAX || cf->proc / s->nrep != cf->rank) {
		errno = EINVAL;
		return -1;
	}
	/* Zero: replica 0 of every rank starts as its master. */
	if ((s->master = calloc(s->size, sizeof(*s->master))) == NULL ||
	    (s->gone = calloc(s->nproc, 1)) == NULL ||
	    (s->peers = calloc(s->size, sizeof(*s->peers))) == NULL ||
	    (s->cbatch = calloc(FT_WIRE_BATCH_MAX, sizeof(*s->cbatch))) ==
	    NULL ||
	    (s->rcbatch = calloc(FT_WIRE_BATCH_MAX, sizeof(*s->rcbatch))) ==
	    NULL ||
	    (s->dbatch = calloc(FT_WIRE_BATCH_MAX, sizeof(*s->dbatch))) ==
	    NULL ||
	    (s->rdbatch = calloc(FT_WIRE_BATCH_MAX, sizeof(*s->rdbatch))) ==
	    NULL ||
	    (s->asked = calloc(s->nrep, 1)) == NULL ||
	    (s->sync_owed = calloc(s->nrep, 1)) == NULL ||
	    (s->sync_have = calloc(s->nrep, sizeof(uint64_t))) == NULL ||
	    ft_nd_log_init(&s->ndlog, 4096) != 0)
		return -1;	/* fini frees what was allocated */
	return 0;
}

static void
rep_fini(struct ft_proto *p)
{
	struct rep *s = rep_of(p);
	struct early *e;
	struct cmt *c;
	uint32_t i;

	for (i = 0; s->peers != NULL && i < s->size; i++) {
		struct rpeer *rp = &s->peers[i];

		while ((e = rp->early) != NULL) {
			rp->early = e->next;
			CORE(s)->drop(CORE_ARG(s), e->handle);
			free(e);
		}
		while ((c = rp->ch) != NULL) {
			rp->ch = c->next;
			free(c);
		}
		ft_rep_backup_free(&rp->bk);
	}
	free(s->peers);
	free(s->master);
	free(s->gone);
	free(s->cbatch);
	free(s->rcbatch);
	free(s->dbatch);
	free(s->rdbatch);
	free(s->asked);
	free(s->sync_owed);
	free(s->sync_have);
	free(s->nd_sync.d);
	free(s->nd_any.d);
	free(s->wait);
	if (s->ndlog.ring != NULL)
		ft_nd_log_free(&s->ndlog);
}

/* Send a frame to every live replica of our own rank but us. */
static void
to_my_replicas(struct rep *s, const struct ft_wbuf *wb)
{
	uint32_t k, q;

	for (k = 0; k < s->nrep; k++) {
		q = s->rank * s->nrep + k;
		if (k != s->replica && !is_gone(s, q))
			(void)CORE(s)->send_frame(CORE_ARG(s), q, wb);
	}
}

/* Append the pending decisions to wb as one DECIDE frame. */
static void
decide_encode(struct rep *s, struct ft_wbuf *wb)
{
	struct ft_msg_decide md = { 0, 0, s->ndbatch, s->dbatch };

	if (s->ndbatch == 0)
		return;
	(void)ft_msg_decide_encode(wb, s->self, FT_MSG_DECIDE, &md);
	s->ndbatch = 0;
}

static void
decide_flush(struct rep *s)
{
	struct ft_wbuf wb;

	if (s->ndbatch == 0)
		return;
	ft_wbuf_init(&wb);
	decide_encode(s, &wb);
	if (wb.len > 0)
		to_my_replicas(s, &wb);
	ft_wbuf_release(&wb);
}

/* The master made a decision: log it and tell the replicas. */
static void
decide_local(struct rep *s, uint32_t kind, uint64_t site,
    const uint64_t v[3])
{
	struct ft_decision d = { s->ndlog.count, kind, site, v[0], v[1],
	    v[2] };

	(void)ft_nd_log_add(&s->ndlog, &d);
	s->nd_made = s->ndlog.count;
	s->dbatch[s->ndbatch++] = d;
	if (s->ndbatch == FT_WIRE_BATCH_MAX)
		decide_flush(s);
}

static int
ndq_push(struct ndq *q, const struct ft_decision *d)
{
	struct ft_decision *nd;

	/* Room at the front goes first: the queue moves once a lap. */
	if (q->first > 0 && q->first + q->n == q->cap) {
		memmove(q->d, q->d + q->first, q->n * sizeof(*q->d));
		q->first = 0;
	}
	if ((nd = ft_grow(q->d, &q->cap, q->first + q->n, sizeof(*nd))) ==
	    NULL)
		return -1;
	q->d = nd;
	q->d[q->first + q->n++] = *d;
	return 0;
}

static struct ft_decision *
ndq_at(struct ndq *q, size_t i)
{
	return &q->d[q->first + i];
}

static void
ndq_del(struct ndq *q, size_t i)
{
	if (i == 0)
		q->first++;
	else
		memmove(ndq_at(q, i), ndq_at(q, i + 1),
		    (q->n - i - 1) * sizeof(*q->d));
	if (--q->n == 0)
		q->first = 0;
}

static void
wait_del(struct rep *s, size_t i)
{
	memmove(&s->wait[i], &s->wait[i + 1],
	    (s->nwait - i - 1) * sizeof(*s->wait));
	s->nwait--;
}

/* A decision from the master (or collected in a takeover). */
static int
take_decision(struct rep *s, const struct ft_decision *d)
{
	struct ft_req *r;
	size_t i;
	int rc;

	if (d->kind == 0 || d->kind > FT_ND_KIND_MAX) {
		errno = EPROTO;
		return -1;
	}
	if ((rc = ft_nd_log_add(&s->ndlog, d)) != 0)
		return rc < 0 ? -1 : 0;
	if (d->kind != FT_ND_ANYSRC)
		return ndq_push(&s->nd_sync, d);
	for (i = 0; i < s->nwait; i++)
		if (s->wait[i].site == d->site) {
			r = s->wait[i].req;
			wait_del(s, i);
			return CORE(s)->resolve(CORE_ARG(s), r, (int)d->a);
		}
	return ndq_push(&s->nd_any, d);
}

/*
 * The master's choice for the ANY_SOURCE receive of site, when it came
 * before the receive was posted: the source, consumed; else -1.
 */
static int
any_decided(struct rep *s, uint64_t site)
{
	size_t i;
	int src;

	for (i = 0; i < s->nd_any.n; i++)
		if (ndq_at(&s->nd_any, i)->site == site) {
			src = (int)ndq_at(&s->nd_any, i)->a;
			ndq_del(&s->nd_any, i);
			return src;
		}
	return -1;
}

/*
 * A new ANY_SOURCE receive gets the next site number.  A replica waits
 * for the master's choice unless it came first.
 */
static int
rep_recv_any(struct ft_proto *p, struct ft_req *r, uint64_t *rtag)
{
	struct rep *s = rep_of(p);
	uint64_t site = ++s->nd_any_site;
	struct waiting *nw;
	int src;

	if ((src = any_decided(s, site)) >= 0) {
		/* Followed, not decided: nothing to tell at the match. */
		*rtag = 0;
		return src;
	}
	*rtag = site;
	if (is_master(s))
		return -1;
	/* Out of memory, the receive cannot wait: it matches freely, and
	 * the replica may diverge (the digest check says so when on). */
	if ((nw = ft_grow(s->wait, &s->capwait, s->nwait, sizeof(*nw))) ==
	    NULL)
		return -1;
	s->wait = nw;
	s->wait[s->nwait++] = (struct waiting){ r, site };
	return FT_RECV_WAIT;
}

static void
rep_recv_cancel(struct ft_proto *p, struct ft_req *r)
{
	struct rep *s = rep_of(p);
	size_t i;

	for (i = 0; i < s->nwait; i++)
		if (s->wait[i].req == r) {
			wait_del(s, i);
			return;
		}
}

/* A receive matched: if it was ANY_SOURCE on a master, say which. */
static void
rep_match(struct ft_proto *p, const struct ft_msg *m, uint64_t rtag)
{
	struct rep *s = rep_of(p);
	uint64_t v[3] = { m->csrc, m->seq, m->src };

	if (rtag == 0 || !is_master(s))
		return;
	decide_local(s, FT_ND_ANYSRC, rtag, v);
}

static int
rep_nondet(struct ft_proto *p, struct ft_nd *ev)
{
	struct rep *s = rep_of(p);
	struct ft_decision *d;

	if (ev->op == FT_ND_ASK) {
		if (s->nd_sync.n == 0 && !is_master(s)) {
			errno = EAGAIN;
			return -1;
		}
		ev->local = s->nd_sync.n == 0;
		return 0;
	}
	if (!ev->started) {
		ev->site = s->nd_sync_site++;
		ev->started = 1;
	}
	if (s->nd_sync.n > 0) {
		d = ndq_at(&s->nd_sync, 0);
		if (d->site != ev->site || d->kind != ev->kind) {
			note(s, FT_NOTE_DIVERGE, "rank %u replica %u: "
			    "event %llu is a %u here, a %u at the master",
			    s->rank, s->replica, (unsigned long long)ev->site,
			    ev->kind, d->kind);
			errno = EPROTO;
			return -1;
		}
		ev->v[0] = d->a;
		ev->v[1] = d->b;
		ev->v[2] = d->c;
		ndq_del(&s->nd_sync, 0);
		return 0;
	}
	if (is_master(s)) {
		/* Out at the end of the pass, or before our next message
		 * (decisions_out): a clock read in a loop costs one frame a
		 * pass, not one a read. */
		decide_local(s, ev->kind, ev->site, ev->v);
		return 0;
	}
	errno = EAGAIN;
	return -1;
}

/*
 * Send the first n entries of the commit batch to our replicas, after
 * the pending decisions: one write for both.
 */
static void
commit_send(struct rep *s, uint32_t n)
{
	struct ft_msg_commit mc = { n, s->cbatch };
	struct ft_wbuf wb;

	ft_wbuf_init(&wb);
	decide_encode(s, &wb);
	if (ft_msg_commit_encode(&wb, s->self, &mc) == 0)
		to_my_replicas(s, &wb);
	ft_wbuf_release(&wb);
}

/* Commits and decisions due to our replicas, after a progress pass. */
static void
commit_flush(struct rep *s)
{
	struct rpeer *rp;
	struct cmt *c;
	uint32_t d, n = 0;
	uint64_t bad;

	if (s->cmt_done == 0 || (!s->flush_due && s->ndbatch == 0 &&
	    s->cmt_done < COMMIT_BATCH && s->done_bytes < COMMIT_BYTES)) {
		decide_flush(s);
		return;
	}
	s->cmt_done = s->done_bytes = 0;
	s->flush_due = 0;
	for (d = 0; d < s->size; d++) {
		rp = &s->peers[d];
		while ((c = rp->ch) != NULL && c->done) {
			if (n > 0 && !s->check_div && s->cbatch[n - 1].dst == d)
				n--;
			s->cbatch[n++] = (struct ft_commit){ d, c->crc, c->seq };
			(void)ft_rep_backup_commit(&rp->bk, c->seq, 0, &bad);
			rp->ch = c->next;
			if (rp->ch == NULL)
				rp->ct = NULL;
			free(c);
			s->cmt_pending--;
			if (n == FT_WIRE_BATCH_MAX) {
				commit_send(s, n);
				n = 0;
			}
		}
	}
	if (n > 0)
		commit_send(s, n);
	decide_flush(s);
}

static void
rep_sent(struct ft_proto *p, void *cookie)
{
	struct rep *s = rep_of(p);
	struct cmt *c = cookie;

	c->done = 1;
	s->cmt_done++;
	s->done_bytes += c->len;
}

static int
rep_busy(struct ft_proto *p)
{
	struct rep *s = rep_of(p);

	/* A master's commits go out before it says it is done, so its
	 * replicas can check and drop their copies. */
	if (s->cmt_pending == 0)
		return 0;
	s->flush_due = 1;
	return 1;
}

static struct cmt *
cmt_new(struct rep *s, uint32_t dst, uint64_t seq, size_t len, uint32_t crc)
{
	struct rpeer *rp = &s->peers[dst];
	struct cmt *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->seq = seq;
	c->len = len;
	c->crc = crc;
	if (rp->ct != NULL)
		rp->ct->next = c;
	else
		rp->ch = c;
	rp->ct = c;
	s->cmt_pending++;
	return c;
}

/*
 * Before a master's message leaves, the decisions it made so far must be
 * out of its hands (in its replicas' socket buffers; over TCP,
 * acknowledged by them): a message that depends on a decision must
 * never outlive it, or a replica taking over would decide again, and
 * differently.  Usually they went out when made; behind a handshake
 * still in progress, or an acknowledgement still to come, they wait
 * here.
 */
static void
decisions_out(struct rep *s)
{
	uint32_t k, q;
	int unsent;

	while (s->nd_out < s->nd_made) {
		decide_flush(s);
		unsent = 0;
		for (k = 0; k < s->nrep; k++) {
			q = s->rank * s->nrep + k;
			if (k != s->replica &&
			    (CORE(s)->proc_state(CORE_ARG(s), q) &
			    (FT_PROC_GONE | FT_PROC_UNSENT)) == FT_PROC_UNSENT)
				unsent = 1;
		}
		if (!unsent)
			s->nd_out = s->nd_made;
		else if (CORE(s)->progress(CORE_ARG(s), 1) != 0)
			return;	/* inside progress: no waiting there */
	}
}

/*
 * The master sends message m to every live replica of its destination,
 * to be committed once it is out.
 */
static int
transmit(struct rep *s, const struct ft_msg *m, uint32_t crc)
{
	uint32_t procs[FT_PROTO_MULTI_MAX], k, q, n = 0;
	struct cmt *c;

	decisions_out(s);
	for (k = 0; k < s->nrep; k++) {
		q = m->dst * s->nrep + k;
		if (!is_gone(s, q))
			procs[n++] = q;
	}
	if (n == 0) {
		/* Every replica of dst is dead: ftrun is ending the job with
		 * that news, which an error here would only race. */
		if (m->req != NULL)
			CORE(s)->complete(CORE_ARG(s), m->req, 0);
		return 0;
	}
	if ((c = cmt_new(s, m->dst, m->seq, m->len, crc)) == NULL)
		return -1;
	return CORE(s)->send_msg(CORE_ARG(s), procs, n, m, c);
}

static int
rep_send(struct ft_proto *p, struct ft_msg *m)
{
	struct rep *s = rep_of(p);
	struct rpeer *rp;
	uint32_t crc = 0;

	/* Every replica sends to itself. */
	if (m->dst == s->rank)
		return 0;
	rp = &s->peers[m->dst];
	if (s->check_div && m->len > 0)
		crc = ft_crc32c(0, m->buf, m->len) | 1;
	if (m->seq < rp->bk.committed) {
		/* The master we follow, or the one before, sent it. */
		if (ft_rep_backup_late(&rp->bk, m->seq, crc))
			note(s, FT_NOTE_DIVERGE, "rank %u replica %u diverged "
			    "from its master: message %llu to rank %u has "
			    "other bytes", s->rank, s->replica,
			    (unsigned long long)m->seq, m->dst);
		CORE(s)->complete(CORE_ARG(s), m->req, 0);
		return 1;
	}
	if (s->master[s->rank] != s->replica) {
		if (ft_rep_backup_add(&rp->bk, m, m->mode, crc) < 0)
			return -1;
		CORE(s)->complete(CORE_ARG(s), m->req, 0);
		return 1;
	}
	return transmit(s, m, crc) == 0 ? 1 : -1;
}

/* A new master sends again every message not known to be committed. */
static void
resend_backups(struct rep *s)
{
	struct ft_rep_entry *e, *next;
	struct rpeer *rp;
	struct ft_msg m;
	uint32_t d;

	for (d = 0; d < s->size; d++) {
		rp = &s->peers[d];
		e = rp->bk.head;
		rp->bk.head = rp->bk.tail = NULL;
		rp->bk.count = rp->bk.bytes = 0;
		for (; e != NULL; e = next) {
			next = e->next;
			memset(&m, 0, sizeof(m));
			m.ctx = e->ctx;
			m.src = s->rank;
			m.csrc = e->src;
			m.dst = d;
			m.tag = e->tag;
			m.seq = e->seq;
			m.buf = e->data;
			m.len = e->len;
			m.mode = e->mode;
			/* Without a request the engine copies what it keeps;
			 * a failure means the destination is gone, and the
			 * job ends. */
			(void)transmit(s, &m, e->crc);
			free(e->data);
			free(e);
		}
	}
}

/*
 * NDSYNC to process q: an ask (reply 0), or an answer with every
 * decision from index from on; long answers go ahead as DECIDE frames
 * and the NDSYNC that ends them comes last.
 */
static void
ndsync_send(struct rep *s, uint32_t q, uint32_t reply, uint64_t from)
{
	struct ft_msg_decide md = { 0, 0, 0, s->dbatch };
	const struct ft_decision *d;
	struct ft_wbuf wb;
	uint64_t i;

	if (is_gone(s, q))
		return;
	/* The batch is ours from here: nothing is decided meanwhile. */
	decide_flush(s);
	for (i = from; reply && i < s->ndlog.count; i++) {
		if ((d = ft_nd_log_get(&s->ndlog, i)) == NULL) {
			note(s, FT_NOTE_DIVERGE, "rank %u replica %u: "
			    "decision %llu is no longer kept; replicas may "
			    "diverge", s->rank, s->replica,
			    (unsigned long long)i);
			continue;
		}
		md.d[md.n++] = *d;
		if (md.n < FT_WIRE_BATCH_MAX)
			continue;
		ft_wbuf_init(&wb);
		if (ft_msg_decide_encode(&wb, s->self, FT_MSG_DECIDE, &md) == 0)
			(void)CORE(s)->send_frame(CORE_ARG(s), q, &wb);
		ft_wbuf_release(&wb);
		md.n = 0;
	}
	md.reply = reply;
	md.have = s->ndlog.count;
	ft_wbuf_init(&wb);
	if (ft_msg_decide_encode(&wb, s->self, FT_MSG_NDSYNC, &md) == 0)
		(void)CORE(s)->send_frame(CORE_ARG(s), q, &wb);
	ft_wbuf_release(&wb);
}

static int
reading_from(struct rep *s, uint32_t q)
{
	return (CORE(s)->proc_state(CORE_ARG(s), q) & FT_PROC_READING) != 0;
}

/*
 * Takeover and its replies wait until the old master's connection is
 * drained: whatever it sent before dying is then known here.
 */
static void
takeover_step(struct rep *s)
{
	struct ft_req *r;
	uint32_t k, q;
	int src;

	for (k = 0; k < s->nrep; k++) {
		q = s->rank * s->nrep + k;
		if (!s->sync_owed[k] || is_gone(s, q)) {
			s->sync_owed[k] = 0;
			continue;
		}
		if (s->master[s->rank] != k || reading_from(s, s->old_master))
			continue;
		ndsync_send(s, q, 1, s->sync_have[k]);
		s->sync_owed[k] = 0;
	}
	if (!s->takeover || reading_from(s, s->old_master))
		return;
	for (k = 0; k < s->nrep; k++)
		if (s->asked[k] && !is_gone(s, s->rank * s->nrep + k))
			return;
	/* Every replica's decisions are in: give each what it lacks. */
	for (k = 0; k < s->nrep; k++) {
		q = s->rank * s->nrep + k;
		if (k != s->replica && !is_gone(s, q) &&
		    s->sync_have[k] < s->ndlog.count)
			ndsync_send(s, q, 1, s->sync_have[k]);
	}
	s->takeover = 0;
	/* Undecided ANY_SOURCE receives are ours to decide now, in
	 * posting order. */
	while (s->nwait > 0) {
		r = s->wait[0].req;
		src = any_decided(s, s->wait[0].site);
		wait_del(s, 0);
		(void)CORE(s)->resolve(CORE_ARG(s), r, src);
	}
}

static void
rep_tick(struct ft_proto *p)
{
	struct rep *s = rep_of(p);

	takeover_step(s);
	commit_flush(s);
}

static int
rep_view(struct ft_proto *p, const uint32_t *dead, uint32_t ndead)
{
	struct rep *s = rep_of(p);
	uint32_t i, q, k, d, old;

	for (i = 0; i < ndead; i++)
		if (dead[i] < s->nproc && dead[i] != s->self)
			s->gone[dead[i]] = 1;
	for (d = 0; d < s->size; d++) {
		old = s->master[d];
		s->master[d] = ft_rep_master(s->gone, d, s->nrep);
		if (d != s->rank || old == s->master[d] ||
		    s->master[d] == UINT32_MAX)
			continue;
		s->old_master = d * s->nrep + old;
		if (s->master[d] != s->replica)
			continue;
		/* We are the new master. */
		s->takeover = 1;
		resend_backups(s);
		for (k = 0; k < s->nrep; k++) {
			q = s->rank * s->nrep + k;
			s->asked[k] = k != s->replica && !s->gone[q];
			s->sync_have[k] = 0;
			if (s->asked[k])
				ndsync_send(s, q, 0, 0);
		}
	}
	return 0;
}

static int
rep_frame(struct ft_proto *p, uint32_t proc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct rep *s = rep_of(p);
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_msg_commit mc;
	struct ft_msg_decide md;
	uint32_t i, k = proc % s->nrep;
	uint64_t bad;

	if (proc / s->nrep != s->rank) {
		errno = EPROTO;
		return -1;
	}
	switch (h->type) {
	case FT_MSG_COMMIT:
		mc.e = s->rcbatch;
		if (ft_msg_commit_decode(body, blen, &mc, FT_WIRE_BATCH_MAX) != 0)
			return -1;
		for (i = 0; i < mc.n; i++) {
			if (mc.e[i].dst >= s->size) {
				errno = EPROTO;
				return -1;
			}
			if (ft_rep_backup_commit(&s->peers[mc.e[i].dst].bk,
			    mc.e[i].seq, mc.e[i].crc, &bad))
				note(s, FT_NOTE_DIVERGE, "rank %u replica %u "
				    "diverged from its master: message %llu to "
				    "rank %u has other bytes", s->rank,
				    s->replica, (unsigned long long)bad,
				    mc.e[i].dst);
		}
		return 0;
	case FT_MSG_DECIDE:
	case FT_MSG_NDSYNC:
		md.d = s->rdbatch;
		if (ft_msg_decide_decode(body, blen, &md, FT_WIRE_BATCH_MAX) !=
		    0)
			return -1;
		if (h->type == FT_MSG_NDSYNC && md.reply == 0) {
			s->sync_owed[k] = 1;
			s->sync_have[k] = md.have;
			return 0;
		}
		for (i = 0; i < md.n; i++)
			if (take_decision(s, &md.d[i]) != 0)
				return -1;
		if (h->type == FT_MSG_NDSYNC) {
			s->asked[k] = 0;
			s->sync_have[k] = md.have;
		}
		return 0;
	default:
		errno = EPROTO;
		return -1;
	}
}

/*
 * Hold a message that came ahead of its turn, by number; of two copies
 * of one, keep the one whose sender is alive.  Returns 0, or -1 with
 * ENOMEM (the message is then dropped).
 */
static int
early_insert(struct rep *s, struct rpeer *rp, const struct ft_msg *m,
    void *handle)
{
	struct early **pp, *e, *u;

	for (pp = &rp->early; (e = *pp) != NULL && e->seq < m->seq;
	    pp = &e->next)
		;
	if (e != NULL && e->seq == m->seq) {
		if (!is_gone(s, e->proc)) {
			CORE(s)->drop(CORE_ARG(s), handle);
			return 0;
		}
		CORE(s)->drop(CORE_ARG(s), e->handle);
		e->proc = m->proc;
		e->handle = handle;
		return 0;
	}
	if ((u = malloc(sizeof(*u))) == NULL) {
		CORE(s)->drop(CORE_ARG(s), handle);
		return -1;
	}
	*u = (struct early){ e, m->seq, m->proc, handle };
	*pp = u;
	return 0;
}

/*
 * A whole message (eager payload in, or an RTS) from a replica of rank
 * m->src: take it once, in its sender's order.
 */
static int
rep_arrive(struct ft_proto *p, const struct ft_msg *m, void *handle)
{
	struct rep *s = rep_of(p);
	struct rpeer *rp = &s->peers[m->src];
	struct early *e;

	if (m->seq < rp->rseq)
		return FT_ARRIVE_DUP;
	if (m->seq > rp->rseq)
		return early_insert(s, rp, m, handle) == 0 ? FT_ARRIVE_HELD :
		    -1;
	rp->rseq++;
	if (CORE(s)->release(CORE_ARG(s), handle) != 0)
		return -1;
	while ((e = rp->early) != NULL && e->seq <= rp->rseq) {
		rp->early = e->next;
		if (e->seq < rp->rseq)
			CORE(s)->drop(CORE_ARG(s), e->handle);
		else {
			rp->rseq++;
			if (CORE(s)->release(CORE_ARG(s), e->handle) != 0) {
				free(e);
				return -1;
			}
		}
		free(e);
	}
	return FT_ARRIVE_HELD;
}

const struct ft_proto_ops ft__proto_replicate = {
	.abi = FT_PROTO_ABI,
	.name = "replicate",
	.privsize = sizeof(struct rep),
	.init = rep_init,
	.fini = rep_fini,
	.send = rep_send,
	.flags = FT_PROTO_RESENDS,
	.arrive = rep_arrive,
	.recv_any = rep_recv_any,
	.recv_cancel = rep_recv_cancel,
	.match = rep_match,
	.nondet = rep_nondet,
	.frame = rep_frame,
	.view = rep_view,
	.tick = rep_tick,
	.busy = rep_busy,
	.sent = rep_sent,
};
