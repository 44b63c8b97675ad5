/* SPDX-License-Identifier: ISC */
/*
 * The point-to-point engine: connections, the eager and rendezvous
 * protocols, matching, and progress.  Payloads are read straight into the
 * receive buffer when a posted receive matches, and rendezvous data is
 * written straight from the send buffer, so large messages are never
 * copied.
 */
#include <sys/socket.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pt2pt.h"

/* Below this, payload bytes go through the input buffer. */
#define DIRECT_MIN	(16u << 10)

enum ux_kind {
	UX_EAGER = 1,	/* payload in data */
	UX_RTS,		/* payload still at the sender */
	UX_SELF,	/* a send to ourselves, payload in sreq's buffer */
};

/* A message that arrived before its receive was posted. */
struct unexp {
	struct unexp	*next;
	enum ux_kind	 kind;
	uint32_t	 src;		/* rank in the communicator */
	uint32_t	 wsrc;		/* world rank */
	int32_t		 tag;
	uint64_t	 seq;
	size_t		 len;
	uint8_t		*data;		/* UX_EAGER, from ft_buf_get */
	int		 pooled;
	uint64_t	 sreq;		/* UX_RTS */
	struct ft_req	*self;		/* UX_SELF */
};

/* Matching state of one communicator context, created on first use. */
struct mctx {
	struct mctx	*hnext;
	uint32_t	 ctx;
	struct ft_req	*posted_head, *posted_tail;
	struct unexp	*ux_head, *ux_tail;
};

enum rd_phase {
	RD_HEADER = 0,
	RD_PAYLOAD,
};

struct pconn {
	struct ft_conn	 c;
	int		 outgoing;	/* we opened it: our sends go here */
	uint32_t	 dialed;	/* outgoing: the rank we called */
	int		 closed;
	/* Reading a data frame's payload: left bytes to dst, then skip. */
	enum rd_phase	 phase;
	uint8_t		*dst;
	size_t		 left, skip;
	struct ft_req	*req;		/* completes when the payload ends */
	struct unexp	*ux;		/* or queues when it ends */
	uint32_t	 ux_ctx;
	uint32_t	 wsrc;
};

struct peer {
	struct pconn	*out;
	uint64_t	 sseq;
	int		 gone;
	uint64_t	 eager_out;	/* our eager bytes it has not matched */
	uint64_t	 eager_in;	/* its eager bytes we matched, owed */
};

/* Requests waiting in a rendezvous, found by the id in CTS and RDATA. */
struct slot {
	struct ft_req	*req;
	uint32_t	 gen;
};

struct ft_pt {
	uint32_t		 rank, size, node;
	const uint8_t		*key;
	int			 force_tcp;
	struct ft_proto		 proto;
	int			 lfd_unix, lfd_tcp;
	char			 unix_path[FT_WIRE_ADDR_MAX];
	struct ft_rank_addr	 self_addr;
	struct ft_rank_addr	*table;
	struct peer		*peers;
	struct pconn		**conns;
	size_t			 nconns, capconns;
	struct pconn		*ctl;
	void			(*on_ctl)(void *, const struct ft_hdr *,
				    const uint8_t *);
	void			*ctl_arg;
	struct mctx		*ctxtab[256];
	struct slot		*slots;
	uint32_t		*freeslots;
	size_t			 nslots, nfree, rdv_pending;
	struct pollfd		*pfd;
	struct pconn		**pfdconn;
	size_t			 cappfd;
};

static void	req_complete(struct ft_pt *, struct ft_req *);
static void	conn_close(struct ft_pt *, struct pconn *, const char *);

uint32_t
ft_pt_rank(const struct ft_pt *pt)
{
	return pt->rank;
}

uint32_t
ft_pt_size(const struct ft_pt *pt)
{
	return pt->size;
}

int
ft_pt_peer_gone(const struct ft_pt *pt, uint32_t r)
{
	return r < pt->size && pt->peers[r].gone;
}

struct ft_pt *
ft_pt_new(const struct ft_pt_conf *cf)
{
	struct ft_pt *pt;
	struct ft_conf pc;
	char addr[FT_WIRE_ADDR_MAX];
	int saved;

	if (cf->size == 0 || cf->rank >= cf->size || cf->key == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return NULL;
	pt->rank = cf->rank;
	pt->size = cf->size;
	pt->node = cf->node;
	pt->key = cf->key;
	pt->force_tcp = cf->force_tcp;
	pt->lfd_unix = pt->lfd_tcp = -1;
	if ((pt->peers = calloc(cf->size, sizeof(*pt->peers))) == NULL)
		goto fail;
	pc.rank = cf->rank;
	pc.size = cf->size;
	if (ft_proto_init(&pt->proto, cf->proto != NULL ? cf->proto :
	    &ft__proto_none, &pc) != 0)
		goto fail;
	pt->self_addr.node = cf->node;
	pt->self_addr.pid = (uint32_t)getpid();
	if (cf->unix_dir != NULL && !cf->force_tcp) {
		snprintf(addr, sizeof(addr), "unix:%s/r%u.sock", cf->unix_dir,
		    cf->rank);
		pt->lfd_unix = ft_net_listen(addr, pt->self_addr.unix_addr,
		    sizeof(pt->self_addr.unix_addr));
		if (pt->lfd_unix == -1)
			goto fail;
		snprintf(pt->unix_path, sizeof(pt->unix_path), "%s",
		    addr + 5);
	}
	snprintf(addr, sizeof(addr), "tcp:%s:0",
	    cf->tcp_host != NULL ? cf->tcp_host : "127.0.0.1");
	pt->lfd_tcp = ft_net_listen(addr, pt->self_addr.tcp_addr,
	    sizeof(pt->self_addr.tcp_addr));
	if (pt->lfd_tcp == -1)
		goto fail;
	return pt;
fail:
	saved = errno;
	ft_pt_free(pt);
	errno = saved;
	return NULL;
}

void
ft_pt_addr(const struct ft_pt *pt, struct ft_rank_addr *a)
{
	*a = pt->self_addr;
}

int
ft_pt_set_table(struct ft_pt *pt, const struct ft_rank_addr *t, uint32_t n)
{
	if (n != pt->size) {
		errno = EINVAL;
		return -1;
	}
	free(pt->table);
	if ((pt->table = calloc(n, sizeof(*t))) == NULL)
		return -1;
	memcpy(pt->table, t, n * sizeof(*t));
	return 0;
}

static int
conn_add(struct ft_pt *pt, struct pconn *pc)
{
	struct pconn **nc;
	size_t ncap;

	if (pt->nconns == pt->capconns) {
		ncap = pt->capconns == 0 ? 16 : pt->capconns * 2;
		if ((nc = reallocarray(pt->conns, ncap, sizeof(*nc))) == NULL)
			return -1;
		pt->conns = nc;
		pt->capconns = ncap;
	}
	pt->conns[pt->nconns++] = pc;
	return 0;
}

void
ft_pt_set_ctl(struct ft_pt *pt, struct ft_conn *c,
    void (*on_ctl)(void *, const struct ft_hdr *, const uint8_t *), void *arg)
{
	struct pconn *pc;

	if ((pc = calloc(1, sizeof(*pc))) == NULL)
		FT_BUG();
	pc->c = *c;
	pt->ctl = pc;
	pt->on_ctl = on_ctl;
	pt->ctl_arg = arg;
}

struct ft_conn *
ft_pt_ctl(struct ft_pt *pt)
{
	return pt->ctl != NULL && !pt->ctl->closed ? &pt->ctl->c : NULL;
}

static void
mctx_free(struct mctx *m)
{
	struct unexp *u, *next;

	for (u = m->ux_head; u != NULL; u = next) {
		next = u->next;
		ft_buf_put(u->data, u->pooled);
		free(u);
	}
	free(m);
}

void
ft_pt_free(struct ft_pt *pt)
{
	struct mctx *m, *next;
	size_t i;

	if (pt == NULL)
		return;
	for (i = 0; i < pt->nconns; i++) {
		ft_conn_release(&pt->conns[i]->c);
		free(pt->conns[i]);
	}
	if (pt->ctl != NULL) {
		ft_conn_release(&pt->ctl->c);
		free(pt->ctl);
	}
	for (i = 0; i < FT_NELEM(pt->ctxtab); i++)
		for (m = pt->ctxtab[i]; m != NULL; m = next) {
			next = m->hnext;
			mctx_free(m);
		}
	if (pt->lfd_unix != -1) {
		close(pt->lfd_unix);
		unlink(pt->unix_path);
	}
	if (pt->lfd_tcp != -1)
		close(pt->lfd_tcp);
	if (pt->proto.ops != NULL)
		ft_proto_release(&pt->proto);
	free(pt->conns);
	free(pt->peers);
	free(pt->table);
	free(pt->slots);
	free(pt->freeslots);
	free(pt->pfd);
	free(pt->pfdconn);
	free(pt);
}

/* Matching contexts hash on the low bits of the context id. */
static struct mctx *
mctx_get(struct ft_pt *pt, uint32_t ctx)
{
	struct mctx **head = &pt->ctxtab[ctx % FT_NELEM(pt->ctxtab)], *m;

	for (m = *head; m != NULL; m = m->hnext)
		if (m->ctx == ctx)
			return m;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->ctx = ctx;
	m->hnext = *head;
	*head = m;
	return m;
}

static uint64_t
slot_add(struct ft_pt *pt, struct ft_req *r)
{
	struct slot *ns;
	uint32_t *nf, idx;
	size_t ncap;

	if (pt->nfree == 0) {
		ncap = pt->nslots == 0 ? 64 : pt->nslots * 2;
		if ((ns = reallocarray(pt->slots, ncap, sizeof(*ns))) == NULL)
			return 0;
		pt->slots = ns;
		if ((nf = reallocarray(pt->freeslots, ncap, sizeof(*nf))) ==
		    NULL)
			return 0;
		pt->freeslots = nf;
		for (idx = (uint32_t)pt->nslots; idx < ncap; idx++) {
			pt->slots[idx].req = NULL;
			pt->slots[idx].gen = 1;
			pt->freeslots[pt->nfree++] = (uint32_t)(ncap - 1 -
			    (idx - pt->nslots));
		}
		pt->nslots = ncap;
	}
	idx = pt->freeslots[--pt->nfree];
	pt->slots[idx].req = r;
	pt->rdv_pending++;
	r->id = (uint64_t)pt->slots[idx].gen << 32 | idx;
	return r->id;
}

static struct ft_req *
slot_find(struct ft_pt *pt, uint64_t id)
{
	uint32_t idx = (uint32_t)id;

	if (idx >= pt->nslots || pt->slots[idx].req == NULL ||
	    pt->slots[idx].gen != (uint32_t)(id >> 32))
		return NULL;
	return pt->slots[idx].req;
}

static void
slot_del(struct ft_pt *pt, struct ft_req *r)
{
	uint32_t idx = (uint32_t)r->id;

	if (r->id == 0 || slot_find(pt, r->id) != r)
		return;
	pt->slots[idx].req = NULL;
	pt->slots[idx].gen++;
	if (pt->slots[idx].gen == 0)
		pt->slots[idx].gen = 1;
	pt->freeslots[pt->nfree++] = idx;
	pt->rdv_pending--;
	r->id = 0;
}

static int
matches(const struct ft_req *r, uint32_t src, int32_t tag)
{
	return (r->src == FT_PT_ANY || (uint32_t)r->src == src) &&
	    (r->tag == FT_PT_ANY || r->tag == tag);
}

static struct ft_req *
posted_take(struct mctx *m, uint32_t src, int32_t tag)
{
	struct ft_req *r;

	for (r = m->posted_head; r != NULL; r = r->next)
		if (matches(r, src, tag))
			break;
	if (r == NULL)
		return NULL;
	if (r->prev != NULL)
		r->prev->next = r->next;
	else
		m->posted_head = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	else
		m->posted_tail = r->prev;
	r->next = r->prev = NULL;
	r->posted = 0;
	return r;
}

static void
posted_append(struct mctx *m, struct ft_req *r)
{
	r->next = NULL;
	r->prev = m->posted_tail;
	if (m->posted_tail != NULL)
		m->posted_tail->next = r;
	else
		m->posted_head = r;
	m->posted_tail = r;
	r->posted = 1;
}

static void
ux_append(struct mctx *m, struct unexp *u)
{
	u->next = NULL;
	if (m->ux_tail != NULL)
		m->ux_tail->next = u;
	else
		m->ux_head = u;
	m->ux_tail = u;
}

/* Take the first unexpected message matching src and tag. */
static struct unexp *
ux_take(struct mctx *m, int src, int tag, int remove)
{
	struct unexp *u, *prev = NULL;

	for (u = m->ux_head; u != NULL; prev = u, u = u->next)
		if ((src == FT_PT_ANY || (uint32_t)src == u->src) &&
		    (tag == FT_PT_ANY || tag == u->tag))
			break;
	if (u == NULL || !remove)
		return u;
	if (prev != NULL)
		prev->next = u->next;
	else
		m->ux_head = u->next;
	if (m->ux_tail == u)
		m->ux_tail = prev;
	u->next = NULL;
	return u;
}

/* Fill a receive's status for a matched message of len bytes. */
static void
recv_matched(struct ft_req *r, uint32_t src, int32_t tag, size_t len)
{
	r->st.source = (int)src;
	r->st.tag = tag;
	r->st.msglen = len;
	r->st.bytes = len <= r->cap ? len : r->cap;
	r->st.error = len <= r->cap ? 0 : EMSGSIZE;
}

static void
req_complete(struct ft_pt *pt, struct ft_req *r)
{
	slot_del(pt, r);
	r->done = 1;
	if (r->on_done != NULL)
		r->on_done(r);
}

static void
deliver(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc, uint64_t seq)
{
	r->seq = seq;
	struct ft_msg m = { r->ctx, wsrc, pt->rank, r->st.tag, seq, r->buf,
	    r->st.bytes };

	(void)ft_proto_deliver(&pt->proto, &m);
	req_complete(pt, r);
}

static int
conn_open(struct ft_pt *pt, uint32_t dst)
{
	const struct ft_rank_addr *a;
	const char *addr;
	struct pconn *pc;
	int fd;

	if (pt->table == NULL) {
		errno = ENOTCONN;
		return -1;
	}
	a = &pt->table[dst];
	if (!pt->force_tcp && a->node == pt->node && a->unix_addr[0] != '\0')
		addr = a->unix_addr;
	else
		addr = a->tcp_addr;
	if ((fd = ft_net_connect(addr)) == -1)
		return -1;
	if ((pc = calloc(1, sizeof(*pc))) == NULL) {
		close(fd);
		return -1;
	}
	if (ft_conn_connecting(&pc->c, fd, pt->key, pt->rank,
	    FT_ROLE_RANK) != 0 || conn_add(pt, pc) != 0) {
		ft_conn_release(&pc->c);
		free(pc);
		return -1;
	}
	pc->c.peer = dst;
	pc->dialed = dst;
	pc->outgoing = 1;
	pt->peers[dst].out = pc;
	(void)ft_conn_flush(&pc->c);
	return 0;
}

static struct pconn *
peer_conn(struct ft_pt *pt, uint32_t dst)
{
	if (pt->peers[dst].gone) {
		errno = ECONNRESET;
		return NULL;
	}
	if (pt->peers[dst].out == NULL && conn_open(pt, dst) != 0)
		return NULL;
	return pt->peers[dst].out;
}

/* A send to ourselves: match now, or queue as unexpected. */
static int
send_self(struct ft_pt *pt, struct ft_req *s, uint32_t ctx, uint32_t src,
    int tag, uint64_t seq)
{
	struct mctx *m;
	struct ft_req *r;
	struct unexp *u;

	if ((m = mctx_get(pt, ctx)) == NULL)
		return -1;
	if ((r = posted_take(m, src, tag)) != NULL) {
		recv_matched(r, src, tag, s->len);
		if (r->st.bytes > 0)
			memcpy(r->buf, s->sbuf, r->st.bytes);
		deliver(pt, r, pt->rank, seq);
		req_complete(pt, s);
		return 0;
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->src = src;
	u->wsrc = pt->rank;
	u->tag = tag;
	u->seq = seq;
	u->len = s->len;
	if (s->len <= FT_PT_EAGER_MAX && s->mode != FT_SEND_SYNC) {
		u->kind = UX_EAGER;
		if (s->len > 0 && (u->data = ft_buf_get(s->len,
		    &u->pooled)) == NULL) {
			free(u);
			return -1;
		}
		if (s->len > 0)
			memcpy(u->data, s->sbuf, s->len);
		ux_append(m, u);
		req_complete(pt, s);
		return 0;
	}
	u->kind = UX_SELF;
	u->self = s;
	ux_append(m, u);
	return 0;
}

int
ft_pt_isend(struct ft_pt *pt, struct ft_req *r, const void *buf, size_t len,
    uint32_t dst, uint32_t ctx, uint32_t src, int tag, int mode)
{
	uint8_t prefix[FT_WIRE_HDRLEN + FT_EAGER_FIXED];
	struct ft_msg_eager eg;
	struct ft_msg_rts rts;
	struct ft_wbuf wb;
	struct ft_msg m;
	struct pconn *pc;
	uint64_t seq;
	int rc;

	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_SEND;
	r->sbuf = buf;
	r->len = len;
	r->dst = dst;
	r->ctx = ctx;
	r->mode = mode;
	r->tag = tag;
	if (dst >= pt->size) {
		errno = EINVAL;
		return -1;
	}
	seq = pt->peers[dst].sseq++;
	m = (struct ft_msg){ ctx, pt->rank, dst, tag, seq, buf, len };
	if (ft_proto_send(&pt->proto, &m) != 0)
		return -1;
	if (dst == pt->rank)
		return send_self(pt, r, ctx, src, tag, seq);
	if ((pc = peer_conn(pt, dst)) == NULL)
		return -1;
	if (len <= FT_PT_EAGER_MAX && mode != FT_SEND_SYNC &&
	    pt->peers[dst].eager_out + len + FT_PT_EAGER_COST <=
	    FT_PT_EAGER_WINDOW) {
		pt->peers[dst].eager_out += len + FT_PT_EAGER_COST;
		eg = (struct ft_msg_eager){ ctx, src, tag, seq };
		if (ft_msg_eager_prefix(prefix, pt->rank, &eg, len) != 0 ||
		    ft_conn_send2(&pc->c, prefix, sizeof(prefix), buf,
		    len) != 0)
			return -1;
		req_complete(pt, r);
		return 0;
	}
	if (slot_add(pt, r) == 0)
		return -1;
	rts = (struct ft_msg_rts){ ctx, src, tag, seq, len, r->id };
	ft_wbuf_init(&wb);
	rc = ft_msg_rts_encode(&wb, pt->rank,
	    mode == FT_SEND_SYNC ? FT_FLAG_SYNC : 0, &rts);
	if (rc == 0)
		rc = ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
	if (rc != 0) {
		slot_del(pt, r);
		return -1;
	}
	return 0;
}

/*
 * An eager message from world rank wsrc was matched: its bytes count
 * towards the credit we owe wsrc, paid once a quarter window is due.
 * Best effort: a peer we cannot reach any more needs no credit.
 */
static void
eager_matched(struct ft_pt *pt, uint32_t wsrc, size_t len)
{
	struct ft_msg_credit cr;
	struct peer *p = &pt->peers[wsrc];
	struct ft_wbuf wb;
	struct pconn *pc;

	if (wsrc == pt->rank)
		return;
	p->eager_in += len + FT_PT_EAGER_COST;
	if (p->eager_in < FT_PT_EAGER_WINDOW / 4 || p->gone ||
	    (pc = peer_conn(pt, wsrc)) == NULL)
		return;
	cr.bytes = p->eager_in;
	ft_wbuf_init(&wb);
	if (ft_msg_credit_encode(&wb, pt->rank, &cr) == 0 &&
	    ft_conn_queue_copy(&pc->c, wb.p, wb.len) == 0)
		p->eager_in = 0;
	ft_wbuf_release(&wb);
}

/*
 * Complete receive r, already matched, with the unexpected eager message
 * u (whose buffer the caller frees), and owe its sender the credit.
 */
static void
ux_eager_deliver(struct ft_pt *pt, struct ft_req *r, const struct unexp *u)
{
	if (r->st.bytes > 0)
		memcpy(r->buf, u->data, r->st.bytes);
	deliver(pt, r, u->wsrc, u->seq);
	eager_matched(pt, u->wsrc, u->len);
}

/* Answer an RTS that a receive matched: register it and send CTS. */
static int
send_cts(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc, uint64_t sreq,
    uint64_t seq)
{
	struct ft_msg_cts cts;
	struct ft_wbuf wb;
	struct pconn *pc;
	int rc;

	if ((pc = peer_conn(pt, wsrc)) == NULL)
		return -1;
	if (slot_add(pt, r) == 0)
		return -1;
	r->seq = seq;
	r->peer = wsrc;
	cts.sreq = sreq;
	cts.rreq = r->id;
	ft_wbuf_init(&wb);
	rc = ft_msg_cts_encode(&wb, pt->rank, &cts);
	if (rc == 0)
		rc = ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
	if (rc != 0) {
		slot_del(pt, r);
		return -1;
	}
	/* Nothing follows a CTS for an empty message. */
	if (r->st.msglen == 0)
		deliver(pt, r, wsrc, seq);
	return 0;
}

int
ft_pt_irecv(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    int src, int tag, uint32_t ctx)
{
	struct mctx *m;
	struct unexp *u;
	struct ft_req *s;
	int rc = 0;

	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_RECV;
	r->buf = buf;
	r->cap = cap;
	r->src = src;
	r->tag = tag;
	r->ctx = ctx;
	if ((m = mctx_get(pt, ctx)) == NULL)
		return -1;
	if ((u = ux_take(m, src, tag, 1)) == NULL) {
		posted_append(m, r);
		return 0;
	}
	recv_matched(r, u->src, u->tag, u->len);
	switch (u->kind) {
	case UX_EAGER:
		ux_eager_deliver(pt, r, u);
		break;
	case UX_SELF:
		s = u->self;
		if (r->st.bytes > 0)
			memcpy(buf, s->sbuf, r->st.bytes);
		deliver(pt, r, u->wsrc, u->seq);
		req_complete(pt, s);
		break;
	case UX_RTS:
		rc = send_cts(pt, r, u->wsrc, u->sreq, u->seq);
		break;
	}
	ft_buf_put(u->data, u->pooled);
	free(u);
	return rc;
}

int
ft_pt_iprobe(struct ft_pt *pt, int src, int tag, uint32_t ctx,
    struct ft_pt_status *st)
{
	struct mctx *m;
	struct unexp *u;

	if ((m = mctx_get(pt, ctx)) == NULL ||
	    (u = ux_take(m, src, tag, 0)) == NULL)
		return 0;
	memset(st, 0, sizeof(*st));
	st->source = (int)u->src;
	st->tag = u->tag;
	st->msglen = st->bytes = u->len;
	return 1;
}

int
ft_pt_cancel(struct ft_pt *pt, struct ft_req *r)
{
	struct mctx *m;

	if (r->kind != FT_REQ_RECV || !r->posted ||
	    (m = mctx_get(pt, r->ctx)) == NULL)
		return 0;
	if (r->prev != NULL)
		r->prev->next = r->next;
	else
		m->posted_head = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	else
		m->posted_tail = r->prev;
	r->next = r->prev = NULL;
	r->posted = 0;
	r->st.cancelled = 1;
	r->st.source = FT_PT_ANY;
	r->st.tag = FT_PT_ANY;
	req_complete(pt, r);
	return 1;
}

static void
rdata_sent(void *arg)
{
	struct ft_req *r = arg;

	r->done = 1;
	if (r->on_done != NULL)
		r->on_done(r);
}

/* A CTS came back: stream the data straight from the send buffer. */
static int
on_cts(struct ft_pt *pt, struct pconn *pc, const uint8_t *body, size_t blen)
{
	struct ft_msg_rdata rd;
	struct ft_msg_cts cts;
	struct ft_req *r;
	struct pconn *out;
	uint8_t prefix[FT_WIRE_HDRLEN + FT_RDATA_FIXED];
	const uint8_t *sbuf;
	size_t off, n, len;

	if (ft_msg_cts_decode(body, blen, &cts) != 0)
		return -1;
	if ((r = slot_find(pt, cts.sreq)) == NULL || r->kind != FT_REQ_SEND ||
	    r->dst != pc->c.peer) {
		errno = EPROTO;
		return -1;
	}
	slot_del(pt, r);
	if ((out = peer_conn(pt, r->dst)) == NULL)
		return -1;
	if (r->len == 0) {
		rdata_sent(r);
		return 0;
	}
	/*
	 * The last chunk may be written at once, and its completion may
	 * free r (a buffered send's request): read nothing from r after.
	 */
	len = r->len;
	sbuf = r->sbuf;
	for (off = 0; off < len; off += n) {
		n = len - off < FT_WIRE_CHUNK ? len - off : FT_WIRE_CHUNK;
		rd.rreq = cts.rreq;
		rd.offset = off;
		if (ft_msg_rdata_prefix(prefix, pt->rank, &rd, n) != 0 ||
		    ft_conn_queue_copy(&out->c, prefix, sizeof(prefix)) != 0 ||
		    ft_conn_queue_ref(&out->c, sbuf + off, n,
		    off + n == len ? rdata_sent : NULL, r) != 0)
			return -1;
	}
	return 0;
}

static int
on_rts(struct ft_pt *pt, struct pconn *pc, const uint8_t *body, size_t blen)
{
	struct ft_msg_rts rts;
	struct ft_req *r;
	struct unexp *u;
	struct mctx *m;

	if (ft_msg_rts_decode(body, blen, &rts) != 0)
		return -1;
	if ((m = mctx_get(pt, rts.ctx)) == NULL)
		return -1;
	if ((r = posted_take(m, rts.src, rts.tag)) != NULL) {
		recv_matched(r, rts.src, rts.tag, rts.size);
		return send_cts(pt, r, pc->c.peer, rts.sreq, rts.seq);
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_RTS;
	u->src = rts.src;
	u->wsrc = pc->c.peer;
	u->tag = rts.tag;
	u->seq = rts.seq;
	u->len = rts.size;
	u->sreq = rts.sreq;
	ux_append(m, u);
	return 0;
}

/* An EAGER header is in: decide where its payload goes. */
static int
on_eager(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *fixed)
{
	struct ft_msg_eager eg;
	size_t len = h->len - FT_WIRE_HDRLEN - FT_EAGER_FIXED;
	struct ft_req *r;
	struct unexp *u;
	struct mctx *m;

	if (ft_msg_eager_decode(fixed, FT_EAGER_FIXED, &eg) != 0)
		return -1;
	if ((m = mctx_get(pt, eg.ctx)) == NULL)
		return -1;
	pc->phase = RD_PAYLOAD;
	pc->wsrc = pc->c.peer;
	pc->req = NULL;
	pc->ux = NULL;
	if ((r = posted_take(m, eg.src, eg.tag)) != NULL) {
		recv_matched(r, eg.src, eg.tag, len);
		r->seq = eg.seq;
		pc->req = r;
		pc->dst = r->buf;
		pc->left = r->st.bytes;
		pc->skip = len - r->st.bytes;
		eager_matched(pt, pc->c.peer, len);
		return 0;
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_EAGER;
	u->src = eg.src;
	u->wsrc = pc->c.peer;
	u->tag = eg.tag;
	u->seq = eg.seq;
	u->len = len;
	if (len > 0 && (u->data = ft_buf_get(len, &u->pooled)) == NULL) {
		free(u);
		return -1;
	}
	pc->ux = u;
	pc->ux_ctx = eg.ctx;
	pc->dst = u->data;
	pc->left = len;
	pc->skip = 0;
	return 0;
}

static int
on_rdata(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *fixed)
{
	struct ft_msg_rdata rd;
	size_t len = h->len - FT_WIRE_HDRLEN - FT_RDATA_FIXED, keep;
	struct ft_req *r;

	if (ft_msg_rdata_decode(fixed, FT_RDATA_FIXED, &rd) != 0)
		return -1;
	r = slot_find(pt, rd.rreq);
	if (r == NULL || r->kind != FT_REQ_RECV || r->peer != pc->c.peer ||
	    rd.offset != r->got || len > r->st.msglen - r->got) {
		errno = EPROTO;
		return -1;
	}
	keep = 0;
	if (rd.offset < r->st.bytes)
		keep = r->st.bytes - rd.offset < len ?
		    r->st.bytes - rd.offset : len;
	pc->phase = RD_PAYLOAD;
	pc->req = r;
	pc->ux = NULL;
	pc->dst = keep > 0 ? (uint8_t *)r->buf + rd.offset : NULL;
	pc->left = keep;
	pc->skip = len - keep;
	pc->wsrc = pc->c.peer;
	r->got += len;
	return 0;
}

/* The payload of a data frame has been read in full. */
static int
payload_done(struct ft_pt *pt, struct pconn *pc)
{
	struct ft_req *r = pc->req;
	struct unexp *u = pc->ux;
	struct mctx *m;

	pc->phase = RD_HEADER;
	pc->req = NULL;
	pc->ux = NULL;
	if (r != NULL) {
		if (r->id != 0 && slot_find(pt, r->id) == r) {
			/* Rendezvous: done when every chunk is in. */
			if (r->got == r->st.msglen)
				deliver(pt, r, pc->wsrc, r->seq);
		} else
			deliver(pt, r, pc->wsrc, r->seq);
		return 0;
	}
	if (u == NULL)
		return 0;
	if ((m = mctx_get(pt, pc->ux_ctx)) == NULL)
		return -1;
	/* A receive may have been posted while the payload streamed in. */
	if ((r = posted_take(m, u->src, u->tag)) != NULL) {
		recv_matched(r, u->src, u->tag, u->len);
		ux_eager_deliver(pt, r, u);
		ft_buf_put(u->data, u->pooled);
		free(u);
		return 0;
	}
	ux_append(m, u);
	return 0;
}

/* The peer matched some of our eager messages: we may send more. */
static int
on_credit(struct ft_pt *pt, struct pconn *pc, const uint8_t *body,
    size_t blen)
{
	struct ft_msg_credit cr;
	struct peer *p = &pt->peers[pc->c.peer];

	if (ft_msg_credit_decode(body, blen, &cr) != 0)
		return -1;
	if (cr.bytes > p->eager_out) {
		errno = EPROTO;
		return -1;
	}
	p->eager_out -= cr.bytes;
	return 0;
}

/* Handle one whole control frame on a ready rank connection. */
static int
on_frame(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;

	switch (h->type) {
	case FT_MSG_RTS:
		return on_rts(pt, pc, body, blen);
	case FT_MSG_CTS:
		return on_cts(pt, pc, body, blen);
	case FT_MSG_CREDIT:
		return on_credit(pt, pc, body, blen);
	default:
		errno = EPROTO;
		return -1;
	}
}

/*
 * Read and handle what a connection has.  Returns 0, or -1 when the
 * connection must be closed (errno says why).
 */
static int
conn_read(struct ft_pt *pt, struct pconn *pc)
{
	const uint8_t *body, *p;
	struct ft_hdr h;
	size_t avail, n, fixed;
	ssize_t got;
	int rc;

	/*
	 * Go on until the socket is drained and nothing whole is buffered:
	 * poll(2) only reports the socket, not what already sits in ibuf.
	 */
	for (;;) {
		avail = ft_conn_avail(&pc->c);
		if (pc->phase == RD_PAYLOAD) {
			if (pc->left == 0 && pc->skip == 0) {
				if (payload_done(pt, pc) != 0)
					return -1;
				continue;
			}
			if (avail > 0) {
				p = pc->c.ibuf + pc->c.ibeg;
				n = avail < pc->left ? avail : pc->left;
				if (n > 0) {
					memcpy(pc->dst, p, n);
					pc->dst += n;
					pc->left -= n;
				} else {
					n = avail < pc->skip ? avail :
					    pc->skip;
					pc->skip -= n;
				}
				pc->c.ibeg += n;
				continue;
			}
			if (pc->left >= DIRECT_MIN) {
				got = recv(pc->c.fd, pc->dst, pc->left,
				    MSG_DONTWAIT);
				if (got > 0) {
					pc->dst += got;
					pc->left -= (size_t)got;
					continue;
				}
				if (got == 0) {
					pc->c.eof = 1;
					errno = ECONNRESET;
					return -1;
				}
				if (errno == EAGAIN)
					return 0;
				if (errno == EINTR)
					continue;
				return -1;
			}
		} else if (avail >= FT_WIRE_HDRLEN) {
			if (ft_hdr_decode(pc->c.ibuf + pc->c.ibeg, &h) != 0)
				return -1;
			if (pc->c.hs == FT_HS_READY && h.sender != pc->c.peer) {
				errno = EPROTO;
				return -1;
			}
			fixed = 0;
			if (pc->c.hs == FT_HS_READY && h.type == FT_MSG_EAGER)
				fixed = FT_EAGER_FIXED;
			else if (pc->c.hs == FT_HS_READY &&
			    h.type == FT_MSG_RDATA)
				fixed = FT_RDATA_FIXED;
			if (fixed > 0) {
				if (h.len < FT_WIRE_HDRLEN + fixed) {
					errno = EPROTO;
					return -1;
				}
				if (avail >= FT_WIRE_HDRLEN + fixed) {
					p = pc->c.ibuf + pc->c.ibeg +
					    FT_WIRE_HDRLEN;
					pc->c.ibeg += FT_WIRE_HDRLEN + fixed;
					rc = h.type == FT_MSG_EAGER ?
					    on_eager(pt, pc, &h, p) :
					    on_rdata(pt, pc, &h, p);
					if (rc != 0)
						return -1;
					continue;
				}
			} else {
				rc = ft_conn_frame(&pc->c, &h, &body);
				if (rc < 0)
					return -1;
				if (rc == 1) {
					if (pc->c.hs != FT_HS_READY) {
						if (ft_conn_handshake(&pc->c,
						    &h, body) < 0)
							return -1;
						if (pc->c.hs == FT_HS_READY &&
						    (pc->outgoing ?
						    pc->c.peer != pc->dialed :
						    (pc->c.peer >= pt->size ||
						    pc->c.peer_role !=
						    FT_ROLE_RANK))) {
							errno = EPROTO;
							return -1;
						}
						(void)ft_conn_flush(&pc->c);
					} else if (on_frame(pt, pc, &h,
					    body) != 0)
						return -1;
					continue;
				}
			}
		}
		got = ft_conn_fill(&pc->c);
		if (got < 0)
			return -1;
		if (got == 0)
			return 0;
	}
}

static void
conn_close(struct ft_pt *pt, struct pconn *pc, const char *why)
{
	uint32_t peer = pc->outgoing ? pc->dialed : pc->c.peer;

	if (pc->closed)
		return;
	pc->closed = 1;
	if (pc->outgoing && pc->c.hs != FT_HS_READY)
		ft_warnx("unable to connect to rank %u: %s", peer,
		    why != NULL ? why : "closed during the handshake");
	else if (pc->c.hs != FT_HS_READY)
		ft_warnx("refused a connection: %s",
		    pc->c.hs == FT_HS_FAILED && errno == EACCES ?
		    "wrong job key" : why != NULL ? why :
		    "closed during the handshake");
	else if (why != NULL && !pc->c.eof)
		ft_warnx("dropped the connection with rank %u: %s", peer, why);
	if ((pc->c.hs == FT_HS_READY || pc->outgoing) && peer < pt->size) {
		pt->peers[peer].gone = 1;
		if (pt->peers[peer].out == pc)
			pt->peers[peer].out = NULL;
	}
	/* A message cut short by the close is lost with its sender. */
	if (pc->ux != NULL) {
		free(pc->ux->data);
		free(pc->ux);
		pc->ux = NULL;
	}
	if (pc->req != NULL) {
		pc->req->st.error = ECONNRESET;
		pc->req = NULL;
	}
	close(pc->c.fd);
	pc->c.fd = -1;
}

static void
accept_all(struct ft_pt *pt, int lfd)
{
	struct pconn *pc;
	int fd;

	while ((fd = ft_net_accept(lfd)) != -1) {
		if ((pc = calloc(1, sizeof(*pc))) == NULL) {
			close(fd);
			return;
		}
		if (ft_conn_accepted(&pc->c, fd, pt->key, pt->rank) != 0 ||
		    conn_add(pt, pc) != 0) {
			ft_conn_release(&pc->c);
			free(pc);
			return;
		}
		pc->c.peer = FT_WIRE_LAUNCHER;
	}
}

static void
ctl_read(struct ft_pt *pt)
{
	struct pconn *pc = pt->ctl;
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc;

	for (;;) {
		while ((rc = ft_conn_frame(&pc->c, &h, &body)) == 1)
			pt->on_ctl(pt->ctl_arg, &h, body);
		if (rc < 0 || (got = ft_conn_fill(&pc->c)) < 0) {
			pc->closed = 1;
			pt->on_ctl(pt->ctl_arg, NULL, NULL);
			return;
		}
		if (got == 0)
			return;
	}
}

/* Drop closed connections from the array. */
static void
reap(struct ft_pt *pt)
{
	size_t i, j;

	for (i = j = 0; i < pt->nconns; i++) {
		if (pt->conns[i]->closed) {
			ft_conn_release(&pt->conns[i]->c);
			free(pt->conns[i]);
		} else
			pt->conns[j++] = pt->conns[i];
	}
	pt->nconns = j;
}

int
ft_pt_progress(struct ft_pt *pt, int timeout_ms)
{
	struct pollfd *np;
	struct pconn **npc;
	size_t n = 0, need = pt->nconns + 3, i;
	int rc, dead = 0;

	if (need > pt->cappfd) {
		if ((np = reallocarray(pt->pfd, need, sizeof(*np))) == NULL)
			return -1;
		pt->pfd = np;
		if ((npc = reallocarray(pt->pfdconn, need, sizeof(*npc))) ==
		    NULL)
			return -1;
		pt->pfdconn = npc;
		pt->cappfd = need;
	}
	if (pt->lfd_unix != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_unix, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
	}
	if (pt->lfd_tcp != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_tcp, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
	}
	if (pt->ctl != NULL && !pt->ctl->closed) {
		pt->pfd[n] = (struct pollfd){ pt->ctl->c.fd, POLLIN |
		    (ft_conn_want_write(&pt->ctl->c) ? POLLOUT : 0), 0 };
		pt->pfdconn[n++] = pt->ctl;
	}
	for (i = 0; i < pt->nconns; i++) {
		struct pconn *pc = pt->conns[i];

		pt->pfd[n] = (struct pollfd){ pc->c.fd, POLLIN |
		    (ft_conn_want_write(&pc->c) ? POLLOUT : 0), 0 };
		pt->pfdconn[n++] = pc;
	}
	rc = poll(pt->pfd, (nfds_t)n, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -1;
	for (i = 0; i < n && rc > 0; i++) {
		struct pconn *pc = pt->pfdconn[i];
		short re = pt->pfd[i].revents;

		if (re == 0)
			continue;
		rc--;
		if (pc == NULL) {
			accept_all(pt, pt->pfd[i].fd);
			continue;
		}
		if (pc == pt->ctl) {
			if (re & POLLOUT)
				(void)ft_conn_flush(&pc->c);
			if (re & (POLLIN | POLLHUP | POLLERR))
				ctl_read(pt);
			continue;
		}
		if ((re & (POLLOUT | POLLERR)) && ft_conn_flush(&pc->c) != 0) {
			conn_close(pt, pc, strerror(errno));
			dead = 1;
			continue;
		}
		if ((re & (POLLIN | POLLHUP | POLLERR)) &&
		    conn_read(pt, pc) != 0) {
			conn_close(pt, pc, pc->c.eof ? NULL : strerror(errno));
			dead = 1;
			continue;
		}
		/* The handshake may have queued its answer. */
		if (ft_conn_want_write(&pc->c))
			(void)ft_conn_flush(&pc->c);
	}
	if (dead)
		reap(pt);
	return 0;
}

int
ft_pt_busy(const struct ft_pt *pt)
{
	size_t i;

	if (pt->rdv_pending > 0)
		return 1;
	for (i = 0; i < pt->nconns; i++)
		if (!pt->conns[i]->closed &&
		    ft_conn_want_write(&pt->conns[i]->c))
			return 1;
	return 0;
}
