/* SPDX-License-Identifier: ISC */
/*
 * Persistent point-to-point requests: MPI_Send_init and its modes,
 * MPI_Recv_init, MPI_Start and MPI_Startall.  A persistent request
 * keeps its arguments (the p* fields of struct ft_mpi_req); each start
 * begins a fresh transfer on its embedded pt2pt request, and the
 * completion calls in p2p.c make it inactive again instead of freeing
 * it.  Buffered mode copies into the attached buffer at each start and
 * completes at once, as MPI_Bsend does.
 */
#include <stdlib.h>

#include "mpi_impl.h"

/* pmode: a send mode of lib/pt2pt, or one of these. */
enum {
	PM_RECV = -1,
	PM_BUFFERED = -2,
};

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
	if (buf == NULL && count > 0 && type->predefined && type->size > 0)
		return ft__mpi_err(comm, MPI_ERR_BUFFER, call,
		    "NULL buffer with count %d", count);
	if (peer != MPI_PROC_NULL && !(recv && peer == MPI_ANY_SOURCE) &&
	    (peer < 0 || peer >= ft__mpi_comm_peers(comm)))
		return ft__mpi_err(comm, MPI_ERR_RANK, call,
		    "invalid rank %d in a %s of size %d", peer,
		    FT_MPI_INTER(comm) ? "remote group" : "communicator",
		    ft__mpi_comm_peers(comm));
	if (!(recv && tag == MPI_ANY_TAG) && (tag < 0 || tag > INT32_MAX))
		return ft__mpi_err(comm, MPI_ERR_TAG, call, "invalid tag %d",
		    tag);
	return MPI_SUCCESS;
}

static void
persist_release(struct ft_mpi_req *r)
{
	ft__mpi_type_release(r->ptype);
}

static int
persist_init(const char *call, const void *buf, int count,
    MPI_Datatype type, int peer, int tag, MPI_Comm comm, int mode,
    MPI_Request *req)
{
	struct ft_mpi_req *r;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if (req == NULL)
		return ft__mpi_err(comm, MPI_ERR_REQUEST, call,
		    "NULL request");
	if ((rc = check_args(call, buf, count, type, peer, tag, comm,
	    mode == PM_RECV)) != MPI_SUCCESS)
		return rc;
	if ((r = ft__mpi_req_new(mode == PM_RECV ? FT_MPI_REQ_RECV :
	    FT_MPI_REQ_SEND, comm)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	r->persistent = 1;
	r->active = 0;
	r->pbuf = buf;
	r->pcount = count;
	r->ptype = type;
	r->ppeer = peer;
	r->ptag = tag;
	r->pmode = mode;
	r->release = persist_release;
	/* The request uses the type for as long as it lives. */
	ft__mpi_type_retain(type);
	*req = r;
	return MPI_SUCCESS;
}

int
PMPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest,
    int tag, MPI_Comm comm, MPI_Request *req)
{
	return persist_init("MPI_Send_init", buf, count, type, dest, tag, comm,
	    FT_SEND_STANDARD, req);
}

int
PMPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest,
    int tag, MPI_Comm comm, MPI_Request *req)
{
	return persist_init("MPI_Ssend_init", buf, count, type, dest, tag,
	    comm, FT_SEND_SYNC, req);
}

/* A ready-mode send may be a standard one, as MPI_Rsend is. */
int
PMPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest,
    int tag, MPI_Comm comm, MPI_Request *req)
{
	return persist_init("MPI_Rsend_init", buf, count, type, dest, tag,
	    comm, FT_SEND_STANDARD, req);
}

int
PMPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest,
    int tag, MPI_Comm comm, MPI_Request *req)
{
	return persist_init("MPI_Bsend_init", buf, count, type, dest, tag,
	    comm, PM_BUFFERED, req);
}

int
PMPI_Recv_init(void *buf, int count, MPI_Datatype type, int src, int tag,
    MPI_Comm comm, MPI_Request *req)
{
	return persist_init("MPI_Recv_init", buf, count, type, src, tag, comm,
	    PM_RECV, req);
}

static int
check_startable(const char *call, MPI_Request r)
{
	if (r == MPI_REQUEST_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
		    "null request");
	if (!r->persistent)
		return ft__mpi_err(r->comm, MPI_ERR_REQUEST, call,
		    "not a persistent request");
	if (r->active)
		return ft__mpi_err(r->comm, MPI_ERR_REQUEST, call,
		    "the request is already active");
	return MPI_SUCCESS;
}

/*
 * Begin the transfer again.  ft__mpi_req_init clears the whole request,
 * so the persistent arguments are saved around it.
 */
static int
start(const char *call, struct ft_mpi_req *r)
{
	struct ft_mpi_req save = *r;
	int rc;

	ft__mpi_req_init(r, save.pmode == PM_RECV ? FT_MPI_REQ_RECV :
	    FT_MPI_REQ_SEND, save.comm);
	r->persistent = 1;
	r->pbuf = save.pbuf;
	r->pcount = save.pcount;
	r->ptype = save.ptype;
	r->ppeer = save.ppeer;
	r->ptag = save.ptag;
	r->pmode = save.pmode;
	r->release = save.release;
	r->active = 1;
	switch (r->pmode) {
	case PM_RECV:
		rc = ft__mpi_irecv_ctx(call, (void *)(uintptr_t)r->pbuf,
		    r->pcount, r->ptype, r->ppeer, r->ptag, r->comm,
		    r->comm->ctx, r);
		break;
	case PM_BUFFERED:
		rc = MPI_Bsend(r->pbuf, r->pcount, r->ptype, r->ppeer, r->ptag,
		    r->comm);
		r->pt.done = 1;
		break;
	default:
		rc = ft__mpi_isend_mode_ctx(call, r->pbuf, r->pcount, r->ptype,
		    r->ppeer, r->ptag, r->comm, r->comm->ctx, r->pmode, r);
		break;
	}
	if (rc != MPI_SUCCESS) {
		/* Already reported, under call's name. */
		ft__mpi_req_cleanup(r);
		r->active = 0;
		return rc;
	}
	return MPI_SUCCESS;
}

int
PMPI_Start(MPI_Request *req)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Start");
	if (req == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "MPI_Start",
		    "NULL request");
	if ((rc = check_startable("MPI_Start", *req)) != MPI_SUCCESS)
		return rc;
	return start("MPI_Start", *req);
}

int
PMPI_Startall(int n, MPI_Request *reqs)
{
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Startall");
	if (n < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT,
		    "MPI_Startall", "negative count %d", n);
	if (n > 0 && reqs == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
		    "MPI_Startall", "NULL request array");
	/* Check them all first, so that an error starts none. */
	for (i = 0; i < n; i++)
		if ((rc = check_startable("MPI_Startall", reqs[i])) !=
		    MPI_SUCCESS)
			return rc;
	for (i = 0; i < n; i++)
		if ((rc = start("MPI_Startall", reqs[i])) != MPI_SUCCESS)
			return rc;
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Send_init = PMPI_Send_init
#pragma weak MPI_Ssend_init = PMPI_Ssend_init
#pragma weak MPI_Rsend_init = PMPI_Rsend_init
#pragma weak MPI_Bsend_init = PMPI_Bsend_init
#pragma weak MPI_Recv_init = PMPI_Recv_init
#pragma weak MPI_Start = PMPI_Start
#pragma weak MPI_Startall = PMPI_Startall
