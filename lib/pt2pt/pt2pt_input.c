/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: frames in.  Reading a rank connection (the
 * handshake, then frames), an EAGER or RDATA payload read straight into
 * the receive buffer when it can be, and what each frame does: RTS,
 * CTS, CREDIT, ACK, and the protocol's own.
 */
#include "pt2pt_impl.h"

/* Below this, payload bytes go through the input buffer. */
#define DIRECT_MIN	(16u << 10)

/* A CTS came back: stream the data straight from the send buffer. */
static int
on_cts(struct ft_pt *pt, struct pconn *pc, const uint8_t *body, size_t blen)
{
	struct ft_msg_cts cts;
	struct ft_req *r;
	struct pconn *out;

	if (ft_msg_cts_decode(body, blen, &cts) != 0)
		return -1;
	r = ft__pt_slot_find(pt, cts.sreq);
	if ((r != NULL && r->multi) || (r == NULL && pt->resends))
		return ft__pt_multi_on_cts(pt, pc, &cts);
	/* A send that failed (revoked) while its CTS was on the way. */
	if (r == NULL && pt->fails)
		return 0;
	if (r == NULL || r->kind != FT_REQ_SEND ||
	    r->dst * pt->ppr != pc->c.peer) {
		errno = EPROTO;
		return -1;
	}
	ft__pt_slot_del(pt, r);
	if ((out = ft__pt_peer_conn(pt, pc->c.peer)) == NULL)
		return -1;
	return ft__pt_stream_data(pt, out, cts.rreq, r->sbuf, r->len,
	    ft__pt_rdata_sent, r, 0);
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
	if ((m = ft__pt_mctx_get(pt, rts.ctx)) == NULL)
		return -1;
	if (pt->proto.ops->arrive == NULL &&
	    (r = ft__pt_posted_take(m, rts.src, rts.tag)) != NULL) {
		ft__pt_recv_matched(r, rts.src, rts.tag, rts.size);
		ft__pt_matched(pt, r, rts.src, ft__pt_rank_of(pt, pc->c.peer),
		    rts.seq, pc->c.peer);
		return ft__pt_send_cts(pt, r, pc->c.peer, rts.sreq, rts.seq);
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_RTS;
	u->src = rts.src;
	u->wsrc = ft__pt_rank_of(pt, pc->c.peer);
	u->proc = pc->c.peer;
	u->ctx = rts.ctx;
	u->tag = rts.tag;
	u->seq = rts.seq;
	u->len = rts.size;
	u->sreq = rts.sreq;
	u->clock = rts.clock;
	if (pt->proto.ops->arrive != NULL)
		return ft__pt_arrive(pt, u);
	ft__pt_ux_append(m, u);
	return 0;
}

/* An EAGER header is in: decide where its payload goes. */
static int
on_eager(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *fixed)
{
	struct ft_msg_eager eg;
	struct ft_req *r;
	struct unexp *u;
	struct mctx *m;
	size_t len;

	if (ft_msg_eager_cdecode(fixed, h->len - FT_WIRE_HDRLEN, h->flags,
	    &eg) != 0)
		return -1;
	len = h->len - FT_WIRE_HDRLEN - ft_msg_eager_fixed(&eg);
	if ((m = ft__pt_mctx_get(pt, eg.ctx)) == NULL)
		return -1;
	pc->phase = RD_PAYLOAD;
	pc->wsrc = ft__pt_rank_of(pt, pc->c.peer);
	pc->req = NULL;
	pc->ux = NULL;
	/* Under a protocol that sees arrivals, a message is matched only
	 * once it is whole: a copy cut short by its sender's death must
	 * not have taken a receive. */
	if (pt->proto.ops->arrive == NULL &&
	    (r = ft__pt_posted_take(m, eg.src, eg.tag)) != NULL) {
		ft__pt_recv_matched(r, eg.src, eg.tag, len);
		ft__pt_matched(pt, r, eg.src, pc->wsrc, eg.seq, pc->c.peer);
		r->seq = eg.seq;
		pc->req = r;
		pc->dst = r->buf;
		pc->left = r->st.bytes;
		pc->skip = len - r->st.bytes;
		ft__pt_eager_matched(pt, pc->c.peer, len);
		return 0;
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_EAGER;
	u->src = eg.src;
	u->wsrc = ft__pt_rank_of(pt, pc->c.peer);
	u->proc = pc->c.peer;
	u->ctx = eg.ctx;
	u->tag = eg.tag;
	u->seq = eg.seq;
	u->len = len;
	u->clock = eg.clock;
	if (len > 0 && (u->data = ft_buf_get(len, &u->pooled)) == NULL) {
		free(u);
		return -1;
	}
	pc->ux = u;
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
	r = ft__pt_slot_find(pt, rd.rreq);
	if ((pt->resends && (r == NULL || r->peer != pc->c.peer)) ||
	    (pt->fails && r == NULL)) {
		/* Under FT_PROTO_FAILS: for a receive that failed. */
		/* For a receive that now takes its data from another
		 * process, or one already complete: skip it. */
		pc->phase = RD_PAYLOAD;
		pc->req = NULL;
		pc->ux = NULL;
		pc->dst = NULL;
		pc->left = 0;
		pc->skip = len;
		return 0;
	}
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
	pc->wsrc = ft__pt_rank_of(pt, pc->c.peer);
	r->got += len;
	return 0;
}

/* A whole frame of len bytes was read from pc's peer (struct pconn). */
static void
frame_done(struct pconn *pc, uint32_t len, unsigned int type)
{
	if (type == FT_MSG_ACK)
		return;
	pc->in_done += len;
	pc->ack_due = 1;
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
	frame_done(pc, pc->flen, FT_MSG_EAGER);
	if (r != NULL) {
		if (r->id != 0 && ft__pt_slot_find(pt, r->id) == r) {
			/* Rendezvous: done when every chunk is in. */
			if (r->got == r->st.msglen)
				ft__pt_deliver(pt, r, pc->wsrc, r->seq);
		} else
			ft__pt_deliver(pt, r, pc->wsrc, r->seq);
		return 0;
	}
	if (u == NULL)
		return 0;
	if (pt->proto.ops->arrive != NULL)
		return ft__pt_arrive(pt, u);
	if ((m = ft__pt_mctx_get(pt, u->ctx)) == NULL)
		return -1;
	/* A receive may have been posted while the payload streamed in. */
	if ((r = ft__pt_posted_take(m, u->src, u->tag)) != NULL) {
		ft__pt_recv_matched(r, u->src, u->tag, u->len);
		ft__pt_matched(pt, r, u->src, u->wsrc, u->seq, u->proc);
		ft__pt_ux_eager_deliver(pt, r, u);
		ft_buf_put(u->data, u->pooled);
		free(u);
		return 0;
	}
	ft__pt_ux_append(m, u);
	return 0;
}

/* The peer matched some of our eager messages: we may send more. */
static int
on_credit(struct ft_pt *pt, struct pconn *pc, const uint8_t *body,
    size_t blen)
{
	struct ft_msg_credit cr;
	struct proc *p = &pt->procs[pc->c.peer];

	if (ft_msg_credit_decode(body, blen, &cr) != 0)
		return -1;
	if (cr.bytes > p->eager_out) {
		errno = EPROTO;
		return -1;
	}
	p->eager_out -= cr.bytes;
	return 0;
}

/* The peer has read frame bytes we sent it: they are delivered. */
static int
on_ack(struct ft_pt *pt, struct pconn *pc, const uint8_t *body, size_t blen)
{
	struct ft_msg_ack ack;
	struct pconn *out = pt->procs[pc->c.peer].out;

	if (ft_msg_ack_decode(body, blen, &ack) != 0)
		return -1;
	if (!pt->acks_on || out == NULL || !out->tcp ||
	    ack.bytes > ft__pt_stream_pos(out)) {
		errno = EPROTO;
		return -1;
	}
	if (ack.bytes > out->acked)
		out->acked = ack.bytes;
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
	case FT_MSG_ACK:
		return on_ack(pt, pc, body, blen);
	default:
		/* The protocol's frames, or nobody's. */
		if (pt->proto.ops->frame == NULL) {
			errno = EPROTO;
			return -1;
		}
		return pt->proto.ops->frame(&pt->proto, pc->c.peer, h, body);
	}
}

/*
 * Read and handle what a connection has.  Returns 0, or -1 when the
 * connection must be closed (errno says why).
 */
int
ft__pt_conn_read(struct ft_pt *pt, struct pconn *pc)
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
				fixed = FT_EAGER_FIXED +
				    ((h.flags & FT_FLAG_CLOCK) != 0 ?
				    FT_EAGER_CLOCK : 0);
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
					pc->flen = h.len;
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
						/* A process newer than our
						 * table: the launcher's
						 * news of it is on its way. */
						if (pc->c.hs == FT_HS_READY &&
						    !pc->outgoing &&
						    pc->c.peer >= pt->nproc &&
						    pt->ppr == 1)
							(void)ft__pt_await_proc(
							    pt, pc->c.peer);
						/* A new incarnation of a dead
						 * process: the launcher's REVIVE
						 * went out before it could call,
						 * so it is read first.  When
						 * failures are the program's
						 * (FT-MPI's REBUILD), so is the
						 * view of the death, which may
						 * not be read yet either: the
						 * REVIVE after it would close
						 * this connection, and what is
						 * on it, which nobody resends. */
						if (pc->c.hs == FT_HS_READY &&
						    !pc->outgoing &&
						    pt->restarts &&
						    pc->c.peer < pt->nproc &&
						    (pt->procs[pc->c.peer].gone ||
						    pt->fails) &&
						    pt->ctl != NULL &&
						    !pt->ctl->closed) {
							pc->fresh = 1;
							ft__pt_ctl_read(pt);
							pc->fresh = 0;
						}
						if (pc->c.hs == FT_HS_READY &&
						    (pc->outgoing ?
						    pc->c.peer != pc->dialed :
						    (pc->c.peer >= pt->nproc ||
						    pc->c.peer_role !=
						    FT_ROLE_RANK))) {
							errno = EPROTO;
							return -1;
						}
						(void)ft_conn_flush(&pc->c);
					} else if (on_frame(pt, pc, &h,
					    body) != 0)
						return -1;
					else
						frame_done(pc, h.len, h.type);
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
