/* SPDX-License-Identifier: ISC */
/*
 * Calls that programs link and that belong nowhere else: the
 * nonblocking MPI_Comm_idup, MPI_Ibsend, the status setters that
 * generalized requests use, MPI_Alloc_mem, and MPI_Pcontrol.
 *
 * MPI_Comm_idup cannot agree on a context id the way comm.c does: the
 * agreement would read and move this process's next free id at a time
 * that depends on when messages arrive, while blocking calls that make
 * communicators may run meanwhile, and replicas would then diverge.
 * Instead each id is derived from one member's own count of calls:
 * rank 0 of the parent, process q of the job, on its v-th call to
 * MPI_Comm_idup (or MPIX_Comm_ishrink, which counts with it and takes
 * the id of whichever member the agreement picks), broadcasts v (a
 * nonblocking collective, ordered with the others on the parent), and
 * everyone takes the id FT_MPI_CTX_IDUP + 2 idx, where idx is
 * v * universe size + q while q is below the universe size U.  Process
 * ids are never reused, and a job that replaces its dead gives ids past
 * U: process U + b takes idx = FT_MPI_CTX_OWN_SPLIT + b * block + v,
 * in a block of its own, while the first ones' v U + q stay below the
 * split.  No process ever counts the same v twice, and no two processes
 * share q or a block, so no two communicators share an id, anywhere,
 * and the ids of comm.c stay below FT_MPI_CTX_IDUP.  The new
 * communicator is made at the call, as the standard says, attributes
 * copied then; its id is filled in on completion.
 */
#include <stdlib.h>

#include "op.h"

/* Ids are even, and every idx stays below this. */
#define IDUP_IDX_LIMIT	FT_MPI_CTX_OWN_LIMIT

/* The count of this process's calls to MPI_Comm_idup and
 * MPIX_Comm_ishrink. */
static uint32_t idup_calls;
/* Addresses that MPI_Alloc_mem handed out and MPI_Free_mem takes. */
static struct ft_mpi_hset allocs;

struct idup {
	struct ft_mpi_req	*bcast;		/* of idx, from rank 0 */
	MPI_Comm		 newcomm;
	uint32_t		 idx;
};

/* Finish when the broadcast is done: the id, or the error. */
static int
idup_advance(struct ft_mpi_req *r)
{
	struct idup *d = r->state;
	struct ft_mpi_req *b = d->bcast;

	if (r->pt.done)
		return 1;
	if (!b->pt.done && b->advance != NULL)
		(void)b->advance(b);
	if (!b->pt.done)
		return 0;
	r->err = b->err;
	(void)ft__mpi_req_free(b);
	d->bcast = NULL;
	if (r->err == 0 && d->idx >= IDUP_IDX_LIMIT)
		r->err = MPI_ERR_INTERN;
	if (r->err == 0)
		d->newcomm->ctx = FT_MPI_CTX_IDUP + 2 * d->idx;
	ft__mpi_comm_release(d->newcomm);
	d->newcomm = MPI_COMM_NULL;
	r->pt.done = 1;
	return 1;
}

static void
idup_release(struct ft_mpi_req *r)
{
	struct idup *d = r->state;

	if (d == NULL)
		return;
	/* Only MPI_Finalize frees a request still in flight. */
	if (d->bcast != NULL)
		(void)ft__mpi_req_free(d->bcast);
	if (d->newcomm != MPI_COMM_NULL)
		ft__mpi_comm_release(d->newcomm);
	free(d);
	r->state = NULL;
}

/* Process q's index of count v, or FT_MPI_CTX_OWN_NONE. */
static uint32_t
own_index(uint64_t q, uint64_t v)
{
	uint64_t U = ft__mpi.env.universe > 0 ? ft__mpi.env.universe : 1;
	uint64_t idx;

	if (q >= U) {
		if (q - U >= FT_JOB_IDS_PAST_UNIVERSE ||
		    v >= FT_MPI_CTX_OWN_BLOCK)
			return FT_MPI_CTX_OWN_NONE;
		return (uint32_t)(FT_MPI_CTX_OWN_SPLIT + (q - U) *
		    FT_MPI_CTX_OWN_BLOCK + v);
	}
	idx = v * U + q;
	return idx < FT_MPI_CTX_OWN_SPLIT ? (uint32_t)idx :
	    FT_MPI_CTX_OWN_NONE;
}

/* The process and the count that draw idx; -1 if none does. */
static int
own_parts(uint32_t idx, uint64_t *q, uint64_t *v)
{
	uint64_t U = ft__mpi.env.universe > 0 ? ft__mpi.env.universe : 1;

	if (idx < FT_MPI_CTX_OWN_SPLIT) {
		*q = idx % U;
		*v = idx / U;
		return 0;
	}
	if (idx >= FT_MPI_CTX_OWN_SPLIT + (uint64_t)FT_MPI_CTX_OWN_BLOCK *
	    FT_JOB_IDS_PAST_UNIVERSE)
		return -1;
	*q = U + (idx - FT_MPI_CTX_OWN_SPLIT) / FT_MPI_CTX_OWN_BLOCK;
	*v = (idx - FT_MPI_CTX_OWN_SPLIT) % FT_MPI_CTX_OWN_BLOCK;
	return 0;
}

uint32_t
ft__mpi_ctx_own(void)
{
	return own_index(ft__mpi_self_rank(), idup_calls++);
}

uint32_t
ft__mpi_ctx_after(uint32_t idx, uint32_t n)
{
	uint64_t q, v;

	if (own_parts(idx, &q, &v) != 0)
		return FT_MPI_CTX_OWN_NONE;
	return own_index(q, v + n);
}

void
ft__mpi_ctx_own_above(uint32_t idx)
{
	uint64_t q, v, calls, self = ft__mpi_self_rank();

	/*
	 * Another process's block says nothing of ours; an index of the
	 * first processes moves the count of the first ones, as before.
	 */
	if (own_parts(idx, &q, &v) != 0 || (q != self &&
	    (q >= ft__mpi.env.universe || self >= ft__mpi.env.universe)))
		return;
	calls = v + 1;
	if (calls > idup_calls)
		idup_calls = calls > UINT32_MAX ? UINT32_MAX : (uint32_t)calls;
}

int
PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
	static const char call[] = "MPI_Comm_idup";
	struct ft_coll_sched *s = NULL;
	struct ft_mpi_req *r = NULL;
	struct idup *d;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS ||
	    (rc = ft__mpi_ftmpi_whole(comm, call)) != MPI_SUCCESS)
		return rc;
	if (newcomm == NULL || req == NULL)
		return ft__mpi_err(comm, req == NULL ? MPI_ERR_REQUEST :
		    MPI_ERR_ARG, call, "NULL argument");
	if ((d = calloc(1, sizeof(*d))) == NULL ||
	    (r = ft__mpi_req_new(FT_MPI_REQ_COLL, comm)) == NULL ||
	    (s = ft__coll_new(comm, call)) == NULL) {
		free(d);
		if (r != NULL)
			(void)ft__mpi_req_free(r);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	/* Every member counts the call, so that counts stay distinct. */
	d->idx = ft__mpi_ctx_own();
	/* Until the id is known the communicator matches nothing. */
	if ((rc = ft__mpi_comm_dup_local(call, comm, FT_MPI_CTX_IDUP +
	    2 * IDUP_IDX_LIMIT, &d->newcomm)) != MPI_SUCCESS)
		goto fail;
	ft__mpi_comm_hold(d->newcomm);
	if ((rc = ft__coll_bcast(s, &d->idx, 1, MPI_UINT32_T, 0)) !=
	    MPI_SUCCESS) {
		ft__coll_release(s);
		free(s);
		goto fail_comm;
	}
	if ((rc = ft__coll_post(s, &d->bcast)) != MPI_SUCCESS)
		goto fail_comm;
	r->state = d;
	r->advance = idup_advance;
	r->release = idup_release;
	*newcomm = d->newcomm;
	*req = r;
	return MPI_SUCCESS;
fail_comm:
	ft__mpi_comm_release(d->newcomm);
	(void)MPI_Comm_free(&d->newcomm);
	free(d);
	(void)ft__mpi_req_free(r);
	return rc;
fail:
	ft__coll_release(s);
	free(s);
	free(d);
	(void)ft__mpi_req_free(r);
	return rc;
}

/*
 * Buffered mode is complete once the data is in the attached buffer,
 * which MPI_Bsend does at once: the request is born complete.
 */
int
PMPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm, MPI_Request *req)
{
	struct ft_mpi_req *r;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Ibsend");
	if (req == NULL)
		return ft__mpi_err(comm, MPI_ERR_REQUEST, "MPI_Ibsend",
		    "NULL request");
	if ((rc = MPI_Bsend(buf, count, type, dest, tag, comm)) !=
	    MPI_SUCCESS)
		return rc;
	if ((r = ft__mpi_req_new(FT_MPI_REQ_SEND, comm)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Ibsend",
		    "out of memory");
	r->pt.done = 1;
	*req = r;
	return MPI_SUCCESS;
}

/*
 * The bytes of the first n basic elements of t: the inverse of the
 * count MPI_Get_elements makes (type.c), whole elements of t first,
 * then a walk down the signature of the one partly covered.  Returns -1
 * when n does not end on an element boundary that a count of bytes can
 * express (half of a pair type).
 */
static int
elements_bytes(MPI_Datatype t, size_t n, size_t *bytes)
{
	MPI_Datatype c;
	size_t rem, blk, b, i;

	if (t->nbasic == 0) {
		*bytes = 0;
		return n == 0 ? 0 : -1;
	}
	*bytes = n / t->nbasic * t->size;
	if ((rem = n % t->nbasic) == 0)
		return 0;
	if (t->comb == FT_TC_NAMED)
		return -1;
	if (t->comb != FT_TC_STRUCT) {
		if (elements_bytes(t->old, rem, &b) != 0)
			return -1;
		*bytes += b;
		return 0;
	}
	for (i = 0; i < t->nblk; i++) {
		c = t->types[i];
		blk = (size_t)t->blens[i] * c->nbasic;
		if (rem <= blk) {
			if (elements_bytes(c, rem, &b) != 0)
				return -1;
			*bytes += b;
			return 0;
		}
		rem -= blk;
		*bytes += (size_t)t->blens[i] * c->size;
	}
	return -1;
}

static int
set_elements(const char *call, MPI_Status *st, MPI_Datatype type,
    MPI_Count count)
{
	size_t bytes;

	FT_MPI_CHECK_INIT(call);
	if (st == MPI_STATUS_IGNORE)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL status");
	if (!ft__mpi_type_ok(type))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, call,
		    "invalid datatype");
	if (count < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, call,
		    "negative count %lld", (long long)count);
	if (elements_bytes(type, (size_t)count, &bytes) != 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, call,
		    "%lld basic elements end inside an element of the type",
		    (long long)count);
	st->ft_bytes = bytes;
	return MPI_SUCCESS;
}

int
PMPI_Status_set_elements(MPI_Status *st, MPI_Datatype type, int count)
{
	return set_elements("MPI_Status_set_elements", st, type, count);
}

int
PMPI_Status_set_elements_x(MPI_Status *st, MPI_Datatype type,
    MPI_Count count)
{
	return set_elements("MPI_Status_set_elements_x", st, type, count);
}

int
PMPI_Status_set_cancelled(MPI_Status *st, int flag)
{
	FT_MPI_CHECK_INIT("MPI_Status_set_cancelled");
	if (st == MPI_STATUS_IGNORE)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Status_set_cancelled", "NULL status");
	st->ft_cancelled = flag != 0;
	return MPI_SUCCESS;
}

/*
 * Plain heap memory: ft has no memory that communicates faster.
 * Replicated, whether the allocation failed is the master's outcome: a
 * replica that could allocate gives the memory back, and one that
 * could not when the master could ends the job, since it cannot follow.
 */
int
PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	uint64_t v[3] = { 0, 0, 0 };
	void *p;
	int nd;

	FT_MPI_CHECK_INIT("MPI_Alloc_mem");
	if (size < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Alloc_mem",
		    "negative size %td", size);
	if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_INFO,
		    "MPI_Alloc_mem", "invalid info object");
	if (baseptr == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Alloc_mem",
		    "NULL baseptr");
	if ((nd = ft_pt_nondet_on(ft__mpi.pt)))
		(void)ft_pt_decides(ft__mpi.pt);
	if ((p = malloc(size > 0 ? (size_t)size : 1)) != NULL &&
	    ft__mpi_hset_add(&allocs, p) != 0) {
		free(p);
		p = NULL;
	}
	if (nd) {
		v[0] = p != NULL;
		ft__mpi_decide(FT_ND_FLAG, v);
		if (v[0] == 0 && p != NULL) {
			ft__mpi_hset_del(&allocs, p);
			free(p);
			p = NULL;
		} else if (v[0] != 0 && p == NULL)
			ft__mpi_abort(FT_EXIT_TEMP, "MPI_Alloc_mem: out of "
			    "memory in this replica only");
	}
	if (p == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
		    "MPI_Alloc_mem", "unable to allocate %td bytes", size);
	*(void **)baseptr = p;
	return MPI_SUCCESS;
}

int
PMPI_Free_mem(void *base)
{
	FT_MPI_CHECK_INIT("MPI_Free_mem");
	if (!ft__mpi_hset_has(&allocs, base))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Free_mem",
		    "not memory from MPI_Alloc_mem");
	ft__mpi_hset_del(&allocs, base);
	free(base);
	return MPI_SUCCESS;
}

/*
 * Profiling control (MPI-3.1 14.2.4): the level asks a profiler for
 * more or less detail, and ft has none, so it does nothing, at any
 * time, as the standard allows.  A tool's own MPI_Pcontrol replaces
 * this one.
 */
int
PMPI_Pcontrol(const int level, ...)
{
	(void)level;
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Comm_idup = PMPI_Comm_idup
#pragma weak MPI_Ibsend = PMPI_Ibsend
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
#pragma weak MPI_Free_mem = PMPI_Free_mem
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
