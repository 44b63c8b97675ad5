/* SPDX-License-Identifier: ISC */
/*
 * Generalized requests: requests whose operation the application runs
 * itself, and completes with MPI_Grequest_complete.  The completion
 * calls of p2p.c drive them like any request, through the hooks of
 * struct ft_mpi_req: query_fn fills the status each time a completed
 * one is waited for, tested or asked about (MPI_Request_get_status);
 * free_fn runs once, after the last query_fn, when the request goes:
 * in the completion call, in MPI_Request_free on a completed request,
 * or in MPI_Grequest_complete when the request was freed before;
 * cancel_fn runs in MPI_Cancel, told whether it is complete yet.
 *
 * Completion is a flag set atomically, so a thread of the application
 * may call MPI_Grequest_complete while the main thread waits.
 * Replicated, the flag is like any other request's: the master decides
 * what a test sees, and a replica told that the request is complete
 * waits until its own copy of the program completes it too.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "mpi_impl.h"

struct greq {
	MPI_Grequest_query_function	*query;
	MPI_Grequest_free_function	*free;
	MPI_Grequest_cancel_function	*cancel;
	void				*extra;
	atomic_int			 complete;
};

static int
greq_advance(struct ft_mpi_req *r)
{
	struct greq *g = r->state;

	if (atomic_load(&g->complete))
		r->pt.done = 1;
	return r->pt.done;
}

static int
greq_query(struct ft_mpi_req *r, MPI_Status *st)
{
	struct greq *g = r->state;

	return g->query(g->extra, st);
}

static int
greq_free(struct ft_mpi_req *r)
{
	struct greq *g = r->state;

	return g->free(g->extra);
}

static int
greq_cancel(struct ft_mpi_req *r)
{
	struct greq *g = r->state;

	return g->cancel(g->extra, atomic_load(&g->complete));
}

static void
greq_release(struct ft_mpi_req *r)
{
	free(r->state);
	r->state = NULL;
}

int
PMPI_Grequest_start(MPI_Grequest_query_function *query,
    MPI_Grequest_free_function *fre, MPI_Grequest_cancel_function *cancel,
    void *extra, MPI_Request *req)
{
	struct ft_mpi_req *r;
	struct greq *g;

	FT_MPI_CHECK_INIT("MPI_Grequest_start");
	if (req == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
		    "MPI_Grequest_start", "NULL request");
	if (query == NULL || fre == NULL || cancel == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Grequest_start", "NULL callback");
	if ((g = calloc(1, sizeof(*g))) == NULL ||
	    (r = ft__mpi_req_new(FT_MPI_REQ_GREQ, MPI_COMM_NULL)) == NULL) {
		free(g);
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
		    "MPI_Grequest_start", "out of memory");
	}
	g->query = query;
	g->free = fre;
	g->cancel = cancel;
	g->extra = extra;
	atomic_init(&g->complete, 0);
	r->state = g;
	r->advance = greq_advance;
	r->release = greq_release;
	r->query = greq_query;
	r->on_free = greq_free;
	r->on_cancel = greq_cancel;
	*req = r;
	return MPI_SUCCESS;
}

int
PMPI_Grequest_complete(MPI_Request req)
{
	struct greq *g;
	int freed, rc;

	FT_MPI_CHECK_INIT("MPI_Grequest_complete");
	if (req == MPI_REQUEST_NULL || req->kind != FT_MPI_REQ_GREQ)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
		    "MPI_Grequest_complete", "not a generalized request");
	g = req->state;
	/*
	 * Once the flag is set, the main thread may complete and free the
	 * request at any moment: read what we need first.
	 */
	freed = req->freed;
	if (atomic_exchange(&g->complete, 1))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
		    "MPI_Grequest_complete", "the request is already "
		    "complete");
	if (!freed)
		return MPI_SUCCESS;
	/* MPI_Request_free came first: the request goes now. */
	req->pt.done = 1;
	if ((rc = ft__mpi_req_free(req)) != MPI_SUCCESS)
		return ft__mpi_err(MPI_COMM_NULL, rc, "MPI_Grequest_complete",
		    "the free function of the request failed");
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Grequest_start = PMPI_Grequest_start
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
