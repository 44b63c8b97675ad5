/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: sending one message to several processes
 * (core->send_msg), for a protocol that routes messages: eager to every
 * process when each has window for it, else an RTS to each and a
 * multi-send that serves them; and telling the protocol when such a
 * message is out (its sent hook).
 */
#include "pt2pt_impl.h"

static int	eout_done(const struct ft_pt *, const struct eout *);
static int	eout_add(struct ft_pt *, const uint32_t *, const uint64_t *,
		    uint32_t, void *);

/* A multi-send has served every process it still waits for: free it. */
static void
multi_done(struct ft_pt *pt, struct ft_req *inner)
{
	struct multi *mu = (struct multi *)inner;
	struct ft_req *user = mu->user;
	void *cookie = mu->cookie;
	struct eout e;

	ft__pt_slot_del(pt, inner);
	if (cookie != NULL) {
		e.cookie = cookie;
		e.n = mu->n;
		memcpy(e.procs, mu->procs, mu->n * sizeof(*mu->procs));
		memcpy(e.pos, mu->endpos, mu->n * sizeof(*mu->endpos));
	}
	free(mu->copy);
	free(mu);
	/* Every process died before matching it. */
	if (user != NULL)
		ft__pt_req_complete(pt, user);
	if (cookie == NULL || pt->proto.ops->sent == NULL)
		return;
	/* Written; on TCP, perhaps not yet acknowledged. */
	if (eout_done(pt, &e))
		pt->proto.ops->sent(&pt->proto, cookie);
	else if (eout_add(pt, e.procs, e.pos, e.n, cookie) != 0)
		ft_warn("keeping a message until it is acknowledged");
}

/*
 * A stream from the sender's buffer is written: the sender is done.
 * What other processes still need of its buffer is copied first, and
 * their streams move onto the copy.  Returns -1 only when that copy
 * cannot be made (the sender then waits for every stream).
 */
static int
multi_user_done(struct ft_pt *pt, struct multi *mu, uint32_t k)
{
	struct ft_req *user = mu->user, *inner = &mu->inner;
	size_t len = inner->len, min = inner->want != 0 ? 0 : len;
	uint32_t rest = mu->from_user & ~(1u << k), j;
	struct proc *p;

	for (j = 0; j < mu->n && min > 0; j++) {
		p = &pt->procs[mu->procs[j]];
		if ((rest & (1u << j)) && p->out != NULL)
			ft_conn_ref_min(&p->out->c, &mu->t[j], mu->ubuf, len,
			    &min);
	}
	if (min < len) {
		if ((mu->copy = malloc(len)) == NULL) {
			mu->from_user &= ~(1u << k);
			return -1;
		}
		memcpy(mu->copy + min, mu->ubuf + min, len - min);
		for (j = 0; j < mu->n; j++) {
			p = &pt->procs[mu->procs[j]];
			if ((rest & (1u << j)) && p->out != NULL)
				ft_conn_rebase(&p->out->c, &mu->t[j], mu->ubuf,
				    len, mu->copy);
		}
	}
	mu->from_user = 0;
	mu->ubuf = NULL;
	mu->user = NULL;
	ft__pt_req_complete(pt, user);
	return 0;
}

static void
multi_sent(void *arg)
{
	struct multi_ticket *t = arg;
	struct multi *mu = t->mu;
	struct ft_req *inner = &mu->inner;
	uint32_t bit = 1u << t->k;

	inner->sending &= ~bit;
	if (mu->user != NULL && (mu->from_user & bit))
		(void)multi_user_done(t->pt, mu, t->k);
	else
		mu->from_user &= ~bit;
	if (inner->want == 0 && inner->sending == 0)
		multi_done(t->pt, inner);
}

/* A process answered a multi-send's RTS. */
int
ft__pt_multi_on_cts(struct ft_pt *pt, struct pconn *pc,
    const struct ft_msg_cts *cts)
{
	struct ft_req *inner;
	struct multi *mu;
	struct pconn *out;
	const uint8_t *src;
	uint32_t k;

	if ((inner = ft__pt_slot_find(pt, cts->sreq)) == NULL &&
	    pt->procs[pc->c.peer].gone)
		return 0;	/* a dead process's late answer */
	if (inner == NULL || !inner->multi ||
	    inner->dst != ft__pt_rank_of(pt, pc->c.peer)) {
		errno = EPROTO;
		return -1;
	}
	mu = (struct multi *)inner;
	for (k = 0; k < mu->n && mu->procs[k] != pc->c.peer; k++)
		;
	if (k == mu->n || !(inner->want & (1u << k)))
		return 0;
	inner->want &= ~(1u << k);
	if (cts->rreq != 0 &&
	    (out = ft__pt_peer_conn(pt, pc->c.peer)) != NULL) {
		mu->t[k] = (struct multi_ticket){ pt, mu, k };
		inner->sending |= 1u << k;
		/* From the sender's buffer while it is pending, else the
		 * copy that its completion made. */
		src = mu->user != NULL ? mu->ubuf : mu->copy;
		if (mu->user != NULL)
			mu->from_user |= 1u << k;
		/* Its end, known now: the last chunk may free mu. */
		mu->endpos[k] = ft__pt_stream_pos(out) +
		    ft__pt_stream_bytes(inner->len);
		if (ft__pt_stream_data(pt, out, cts->rreq, src, inner->len,
		    multi_sent, &mu->t[k], 1) == 0)
			return 0;
		/* It died: its queue goes, with the tickets in it. */
		inner->sending &= ~(1u << k);
		mu->from_user &= ~(1u << k);
		ft__pt_conn_close(pt, out, NULL);
		pt->reap_due = 1;
	}
	if (inner->want == 0 && inner->sending == 0)
		multi_done(pt, inner);
	return 0;
}

/* Is a multi-send out: delivered to every live process? */
static int
eout_done(const struct ft_pt *pt, const struct eout *e)
{
	const struct proc *p;
	uint32_t k;

	for (k = 0; k < e->n; k++) {
		p = &pt->procs[e->procs[k]];
		if (!p->gone && p->out != NULL &&
		    !ft__pt_delivered(pt, p->out, e->pos[k]))
			return 0;
	}
	return 1;
}

/* Tell the protocol of eager multi-sends that are out now. */
void
ft__pt_eout_check(struct ft_pt *pt)
{
	size_t i, j;

	for (i = j = 0; i < pt->neouts; i++) {
		if (eout_done(pt, &pt->eouts[i]))
			pt->proto.ops->sent(&pt->proto, pt->eouts[i].cookie);
		else
			pt->eouts[j++] = pt->eouts[i];
	}
	pt->neouts = j;
}

static int
eout_add(struct ft_pt *pt, const uint32_t *procs, const uint64_t *pos,
    uint32_t n, void *cookie)
{
	struct eout *ne;

	if ((ne = ft_grow(pt->eouts, &pt->capeouts, pt->neouts,
	    sizeof(*ne))) == NULL)
		return -1;
	pt->eouts = ne;
	ne = &pt->eouts[pt->neouts++];
	ne->cookie = cookie;
	ne->n = n;
	memcpy(ne->procs, procs, n * sizeof(*procs));
	memcpy(ne->pos, pos, n * sizeof(*pos));
	return 0;
}

int
ft__pt_core_send_msg(void *core, const uint32_t *procs, uint32_t n,
    const struct ft_msg *m, void *cookie)
{
	struct ft_pt *pt = core;
	struct ft_msg_rts rts;
	struct ft_wbuf wb;
	struct pconn *pc;
	struct multi *mu;
	struct ft_req *inner;
	uint64_t pos[FT_PROTO_MULTI_MAX];
	uint32_t k, q;
	int eager;

	if (n == 0 || n > FT_PROTO_MULTI_MAX || m->dst >= pt->size) {
		errno = EINVAL;
		return -1;
	}
	eager = 1;
	for (k = 0; k < n; k++)
		if (procs[k] >= pt->nproc ||
		    ft__pt_rank_of(pt, procs[k]) != m->dst) {
			errno = EINVAL;
			return -1;
		} else if (!ft__pt_eager_fits(pt, procs[k], m->len, m->mode))
			eager = 0;
	if (eager) {
		for (k = 0; k < n; k++) {
			q = procs[k];
			pos[k] = 0;
			/* A process we cannot reach is dead or soon will be. */
			if ((pc = ft__pt_peer_conn(pt, q)) == NULL)
				continue;
			if (ft__pt_eager_send(pt, pc, q, m) != 0) {
				/* It died; the view that says so is coming. */
				ft__pt_conn_close(pt, pc, NULL);
				pt->reap_due = 1;
			} else
				pos[k] = ft__pt_stream_pos(pc);
		}
		if (m->req != NULL)
			ft__pt_req_complete(pt, m->req);
		if (cookie == NULL || pt->proto.ops->sent == NULL)
			return 0;
		if (eout_add(pt, procs, pos, n, cookie) != 0)
			return -1;
		/* Usually written at once: out already. */
		if (eout_done(pt, &pt->eouts[pt->neouts - 1])) {
			pt->neouts--;
			pt->proto.ops->sent(&pt->proto, cookie);
		}
		return 0;
	}
	/* Without a request, nobody keeps the buffer: copy it now. */
	if ((mu = calloc(1, sizeof(*mu))) == NULL || (m->req == NULL &&
	    m->len > 0 && (mu->copy = malloc(m->len)) == NULL)) {
		free(mu);
		return -1;
	}
	if (m->req == NULL && m->len > 0)
		memcpy(mu->copy, m->buf, m->len);
	mu->user = m->req;
	mu->ubuf = m->req != NULL ? m->buf : NULL;
	mu->cookie = cookie;
	mu->n = n;
	memcpy(mu->procs, procs, n * sizeof(*procs));
	inner = &mu->inner;
	inner->kind = FT_REQ_SEND;
	inner->multi = 1;
	inner->dst = m->dst;
	inner->len = m->len;
	inner->want = (1u << n) - 1;	/* n <= FT_PROTO_MULTI_MAX */
	if (ft__pt_slot_add(pt, inner) == 0) {
		free(mu->copy);
		free(mu);
		return -1;
	}
	rts = (struct ft_msg_rts){ m->ctx, m->csrc, m->tag, m->seq, m->len,
	    inner->id, m->clock };
	ft_wbuf_init(&wb);
	if (ft_msg_rts_encode(&wb, pt->self,
	    m->mode == FT_SEND_SYNC ? FT_FLAG_SYNC : 0, &rts) != 0) {
		ft_wbuf_release(&wb);
		return -1;
	}
	for (k = 0; k < n; k++)
		if ((pc = ft__pt_peer_conn(pt, procs[k])) == NULL ||
		    ft_conn_queue_copy(&pc->c, wb.p, wb.len) != 0)
			inner->want &= ~(1u << k);
	ft_wbuf_release(&wb);
	if (inner->want == 0)
		multi_done(pt, inner);
	return 0;
}

/*
 * Fan-outs stop waiting for processes that are gone, known by a view or
 * by a closed connection: a process that died, or one that left the job
 * while a message to it was under way, answers no RTS and reads no data.
 */
void
ft__pt_multi_trim_gone(struct ft_pt *pt)
{
	struct multi *mu;
	struct ft_req *r;
	uint32_t k, bit;
	size_t s;

	for (s = 0; s < pt->nslots; s++) {
		r = pt->slots[s].req;
		if (r == NULL || !r->multi)
			continue;
		mu = (struct multi *)r;
		for (k = 0; k < mu->n; k++) {
			bit = 1u << k;
			if (!((r->want | r->sending) & bit) ||
			    !pt->procs[mu->procs[k]].gone)
				continue;
			r->want &= ~bit;
			r->sending &= ~bit;
			mu->from_user &= ~bit;
		}
		if (r->want == 0 && r->sending == 0)
			multi_done(pt, r);
	}
}
