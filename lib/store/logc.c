/* SPDX-License-Identifier: ISC */
/*
 * The event logger's client (store.h): what a rank under message
 * logging calls to make its determinants durable, and to fetch them
 * back when it restarts.  Non-blocking, driven by the caller's poll:
 * determinants are batched per rank, a batch goes out at once when
 * nothing of its rank is in flight (else it grows until the ACK comes,
 * as Nagle's algorithm does) or when the caller flushes, and the
 * determinants stay here until the logger acknowledges them, so that a
 * logger that comes back after a crash gets them again.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../net/net.h"
#include "store.h"

#define BACKOFF_MIN_NS	10000000ull	/* 10 ms */
#define BACKOFF_MAX_NS	1000000000ull	/* 1 s */
#define CONN_ALL	UINT32_MAX

struct crank {
	uint32_t	 rank;
	int		 opened;	/* the logger's first answer came */
	int		 asking;	/* a QUERY is in flight */
	int		 dead;		/* the logger lost what it acked */
	uint64_t	 durable, dclock;
	uint64_t	 last;		/* appended */
	uint64_t	 sent;		/* sent in an APPEND */
	uint64_t	 retry_at;	/* ask again then (0: no) */
	struct ft_det	*q;		/* seqs durable + 1 .. last */
	size_t		 qhead, qcap;
};

struct cfetch {
	uint32_t	 reqid;
	uint32_t	 rank;
};

struct ft_logc {
	char			 addr[FT_WIRE_ADDR_MAX];
	const uint8_t		*key;
	uint64_t		 job;
	uint32_t		 self;
	struct ft_logc_cb	 cb;
	void			*arg;
	uint32_t		 inc;		/* the incarnation (issue 13) */
	struct ft_conn		 c;
	int			 state;		/* DOWN, UP, READY */
	int			 warned;	/* the loss is reported */
	uint64_t		 retry_at, backoff;
	struct crank		*r;
	size_t			 nr, capr;
	struct cfetch		*f;
	size_t			 nf, capf;
	uint32_t		 next_reqid;
	struct ft_wbuf		 wb;
	struct ft_det		*dets;		/* FT_LOG_BATCH_MAX */
	struct ft_log_ack	*acks;		/* FT_LOG_ACK_MAX */
};

enum { DOWN, UP, READY };

static struct crank *
find(const struct ft_logc *c, uint32_t rank)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->r[i].rank == rank)
			return &c->r[i];
	return NULL;
}

static void
report(struct ft_logc *c, uint32_t rank, uint32_t reqid, uint32_t code,
    const char *fmt, ...) FT_PRINTF(5, 6);

static void
report(struct ft_logc *c, uint32_t rank, uint32_t reqid, uint32_t code,
    const char *fmt, ...)
{
	char text[FT_WIRE_TEXT_MAX];
	va_list ap;

	if (c->cb.error == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	c->cb.error(c->arg, rank, reqid, code, text);
}

struct ft_logc *
ft_logc_new(const char *addr, const uint8_t *key, uint64_t job,
    uint32_t self, const struct ft_logc_cb *cb, void *arg)
{
	struct ft_logc *c;

	if (strlen(addr) >= sizeof(c->addr) || (strncmp(addr, "unix:", 5) !=
	    0 && strncmp(addr, "tcp:", 4) != 0)) {
		errno = EINVAL;
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->dets = calloc(FT_LOG_BATCH_MAX, sizeof(*c->dets));
	c->acks = calloc(FT_LOG_ACK_MAX, sizeof(*c->acks));
	if (c->dets == NULL || c->acks == NULL) {
		ft_logc_free(c);
		errno = ENOMEM;
		return NULL;
	}
	snprintf(c->addr, sizeof(c->addr), "%s", addr);
	c->key = key;
	c->job = job;
	c->self = self;
	c->cb = *cb;
	c->arg = arg;
	c->c.fd = -1;
	c->state = DOWN;
	c->backoff = BACKOFF_MIN_NS;
	c->next_reqid = 1;
	ft_wbuf_init(&c->wb);
	return c;
}

void
ft_logc_free(struct ft_logc *c)
{
	size_t i;

	if (c == NULL)
		return;
	if (c->state != DOWN)
		ft_conn_release(&c->c);
	for (i = 0; i < c->nr; i++)
		free(c->r[i].q);
	free(c->r);
	free(c->f);
	free(c->dets);
	free(c->acks);
	ft_wbuf_release(&c->wb);
	free(c);
}

/* Queue what c->wb holds: 0, or -1 (the connection is lost). */
static int
queue(struct ft_logc *c)
{
	int rc = ft_conn_queue_copy(&c->c, c->wb.p, c->wb.len);

	ft_wbuf_reset(&c->wb);
	return rc;
}

static int
send_query(struct ft_logc *c, struct crank *r)
{
	struct ft_msg_log_query m = { c->job, r->rank, c->inc };

	if (ft_msg_log_query_encode(&c->wb, c->self, &m) != 0)
		return -1;
	r->asking = 1;
	r->retry_at = 0;
	r->sent = r->durable;
	return queue(c);
}

/*
 * Send rank r's determinants not yet sent: all of them when force is
 * set, else only when nothing of r is in flight, or a whole batch.
 */
static int
send_rank(struct ft_logc *c, struct crank *r, int force)
{
	struct ft_msg_log_append m;
	uint64_t left;

	if (c->state != READY || r->asking || r->dead || r->retry_at != 0)
		return 0;
	while (r->sent < r->last) {
		left = r->last - r->sent;
		if (!force && r->sent > r->durable && left < FT_LOG_BATCH_MAX)
			break;
		m.job = c->job;
		m.rank = r->rank;
		m.n = left < FT_LOG_BATCH_MAX ? (uint32_t)left :
		    FT_LOG_BATCH_MAX;
		m.d = r->q + r->qhead + (r->sent - r->durable);
		m.inc = c->inc;
		if (ft_msg_log_append_encode(&c->wb, c->self, &m) != 0)
			return -1;
		r->sent += m.n;
		if (queue(c) != 0)
			return -1;
	}
	return 0;
}

void
ft_logc_incarnation(struct ft_logc *c, uint32_t inc)
{
	c->inc = inc;
}

int
ft_logc_open(struct ft_logc *c, uint32_t rank)
{
	struct crank *r, *nv;

	if (find(c, rank) != NULL)
		return 0;
	if ((nv = ft_grow(c->r, &c->capr, c->nr, sizeof(*c->r))) == NULL)
		return -1;
	c->r = nv;
	r = &c->r[c->nr++];
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	if (c->state == READY && send_query(c, r) != 0)
		return 0;	/* progress sees the loss */
	return 0;
}

int
ft_logc_append(struct ft_logc *c, uint32_t rank, const struct ft_det *d)
{
	struct crank *r = find(c, rank);
	struct ft_det *nq;
	size_t n;

	if (r == NULL || !r->opened) {
		errno = r == NULL ? EINVAL : EAGAIN;
		return -1;
	}
	if (d->seq != r->last + 1 || d->kind > FT_DET_KIND_MAX ||
	    (d->kind == FT_DET_DELIVERY && (d->v[0] | d->v[1] | d->v[2]) !=
	    0)) {
		errno = EINVAL;
		return -1;
	}
	n = (size_t)(r->last - r->durable);
	if (r->qhead + n == r->qcap) {
		if (r->qhead > 0 && r->qhead >= n) {
			memmove(r->q, r->q + r->qhead, n * sizeof(*r->q));
			r->qhead = 0;
		} else {
			if ((nq = ft_grow(r->q, &r->qcap, r->qhead + n,
			    sizeof(*r->q))) == NULL)
				return -1;
			r->q = nq;
		}
	}
	r->q[r->qhead + n] = *d;
	r->last = d->seq;
	return 0;
}

int
ft_logc_flush(struct ft_logc *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (send_rank(c, &c->r[i], 1) != 0)
			return 0;	/* progress sees the loss */
	if (c->state != DOWN)
		(void)ft_conn_flush(&c->c);
	return 0;
}

uint64_t
ft_logc_durable(const struct ft_logc *c, uint32_t rank)
{
	const struct crank *r = find(c, rank);

	return r != NULL ? r->durable : 0;
}

uint32_t
ft_logc_fetch(struct ft_logc *c, uint32_t rank, uint64_t from_seq,
    uint64_t from_clock)
{
	struct ft_msg_log_fetch m;
	struct cfetch *nv;

	if (c->state != READY) {
		errno = ENOTCONN;
		return 0;
	}
	if ((nv = ft_grow(c->f, &c->capf, c->nf, sizeof(*c->f))) == NULL)
		return 0;
	c->f = nv;
	m.reqid = c->next_reqid++;
	if (c->next_reqid == 0)
		c->next_reqid = 1;
	m.job = c->job;
	m.rank = rank;
	m.from_seq = from_seq;
	m.from_clock = from_clock;
	if (ft_msg_log_fetch_encode(&c->wb, c->self, &m) != 0)
		return 0;
	if (queue(c) != 0) {
		errno = ENOTCONN;
		return 0;
	}
	c->f[c->nf].reqid = m.reqid;
	c->f[c->nf].rank = rank;
	c->nf++;
	return m.reqid;
}

int
ft_logc_fd(const struct ft_logc *c)
{
	return c->state != DOWN ? c->c.fd : -1;
}

short
ft_logc_events(const struct ft_logc *c)
{
	if (c->state == DOWN)
		return 0;
	return POLLIN | (ft_conn_want_write(&c->c) ? POLLOUT : 0);
}

uint64_t
ft_logc_deadline(const struct ft_logc *c)
{
	uint64_t next = c->state == DOWN ? c->retry_at : 0;
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->r[i].retry_at != 0 &&
		    (next == 0 || c->r[i].retry_at < next))
			next = c->r[i].retry_at;
	return next;
}

int
ft_logc_idle(const struct ft_logc *c)
{
	size_t i;

	if (c->state != READY || c->nf > 0 || ft_conn_want_write(&c->c) ||
	    ft_conn_avail(&c->c) > 0)
		return 0;
	for (i = 0; i < c->nr; i++)
		if (c->r[i].asking || c->r[i].retry_at != 0 ||
		    (!c->r[i].dead && c->r[i].sent != c->r[i].durable))
			return 0;
	return 1;
}

int
ft_logc_connected(const struct ft_logc *c)
{
	return c->state == READY;
}

/* The connection is lost: fetches fail, a reconnection is due. */
static void
lost(struct ft_logc *c, const char *why)
{
	struct cfetch f;
	size_t i;

	if (c->state != DOWN)
		ft_conn_release(&c->c);
	c->c.fd = -1;
	if (!c->warned)
		report(c, CONN_ALL, 0, 0, "logger at %s: %s", c->addr, why);
	c->warned = 1;
	c->state = DOWN;
	c->retry_at = ft_now_ns() + c->backoff;
	c->backoff = c->backoff * 2 < BACKOFF_MAX_NS ? c->backoff * 2 :
	    BACKOFF_MAX_NS;
	for (i = 0; i < c->nr; i++) {
		c->r[i].asking = 0;
		c->r[i].sent = c->r[i].durable;
	}
	while (c->nf > 0) {
		f = c->f[--c->nf];
		report(c, f.rank, f.reqid, 0, "logger at %s: connection lost "
		    "during the fetch", c->addr);
	}
}

static int
connect_now(struct ft_logc *c)
{
	int fd;

	if ((fd = ft_net_connect(c->addr)) < 0) {
		lost(c, strerror(errno));
		return 0;
	}
	if (ft_conn_connecting(&c->c, fd, c->key, c->self,
	    FT_ROLE_LOGGER) != 0) {
		close(fd);
		return -1;
	}
	c->state = UP;
	return 0;
}

static void
drop_acked(struct crank *r, uint64_t seq)
{
	r->qhead += (size_t)(seq - r->durable);
	r->durable = seq;
	if (r->sent < seq)
		r->sent = seq;
	if (r->durable == r->last)
		r->qhead = 0;
}

static void
on_ack_entry(struct ft_logc *c, const struct ft_log_ack *e)
{
	struct crank *r;

	if (e->job != c->job || (r = find(c, e->rank)) == NULL || r->dead)
		return;
	if (r->asking) {
		r->asking = 0;
		if (!r->opened) {
			/* The log as it is: the next seq follows it. */
			r->opened = 1;
			r->durable = r->last = r->sent = e->seq;
			r->dclock = e->clock;
			r->qhead = 0;
		} else if (e->seq < r->durable || e->seq > r->last) {
			r->dead = 1;
			report(c, r->rank, 0, FT_LOG_EGONE, "logger at %s "
			    "holds seq %" PRIu64 " of rank %u, but %" PRIu64
			    " was acknowledged and %" PRIu64 " appended",
			    c->addr, e->seq, r->rank, r->durable, r->last);
			return;
		} else {
			drop_acked(r, e->seq);
			r->dclock = e->clock;
			r->sent = e->seq;
		}
		if (c->cb.acked != NULL)
			c->cb.acked(c->arg, r->rank, r->durable, r->dclock);
		return;
	}
	if (e->seq <= r->durable || e->seq > r->sent)
		return;
	drop_acked(r, e->seq);
	r->dclock = e->clock;
	if (c->cb.acked != NULL)
		c->cb.acked(c->arg, r->rank, r->durable, r->dclock);
}

static void
forget_fetch(struct ft_logc *c, uint32_t reqid)
{
	size_t i;

	for (i = 0; i < c->nf; i++)
		if (c->f[i].reqid == reqid) {
			c->f[i] = c->f[--c->nf];
			return;
		}
}

static int
has_fetch(const struct ft_logc *c, uint32_t reqid)
{
	size_t i;

	for (i = 0; i < c->nf; i++)
		if (c->f[i].reqid == reqid)
			return 1;
	return 0;
}

/* One frame from the logger: 0, or -1 (malformed: drop the link). */
static int
on_frame(struct ft_logc *c, const struct ft_hdr *h, const uint8_t *body)
{
	struct ft_msg_log_ack a;
	struct ft_msg_log_records rec;
	struct ft_msg_log_error e;
	struct crank *r;
	char text[FT_WIRE_TEXT_MAX];
	size_t len = h->len - FT_WIRE_HDRLEN;
	uint32_t i;

	switch (h->type) {
	case FT_MSG_LOG_ACK:
		a.e = c->acks;
		if (ft_msg_log_ack_decode(body, len, &a, FT_LOG_ACK_MAX) != 0)
			return -1;
		for (i = 0; i < a.n; i++)
			on_ack_entry(c, &a.e[i]);
		return 0;
	case FT_MSG_LOG_RECORDS:
		rec.d = c->dets;
		if (ft_msg_log_records_decode(body, len, &rec,
		    FT_LOG_BATCH_MAX) != 0 || rec.job != c->job)
			return -1;
		if (!has_fetch(c, rec.reqid))
			return 0;
		if (rec.flags & FT_LOG_LAST)
			forget_fetch(c, rec.reqid);
		if (c->cb.records != NULL)
			c->cb.records(c->arg, rec.rank, rec.reqid, rec.d, rec.n,
			    (rec.flags & FT_LOG_LAST) != 0);
		return 0;
	case FT_MSG_LOG_ERROR:
		if (ft_msg_log_error_decode(body, len, &e) != 0)
			return -1;
		ft_vis(text, sizeof(text), e.text);
		if (e.reqid != 0) {
			if (!has_fetch(c, e.reqid))
				return 0;
			forget_fetch(c, e.reqid);
		} else if ((r = find(c, e.rank)) != NULL &&
		    e.code == FT_LOG_ESTALE) {
			/* A newer process of the rank is in: this one is
			 * dead to the logger, asking again is no use. */
			r->dead = 1;
			r->asking = 0;
		} else if (r != NULL) {
			/* Ask again after the backoff, then resend. */
			r->asking = 0;
			r->sent = r->durable;
			r->retry_at = ft_now_ns() + BACKOFF_MAX_NS;
		}
		report(c, e.rank, e.reqid, e.code, "%s", text);
		return 0;
	default:
		errno = EPROTO;
		return -1;
	}
}

static void
on_ready(struct ft_logc *c)
{
	size_t i;

	c->state = READY;
	c->backoff = BACKOFF_MIN_NS;
	c->warned = 0;
	for (i = 0; i < c->nr; i++)
		if (!c->r[i].dead && send_query(c, &c->r[i]) != 0)
			return;
}

int
ft_logc_progress(struct ft_logc *c)
{
	const uint8_t *body;
	struct ft_hdr h;
	uint64_t now = 0;
	ssize_t got;
	size_t i;
	int rc;

	/* The clock only for what waits for a time: a reconnection, a
	 * question asked again; not in the steady state. */
	if (c->state == DOWN) {
		now = ft_now_ns();
		if (now < c->retry_at)
			return 0;
		if (connect_now(c) != 0)
			return -1;
		if (c->state == DOWN)
			return 0;
	}
	if (ft_conn_flush(&c->c) != 0) {
		lost(c, strerror(errno));
		return 0;
	}
	for (;;) {
		got = ft_conn_fill(&c->c);
		while ((rc = ft_conn_frame(&c->c, &h, &body)) == 1) {
			if (c->c.hs != FT_HS_READY) {
				rc = ft_conn_handshake(&c->c, &h, body);
				if (rc < 0) {
					lost(c, errno == EACCES ? "it refused "
					    "the handshake (a different key?)" :
					    "a bad handshake");
					return 0;
				}
				if (rc == 1)
					on_ready(c);
				continue;
			}
			if (on_frame(c, &h, body) != 0) {
				lost(c, "a malformed frame");
				return 0;
			}
		}
		if (rc < 0) {
			lost(c, "a malformed frame");
			return 0;
		}
		if (got < 0) {
			lost(c, c->c.hs == FT_HS_READY ? "connection lost" :
			    "connection lost during the handshake (a "
			    "different key?)");
			return 0;
		}
		if (got == 0)
			break;
	}
	for (i = 0; i < c->nr; i++) {
		if (c->r[i].retry_at != 0 && now == 0)
			now = ft_now_ns();
		if (c->r[i].retry_at != 0 && now >= c->r[i].retry_at &&
		    c->state == READY && send_query(c, &c->r[i]) != 0)
			break;
		if (send_rank(c, &c->r[i], 0) != 0)
			break;
	}
	if (c->state != DOWN && ft_conn_flush(&c->c) != 0)
		lost(c, strerror(errno));
	return 0;
}

int
ft_logc_wait(struct ft_logc *c, int (*cond)(void *), void *arg,
    uint64_t deadline)
{
	struct pollfd p;
	uint64_t now, until, dl;
	int ms;

	for (;;) {
		if (cond(arg))
			return 0;
		now = ft_now_ns();
		if (now >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		until = deadline;
		if ((dl = ft_logc_deadline(c)) != 0 && dl < until)
			until = dl;
		ms = (int)((until - now + 999999) / 1000000);
		p.fd = ft_logc_fd(c);
		p.events = ft_logc_events(c);
		p.revents = 0;
		if (poll(&p, p.fd >= 0 ? 1 : 0, ms) < 0 && errno != EINTR)
			return -1;
		if (ft_logc_progress(c) != 0)
			return -1;
	}
}
