/* SPDX-License-Identifier: ISC */
/*
 * The "vlog" protocol: pessimistic sender-based message logging, as in
 * MPICH-V2 (ARCHITECTURE.md sections 4 and 5, ft-proto(7)).
 *
 * Logical clocks.  Every send and every delivery advances the process's
 * clock.  A message carries its sender's clock at the send (the
 * engine's FT_FLAG_CLOCK), which its determinant logs (sclock,
 * ft-log(5)); a resend carries the clock of the first send.  The
 * message's number on its channel (the engine's per (source,
 * destination) seq, cseq in the determinant) is what names it in
 * RESTART, RESUME, digests and replay: a delivery is matched at a
 * time the program does not decide (a receive posted before a send
 * may match before or after it), so a restarted process's clock is not
 * the one its first run had, where the channel seq is.  Its clock
 * therefore goes on from incarnation << 48 (INC_SHIFT): what it logs
 * and sends anew never takes a clock value its predecessor used.
 *
 * Sender-based log.  The sender keeps a copy of every message it sends
 * to another rank (in memory up to log_mem bytes, then in a spill file
 * it unlinks at once in the job's private directory), for as long as
 * the job runs: a receiver that dies restarts from its beginning and
 * needs every message again (no checkpoint yet to say otherwise).
 *
 * Determinants.  The receiver records one per delivery (sender, sender
 * clock, its own clock, unsuccessful probes since the last delivery)
 * and one per nondeterministic outcome the nondet hook sees (the
 * source an ANY_SOURCE receive matched, probes, tests, wait-any and
 * wait-some, the clock), and sends them to the event logger (ftlog
 * serve) through the logger client of lib/store, which batches them,
 * pipelines the batches and takes acknowledgements in groups.
 *
 * The pessimistic rule.  A message leaves only once the determinants
 * it may depend on are acknowledged by the logger.  By default these
 * are every determinant of a nondeterministic outcome recorded before
 * it, and every delivery before those: a delivery to a receive that
 * named its source is decided by the sender's channel order, which the
 * sender's log reproduces, so a message that depends on nothing else
 * need not wait for it (it is logged all the same, behind).  With
 * strict, a message waits for every determinant recorded before it,
 * as MPICH-V2 does.
 *
 * Restart.  ftrun starts a dead rank again from its beginning, as
 * incarnation 1, 2...  It fetches its determinants from the logger;
 * sends RESTART to every live peer, naming the first message of the
 * peer's it lacks (RESTART1); each peer answers RESUME with the first
 * message of the restarted process's it lacks, then sends again every
 * message of its log from there (RESTART2).  The restarted process
 * replays: an ANY_SOURCE receive takes the logged source, a probe,
 * test, wait or clock read gets the logged outcome, in program order;
 * a message it makes again that its receiver holds is not sent, and
 * its digest goes to the receiver, which reports a divergence if it
 * differs.  Once the log is used up it runs free, and logs again.
 * Peers keep running and wait only where they need a message from it;
 * their sends to it are logged and go out when its RESTART comes.
 *
 * The protocol acts only through the core's effects (proto.h); the
 * logger client does its own I/O on an fd the engine polls for it
 * (core->watch, the io hook).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "vlog_impl.h"

#define LOG_MEM_DEFAULT	(1ull << 30)	/* sender log kept in memory */
#define INC_SHIFT	48		/* clocks of incarnation i from i << 48 */
#define SMALL_DIGEST	256		/* digests without --check-divergence */
#define SPIN_NS		50000		/* busy waits before sleeping in poll */
/*
 * Deliveries to receives that named their source wait to be logged
 * (nothing waits for them, unless strict) until this many are recorded
 * or the oldest is this old: one write to the logger for many messages.
 */
#define DELIVERY_BATCH	1024
#define DELIVERY_NS	20000000ull

#define CORE(s)		((s)->p->core)
#define CORE_ARG(s)	((s)->p->cookie)

static struct vlog *
vlog_of(struct ft_proto *p)
{
	return p->priv;
}

/* The process's logical clock as logs and messages give it. */
static uint64_t
lclk(const struct vlog *s)
{
	return ((uint64_t)s->inc << INC_SHIFT) + s->clock;
}

#define note(s, kind, ...) \
	ft__proto_note((s)->p, &(s)->diverged, (kind), __VA_ARGS__)

static int
is_gone(struct vlog *s, uint32_t q)
{
	return (CORE(s)->proc_state(CORE_ARG(s), q) & FT_PROC_GONE) != 0;
}

/* Deliveries are a hash set of sender << 40 | seq, 0 for empty. */
static uint64_t
dkey(uint32_t sender, uint64_t seq)
{
	return ((uint64_t)sender + 1) << 40 | (seq & ((1ull << 40) - 1));
}

static size_t
dhash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static int
rdel_add(struct vlog *s, uint64_t k)
{
	uint64_t *old = s->rdel, *nt;
	size_t oldcap = s->rdcap, i, h;

	if (2 * (s->rdn + 1) > s->rdcap) {
		s->rdcap = s->rdcap == 0 ? 1024 : 2 * s->rdcap;
		if ((nt = calloc(s->rdcap, sizeof(*nt))) == NULL) {
			s->rdcap = oldcap;
			return -1;
		}
		s->rdel = nt;
		for (i = 0; i < oldcap; i++)
			if (old[i] != 0 && old[i] != UINT64_MAX) {
				for (h = dhash(old[i], s->rdcap); nt[h] != 0;
				    h = (h + 1) & (s->rdcap - 1))
					;
				nt[h] = old[i];
			}
		free(old);
	}
	for (h = dhash(k, s->rdcap); s->rdel[h] != 0 && s->rdel[h] != k;
	    h = (h + 1) & (s->rdcap - 1))
		;
	if (s->rdel[h] == 0) {
		s->rdn++;
		s->rdleft++;
	}
	s->rdel[h] = k;
	return 0;
}

/* Take k from the set (UINT64_MAX marks a removed slot): 1 if there. */
static int
rdel_take(struct vlog *s, uint64_t k)
{
	size_t h, n;

	if (s->rdcap == 0 || s->rdleft == 0)
		return 0;
	for (h = dhash(k, s->rdcap), n = 0; s->rdel[h] != 0 && n < s->rdcap;
	    h = (h + 1) & (s->rdcap - 1), n++)
		if (s->rdel[h] == k) {
			s->rdel[h] = UINT64_MAX;
			s->rdleft--;
			return 1;
		}
	return 0;
}

/*
 * Has a restarted process done again everything its log holds?  It is
 * then back where it died: the launcher hears it once (its events, and
 * bench/vlog.sh, time the recovery with it).
 */
static void
replay_check(struct vlog *s)
{
	if (s->told || s->replay != REPLAY_ON || s->inc == 0 || s->rsn > 0 ||
	    s->anyleft > 0 || s->rdleft > 0)
		return;
	s->told = 1;
	note(s, FT_NOTE_REPLAYED, "rank %u replayed its log", s->rank);
}

/* Hand recorded determinants to the logger client, in order. */
static void
feed(struct vlog *s)
{
	struct ft_det *d;

	while (s->opened && s->qn > 0) {
		d = &s->q[s->qfirst];
		d->seq = s->last + 1;
		if (ft_logc_append(s->lc, s->rank, d) != 0)
			return;
		s->last++;
		s->qfirst++;
		if (--s->qn == 0)
			s->qfirst = 0;
	}
}

/* The count of unsuccessful probes after record d (ft-log(5)). */
static void
lprobes_step(struct vlog *s, const struct ft_det *d)
{
	if (d->kind == FT_DET_DELIVERY)
		s->lprobes = 0;
	else if (d->kind == FT_ND_PROBE && d->v[0] == 0)
		s->lprobes++;
}

/*
 * Record a new determinant.  informative: sends made after it wait for
 * it (the pessimistic rule); every one does when strict.
 */
static void
record(struct vlog *s, const struct ft_det *d, int informative)
{
	struct ft_det *nq, *nd;

	if (s->qfirst > 0 && s->qfirst + s->qn == s->qcap) {
		memmove(s->q, s->q + s->qfirst, s->qn * sizeof(*s->q));
		s->qfirst = 0;
	}
	if ((nq = ft_grow(s->q, &s->qcap, s->qfirst + s->qn,
	    sizeof(*nq))) == NULL) {
		/* Out of memory: the record is lost, and replay may not
		 * be exact; say so once. */
		note(s, FT_NOTE_DIVERGE, "rank %u: out of memory for its "
		    "determinants; a restart may not replay it exactly",
		    s->rank);
		return;
	}
	s->q = nq;
	nd = &s->q[s->qfirst + s->qn++];
	*nd = *d;
	/*
	 * The log reads as one run (ft-log(5)): clocks never go down, a
	 * delivery's goes up, and probes counts the unsuccessful probes
	 * logged since the last delivery.  A restarted process's clock is
	 * behind the log's until it has replayed it; what it logs
	 * meanwhile (deliveries its log did not hold) takes the log's.
	 */
	if (nd->clock < s->lclock || (nd->kind == FT_DET_DELIVERY &&
	    nd->clock == s->lclock))
		nd->clock = s->lclock + (nd->kind == FT_DET_DELIVERY);
	s->lclock = nd->clock;
	nd->probes = s->lprobes;
	lprobes_step(s, nd);
	s->nrec++;
	if (informative || s->strict)
		s->need = s->nrec;
	/* Handed to the client when logc_push sends them: a client that
	 * held them would send a few at each acknowledgement. */
}

/* New determinants durable at the logger. */
static uint64_t
durable(const struct vlog *s)
{
	uint64_t d;

	if (!s->opened)
		return 0;
	d = ft_logc_durable(s->lc, s->rank);
	return d > s->base ? d - s->base : 0;
}

/*
 * Keep the engine polling the client's fd for what it waits for, and
 * waking up when the deliveries held back are due (logc_push).  A
 * client that waits for nothing is not polled (ft_logc_idle): in the
 * steady state its fd is in the engine's poll only from a batch to its
 * acknowledgement.
 */
static void
logc_watch(struct vlog *s)
{
	uint64_t dl;

	/* Idle, the client has no deadline of its own either. */
	if (ft_logc_idle(s->lc)) {
		CORE(s)->watch(CORE_ARG(s), -1, 0, s->oldest != 0 ?
		    s->oldest + DELIVERY_NS : 0);
		return;
	}
	dl = ft_logc_deadline(s->lc);
	if (s->oldest != 0 && (dl == 0 || s->oldest + DELIVERY_NS < dl))
		dl = s->oldest + DELIVERY_NS;
	CORE(s)->watch(CORE_ARG(s), ft_logc_fd(s->lc), ft_logc_events(s->lc),
	    dl);
}

/* Determinants recorded and not yet sent to the logger. */
static uint64_t
unsent(const struct vlog *s)
{
	return s->qn + (s->last - s->flushed);
}

/*
 * Send the logger what was recorded: at once when a send waits for it
 * (or all the time when strict, or when leaving), else in batches
 * (DELIVERY_BATCH, or DELIVERY_NS after the first: the engine calls
 * the io hook at that deadline, logc_due).  The clock is read once a
 * batch, not once a pass.
 */
static void
logc_push(struct vlog *s, int now)
{
	if (!s->opened || unsent(s) == 0)
		return;
	if (now || s->strict || durable(s) < s->need ||
	    unsent(s) >= DELIVERY_BATCH) {
		feed(s);
		(void)ft_logc_flush(s->lc);
		s->flushed = s->last;
		s->oldest = 0;
	} else if (s->oldest == 0)
		s->oldest = CORE(s)->now_ns(CORE_ARG(s));
}

/* The deliveries held back are due (DELIVERY_NS): send them. */
static void
logc_due(struct vlog *s)
{
	if (s->oldest != 0 && CORE(s)->now_ns(CORE_ARG(s)) - s->oldest >=
	    DELIVERY_NS)
		logc_push(s, 1);
}

static void
on_acked(void *arg, uint32_t rank, uint64_t seq, uint64_t clock)
{
	struct vlog *s = arg;

	(void)clock;
	if (rank != s->rank || s->opened)
		return;
	s->opened = 1;
	s->base = s->last = s->flushed = seq;
	/* From an image: only the determinants after it. */
	if (s->inc > 0 && s->replay == REPLAY_FETCH && seq > s->dfrom) {
		s->fetch_id = ft_logc_fetch(s->lc, s->rank, s->dfrom + 1, 0);
		if (s->fetch_id == 0)
			s->opened = 0;	/* asked again at the reconnection */
		return;
	}
	if (s->replay == REPLAY_FETCH) {
		s->replay = REPLAY_ON;	/* nothing to replay */
		if (s->dfrom > 0)
			replay_check(s);
	}
	feed(s);
}

static int
any_cmp(const void *a, const void *b)
{
	const struct vany *x = a, *y = b;

	return x->site < y->site ? -1 : x->site > y->site;
}

static void	fetched(struct vlog *);

/* The logged ANY_SOURCE outcome of site, not used yet, or NULL. */
static struct vany *
any_find(struct vlog *s, uint64_t site)
{
	struct vany *a;

	if (s->anyleft == 0)
		return NULL;
	a = bsearch(&(struct vany){ .site = site }, s->rany, s->nany,
	    sizeof(*s->rany), any_cmp);
	return a != NULL && !a->used ? a : NULL;
}

static void
on_records(void *arg, uint32_t rank, uint32_t reqid, const struct ft_det *d,
    uint32_t n, int last)
{
	struct vlog *s = arg;
	struct ft_det *nd;
	struct vany *na;
	uint32_t i;

	if (rank != s->rank || reqid != s->fetch_id)
		return;
	for (i = 0; i < n; i++) {
		s->lclock = d[i].clock;
		lprobes_step(s, &d[i]);
		if (s->replay_off && d[i].kind != FT_DET_DELIVERY)
			continue;
		if (d[i].kind == FT_DET_DELIVERY) {
			/* A log of the first vlog named it by sclock. */
			if (rdel_add(s, dkey(d[i].sender, (d[i].flags &
			    FT_DET_F_CSEQ) ? d[i].cseq : d[i].sclock)) != 0)
				goto nomem;
		} else if (d[i].kind == FT_ND_ANYSRC) {
			if ((na = ft_grow(s->rany, &s->capany, s->nany,
			    sizeof(*na))) == NULL)
				goto nomem;
			s->rany = na;
			s->rany[s->nany++] = (struct vany){ d[i].v[1],
			    d[i].sender, (uint32_t)d[i].v[0], (d[i].flags &
			    FT_DET_F_CSEQ) ? d[i].cseq : d[i].sclock, 0 };
		} else {
			if ((nd = ft_grow(s->rsync, &s->rscap, s->rsn,
			    sizeof(*nd))) == NULL)
				goto nomem;
			s->rsync = nd;
			s->rsync[s->rsn++] = d[i];
		}
	}
	if (last)
		fetched(s);
	return;
nomem:
	note(s, FT_NOTE_DIVERGE, "rank %u: out of memory for its log; the "
	    "replay is not exact", s->rank);
}

static void
on_error(void *arg, uint32_t rank, uint32_t reqid, uint32_t code,
    const char *text)
{
	struct vlog *s = arg;

	(void)rank;
	/* A lost fetch (code 0: the connection) is asked again once the
	 * connection is back; one the logger refused (a corrupt or
	 * vanished log) would be refused again, and without its log the
	 * process cannot replay: it ends the job, saying why. */
	if (reqid != 0 && reqid == s->fetch_id) {
		s->fetch_id = 0;
		s->opened = 0;
		if (code != 0) {
			note(s, FT_NOTE_FATAL, "rank %u cannot be restarted: "
			    "the event logger cannot give its log back: %s",
			    s->rank, text);
			return;
		}
	}
	/* The client tries again by itself: a few words are enough. */
	if (s->lerr++ >= 3)
		return;
	note(s, FT_NOTE_WARNING, "rank %u: the event logger: %s%s", s->rank,
	    text, s->lerr == 3 ? " (further errors not shown)" : "");
}

static const struct ft_logc_cb logc_cb = { on_acked, on_records, on_error };

static int
vlog_init(struct ft_proto *p, const struct ft_conf *cf)
{
	struct vlog *s = vlog_of(p);
	uint32_t i;

	s->p = p;
	s->rank = cf->rank;
	s->size = cf->size;
	s->inc = cf->incarnation;
	s->strict = cf->strict;
	s->replay_off = cf->replay_off;
	s->check = cf->check_divergence;
	s->spill_fd = s->mem_fd = s->log_fd = -1;
	s->own_dst = UINT32_MAX;
	s->spill_dir = cf->spill_dir;
	s->mem_max = cf->log_mem != 0 ? cf->log_mem : LOG_MEM_DEFAULT;
	if ((cf->ppr > 1) || cf->log_addr == NULL || cf->key == NULL) {
		errno = ENOTSUP;
		return -1;
	}
	if ((s->peers = calloc(s->size, sizeof(*s->peers))) == NULL)
		return -1;
	for (i = 0; i < s->size; i++)
		s->peers[i].resumed = s->inc == 0;
	s->replay = s->inc > 0 ? REPLAY_FETCH : REPLAY_NONE;
	if ((s->lc = ft_logc_new(cf->log_addr, cf->key, cf->job, cf->proc,
	    &logc_cb, s)) == NULL)
		return -1;
	/* The logger fences off what an older incarnation still sends. */
	ft_logc_incarnation(s->lc, s->inc);
	if (ft_logc_open(s->lc, s->rank) != 0)
		return -1;
	return 0;
}

static void
vlog_fini(struct ft_proto *p)
{
	struct vlog *s = vlog_of(p);
	struct early *e;
	uint32_t i;

	for (i = 0; s->peers != NULL && i < s->size; i++) {
		struct vpeer *vp = &s->peers[i];

		free(vp->log);
		free(vp->rts);
		free(vp->crc);
		free(vp->rclk);
		free(vp->dig);
		free(vp->dskip);
		free(vp->rskip);
		while ((e = vp->early) != NULL) {
			vp->early = e->next;
			CORE(s)->drop(CORE_ARG(s), e->handle);
			free(e);
		}
	}
	free(s->peers);
	if (s->chunks == NULL)
		s->chunks = s->spare;
	else {
		struct chunk *t = s->chunks;

		while (t->next != NULL)
			t = t->next;
		t->next = s->spare;
	}
	s->spare = NULL;
	while (s->chunks != NULL) {
		struct chunk *c = s->chunks;

		s->chunks = c->next;
		(void)munmap(c->base, c->size);
		free(c);
	}
	for (i = 0; i < s->nimg; i++)
		free(s->img[i].dlow);
	free(s->img);
	free(s->memx.v);
	free(s->spillx.v);
	free(s->logx.v);
	free(s->quar);
	if (s->log_fd != -1)
		close(s->log_fd);
	if (s->lc != NULL) {
		CORE(s)->watch(CORE_ARG(s), -1, 0, 0);
		ft_logc_free(s->lc);
	}
	free(s->q);
	free(s->rsync);
	free(s->rany);
	free(s->rdel);
	free(s->pre);
	free(s->wait);
	if (s->spill_fd != -1)
		close(s->spill_fd);
	if (s->mem_fd != -1)
		close(s->mem_fd);
}

/* The first seq of peer q's messages we do not hold. */
static uint64_t
have_from(const struct vpeer *vp)
{
	uint64_t h = vp->rseq;
	size_t i;

	for (i = 0; i < vp->nrts; i++)
		if (vp->rts[i] < h)
			h = vp->rts[i];
	return h;
}

static void
send_seq(struct vlog *s, uint32_t q, unsigned int type, uint64_t seq)
{
	struct ft_msg_vlog_seq m = { s->inc, seq };
	struct ft_wbuf wb;

	ft_wbuf_init(&wb);
	if (ft_msg_vlog_seq_encode(&wb, s->p->conf.proc, type, &m) == 0)
		(void)CORE(s)->send_frame(CORE_ARG(s), q, &wb);
	ft_wbuf_release(&wb);
}

/* A restarted process tells every live peer (RESTART1). */
static void
start(struct vlog *s)
{
	uint32_t q;

	if (s->started)
		return;
	s->started = 1;
	if (s->inc == 0)
		return;
	for (q = 0; q < s->size; q++) {
		if (q == s->rank)
			continue;
		if (is_gone(s, q)) {
			/* It tells us when it is back. */
			s->peers[q].down = 1;
			s->peers[q].resumed = 0;
			continue;
		}
		send_seq(s, q, FT_MSG_VLOG_RESTART, have_from(&s->peers[q]));
	}
}

/* Entry seq of the log to vp (lbase <= seq < nlog). */
static struct lent *
lent_at(struct vpeer *vp, uint64_t seq)
{
	return &vp->log[seq - vp->lbase];
}

/* May entry seq go to peer d now? */
static int
can_tx(struct vlog *s, const struct vpeer *vp, uint64_t seq)
{
	return !vp->down && vp->resumed && s->replay != REPLAY_FETCH &&
	    vp->txnext == seq && seq >= vp->lbase &&
	    durable(s) >= vp->log[seq - vp->lbase].need;
}

/* Transmit log entry seq to d (req: the sender's, or NULL). */
static int
transmit(struct vlog *s, uint32_t d, uint64_t seq, const void *ubuf,
    struct ft_req *req)
{
	struct vpeer *vp = &s->peers[d];
	struct lent *e = lent_at(vp, seq);
	struct ft_msg m;
	uint8_t *tmp = NULL;
	int rc;

	memset(&m, 0, sizeof(m));
	m.ctx = e->ctx;
	m.src = s->rank;
	m.csrc = e->csrc;
	m.dst = d;
	m.tag = e->tag;
	m.seq = seq;
	m.len = e->len;
	m.mode = e->mode;
	m.req = req;
	m.clock = e->clock;
	m.buf = ubuf != NULL ? ubuf : e->data;
	if (m.buf == NULL && e->len > 0) {
		if ((tmp = malloc(e->len)) == NULL ||
		    ft__vlog_spill_read(s, e, tmp) != 0) {
			free(tmp);
			return -1;
		}
		m.buf = tmp;
	}
	vp->txnext = seq + 1;
	/* A process that cannot be reached is dead: it asks again. */
	rc = CORE(s)->send_msg(CORE_ARG(s), &d, 1, &m, NULL);
	free(tmp);
	return rc;
}

static void
digest_flush(struct vlog *s, uint32_t d)
{
	struct vpeer *vp = &s->peers[d];
	struct ft_msg_vlog_digest md = { vp->ndig, vp->dig };
	struct ft_wbuf wb;

	if (vp->ndig == 0)
		return;
	ft_wbuf_init(&wb);
	if (ft_msg_vlog_digest_encode(&wb, s->p->conf.proc, &md) == 0)
		(void)CORE(s)->send_frame(CORE_ARG(s), d, &wb);
	ft_wbuf_release(&wb);
	vp->ndig = 0;
}

/* Send what peer d may have now, in order, below limit. */
static void
pump_peer(struct vlog *s, uint32_t d, uint64_t limit)
{
	struct vpeer *vp = &s->peers[d];

	if (d == s->own_dst && limit > s->own_seq)
		limit = s->own_seq;
	digest_flush(s, d);
	if (vp->txnext < vp->sup)
		vp->txnext = vp->sup;
	while (vp->txnext < limit && can_tx(s, vp, vp->txnext))
		if (transmit(s, d, vp->txnext, NULL, NULL) != 0)
			break;
}

static void
pump(struct vlog *s)
{
	uint32_t d;

	/* Only the peers with something to send: this runs every pass. */
	for (d = 0; d < s->size; d++)
		if (s->peers[d].ndig > 0 || s->peers[d].txnext <
		    s->peers[d].nlog)
			pump_peer(s, d, s->peers[d].nlog);
}

/* The restarted process has its log: deliveries made meanwhile. */
static void
fetched(struct vlog *s)
{
	struct ft_req *r;
	struct vany *a;
	size_t i;

	s->replay = REPLAY_ON;
	s->fetch_id = 0;
	if (s->nany > 0)
		qsort(s->rany, s->nany, sizeof(*s->rany), any_cmp);
	s->anyleft = s->nany;
	for (i = 0; i < s->npre; i++)
		if (!rdel_take(s, dkey(s->pre[i].sender, s->pre[i].cseq)))
			record(s, &s->pre[i], 0);
	s->npre = 0;
	replay_check(s);
	/* ANY_SOURCE receives posted meanwhile learn their source. */
	for (i = 0; i < s->nwait; i++) {
		r = s->wait[i].req;
		a = any_find(s, s->wait[i].site);
		(void)CORE(s)->resolve(CORE_ARG(s), r, a != NULL ?
		    (int)a->csrc : -1);
	}
	s->nwait = 0;
	feed(s);
}

static void
io_step(struct vlog *s)
{
	if (ft_logc_progress(s->lc) != 0 && errno == ENOMEM)
		note(s, FT_NOTE_WARNING, "rank %u: out of memory in the "
		    "logger client", s->rank);
}

/* What a send to d waits for before it knows what to do. */
static int
unsettled(struct vlog *s, const struct vpeer *vp)
{
	return !s->started || s->replay == REPLAY_FETCH ||
	    (!vp->resumed && !vp->down);
}

/*
 * Wait, making progress, while the send of message seq to d is
 * unsettled (known: seq -1), or until it may go.  Returns 0, or -1 when
 * waiting is not possible here (inside a progress pass) or d is down:
 * the message then waits in the log.
 */
static int
wait_tx(struct vlog *s, uint32_t d, uint64_t seq)
{
	struct vpeer *vp = &s->peers[d];
	uint64_t t0 = 0;

	for (;;) {
		if (seq == UINT64_MAX ? !unsettled(s, vp) : can_tx(s, vp, seq))
			return 0;
		if (seq != UINT64_MAX && (vp->down || vp->txnext != seq))
			return -1;
		logc_push(s, 1);
		logc_watch(s);
		if (t0 == 0)
			t0 = CORE(s)->now_ns(CORE_ARG(s));
		if (CORE(s)->progress(CORE_ARG(s),
		    CORE(s)->now_ns(CORE_ARG(s)) - t0 < SPIN_NS ? 0 : 10) != 0)
			return -1;
	}
}

static int	rclk_put(struct vpeer *, uint64_t, uint64_t);
static int	send_owned(struct vlog *, struct ft_msg *, struct vpeer *);
static void	fruitless_out(struct vlog *);

static int
vlog_send(struct ft_proto *p, struct ft_msg *m)
{
	struct vlog *s = vlog_of(p);
	struct vpeer *vp;
	uint64_t seq = m->seq;
	int rc;

	s->clock++;
	m->clock = lclk(s);
	/*
	 * Sends to ourselves are made again by re-execution (the engine
	 * does not carry their clock: it is kept here for the
	 * determinant).  Processes that joined later (MPI_Comm_spawn) are
	 * not covered: their messages go as without a protocol.
	 */
	if (m->dst == s->rank) {
		(void)rclk_put(&s->peers[s->rank], m->seq, m->clock);
		s->self_sent++;
		return 0;
	}
	if (m->dst >= s->size)
		return 0;
	vp = &s->peers[m->dst];
	fruitless_out(s);
	if (ft__vlog_log_add(s, m, NULL) == NULL)
		return -1;
	s->sent += m->len;
	s->own_dst = m->dst;
	s->own_seq = seq;
	rc = send_owned(s, m, vp);
	s->own_dst = UINT32_MAX;
	return rc;
}

/* The send hook's work on message m, which it holds in the log. */
static int
send_owned(struct vlog *s, struct ft_msg *m, struct vpeer *vp)
{
	uint64_t seq = m->seq;
	uint32_t crc;

	/* A restarted process learns what the receiver holds first. */
	if (unsettled(s, vp))
		(void)wait_tx(s, m->dst, UINT64_MAX);
	if (seq < vp->sup) {
		/* Its receiver has it: made again by our re-execution. */
		crc = m->len > 0 ? ft_crc32c(0, m->buf, m->len) : 0;
		if (vp->ndig == 0 && vp->dig == NULL &&
		    (vp->dig = calloc(FT_VLOG_DIGEST_MAX,
		    sizeof(*vp->dig))) == NULL)
			return -1;
		vp->dig[vp->ndig++] = (struct ft_vlog_digest){ seq, crc };
		if (vp->ndig == FT_VLOG_DIGEST_MAX)
			digest_flush(s, m->dst);
		if (vp->txnext <= seq)
			vp->txnext = seq + 1;
		CORE(s)->complete(CORE_ARG(s), m->req, 0);
		return 1;
	}
	/* Earlier ones first; then this one, from the sender's buffer. */
	pump_peer(s, m->dst, seq);
	if (vp->txnext == seq && wait_tx(s, m->dst, seq) == 0) {
		if (transmit(s, m->dst, seq, m->buf, m->req) != 0)
			return -1;
		return 1;
	}
	/* It waits in the log: the sender's buffer is free already. */
	CORE(s)->complete(CORE_ARG(s), m->req, 0);
	return 1;
}

/*
 * Grow *ap, an array of *cap elements of size bytes indexed by a
 * message's seq, to hold index idx; what is new is zero.  0, or -1
 * (*ap and *cap then hold what could be had).
 */
static int
grow_zeroed(void **ap, size_t *cap, uint64_t idx, size_t size)
{
	size_t old = *cap;
	void *na;
	int rc = 0;

	if (idx >= SIZE_MAX / 2)
		return -1;
	while (*cap <= idx) {
		if ((na = ft_grow(*ap, cap, *cap, size)) == NULL) {
			rc = -1;
			break;
		}
		*ap = na;
	}
	if (*cap > old)
		memset((uint8_t *)*ap + old * size, 0, (*cap - old) * size);
	return rc;
}

/* Keep the sender's clock of message seq from vp (0: none). */
static int
rclk_put(struct vpeer *vp, uint64_t seq, uint64_t clock)
{
	void *a = vp->rclk;
	int rc;

	if (clock == 0 || seq < vp->rcbase)
		return 0;
	seq -= vp->rcbase;
	rc = grow_zeroed(&a, &vp->caprclk, seq, sizeof(*vp->rclk));
	vp->rclk = a;
	if (rc != 0)
		return -1;
	/* The first copy to come is the one taken (a second one, held
	 * early, is dropped): its clock stays. */
	if (vp->rclk[seq] == 0)
		vp->rclk[seq] = clock;
	return 0;
}

/*
 * The clocks of messages delivered long ago are not needed again (a
 * determinant names a message when it is delivered or matched): the
 * array keeps those from RCLK_LAG below the delivered floor on, so that
 * it stays the size of what is in flight, not of every message the
 * job received (issue 15: it was 8 bytes a message received, for the
 * whole job).
 */
#define RCLK_LAG	4096u

static void
rclk_compact(struct vpeer *vp)
{
	uint64_t n;

	if (vp->dlow < vp->rcbase + 2 * RCLK_LAG)
		return;
	n = vp->dlow - RCLK_LAG - vp->rcbase;
	if (n < vp->caprclk) {
		memmove(vp->rclk, vp->rclk + n, (vp->caprclk - n) *
		    sizeof(*vp->rclk));
		memset(vp->rclk + (vp->caprclk - n), 0, n * sizeof(*vp->rclk));
	} else
		memset(vp->rclk, 0, vp->caprclk * sizeof(*vp->rclk));
	vp->rcbase += n;
}

/*
 * The sender's clock of message seq from vp, what a determinant names
 * it by (ft-log(5)).  Every message of a vlog rank carries it; should
 * one not (out of memory here), the log says so with the clock 0,
 * which ftreplay --verify reports, rather than a number of another
 * kind.
 */
static uint64_t
rclk_get(const struct vpeer *vp, uint64_t seq)
{
	return seq >= vp->rcbase && seq - vp->rcbase < vp->caprclk ?
	    vp->rclk[seq - vp->rcbase] : 0;
}

static int
crc_put(struct vpeer *vp, uint64_t seq, uint32_t crc)
{
	void *a = vp->crc;
	int rc;

	rc = grow_zeroed(&a, &vp->capcrc, seq, sizeof(*vp->crc));
	vp->crc = a;
	if (rc != 0)
		return -1;
	vp->crc[seq] = crc | 1;	/* 0: unknown */
	if (seq >= vp->ncrc)
		vp->ncrc = seq + 1;
	return 0;
}

static void
check_digest(struct vlog *s, uint32_t src, uint64_t seq, uint32_t crc)
{
	struct vpeer *vp = &s->peers[src];

	if (seq >= vp->ncrc || vp->crc[seq] == 0 || vp->crc[seq] == (crc | 1))
		return;
	note(s, FT_NOTE_DIVERGE, "rank %u diverged in its replay: message "
	    "%llu to rank %u has other bytes than the first time", src,
	    (unsigned long long)seq, s->rank);
}

/* Take seq from the array v[*n] (1), or not there (0). */
static int
seq_take(uint64_t *v, size_t *n, uint64_t seq)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (v[i] == seq) {
			v[i] = v[--*n];
			return 1;
		}
	return 0;
}

/* Append seq to the array *v: 0, or -1 (ENOMEM). */
static int
seq_add(uint64_t **v, size_t *cap, size_t *n, uint64_t seq)
{
	uint64_t *nv;

	if ((nv = ft_grow(*v, cap, *n, sizeof(*nv))) == NULL)
		return -1;
	*v = nv;
	nv[(*n)++] = seq;
	return 0;
}

/*
 * Message seq from vp is delivered: where an image says this channel
 * stands (dlow, and the few delivered out of order above it, dskip).
 */
static void
delivered(struct vpeer *vp, uint64_t seq)
{
	if (seq < vp->dlow)
		return;
	if (seq > vp->dlow) {
		/* Out of memory: an image then asks for it again. */
		(void)seq_add(&vp->dskip, &vp->capdskip, &vp->ndskip, seq);
		return;
	}
	vp->dlow++;
	while (vp->ndskip > 0 && seq_take(vp->dskip, &vp->ndskip, vp->dlow))
		vp->dlow++;
	rclk_compact(vp);
}

static int
vlog_deliver(struct ft_proto *p, const struct ft_msg *m)
{
	struct vlog *s = vlog_of(p);
	struct vpeer *vp;
	struct ft_det d, *np;
	size_t i;

	if (m->src >= s->size)
		return 0;
	vp = &s->peers[m->src];
	s->clock++;
	if (m->src == s->rank)
		s->self_del++;
	else {
		delivered(vp, m->seq);
		s->recvd += m->len;
	}
	for (i = 0; i < vp->nrts; i++)
		if (vp->rts[i] == m->seq) {
			vp->rts[i] = vp->rts[--vp->nrts];
			break;
		}
	if (m->src != s->rank && (s->check || m->len <= SMALL_DIGEST))
		(void)crc_put(vp, m->seq, m->len > 0 ?
		    ft_crc32c(0, m->buf, m->len) : 0);
	memset(&d, 0, sizeof(d));
	d.kind = FT_DET_DELIVERY;
	d.clock = lclk(s);
	d.sender = m->src;
	d.sclock = rclk_get(vp, m->seq);
	d.flags = FT_DET_F_CSEQ;
	d.cseq = m->seq;
	if (s->replay == REPLAY_FETCH) {
		if ((np = ft_grow(s->pre, &s->cappre, s->npre,
		    sizeof(*np))) != NULL) {
			s->pre = np;
			s->pre[s->npre++] = d;
		}
		return 0;
	}
	if (s->replay == REPLAY_ON && rdel_take(s, dkey(m->src, m->seq))) {
		replay_check(s);
		return 0;
	}
	record(s, &d, 0);
	return 0;
}

static int
early_insert(struct vpeer *vp, const struct ft_msg *m, void *handle)
{
	struct early **pp, *e, *u;

	for (pp = &vp->early; (e = *pp) != NULL && e->seq < m->seq;
	    pp = &e->next)
		;
	if (e != NULL && e->seq == m->seq)
		return 1;	/* a copy: the caller drops it */
	if ((u = malloc(sizeof(*u))) == NULL)
		return -1;
	*u = (struct early){ e, m->seq, (m->flags & FT_MSGF_RTS) != 0,
	    handle };
	*pp = u;
	return 0;
}

static void
take(struct vpeer *vp, uint64_t seq, int rts)
{
	uint64_t *nr;

	vp->rseq = seq + 1;
	/* Delivered before the image we restarted from: not again. */
	while (vp->nrskip > 0 && seq_take(vp->rskip, &vp->nrskip, vp->rseq))
		vp->rseq++;
	if (!rts)
		return;
	if ((nr = ft_grow(vp->rts, &vp->caprts, vp->nrts, sizeof(*nr))) ==
	    NULL)
		return;	/* then have_from says more than we hold */
	vp->rts = nr;
	vp->rts[vp->nrts++] = seq;
}

static int
vlog_arrive(struct ft_proto *p, const struct ft_msg *m, void *handle)
{
	struct vlog *s = vlog_of(p);
	struct vpeer *vp;
	struct early *e;
	int rc;

	if (m->src >= s->size)
		return FT_ARRIVE_MATCH;	/* a spawned process's */
	vp = &s->peers[m->src];
	/*
	 * From an incarnation older than one that spoke since, or than
	 * the REVIVE of its successor: a process declared dead whose host
	 * was only cut off, back before it learnt so.  Its successor
	 * sends the message again, as its own; this copy is dropped
	 * unread, whatever its number.
	 */
	if ((uint32_t)(m->clock >> INC_SHIFT) < vp->pinc) {
		s->stale++;
		return FT_ARRIVE_DUP;
	}
	if ((uint32_t)(m->clock >> INC_SHIFT) > vp->rinc)
		vp->rinc = (uint32_t)(m->clock >> INC_SHIFT);
	if (m->seq >= vp->rseq && rclk_put(vp, m->seq, m->clock) != 0) {
		CORE(s)->drop(CORE_ARG(s), handle);
		return -1;
	}
	if (m->seq < vp->rseq) {
		/* Made again by a restarted sender: the same bytes? */
		if (!(m->flags & FT_MSGF_RTS) &&
		    (s->check || m->len <= SMALL_DIGEST))
			check_digest(s, m->src, m->seq, m->len > 0 ?
			    ft_crc32c(0, m->buf, m->len) : 0);
		return FT_ARRIVE_DUP;
	}
	if (m->seq > vp->rseq) {
		if ((rc = early_insert(vp, m, handle)) < 0) {
			CORE(s)->drop(CORE_ARG(s), handle);
			return -1;
		}
		return rc == 1 ? FT_ARRIVE_DUP : FT_ARRIVE_HELD;
	}
	take(vp, m->seq, (m->flags & FT_MSGF_RTS) != 0);
	if (vp->early == NULL)
		return FT_ARRIVE_MATCH;
	if (CORE(s)->release(CORE_ARG(s), handle) != 0)
		return -1;
	while ((e = vp->early) != NULL && e->seq <= vp->rseq) {
		vp->early = e->next;
		if (e->seq < vp->rseq)
			CORE(s)->drop(CORE_ARG(s), e->handle);
		else {
			take(vp, e->seq, e->rts);
			if (CORE(s)->release(CORE_ARG(s), e->handle) != 0) {
				free(e);
				return -1;
			}
		}
		free(e);
	}
	return FT_ARRIVE_HELD;
}

static int
vlog_recv_any(struct ft_proto *p, struct ft_req *r, uint64_t *rtag)
{
	struct vlog *s = vlog_of(p);
	uint64_t site = ++s->any_site;
	struct vwait *nw;
	struct vany *a;

	*rtag = site;
	if (s->replay == REPLAY_FETCH) {
		if ((nw = ft_grow(s->wait, &s->capwait, s->nwait,
		    sizeof(*nw))) == NULL)
			return -1;
		s->wait = nw;
		s->wait[s->nwait++] = (struct vwait){ r, site };
		return FT_RECV_WAIT;
	}
	if (s->replay == REPLAY_ON && (a = any_find(s, site)) != NULL)
		return (int)a->csrc;
	return -1;
}

static void
vlog_recv_cancel(struct ft_proto *p, struct ft_req *r)
{
	struct vlog *s = vlog_of(p);
	size_t i;

	for (i = 0; i < s->nwait; i++)
		if (s->wait[i].req == r) {
			memmove(&s->wait[i], &s->wait[i + 1],
			    (s->nwait - i - 1) * sizeof(*s->wait));
			s->nwait--;
			return;
		}
}

static void
vlog_match(struct ft_proto *p, const struct ft_msg *m, uint64_t rtag)
{
	struct vlog *s = vlog_of(p);
	struct vany *a;
	struct ft_det d;
	uint64_t sclock;

	if (rtag == 0)
		return;
	sclock = m->src < s->size ? rclk_get(&s->peers[m->src], m->seq) : 0;
	if (s->replay == REPLAY_ON && (a = any_find(s, rtag)) != NULL) {
		/* Replayed: the logged source, and its message. */
		if (a->src != m->src || a->seq != m->seq)
			note(s, FT_NOTE_DIVERGE, "rank %u diverged in its "
			    "replay: ANY_SOURCE receive %llu matched rank %u "
			    "message %llu, not rank %u message %llu", s->rank,
			    (unsigned long long)rtag, m->src,
			    (unsigned long long)m->seq, a->src,
			    (unsigned long long)a->seq);
		a->used = 1;
		s->anyleft--;
		replay_check(s);
		return;
	}
	memset(&d, 0, sizeof(d));
	d.kind = FT_ND_ANYSRC;
	d.clock = lclk(s);
	d.sender = m->src;
	d.sclock = sclock;
	d.flags = FT_DET_F_CSEQ;
	d.cseq = m->seq;
	d.v[0] = m->csrc;
	d.v[1] = rtag;
	record(s, &d, 1);
}

/*
 * Unsuccessful tests and waits (a test's flag 0, a wait-any or test-any
 * with nothing, a test-some with none) are many in a polling loop, and
 * all alike: they are counted, and the count goes in one record, a flag
 * of 0 with b the count, before the next outcome of the program's order
 * and before a send (whose bytes may depend on it).  An unsuccessful
 * probe is logged as itself, and counted in the probes field of the
 * records that follow until the next delivery, as ft-log(5) and
 * ftreplay(1) have it.
 */
static int
unsuccessful(uint32_t kind, uint64_t a)
{
	switch (kind) {
	case FT_ND_FLAG:
	case FT_ND_COUNT:
		return a == 0;
	case FT_ND_INDEX:
		return (int64_t)a == -1;
	default:
		return 0;
	}
}

/* Log the count of unsuccessful outcomes not logged yet. */
static void
fruitless_out(struct vlog *s)
{
	struct ft_det d;

	if (s->unsucc == 0)
		return;
	memset(&d, 0, sizeof(d));
	d.kind = FT_ND_FLAG;
	d.clock = lclk(s);
	d.sender = FT_DET_NOSENDER;
	d.v[1] = s->unsucc;
	s->unsucc = 0;
	record(s, &d, 1);
}

/* Take the head of the logged outcomes. */
static void
rsync_pop(struct vlog *s)
{
	s->rsfirst++;
	if (--s->rsn == 0) {
		s->rsfirst = 0;
		replay_check(s);
	}
}

static int
vlog_nondet(struct ft_proto *p, struct ft_nd *ev)
{
	struct vlog *s = vlog_of(p);
	struct ft_det d, *r;

	if (s->replay == REPLAY_FETCH) {
		logc_watch(s);
		errno = EAGAIN;
		return -1;
	}
	if (ev->op == FT_ND_ASK) {
		ev->local = s->rsn == 0;
		return 0;
	}
	if (s->rsn > 0) {
		r = &s->rsync[s->rsfirst];
		if (r->kind == FT_ND_FLAG && r->v[0] == 0 &&
		    unsuccessful(ev->kind, ev->kind == FT_ND_INDEX ?
		    (uint64_t)-1 : 0)) {
			/* One of a count of unsuccessful outcomes. */
			ev->v[0] = ev->kind == FT_ND_INDEX ? (uint64_t)-1 : 0;
			ev->v[1] = ev->v[2] = 0;
			if (r->v[1] <= 1)
				rsync_pop(s);
			else
				r->v[1]--;
			return 0;
		}
		if (r->kind != ev->kind) {
			note(s, FT_NOTE_DIVERGE, "rank %u diverged in its "
			    "replay: event at clock %llu is a %s here, a %s in "
			    "the log", s->rank, (unsigned long long)s->clock,
			    ft_det_kind_name(ev->kind),
			    ft_det_kind_name(r->kind));
			errno = EPROTO;
			return -1;
		}
		memcpy(ev->v, r->v, sizeof(ev->v));
		rsync_pop(s);
		return 0;
	}
	if (unsuccessful(ev->kind, ev->v[0])) {
		s->unsucc++;
		return 0;
	}
	fruitless_out(s);
	memset(&d, 0, sizeof(d));
	d.kind = ev->kind;
	d.clock = lclk(s);
	d.sender = FT_DET_NOSENDER;
	memcpy(d.v, ev->v, sizeof(d.v));
	record(s, &d, 1);
	return 0;
}

/*
 * Peer q holds in a durable image every message of ours below seq
 * (FT_MSG_VLOG_GC): drop their payloads; the room is used again.
 * Never what is not sent yet.
 */
static void
gc_drop(struct vlog *s, uint32_t q, uint64_t seq)
{
	struct vpeer *vp = &s->peers[q];
	uint64_t k;

	if (seq > vp->txnext)
		seq = vp->txnext;
	if (seq > vp->nlog)
		seq = vp->nlog;
	if (seq <= vp->lbase)
		return;
	for (k = vp->lbase; k < seq; k++)
		ft__vlog_payload_free(s, lent_at(vp, k));
	memmove(vp->log, vp->log + (seq - vp->lbase), (vp->nlog - seq) *
	    sizeof(*vp->log));
	s->dropped += seq - vp->lbase;
	vp->lbase = seq;
}

/* A peer restarted and asks from seq from: answer, then resend. */
static void
on_restart(struct vlog *s, uint32_t q, uint64_t from)
{
	struct vpeer *vp = &s->peers[q];

	vp->restart_due = 0;
	if (from < vp->lbase) {
		/* Dropped after an image of its that it did not restart
		 * from: it cannot be served, and must not wait forever. */
		note(s, FT_NOTE_FATAL, "rank %u cannot be restarted: it asks "
		    "rank %u for its messages from %llu, but those below %llu "
		    "were dropped once an image of rank %u was durable (it "
		    "restarted from an older image, or from its start)", q,
		    s->rank, (unsigned long long)from,
		    (unsigned long long)vp->lbase, q);
		return;
	}
	vp->down = 0;
	vp->resumed = 1;
	vp->sup = from;
	vp->txnext = from;
	/* Our digests of its messages are of the incarnation before; the
	 * new one's re-sends are checked against them. */
	send_seq(s, q, FT_MSG_VLOG_RESUME, have_from(vp));
	pump(s);
}

static int
vlog_frame(struct ft_proto *p, uint32_t proc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct vlog *s = vlog_of(p);
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_vlog_digest dg[64];
	struct ft_msg_vlog_digest md;
	struct ft_msg_vlog_seq ms;
	struct ft_msg_vlog_gc mg;
	struct ft_vlog_digest *big = NULL;
	struct vpeer *vp;
	uint32_t i;

	if (proc >= s->size || proc == s->rank) {
		errno = EPROTO;
		return -1;
	}
	vp = &s->peers[proc];
	switch (h->type) {
	case FT_MSG_VLOG_RESTART:
		if (ft_msg_vlog_seq_decode(body, blen, &ms) != 0)
			return -1;
		if (ms.inc > vp->pinc)
			vp->pinc = ms.inc;
		if (is_gone(s, proc)) {
			/* Its REVIVE is not read yet: answer after it. */
			vp->restart_due = 1;
			vp->restart_from = ms.seq;
			return 0;
		}
		on_restart(s, proc, ms.seq);
		return 0;
	case FT_MSG_VLOG_RESUME:
		if (ft_msg_vlog_seq_decode(body, blen, &ms) != 0)
			return -1;
		if (ms.inc > vp->pinc)
			vp->pinc = ms.inc;
		if (ms.seq > vp->sup)
			vp->sup = ms.seq;
		vp->resumed = 1;
		vp->down = 0;
		pump(s);
		return 0;
	case FT_MSG_VLOG_GC:
		if (ft_msg_vlog_gc_decode(body, blen, &mg) != 0)
			return -1;
		/*
		 * From a dead process, or from an incarnation older than
		 * one that spoke since: its successor may have restarted
		 * from an older image, or from its start, and ask for what
		 * this GC would drop.  Dropping less is always safe.
		 */
		if (mg.inc < vp->pinc || is_gone(s, proc))
			return 0;
		vp->pinc = mg.inc;
		gc_drop(s, proc, mg.seq);
		return 0;
	case FT_MSG_VLOG_DIGEST:
		md.d = dg;
		if (blen > 4 + sizeof(dg) / sizeof(dg[0]) * 12) {
			if ((big = calloc(FT_VLOG_DIGEST_MAX,
			    sizeof(*big))) == NULL)
				return -1;
			md.d = big;
		}
		if (ft_msg_vlog_digest_decode(body, blen, &md,
		    big != NULL ? FT_VLOG_DIGEST_MAX : 64) != 0) {
			free(big);
			return -1;
		}
		for (i = 0; i < md.n; i++)
			check_digest(s, proc, md.d[i].seq, md.d[i].crc);
		free(big);
		return 0;
	default:
		errno = EPROTO;
		return -1;
	}
}

static int
vlog_view(struct ft_proto *p, const uint32_t *dead, uint32_t ndead)
{
	struct vlog *s = vlog_of(p);
	uint32_t i, q;

	for (i = 0; i < ndead; i++) {
		q = dead[i];
		if (q >= s->size || q == s->rank)
			continue;
		/* Sends to it wait in the log for its RESTART. */
		s->peers[q].down = 1;
		s->peers[q].resumed = 0;
	}
	return 0;
}

/*
 * proc runs again as a new incarnation (REVIVE): nothing of the ones
 * before may be taken from now on, though a cut-off one may still
 * speak.  Only what its messages carried is known to be older: the
 * successor's RESTART may have been read already.
 */
static void
vlog_revive(struct ft_proto *p, uint32_t proc)
{
	struct vlog *s = vlog_of(p);
	struct vpeer *vp;

	if (proc >= s->size || proc == s->rank)
		return;
	vp = &s->peers[proc];
	if (vp->rinc + 1 > vp->pinc)
		vp->pinc = vp->rinc + 1;
}

static void
vlog_io(struct ft_proto *p, short revents)
{
	struct vlog *s = vlog_of(p);

	(void)revents;
	io_step(s);
	logc_due(s);
	logc_watch(s);
}

static void
vlog_tick(struct ft_proto *p)
{
	struct vlog *s = vlog_of(p);
	uint32_t q;

	start(s);
	for (q = 0; q < s->size; q++)
		if (s->peers[q].restart_due && !is_gone(s, q))
			on_restart(s, q, s->peers[q].restart_from);
	/* What was recorded in this pass goes out, in batches. */
	if (s->lc != NULL) {
		logc_push(s, 0);
		if (!ft_logc_connected(s->lc) || !s->opened)
			io_step(s);
		logc_watch(s);
	}
	pump(s);
}

static int
vlog_busy(struct ft_proto *p)
{
	struct vlog *s = vlog_of(p);
	uint32_t d;

	/* A process leaves once its log is durable (a restart of it would
	 * otherwise decide again) and its messages are out. */
	if (s->qn > 0 || durable(s) < s->nrec || s->replay == REPLAY_FETCH) {
		logc_push(s, 1);
		return 1;
	}
	for (d = 0; d < s->size; d++)
		if (!s->peers[d].down && s->peers[d].txnext <
		    s->peers[d].nlog)
			return 1;
	return 0;
}

/*
 * Images (issue 15, ft-ckpt(5) "VLG1").  A rank saves alone: its clock
 * and its place in its determinant stream (every determinant before
 * it durable), where each channel from a peer stands (every message
 * below dlow delivered, and those listed above it), where each
 * channel to a peer stands (the next seq) and the part of its sender
 * log that a peer may still ask for (from lbase: below it, the peer's
 * own durable image has the messages).  Messages received and not yet
 * delivered are not saved: their senders still hold them (GC drops
 * only what an image of ours delivered), and send them again.
 */
#define VLG_MAGIC	0x564c4731u	/* "VLG1" */
/*
 * VLG2 (vlogbw): each payload says where it is: in the image (kind 0,
 * its bytes follow) or an extent of the rank's sender-log file (kind
 * 1: offset, CRC32C), written once and never copied into images.
 */
#define VLG2_MAGIC	0x564c4732u	/* "VLG2" */
#define VLG_INLINE	0
#define VLG_EXTENT	1
#define VLG_SKIP_MAX	(1u << 20)

static int
vlog_save(struct ft_proto *p, struct ft_wbuf *wb)
{
	struct vlog *s = vlog_of(p);
	struct imgpos *ni;
	struct lent *e;
	uint64_t k, *dl, total = 64;
	uint32_t q;
	size_t i;

	if ((dl = calloc(s->size, sizeof(*dl))) == NULL)
		return -1;
	/* Its size first: one room, no copies as it grows. */
	for (q = 0; q < s->size; q++)
		total += 28 + 8 * s->peers[q].ndskip + 40 * (s->peers[q].nlog -
		    s->peers[q].lbase);
	(void)ft_wbuf_reserve(wb, total + s->bytes - s->log_live);
	ft_put32(wb, VLG2_MAGIC);
	ft_put32(wb, s->rank);
	ft_put32(wb, s->size);
	ft_put32(wb, s->inc);
	ft_put64(wb, s->img_epoch);
	ft_put64(wb, s->clock);
	ft_put64(wb, s->lclock);
	ft_put32(wb, s->lprobes);
	ft_put64(wb, s->any_site);
	ft_put64(wb, s->last);		/* the determinants it holds */
	ft_put64(wb, s->self_sent);
	for (q = 0; q < s->size; q++) {
		struct vpeer *vp = &s->peers[q];

		dl[q] = vp->dlow;
		ft_put64(wb, vp->dlow);
		ft_put32(wb, (uint32_t)vp->ndskip);
		for (i = 0; i < vp->ndskip; i++)
			ft_put64(wb, vp->dskip[i]);
		ft_put64(wb, vp->lbase);
		ft_put64(wb, vp->nlog);
		for (k = vp->lbase; k < vp->nlog; k++) {
			e = lent_at(vp, k);
			ft_put32(wb, e->ctx);
			ft_put32(wb, e->csrc);
			ft_put32(wb, (uint32_t)e->tag);
			ft_put32(wb, (uint32_t)e->mode);
			ft_put64(wb, e->clock);
			ft_put64(wb, e->len);
			if (e->len == 0)
				continue;
			if (e->file == 3) {
				ft_put32(wb, VLG_EXTENT);
				ft_put64(wb, e->off);
				ft_put32(wb, e->crc);
				continue;
			}
			ft_put32(wb, VLG_INLINE);
			if (e->data == NULL) {
				/* Read from its file straight in. */
				if (ft_wbuf_reserve(wb, e->len) != 0 ||
				    ft__vlog_spill_read(s, e, wb->p +
				    wb->len) != 0) {
					free(dl);
					return -1;
				}
				wb->len += e->len;
			} else
				ft_putbytes(wb, e->data, e->len);
		}
	}
	if (wb->err != 0) {
		errno = wb->err;
		free(dl);
		return -1;
	}
	/* Its positions, for the GC once a later image is durable. */
	if ((ni = ft_grow(s->img, &s->capimg, s->nimg, sizeof(*ni))) ==
	    NULL) {
		free(dl);
		return -1;
	}
	s->img = ni;
	s->img[s->nimg++] = (struct imgpos){ s->img_epoch, dl };
	s->cut_off = s->wr_off;
	s->cut_len = s->wr_len;
	return 0;
}

/*
 * Read a VLG1 or VLG2 state; with apply, this process takes it (only
 * after a pass without apply found it whole and fitting).  Without
 * apply, a VLG2 extent is checked against the sender-log file when
 * files (else only its bounds are, as the fuzzer does).  0, or -1
 * with errno: EPROTO (the state), EBADMSG (the sender-log file).
 */
static int
vlg_read(struct vlog *s, struct ft_rbuf *rb, int apply, uint64_t *dl,
    int files)
{
	struct vpeer *vp;
	struct ft_msg m;
	struct lent at;
	struct stat st;
	uint64_t k, n, dlow, lbase, fsize = 0;
	uint32_t q, i, nskip, magic, kind;

	magic = ft_get32(rb);
	if ((magic != VLG_MAGIC && magic != VLG2_MAGIC) ||
	    ft_get32(rb) != s->rank || ft_get32(rb) != s->size ||
	    rb->err != 0) {
		errno = EPROTO;
		return -1;
	}
	if (files && s->log_fd != -1 && fstat(s->log_fd, &st) == 0)
		fsize = (uint64_t)st.st_size;
	(void)ft_get32(rb);			/* the incarnation that saved */
	k = ft_get64(rb);
	if (apply) {
		s->img_epoch = k;
		s->clock = ft_get64(rb);
		s->lclock = ft_get64(rb);
		s->lprobes = ft_get32(rb);
		s->any_site = ft_get64(rb);
		s->dfrom = ft_get64(rb);
		s->self_sent = s->self_del = ft_get64(rb);
		if (CORE(s)->set_seq != NULL)
			CORE(s)->set_seq(CORE_ARG(s), s->rank, s->self_sent);
	} else if (ft_rbuf_left(rb) < 8 + 8 + 4 + 8 + 8 + 8)
		goto bad;
	else
		rb->off += 8 + 8 + 4 + 8 + 8 + 8;
	for (q = 0; q < s->size && rb->err == 0; q++) {
		vp = apply ? &s->peers[q] : NULL;
		dlow = dl[q] = ft_get64(rb);
		if (apply)
			vp->dlow = vp->rseq = vp->rcbase = dlow;
		nskip = ft_get32(rb);
		if (rb->err != 0 || nskip > VLG_SKIP_MAX ||
		    (size_t)nskip * 8 > ft_rbuf_left(rb))
			goto bad;
		for (i = 0; i < nskip; i++) {
			k = ft_get64(rb);
			if (rb->err != 0 || k <= dlow)
				goto bad;
			if (apply && (seq_add(&vp->rskip, &vp->caprskip,
			    &vp->nrskip, k) != 0 || seq_add(&vp->dskip,
			    &vp->capdskip, &vp->ndskip, k) != 0))
				return -1;
		}
		lbase = ft_get64(rb);
		n = ft_get64(rb);
		if (rb->err != 0 || n < lbase || (q == s->rank && n != lbase) ||
		    n - lbase > ft_rbuf_left(rb) / 32)
			goto bad;
		if (apply)
			vp->lbase = vp->txnext = vp->nlog = lbase;
		for (k = lbase; k < n; k++) {
			memset(&m, 0, sizeof(m));
			m.ctx = ft_get32(rb);
			m.csrc = ft_get32(rb);
			m.tag = (int32_t)ft_get32(rb);
			m.mode = (int)ft_get32(rb);
			m.clock = ft_get64(rb);
			m.len = (size_t)ft_get64(rb);
			kind = VLG_INLINE;
			if (magic == VLG2_MAGIC && m.len > 0)
				kind = ft_get32(rb);
			if (rb->err != 0)
				goto bad;
			m.dst = q;
			m.seq = k;
			if (kind == VLG_EXTENT) {
				at.off = ft_get64(rb);
				at.crc = ft_get32(rb);
				if (rb->err != 0 || at.off > UINT64_MAX - m.len)
					goto bad;
				if (!apply && files && ft__vlog_extent_check(s,
				    at.off, m.len, at.crc, fsize) != 0)
					return -1;
				if (apply) {
					if (ft__vlog_log_add(s, &m, &at) ==
					    NULL)
						return -1;
					lent_at(vp, k)->need = 0;
				}
				continue;
			}
			if (kind != VLG_INLINE || m.len > ft_rbuf_left(rb))
				goto bad;
			m.buf = rb->p + rb->off;
			rb->off += m.len;
			if (apply) {
				if (ft__vlog_log_add(s, &m, NULL) == NULL)
					return -1;
				lent_at(vp, k)->need = 0;
			}
		}
		/* (An engine that numbers nothing itself has no set_seq.) */
		if (apply && q != s->rank && CORE(s)->set_seq != NULL)
			CORE(s)->set_seq(CORE_ARG(s), q, n);
	}
	if (rb->err == 0 && ft_rbuf_left(rb) == 0)
		return 0;
bad:
	errno = EPROTO;
	return -1;
}

/* Is p[len] a whole VLG1 state of rank of size ranks?  (The fuzzer.) */
int
ft__vlog_state_check(const uint8_t *p, size_t len, uint32_t rank,
    uint32_t size)
{
	struct vlog s;
	struct ft_rbuf rb;
	uint64_t *dl;
	int rc;

	if (size == 0 || size > 4096 || rank >= size ||
	    (dl = calloc(size, sizeof(*dl))) == NULL)
		return -1;
	memset(&s, 0, sizeof(s));
	s.rank = rank;
	s.size = size;
	ft_rbuf_init(&rb, p, len);
	s.log_fd = -1;
	rc = vlg_read(&s, &rb, 0, dl, 0);
	free(dl);
	return rc;
}

/*
 * The state of an image, before this process's first progress pass
 * (ft_pt_restore at MPI_Init): it goes on from there.  A state that is
 * not whole, or not this rank's, changes nothing.
 */
static int
vlog_restore(struct ft_proto *p, struct ft_rbuf *rb)
{
	struct vlog *s = vlog_of(p);
	struct ft_rbuf again = *rb;
	struct imgpos *ni;
	uint64_t *dl;

	if (s->started || s->opened || s->nimg > 0) {
		errno = EBUSY;
		return -1;
	}
	if ((dl = calloc(s->size, sizeof(*dl))) == NULL)
		return -1;
	/* (Kept at once: ft_grow set capimg, and a restore refused here
	 * is followed by another of an older image.) */
	if ((ni = ft_grow(s->img, &s->capimg, s->nimg, sizeof(*ni))) != NULL)
		s->img = ni;
	if (ni == NULL || vlg_read(s, &again, 0, dl, 1) != 0 ||
	    vlg_read(s, rb, 1, dl, 1) != 0) {
		free(dl);
		return -1;
	}
	s->img[s->nimg++] = (struct imgpos){ s->img_epoch, dl };
	return 0;
}

/*
 * The image of epoch is durable: each peer may drop what the image
 * before it had delivered (one image behind, so that a restart that
 * finds the newest image damaged can still use the one before).
 */
static void
img_durable(struct vlog *s, uint64_t epoch)
{
	struct ft_msg_vlog_gc g;
	struct ft_wbuf wb;
	size_t i, prev = SIZE_MAX, j;
	uint32_t q;

	ft__vlog_quar_release(s, epoch);
	for (i = 0; i < s->nimg; i++)
		if (s->img[i].epoch < epoch)
			prev = i;
	if (prev == SIZE_MAX)
		return;
	for (q = 0; q < s->size; q++) {
		if (q == s->rank || is_gone(s, q))
			continue;
		g = (struct ft_msg_vlog_gc){ s->inc, s->img[prev].epoch,
		    s->img[prev].dlow[q] };
		ft_wbuf_init(&wb);
		if (g.epoch > 0 && ft_msg_vlog_gc_encode(&wb,
		    s->p->conf.proc, &g) == 0)
			(void)CORE(s)->send_frame(CORE_ARG(s), q, &wb);
		ft_wbuf_release(&wb);
	}
	/* The older ones will not be needed again. */
	for (j = 0; j < prev; j++)
		free(s->img[j].dlow);
	memmove(s->img, s->img + prev, (s->nimg - prev) * sizeof(*s->img));
	s->nimg -= prev;
}

static int
vlog_ext(struct ft_proto *p, struct ft_ext *x)
{
	struct vlog *s = vlog_of(p);
	uint32_t i;

	switch (x->op) {
	case FT_EXT_VLOG_PREPARE:
		x->result = 0;
		x->err = 0;
		/* Not while replaying (the image would not match its log),
		 * nor with a message to ourselves under way (it is in no
		 * log: re-execution makes it again, from before). */
		if (s->replay == REPLAY_FETCH || (s->inc > 0 &&
		    s->replay == REPLAY_ON && (s->rsn > 0 || s->anyleft > 0 ||
		    s->rdleft > 0)) || s->self_sent != s->self_del) {
			x->err = 1;
			return 0;
		}
		s->img_epoch = x->epoch;
		fruitless_out(s);
		logc_push(s, 1);
		logc_watch(s);
		x->result = s->qn == 0 && durable(s) >= s->nrec;
		return 0;
	case FT_EXT_VLOG_DURABLE:
		img_durable(s, x->epoch);
		return 0;
	case FT_EXT_VLOG_STATS:
		x->vlog_bytes = s->bytes;
		x->vlog_peak = s->peak;
		x->vlog_dropped = s->dropped;
		x->vlog_sent = s->sent;
		x->vlog_recv = s->recvd;
		x->vlog_logbytes = s->log_bytes;
		x->vlog_cutoff = s->cut_off;
		x->vlog_cutlen = s->cut_len;
		x->vlog_stale = s->stale;
		x->vlog_rarr = 0;
		for (i = 0; i < s->size; i++)
			x->vlog_rarr += s->peers[i].caprclk * 8 +
			    s->peers[i].capcrc * 4;
		return 0;
	case FT_EXT_VLOG_LOGFILE:
		return ft__vlog_logfile_set(s, x);
	default:
		errno = ENOTSUP;
		return -1;
	}
}

const struct ft_proto_ops ft__proto_vlog = {
	.abi = FT_PROTO_ABI,
	.name = "vlog",
	.privsize = sizeof(struct vlog),
	.init = vlog_init,
	.fini = vlog_fini,
	.send = vlog_send,
	.deliver = vlog_deliver,
	.flags = FT_PROTO_RESENDS | FT_PROTO_RESTARTS,
	.arrive = vlog_arrive,
	.recv_any = vlog_recv_any,
	.recv_cancel = vlog_recv_cancel,
	.match = vlog_match,
	.nondet = vlog_nondet,
	.frame = vlog_frame,
	.view = vlog_view,
	.tick = vlog_tick,
	.busy = vlog_busy,
	.io = vlog_io,
	.save = vlog_save,
	.restore = vlog_restore,
	.ext = vlog_ext,
	.revive = vlog_revive,
};
