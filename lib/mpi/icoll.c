/* SPDX-License-Identifier: ISC */
/*
 * The collective schedule engine, and the nonblocking collectives.
 *
 * A schedule (op.h) is run round by round: the blocking collectives
 * wait for each round in ft__coll_run, the nonblocking ones are driven
 * by their request's advance hook, which never blocks.  Collectives on
 * one communicator run one at a time, in the order they were started:
 * a nonblocking collective starts its first round only once the ones
 * started before it on the same communicator have finished here, and a
 * blocking collective first finishes them.  Every rank starts them in
 * the same order, so messages of the collective context between two
 * ranks always belong to the one collective both are running, and the
 * tags need no sequence number.  Progress on any nonblocking collective
 * (a test or wait, or a blocking collective) drives every one in
 * flight, so waiting on one never starves another that a peer waits on.
 */
#include <stdlib.h>

#include "op.h"

/* Schedules in flight, oldest first. */
static struct ft_coll_sched	*nbc_head, *nbc_tail;
static int			 nbc_busy;

void
ft__coll_init(struct ft_coll_sched *s, MPI_Comm comm, const char *call)
{
	memset(s, 0, offsetof(struct ft_coll_sched, isteps));
	s->comm = ft__mpi_ftmpi_coll_comm(comm);
	if (s->comm != comm)
		s->holes = comm;
	s->call = call;
	if (ft__mpi.ulfm)
		s->failed0 = ft__mpi_ulfm_nfailed(s->comm);
	s->steps = s->isteps;
	s->capsteps = FT_COLL_INLINE_STEPS;
	s->reqs = s->ireqs;
}

void
ft__coll_release(struct ft_coll_sched *s)
{
	int i;

	if (s->nb)
		for (i = 0; i < s->nsteps; i++) {
			const struct ft_coll_step *st = &s->steps[i];

			if (st->type != NULL)
				ft__mpi_type_release(st->type);
			if (st->type2 != NULL)
				ft__mpi_type_release(st->type2);
			if (st->op != NULL)
				ft__mpi_op_release(st->op);
		}
	for (i = 0; i < s->nbufs; i++)
		free(s->bufs[i]);
	free(s->bufs);
	if (s->steps != s->isteps)
		free(s->steps);
	if (s->reqs != s->ireqs)
		free(s->reqs);
	s->bufs = NULL;
	s->nbufs = s->nsteps = 0;
	s->steps = s->isteps;
	s->reqs = s->ireqs;
}

static struct ft_coll_step *
step_add(struct ft_coll_sched *s, enum ft_coll_step_kind kind)
{
	struct ft_coll_step *st;

	if (s->err != 0)
		return NULL;
	if (s->nsteps == s->capsteps) {
		int cap = s->capsteps * 2;

		if (s->steps == s->isteps) {
			if ((st = calloc((size_t)cap, sizeof(*st))) != NULL)
				memcpy(st, s->steps, (size_t)s->nsteps *
				    sizeof(*st));
		} else
			st = reallocarray(s->steps, (size_t)cap, sizeof(*st));
		if (st == NULL) {
			s->err = MPI_ERR_NO_MEM;
			return NULL;
		}
		s->steps = st;
		s->capsteps = cap;
	}
	st = &s->steps[s->nsteps++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->comm = s->comm;
	if (kind == FT_CS_SEND || kind == FT_CS_RECV) {
		if (++s->inround > s->maxround)
			s->maxround = s->inround;
	}
	return st;
}

/* A nonblocking collective holds its datatypes and operation. */
static void
hold(struct ft_coll_sched *s, struct ft_coll_step *st)
{
	if (!s->nb)
		return;
	if (st->type != NULL)
		ft__mpi_type_retain(st->type);
	if (st->type2 != NULL)
		ft__mpi_type_retain(st->type2);
	if (st->op != NULL)
		ft__mpi_op_retain(st->op);
}

void
ft__coll_send(struct ft_coll_sched *s, const void *buf, int count,
    MPI_Datatype type, int peer, int tag)
{
	struct ft_coll_step *st;

	if ((st = step_add(s, FT_CS_SEND)) == NULL)
		return;
	st->src = buf;
	st->count = count;
	st->type = type;
	st->peer = peer;
	st->tag = tag;
	hold(s, st);
}

void
ft__coll_recv(struct ft_coll_sched *s, void *buf, int count,
    MPI_Datatype type, int peer, int tag)
{
	struct ft_coll_step *st;

	if ((st = step_add(s, FT_CS_RECV)) == NULL)
		return;
	st->dst = buf;
	st->count = count;
	st->type = type;
	st->peer = peer;
	st->tag = tag;
	hold(s, st);
}

void
ft__coll_reduce(struct ft_coll_sched *s, const void *in, void *inout,
    int count, MPI_Datatype type, MPI_Op op)
{
	struct ft_coll_step *st;

	if (count == 0 || (st = step_add(s, FT_CS_REDUCE)) == NULL)
		return;
	st->src = in;
	st->dst = inout;
	st->count = count;
	st->type = type;
	st->op = op;
	hold(s, st);
}

void
ft__coll_copy(struct ft_coll_sched *s, const void *src, int count,
    MPI_Datatype type, void *dst, int count2, MPI_Datatype type2)
{
	struct ft_coll_step *st;

	if (count == 0 || count2 == 0 ||
	    (src == dst && count == count2 && type == type2))
		return;
	if ((st = step_add(s, FT_CS_COPY)) == NULL)
		return;
	st->src = src;
	st->count = count;
	st->type = type;
	st->dst = dst;
	st->count2 = count2;
	st->type2 = type2;
	hold(s, st);
}

void
ft__coll_round(struct ft_coll_sched *s)
{
	if (s->nsteps == 0 || s->steps[s->nsteps - 1].kind == FT_CS_ROUND)
		return;
	if (step_add(s, FT_CS_ROUND) != NULL)
		s->inround = 0;
}

static void *
tmp_bytes(struct ft_coll_sched *s, size_t n)
{
	const size_t align = _Alignof(max_align_t);
	void **nb, *p;

	if (s->err != 0)
		return NULL;
	n = (n + align - 1) & ~(align - 1);
	if (n == 0)
		n = align;
	if (n <= FT_COLL_ARENA - s->arena_used) {
		p = s->arena + s->arena_used;
		s->arena_used += n;
		return p;
	}
	if (s->nbufs == s->capbufs) {
		int cap = s->capbufs == 0 ? 8 : s->capbufs * 2;

		if ((nb = reallocarray(s->bufs, (size_t)cap,
		    sizeof(*nb))) == NULL) {
			s->err = MPI_ERR_NO_MEM;
			return NULL;
		}
		s->bufs = nb;
		s->capbufs = cap;
	}
	if ((p = malloc(n)) == NULL) {
		s->err = MPI_ERR_NO_MEM;
		return NULL;
	}
	s->bufs[s->nbufs++] = p;
	return p;
}

void *
ft__coll_tmp(struct ft_coll_sched *s, int count, MPI_Datatype type)
{
	MPI_Aint ext, tlb, tub, lo, hi, last;
	char *p;

	if (type == NULL)
		return tmp_bytes(s, (size_t)count);
	if (count <= 0)
		return tmp_bytes(s, 1);
	ext = type->extent;
	if (type->predefined) {
		tlb = 0;
		tub = (MPI_Aint)type->size;
	} else {
		tlb = type->true_lb;
		tub = type->true_ub;
	}
	/* Element k lies in [k * ext + tlb, k * ext + tub). */
	last = (MPI_Aint)(count - 1) * ext;
	lo = (last < 0 ? last : 0) + tlb;
	hi = (last > 0 ? last : 0) + tub;
	if (hi < lo)
		hi = lo;
	if ((p = tmp_bytes(s, (size_t)(hi - lo))) == NULL)
		return NULL;
	return p - lo;
}

int
ft__coll_built(struct ft_coll_sched *s)
{
	if (s->err != 0)
		return ft__mpi_err(s->comm, s->err, s->call, "out of memory");
	return MPI_SUCCESS;
}

/* Copy count elements of type at src into count2 of type2 at dst. */
static int
do_copy(const struct ft_coll_step *st)
{
	size_t sb = (size_t)st->count * st->type->size;
	size_t db = (size_t)st->count2 * st->type2->size;
	size_t n = sb < db ? sb : db;
	MPI_Aint so, dof;
	int sd, dd;
	void *tmp;

	if (n == 0)
		return MPI_SUCCESS;
	sd = ft__mpi_type_dense(st->type, st->count, &so);
	dd = ft__mpi_type_dense(st->type2, st->count2, &dof);
	if (sd && dd) {
		memmove(ft__mpi_addr(st->dst, dof), ft__mpi_addr(st->src, so),
		    n);
		return MPI_SUCCESS;
	}
	if (sd) {
		ft__mpi_unpack(ft__mpi_addr(st->src, so), n, st->dst,
		    st->count2, st->type2);
		return MPI_SUCCESS;
	}
	if ((tmp = malloc(sb)) == NULL)
		return MPI_ERR_NO_MEM;
	ft__mpi_pack(st->src, st->count, st->type, tmp);
	if (dd)
		memcpy(ft__mpi_addr(st->dst, dof), tmp, n);
	else
		ft__mpi_unpack(tmp, n, st->dst, st->count2, st->type2);
	free(tmp);
	return MPI_SUCCESS;
}

/*
 * FT-MPI: a step with a member known failed fails at once, without a
 * transfer: a new process may run in its place (REBUILD), which is no
 * member of this communicator and would never answer.
 */
static void
fail_step(struct ft_coll_sched *s)
{
	if (s->err == 0 || s->err == MPI_ERR_TRUNCATE)
		s->err = MPIX_ERR_PROC_FAILED;
}

/* ULFM: the byte that says "failed" where no data is due. */
static const unsigned char marker = 0xff;

/* ULFM: has a step failed because a process did? */
static int
poisoned(const struct ft_coll_sched *s)
{
	return ft__mpi.ulfm && (s->err == MPIX_ERR_PROC_FAILED ||
	    s->err == MPIX_ERR_REVOKED);
}

/*
 * Start the steps of the next round: transfers go out, local steps run
 * at once.  Stops after the round's end if it started a transfer.
 * Returns an MPI error class; a transfer that failed to start is not
 * counted in s->nreqs.
 */
static int
round_start(struct ft_coll_sched *s)
{
	const struct ft_coll_step *st;
	struct ft_mpi_req *r;
	int rc;

	s->nreqs = 0;
	while (s->pc < s->nsteps) {
		st = &s->steps[s->pc++];
		switch (st->kind) {
		case FT_CS_ROUND:
			if (s->nreqs > 0)
				return MPI_SUCCESS;
			break;
		case FT_CS_SEND:
			if (ft__mpi_ftmpi_gone(st->comm, st->peer)) {
				fail_step(s);
				break;
			}
			r = &s->reqs[s->nreqs];
			ft__mpi_req_init(r, FT_MPI_REQ_SEND, s->comm);
			/*
			 * ULFM: past a failed step the data is not whole;
			 * an empty message tells the peer so (round_finish)
			 * rather than let it take a wrong result for a
			 * right one before it hears of the failure.  Where
			 * no data is due (a barrier's steps), one byte does.
			 */
			if (poisoned(s) && st->count == 0)
				rc = ft__mpi_isend_ctx(s->call, &marker, 1,
				    MPI_BYTE, st->peer, st->tag, st->comm,
				    st->comm->ctx + 1, r);
			else
				rc = ft__mpi_isend_ctx(s->call, st->src,
				    poisoned(s) ? 0 : st->count, st->type,
				    st->peer, st->tag, st->comm,
				    st->comm->ctx + 1, r);
			if (rc != MPI_SUCCESS) {
				ft__mpi_req_cleanup(r);
				return rc;
			}
			s->nreqs++;
			break;
		case FT_CS_RECV:
			if (ft__mpi_ftmpi_gone(st->comm, st->peer)) {
				fail_step(s);
				break;
			}
			r = &s->reqs[s->nreqs];
			ft__mpi_req_init(r, FT_MPI_REQ_RECV, s->comm);
			rc = ft__mpi_irecv_ctx(s->call, st->dst, st->count,
			    st->type, st->peer, st->tag, st->comm,
			    st->comm->ctx + 1, r);
			if (rc != MPI_SUCCESS) {
				ft__mpi_req_cleanup(r);
				return rc;
			}
			s->nreqs++;
			break;
		case FT_CS_REDUCE:
			ft__mpi_op_apply(st->op, st->src, st->dst, st->count,
			    st->type);
			break;
		case FT_CS_COPY:
			if ((rc = do_copy(st)) != MPI_SUCCESS)
				return ft__mpi_err(s->comm, rc, s->call,
				    "out of memory");
			break;
		}
	}
	return MPI_SUCCESS;
}

static int
round_done(const struct ft_coll_sched *s)
{
	int i;

	for (i = 0; i < s->nreqs; i++)
		if (!s->reqs[i].pt.done)
			return 0;
	return 1;
}

/*
 * The round's transfers are done: note a truncated receive (the
 * collective goes on, so that no peer is left waiting) and release
 * what the requests hold.
 */
static void
round_finish(struct ft_coll_sched *s)
{
	struct ft_mpi_req *r;
	int i, cls;

	for (i = 0; i < s->nreqs; i++) {
		r = &s->reqs[i];
		if (r->kind == FT_MPI_REQ_RECV && r->pt.st.error == EMSGSIZE &&
		    s->err == 0)
			s->err = MPI_ERR_TRUNCATE;
		/* ULFM: a byte where none was due: the sender's
		 * collective failed before (round_start). */
		if (ft__mpi.ulfm && r->kind == FT_MPI_REQ_RECV &&
		    r->pt.st.error == EMSGSIZE && r->pt.cap == 0 &&
		    (s->err == 0 || s->err == MPI_ERR_TRUNCATE))
			s->err = MPIX_ERR_PROC_FAILED;
		/* ULFM: a failed peer or a revoke wins over truncation. */
		if ((cls = ft__mpi_ulfm_class(r->pt.st.error)) != 0 &&
		    (s->err == 0 || s->err == MPI_ERR_TRUNCATE))
			s->err = cls;
		/* ULFM: an empty message where data was due: the sender's
		 * collective failed before (round_start). */
		if (ft__mpi.ulfm && r->kind == FT_MPI_REQ_RECV &&
		    r->pt.st.error == 0 && r->pt.st.msglen == 0 &&
		    r->pt.cap > 0 && (s->err == 0 || s->err == MPI_ERR_TRUNCATE))
			s->err = MPIX_ERR_PROC_FAILED;
		ft__mpi_req_cleanup(r);
	}
	s->nreqs = 0;
}

/* A transfer failed to start: cancel the receives still posted. */
static void
round_abort(struct ft_coll_sched *s, int rc)
{
	int i;

	s->err = rc;
	s->pc = s->nsteps;
	for (i = 0; i < s->nreqs; i++)
		if (s->reqs[i].kind == FT_MPI_REQ_RECV && !s->reqs[i].pt.done)
			(void)ft_pt_cancel(ft__mpi.pt, &s->reqs[i].pt);
}

/* Room for the largest round's transfers. */
static int
reqs_alloc(struct ft_coll_sched *s)
{
	if (s->maxround <= FT_COLL_INLINE_REQS)
		return MPI_SUCCESS;
	if ((s->reqs = calloc((size_t)s->maxround, sizeof(*s->reqs))) ==
	    NULL) {
		s->reqs = s->ireqs;
		return ft__mpi_err(s->comm, MPI_ERR_NO_MEM, s->call,
		    "out of memory");
	}
	return MPI_SUCCESS;
}

static void
nbc_unlink(struct ft_coll_sched *s)
{
	if (!s->linked)
		return;
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		nbc_head = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	else
		nbc_tail = s->prev;
	s->next = s->prev = NULL;
	s->linked = 0;
}

/*
 * Move a started schedule on as far as it goes without waiting.
 * Returns 1 when it has finished (s->err says how).
 */
static int
sched_step(struct ft_coll_sched *s)
{
	int rc;

	for (;;) {
		if (!round_done(s))
			return 0;
		round_finish(s);
		if (s->pc >= s->nsteps)
			return 1;
		if ((rc = round_start(s)) != MPI_SUCCESS)
			round_abort(s, rc);
	}
}

/*
 * ULFM: a collective on a communicator with a member known failed when
 * it began fails, though it ran to its end (so that no live member
 * waits for this one).  A member that dies during it fails it where its
 * death prevents completion: a transfer with it fails, and the failure
 * goes down the schedule (round_start); a member that did its part and
 * then died leaves a whole result, and the collective succeeds.
 */
static void
ulfm_verdict(struct ft_coll_sched *s)
{
	if (ft__mpi.ulfm && s->err == 0 && s->failed0 > 0)
		s->err = MPIX_ERR_PROC_FAILED;
}

/* Drive the schedule if it may run; complete its request when done. */
static void
nbc_poke(struct ft_coll_sched *s)
{
	s->started = 1;
	if (!sched_step(s))
		return;
	nbc_unlink(s);
	ulfm_verdict(s);
	s->req->err = s->err;
	s->req->pt.done = 1;
}

/* Is there an earlier schedule than s on comm still in flight? */
static int
nbc_blocked(const struct ft_coll_sched *s)
{
	const struct ft_coll_sched *q;

	for (q = nbc_head; q != NULL && q != s; q = q->next)
		if (q->comm == s->comm)
			return 1;
	return 0;
}

/*
 * Progress every nonblocking collective in flight, oldest first; only
 * the oldest on each communicator may run.
 */
static void
nbc_progress(void)
{
	struct ft_coll_sched *s, *next;
	MPI_Comm seen[16];
	int nseen = 0, i, blocked;

	if (nbc_busy || nbc_head == NULL)
		return;
	nbc_busy = 1;
	for (s = nbc_head; s != NULL; s = next) {
		next = s->next;
		blocked = 0;
		if (nseen < (int)(sizeof(seen) / sizeof(seen[0]))) {
			for (i = 0; i < nseen; i++)
				if (seen[i] == s->comm)
					blocked = 1;
		} else
			blocked = nbc_blocked(s);
		if (!blocked)
			nbc_poke(s);
		if (s->linked && !blocked &&
		    nseen < (int)(sizeof(seen) / sizeof(seen[0])))
			seen[nseen++] = s->comm;
	}
	nbc_busy = 0;
}

static int
nbc_advance(struct ft_mpi_req *r)
{
	nbc_progress();
	return r->pt.done;
}

static void
nbc_release(struct ft_mpi_req *r)
{
	struct ft_coll_sched *s = r->state;

	if (s == NULL)
		return;
	nbc_unlink(s);
	ft__coll_release(s);
	free(s);
	r->state = NULL;
}

struct ft_coll_sched *
ft__coll_new(MPI_Comm comm, const char *call)
{
	struct ft_coll_sched *s;

	if ((s = malloc(sizeof(*s))) == NULL)
		return NULL;
	ft__coll_init(s, comm, call);
	s->nb = 1;
	return s;
}

int
ft__coll_post(struct ft_coll_sched *s, MPI_Request *req)
{
	struct ft_mpi_req *r;
	int rc;

	if ((rc = reqs_alloc(s)) != MPI_SUCCESS) {
		ft__coll_release(s);
		free(s);
		return rc;
	}
	if (ft__mpi_ulfm_revoked(s->comm)) {
		rc = ft__mpi_err(s->comm, MPIX_ERR_REVOKED, s->call,
		    "the communicator is revoked");
		ft__coll_release(s);
		free(s);
		return rc;
	}
	if ((rc = ft__mpi_ftmpi_check(s->holes != NULL ? s->holes : s->comm,
	    s->call, -1)) != MPI_SUCCESS) {
		ft__coll_release(s);
		free(s);
		return rc;
	}
	if ((r = ft__mpi_req_new(FT_MPI_REQ_COLL, s->comm)) == NULL) {
		rc = ft__mpi_err(s->comm, MPI_ERR_NO_MEM, s->call,
		    "out of memory");
		ft__coll_release(s);
		free(s);
		return rc;
	}
	r->advance = nbc_advance;
	r->release = nbc_release;
	r->state = s;
	s->req = r;
	s->prev = nbc_tail;
	if (nbc_tail != NULL)
		nbc_tail->next = s;
	else
		nbc_head = s;
	nbc_tail = s;
	s->linked = 1;
	/* Start it now if nothing on its communicator is ahead of it. */
	nbc_progress();
	*req = r;
	return MPI_SUCCESS;
}

static int
comm_idle(void *arg)
{
	const struct ft_coll_sched *s = arg, *q;

	nbc_progress();
	for (q = nbc_head; q != NULL; q = q->next)
		if (q->comm == s->comm)
			return 0;
	return 1;
}

static int
run_round_done(void *arg)
{
	const struct ft_coll_sched *s = arg;

	nbc_progress();
	return round_done(s);
}

int
ft__coll_run(struct ft_coll_sched *s)
{
	int rc;

	if ((rc = reqs_alloc(s)) != MPI_SUCCESS)
		return rc;
	if (ft__mpi_ulfm_revoked(s->comm))
		return ft__mpi_err(s->comm, MPIX_ERR_REVOKED, s->call,
		    "the communicator is revoked");
	if ((rc = ft__mpi_ftmpi_check(s->holes != NULL ? s->holes : s->comm,
	    s->call, -1)) != MPI_SUCCESS)
		return rc;
	if (nbc_head != NULL)
		ft__mpi_wait(comm_idle, s);
	while (s->pc < s->nsteps) {
		if ((rc = round_start(s)) != MPI_SUCCESS) {
			/* Leave no transfer behind that refers to s. */
			round_abort(s, rc);
			ft__mpi_wait(run_round_done, s);
			round_finish(s);
			return rc;
		}
		if (s->nreqs == 0)
			continue;
		if (!round_done(s))
			ft__mpi_wait(run_round_done, s);
		round_finish(s);
	}
	ulfm_verdict(s);
	if (s->err == MPIX_ERR_PROC_FAILED)
		return ft__mpi_err(s->comm, s->err, s->call,
		    "a process of the communicator has failed");
	if (s->err == MPIX_ERR_REVOKED)
		return ft__mpi_err(s->comm, s->err, s->call,
		    "the communicator is revoked");
	if (s->err != 0)
		return ft__mpi_err(s->comm, s->err, s->call,
		    "a message was larger than the receive buffer");
	return MPI_SUCCESS;
}

/* The nonblocking calls: build, then hand the schedule to a request. */
static int
nb_post(struct ft_coll_sched *s, int rc, MPI_Request *req)
{
	if (rc != MPI_SUCCESS) {
		ft__coll_release(s);
		free(s);
		return rc;
	}
	return ft__coll_post(s, req);
}

#define NB_BEGIN(callname)						\
	static const char call[] = callname;				\
	struct ft_coll_sched *s;					\
									\
	FT_MPI_CHECK_INIT(call);					\
	if (req == NULL)						\
		return ft__mpi_err(comm, MPI_ERR_REQUEST, call,		\
		    "NULL request");					\
	if ((s = ft__coll_new(comm, call)) == NULL)			\
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,		\
		    "out of memory")

int
PMPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Ibarrier");
	return nb_post(s, ft__coll_barrier(s), req);
}

int
PMPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
    MPI_Request *req)
{
	NB_BEGIN("MPI_Ibcast");
	return nb_post(s, ft__coll_bcast(s, buf, count, type, root), req);
}

int
PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Ireduce");
	return nb_post(s, ft__coll_reduce_build(s, sbuf, rbuf, count, type, op,
	    root), req);
}

int
PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Iallreduce");
	return nb_post(s, ft__coll_allreduce(s, sbuf, rbuf, count, type, op),
	    req);
}

int
PMPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
    MPI_Request *req)
{
	NB_BEGIN("MPI_Igather");
	return nb_post(s, ft__coll_gather(s, sbuf, scount, stype, rbuf, rcount,
	    rtype, root), req);
}

int
PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    const int *rcounts, const int *displs, MPI_Datatype rtype, int root,
    MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Igatherv");
	return nb_post(s, ft__coll_gatherv(s, sbuf, scount, stype, rbuf,
	    rcounts, displs, rtype, root), req);
}

int
PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
    MPI_Request *req)
{
	NB_BEGIN("MPI_Iscatter");
	return nb_post(s, ft__coll_scatter(s, sbuf, scount, stype, rbuf,
	    rcount, rtype, root), req);
}

int
PMPI_Iscatterv(const void *sbuf, const int *scounts, const int *displs,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
    MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Iscatterv");
	return nb_post(s, ft__coll_scatterv(s, sbuf, scounts, displs, stype,
	    rbuf, rcount, rtype, root), req);
}

int
PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Iallgather");
	return nb_post(s, ft__coll_allgather(s, sbuf, scount, stype, rbuf,
	    rcount, rtype), req);
}

int
PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm,
    MPI_Request *req)
{
	NB_BEGIN("MPI_Iallgatherv");
	return nb_post(s, ft__coll_allgatherv(s, sbuf, scount, stype, rbuf,
	    rcounts, displs, rtype), req);
}

int
PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Ialltoall");
	return nb_post(s, ft__coll_alltoall(s, sbuf, scount, stype, rbuf,
	    rcount, rtype), req);
}

int
PMPI_Ialltoallv(const void *sbuf, const int *scounts, const int *sdispls,
    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls,
    MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Ialltoallv");
	return nb_post(s, ft__coll_alltoallv(s, sbuf, scounts, sdispls, stype,
	    rbuf, rcounts, rdispls, rtype), req);
}

int
PMPI_Ialltoallw(const void *sbuf, const int *scounts, const int *sdispls,
    const MPI_Datatype *stypes, void *rbuf, const int *rcounts,
    const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm,
    MPI_Request *req)
{
	NB_BEGIN("MPI_Ialltoallw");
	return nb_post(s, ft__coll_alltoallw(s, sbuf, scounts, sdispls, stypes,
	    rbuf, rcounts, rdispls, rtypes), req);
}

int
PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Ireduce_scatter");
	return nb_post(s, ft__coll_reduce_scatter(s, sbuf, rbuf, rcounts, type,
	    op), req);
}

int
PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Ireduce_scatter_block");
	return nb_post(s, ft__coll_reduce_scatter_block(s, sbuf, rbuf, rcount,
	    type, op), req);
}

int
PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Iscan");
	return nb_post(s, ft__coll_scan(s, sbuf, rbuf, count, type, op, 0),
	    req);
}

int
PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	NB_BEGIN("MPI_Iexscan");
	return nb_post(s, ft__coll_scan(s, sbuf, rbuf, count, type, op, 1),
	    req);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Ibarrier = PMPI_Ibarrier
#pragma weak MPI_Ibcast = PMPI_Ibcast
#pragma weak MPI_Ireduce = PMPI_Ireduce
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
#pragma weak MPI_Igather = PMPI_Igather
#pragma weak MPI_Igatherv = PMPI_Igatherv
#pragma weak MPI_Iscatter = PMPI_Iscatter
#pragma weak MPI_Iscatterv = PMPI_Iscatterv
#pragma weak MPI_Iallgather = PMPI_Iallgather
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
#pragma weak MPI_Ialltoall = PMPI_Ialltoall
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
#pragma weak MPI_Iscan = PMPI_Iscan
#pragma weak MPI_Iexscan = PMPI_Iexscan
