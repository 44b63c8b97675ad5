/* SPDX-License-Identifier: ISC */
/*
 * MPI point-to-point: argument checks with the right error class, the
 * send modes, requests and their completion calls.  Messages become bytes
 * and world ranks here and go down to lib/pt2pt.
 */
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>

#include "mpi_impl.h"

#define TAG_UB	INT32_MAX

static int
check_args(const char *call, const void *buf, int count, MPI_Datatype type,
    int peer, int tag, MPI_Comm comm, int recv)
{
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, call,
		    "invalid communicator");
	if (count < 0)
		return ft__mpi_err(comm, MPI_ERR_COUNT, call,
		    "negative count %d", count);
	if (!ft__mpi_type_ok(type))
		return ft__mpi_err(comm, MPI_ERR_TYPE, call,
		    "invalid datatype");
	/* Derived types may address absolute memory from MPI_BOTTOM. */
	if (buf == NULL && count > 0 && type->size > 0 && type->predefined)
		return ft__mpi_err(comm, MPI_ERR_BUFFER, call,
		    "NULL buffer with count %d", count);
	if (peer != MPI_PROC_NULL && !(recv && peer == MPI_ANY_SOURCE) &&
	    (peer < 0 || peer >= ft__mpi_comm_peers(comm)))
		return ft__mpi_err(comm, MPI_ERR_RANK, call,
		    "invalid rank %d in a %s of size %d", peer,
		    FT_MPI_INTER(comm) ? "remote group" : "communicator",
		    ft__mpi_comm_peers(comm));
	if (!(recv && tag == MPI_ANY_TAG) && (tag < 0 || tag > TAG_UB))
		return ft__mpi_err(comm, MPI_ERR_TAG, call, "invalid tag %d",
		    tag);
	if (ft__mpi.ulfm && ft__mpi_ulfm_revoked(comm))
		return ft__mpi_err(comm, MPIX_ERR_REVOKED, call,
		    "the communicator is revoked");
	return ft__mpi_ftmpi_check(comm, call, peer);
}

/* See mpi_impl.h. */
int
ft__mpi_check_p2p(const char *call, const void *buf, int count,
    MPI_Datatype type, int peer, int tag, MPI_Comm comm, int recv)
{
	return check_args(call, buf, count, type, peer, tag, comm, recv);
}

static int
req_done(void *arg)
{
	return ((struct ft_req *)arg)->done;
}

static void
status_empty(MPI_Status *st)
{
	if (st == MPI_STATUS_IGNORE)
		return;
	st->MPI_SOURCE = MPI_ANY_SOURCE;
	st->MPI_TAG = MPI_ANY_TAG;
	st->MPI_ERROR = MPI_SUCCESS;
	st->ft_cancelled = 0;
	st->ft_bytes = 0;
}

/* See mpi_impl.h. */
void
ft__mpi_status_set(MPI_Status *st, int source, int tag, size_t bytes)
{
	status_empty(st);
	if (st == MPI_STATUS_IGNORE)
		return;
	st->MPI_SOURCE = source;
	st->MPI_TAG = tag;
	st->ft_bytes = bytes;
}

static void
status_procnull(MPI_Status *st)
{
	ft__mpi_status_set(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
}

/* The error class a completed request carries. */
static int
req_error(const struct ft_mpi_req *r)
{
	int cls;

	if (r->err != 0)
		return r->err;
	if (r->kind == FT_MPI_REQ_RECV && r->pt.st.error == EMSGSIZE)
		return MPI_ERR_TRUNCATE;
	if ((r->kind == FT_MPI_REQ_RECV || r->kind == FT_MPI_REQ_SEND) &&
	    (cls = ft__mpi_ulfm_class(r->pt.st.error)) != 0)
		return cls;
	return MPI_SUCCESS;
}

/*
 * ULFM: an ANY_SOURCE receive not matched yet, on a communicator with a
 * failure the application has not acknowledged, stops waiting (and
 * reports MPIX_ERR_PROC_FAILED_PENDING, still pending).
 */
static int
any_pending(const struct ft_mpi_req *r)
{
	return ft__mpi.ulfm && r->kind == FT_MPI_REQ_RECV &&
	    !r->pt.done && r->pt.posted && r->pt.src == FT_PT_ANY &&
	    ft__mpi_ulfm_unacked(r->comm);
}

static int	mreq_done(struct ft_mpi_req *);

/* Done, or (ULFM) an ANY_SOURCE receive that stops waiting. */
static int
ready(struct ft_mpi_req *r)
{
	return mreq_done(r) || any_pending(r) || ft__mpi_ftmpi_pending(r);
}

static int
ready_cb(void *arg)
{
	return ready(arg);
}

static void
status_from(const struct ft_mpi_req *r, MPI_Status *st)
{
	if (st == MPI_STATUS_IGNORE)
		return;
	if (r->kind == FT_MPI_REQ_NULLPROC) {
		status_procnull(st);
		return;
	}
	status_empty(st);
	st->ft_cancelled = r->pt.st.cancelled;
	if (r->kind != FT_MPI_REQ_RECV || r->pt.st.cancelled)
		return;
	st->MPI_SOURCE = r->pt.st.source;
	st->MPI_TAG = r->pt.st.tag;
	st->MPI_ERROR = req_error(r);
	st->ft_bytes = r->pt.st.bytes;
}

static void	req_dealloc(struct ft_mpi_req *);

/* Segments move when bsend_alloc compacts: find them by offset. */
static void
bsend_release(long off)
{
	int i;

	if (off < 0)
		return;
	for (i = 0; i < ft__mpi.nbsegs; i++)
		if (ft__mpi.bsegs[i].used && ft__mpi.bsegs[i].off ==
		    (size_t)off) {
			ft__mpi.bsegs[i].used = 0;
			return;
		}
}

/* Returns what the request's on_free hook returns. */
static int
req_free(struct ft_mpi_req *r)
{
	int rc = r->on_free != NULL ? r->on_free(r) : MPI_SUCCESS;

	bsend_release(r->bsend_seg);
	if (r->release != NULL)
		r->release(r);
	free(r->packbuf);
	ft__mpi_type_release(r->utype);
	req_dealloc(r);
	return rc;
}

int
ft__mpi_req_free(struct ft_mpi_req *r)
{
	return req_free(r);
}

/* Null handles and inactive persistent requests complete at once. */
static int
req_is_null(MPI_Request r)
{
	return r == MPI_REQUEST_NULL || (r->persistent && !r->active);
}

static int
mreq_done(struct ft_mpi_req *r)
{
	if (!r->pt.done && r->advance != NULL)
		(void)r->advance(r);
	return r->pt.done;
}

static int
mreq_done_cb(void *arg)
{
	return mreq_done(arg);
}

/*
 * pt2pt completion: unpack what arrived packed, give back buffered-mode
 * space, free a request the application already let go.
 */
static void
on_req_done(struct ft_req *pr)
{
	struct ft_mpi_req *r = pr->user;

	if (r->packbuf != NULL && r->kind == FT_MPI_REQ_RECV &&
	    !pr->st.cancelled)
		ft__mpi_unpack(r->packbuf, pr->st.bytes, r->ubuf, r->ucount,
		    r->utype);
	free(r->packbuf);
	r->packbuf = NULL;
	ft__mpi_type_release(r->utype);
	r->utype = NULL;
	bsend_release(r->bsend_seg);
	r->bsend_seg = -1;
	if (r->freed)
		req_dealloc(r);
}

void
ft__mpi_req_init(struct ft_mpi_req *r, enum ft_mpi_req_kind kind,
    MPI_Comm comm)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->comm = comm;
	r->bsend_seg = -1;
	r->pt.on_done = on_req_done;
	r->pt.user = r;
	if (kind == FT_MPI_REQ_NULLPROC)
		r->pt.done = 1;
}

void
ft__mpi_req_cleanup(struct ft_mpi_req *r)
{
	free(r->packbuf);
	r->packbuf = NULL;
	ft__mpi_type_release(r->utype);
	r->utype = NULL;
}

/*
 * A request handed to the application holds its communicator: MPI_Comm_free
 * only marks a communicator for deallocation while operations on it are
 * pending (MPI-3.1 section 6.4.3), and a persistent request may be started
 * again after it.
 */
static struct ft_mpi_req *
req_new(enum ft_mpi_req_kind kind, MPI_Comm comm)
{
	struct ft_mpi_req *r;

	if ((r = malloc(sizeof(*r))) == NULL)
		return NULL;
	ft__mpi_req_init(r, kind, comm);
	if (comm != MPI_COMM_NULL)
		ft__mpi_comm_hold(comm);
	return r;
}

/* Free a request from req_new; r->comm is the one it was made on. */
static void
req_dealloc(struct ft_mpi_req *r)
{
	ft__mpi_fint_forget(FT_FINT_REQUEST, r);
	if (r->comm != MPI_COMM_NULL)
		ft__mpi_comm_release(r->comm);
	free(r);
}

struct ft_mpi_req *
ft__mpi_req_new(enum ft_mpi_req_kind kind, MPI_Comm comm)
{
	return req_new(kind, comm);
}

static int
send_bytes_ctx(const char *call, const void *data, size_t len, int dest,
    int tag, MPI_Comm comm, uint32_t ctx, int mode, struct ft_req *pr)
{
	if (ft__mpi.kill_after != 0 && ++ft__mpi.sends > ft__mpi.kill_after) {
		/* A fault the user asked ftrun to inject. */
		(void)raise(ft__mpi.kill_signal);
		_exit(128 + ft__mpi.kill_signal);
	}
	if (ft_pt_isend(ft__mpi.pt, pr, data, len,
	    ft__mpi_comm_peer(comm, dest), ctx, (uint32_t)comm->rank, tag,
	    mode) != 0)
		return ft__mpi_err(comm, errno == ENOMEM ? MPI_ERR_NO_MEM :
		    MPI_ERR_OTHER, call, "unable to send to rank %d: %s",
		    dest, strerror(errno));
	return MPI_SUCCESS;
}

static int
send_bytes(const char *call, const void *data, size_t len, int dest, int tag,
    MPI_Comm comm, int mode, struct ft_req *pr)
{
	return send_bytes_ctx(call, data, len, dest, tag, comm, comm->ctx,
	    mode, pr);
}

/*
 * Start a send of count elements of type on context ctx: straight from
 * buf when they form one dense block, else packed into *pack (the caller
 * frees it once the send is done).
 */
static int
start_send_ctx(const char *call, const void *buf, int count,
    MPI_Datatype type, int dest, int tag, MPI_Comm comm, uint32_t ctx,
    int mode, struct ft_req *pr, void **pack)
{
	size_t len = (size_t)count * type->size;
	MPI_Aint off;
	int rc;

	*pack = NULL;
	/*
	 * The data starts off bytes from buf, which may be MPI_BOTTOM (a
	 * null pointer) under a type of absolute addresses.
	 */
	if (ft__mpi_type_dense(type, count, &off))
		return send_bytes_ctx(call, ft__mpi_addr(buf, off), len, dest,
		    tag, comm, ctx, mode, pr);
	if ((*pack = malloc(len > 0 ? len : 1)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	ft__mpi_pack(buf, count, type, *pack);
	if ((rc = send_bytes_ctx(call, *pack, len, dest, tag, comm, ctx, mode,
	    pr)) != MPI_SUCCESS) {
		free(*pack);
		*pack = NULL;
	}
	return rc;
}

static int
start_send(const char *call, const void *buf, int count, MPI_Datatype type,
    int dest, int tag, MPI_Comm comm, int mode, struct ft_req *pr,
    void **pack)
{
	return start_send_ctx(call, buf, count, type, dest, tag, comm,
	    comm->ctx, mode, pr, pack);
}

int
ft__mpi_isend_mode_ctx(const char *call, const void *buf, int count,
    MPI_Datatype type, int dest, int tag, MPI_Comm comm, uint32_t ctx,
    int mode, struct ft_mpi_req *r)
{
	if (dest == MPI_PROC_NULL) {
		r->kind = FT_MPI_REQ_NULLPROC;
		r->pt.done = 1;
		return MPI_SUCCESS;
	}
	return start_send_ctx(call, buf, count, type, dest, tag, comm, ctx,
	    mode, &r->pt, &r->packbuf);
}

int
ft__mpi_isend_ctx(const char *call, const void *buf, int count,
    MPI_Datatype type, int dest, int tag, MPI_Comm comm, uint32_t ctx,
    struct ft_mpi_req *r)
{
	return ft__mpi_isend_mode_ctx(call, buf, count, type, dest, tag, comm,
	    ctx, FT_SEND_STANDARD, r);
}

static int
blocking_send(const char *call, const void *buf, int count,
    MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode)
{
	struct ft_req r;
	void *pack;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if ((rc = check_args(call, buf, count, type, dest, tag, comm, 0)) !=
	    MPI_SUCCESS)
		return rc;
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	r.on_done = NULL;
	r.user = NULL;
	if ((rc = start_send(call, buf, count, type, dest, tag, comm, mode,
	    &r, &pack)) != MPI_SUCCESS)
		return rc;
	ft__mpi_wait(req_done, &r);
	free(pack);
	if ((rc = ft__mpi_ulfm_class(r.st.error)) != 0)
		return ft__mpi_err(comm, rc, call, "unable to send to rank "
		    "%d: %s", dest, rc == MPIX_ERR_REVOKED ? "the "
		    "communicator is revoked" : "it has failed");
	return MPI_SUCCESS;
}

int
PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm)
{
	return blocking_send("MPI_Send", buf, count, type, dest, tag, comm,
	    FT_SEND_STANDARD);
}

int
PMPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm)
{
	return blocking_send("MPI_Ssend", buf, count, type, dest, tag, comm,
	    FT_SEND_SYNC);
}

/* A ready-mode send may be a standard one: the receive is posted. */
int
PMPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm)
{
	return blocking_send("MPI_Rsend", buf, count, type, dest, tag, comm,
	    FT_SEND_STANDARD);
}

static int
nonblocking_send(const char *call, const void *buf, int count,
    MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode,
    MPI_Request *req)
{
	struct ft_mpi_req *r;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if (req == NULL)
		return ft__mpi_err(comm, MPI_ERR_REQUEST, call,
		    "NULL request");
	if ((rc = check_args(call, buf, count, type, dest, tag, comm, 0)) !=
	    MPI_SUCCESS)
		return rc;
	if ((r = req_new(dest == MPI_PROC_NULL ? FT_MPI_REQ_NULLPROC :
	    FT_MPI_REQ_SEND, comm)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	if (dest != MPI_PROC_NULL &&
	    (rc = start_send(call, buf, count, type, dest, tag, comm, mode,
	    &r->pt, &r->packbuf)) != MPI_SUCCESS) {
		req_dealloc(r);
		return rc;
	}
	/* An eager send completed inside start_send, before packbuf was
	 * recorded: nothing refers to the packed copy any more. */
	if (r->pt.done && r->packbuf != NULL) {
		free(r->packbuf);
		r->packbuf = NULL;
	}
	*req = r;
	return MPI_SUCCESS;
}

int
PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm, MPI_Request *req)
{
	return nonblocking_send("MPI_Isend", buf, count, type, dest, tag, comm,
	    FT_SEND_STANDARD, req);
}

int
PMPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm, MPI_Request *req)
{
	return nonblocking_send("MPI_Issend", buf, count, type, dest, tag,
	    comm, FT_SEND_SYNC, req);
}

int
PMPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm, MPI_Request *req)
{
	return nonblocking_send("MPI_Irsend", buf, count, type, dest, tag,
	    comm, FT_SEND_STANDARD, req);
}

int
PMPI_Buffer_attach(void *buf, int size)
{
	FT_MPI_CHECK_INIT("MPI_Buffer_attach");
	if (ft__mpi.bbuf != NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER,
		    "MPI_Buffer_attach", "a buffer is already attached");
	if (size < 0 || (buf == NULL && size > 0))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER,
		    "MPI_Buffer_attach", "invalid buffer");
	ft__mpi.bbuf = buf;
	ft__mpi.bsize = (size_t)size;
	ft__mpi.nbsegs = 0;
	return MPI_SUCCESS;
}

static int
bsends_idle(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ft__mpi.nbsegs; i++)
		if (ft__mpi.bsegs[i].used)
			return 0;
	return 1;
}

int
PMPI_Buffer_detach(void *bufp, int *size)
{
	FT_MPI_CHECK_INIT("MPI_Buffer_detach");
	if (bufp == NULL || size == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Buffer_detach", "NULL argument");
	/* Detach blocks until every buffered message has gone out. */
	ft__mpi_wait(bsends_idle, NULL);
	*(void **)bufp = ft__mpi.bbuf;
	*size = (int)ft__mpi.bsize;
	ft__mpi.bbuf = NULL;
	ft__mpi.bsize = 0;
	free(ft__mpi.bsegs);
	ft__mpi.bsegs = NULL;
	ft__mpi.nbsegs = 0;
	return MPI_SUCCESS;
}

/*
 * Find room for len bytes (plus MPI_BSEND_OVERHEAD) in the attached
 * buffer: first fit between the regions in use, kept in offset order.
 */
static int
bsend_alloc(size_t len, size_t *off)
{
	struct ft_bseg *ns;
	size_t need = len + MPI_BSEND_OVERHEAD, at = 0;
	int i, j;

	/* Forget regions that are done, keeping order. */
	for (i = j = 0; i < ft__mpi.nbsegs; i++)
		if (ft__mpi.bsegs[i].used)
			ft__mpi.bsegs[j++] = ft__mpi.bsegs[i];
	ft__mpi.nbsegs = j;
	for (i = 0; i <= ft__mpi.nbsegs; i++) {
		size_t end = i < ft__mpi.nbsegs ? ft__mpi.bsegs[i].off :
		    ft__mpi.bsize;

		if (end >= at && end - at >= need)
			break;
		if (i < ft__mpi.nbsegs)
			at = ft__mpi.bsegs[i].off + ft__mpi.bsegs[i].len;
	}
	if (i > ft__mpi.nbsegs)
		return -1;
	if ((ns = reallocarray(ft__mpi.bsegs, (size_t)ft__mpi.nbsegs + 1,
	    sizeof(*ns))) == NULL)
		return -1;
	ft__mpi.bsegs = ns;
	memmove(&ns[i + 1], &ns[i], (size_t)(ft__mpi.nbsegs - i) * sizeof(*ns));
	ns[i].off = at;
	ns[i].len = need;
	ns[i].used = 1;
	ft__mpi.nbsegs++;
	*off = at;
	return i;
}

int
PMPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm)
{
	struct ft_mpi_req *r;
	size_t len, off;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Bsend");
	if ((rc = check_args("MPI_Bsend", buf, count, type, dest, tag, comm,
	    0)) != MPI_SUCCESS)
		return rc;
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	len = (size_t)count * type->size;
	if (bsend_alloc(len, &off) < 0)
		return ft__mpi_err(comm, MPI_ERR_BUFFER, "MPI_Bsend",
		    "the attached buffer has no room for %zu bytes", len);
	ft__mpi_pack(buf, count, type, ft__mpi.bbuf + off);
	if ((r = req_new(FT_MPI_REQ_SEND, comm)) == NULL) {
		bsend_release((long)off);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Bsend",
		    "out of memory");
	}
	r->bsend_seg = (long)off;
	r->freed = 1;		/* nobody waits for it */
	if ((rc = send_bytes("MPI_Bsend", ft__mpi.bbuf + off, len, dest, tag,
	    comm, FT_SEND_STANDARD, &r->pt)) != MPI_SUCCESS) {
		(void)req_free(r);
		return rc;
	}
	return MPI_SUCCESS;
}

/*
 * Start a receive into buf, or into a packed buffer that on_req_done
 * unpacks when the data is not one dense block: of the message claim
 * when not NULL (ft_pt_improbe), else of one from src with tag on ctx.
 * r->pt.on_done must be on_req_done.
 */
static int
start_recv_ctx(const char *call, void *buf, int count, MPI_Datatype type,
    int src, int tag, MPI_Comm comm, uint32_t ctx, void *claim,
    struct ft_mpi_req *r)
{
	int rc;

	size_t len = (size_t)count * type->size;
	MPI_Aint off;
	void *dst;

	if (ft__mpi_type_dense(type, count, &off))
		dst = ft__mpi_addr(buf, off);	/* as in start_send_ctx */
	else {
		if ((r->packbuf = malloc(len > 0 ? len : 1)) == NULL)
			return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
			    "out of memory");
		r->ubuf = buf;
		r->ucount = count;
		r->utype = type;
		/* Freeing the type must not pull it from under us. */
		ft__mpi_type_retain(type);
		dst = r->packbuf;
	}
	if (claim != NULL)
		rc = ft_pt_mrecv(ft__mpi.pt, &r->pt, dst, len, claim);
	else
		rc = ft_pt_irecv_from(ft__mpi.pt, &r->pt, dst, len,
		    src == MPI_ANY_SOURCE ? FT_PT_ANY : src,
		    src == MPI_ANY_SOURCE ? UINT32_MAX :
		    ft__mpi_comm_peer(comm, src),
		    tag == MPI_ANY_TAG ? FT_PT_ANY : tag, ctx);
	if (rc != 0)
		return ft__mpi_err(comm, errno == ENOMEM ? MPI_ERR_NO_MEM :
		    MPI_ERR_OTHER, call, "unable to receive: %s",
		    strerror(errno));
	return MPI_SUCCESS;
}

static int
start_recv(const char *call, void *buf, int count, MPI_Datatype type,
    int src, int tag, MPI_Comm comm, struct ft_mpi_req *r)
{
	return start_recv_ctx(call, buf, count, type, src, tag, comm,
	    comm->ctx, NULL, r);
}

/* See mpi_impl.h. */
int
ft__mpi_mrecv_start(const char *call, void *buf, int count,
    MPI_Datatype type, MPI_Comm comm, void *claim, struct ft_mpi_req *r)
{
	return start_recv_ctx(call, buf, count, type, MPI_ANY_SOURCE,
	    MPI_ANY_TAG, comm, comm->ctx, claim, r);
}

int
ft__mpi_irecv_ctx(const char *call, void *buf, int count, MPI_Datatype type,
    int src, int tag, MPI_Comm comm, uint32_t ctx, struct ft_mpi_req *r)
{
	if (src == MPI_PROC_NULL) {
		r->kind = FT_MPI_REQ_NULLPROC;
		r->pt.done = 1;
		return MPI_SUCCESS;
	}
	return start_recv_ctx(call, buf, count, type, src, tag, comm, ctx,
	    NULL, r);
}

struct reqvec {
	struct ft_mpi_req	*r;
	int			 n;
};

static int
reqvec_done(void *arg)
{
	const struct reqvec *v = arg;
	int i;

	for (i = 0; i < v->n; i++)
		if (!mreq_done(&v->r[i]))
			return 0;
	return 1;
}

void
ft__mpi_wait_reqs(struct ft_mpi_req *r, int n)
{
	struct reqvec v = { r, n };

	ft__mpi_wait(reqvec_done, &v);
}

int
PMPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag,
    MPI_Comm comm, MPI_Status *st)
{
	struct ft_mpi_req r;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Recv");
	if ((rc = check_args("MPI_Recv", buf, count, type, src, tag, comm,
	    1)) != MPI_SUCCESS)
		return rc;
	if (src == MPI_PROC_NULL) {
		status_procnull(st);
		return MPI_SUCCESS;
	}
	memset(&r, 0, sizeof(r));
	r.kind = FT_MPI_REQ_RECV;
	r.comm = comm;
	r.bsend_seg = -1;
	r.pt.on_done = on_req_done;
	r.pt.user = &r;
	if ((rc = start_recv("MPI_Recv", buf, count, type, src, tag, comm,
	    &r)) != MPI_SUCCESS)
		return rc;
	ft__mpi_wait(ready_cb, &r);
	if (!r.pt.done && ft_pt_cancel(ft__mpi.pt, &r.pt)) {
		/* ULFM: a blocking ANY_SOURCE receive fails for good. */
		ft__mpi_req_cleanup(&r);
		status_empty(st);
		if (st != MPI_STATUS_IGNORE)
			st->MPI_ERROR = MPIX_ERR_PROC_FAILED;
		return ft__mpi_err(comm, MPIX_ERR_PROC_FAILED, "MPI_Recv",
		    "a process that could send the message has failed");
	}
	if (!r.pt.done)
		ft__mpi_wait(req_done, &r.pt);
	status_from(&r, st);
	if ((rc = req_error(&r)) == MPI_ERR_TRUNCATE)
		return ft__mpi_err(comm, rc, "MPI_Recv",
		    "a message of %zu bytes from rank %d does not fit in %zu "
		    "bytes", r.pt.st.msglen, r.pt.st.source, r.pt.cap);
	if (rc != MPI_SUCCESS)
		return ft__mpi_err(comm, rc, "MPI_Recv", "from rank %d: %s",
		    src, rc == MPIX_ERR_REVOKED ? "the communicator is "
		    "revoked" : "the process has failed");
	return MPI_SUCCESS;
}

int
PMPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag,
    MPI_Comm comm, MPI_Request *req)
{
	struct ft_mpi_req *r;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Irecv");
	if (req == NULL)
		return ft__mpi_err(comm, MPI_ERR_REQUEST, "MPI_Irecv",
		    "NULL request");
	if ((rc = check_args("MPI_Irecv", buf, count, type, src, tag, comm,
	    1)) != MPI_SUCCESS)
		return rc;
	if ((r = req_new(src == MPI_PROC_NULL ? FT_MPI_REQ_NULLPROC :
	    FT_MPI_REQ_RECV, comm)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Irecv",
		    "out of memory");
	if (src != MPI_PROC_NULL &&
	    (rc = start_recv("MPI_Irecv", buf, count, type, src, tag, comm,
	    r)) != MPI_SUCCESS) {
		(void)req_free(r);
		return rc;
	}
	*req = r;
	return MPI_SUCCESS;
}

/*
 * The status and error code of a completed request, which stays as it
 * is; a generalized request's query hook fills a status even when the
 * caller ignores it, as the standard says.
 */
static int
req_status(struct ft_mpi_req *r, MPI_Status *st)
{
	MPI_Status tmp;

	if (r->query == NULL) {
		status_from(r, st);
		return req_error(r);
	}
	if (st == MPI_STATUS_IGNORE)
		st = &tmp;
	status_empty(st);
	return r->query(r, st);
}

/*
 * Finish a completed request: status, error code, free, NULL handle.
 * The status's error comes first, then the one of freeing.
 */
static int
req_finish(MPI_Request *req, MPI_Status *st)
{
	struct ft_mpi_req *r = *req;
	int rc, frc;

	if (!mreq_done(r)) {
		/* ULFM: any_pending; the request stays as it is. */
		status_empty(st);
		if (st != MPI_STATUS_IGNORE)
			st->MPI_ERROR = MPIX_ERR_PROC_FAILED_PENDING;
		return MPIX_ERR_PROC_FAILED_PENDING;
	}
	rc = req_status(r, st);

	if (r->persistent) {
		/* A persistent request goes back to inactive, not away. */
		r->active = 0;
		free(r->packbuf);
		r->packbuf = NULL;
		return rc;
	}
	frc = req_free(r);
	*req = MPI_REQUEST_NULL;
	return rc != MPI_SUCCESS ? rc : frc;
}

static int
report(struct ft_mpi_req *r, MPI_Comm comm, int rc, const char *call)
{
	(void)r;
	if (rc == MPI_SUCCESS)
		return rc;
	if (rc == MPI_ERR_TRUNCATE)
		return ft__mpi_err(comm, rc, call, "a received message was "
		    "larger than the receive buffer");
	if (rc == MPIX_ERR_PROC_FAILED_PENDING)
		return ft__mpi_err(comm, rc, call, "a process that could "
		    "send the message has failed");
	return ft__mpi_err(comm, rc, call, "a request completed with an "
	    "error");
}

/* Is this rank replicated?  Then its master settles what may differ. */
static int
nd_on(void)
{
	return ft_pt_nondet_on(ft__mpi.pt);
}

/*
 * Replicated: before working out a local outcome, wait until this
 * process has the master's outcome to follow, or is the master for
 * good.  A takeover that completes meanwhile re-matches receives, which
 * can change the local outcome; one computed before it is stale.
 */
static void
nd_role(void)
{
	if (nd_on())
		(void)ft_pt_decides(ft__mpi.pt);
}

/* The master's value of an outcome (local is ours when we are it). */
static int64_t
nd_value(uint32_t kind, int64_t local)
{
	uint64_t v[3] = { (uint64_t)local, 0, 0 };

	ft__mpi_decide(kind, v);
	return (int64_t)v[0];
}

/*
 * Is a request that is not null done?  One pass of progress if not;
 * replicated, the master's answer, and a replica told yes waits until
 * it is so here too.
 */
static int
test_one(struct ft_mpi_req *r)
{
	int flag;

	nd_role();
	if (!mreq_done(r))
		ft__mpi_poll();
	flag = mreq_done(r);
	if (nd_on() && (flag = (int)nd_value(FT_ND_FLAG, flag)))
		ft__mpi_wait(mreq_done_cb, r);
	return flag;
}

/* See mpi_impl.h. */
int
ft__mpi_wait_one(const char *call, MPI_Request *req, MPI_Status *st)
{
	MPI_Comm comm;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if (req == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
		    "NULL request");
	if (req_is_null(*req)) {
		status_empty(st);
		return MPI_SUCCESS;
	}
	ft__mpi_wait(ready_cb, *req);
	comm = (*req)->comm;
	rc = req_finish(req, st);
	return report(NULL, comm, rc, call);
}

int
PMPI_Wait(MPI_Request *req, MPI_Status *st)
{
	return ft__mpi_wait_one("MPI_Wait", req, st);
}

int
PMPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
	MPI_Comm comm;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Test");
	if (req == NULL || flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Test",
		    "NULL argument");
	if (req_is_null(*req)) {
		*flag = 1;
		status_empty(st);
		return MPI_SUCCESS;
	}
	/* After the shortcuts: the master decides nothing for those, so
	 * a replica must not wait for it there. */
	if (!(*flag = test_one(*req))) {
		if (!any_pending(*req))
			return MPI_SUCCESS;
		/* ULFM: not complete, yet an error to report. */
		comm = (*req)->comm;
		return report(NULL, comm, req_finish(req, st), "MPI_Test");
	}
	comm = (*req)->comm;
	rc = req_finish(req, st);
	return report(NULL, comm, rc, "MPI_Test");
}

/*
 * As MPI_Test, but the request stays as it is: neither freed nor made
 * inactive.  Replicated, the master decides the flag, as for MPI_Test.
 */
int
PMPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Request_get_status");
	if (flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Request_get_status", "NULL flag");
	if (req_is_null(req)) {
		*flag = 1;
		status_empty(st);
		return MPI_SUCCESS;
	}
	if (!(*flag = test_one(req)))
		return MPI_SUCCESS;
	rc = req_status(req, st);
	return report(NULL, req->comm, rc, "MPI_Request_get_status");
}

struct many {
	int		 n;
	MPI_Request	*reqs;
	int		 need_all;
};

/* Every non-null request done (need_all), or any one done, or all null. */
static int
many_done(void *arg)
{
	const struct many *m = arg;
	int i, active = 0, done = 0;

	for (i = 0; i < m->n; i++) {
		if (req_is_null(m->reqs[i]))
			continue;
		active++;
		if (ready(m->reqs[i]))
			done++;
	}
	if (active == 0)
		return 1;
	return m->need_all ? done == active : done > 0;
}

static int
check_array(const char *call, int n, MPI_Request *reqs)
{
	if (n < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, call,
		    "negative count %d", n);
	if (n > 0 && reqs == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
		    "NULL request array");
	return MPI_SUCCESS;
}

/*
 * Finish every done request of the array; returns the first failed
 * request's code (its communicator in *errcomm), MPI_SUCCESS if none.
 */
static int
finish_all(int n, MPI_Request *reqs, MPI_Status *sts, MPI_Comm *errcomm)
{
	int i, rc, any = MPI_SUCCESS;
	MPI_Comm comm;

	for (i = 0; i < n; i++) {
		MPI_Status *st = sts == MPI_STATUSES_IGNORE ? NULL : &sts[i];

		if (req_is_null(reqs[i])) {
			status_empty(st);
			continue;
		}
		comm = reqs[i]->comm;
		rc = req_finish(&reqs[i], st);
		if (st != NULL)
			st->MPI_ERROR = rc;
		if (rc != MPI_SUCCESS && any == MPI_SUCCESS) {
			any = rc;
			*errcomm = comm;
		}
	}
	return any;
}

/* A call on many requests ends: first is the first failed one's code. */
static int
report_many(MPI_Comm comm, int first, const char *call)
{
	if (first == MPI_SUCCESS)
		return MPI_SUCCESS;
	return ft__mpi_err_in_status(comm, first, call, "a request completed "
	    "with an error (MPI_ERR_IN_STATUS: see the statuses)");
}

int
PMPI_Waitall(int n, MPI_Request *reqs, MPI_Status *sts)
{
	struct many m = { n, reqs, 1 };
	MPI_Comm comm = MPI_COMM_WORLD;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Waitall");
	if ((rc = check_array("MPI_Waitall", n, reqs)) != MPI_SUCCESS)
		return rc;
	ft__mpi_wait(many_done, &m);
	rc = finish_all(n, reqs, sts, &comm);
	return report_many(comm, rc, "MPI_Waitall");
}

int
PMPI_Testall(int n, MPI_Request *reqs, int *flag, MPI_Status *sts)
{
	struct many m = { n, reqs, 1 };
	MPI_Comm comm = MPI_COMM_WORLD;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Testall");
	if ((rc = check_array("MPI_Testall", n, reqs)) != MPI_SUCCESS)
		return rc;
	if (flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Testall",
		    "NULL flag");
	nd_role();
	if (!many_done(&m))
		ft__mpi_poll();
	*flag = many_done(&m);
	if (nd_on() && (*flag = (int)nd_value(FT_ND_FLAG, *flag)))
		ft__mpi_wait(many_done, &m);
	if (!*flag)
		return MPI_SUCCESS;
	rc = finish_all(n, reqs, sts, &comm);
	return report_many(comm, rc, "MPI_Testall");
}

/* The lowest index of a done request, MPI_UNDEFINED if all are null,
 * -1 if none is done yet. */
static int
first_done(int n, MPI_Request *reqs)
{
	int i, active = 0;

	for (i = 0; i < n; i++) {
		if (req_is_null(reqs[i]))
			continue;
		active++;
		if (ready(reqs[i]))
			return i;
	}
	return active == 0 ? MPI_UNDEFINED : -1;
}

/* Finish request i (MPI_UNDEFINED: none was active). */
static int
finish_one(int i, MPI_Request *reqs, int *index, MPI_Status *st,
    const char *call)
{
	MPI_Comm comm;
	int rc;

	*index = i;
	if (i == MPI_UNDEFINED) {
		status_empty(st);
		return MPI_SUCCESS;
	}
	comm = reqs[i]->comm;
	rc = req_finish(&reqs[i], st);
	return report(NULL, comm, rc, call);
}

int
PMPI_Waitany(int n, MPI_Request *reqs, int *index, MPI_Status *st)
{
	struct many m = { n, reqs, 0 };
	int rc, i = MPI_UNDEFINED;

	FT_MPI_CHECK_INIT("MPI_Waitany");
	if ((rc = check_array("MPI_Waitany", n, reqs)) != MPI_SUCCESS)
		return rc;
	if (index == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Waitany",
		    "NULL index");
	if (!nd_on() || ft_pt_decides(ft__mpi.pt)) {
		ft__mpi_wait(many_done, &m);
		i = first_done(n, reqs);
	}
	if (nd_on() && (i = (int)nd_value(FT_ND_INDEX, i)) >= 0)
		ft__mpi_wait(mreq_done_cb, reqs[i]);
	return finish_one(i, reqs, index, st, "MPI_Waitany");
}

int
PMPI_Testany(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *st)
{
	int rc, i;

	FT_MPI_CHECK_INIT("MPI_Testany");
	if ((rc = check_array("MPI_Testany", n, reqs)) != MPI_SUCCESS)
		return rc;
	if (index == NULL || flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Testany",
		    "NULL argument");
	nd_role();
	if ((i = first_done(n, reqs)) == -1) {
		ft__mpi_poll();
		i = first_done(n, reqs);
	}
	if (nd_on() && (i = (int)nd_value(FT_ND_INDEX, i)) >= 0)
		ft__mpi_wait(mreq_done_cb, reqs[i]);
	if (i == -1) {
		*flag = 0;
		*index = MPI_UNDEFINED;
		return MPI_SUCCESS;
	}
	*flag = 1;
	return finish_one(i, reqs, index, st, "MPI_Testany");
}

/* Finish every done request, listing their indices. */
/*
 * Replicated, the master's list of done requests: the count, then each
 * index, decided one by one.  Returns the count (MPI_UNDEFINED when no
 * request is active); the replicas wait for each listed request.
 */
static int
nd_some(int n, MPI_Request *reqs, int *list)
{
	int i, k = 0, active = 0, cnt;

	nd_role();
	for (i = 0; i < n; i++) {
		if (req_is_null(reqs[i]))
			continue;
		active++;
		if (mreq_done(reqs[i]))
			list[k++] = i;
	}
	cnt = (int)nd_value(FT_ND_COUNT, active == 0 ? MPI_UNDEFINED : k);
	for (i = 0; i < cnt; i++) {
		list[i] = (int)nd_value(FT_ND_INDEX, i < k ? list[i] : -1);
		if (list[i] < 0 || list[i] >= n || req_is_null(reqs[list[i]]))
			ft__mpi_abort(FT_EXIT_TEMP, "the replicas of this rank "
			    "diverged");
		ft__mpi_wait(mreq_done_cb, reqs[list[i]]);
	}
	return cnt;
}

static int
finish_some(int n, MPI_Request *reqs, int *outcount, int *indices,
    MPI_Status *sts, const char *call)
{
	MPI_Comm comm = MPI_COMM_WORLD, c;
	int i, k = 0, active = 0, rc, any = MPI_SUCCESS, cnt = 0, j = 0;

	if (nd_on()) {
		/* indices has room for n: it holds the list meanwhile. */
		if ((cnt = nd_some(n, reqs, indices)) == MPI_UNDEFINED) {
			*outcount = MPI_UNDEFINED;
			return MPI_SUCCESS;
		}
	}
	for (i = 0; i < n; i++) {
		MPI_Status *st;

		if (req_is_null(reqs[i]))
			continue;
		active++;
		if (nd_on()) {
			if (j >= cnt || indices[j] != i)
				continue;
			j++;
		} else if (!ready(reqs[i]))
			continue;
		st = sts == MPI_STATUSES_IGNORE ? NULL : &sts[k];
		c = reqs[i]->comm;
		rc = req_finish(&reqs[i], st);
		if (st != NULL)
			st->MPI_ERROR = rc;
		if (rc != MPI_SUCCESS && any == MPI_SUCCESS) {
			any = rc;
			comm = c;
		}
		indices[k++] = i;
	}
	*outcount = active == 0 ? MPI_UNDEFINED : k;
	return report_many(comm, any, call);
}

int
PMPI_Waitsome(int n, MPI_Request *reqs, int *outcount, int *indices,
    MPI_Status *sts)
{
	struct many m = { n, reqs, 0 };
	int rc;

	FT_MPI_CHECK_INIT("MPI_Waitsome");
	if ((rc = check_array("MPI_Waitsome", n, reqs)) != MPI_SUCCESS)
		return rc;
	if (outcount == NULL || (n > 0 && indices == NULL))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Waitsome",
		    "NULL argument");
	if (!nd_on() || ft_pt_decides(ft__mpi.pt))
		ft__mpi_wait(many_done, &m);
	return finish_some(n, reqs, outcount, indices, sts, "MPI_Waitsome");
}

int
PMPI_Testsome(int n, MPI_Request *reqs, int *outcount, int *indices,
    MPI_Status *sts)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Testsome");
	if ((rc = check_array("MPI_Testsome", n, reqs)) != MPI_SUCCESS)
		return rc;
	if (outcount == NULL || (n > 0 && indices == NULL))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Testsome",
		    "NULL argument");
	ft__mpi_poll();
	return finish_some(n, reqs, outcount, indices, sts, "MPI_Testsome");
}

int
PMPI_Request_free(MPI_Request *req)
{
	struct ft_mpi_req *r;
	int rc = MPI_SUCCESS;

	FT_MPI_CHECK_INIT("MPI_Request_free");
	if (req == NULL || *req == MPI_REQUEST_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
		    "MPI_Request_free", "invalid request");
	r = *req;
	*req = MPI_REQUEST_NULL;
	ft__mpi_fint_forget(FT_FINT_REQUEST, r);
	if ((r->persistent && !r->active) || mreq_done(r) || r->lets_go)
		rc = req_free(r);
	else if (r->advance != NULL && r->kind != FT_MPI_REQ_GREQ)
		/* Nobody will drive it any more: finish it here. */
		ft__mpi_wait(mreq_done_cb, r), rc = req_free(r);
	else
		/* on_req_done or MPI_Grequest_complete frees it. */
		r->freed = 1;
	if (rc != MPI_SUCCESS)
		return ft__mpi_err(MPI_COMM_NULL, rc, "MPI_Request_free",
		    "the free function of a generalized request failed");
	return MPI_SUCCESS;
}

int
PMPI_Cancel(MPI_Request *req)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Cancel");
	if (req == NULL || *req == MPI_REQUEST_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
		    "MPI_Cancel", "invalid request");
	/* Only receives not yet matched can be cancelled; a send always
	 * completes normally, which the standard allows. */
	if ((*req)->kind == FT_MPI_REQ_RECV)
		(void)ft_pt_cancel(ft__mpi.pt, &(*req)->pt);
	if ((*req)->on_cancel != NULL && (rc = (*req)->on_cancel(*req)) !=
	    MPI_SUCCESS)
		return ft__mpi_err((*req)->comm, rc, "MPI_Cancel",
		    "the cancel function of a generalized request failed");
	return MPI_SUCCESS;
}

int
PMPI_Test_cancelled(const MPI_Status *st, int *flag)
{
	if (st == NULL || flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Test_cancelled", "NULL argument");
	*flag = st->ft_cancelled;
	return MPI_SUCCESS;
}

int
PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
    int stag, void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag,
    MPI_Comm comm, MPI_Status *st)
{
	MPI_Request reqs[2];
	MPI_Status sts[2];
	int rc;

	FT_MPI_CHECK_INIT("MPI_Sendrecv");
	if ((rc = check_args("MPI_Sendrecv", sbuf, scount, stype, dest, stag,
	    comm, 0)) != MPI_SUCCESS ||
	    (rc = check_args("MPI_Sendrecv", rbuf, rcount, rtype, src, rtag,
	    comm, 1)) != MPI_SUCCESS)
		return rc;
	if ((rc = MPI_Irecv(rbuf, rcount, rtype, src, rtag, comm,
	    &reqs[0])) != MPI_SUCCESS)
		return rc;
	if ((rc = MPI_Isend(sbuf, scount, stype, dest, stag, comm,
	    &reqs[1])) != MPI_SUCCESS) {
		(void)MPI_Cancel(&reqs[0]);
		(void)MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
		return rc;
	}
	{
		struct many m = { 2, reqs, 1 };

		ft__mpi_wait(many_done, &m);
	}
	rc = req_finish(&reqs[0], &sts[0]);
	(void)req_finish(&reqs[1], &sts[1]);
	if (st != MPI_STATUS_IGNORE)
		*st = sts[0];
	return report(NULL, comm, rc, "MPI_Sendrecv");
}

int
PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
    int stag, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
	size_t len;
	void *tmp;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Sendrecv_replace");
	if ((rc = check_args("MPI_Sendrecv_replace", buf, count, type, dest,
	    stag, comm, 0)) != MPI_SUCCESS ||
	    (rc = check_args("MPI_Sendrecv_replace", buf, count, type, src,
	    rtag, comm, 1)) != MPI_SUCCESS)
		return rc;
	len = (size_t)count * type->size;
	if (len > INT32_MAX)
		return ft__mpi_err(comm, MPI_ERR_COUNT, "MPI_Sendrecv_replace",
		    "message of %zu bytes is too large", len);
	if ((tmp = malloc(len > 0 ? len : 1)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM,
		    "MPI_Sendrecv_replace", "out of memory");
	/* Send a packed copy, so the receive may overwrite buf at once. */
	ft__mpi_pack(buf, count, type, tmp);
	rc = MPI_Sendrecv(tmp, (int)len, MPI_BYTE, dest, stag, buf, count,
	    type, src, rtag, comm, st);
	free(tmp);
	return rc;
}

struct probe {
	int		 src, tag;
	uint32_t	 ctx;
	void		**msg;		/* matched probe: what it claimed */
	struct ft_pt_status st;
	MPI_Comm	 comm;
	int		 failed;	/* ULFM: the wait stopped */
};

static int
probe_look(struct probe *p)
{
	if (p->msg != NULL)
		return ft_pt_improbe(ft__mpi.pt, p->src, p->tag, p->ctx,
		    &p->st, p->msg);
	return ft_pt_iprobe(ft__mpi.pt, p->src, p->tag, p->ctx, &p->st);
}

/*
 * ULFM: is nothing to come for a blocking probe?  Its source failed
 * (and its message is not here), or, for ANY_SOURCE, some failure in
 * the communicator is not acknowledged.
 */
static int
probe_hopeless(struct probe *p)
{
	struct ft_ext x = { .op = FT_EXT_FAILED };
	uint32_t w, i;

	if (!ft__mpi.ulfm)
		return 0;
	if (p->src == FT_PT_ANY)
		return ft__mpi_ulfm_unacked(p->comm);
	if (ft_pt_ext(ft__mpi.pt, &x) != 0)
		return 0;
	w = ft__mpi_comm_peer(p->comm, p->src);
	for (i = 0; i < x.ndead; i++)
		if (x.dead[i] == w)
			return 1;
	return 0;
}

static int
probe_found(void *arg)
{
	struct probe *p = arg;

	if (probe_look(p))
		return 1;
	if (probe_hopeless(p)) {
		p->failed = 1;
		return 1;
	}
	return 0;
}

/*
 * Replicated, the master says whether a probe found a message, and which
 * (source, tag); a replica then waits until it has that message too,
 * and claims it for a matched probe.  here says whether this process
 * probed itself, as the master, with outcome found.
 */
static int
nd_probe(struct probe *p, int found, int here)
{
	uint64_t v[3] = { (uint64_t)found, (uint64_t)p->st.source,
	    (uint64_t)(int64_t)p->st.tag };

	ft__mpi_decide_ctx(FT_ND_PROBE, p->ctx, v);
	if (v[0] == 0)
		return 0;
	if (here && found)
		return 1;
	p->src = (int)v[1];
	p->tag = (int)(int64_t)v[2];
	ft__mpi_wait(probe_found, p);
	return 1;
}

/* See mpi_impl.h. */
int
ft__mpi_probe(int src, int tag, MPI_Comm comm, int block, void **msg,
    MPI_Status *st)
{
	struct probe p;
	int found = 0, here;

	memset(&p, 0, sizeof(p));
	p.src = src == MPI_ANY_SOURCE ? FT_PT_ANY : src;
	p.tag = tag == MPI_ANY_TAG ? FT_PT_ANY : tag;
	p.ctx = comm->ctx;
	p.msg = msg;
	p.comm = comm;
	/*
	 * Replicated, only the master looks: a replica must not claim a
	 * message its master did not, and waits for its word instead.
	 */
	if ((here = !nd_on() || ft_pt_decides(ft__mpi.pt))) {
		if (block) {
			ft__mpi_wait(probe_found, &p);
			if (p.failed)
				return -1;
			found = 1;
		} else if (!(found = probe_look(&p))) {
			ft__mpi_poll();
			found = probe_look(&p);
		}
	}
	if (nd_on())
		found = nd_probe(&p, found, here);
	if (found)
		ft__mpi_status_set(st, p.st.source, p.st.tag, p.st.msglen);
	return found;
}

int
PMPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Iprobe");
	if ((rc = check_args("MPI_Iprobe", NULL, 0, MPI_BYTE, src, tag, comm,
	    1)) != MPI_SUCCESS)
		return rc;
	if (flag == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Iprobe",
		    "NULL flag");
	if (src == MPI_PROC_NULL) {
		*flag = 1;
		status_procnull(st);
		return MPI_SUCCESS;
	}
	*flag = ft__mpi_probe(src, tag, comm, 0, NULL, st);
	return MPI_SUCCESS;
}

int
PMPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Probe");
	if ((rc = check_args("MPI_Probe", NULL, 0, MPI_BYTE, src, tag, comm,
	    1)) != MPI_SUCCESS)
		return rc;
	if (src == MPI_PROC_NULL) {
		status_procnull(st);
		return MPI_SUCCESS;
	}
	if (ft__mpi_probe(src, tag, comm, 1, NULL, st) < 0)
		return ft__mpi_err(comm, MPIX_ERR_PROC_FAILED, "MPI_Probe",
		    "a process that could send the message has failed");
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Send = PMPI_Send
#pragma weak MPI_Ssend = PMPI_Ssend
#pragma weak MPI_Rsend = PMPI_Rsend
#pragma weak MPI_Isend = PMPI_Isend
#pragma weak MPI_Issend = PMPI_Issend
#pragma weak MPI_Irsend = PMPI_Irsend
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
#pragma weak MPI_Bsend = PMPI_Bsend
#pragma weak MPI_Recv = PMPI_Recv
#pragma weak MPI_Irecv = PMPI_Irecv
#pragma weak MPI_Wait = PMPI_Wait
#pragma weak MPI_Test = PMPI_Test
#pragma weak MPI_Request_get_status = PMPI_Request_get_status
#pragma weak MPI_Waitall = PMPI_Waitall
#pragma weak MPI_Testall = PMPI_Testall
#pragma weak MPI_Waitany = PMPI_Waitany
#pragma weak MPI_Testany = PMPI_Testany
#pragma weak MPI_Waitsome = PMPI_Waitsome
#pragma weak MPI_Testsome = PMPI_Testsome
#pragma weak MPI_Request_free = PMPI_Request_free
#pragma weak MPI_Cancel = PMPI_Cancel
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
#pragma weak MPI_Sendrecv = PMPI_Sendrecv
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
#pragma weak MPI_Iprobe = PMPI_Iprobe
#pragma weak MPI_Probe = PMPI_Probe
