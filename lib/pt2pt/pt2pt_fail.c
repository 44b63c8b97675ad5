/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: failures.  Under a protocol with FT_PROTO_FAILS
 * (ULFM, FT-MPI), requests that a dead process or a revoked context
 * hits complete in error; views of dead processes (every protocol), and
 * a dead process's new incarnation (FT_PROTO_RESTARTS).
 */
#include "pt2pt_impl.h"

/* The process r waits on: its sender's, or its destination's first. */
static uint32_t
req_proc(const struct ft_pt *pt, const struct ft_req *r)
{
	if (r->kind == FT_REQ_SEND)
		return r->dst * pt->ppr;
	return r->wsrc != UINT32_MAX ? r->wsrc * pt->ppr : r->peer;
}

/*
 * FT_PROTO_FAILS: complete r in error err (ECONNRESET: its peer is
 * dead; ECANCELED: its context is revoked).  Returns 0, for the calls
 * that start a request.
 */
int
ft__pt_req_fail(struct ft_pt *pt, struct ft_req *r, int err)
{
	struct ft_req **nu;
	uint32_t q;

	/*
	 * FT_PROTO_FAILS: a broken connection says that its process may
	 * be dead; only the launcher's view says it is.  Until then the
	 * request waits, so that the process failure the application is
	 * told of is one MPIX_Comm_get_failed lists (the ULFM project's
	 * stress/pingpairs saw MPIX_ERR_PROC_FAILED with no process
	 * failed).  The view that names it completes the request.
	 */
	if (err == ECONNRESET && pt->fails && !r->multi && !pt->freeing &&
	    (q = req_proc(pt, r)) < pt->nproc && !pt->procs[q].vgone) {
		nu = ft_grow(pt->unconfirmed, &pt->capunconfirmed,
		    pt->nunconfirmed, sizeof(*nu));
		if (nu != NULL) {
			pt->unconfirmed = nu;
			pt->unconfirmed[pt->nunconfirmed++] = r;
			return 0;
		}
		/* Out of memory: fail it now, unconfirmed. */
	}
	r->st.error = err;
	ft__pt_req_complete(pt, r);
	return 0;
}

/* A view came: complete the held requests whose process it names. */
static void
unconfirmed_settle(struct ft_pt *pt)
{
	struct ft_req *r;
	size_t i, j;

	for (i = j = 0; i < pt->nunconfirmed; i++) {
		r = pt->unconfirmed[i];
		if (pt->procs[req_proc(pt, r)].vgone) {
			r->st.error = ECONNRESET;
			ft__pt_req_complete(pt, r);
		} else
			pt->unconfirmed[j++] = r;
	}
	pt->nunconfirmed = j;
}

/* The error requests on ctx fail with (revoked), or 0. */
int
ft__pt_ctx_failed(struct ft_pt *pt, uint32_t ctx)
{
	struct mctx *m = ft__pt_mctx_get(pt, ctx);

	return m != NULL ? m->fail : 0;
}

/*
 * FT_PROTO_FAILS: a connection closes, so what waits on it fails: the
 * receive whose payload it carried, and the rendezvous sends whose
 * data is still queued on it.
 */
void
ft__pt_conn_fail_reqs(struct ft_pt *pt, struct pconn *pc)
{
	struct ft_req *r = pc->req;
	struct ft_oseg *o;

	pc->req = NULL;
	if (r != NULL && !r->done) {
		ft__pt_slot_del(pt, r);
		(void)ft__pt_req_fail(pt, r, ECONNRESET);
	}
	for (o = pc->c.oq_head; o != NULL; o = o->next)
		if (o->done == ft__pt_rdata_sent &&
		    !((struct ft_req *)o->arg)->done) {
			r = o->arg;
			o->done = NULL;
			(void)ft__pt_req_fail(pt, r, ECONNRESET);
		}
}

/*
 * FT_PROTO_FAILS: which requests fail.  A request is hit by the death
 * of process q (kind 0: the receive names it, or takes its data, or
 * the send waits for its answer), or by the revoke of contexts from
 * q to q + n - 1 (kind 1).
 */
struct fail_sel {
	int		 kind;
	uint32_t	 q, n;
};

static int
fail_hit(const struct ft_pt *pt, const struct ft_req *r,
    const struct fail_sel *f)
{
	if (f->kind == 1)
		return r->ctx >= f->q && r->ctx - f->q < f->n;
	if (r->kind == FT_REQ_SEND)
		return r->dst * pt->ppr == f->q;
	return r->posted ? r->wsrc == f->q : r->peer == f->q;
}

/* Fail every request f hits with err; none is left reading. */
static void
fail_where(struct ft_pt *pt, const struct fail_sel *f, int err)
{
	struct ft_req *r, *next;
	struct pconn *pc;
	struct mctx *m;
	size_t i;

	/* Receives reading a payload: the bytes to come are skipped. */
	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if ((r = pc->req) == NULL || pc->closed || r->done ||
		    !(f->kind == 1 ? fail_hit(pt, r, f) :
		    pc->c.peer == f->q))
			continue;
		pc->skip += pc->left;
		pc->left = 0;
		pc->dst = NULL;
		pc->req = NULL;
		ft__pt_slot_del(pt, r);
		(void)ft__pt_req_fail(pt, r, err);
	}
	for (i = 0; i < FT_NELEM(pt->ctxtab); i++)
		for (m = pt->ctxtab[i]; m != NULL; m = m->hnext)
			for (r = m->posted_head; r != NULL; r = next) {
				next = r->next;
				if (r->held || !fail_hit(pt, r, f))
					continue;
				ft__pt_posted_unlink(m, r);
				(void)ft__pt_req_fail(pt, r, err);
			}
	for (i = 0; i < pt->nslots; i++) {
		r = pt->slots[i].req;
		if (r == NULL || r->multi || !fail_hit(pt, r, f))
			continue;
		ft__pt_slot_del(pt, r);
		(void)ft__pt_req_fail(pt, r, err);
	}
}

void
ft__pt_core_fail_ctx(void *core, uint32_t ctx, uint32_t n, int err)
{
	struct ft_pt *pt = core;
	struct fail_sel f = { 1, ctx, n };
	struct mctx *m;
	uint32_t k;

	for (k = 0; k < n; k++)
		if ((m = ft__pt_mctx_get(pt, ctx + k)) != NULL)
			m->fail = err;
	fail_where(pt, &f, err);
}

/*
 * A process the view declares dead sent what it sent before it died:
 * that is in the sockets it dialed to us (it is dead, so they end), and
 * is read before what waits on it fails, so that a message sent is not
 * lost with its sender (ULFM: an operation fails only when a failure
 * prevents it from completing; ft-ulfm(3)).
 */
static void
view_drain(struct ft_pt *pt, uint32_t q)
{
	struct pconn *pc;
	size_t i;

	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if (pc->closed || pc->outgoing || pc->c.peer != q)
			continue;
		if (ft__pt_conn_read(pt, pc) != 0)
			ft__pt_conn_close(pt, pc, NULL);
	}
}

int
ft_pt_view(struct ft_pt *pt, const uint32_t *dead, uint32_t ndead)
{
	uint32_t i, q, d;
	int rc = 0;

	for (i = 0; i < ndead; i++) {
		q = dead[i];
		if (q >= pt->nproc || q == pt->self || pt->procs[q].vgone)
			continue;
		pt->procs[q].vgone = 1;
		pt->procs[q].gone = 1;
		/* Nothing more goes to it; what it sent is still read. */
		if (pt->procs[q].out != NULL) {
			ft__pt_conn_close(pt, pt->procs[q].out, NULL);
			pt->procs[q].out = NULL;
		}
		if (pt->fails) {
			view_drain(pt, q);
			fail_where(pt, &(struct fail_sel){ 0, q, 1 },
			    ECONNRESET);
		}
	}
	ft__pt_multi_trim_gone(pt);
	if (pt->proto.ops->view != NULL)
		rc = pt->proto.ops->view(&pt->proto, dead, ndead);
	/* After the protocol's hook: the failure is known when they end. */
	if (pt->nunconfirmed > 0)
		unconfirmed_settle(pt);
	pt->reap_due = 1;
	if (rc != 0)
		return -1;
	/* The application hears of it, or the launcher restarts it: no
	 * rank need survive. */
	if (pt->fails || pt->restarts)
		return 0;
	for (d = 0; d < pt->size; d++)
		if (ft__pt_rank_gone(pt, d, 1)) {
			errno = ENOLINK;
			return -1;
		}
	return 0;
}

int
ft_pt_revive(struct ft_pt *pt, uint32_t q, const struct ft_rank_addr *addr)
{
	struct pconn *pc;
	size_t i;

	if (!pt->restarts || q >= pt->nproc || q == pt->self ||
	    pt->table == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* What waits for the incarnation before stops waiting. */
	pt->procs[q].gone = 1;
	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if (pc->closed || pc->fresh ||
		    (pc->outgoing ? pc->dialed : pc->c.peer) != q)
			continue;
		pc->quiet = 1;
		ft__pt_conn_close(pt, pc, NULL);
	}
	ft__pt_multi_trim_gone(pt);
	memset(&pt->procs[q], 0, sizeof(pt->procs[q]));
	pt->table[q] = *addr;
	pt->reap_due = 1;
	if (pt->proto.ops->revive != NULL)
		pt->proto.ops->revive(&pt->proto, q);
	return 0;
}
