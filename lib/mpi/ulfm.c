/* SPDX-License-Identifier: ISC */
/*
 * ULFM, User-Level Failure Mitigation (ft-ulfm(3)), under ftrun --ft
 * ulfm: the MPIX_ calls, and what the rest of the MPI layer asks about
 * a communicator (revoked?  failures not acknowledged?).  The protocol
 * "ulfm" (lib/proto/ulfm.c) keeps the processes known dead, the revoked
 * contexts and the agreements; here each communicator keeps its own
 * failed members, in the order this process learnt of them, and how
 * many of them the application acknowledged.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_impl.h"

int
ft__mpi_ulfm_class(int err)
{
	if (!ft__mpi.ulfm)
		return 0;
	if (err == ECONNRESET)
		return MPIX_ERR_PROC_FAILED;
	if (err == ECANCELED)
		return MPIX_ERR_REVOKED;
	return 0;
}

/* comm's state, made on first use; NULL when out of memory. */
static struct ft_mpi_ulfm *
state(MPI_Comm comm)
{
	if (comm->ulfm == NULL)
		comm->ulfm = calloc(1, sizeof(*comm->ulfm));
	return comm->ulfm;
}

void
ft__mpi_ulfm_free(MPI_Comm comm)
{
	if (comm->ulfm == NULL)
		return;
	free(comm->ulfm->failed);
	free(comm->ulfm);
	comm->ulfm = NULL;
}

/* The index of world rank w among comm's n members, or -1. */
static int
member_index(const uint32_t *world, int n, uint32_t w)
{
	int i;

	for (i = 0; i < n; i++)
		if (world[i] == w)
			return i;
	return -1;
}

/* Note world rank w as a failed member of comm, unless it is already. */
static void
failed_add(struct ft_mpi_ulfm *u, uint32_t w)
{
	uint32_t *nf;
	int i;

	for (i = 0; i < u->nfailed; i++)
		if (u->failed[i] == w)
			return;
	if (u->nfailed == u->capfailed) {
		if ((nf = reallocarray(u->failed, (size_t)u->capfailed * 2 + 8,
		    sizeof(*nf))) == NULL)
			return;
		u->failed = nf;
		u->capfailed = u->capfailed * 2 + 8;
	}
	u->failed[u->nfailed++] = w;
}

/* Bring comm's list of failed members up to the protocol's. */
static struct ft_mpi_ulfm *
update(MPI_Comm comm)
{
	struct ft_mpi_ulfm *u;
	struct ft_ext x = { .op = FT_EXT_FAILED };
	uint32_t w;

	if (!ft__mpi.ulfm || (u = state(comm)) == NULL)
		return NULL;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0)
		return u;
	for (; u->seen < x.ndead; u->seen++) {
		w = x.dead[u->seen];
		/*
		 * FT-MPI's REBUILD: a process that failed before comm was
		 * made and runs again (a new one in its place) is no
		 * failure of comm.  One that failed since is, whatever
		 * runs in its place now.
		 */
		if (ft__mpi.ftmpi && u->seen < comm->ulfm_born &&
		    ft__mpi_ulfm_alive(w))
			continue;
		if (member_index(comm->world, comm->size, w) >= 0 ||
		    (FT_MPI_INTER(comm) &&
		    member_index(comm->rworld, comm->rsize, w) >= 0))
			failed_add(u, w);
	}
	return u;
}

/* See mpi_impl.h. */
uint32_t
ft__mpi_ulfm_known(void)
{
	struct ft_ext x = { .op = FT_EXT_FAILED };

	if (!ft__mpi.ftmpi || ft__mpi.pt == NULL ||
	    ft_pt_ext(ft__mpi.pt, &x) != 0)
		return 0;
	return x.ndead;
}

int
ft__mpi_ulfm_nfailed(MPI_Comm comm)
{
	struct ft_mpi_ulfm *u = update(comm);

	return u != NULL ? u->nfailed : 0;
}

int
ft__mpi_ulfm_unacked(MPI_Comm comm)
{
	struct ft_mpi_ulfm *u = update(comm);

	return u != NULL && u->nfailed > u->nacked;
}

int
ft__mpi_ulfm_revoked(MPI_Comm comm)
{
	struct ft_ext x = { .op = FT_EXT_REVOKED };

	if (!ft__mpi.ulfm || !ft__mpi_comm_ok(comm))
		return 0;
	if (comm->ulfm != NULL && comm->ulfm->revoked)
		return 1;
	x.ctx = comm->ctx;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0 || !x.result)
		return 0;
	if (state(comm) != NULL)
		comm->ulfm->revoked = 1;
	return 1;
}

/* The checks every MPIX_ call on a communicator makes. */
static int
check(MPI_Comm comm, const char *call)
{
	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, call,
		    "invalid communicator");
	if (!ft__mpi.ulfm)
		return ft__mpi_err(comm, MPI_ERR_OTHER, call, "the job does "
		    "not run under ULFM: run it with ftrun --ft ulfm");
	return MPI_SUCCESS;
}

int
PMPIX_Comm_revoke(MPI_Comm comm)
{
	struct ft_ext x = { .op = FT_EXT_REVOKE };
	uint32_t *all = NULL;
	int rc;

	ft__mpi_replay_refuse("MPIX_Comm_revoke");	/* issue 16 */
	if ((rc = check(comm, "MPIX_Comm_revoke")) != MPI_SUCCESS)
		return rc;
	x.ctx = comm->ctx;
	x.nctx = 2;
	x.members = comm->world;
	x.n = (uint32_t)comm->size;
	if (FT_MPI_INTER(comm)) {
		/*
		 * Both groups, and the local group's hidden contexts: from
		 * ctx + 2 on, or, in a shrunk intercommunicator
		 * (shrink_make_inter), ids of their own, revoked apart to
		 * the same members.
		 */
		if (comm->local->ctx == comm->ctx + 2)
			x.nctx = 4;
		x.n = (uint32_t)(comm->size + comm->rsize);
		if ((all = calloc(x.n, sizeof(*all))) == NULL)
			return ft__mpi_err(comm, MPI_ERR_NO_MEM,
			    "MPIX_Comm_revoke", "out of memory");
		memcpy(all, comm->world, (size_t)comm->size * sizeof(*all));
		memcpy(all + comm->size, comm->rworld,
		    (size_t)comm->rsize * sizeof(*all));
		x.members = all;
	}
	rc = ft_pt_ext(ft__mpi.pt, &x);
	if (rc == 0 && FT_MPI_INTER(comm) && x.nctx == 2) {
		x.ctx = comm->local->ctx;
		rc = ft_pt_ext(ft__mpi.pt, &x);
	}
	free(all);
	if (rc != 0)
		return ft__mpi_err(comm, MPI_ERR_INTERN, "MPIX_Comm_revoke",
		    "%s", strerror(errno));
	if (state(comm) != NULL)
		comm->ulfm->revoked = 1;
	return MPI_SUCCESS;
}

int
PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
	int rc;

	if ((rc = check(comm, "MPIX_Comm_is_revoked")) != MPI_SUCCESS)
		return rc;
	if (flag == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPIX_Comm_is_revoked",
		    "NULL flag");
	/* A revoke on its way is seen by the next pass. */
	ft__mpi_poll();
	*flag = ft__mpi_ulfm_revoked(comm);
	return MPI_SUCCESS;
}

/* A group of the first n failed members of comm. */
static int
failed_group(MPI_Comm comm, const char *call, int acked, MPI_Group *group)
{
	struct ft_mpi_ulfm *u;
	int rc;

	if ((rc = check(comm, call)) != MPI_SUCCESS)
		return rc;
	if (group == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "NULL group");
	ft__mpi_poll();
	if ((u = update(comm)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	return ft__mpi_comm_group_of(comm, call, u->failed,
	    acked ? u->nacked : u->nfailed, group);
}

int
PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *group)
{
	return failed_group(comm, "MPIX_Comm_get_failed", 0, group);
}

int
PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *group)
{
	return failed_group(comm, "MPIX_Comm_failure_get_acked", 1, group);
}

int
PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked)
{
	struct ft_mpi_ulfm *u;
	int rc;

	if ((rc = check(comm, "MPIX_Comm_ack_failed")) != MPI_SUCCESS)
		return rc;
	if (num_to_ack < 0 || num_acked == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPIX_Comm_ack_failed",
		    "%s", num_acked == NULL ? "NULL num_acked" :
		    "negative num_to_ack");
	if ((u = update(comm)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM,
		    "MPIX_Comm_ack_failed", "out of memory");
	if (num_to_ack > u->nfailed)
		num_to_ack = u->nfailed;
	if (num_to_ack > u->nacked)
		u->nacked = num_to_ack;
	*num_acked = u->nacked;
	return MPI_SUCCESS;
}

int
PMPIX_Comm_failure_ack(MPI_Comm comm)
{
	struct ft_mpi_ulfm *u;
	int rc;

	if ((rc = check(comm, "MPIX_Comm_failure_ack")) != MPI_SUCCESS)
		return rc;
	if ((u = update(comm)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM,
		    "MPIX_Comm_failure_ack", "out of memory");
	u->nacked = u->nfailed;
	return MPI_SUCCESS;
}

/*
 * Agreement (agree, iagree, shrink, ishrink): a request whose advance
 * asks the protocol whether the decision is in.
 */
struct agreement {
	MPI_Comm	 comm;
	void		*handle;
	int		*flag;		/* agree: the caller's */
	MPI_Comm	*newcomm;	/* shrink: the caller's */
	uint8_t		*failed;	/* the decision's, n bits */
	/* decide (FT-MPI's recovery): the caller's, for the decision */
	uint8_t		*dfailed;
	uint32_t	*dctxv;
	const char	*call;
	/*
	 * The members of the agreement: comm's group, or on an
	 * intercommunicator both groups, the first one first (inter_first)
	 * so that both sides list them alike; n of them.
	 */
	uint32_t	*all;
	int		 n, first;
};

/*
 * An intercommunicator's agreement runs among the members of both
 * groups, on its own context (the same at both sides, and no other
 * communicator's): the group holding the lower process id goes first.
 */
static int
inter_first(MPI_Comm comm)
{
	return comm->world[0] < comm->rworld[0];
}

/* Where the local and the remote group start in a->all. */
static int
off_local(const struct agreement *a)
{
	return a->first ? 0 : a->comm->rsize;
}

static int
off_remote(const struct agreement *a)
{
	return a->first ? a->comm->size : 0;
}

static int
bm_bit(const uint8_t *bm, int i)
{
	return (bm[i / 8] >> (i % 8)) & 1;
}

/* The survivors of one group of n members, from bit off on. */
static uint32_t *
survivors(const struct agreement *a, const uint32_t *world, int n, int off,
    int *ns)
{
	uint32_t *w;
	int i;

	*ns = 0;
	if ((w = calloc((size_t)n + 1, sizeof(*w))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (!bm_bit(a->failed, off + i))
			w[(*ns)++] = world[i];
	return w;
}

/*
 * Build the shrunk intercommunicator: the survivors of both groups.
 * Its ids: ctx is the index idx one member drew from its own count,
 * and that member drew its next, ft__mpi_ctx_after(idx, 1), for the
 * hidden local intracommunicator, both at once (agree_start_x): no
 * other communicator anywhere has either.
 */
static int
shrink_make_inter(struct agreement *a, uint32_t idx)
{
	MPI_Comm comm = a->comm, nc;
	uint32_t *lw, *rw, lidx;
	int nl, nr, me = -1, i, rc = MPI_ERR_NO_MEM;

	lidx = ft__mpi_ctx_after(idx, 1);
	lw = survivors(a, comm->world, comm->size, off_local(a), &nl);
	rw = survivors(a, comm->rworld, comm->rsize, off_remote(a), &nr);
	if (lw == NULL || rw == NULL)
		goto out;
	for (i = 0; i < nl; i++)
		if (lw[i] == comm->world[comm->rank])
			me = i;
	rc = MPI_ERR_INTERN;
	if (me < 0 || idx >= FT_MPI_CTX_OWN_LIMIT ||
	    lidx >= FT_MPI_CTX_OWN_LIMIT)
		goto out;
	/* Every member of the other group died: no intercommunicator. */
	rc = MPIX_ERR_PROC_FAILED;
	if (nr == 0)
		goto out;
	rc = MPI_ERR_INTERN;
	if ((nc = ft__mpi_comm_new_inter(comm, FT_MPI_CTX_IDUP + 2 * idx, lw,
	    nl, me, rw, nr)) == NULL)
		goto out;
	nc->local->ctx = FT_MPI_CTX_IDUP + 2 * lidx;
	*a->newcomm = nc;
	rc = MPI_SUCCESS;
out:
	free(lw);
	free(rw);
	return rc;
}

/* Build the shrunk communicator: the members not in a->failed. */
static int
shrink_make(struct agreement *a, uint32_t ctx)
{
	MPI_Comm comm = a->comm, nc;
	uint32_t *world;
	int i, n = 0, me = -1;

	if ((world = calloc((size_t)comm->size, sizeof(*world))) == NULL)
		return MPI_ERR_NO_MEM;
	for (i = 0; i < comm->size; i++) {
		if ((a->failed[i / 8] >> (i % 8)) & 1)
			continue;
		if (i == comm->rank)
			me = n;
		world[n++] = comm->world[i];
	}
	/*
	 * We are alive, so not among the failed: me >= 0.  ctx is the
	 * index one member drew from its own count (ft__mpi_ctx_own): no
	 * other communicator anywhere has it, whatever this process made
	 * since the call started.
	 */
	if (me < 0 || ctx >= FT_MPI_CTX_OWN_LIMIT ||
	    (nc = ft__mpi_comm_new(comm, FT_MPI_CTX_IDUP + 2 * ctx, world, n,
	    me)) == NULL) {
		free(world);
		return MPI_ERR_INTERN;
	}
	free(world);
	*a->newcomm = nc;
	return MPI_SUCCESS;
}

static int
agree_advance(struct ft_mpi_req *r)
{
	struct agreement *a = r->state;
	struct ft_ext x = { .op = FT_EXT_AGREE_TEST };
	struct ft_mpi_ulfm *u;
	int i, rc;

	if (r->pt.done || a->handle == NULL)
		return r->pt.done;
	x.handle = a->handle;
	x.failed = a->failed;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0 || !x.result)
		return 0;
	x.op = FT_EXT_AGREE_FREE;
	(void)ft_pt_ext(ft__mpi.pt, &x);
	a->handle = NULL;
	/* Every survivor knows of the failures decided: so do we now. */
	if ((u = update(a->comm)) != NULL)
		for (i = 0; i < a->n; i++)
			if ((a->failed[i / 8] >> (i % 8)) & 1)
				failed_add(u, a->all[i]);
	if (FT_MPI_INTER(a->comm)) {
		if (a->newcomm != NULL)
			r->err = shrink_make_inter(a, x.ctxv);
		else {
			/* The AND over the other group's contributions. */
			*a->flag = (int)(a->first ? x.flag2 : x.flag);
			r->err = x.err ? MPIX_ERR_PROC_FAILED : MPI_SUCCESS;
		}
	} else if (a->dfailed != NULL) {
		memcpy(a->dfailed, a->failed, ((size_t)a->comm->size + 7) / 8);
		*a->dctxv = x.ctxv;
		r->err = MPI_SUCCESS;
	} else if (a->newcomm != NULL) {
		rc = shrink_make(a, x.ctxv);
		r->err = rc;
	} else {
		*a->flag = (int)x.flag;
		r->err = x.err ? MPIX_ERR_PROC_FAILED : MPI_SUCCESS;
	}
	r->pt.done = 1;
	return 1;
}

static void
agree_release(struct ft_mpi_req *r)
{
	struct agreement *a = r->state;
	struct ft_ext x = { .op = FT_EXT_AGREE_FREE };

	if (a == NULL)
		return;
	if (a->handle != NULL) {
		x.handle = a->handle;
		(void)ft_pt_ext(ft__mpi.pt, &x);
	}
	if (a->all != a->comm->world)
		free(a->all);
	ft__mpi_comm_release(a->comm);
	free(a->failed);
	free(a);
	r->state = NULL;
}

static int	agree_start_x(MPI_Comm, const char *, int *, MPI_Comm *,
		    const struct agreement *, MPI_Request *);

/* Start an agreement on comm: flag (agree) or newcomm (shrink). */
static int
agree_start(MPI_Comm comm, const char *call, int *flag, MPI_Comm *newcomm,
    MPI_Request *req)
{
	return agree_start_x(comm, call, flag, newcomm, NULL, req);
}

/* The same; with d, a decision for FT-MPI's recovery (ulfm_decide). */
static int
agree_start_x(MPI_Comm comm, const char *call, int *flag, MPI_Comm *newcomm,
    const struct agreement *d, MPI_Request *req)
{
	struct ft_ext x = { .op = FT_EXT_AGREE };
	struct ft_mpi_ulfm *u;
	struct agreement *a;
	struct ft_mpi_req *r;
	uint8_t *acked = NULL;
	size_t nb;
	int i, k, me, rc;

	ft__mpi_replay_refuse(call);	/* issue 16 */
	if ((rc = check(comm, call)) != MPI_SUCCESS)
		return rc;
	/* FT-MPI's recovery decides on intracommunicators only. */
	if (FT_MPI_INTER(comm) && d != NULL)
		return ft__mpi_err(comm, MPI_ERR_COMM, call, "not on an "
		    "intercommunicator");
	if ((flag == NULL && newcomm == NULL && d == NULL) || req == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "NULL argument");
	if ((u = update(comm)) == NULL ||
	    (a = calloc(1, sizeof(*a))) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	a->all = comm->world;
	a->n = comm->size;
	me = comm->rank;
	if (FT_MPI_INTER(comm)) {
		a->first = inter_first(comm);
		a->n = comm->size + comm->rsize;
		if ((a->all = calloc((size_t)a->n, sizeof(*a->all))) ==
		    NULL) {
			free(a);
			return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
			    "out of memory");
		}
		a->comm = comm;
		memcpy(a->all + off_local(a), comm->world,
		    (size_t)comm->size * sizeof(*a->all));
		memcpy(a->all + off_remote(a), comm->rworld,
		    (size_t)comm->rsize * sizeof(*a->all));
		me = off_local(a) + comm->rank;
	}
	nb = ((size_t)a->n + 7) / 8;
	if ((a->failed = calloc(2, nb)) == NULL ||
	    (r = ft__mpi_req_new(FT_MPI_REQ_COLL, comm)) == NULL) {
		free(a->failed);
		if (a->all != comm->world)
			free(a->all);
		free(a);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	}
	acked = a->failed + nb;
	a->comm = comm;
	a->flag = flag;
	a->newcomm = newcomm;
	a->call = call;
	if (d != NULL) {
		a->dfailed = d->dfailed;
		a->dctxv = d->dctxv;
	}
	ft__mpi_comm_hold(comm);
	r->advance = agree_advance;
	r->release = agree_release;
	r->state = a;
	/*
	 * Freed before completion, it need not wait: the protocol's
	 * instance goes on for the other members, and is forgotten once
	 * decided and superseded (lib/proto/ulfm.c).
	 */
	r->lets_go = 1;
	for (k = 0; k < u->nfailed; k++) {
		if ((i = member_index(a->all, a->n, u->failed[k])) < 0)
			continue;
		a->failed[i / 8] |= (uint8_t)(1u << (i % 8));
		if (k < u->nacked)
			acked[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	x.ctx = comm->ctx;
	x.seq = u->seq++;
	x.members = a->all;
	x.n = (uint32_t)a->n;
	x.me = (uint32_t)me;
	x.flag = flag != NULL ? (uint32_t)*flag : ~0u;
	/* Shrink: an id of our own, in case the agreement picks it. */
	x.ctxv = newcomm != NULL ? ft__mpi_ctx_own() : d != NULL ?
	    *d->dctxv : 0;
	if (FT_MPI_INTER(comm)) {
		/* Each group's flag apart: our group's is ours. */
		x.inter = 1;
		x.flag2 = ~0u;
		if (!a->first) {
			x.flag2 = x.flag;
			x.flag = ~0u;
		}
		/* Shrink: our next own id too, for the local group's. */
		if (newcomm != NULL)
			(void)ft__mpi_ctx_own();
	}
	x.failed = a->failed;
	x.acked = acked;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0) {
		rc = ft__mpi_err(comm, errno == ENOMEM ? MPI_ERR_NO_MEM :
		    MPI_ERR_INTERN, call, "%s", strerror(errno));
		(void)ft__mpi_req_free(r);
		return rc;
	}
	a->handle = x.handle;
	memset(a->failed, 0, nb);
	(void)agree_advance(r);
	*req = r;
	return MPI_SUCCESS;
}

/* A blocking agreement: start it and wait. */
static int
agree_block(MPI_Comm comm, const char *call, int *flag, MPI_Comm *newcomm)
{
	MPI_Request req;
	int rc;

	if ((rc = agree_start(comm, call, flag, newcomm, &req)) !=
	    MPI_SUCCESS)
		return rc;
	return ft__mpi_wait_one(call, &req, MPI_STATUS_IGNORE);
}

/* See mpi_impl.h. */
int
ft__mpi_ulfm_decide(MPI_Comm comm, const char *call, uint32_t propose,
    uint8_t *failed, uint32_t *ctxv)
{
	struct agreement d = { .dfailed = failed, .dctxv = ctxv };
	MPI_Request req;
	int rc;

	*ctxv = propose;
	if ((rc = agree_start_x(comm, call, NULL, NULL, &d, &req)) !=
	    MPI_SUCCESS)
		return rc;
	return ft__mpi_wait_one(call, &req, MPI_STATUS_IGNORE);
}

/* See mpi_impl.h. */
int
ft__mpi_ulfm_alive(uint32_t w)
{
	struct ft_ext x = { .op = FT_EXT_ALIVE };

	x.me = w;
	return ft_pt_ext(ft__mpi.pt, &x) == 0 && x.result;
}

/* See mpi_impl.h. */
int
ft__mpi_ulfm_absorb(MPI_Comm comm, int acked)
{
	struct ft_mpi_ulfm *u;
	struct ft_ext x = { .op = FT_EXT_FAILED };
	uint32_t k;

	if ((u = state(comm)) == NULL)
		return -1;
	/* A new context: its agreements are numbered from 0. */
	u->nfailed = u->nacked = 0;
	u->revoked = 0;
	u->seq = 0;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0)
		return -1;
	/* The list may name a process twice: dead, run again, dead. */
	for (k = 0; k < x.ndead; k++)
		if (member_index(comm->world, comm->size, x.dead[k]) >= 0 &&
		    !ft__mpi_ulfm_alive(x.dead[k]))
			failed_add(u, x.dead[k]);
	u->seen = x.ndead;
	if (acked)
		u->nacked = u->nfailed;
	return 0;
}

/* See mpi_impl.h. */
int
ft__mpi_ulfm_keep(MPI_Comm comm, const uint32_t *w, int n)
{
	struct ft_mpi_ulfm *u;
	struct ft_ext x = { .op = FT_EXT_FAILED };
	int k;

	if ((u = state(comm)) == NULL || ft_pt_ext(ft__mpi.pt, &x) != 0)
		return -1;
	u->nfailed = u->nacked = 0;
	u->revoked = 0;
	u->seq = 0;
	u->seen = x.ndead;
	for (k = 0; k < n; k++)
		if (member_index(comm->world, comm->size, w[k]) >= 0)
			failed_add(u, w[k]);
	return 0;
}

/* See mpi_impl.h. */
const uint32_t *
ft__mpi_ulfm_failed(MPI_Comm comm, int *n)
{
	struct ft_mpi_ulfm *u = update(comm);

	*n = u != NULL ? u->nfailed : 0;
	return u != NULL ? u->failed : NULL;
}

int
PMPIX_Comm_agree(MPI_Comm comm, int *flag)
{
	return agree_block(comm, "MPIX_Comm_agree", flag, NULL);
}

int
PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *req)
{
	return agree_start(comm, "MPIX_Comm_iagree", flag, NULL, req);
}

int
PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
	return agree_block(comm, "MPIX_Comm_shrink", NULL, newcomm);
}

int
PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
	return agree_start(comm, "MPIX_Comm_ishrink", NULL, newcomm, req);
}

/* See mpi_impl.h. */
int
ft__mpi_ulfm_shrink(MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
	return agree_block(comm, call, NULL, newcomm);
}

/* The profiling interface: MPIX_X is a weak alias of PMPIX_X. */
/*
 * Open MPI's test aid (<mpi-ext.h>): die here, as a crash would.  What
 * the process printed is flushed first; notify asks Open MPI to announce
 * the death before the detector sees it, which ft's launcher does at
 * once anyway.
 */
FT_MPI_API int
OMPI_Comm_failure_inject(MPI_Comm comm, bool notify)
{
	(void)comm;
	(void)notify;
	fflush(NULL);
	raise(SIGKILL);
	return MPI_SUCCESS;
}

#pragma weak MPIX_Comm_revoke = PMPIX_Comm_revoke
#pragma weak MPIX_Comm_is_revoked = PMPIX_Comm_is_revoked
#pragma weak MPIX_Comm_shrink = PMPIX_Comm_shrink
#pragma weak MPIX_Comm_ishrink = PMPIX_Comm_ishrink
#pragma weak MPIX_Comm_agree = PMPIX_Comm_agree
#pragma weak MPIX_Comm_iagree = PMPIX_Comm_iagree
#pragma weak MPIX_Comm_get_failed = PMPIX_Comm_get_failed
#pragma weak MPIX_Comm_ack_failed = PMPIX_Comm_ack_failed
#pragma weak MPIX_Comm_failure_ack = PMPIX_Comm_failure_ack
#pragma weak MPIX_Comm_failure_get_acked = PMPIX_Comm_failure_get_acked
