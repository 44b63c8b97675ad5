/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: the engine's effects, what a protocol may ask of it
 * (struct ft_core_ops, ft-proto(7)).  The effects that belong to
 * matching, to sends to several processes and to failures are in those
 * files; the table that names them all is here.
 */
#include "pt2pt_impl.h"

static void
core_drop(void *core, void *handle)
{
	ft__pt_dup_drop(core, handle);
}

static int
core_resolve(void *core, struct ft_req *r, int src)
{
	struct ft_pt *pt = core;
	struct mctx *m;

	if ((m = ft__pt_mctx_get(pt, r->ctx)) == NULL)
		return -1;
	r->src = src >= 0 ? src : FT_PT_ANY;
	if (r->held) {
		r->held = 0;
		m->nheld--;
	}
	return ft__pt_rematch(pt, m);
}

static int
core_send_frame(void *core, uint32_t proc, const struct ft_wbuf *wb)
{
	struct ft_pt *pt = core;
	struct pconn *pc;

	if (proc >= pt->nproc) {
		errno = EINVAL;
		return -1;
	}
	if ((pc = ft__pt_peer_conn(pt, proc)) == NULL)
		return -1;
	return ft_conn_queue_copy(&pc->c, wb->p, wb->len);
}

static void
core_complete(void *core, struct ft_req *r, int err)
{
	r->st.error = err;
	ft__pt_req_complete(core, r);
}

static uint64_t
core_now_ns(void *core)
{
	(void)core;
	return ft_now_ns();
}

static void
core_notify(void *core, uint32_t kind, const char *text)
{
	struct ft_pt *pt = core;

	if (pt->notify != NULL)
		pt->notify(pt->notify_arg, kind, text);
	else
		ft_warnx("%s", text);
}

/* Is a connection from process q still open for reading? */
static int
reading_from(const struct ft_pt *pt, uint32_t q)
{
	size_t i;

	for (i = 0; i < pt->nconns; i++)
		if (!pt->conns[i]->outgoing && !pt->conns[i]->closed &&
		    pt->conns[i]->c.peer == q &&
		    pt->conns[i]->c.hs == FT_HS_READY)
			return 1;
	return 0;
}

static int
core_proc_state(void *core, uint32_t q)
{
	struct ft_pt *pt = core;
	const struct proc *p;
	int st = 0;

	if (q >= pt->nproc)
		return FT_PROC_GONE;
	p = &pt->procs[q];
	if (p->gone)
		st |= FT_PROC_GONE;
	if (p->out != NULL && !ft__pt_delivered(pt, p->out,
	    ft__pt_stream_pos(p->out)))
		st |= FT_PROC_UNSENT;
	if (reading_from(pt, q))
		st |= FT_PROC_READING;
	return st;
}

static int
core_progress(void *core, int timeout_ms)
{
	struct ft_pt *pt = core;

	if (pt->in_progress) {
		errno = EDEADLK;
		return -1;
	}
	return ft_pt_progress(pt, timeout_ms);
}

static void
core_watch(void *core, int fd, short events, uint64_t deadline_ns)
{
	struct ft_pt *pt = core;

	pt->wfd = fd;
	pt->wevents = events;
	pt->wdeadline = deadline_ns;
}

/*
 * core->inject: a message the protocol holds, as if its sender's copy
 * had arrived whole now, ahead of what that sender sent since (coord:
 * one a checkpoint recorded in flight, received again after a
 * rollback; ftreplay run: the record's next message, with no sender
 * running).  It owes its sender no credit (proc is ours).
 */
static int
core_inject(void *core, const struct ft_msg *msg)
{
	struct ft_pt *pt = core;
	struct unexp *u, *x, *prev = NULL;
	struct ft_req *r;
	struct mctx *m;

	if (msg->src >= pt->size || (msg->len > 0 && msg->buf == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if ((m = ft__pt_mctx_get(pt, msg->ctx)) == NULL ||
	    (u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_EAGER;
	u->src = msg->csrc;
	u->wsrc = msg->src;
	u->proc = pt->self;
	u->ctx = msg->ctx;
	u->tag = msg->tag;
	u->seq = msg->seq;
	u->len = msg->len;
	u->injected = 1;
	if (msg->len > 0) {
		if ((u->data = ft_buf_get(msg->len, &u->pooled)) == NULL) {
			free(u);
			return -1;
		}
		memcpy(u->data, msg->buf, msg->len);
	}
	if ((r = ft__pt_posted_take(m, u->src, u->tag)) != NULL)
		return ft__pt_take_ux(pt, r, u);
	/* Before what came from its sender since, after what was injected
	 * before it. */
	for (x = m->ux_head; x != NULL; prev = x, x = x->next)
		if (x->wsrc == u->wsrc && !x->injected)
			break;
	if (x == NULL)
		ft__pt_ux_append(m, u);
	else if (prev == NULL) {
		u->next = x;
		m->ux_head = u;
	} else {
		u->next = x;
		prev->next = u;
	}
	return 0;
}

/* vlog images: the next message to dst is number seq. */
static void
core_set_seq(void *core, uint32_t dst, uint64_t seq)
{
	struct ft_pt *pt = core;

	if (dst < pt->size)
		pt->sseq[dst] = seq;
}

const struct ft_core_ops ft__pt_core_ops = {
	.send_frame = core_send_frame,
	.send_msg = ft__pt_core_send_msg,
	.complete = core_complete,
	.now_ns = core_now_ns,
	.notify = core_notify,
	.release = ft__pt_core_release,
	.drop = core_drop,
	.resolve = core_resolve,
	.proc_state = core_proc_state,
	.progress = core_progress,
	.fail_ctx = ft__pt_core_fail_ctx,
	.watch = core_watch,
	.inject = core_inject,
	.set_seq = core_set_seq,
};
