/* SPDX-License-Identifier: ISC */
/*
 * The point-to-point engine: connections, the eager and rendezvous
 * protocols, matching, and progress.  Payloads are read straight into the
 * receive buffer when a posted receive matches, and rendezvous data is
 * written straight from the send buffer, so large messages are never
 * copied.
 *
 * The fault-tolerance protocol (lib/proto) is called through its hooks
 * at fixed points, and acts through the effects of pt2pt_core.c
 * (core_ops).  The engine knows processes and ranks, never what a
 * protocol makes of them.
 *
 * This file creates and frees the engine, and answers what the caller
 * asks of it and of the protocol beyond the data path (the protocol's
 * image, its extensions, nondeterministic events); pt2pt_impl.h names
 * the files that do the rest.
 */
#include "pt2pt_impl.h"

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

/* Is every process of rank r gone: by a view alone with view_only? */
int
ft__pt_rank_gone(const struct ft_pt *pt, uint32_t r, int view_only)
{
	const struct proc *p = &pt->procs[r * pt->ppr];
	uint32_t k;

	for (k = 0; k < pt->ppr; k++)
		if (!(view_only ? p[k].vgone : p[k].gone))
			return 0;
	return 1;
}

int
ft_pt_peer_gone(const struct ft_pt *pt, uint32_t r)
{
	return r < pt->size && ft__pt_rank_gone(pt, r, 0);
}

void
ft_pt_set_notify(struct ft_pt *pt, void (*fn)(void *, uint32_t,
    const char *), void *arg)
{
	pt->notify = fn;
	pt->notify_arg = arg;
}

struct ft_pt *
ft_pt_new(const struct ft_pt_conf *cf)
{
	struct ft_pt *pt;
	struct ft_conf pc;
	char addr[FT_WIRE_ADDR_MAX];
	uint32_t ppr = cf->ppr > 1 ? cf->ppr : 1;
	int saved;

	if (cf->size == 0 || cf->rank >= cf->size || cf->key == NULL ||
	    ppr > FT_PROTO_MULTI_MAX || (ppr > 1 && cf->index >= ppr) ||
	    (uint64_t)cf->size * ppr > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return NULL;
	}
	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return NULL;
	pt->rank = cf->rank;
	pt->size = cf->size;
	pt->ppr = ppr;
	pt->self = pt->rank * ppr + (ppr > 1 ? cf->index : 0);
	pt->nproc = cf->size * ppr;
	pt->node = cf->node;
	pt->key = cf->key;
	pt->force_tcp = cf->force_tcp;
	pt->lfd_unix = pt->lfd_tcp = -1;
	pt->hello_ns = cf->hello_ns != 0 ? cf->hello_ns : FT_HS_HELLO_NS;
	ft_ratelim_init(&pt->refusals, "refused connections",
	    FT_HS_WARN_BURST, FT_HS_WARN_NS);
	if ((pt->sseq = calloc(cf->size, sizeof(*pt->sseq))) == NULL ||
	    (pt->procs = calloc(pt->nproc, sizeof(*pt->procs))) == NULL)
		goto fail;
	memset(&pc, 0, sizeof(pc));
	pc.rank = cf->rank;
	pc.size = cf->size;
	pc.ppr = ppr;
	pc.proc = pt->self;
	pc.check_divergence = cf->check_divergence;
	pc.log_addr = cf->log_addr;
	pc.key = cf->log_key != NULL ? cf->log_key : cf->key;
	pc.job = cf->job;
	pc.incarnation = cf->incarnation;
	pc.spill_dir = cf->unix_dir;
	pc.log_mem = cf->log_mem;
	pc.strict = cf->strict;
	pc.replay_off = cf->replay_off;
	pc.record_dir = cf->record_dir;
	pc.record = cf->record;
	pc.universe = cf->universe;
	pt->wfd = -1;
	if (ft_proto_init(&pt->proto, cf->proto != NULL ? cf->proto :
	    &ft__proto_none, &pc, &ft__pt_core_ops, pt) != 0)
		goto fail;
	pt->resends = (pt->proto.ops->flags & FT_PROTO_RESENDS) != 0;
	pt->fails = (pt->proto.ops->flags & FT_PROTO_FAILS) != 0;
	pt->restarts = (pt->proto.ops->flags & FT_PROTO_RESTARTS) != 0;
	pt->acks_on = pt->proto.ops->sent != NULL;
	pt->self_addr.node = cf->node;
	pt->self_addr.pid = (uint32_t)getpid();
	if (cf->unix_dir != NULL && !cf->force_tcp) {
		snprintf(addr, sizeof(addr), "unix:%s/r%u.sock", cf->unix_dir,
		    pt->self);
		pt->lfd_unix = ft_net_listen(addr, pt->self_addr.unix_addr,
		    sizeof(pt->self_addr.unix_addr));
		if (pt->lfd_unix == -1)
			goto fail;
		snprintf(pt->unix_path, sizeof(pt->unix_path), "%s",
		    addr + 5);
	}
	/*
	 * A TCP port is open to every user of the host, the job directory
	 * (mode 0700) to its owner only: listen on TCP only when the job
	 * asks for it, spans several hosts (tcp_host given), or has no
	 * directory and more than one process.  Without it, our address
	 * in the table has no TCP part.
	 */
	if (cf->force_tcp || cf->tcp_host != NULL ||
	    (cf->unix_dir == NULL && pt->nproc > 1)) {
		snprintf(addr, sizeof(addr), "tcp:%s:0",
		    cf->tcp_host != NULL ? cf->tcp_host : "127.0.0.1");
		pt->lfd_tcp = ft_net_listen(addr, pt->self_addr.tcp_addr,
		    sizeof(pt->self_addr.tcp_addr));
		if (pt->lfd_tcp == -1)
			goto fail;
	}
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
ft_pt_grow(struct ft_pt *pt, uint32_t first, const struct ft_rank_addr *t,
    uint32_t n)
{
	struct ft_rank_addr *nt;
	struct proc *np;
	uint64_t *ns;
	uint32_t total;

	if (pt->ppr != 1 || pt->table == NULL || n == 0 ||
	    first >= FT_WIRE_MAX_RANKS || n > FT_WIRE_MAX_RANKS - first) {
		errno = EINVAL;
		return -1;
	}
	total = first + n > pt->nproc ? first + n : pt->nproc;
	if (total > pt->nproc) {
		if ((np = reallocarray(pt->procs, total, sizeof(*np))) == NULL)
			return -1;
		pt->procs = np;
		if ((ns = reallocarray(pt->sseq, total, sizeof(*ns))) == NULL)
			return -1;
		pt->sseq = ns;
		if ((nt = reallocarray(pt->table, total, sizeof(*nt))) == NULL)
			return -1;
		pt->table = nt;
		memset(pt->procs + pt->nproc, 0, (total - pt->nproc) *
		    sizeof(*np));
		memset(pt->sseq + pt->nproc, 0, (total - pt->nproc) *
		    sizeof(*ns));
		memset(pt->table + pt->nproc, 0, (total - pt->nproc) *
		    sizeof(*nt));
		pt->nproc = pt->size = total;
	}
	memcpy(pt->table + first, t, n * sizeof(*t));
	return 0;
}

int
ft_pt_set_table(struct ft_pt *pt, const struct ft_rank_addr *t, uint32_t n)
{
	/* With one process a rank, processes that joined later too. */
	if (n != pt->nproc && (n < pt->nproc || pt->ppr != 1)) {
		errno = EINVAL;
		return -1;
	}
	free(pt->table);
	if ((pt->table = calloc(pt->nproc, sizeof(*t))) == NULL)
		return -1;
	if (n == pt->nproc) {
		memcpy(pt->table, t, n * sizeof(*t));
		return 0;
	}
	return ft_pt_grow(pt, 0, t, n);
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
	struct multi *mu;
	size_t i;

	if (pt == NULL)
		return;
	/* First: the protocol hands back what it holds, which only needs
	 * freeing now. */
	pt->freeing = 1;
	ft_ratelim_flush(&pt->refusals, 1);
	if (pt->proto.ops != NULL)
		ft_proto_release(&pt->proto);
	for (i = 0; i < pt->nconns; i++) {
		/* A message cut short by the end is lost with it. */
		if (pt->conns[i]->ux != NULL) {
			ft_buf_put(pt->conns[i]->ux->data,
			    pt->conns[i]->ux->pooled);
			free(pt->conns[i]->ux);
		}
		ft_conn_release(&pt->conns[i]->c);
		free(pt->conns[i]);
	}
	if (pt->ctl != NULL) {
		ft_conn_release(&pt->ctl->c);
		free(pt->ctl);
	}
	/* Fan-outs still waiting for answers are ours; requests are not. */
	for (i = 0; i < pt->nslots; i++)
		if (pt->slots[i].req != NULL && pt->slots[i].req->multi) {
			mu = (struct multi *)pt->slots[i].req;
			free(mu->copy);
			free(mu);
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
	free(pt->conns);
	free(pt->sseq);
	free(pt->procs);
	free(pt->eouts);
	free(pt->table);
	free(pt->slots);
	free(pt->unconfirmed);
	free(pt->freeslots);
	free(pt->pfd);
	free(pt->pfdconn);
	free(pt);
}

uint64_t
ft_pt_ncompleted(const struct ft_pt *pt)
{
	return pt->ncompleted;
}

int
ft_pt_save(struct ft_pt *pt, struct ft_wbuf *wb)
{
	if (pt->proto.ops->save == NULL)
		return 0;
	return pt->proto.ops->save(&pt->proto, wb);
}

int
ft_pt_restore(struct ft_pt *pt, struct ft_rbuf *rb)
{
	if (pt->proto.ops->restore == NULL) {
		if (rb->len == 0)
			return 0;
		errno = EPROTO;
		return -1;
	}
	return pt->proto.ops->restore(&pt->proto, rb);
}

int
ft_pt_ext(struct ft_pt *pt, struct ft_ext *x)
{
	if (pt->proto.ops->ext == NULL) {
		errno = ENOTSUP;
		return -1;
	}
	return pt->proto.ops->ext(&pt->proto, x);
}

int
ft_pt_nondet_on(const struct ft_pt *pt)
{
	return pt->proto.ops->nondet != NULL;
}

int
ft_pt_nondet(struct ft_pt *pt, struct ft_nd *ev)
{
	if (pt->proto.ops->nondet == NULL) {
		ev->local = 1;
		return 0;
	}
	for (;;) {
		if (pt->proto.ops->nondet(&pt->proto, ev) == 0)
			return 0;
		if (errno != EAGAIN || ft_pt_progress(pt, 100) != 0)
			return -1;
	}
}

int
ft_pt_decide(struct ft_pt *pt, uint32_t kind, uint64_t v[3])
{
	return ft_pt_decide_ctx(pt, kind, 0, v);
}

int
ft_pt_decide_ctx(struct ft_pt *pt, uint32_t kind, uint32_t ctx,
    uint64_t v[3])
{
	struct ft_nd ev;

	if (pt->proto.ops->nondet == NULL)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_SETTLE;
	ev.kind = kind;
	ev.ctx = ctx;
	memcpy(ev.v, v, sizeof(ev.v));
	if (ft_pt_nondet(pt, &ev) != 0)
		return -1;
	memcpy(v, ev.v, sizeof(ev.v));
	return 0;
}

int
ft_pt_decides(struct ft_pt *pt)
{
	struct ft_nd ev;

	if (pt->proto.ops->nondet == NULL)
		return 1;
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_ASK;
	if (ft_pt_nondet(pt, &ev) != 0)
		return 1;
	return ev.local;
}

int
ft_pt_busy(struct ft_pt *pt)
{
	size_t i;

	if (pt->rdv_pending > 0 || pt->neouts > 0 ||
	    (pt->proto.ops->busy != NULL && pt->proto.ops->busy(&pt->proto)))
		return 1;
	for (i = 0; i < pt->nconns; i++)
		/* Bytes queued behind a handshake count: they are not out. */
		if (!pt->conns[i]->closed &&
		    ft_conn_unsent(&pt->conns[i]->c))
			return 1;
	return 0;
}
