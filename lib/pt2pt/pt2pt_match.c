/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: matching.  The posted receives and the unexpected
 * messages of each communicator context, in order; receives, probes,
 * matched probes and cancels; a whole message handed to the protocol's
 * arrive hook, and what it releases or drops as a duplicate.
 */
#include "pt2pt_impl.h"

static int
matches(const struct ft_req *r, uint32_t src, int32_t tag)
{
	return (r->src == FT_PT_ANY || (uint32_t)r->src == src) &&
	    (r->tag == FT_PT_ANY || r->tag == tag);
}

/* Take posted receive r off m's queue. */
void
ft__pt_posted_unlink(struct mctx *m, struct ft_req *r)
{
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
}

/*
 * Take the first posted receive matching src and tag.  An ANY_SOURCE
 * receive whose source the protocol has yet to settle (held) may be the
 * one this message is for: a message its tag allows stops there,
 * unexpected, until core->resolve.
 */
struct ft_req *
ft__pt_posted_take(struct mctx *m, uint32_t src, int32_t tag)
{
	struct ft_req *r;

	for (r = m->posted_head; r != NULL; r = r->next) {
		if (r->held) {
			if (r->tag == FT_PT_ANY || r->tag == tag)
				return NULL;
			continue;
		}
		if (matches(r, src, tag))
			break;
	}
	if (r == NULL)
		return NULL;
	ft__pt_posted_unlink(m, r);
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

/* Unlink u, which follows prev (NULL: u is first), from m's queue. */
static void
ux_unlink(struct mctx *m, struct unexp *u, struct unexp *prev)
{
	if (prev != NULL)
		prev->next = u->next;
	else
		m->ux_head = u->next;
	if (m->ux_tail == u)
		m->ux_tail = prev;
	u->next = NULL;
}

/*
 * Take the first unexpected message matching src and tag.  A claimed
 * message stays in the queue (a duplicate of it must still find it)
 * but matches nothing.
 */
static struct unexp *
ux_take(struct mctx *m, int src, int tag, int remove)
{
	struct unexp *u, *prev = NULL;

	for (u = m->ux_head; u != NULL; prev = u, u = u->next)
		if (!u->claimed &&
		    (src == FT_PT_ANY || (uint32_t)src == u->src) &&
		    (tag == FT_PT_ANY || tag == u->tag))
			break;
	if (u != NULL && remove)
		ux_unlink(m, u, prev);
	return u;
}

/*
 * Receive r matched the message (src in the communicator, world rank
 * wsrc, number seq) from process proc: its source is fixed.
 */
void
ft__pt_matched(struct ft_pt *pt, struct ft_req *r, uint32_t src, uint32_t wsrc,
    uint64_t seq, uint32_t proc)
{
	struct ft_msg m;

	if (pt->proto.ops->match == NULL)
		return;
	memset(&m, 0, sizeof(m));
	m.ctx = r->ctx;
	m.src = wsrc;
	m.dst = pt->rank;
	m.tag = r->st.tag;
	m.seq = seq;
	m.len = r->st.msglen;
	m.csrc = src;
	m.proc = proc;
	pt->proto.ops->match(&pt->proto, &m, r->rtag);
	r->rtag = 0;
}

void
ft__pt_deliver(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc, uint64_t seq)
{
	struct ft_msg m = { .ctx = r->ctx, .src = wsrc, .dst = pt->rank,
	    .tag = r->st.tag, .seq = seq, .buf = r->buf, .len = r->st.bytes,
	    .csrc = (uint32_t)r->st.source, .proc = r->peer };

	r->seq = seq;
	(void)ft_proto_deliver(&pt->proto, &m);
	ft__pt_req_complete(pt, r);
}

/*
 * Complete receive r, just matched, with the unexpected message u, and
 * free u.
 */
int
ft__pt_take_ux(struct ft_pt *pt, struct ft_req *r, struct unexp *u)
{
	struct ft_req *s;
	int rc = 0;

	ft__pt_recv_matched(r, u->src, u->tag, u->len);
	ft__pt_matched(pt, r, u->src, u->wsrc, u->seq, u->proc);
	switch (u->kind) {
	case UX_EAGER:
		ft__pt_ux_eager_deliver(pt, r, u);
		break;
	case UX_SELF:
		s = u->self;
		if (r->st.bytes > 0)
			memcpy(r->buf, s->sbuf, r->st.bytes);
		ft__pt_deliver(pt, r, u->wsrc, u->seq);
		ft__pt_req_complete(pt, s);
		break;
	case UX_RTS:
		rc = ft__pt_send_cts(pt, r, u->proc, u->sreq, u->seq);
		break;
	}
	ft_buf_put(u->data, u->pooled);
	free(u);
	return rc;
}

/*
 * Match the unexpected messages of m, in arrival order, against the
 * posted receives, as if they arrived now: after a held ANY_SOURCE
 * receive learns its source, or behind one still held.
 */
int
ft__pt_rematch(struct ft_pt *pt, struct mctx *m)
{
	struct unexp *u, *prev = NULL, *next;
	struct ft_req *r;

	for (u = m->ux_head; u != NULL; u = next) {
		next = u->next;
		if (u->claimed ||
		    (r = ft__pt_posted_take(m, u->src, u->tag)) == NULL) {
			prev = u;
			continue;
		}
		ux_unlink(m, u, prev);
		if (ft__pt_take_ux(pt, r, u) != 0)
			return -1;
	}
	return 0;
}

/* Set up receive r (the caller's on_done and user stay). */
static void
recv_init(struct ft_req *r, void *buf, size_t cap, int src, int tag,
    uint32_t ctx)
{
	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_RECV;
	r->wsrc = UINT32_MAX;
	r->buf = buf;
	r->cap = cap;
	r->src = src;
	r->tag = tag;
	r->ctx = ctx;
}

int
ft_pt_irecv(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    int src, int tag, uint32_t ctx)
{
	return ft_pt_irecv_from(pt, r, buf, cap, src, UINT32_MAX, tag, ctx);
}

int
ft_pt_irecv_from(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    int src, uint32_t wsrc, int tag, uint32_t ctx)
{
	struct mctx *m;
	struct unexp *u;
	int rc;

	recv_init(r, buf, cap, src, tag, ctx);
	r->wsrc = src == FT_PT_ANY ? UINT32_MAX : wsrc;
	if ((m = ft__pt_mctx_get(pt, ctx)) == NULL)
		return -1;
	if (pt->fails && m->fail != 0)
		return ft__pt_req_fail(pt, r, m->fail);
	if (src == FT_PT_ANY && pt->proto.ops->recv_any != NULL) {
		rc = pt->proto.ops->recv_any(&pt->proto, r, &r->rtag);
		if (rc == FT_RECV_WAIT) {
			/* The protocol settles the source: core->resolve. */
			r->held = 1;
			m->nheld++;
			posted_append(m, r);
			return 0;
		}
		r->src = rc >= 0 ? rc : FT_PT_ANY;
	}
	if (m->nheld > 0) {
		/* Behind a held receive: match in posting order. */
		posted_append(m, r);
		return ft__pt_rematch(pt, m);
	}
	if ((u = ux_take(m, r->src, tag, 1)) == NULL) {
		/* Nothing it sent is here, and nothing more will come. */
		if (pt->fails && r->wsrc < pt->nproc &&
		    pt->procs[r->wsrc].vgone)
			return ft__pt_req_fail(pt, r, ECONNRESET);
		posted_append(m, r);
		return 0;
	}
	return ft__pt_take_ux(pt, r, u);
}

int
ft_pt_iprobe(struct ft_pt *pt, int src, int tag, uint32_t ctx,
    struct ft_pt_status *st)
{
	struct mctx *m;
	struct unexp *u;

	if ((m = ft__pt_mctx_get(pt, ctx)) == NULL ||
	    (u = ux_take(m, src, tag, 0)) == NULL)
		return 0;
	memset(st, 0, sizeof(*st));
	st->source = (int)u->src;
	st->tag = u->tag;
	st->msglen = st->bytes = u->len;
	return 1;
}

/*
 * Could a receive posted before now take u?  Only behind a held
 * receive: otherwise u would have matched it when it came.  A held
 * receive may take whatever its tag allows, from any source.
 */
static int
ux_reserved(const struct mctx *m, const struct unexp *u)
{
	const struct ft_req *r;

	if (m->nheld == 0)
		return 0;
	for (r = m->posted_head; r != NULL; r = r->next)
		if (r->held ? r->tag == FT_PT_ANY || r->tag == u->tag :
		    matches(r, u->src, u->tag))
			return 1;
	return 0;
}

int
ft_pt_improbe(struct ft_pt *pt, int src, int tag, uint32_t ctx,
    struct ft_pt_status *st, void **msg)
{
	struct mctx *m;
	struct unexp *u;

	if ((m = ft__pt_mctx_get(pt, ctx)) == NULL ||
	    (u = ux_take(m, src, tag, 0)) == NULL || ux_reserved(m, u))
		return 0;
	u->claimed = 1;
	u->ctx = ctx;	/* a send to ourselves did not say */
	memset(st, 0, sizeof(*st));
	st->source = (int)u->src;
	st->tag = u->tag;
	st->msglen = st->bytes = u->len;
	*msg = u;
	return 1;
}

int
ft_pt_mrecv(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    void *msg)
{
	struct unexp *u, *prev = NULL, *claim = msg;
	struct mctx *m;

	recv_init(r, buf, cap, (int)claim->src, claim->tag, claim->ctx);
	if ((m = ft__pt_mctx_get(pt, claim->ctx)) == NULL)
		return -1;
	for (u = m->ux_head; u != claim; prev = u, u = u->next)
		if (u == NULL) {
			errno = EINVAL;
			return -1;
		}
	ux_unlink(m, u, prev);
	return ft__pt_take_ux(pt, r, u);
}

int
ft_pt_cancel(struct ft_pt *pt, struct ft_req *r)
{
	struct mctx *m;
	int held;

	if (r->kind != FT_REQ_RECV || !r->posted ||
	    (m = ft__pt_mctx_get(pt, r->ctx)) == NULL)
		return 0;
	if ((held = r->held)) {
		r->held = 0;
		m->nheld--;
	}
	if (r->rtag != 0 && pt->proto.ops->recv_cancel != NULL)
		pt->proto.ops->recv_cancel(&pt->proto, r);
	ft__pt_posted_unlink(m, r);
	r->st.cancelled = 1;
	r->st.source = FT_PT_ANY;
	r->st.tag = FT_PT_ANY;
	ft__pt_req_complete(pt, r);
	/* What it held back goes to the receives posted behind it. */
	if (held)
		(void)ft__pt_rematch(pt, m);
	return 1;
}

/*
 * A whole message from process u->proc: the protocol says whether it is
 * matched now, held, or a duplicate.
 */
int
ft__pt_arrive(struct ft_pt *pt, struct unexp *u)
{
	struct ft_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.ctx = u->ctx;
	m.src = u->wsrc;
	m.dst = pt->rank;
	m.tag = u->tag;
	m.seq = u->seq;
	m.buf = u->data;
	m.len = u->len;
	m.csrc = u->src;
	m.proc = u->proc;
	m.flags = u->kind == UX_RTS ? FT_MSGF_RTS : 0;
	m.clock = u->clock;
	rc = pt->proto.ops->arrive(&pt->proto, &m, u);
	switch (rc) {
	case FT_ARRIVE_MATCH:
		return ft__pt_core_release(pt, u);
	case FT_ARRIVE_HELD:
		return 0;
	case FT_ARRIVE_DUP:
		ft__pt_dup_drop(pt, u);
		return 0;
	default:
		return -1;	/* the protocol consumed u */
	}
}

/* Match a whole message that is next in its sender's order. */
int
ft__pt_core_release(void *core, void *handle)
{
	struct ft_pt *pt = core;
	struct unexp *u = handle;
	struct mctx *m;
	struct ft_req *r;

	if ((m = ft__pt_mctx_get(pt, u->ctx)) == NULL) {
		ft_buf_put(u->data, u->pooled);
		free(u);
		return -1;
	}
	if ((r = ft__pt_posted_take(m, u->src, u->tag)) == NULL) {
		ft__pt_ux_append(m, u);
		return 0;
	}
	return ft__pt_take_ux(pt, r, u);
}

/*
 * A message we already have came again (from another process of its
 * rank).  An RTS is answered: a receive still waiting for the data of
 * its first copy takes the data from the new sender; otherwise CTS 0
 * tells the sender it is not needed.
 */
void
ft__pt_dup_drop(struct ft_pt *pt, struct unexp *u)
{
	struct ft_msg_cts cts = { u->sreq, 0 };
	struct ft_wbuf wb;
	struct pconn *pc;
	struct ft_req *r;
	struct unexp *x;
	struct mctx *m;
	size_t i;

	if (pt->freeing)
		goto out;
	if (u->kind == UX_EAGER)
		ft__pt_eager_matched(pt, u->proc, u->len);
	if (u->kind != UX_RTS)
		goto out;
	for (i = 0; i < pt->nslots; i++) {
		r = pt->slots[i].req;
		if (r == NULL || r->kind != FT_REQ_RECV ||
		    ft__pt_rank_of(pt, r->peer) != u->wsrc || r->seq != u->seq)
			continue;
		r->peer = u->proc;
		r->got = 0;
		cts.rreq = r->id;
		break;
	}
	if (cts.rreq == 0 && (m = ft__pt_mctx_get(pt, u->ctx)) != NULL)
		for (x = m->ux_head; x != NULL; x = x->next)
			if (x->kind == UX_RTS && x->wsrc == u->wsrc &&
			    x->seq == u->seq) {
				/* Not matched yet: CTS goes to the new one. */
				x->proc = u->proc;
				x->sreq = u->sreq;
				goto out;
			}
	if ((pc = ft__pt_peer_conn(pt, u->proc)) == NULL)
		goto out;
	ft_wbuf_init(&wb);
	if (ft_msg_cts_encode(&wb, pt->self, &cts) == 0)
		(void)ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
out:
	ft_buf_put(u->data, u->pooled);
	free(u);
}
