/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: sends.  ft_pt_isend, eager within the receiver's
 * window or by rendezvous (RTS, then the data once CTS comes), the
 * slots that rendezvous requests wait in, the credit owed for eager
 * messages matched, the CTS a matched RTS gets, and streaming a
 * rendezvous payload straight from the send buffer.
 */
#include "pt2pt_impl.h"

uint64_t
ft__pt_slot_add(struct ft_pt *pt, struct ft_req *r)
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

void
ft__pt_slot_del(struct ft_pt *pt, struct ft_req *r)
{
	uint32_t idx = (uint32_t)r->id;

	if (r->id == 0 || ft__pt_slot_find(pt, r->id) != r)
		return;
	pt->slots[idx].req = NULL;
	pt->slots[idx].gen++;
	if (pt->slots[idx].gen == 0)
		pt->slots[idx].gen = 1;
	pt->freeslots[pt->nfree++] = idx;
	pt->rdv_pending--;
	r->id = 0;
}

/* May len bytes in this mode go eagerly to process q (window left)? */
int
ft__pt_eager_fits(const struct ft_pt *pt, uint32_t q, size_t len, int mode)
{
	return len <= FT_PT_EAGER_MAX && mode != FT_SEND_SYNC &&
	    pt->procs[q].eager_out + len + FT_PT_EAGER_COST <=
	    FT_PT_EAGER_WINDOW;
}

/*
 * Send m eagerly to process q over pc: its bytes count against q's
 * window, and m->buf is free when the call returns.  0, or -1 with
 * errno.
 */
int
ft__pt_eager_send(struct ft_pt *pt, struct pconn *pc, uint32_t q,
    const struct ft_msg *m)
{
	uint8_t prefix[FT_WIRE_HDRLEN + FT_EAGER_FIXED + FT_EAGER_CLOCK];
	struct ft_msg_eager eg = { m->ctx, m->csrc, m->tag, m->seq,
	    m->clock };

	if (ft_msg_eager_cprefix(prefix, pt->self, &eg, m->len) != 0)
		return -1;
	pt->procs[q].eager_out += m->len + FT_PT_EAGER_COST;
	return ft_conn_send2(&pc->c, prefix,
	    FT_WIRE_HDRLEN + ft_msg_eager_fixed(&eg), m->buf, m->len);
}

/* A send to ourselves: match now, or queue as unexpected. */
static int
send_self(struct ft_pt *pt, struct ft_req *s, uint32_t ctx, uint32_t src,
    int tag, uint64_t seq)
{
	struct mctx *m;
	struct ft_req *r;
	struct unexp *u;

	if ((m = ft__pt_mctx_get(pt, ctx)) == NULL)
		return -1;
	if ((r = ft__pt_posted_take(m, src, tag)) != NULL) {
		ft__pt_recv_matched(r, src, tag, s->len);
		ft__pt_matched(pt, r, src, pt->rank, seq, pt->self);
		if (r->st.bytes > 0)
			memcpy(r->buf, s->sbuf, r->st.bytes);
		ft__pt_deliver(pt, r, pt->rank, seq);
		ft__pt_req_complete(pt, s);
		return 0;
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->src = src;
	u->wsrc = pt->rank;
	u->proc = pt->self;
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
		ft__pt_ux_append(m, u);
		ft__pt_req_complete(pt, s);
		return 0;
	}
	u->kind = UX_SELF;
	u->self = s;
	ft__pt_ux_append(m, u);
	return 0;
}

int
ft_pt_isend(struct ft_pt *pt, struct ft_req *r, const void *buf, size_t len,
    uint32_t dst, uint32_t ctx, uint32_t src, int tag, int mode)
{
	struct ft_msg_rts rts;
	struct ft_wbuf wb;
	struct ft_msg m;
	struct pconn *pc;
	uint64_t seq;
	uint32_t q;
	int rc;

	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_SEND;
	r->sbuf = buf;
	r->len = len;
	r->dst = dst;
	r->ctx = ctx;
	r->mode = mode;
	r->tag = tag;
	if (dst >= pt->size && (pt->ppr != 1 ||
	    ft__pt_await_proc(pt, dst) != 0)) {
		errno = EINVAL;
		return -1;
	}
	seq = pt->sseq[dst]++;
	m = (struct ft_msg){ ctx, pt->rank, dst, tag, seq, buf, len, src, mode,
	    pt->self, r, 0, 0 };
	if ((rc = ft_proto_send(&pt->proto, &m)) != 0)
		return rc < 0 ? -1 : 0;	/* 1: the protocol took it */
	if (pt->fails && (rc = ft__pt_ctx_failed(pt, ctx)) != 0)
		return ft__pt_req_fail(pt, r, rc);
	if (dst == pt->rank)
		return send_self(pt, r, ctx, src, tag, seq);
	/* Without a route from the protocol, a rank is its first process. */
	q = dst * pt->ppr;
	if ((pc = ft__pt_peer_conn(pt, q)) == NULL)
		return pt->fails && errno != ENOMEM ?
		    ft__pt_req_fail(pt, r, ECONNRESET) : -1;
	if (ft__pt_eager_fits(pt, q, len, mode)) {
		if (ft__pt_eager_send(pt, pc, q, &m) != 0)
			return pt->fails && errno != ENOMEM ?
			    ft__pt_req_fail(pt, r, ECONNRESET) : -1;
		/* FT_PROTO_FAILS: a process may die right after its send
		 * completes; bytes still queued here (a handshake under way)
		 * would die with it.  Complete once the kernel has them. */
		if (pt->fails && pc->c.oq_tail != NULL &&
		    pc->c.oq_tail->done == NULL) {
			pc->c.oq_tail->done = ft__pt_rdata_sent;
			pc->c.oq_tail->arg = r;
			return 0;
		}
		ft__pt_req_complete(pt, r);
		return 0;
	}
	if (ft__pt_slot_add(pt, r) == 0)
		return -1;
	rts = (struct ft_msg_rts){ ctx, src, tag, seq, len, r->id, m.clock };
	ft_wbuf_init(&wb);
	rc = ft_msg_rts_encode(&wb, pt->self,
	    mode == FT_SEND_SYNC ? FT_FLAG_SYNC : 0, &rts);
	if (rc == 0 && (rc = ft_conn_queue_copy(&pc->c, wb.p, wb.len)) != 0 &&
	    pt->fails && errno != ENOMEM)
		rc = 1;		/* the peer is gone (EPIPE) */
	ft_wbuf_release(&wb);
	if (rc != 0) {
		ft__pt_slot_del(pt, r);
		/* FT_PROTO_FAILS: that fails the request, as for an eager
		 * send, not the call. */
		return rc > 0 ? ft__pt_req_fail(pt, r, ECONNRESET) : -1;
	}
	return 0;
}

/*
 * An eager message from world rank wsrc was matched: its bytes count
 * towards the credit we owe wsrc, paid once a quarter window is due.
 * Best effort: a peer we cannot reach any more needs no credit.
 */
void
ft__pt_eager_matched(struct ft_pt *pt, uint32_t proc, size_t len)
{
	struct ft_msg_credit cr;
	struct proc *p = &pt->procs[proc];
	struct ft_wbuf wb;
	struct pconn *pc;

	if (proc == pt->self)
		return;
	p->eager_in += len + FT_PT_EAGER_COST;
	if (p->eager_in < FT_PT_EAGER_WINDOW / 4 || p->gone ||
	    (pc = ft__pt_peer_conn(pt, proc)) == NULL)
		return;
	/* Opening the connection may have grown the table. */
	p = &pt->procs[proc];
	cr.bytes = p->eager_in;
	ft_wbuf_init(&wb);
	if (ft_msg_credit_encode(&wb, pt->self, &cr) == 0 &&
	    ft_conn_queue_copy(&pc->c, wb.p, wb.len) == 0)
		p->eager_in = 0;
	ft_wbuf_release(&wb);
}

/*
 * Complete receive r, already matched, with the unexpected eager message
 * u (whose buffer the caller frees), and owe its sender the credit.
 */
void
ft__pt_ux_eager_deliver(struct ft_pt *pt, struct ft_req *r,
    const struct unexp *u)
{
	if (r->st.bytes > 0)
		memcpy(r->buf, u->data, r->st.bytes);
	ft__pt_deliver(pt, r, u->wsrc, u->seq);
	ft__pt_eager_matched(pt, u->proc, u->len);
}

/* Answer an RTS that a receive matched: register it and send CTS. */
int
ft__pt_send_cts(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc,
    uint64_t sreq, uint64_t seq)
{
	struct ft_msg_cts cts;
	struct ft_wbuf wb;
	struct pconn *pc;
	int rc;

	if (ft__pt_slot_add(pt, r) == 0)
		return -1;
	r->seq = seq;
	r->peer = wsrc;
	/* A dead sender's message comes again from another process. */
	if (pt->resends && pt->procs[wsrc].gone)
		return 0;
	if ((pc = ft__pt_peer_conn(pt, wsrc)) == NULL) {
		if (pt->resends && errno != ENOMEM)
			return 0;	/* dead, not yet in a view: as above */
		ft__pt_slot_del(pt, r);
		return -1;
	}
	cts.sreq = sreq;
	cts.rreq = r->id;
	ft_wbuf_init(&wb);
	rc = ft_msg_cts_encode(&wb, pt->self, &cts);
	if (rc == 0)
		rc = ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
	if (rc != 0 && pt->resends && errno != ENOMEM) {
		/* The sender died: another process sends the RTS again. */
		ft__pt_conn_close(pt, pc, NULL);
		pt->reap_due = 1;
		rc = 0;
	}
	if (rc != 0) {
		ft__pt_slot_del(pt, r);
		return -1;
	}
	/* Nothing follows a CTS for an empty message. */
	if (r->st.msglen == 0)
		ft__pt_deliver(pt, r, ft__pt_rank_of(pt, wsrc), seq);
	return 0;
}

void
ft__pt_rdata_sent(void *arg)
{
	struct ft_req *r = arg;

	r->done = 1;
	if (r->on_done != NULL)
		r->on_done(r);
}

/* Marks every chunk of a multi-send's stream, so it can be rebased. */
static void
chunk_mark(void *arg)
{
	(void)arg;
}

/* The frame bytes stream_data sends for len bytes of data. */
uint64_t
ft__pt_stream_bytes(size_t len)
{
	uint64_t chunks = (len + FT_WIRE_CHUNK - 1) / FT_WIRE_CHUNK;

	return len + chunks * (FT_WIRE_HDRLEN + FT_RDATA_FIXED);
}

/*
 * Stream a rendezvous payload to one process; done(arg) once it is all
 * written.  With mark, every chunk carries arg (ft_conn_rebase).
 */
int
ft__pt_stream_data(struct ft_pt *pt, struct pconn *out, uint64_t rreq,
    const uint8_t *sbuf, size_t len, void (*done)(void *), void *arg,
    int mark)
{
	uint8_t prefix[FT_WIRE_HDRLEN + FT_RDATA_FIXED];
	struct ft_msg_rdata rd;
	size_t off, n;

	if (len == 0) {
		done(arg);
		return 0;
	}
	/*
	 * The last chunk may be written at once, and its completion may
	 * free what arg points to (a buffered send's request): read
	 * nothing from it after.
	 */
	for (off = 0; off < len; off += n) {
		n = len - off < FT_WIRE_CHUNK ? len - off : FT_WIRE_CHUNK;
		rd.rreq = rreq;
		rd.offset = off;
		if (ft_msg_rdata_prefix(prefix, pt->self, &rd, n) != 0 ||
		    ft_conn_queue_copy(&out->c, prefix, sizeof(prefix)) != 0 ||
		    ft_conn_queue_ref(&out->c, sbuf + off, n,
		    off + n == len ? done : mark ? chunk_mark : NULL,
		    arg) != 0)
			return -1;
	}
	return 0;
}
