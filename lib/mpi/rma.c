/* SPDX-License-Identifier: ISC */
/*
 * One-sided operations (MPI-3.1 11.3): MPI_Put, MPI_Get, the
 * accumulates, MPI_Fetch_and_op, MPI_Compare_and_swap and their
 * request-based forms, at the origin; and at the target, the progress
 * step that applies the requests that arrived (win.h tells the design).
 *
 * Each request is one message: a header, the target's layout as byte
 * blocks (the origin flattens target_datatype, which only it knows),
 * and the origin's data packed.  The target applies a message whole,
 * between two progress passes of its single thread, so an accumulate is
 * atomic for each element (indeed whole) with respect to every other
 * accumulate, as the standard asks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "win.h"

/* The blocks of target data: offsets from the target address. */
struct blk {
	int64_t		off;
	uint64_t	len;
};

struct blks {
	struct blk	*v;
	size_t		 n, cap;
	uint64_t	 bytes;
	int64_t		 lo, hi;	/* the span they cover */
	enum ft_type_kind kind;		/* of every element, or DERIVED */
	int		 mixed;
	int		 nomem;
};

static int
blk_add(struct blks *b, int64_t off, uint64_t len)
{
	struct blk *nv;
	size_t cap;

	if (len == 0)
		return 0;
	if (b->n > 0 && b->v[b->n - 1].off + (int64_t)b->v[b->n - 1].len ==
	    off) {
		b->v[b->n - 1].len += len;
	} else {
		if (b->n == b->cap) {
			cap = b->cap == 0 ? 8 : b->cap * 2;
			if ((nv = reallocarray(b->v, cap, sizeof(*nv))) ==
			    NULL) {
				b->nomem = 1;
				return -1;
			}
			b->v = nv;
			b->cap = cap;
		}
		b->v[b->n].off = off;
		b->v[b->n++].len = len;
	}
	if (b->bytes == 0 || off < b->lo)
		b->lo = off;
	if (b->bytes == 0 || off + (int64_t)len > b->hi)
		b->hi = off + (int64_t)len;
	b->bytes += len;
	return 0;
}

static int
blk_elem(void *arg, enum ft_type_kind k, void *addr)
{
	struct blks *b = arg;

	if (b->kind == FT_TK_DERIVED && b->bytes == 0)
		b->kind = k;
	else if (b->kind != k)
		b->mixed = 1;
	return blk_add(b, (int64_t)(intptr_t)addr, ft__mpi_kind_size(k));
}

/*
 * The byte blocks of count elements of type (committed) at offset 0,
 * in type map order, and the kind of unit they hold (FT_TK_DERIVED
 * when mixed).  -1 when out of memory.
 */
static int
blocks_of(MPI_Datatype type, int count, struct blks *b)
{
	enum ft_type_kind k;
	MPI_Aint off;
	size_t n;

	memset(b, 0, sizeof(*b));
	b->kind = FT_TK_DERIVED;
	if (count == 0 || type->size == 0)
		return 0;
	if (ft__mpi_type_dense(type, count, &off)) {
		if (ft__mpi_type_basic(type, &k, &n))
			b->kind = k;
		else {
			/* Find the kind from the elements. */
			(void)ft__mpi_type_walk(type, NULL, 1, blk_elem, b);
			b->n = 0;
			b->bytes = 0;
			if (b->nomem)
				return -1;
		}
		return blk_add(b, off, (uint64_t)count * type->size);
	}
	(void)ft__mpi_type_walk(type, NULL, (size_t)count, blk_elem, b);
	return b->nomem ? -1 : 0;
}

/* The origin's side --------------------------------------------------- */

static int
op_done(const struct ft_rma_op *o)
{
	return (!o->has_send || o->send.pt.done) &&
	    (!o->has_recv || o->recv.pt.done) &&
	    (!o->has_data || o->data.pt.done);
}

static void
op_free(struct ft_rma_op *o)
{
	if (o->has_send)
		ft__mpi_req_cleanup(&o->send);
	if (o->has_recv)
		ft__mpi_req_cleanup(&o->recv);
	if (o->has_data)
		ft__mpi_req_cleanup(&o->data);
	free(o->msg);
	free(o->tmp);
	free(o);
}

/* Let go of the window's operations that are done. */
static void
reap(struct ft_rma_op **head, struct ft_rma_op ***tail)
{
	struct ft_rma_op **pp = head, *o;

	while ((o = *pp) != NULL) {
		if (!op_done(o)) {
			pp = &o->next;
			continue;
		}
		*pp = o->next;
		if (o->user)
			o->reaped = 1;
		else
			op_free(o);
	}
	*tail = pp;
}

static struct ft_rma_op *
op_new(MPI_Win win, int target)
{
	struct ft_rma_op *o;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return NULL;
	o->target = target;
	*win->opstail = o;
	win->opstail = &o->next;
	return o;
}

static int32_t
next_tag(MPI_Win win)
{
	return FT_RMA_TAG_REPLY + (int32_t)(win->seq++ % FT_RMA_TAG_SPAN);
}

/*
 * Send o's message (len bytes at o->msg, which o owns) to its target
 * as a request.
 */
static int
op_send(MPI_Win win, const char *call, struct ft_rma_op *o, size_t len)
{
	int rc;

	if (len > INT32_MAX)
		return ft__mpi_win_err(win, MPI_ERR_COUNT, call,
		    "an operation of %zu bytes is too large", len);
	/* ULFM: the call that completes it reports the dead target. */
	if (ft__mpi_rma_dead(win, o->target)) {
		o->err = ECONNRESET;
		return MPI_SUCCESS;
	}
	ft__mpi_req_init(&o->send, FT_MPI_REQ_SEND, win->comm);
	if ((rc = ft__mpi_isend_ctx(call, o->msg, (int)len, MPI_BYTE,
	    o->target, FT_RMA_TAG_REQ, win->comm, win->comm->ctx,
	    &o->send)) != MPI_SUCCESS)
		return ft__mpi_win_err(win, rc, call, "unable to send to rank "
		    "%d", o->target);
	o->has_send = 1;
	win->sent[o->target]++;
	return MPI_SUCCESS;
}

/* Post o's receive of its reply (count of type into buf) on tag. */
static int
op_recv(MPI_Win win, const char *call, struct ft_rma_op *o, void *buf,
    int count, MPI_Datatype type, int32_t tag)
{
	int rc;

	ft__mpi_req_init(&o->recv, FT_MPI_REQ_RECV, win->comm);
	if ((rc = ft__mpi_irecv_ctx(call, buf, count, type, o->target, tag,
	    win->comm, win->comm->ctx, &o->recv)) != MPI_SUCCESS)
		return ft__mpi_win_err(win, rc, call, "unable to receive from "
		    "rank %d", o->target);
	o->has_recv = 1;
	return MPI_SUCCESS;
}

struct opwait {
	MPI_Win	win;
	int	target;		/* -1: every one */
	struct ft_rma_op *one;
};

static int
ops_done(void *arg)
{
	const struct opwait *w = arg;
	const struct ft_rma_op *o;

	if (w->one != NULL)
		return op_done(w->one);
	for (o = w->win->ops; o != NULL; o = o->next)
		if ((w->target == -1 || o->target == w->target) &&
		    !op_done(o))
			return 0;
	return 1;
}

int
ft__mpi_rma_class(int err)
{
	int c = ft__mpi_ulfm_class(err);

	return c != 0 ? c : MPI_ERR_OTHER;
}

int
ft__mpi_rma_dead(MPI_Win win, int r)
{
	return ft__mpi.ulfm && !ft__mpi_ulfm_alive(win->comm->world[r]);
}

/* A failed request's error number (a peer gone), or 0. */
static int
op_error(const struct ft_rma_op *o)
{
	if (o->err != 0)
		return o->err;
	if (o->has_send && o->send.pt.st.error != 0)
		return o->send.pt.st.error;
	if (o->has_recv && o->recv.pt.st.error != 0)
		return o->recv.pt.st.error;
	if (o->has_data && o->data.pt.st.error != 0)
		return o->data.pt.st.error;
	return 0;
}

int
ft__mpi_rma_local(MPI_Win win, const char *call, int target)
{
	struct opwait w = { win, target, NULL };
	struct ft_rma_op *o;
	int e = 0;

	ft__mpi_wait(ops_done, &w);
	for (o = win->ops; o != NULL; o = o->next)
		if (e == 0 && (target == -1 || o->target == target))
			e = op_error(o);
	reap(&win->ops, &win->opstail);
	if (e != 0)
		return ft__mpi_win_err(win, ft__mpi_rma_class(e), call,
		    "an operation failed: %s", strerror(e));
	return MPI_SUCCESS;
}

/* A control request to target: a header with kind and arg. */
static int
ctl_start(MPI_Win win, const char *call, int kind, int target, int arg,
    int ack, struct ft_rma_op **op)
{
	struct ft_rma_hdr *h;
	struct ft_rma_op *o;
	int rc;

	if ((o = op_new(win, target)) == NULL ||
	    (o->msg = calloc(1, sizeof(*h))) == NULL)
		return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
		    "out of memory");
	h = o->msg;
	h->kind = (uint32_t)kind;
	h->arg = (uint32_t)arg;
	if (ack) {
		h->tag = next_tag(win);
		if ((rc = op_recv(win, call, o, &o->ack, 1, MPI_INT32_T,
		    h->tag)) != MPI_SUCCESS)
			return rc;
	}
	if ((rc = op_send(win, call, o, sizeof(*h))) != MPI_SUCCESS)
		return rc;
	if (kind == FT_RMA_FLUSH || kind == FT_RMA_UNLOCK)
		win->sent[target] = 0;
	if (op != NULL)
		*op = o;
	return MPI_SUCCESS;
}

/* Take in what acknowledgements said: the first error. */
static void
take_ack(MPI_Win win, const struct ft_rma_op *o)
{
	if (o->has_recv && o->recv.pt.done && o->ack != 0 && win->err == 0)
		win->err = o->ack;
}

int
ft__mpi_rma_ctl(MPI_Win win, const char *call, int kind, int target, int arg,
    int ack)
{
	struct opwait w = { win, target, NULL };
	int rc, e;

	if ((rc = ctl_start(win, call, kind, target, arg, ack, &w.one)) !=
	    MPI_SUCCESS || !ack)
		return rc;
	ft__mpi_wait(ops_done, &w);
	take_ack(win, w.one);
	e = op_error(w.one);
	reap(&win->ops, &win->opstail);
	if (e != 0)
		return ft__mpi_win_err(win, ft__mpi_rma_class(e), call,
		    "rank %d did not answer: %s", target, strerror(e));
	return MPI_SUCCESS;
}

int
ft__mpi_rma_ctl_all(MPI_Win win, const char *call, int kind, int arg,
    const int *only)
{
	struct opwait w = { win, -1, NULL };
	struct ft_rma_op *o;
	int rc = MPI_SUCCESS, i, e = 0;

	for (i = 0; i < win->size && rc == MPI_SUCCESS; i++)
		if (only == NULL || only[i])
			rc = ctl_start(win, call, kind, i, arg, 1, NULL);
	ft__mpi_wait(ops_done, &w);
	for (o = win->ops; o != NULL; o = o->next) {
		take_ack(win, o);
		if (e == 0)
			e = op_error(o);
	}
	reap(&win->ops, &win->opstail);
	if (rc == MPI_SUCCESS && e != 0)
		rc = ft__mpi_win_err(win, ft__mpi_rma_class(e), call,
		    "a target did not answer: %s", strerror(e));
	return rc;
}

int
ft__mpi_rma_flush_sent(MPI_Win win, const char *call)
{
	int *only, i, any = 0, rc;

	for (i = 0; i < win->size; i++)
		any |= win->sent[i] > 0;
	if (!any)
		return MPI_SUCCESS;
	if ((only = calloc((size_t)win->size, sizeof(*only))) == NULL)
		return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
		    "out of memory");
	for (i = 0; i < win->size; i++)
		only[i] = win->sent[i] > 0;
	rc = ft__mpi_rma_ctl_all(win, call, FT_RMA_FLUSH, 0, only);
	free(only);
	return rc;
}

struct postwait {
	MPI_Win	win;
	int	target;
};

static int
post_in(void *arg)
{
	const struct postwait *p = arg;

	return p->win->posts[p->target] > 0 ||
	    ft__mpi_rma_dead(p->win, p->target);
}

int
ft__mpi_rma_await_post(MPI_Win win, const char *call, int target)
{
	struct postwait p = { win, target };

	if (win->posted[target])
		return MPI_SUCCESS;
	ft__mpi_wait(post_in, &p);
	if (win->posts[target] == 0)
		return ft__mpi_win_err(win, MPIX_ERR_PROC_FAILED, call,
		    "rank %d failed before it posted", target);
	win->posts[target]--;
	win->posted[target] = 1;
	return MPI_SUCCESS;
}

/* May the caller access target now?  Which epoch allows it. */
static int
check_epoch(MPI_Win win, const char *call, int target)
{
	if (win->lock_all || win->locked[target] != FT_WIN_LOCK_NONE)
		return MPI_SUCCESS;
	if (win->naccess != 0) {
		if (!win->access[target])
			return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
			    "rank %d is not in the group of MPI_Win_start",
			    target);
		return ft__mpi_rma_await_post(win, call, target);
	}
	if (win->fence)
		return MPI_SUCCESS;
	return ft__mpi_win_err(win, MPI_ERR_RMA_SYNC, call,
	    "no access epoch is open with rank %d (a fence, MPI_Win_start "
	    "or a lock)", target);
}

/* What an operation is, for op_start. */
struct rma_args {
	int			 kind;
	const void		*oaddr;
	int			 ocount;
	MPI_Datatype		 otype;
	void			*raddr;		/* gets and fetches */
	int			 rcount;
	MPI_Datatype		 rtype;
	int			 target;
	MPI_Aint		 disp;
	int			 tcount;
	MPI_Datatype		 ttype;
	MPI_Op			 op;		/* accumulates */
	const void		*compare;	/* CAS */
};

static int
check_data(MPI_Win win, const char *call, const char *what, int count,
    MPI_Datatype type)
{
	if (count < 0)
		return ft__mpi_win_err(win, MPI_ERR_COUNT, call,
		    "negative %s count %d", what, count);
	if (!ft__mpi_type_ok(type))
		return ft__mpi_win_err(win, MPI_ERR_TYPE, call,
		    "invalid or uncommitted %s datatype", what);
	return MPI_SUCCESS;
}

/* Is the span of target data inside target's window? */
static int
in_range(MPI_Win win, const struct rma_args *a, const struct blks *b)
{
	MPI_Aint at, size = win->sizes[a->target];

	if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC || b->bytes == 0)
		return 1;	/* the target checks attached memory */
	at = a->disp * win->units[a->target];
	if (win->units[a->target] != 0 && at / win->units[a->target] !=
	    a->disp)
		return 0;	/* overflow */
	return at + b->lo >= 0 && at + b->hi <= size;
}

/*
 * Start operation a; with req, hand its completion to a new request
 * (the request-based calls).
 */
static int
op_start(MPI_Win win, const char *call, struct rma_args *a,
    MPI_Request *req)
{
	struct ft_rma_hdr *h;
	struct ft_rma_op *o;
	struct ft_mpi_req *ur = NULL;
	struct blks b;
	uint64_t obytes = 0;
	size_t len, unit = 0, i;
	uint8_t *p;
	int split, rc, acc = a->kind == FT_RMA_ACC || a->kind == FT_RMA_GACC ||
	    a->kind == FT_RMA_CAS, fetch = a->kind == FT_RMA_GET ||
	    a->kind == FT_RMA_GACC || a->kind == FT_RMA_CAS;
	int noop = a->op == MPI_NO_OP;

	if ((rc = ft__mpi_win_check(win, call)) != MPI_SUCCESS)
		return rc;
	if (req != NULL)
		*req = MPI_REQUEST_NULL;
	if (a->kind != FT_RMA_GET && !(a->kind == FT_RMA_GACC && noop) &&
	    (rc = check_data(win, call, "origin", a->ocount, a->otype)) !=
	    MPI_SUCCESS)
		return rc;
	if (a->kind == FT_RMA_GET && (rc = check_data(win, call, "origin",
	    a->ocount, a->otype)) != MPI_SUCCESS)
		return rc;
	if (a->kind == FT_RMA_GACC && (rc = check_data(win, call, "result",
	    a->rcount, a->rtype)) != MPI_SUCCESS)
		return rc;
	if ((rc = check_data(win, call, "target", a->tcount, a->ttype)) !=
	    MPI_SUCCESS)
		return rc;
	if (a->target == MPI_PROC_NULL) {
		if (req != NULL) {
			if ((ur = ft__mpi_req_new(FT_MPI_REQ_NULLPROC,
			    MPI_COMM_NULL)) == NULL)
				return ft__mpi_win_err(win, MPI_ERR_NO_MEM,
				    call, "out of memory");
			*req = ur;
		}
		return MPI_SUCCESS;
	}
	if (a->target < 0 || a->target >= win->size)
		return ft__mpi_win_err(win, MPI_ERR_RANK, call,
		    "target rank %d out of range (the window has %d)",
		    a->target, win->size);
	if (acc && (!ft__mpi_op_ok(a->op) || !a->op->predefined))
		return ft__mpi_win_err(win, MPI_ERR_OP, call,
		    "not a predefined operation");
	if ((rc = check_epoch(win, call, a->target)) != MPI_SUCCESS)
		return rc;
	if (blocks_of(a->ttype, a->tcount, &b) != 0)
		return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
		    "out of memory");
	if (acc && b.bytes > 0) {
		unit = ft__mpi_kind_size(b.kind);
		if (b.mixed || unit == 0) {
			free(b.v);
			return ft__mpi_win_err(win, MPI_ERR_TYPE, call,
			    "the target datatype is not made of one "
			    "predefined type (or of a pair type with "
			    "padding, which ft does not accumulate)");
		}
		if (ft__mpi_op_check_kind(a->op, b.kind) != MPI_SUCCESS) {
			free(b.v);
			return ft__mpi_win_err(win, MPI_ERR_OP, call,
			    "%s does not apply to the target datatype",
			    a->op->name);
		}
	}
	if (!in_range(win, a, &b)) {
		free(b.v);
		return ft__mpi_win_err(win, MPI_ERR_RMA_RANGE, call,
		    "bytes %td to %td of the target lie outside rank %d's "
		    "window of %td bytes", a->disp * win->units[a->target] +
		    (MPI_Aint)b.lo, a->disp * win->units[a->target] +
		    (MPI_Aint)b.hi, a->target, win->sizes[a->target]);
	}
	/* The data that travels, and what comes back. */
	if (a->kind == FT_RMA_PUT || a->kind == FT_RMA_ACC ||
	    (a->kind == FT_RMA_GACC && !noop))
		obytes = (uint64_t)a->ocount * a->otype->size;
	if (a->kind == FT_RMA_CAS)
		obytes = 2 * (uint64_t)a->otype->size;
	if (a->kind != FT_RMA_GET && a->kind != FT_RMA_CAS &&
	    !(a->kind == FT_RMA_GACC && noop) && obytes != b.bytes) {
		free(b.v);
		return ft__mpi_win_err(win, MPI_ERR_TYPE, call,
		    "the origin has %ju bytes of data, the target %ju",
		    (uintmax_t)obytes, (uintmax_t)b.bytes);
	}
	if (fetch && a->kind != FT_RMA_CAS && (uint64_t)(a->kind ==
	    FT_RMA_GET ? a->ocount * a->otype->size : a->rcount *
	    a->rtype->size) != b.bytes) {
		free(b.v);
		return ft__mpi_win_err(win, MPI_ERR_TYPE, call,
		    "the %s buffer does not hold the target's %ju bytes",
		    a->kind == FT_RMA_GET ? "origin" : "result",
		    (uintmax_t)b.bytes);
	}
	if ((o = op_new(win, a->target)) == NULL) {
		free(b.v);
		return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	if (b.n == 1 && b.v[0].off == 0)
		b.n = 0;
	split = a->kind == FT_RMA_PUT && obytes >= FT_RMA_SPLIT;
	len = sizeof(*h) + b.n * sizeof(struct blk) + (split ? 0 :
	    (size_t)obytes);
	if ((o->msg = malloc(len)) == NULL) {
		free(b.v);
		return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	h = o->msg;
	memset(h, 0, sizeof(*h));
	h->kind = (uint32_t)a->kind;
	h->disp = (int64_t)a->disp;
	h->bytes = b.bytes;
	h->nblk = (uint32_t)b.n;
	if (acc) {
		h->op = (uint32_t)a->op->code;
		h->elem = (uint32_t)b.kind;
		h->unit = unit;
	}
	p = (uint8_t *)(h + 1);
	for (i = 0; i < b.n; i++, p += sizeof(struct blk))
		memcpy(p, &b.v[i], sizeof(struct blk));
	free(b.v);
	if (split) {
		h->arg = FT_RMA_DATA;
		h->tag = next_tag(win);
	} else if (a->kind == FT_RMA_CAS) {
		memcpy(p, a->compare, a->otype->size);
		memcpy(p + a->otype->size, a->oaddr, a->otype->size);
	} else if (obytes > 0)
		ft__mpi_pack(a->oaddr, a->ocount, a->otype, p);
	if (fetch) {
		h->tag = next_tag(win);
		if (a->kind == FT_RMA_GET)
			rc = op_recv(win, call, o, a->raddr, a->ocount,
			    a->otype, h->tag);
		else if (a->kind == FT_RMA_CAS)
			rc = op_recv(win, call, o, a->raddr, 1, a->otype,
			    h->tag);
		else
			rc = op_recv(win, call, o, a->raddr, a->rcount,
			    a->rtype, h->tag);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	if ((rc = op_send(win, call, o, len)) != MPI_SUCCESS)
		return rc;
	/* The data follows the request, from the origin's buffer. */
	if (split && o->err == 0) {
		ft__mpi_req_init(&o->data, FT_MPI_REQ_SEND, win->comm);
		if ((rc = ft__mpi_isend_ctx(call, a->oaddr, a->ocount,
		    a->otype, a->target, h->tag, win->comm, win->comm->ctx,
		    &o->data)) != MPI_SUCCESS)
			return ft__mpi_win_err(win, rc, call, "unable to send "
			    "to rank %d", a->target);
		o->has_data = 1;
	}
	if (req != NULL) {
		if ((ur = ft__mpi_req_new(FT_MPI_REQ_COLL, MPI_COMM_NULL)) ==
		    NULL)
			return ft__mpi_win_err(win, MPI_ERR_NO_MEM, call,
			    "out of memory");
		ur->advance = NULL;
		ur->state = o;
		o->user = 1;
		*req = ur;
	}
	return MPI_SUCCESS;
}

/* The request of a request-based operation. */
static int
rreq_advance(struct ft_mpi_req *r)
{
	struct ft_rma_op *o = r->state;

	if (o == NULL || op_done(o))
		r->pt.done = 1;
	return r->pt.done;
}

static void
rreq_release(struct ft_mpi_req *r)
{
	struct ft_rma_op *o = r->state;

	r->state = NULL;
	if (o == NULL)
		return;
	if (o->reaped)
		op_free(o);
	else
		o->user = 0;
}

static int
op_request(MPI_Win win, const char *call, struct rma_args *a,
    MPI_Request *req)
{
	int rc;

	if (req == NULL)
		return ft__mpi_win_check(win, call) != MPI_SUCCESS ?
		    MPI_ERR_WIN : ft__mpi_win_err(win, MPI_ERR_REQUEST, call,
		    "NULL request");
	if ((rc = op_start(win, call, a, req)) != MPI_SUCCESS)
		return rc;
	if ((*req)->kind == FT_MPI_REQ_COLL) {
		(*req)->advance = rreq_advance;
		(*req)->release = rreq_release;
	}
	return MPI_SUCCESS;
}

int
PMPI_Put(const void *oaddr, int ocount, MPI_Datatype otype, int target,
    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
	struct rma_args a = { .kind = FT_RMA_PUT, .oaddr = oaddr,
	    .ocount = ocount, .otype = otype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype };

	return op_start(win, "MPI_Put", &a, NULL);
}

int
PMPI_Get(void *oaddr, int ocount, MPI_Datatype otype, int target,
    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
	struct rma_args a = { .kind = FT_RMA_GET, .raddr = oaddr,
	    .ocount = ocount, .otype = otype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype };

	return op_start(win, "MPI_Get", &a, NULL);
}

int
PMPI_Accumulate(const void *oaddr, int ocount, MPI_Datatype otype,
    int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
    MPI_Win win)
{
	struct rma_args a = { .kind = FT_RMA_ACC, .oaddr = oaddr,
	    .ocount = ocount, .otype = otype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype, .op = op };

	/* MPI_NO_OP leaves the target alone: nothing to send. */
	if (op == MPI_NO_OP && ft__mpi_win_ok(win))
		a.ocount = 0, a.tcount = 0;
	return op_start(win, "MPI_Accumulate", &a, NULL);
}

int
PMPI_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype,
    void *raddr, int rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
    int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
	struct rma_args a = { .kind = FT_RMA_GACC, .oaddr = oaddr,
	    .ocount = ocount, .otype = otype, .raddr = raddr,
	    .rcount = rcount, .rtype = rtype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype, .op = op };

	return op_start(win, "MPI_Get_accumulate", &a, NULL);
}

int
PMPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type,
    int target, MPI_Aint disp, MPI_Op op, MPI_Win win)
{
	struct rma_args a = { .kind = FT_RMA_GACC, .oaddr = oaddr,
	    .ocount = 1, .otype = type, .raddr = raddr, .rcount = 1,
	    .rtype = type, .target = target, .disp = disp, .tcount = 1,
	    .ttype = type, .op = op };

	return op_start(win, "MPI_Fetch_and_op", &a, NULL);
}

int
PMPI_Compare_and_swap(const void *oaddr, const void *compare, void *raddr,
    MPI_Datatype type, int target, MPI_Aint disp, MPI_Win win)
{
	struct rma_args a = { .kind = FT_RMA_CAS, .oaddr = oaddr,
	    .ocount = 1, .otype = type, .raddr = raddr, .rcount = 1,
	    .rtype = type, .target = target, .disp = disp, .tcount = 1,
	    .ttype = type, .op = MPI_REPLACE, .compare = compare };
	static const char call[] = "MPI_Compare_and_swap";

	if (ft__mpi_win_ok(win) && ft__mpi_type_ok(type) &&
	    !type->predefined)
		return ft__mpi_win_err(win, MPI_ERR_TYPE, call,
		    "not a predefined datatype");
	if (ft__mpi_win_ok(win) && (oaddr == NULL || compare == NULL ||
	    raddr == NULL))
		return ft__mpi_win_err(win, MPI_ERR_BUFFER, call,
		    "NULL buffer");
	return op_start(win, call, &a, NULL);
}

int
PMPI_Rput(const void *oaddr, int ocount, MPI_Datatype otype, int target,
    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win,
    MPI_Request *req)
{
	struct rma_args a = { .kind = FT_RMA_PUT, .oaddr = oaddr,
	    .ocount = ocount, .otype = otype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype };

	return op_request(win, "MPI_Rput", &a, req);
}

int
PMPI_Rget(void *oaddr, int ocount, MPI_Datatype otype, int target,
    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win,
    MPI_Request *req)
{
	struct rma_args a = { .kind = FT_RMA_GET, .raddr = oaddr,
	    .ocount = ocount, .otype = otype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype };

	return op_request(win, "MPI_Rget", &a, req);
}

int
PMPI_Raccumulate(const void *oaddr, int ocount, MPI_Datatype otype,
    int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
    MPI_Win win, MPI_Request *req)
{
	struct rma_args a = { .kind = FT_RMA_ACC, .oaddr = oaddr,
	    .ocount = ocount, .otype = otype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype, .op = op };

	if (op == MPI_NO_OP && ft__mpi_win_ok(win))
		a.ocount = 0, a.tcount = 0;
	return op_request(win, "MPI_Raccumulate", &a, req);
}

int
PMPI_Rget_accumulate(const void *oaddr, int ocount, MPI_Datatype otype,
    void *raddr, int rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
    int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
{
	struct rma_args a = { .kind = FT_RMA_GACC, .oaddr = oaddr,
	    .ocount = ocount, .otype = otype, .raddr = raddr,
	    .rcount = rcount, .rtype = rtype, .target = target, .disp = disp,
	    .tcount = tcount, .ttype = ttype, .op = op };

	return op_request(win, "MPI_Rget_accumulate", &a, req);
}

/* The target's side --------------------------------------------------- */

/* The predefined operation of code, or NULL. */
static MPI_Op
op_of(uint32_t code)
{
	MPI_Op o;
	size_t i;

	for (i = 0; (o = ft__mpi_op_predef(i)) != NULL; i++)
		if ((uint32_t)o->code == code)
			return o;
	return NULL;
}

/*
 * Send a reply of len bytes at buf to src: taken (the reply frees it)
 * when own, else the window's memory itself, which stays until the
 * send is done (MPI_Win_free waits for it).
 */
static void
reply_buf(MPI_Win win, int src, int32_t tag, void *buf, size_t len, int own)
{
	struct ft_rma_op *o;

	/* ULFM: nobody waits for it any more. */
	if (ft__mpi_rma_dead(win, src)) {
		if (own)
			free(buf);
		return;
	}
	if ((o = calloc(1, sizeof(*o))) == NULL) {
		if (own)
			free(buf);
		ft__mpi_abort(FT_EXIT_TEMP, "one-sided reply: out of memory");
	}
	o->target = src;
	o->msg = own ? buf : NULL;
	ft__mpi_req_init(&o->send, FT_MPI_REQ_SEND, win->comm);
	if (ft__mpi_isend_ctx("one-sided reply", buf, (int)len, MPI_BYTE, src,
	    tag, win->comm, win->comm->ctx, &o->send) != MPI_SUCCESS) {
		op_free(o);
		return;
	}
	o->has_send = 1;
	*win->repliestail = o;
	win->repliestail = &o->next;
}

static void
reply(MPI_Win win, int src, int32_t tag, void *buf, size_t len)
{
	reply_buf(win, src, tag, buf, len, 1);
}

static void
ack(MPI_Win win, int src, int32_t tag, int32_t value)
{
	int32_t *v;

	if ((v = malloc(sizeof(*v))) == NULL)
		ft__mpi_abort(FT_EXIT_TEMP, "one-sided reply: out of memory");
	*v = value;
	reply(win, src, tag, v, sizeof(*v));
}

/* Is [p, p + len) memory of the window here? */
static int
mem_ok(MPI_Win win, uintptr_t p, uint64_t len)
{
	uintptr_t b = (uintptr_t)win->base;
	int i;

	if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return p >= b && len <= (uint64_t)win->wsize &&
		    p - b <= (uint64_t)win->wsize - len;
	for (i = 0; i < win->nregions; i++) {
		b = win->regions[i].base;
		if (p >= b && len <= win->regions[i].size &&
		    p - b <= win->regions[i].size - len)
			return 1;
	}
	return 0;
}

/* Gather the target data of the blocks into out. */
static void
gather(uintptr_t at, const struct blk *v, uint32_t n, uint64_t bytes,
    uint8_t *out)
{
	uint32_t i;

	if (n == 0) {
		memcpy(out, (void *)at, bytes);
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(out, (void *)(at + (uintptr_t)v[i].off), v[i].len);
		out += v[i].len;
	}
}

/* Combine data into the target blocks with op (elements of unit). */
static void
combine(uintptr_t at, const struct blk *v, uint32_t n, uint64_t bytes,
    const uint8_t *data, MPI_Op op, enum ft_type_kind k, size_t unit)
{
	struct blk one = { 0, bytes };
	uint32_t i;

	if (n == 0) {
		v = &one;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		void *dst = (void *)(at + (uintptr_t)v[i].off);

		if (v[i].len == 0 || unit == 0)
			continue;	/* nothing (apply checked unit) */
		if (op->code == FT_OP_REPLACE)
			memcpy(dst, data, v[i].len);
		else if (op->code != FT_OP_NO_OP)
			(void)ft__mpi_op_apply_kind(op, k, data, dst,
			    v[i].len / unit);
		data += v[i].len;
	}
}

/* Origin src lets go of its lock, held or still asked for. */
static void
unlock(MPI_Win win, int src)
{
	int k;

	if (win->held[src] == FT_WIN_LOCK_EXCL && win->excl == src)
		win->excl = -1;
	else if (win->held[src] == FT_WIN_LOCK_SHARED && win->nshared > 0)
		win->nshared--;
	win->held[src] = FT_WIN_LOCK_NONE;
	for (k = 0; k < win->nwaiting; k++)
		if (win->waiting[k].src == src) {
			memmove(&win->waiting[k], &win->waiting[k + 1],
			    (size_t)(win->nwaiting - k - 1) *
			    sizeof(win->waiting[0]));
			win->nwaiting--;
			k--;
		}
}

/* Grant what the lock queue allows, in order. */
static void
grant_waiting(MPI_Win win)
{
	struct ft_rma_wait *q;

	while (win->nwaiting > 0) {
		q = &win->waiting[0];
		if (win->excl != -1 || (q->type == MPI_LOCK_EXCLUSIVE &&
		    win->nshared > 0))
			return;
		if (q->type == MPI_LOCK_EXCLUSIVE)
			win->excl = q->src;
		else
			win->nshared++;
		win->held[q->src] = q->type == MPI_LOCK_EXCLUSIVE ?
		    FT_WIN_LOCK_EXCL : FT_WIN_LOCK_SHARED;
		ack(win, q->src, q->tag, 0);
		memmove(q, q + 1, (size_t)--win->nwaiting * sizeof(*q));
	}
}

static void
lock_req(MPI_Win win, int src, int type, int32_t tag)
{
	struct ft_rma_wait *nq;
	int cap;

	if (win->nwaiting == win->capwaiting) {
		cap = win->capwaiting == 0 ? 4 : win->capwaiting * 2;
		if ((nq = reallocarray(win->waiting, (size_t)cap,
		    sizeof(*nq))) == NULL)
			ft__mpi_abort(FT_EXIT_TEMP, "MPI_Win_lock: out of "
			    "memory at the target");
		win->waiting = nq;
		win->capwaiting = cap;
	}
	win->waiting[win->nwaiting++] = (struct ft_rma_wait){ src, type, tag };
	grant_waiting(win);
}

/* Apply one request from src (len bytes at buf). */
static void
apply(MPI_Win win, int src, uint8_t *buf, size_t len, const uint8_t *ext)
{
	struct ft_rma_hdr h;
	struct blk *v = NULL;
	const uint8_t *data = buf;
	uint8_t *out;
	uintptr_t at;
	uint64_t sum = 0;
	uint32_t i;
	MPI_Op op = NULL;
	size_t unit = 0;
	int bad = 0;

	if (len < sizeof(h)) {
		ft_warnx("one-sided: a request of %zu bytes from rank %d is "
		    "too short; ignored", len, src);
		return;
	}
	memcpy(&h, buf, sizeof(h));
	switch (h.kind) {
	case FT_RMA_LOCK:
		lock_req(win, src, (int)h.arg, h.tag);
		return;
	case FT_RMA_UNLOCK:
		unlock(win, src);
		ack(win, src, h.tag, win->terr[src]);
		win->terr[src] = 0;
		grant_waiting(win);
		return;
	case FT_RMA_FLUSH:
		ack(win, src, h.tag, win->terr[src]);
		win->terr[src] = 0;
		return;
	case FT_RMA_POST:
		win->posts[src]++;
		return;
	case FT_RMA_COMPLETE:
		win->completes++;
		return;
	case FT_RMA_PUT:
	case FT_RMA_GET:
	case FT_RMA_ACC:
	case FT_RMA_GACC:
	case FT_RMA_CAS:
		break;
	default:
		ft_warnx("one-sided: unknown request %u from rank %d; "
		    "ignored", h.kind, src);
		return;
	}
	/* The layout, checked against the message and the window. */
	if (h.nblk > (len - sizeof(h)) / sizeof(struct blk))
		bad = 1;
	else {
		v = (struct blk *)(buf + sizeof(h));
		data = buf + sizeof(h) + h.nblk * sizeof(struct blk);
	}
	at = win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (uintptr_t)h.disp :
	    (uintptr_t)win->base + (uintptr_t)(h.disp * win->disp_unit);
	for (i = 0; !bad && i < h.nblk; i++) {
		struct blk b;

		memcpy(&b, &v[i], sizeof(b));
		if (!mem_ok(win, at + (uintptr_t)b.off, b.len))
			bad = 1;
		sum += b.len;
	}
	if (!bad && h.nblk == 0) {
		sum = h.bytes;
		bad = h.bytes > 0 && !mem_ok(win, at, h.bytes);
	}
	if (!bad && sum != h.bytes)
		bad = 1;
	if (!bad && (h.kind == FT_RMA_ACC || h.kind == FT_RMA_GACC ||
	    h.kind == FT_RMA_CAS)) {
		op = op_of(h.op);
		unit = h.unit;
		if (op == NULL || (h.bytes > 0 && (unit == 0 ||
		    unit != ft__mpi_kind_size((enum ft_type_kind)h.elem))))
			bad = 1;
	}
	if (!bad) {
		uint64_t want = h.kind == FT_RMA_PUT || h.kind == FT_RMA_ACC ?
		    h.bytes : h.kind == FT_RMA_CAS ? 2 * h.bytes : 0;

		/* A split put's data came on its own (ext). */
		if (h.kind == FT_RMA_PUT && h.arg == FT_RMA_DATA) {
			want = 0;
			if (ext == NULL && h.bytes > 0)
				bad = 1;
		}

		if (h.kind == FT_RMA_GACC)
			want = len - (size_t)(data - buf);
		if ((uint64_t)(len - (size_t)(data - buf)) != want ||
		    (h.kind == FT_RMA_GACC && want != 0 && want != h.bytes))
			bad = 1;
	}
	if (bad) {
		if (win->terr[src] == 0)
			win->terr[src] = MPI_ERR_RMA_RANGE;
		if (h.kind == FT_RMA_GET || h.kind == FT_RMA_GACC ||
		    h.kind == FT_RMA_CAS)
			reply(win, src, h.tag, NULL, 0);
		return;
	}
	/* Blocks may sit unaligned in the message: copy them out. */
	if (h.nblk > 0) {
		struct blk *cv;

		if ((cv = malloc(h.nblk * sizeof(*cv))) == NULL)
			ft__mpi_abort(FT_EXIT_TEMP, "one-sided: out of memory");
		memcpy(cv, v, h.nblk * sizeof(*cv));
		v = cv;
	} else
		v = NULL;
	switch (h.kind) {
	case FT_RMA_PUT:
		combine(at, v, h.nblk, h.bytes, h.arg == FT_RMA_DATA ? ext :
		    data, MPI_REPLACE, FT_TK_DERIVED, 1);
		break;
	case FT_RMA_ACC:
		combine(at, v, h.nblk, h.bytes, data, op,
		    (enum ft_type_kind)h.elem, unit);
		break;
	case FT_RMA_GET:
		/* One block: straight from the window, no copy. */
		if (h.nblk == 0) {
			reply_buf(win, src, h.tag, (void *)at, h.bytes, 0);
			break;
		}
		/* FALLTHROUGH */
	case FT_RMA_GACC:
		if ((out = malloc(h.bytes > 0 ? h.bytes : 1)) == NULL)
			ft__mpi_abort(FT_EXIT_TEMP, "one-sided: out of memory");
		gather(at, v, h.nblk, h.bytes, out);
		if (h.kind == FT_RMA_GACC && len - (size_t)(data - buf) > 0)
			combine(at, v, h.nblk, h.bytes, data, op,
			    (enum ft_type_kind)h.elem, unit);
		reply(win, src, h.tag, out, h.bytes);
		break;
	case FT_RMA_CAS:
		if ((out = malloc(h.bytes > 0 ? h.bytes : 1)) == NULL)
			ft__mpi_abort(FT_EXIT_TEMP, "one-sided: out of memory");
		memcpy(out, (void *)at, h.bytes);
		if (memcmp(out, data, h.bytes) == 0)
			memcpy((void *)at, data + h.bytes, h.bytes);
		reply(win, src, h.tag, out, h.bytes);
		break;
	}
	free(v);
}

/*
 * ULFM: let go of the locks that dead origins hold or wait for, once
 * for each new failure, so that the others may go on.
 */
static void
drop_dead(MPI_Win win)
{
	struct ft_ext x = { .op = FT_EXT_FAILED };
	uint32_t known;
	int i;

	if (ft_pt_ext(ft__mpi.pt, &x) != 0)
		return;
	known = x.ndead;

	if (known == win->known)
		return;
	win->known = known;
	for (i = 0; i < win->size; i++)
		if (ft__mpi_rma_dead(win, i))
			unlock(win, i);
	grant_waiting(win);
}

/*
 * If in is a split put, post the receive of its data, straight into
 * the window when the target data is one block in it, else into tmp
 * for apply to place (or to drop, when it is bad); returns 1 then, and
 * in waits for its data.
 */
static int
split_start(MPI_Win win, struct ft_rma_in *in)
{
	struct ft_rma_hdr h;
	uintptr_t at;
	void *dst;
	int src = in->r.pt.st.source;

	if (in->r.pt.st.bytes < sizeof(h))
		return 0;
	memcpy(&h, in->buf, sizeof(h));
	if (h.kind != FT_RMA_PUT || h.arg != FT_RMA_DATA || h.bytes == 0 ||
	    h.bytes > INT32_MAX)
		return 0;
	at = win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (uintptr_t)h.disp :
	    (uintptr_t)win->base + (uintptr_t)(h.disp * win->disp_unit);
	in->split = 1;
	if (h.nblk == 0 && in->r.pt.st.bytes == sizeof(h) &&
	    mem_ok(win, at, h.bytes)) {
		in->inplace = 1;
		dst = (void *)at;
	} else if ((dst = in->tmp = malloc(h.bytes)) == NULL)
		ft__mpi_abort(FT_EXIT_TEMP, "one-sided: out of memory");
	ft__mpi_req_init(&in->data, FT_MPI_REQ_RECV, win->comm);
	if (ft__mpi_irecv_ctx("one-sided progress", dst, (int)h.bytes,
	    MPI_BYTE, src, h.tag, win->comm, win->comm->ctx, &in->data) !=
	    MPI_SUCCESS) {
		/* Nothing will come: the request is dropped. */
		in->inplace = 1;
		in->data.pt.done = 1;
	}
	return 1;
}

/* Claim the requests that arrived for win, and apply them in order. */
static void
win_tick(MPI_Win win)
{
	struct ft_pt_status st;
	struct ft_rma_in *in;
	void *msg;

	if (ft__mpi.ulfm)
		drop_dead(win);

	while (ft_pt_improbe(ft__mpi.pt, FT_PT_ANY, FT_RMA_TAG_REQ,
	    win->comm->ctx, &st, &msg) == 1) {
		if ((in = calloc(1, sizeof(*in))) == NULL ||
		    (in->buf = malloc(st.msglen > 0 ? st.msglen : 1)) == NULL)
			ft__mpi_abort(FT_EXIT_TEMP, "one-sided: out of memory");
		in->len = st.msglen;
		ft__mpi_req_init(&in->r, FT_MPI_REQ_RECV, win->comm);
		if (ft__mpi_mrecv_start("one-sided progress", in->buf,
		    (int)in->len, MPI_BYTE, win->comm, msg, &in->r) !=
		    MPI_SUCCESS) {
			free(in->buf);
			free(in);
			continue;
		}
		*win->intail = in;
		win->intail = &in->next;
	}
	while ((in = win->in) != NULL && in->r.pt.done) {
		if (!in->split && in->r.pt.st.error == 0 &&
		    split_start(win, in) != 0)
			continue;	/* its data comes next */
		if (in->split && !in->data.pt.done)
			break;
		if ((win->in = in->next) == NULL)
			win->intail = &win->in;
		if (in->r.pt.st.error == 0 && !in->inplace &&
		    (!in->split || in->data.pt.st.error == 0))
			apply(win, in->r.pt.st.source, in->buf,
			    in->r.pt.st.bytes, in->tmp);
		ft__mpi_req_cleanup(&in->r);
		if (in->split)
			ft__mpi_req_cleanup(&in->data);
		free(in->tmp);
		free(in->buf);
		free(in);
	}
	if (win->replies != NULL)
		reap(&win->replies, &win->repliestail);
}

void
ft__mpi_rma_tick(void)
{
	static int busy;
	MPI_Win w;

	if (busy || ft__mpi.pt == NULL)
		return;
	busy = 1;
	for (w = ft__mpi_win_first(); w != NULL; w = w->next)
		win_tick(w);
	busy = 0;
}

struct dropwait {
	MPI_Win	win;
};

static int
replies_out(void *arg)
{
	const struct dropwait *d = arg;
	const struct ft_rma_op *o;

	for (o = d->win->replies; o != NULL; o = o->next)
		if (!op_done(o))
			return 0;
	return 1;
}

void
ft__mpi_rma_drop(MPI_Win win)
{
	struct dropwait d = { win };
	struct ft_rma_in *in;

	ft__mpi_wait(replies_out, &d);
	reap(&win->replies, &win->repliestail);
	reap(&win->ops, &win->opstail);
	/*
	 * Nothing is left but what a dead origin (ULFM) may have half
	 * sent: the engine still refers to such a receive, so it is left
	 * behind, never freed.
	 */
	while ((in = win->in) != NULL) {
		win->in = in->next;
		if (!in->r.pt.done)
			continue;
		ft__mpi_req_cleanup(&in->r);
		free(in->buf);
		free(in);
	}
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Put = PMPI_Put
#pragma weak MPI_Get = PMPI_Get
#pragma weak MPI_Accumulate = PMPI_Accumulate
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
#pragma weak MPI_Rput = PMPI_Rput
#pragma weak MPI_Rget = PMPI_Rget
#pragma weak MPI_Raccumulate = PMPI_Raccumulate
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
