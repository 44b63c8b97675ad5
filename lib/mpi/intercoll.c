/* SPDX-License-Identifier: ISC */
/*
 * Collectives on intercommunicators, with the meaning MPI-2 gave them.
 * In the rooted ones (bcast, gather, scatter, reduce and the v forms)
 * the root passes MPI_ROOT, the other members of its group
 * MPI_PROC_NULL (they take no part), and the members of the other
 * group the root's rank there; data goes between the root and the
 * other group.  In the others, each group's data goes to the other
 * group.  Scan and exscan are not defined on intercommunicators, and
 * MPI_IN_PLACE is nowhere allowed.
 *
 * They are schedules like every collective (op.h), built here for the
 * builders of coll.c, which hand over.  Transfers on the
 * intercommunicator name ranks of the remote group; steps within a
 * group run on the intercommunicator's hidden local intracommunicator
 * and are built by coll.c's own builders.  Rank 0 of each group leads:
 *   barrier         local barrier, the leaders trade empty messages,
 *                   local broadcast of a byte
 *   bcast           root to the remote leader, local broadcast
 *   gather          local gather of packed blocks to the leader, which
 *                   sends them to the root in one message
 *   scatter         the root sends every block to the remote leader in
 *                   one message, local scatter
 *   allgather       local gather to the leader, leaders trade, local
 *                   broadcast
 *   reduce          local reduction to the leader, which sends it on
 *   allreduce       local reduction, leaders trade, local broadcast
 *   reduce_scatter  local reduction, leaders trade, local scatter
 * The v and w forms, and alltoall, go straight between each pair of
 * ranks.
 */
#include <limits.h>
#include <stdlib.h>

#include "op.h"

/*
 * The tag of every transfer on the intercommunicator's collective
 * context: collectives on one communicator run one at a time, in the
 * same order on every rank (icoll.c), and none sends two messages from
 * one rank to another there, so nothing needs telling apart.
 */
#define TAG	FT_COLL_TAG(1, 0)

#define TRY(expr)	FT_COLL_TRY(expr)

/*
 * Append the steps of a collective within the caller's group, built by
 * expr while s->comm is the intercommunicator's local one, and end the
 * round.
 */
#define LOCAL(s, expr)							\
	do {								\
		MPI_Comm inter_ = (s)->comm;				\
		int lrc_;						\
									\
		(s)->comm = inter_->local;				\
		lrc_ = (expr);						\
		(s)->comm = inter_;					\
		if (lrc_ != MPI_SUCCESS)				\
			return lrc_;					\
		ft__coll_round(s);					\
	} while (0)

/* Element i of a buffer of type t. */
#define CAT(buf, i, t)	((const char *)(buf) + (MPI_Aint)(i) * (t)->extent)

/* What a rank does in a rooted collective. */
enum role {
	ROOT,		/* the root */
	IDLE,		/* another member of the root's group */
	REMOTE,		/* a member of the other group */
};

static int
check_root(struct ft_coll_sched *s, int root, enum role *role)
{
	if (root == MPI_ROOT)
		*role = ROOT;
	else if (root == MPI_PROC_NULL)
		*role = IDLE;
	else if (root >= 0 && root < s->comm->rsize)
		*role = REMOTE;
	else
		return ft__mpi_err(s->comm, MPI_ERR_ROOT, s->call,
		    "invalid root %d: not MPI_ROOT, MPI_PROC_NULL, nor a "
		    "rank of the remote group of size %d", root,
		    s->comm->rsize);
	return MPI_SUCCESS;
}

/* n blocks of blk bytes, packed, must be countable in an int. */
static int
check_bytes(struct ft_coll_sched *s, int n, size_t blk)
{
	if (blk > (size_t)INT_MAX / (size_t)n)
		return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
		    "%d ranks of %zu bytes are more than an int can count", n,
		    blk);
	return MPI_SUCCESS;
}

int
ft__coll_inter_barrier(struct ft_coll_sched *s)
{
	char *token;

	/* Once the leader hears from the other, all of that group came. */
	LOCAL(s, ft__coll_barrier(s));
	if (s->comm->rank == 0) {
		ft__coll_send(s, NULL, 0, MPI_BYTE, 0, TAG);
		ft__coll_recv(s, NULL, 0, MPI_BYTE, 0, TAG);
		ft__coll_round(s);
	}
	if ((token = ft__coll_tmp(s, 1, NULL)) == NULL)
		return ft__coll_built(s);
	*token = 0;
	LOCAL(s, ft__coll_bcast(s, token, 1, MPI_BYTE, 0));
	return ft__coll_built(s);
}

int
ft__coll_inter_bcast(struct ft_coll_sched *s, void *buf, int count,
    MPI_Datatype type, int root)
{
	enum role role;

	TRY(check_root(s, root, &role));
	if (role == IDLE)
		return ft__coll_built(s);
	TRY(ft__coll_check_data(s, buf, count, type, "message"));
	if (role == ROOT) {
		ft__coll_send(s, buf, count, type, 0, TAG);
		ft__coll_round(s);
		return ft__coll_built(s);
	}
	if (s->comm->rank == 0) {
		ft__coll_recv(s, buf, count, type, root, TAG);
		ft__coll_round(s);
	}
	LOCAL(s, ft__coll_bcast(s, buf, count, type, 0));
	return ft__coll_built(s);
}

/*
 * Gather the group's blocks of scount elements of stype, packed, into
 * a temporary at the leader: *t (NULL elsewhere), of *bytes bytes.
 */
static int
gather_packed(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, char **t, int *bytes)
{
	int n = s->comm->size;
	size_t blk;

	TRY(ft__coll_check_data(s, sbuf, scount, stype, "send"));
	blk = (size_t)scount * stype->size;
	TRY(check_bytes(s, n, blk));
	*t = NULL;
	*bytes = (int)(n * blk);
	if (s->comm->rank == 0 && (*t = ft__coll_tmp(s, *bytes, NULL)) == NULL)
		return ft__coll_built(s);
	LOCAL(s, ft__coll_gather(s, sbuf, scount, stype, *t, (int)blk,
	    MPI_BYTE, 0));
	return MPI_SUCCESS;
}

/*
 * Send count elements of type at buf (the application's) to peer, or
 * receive them from it.
 */
static void
xfer(struct ft_coll_sched *s, int send, const void *buf, int count,
    MPI_Datatype type, int peer)
{
	if (send)
		ft__coll_send(s, buf, count, type, peer, TAG);
	else
		ft__coll_recv(s, (void *)(uintptr_t)buf, count, type, peer,
		    TAG);
}

/*
 * The root's side of gather and scatter: one transfer of every block,
 * at buf, with the remote leader.
 */
static int
root_blocks(struct ft_coll_sched *s, int gather, const void *buf, int count,
    MPI_Datatype type)
{
	int rn = s->comm->rsize;

	TRY(ft__coll_check_data(s, buf, count, type, gather ? "receive" :
	    "send"));
	TRY(ft__coll_check_total(s, rn, count));
	xfer(s, !gather, buf, rn * count, type, 0);
	ft__coll_round(s);
	return ft__coll_built(s);
}

int
ft__coll_inter_gather(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
	enum role role;
	char *t;
	int bytes;

	TRY(check_root(s, root, &role));
	if (role == IDLE)
		return ft__coll_built(s);
	if (role == ROOT)
		return root_blocks(s, 1, rbuf, rcount, rtype);
	TRY(gather_packed(s, sbuf, scount, stype, &t, &bytes));
	if (s->comm->rank == 0) {
		ft__coll_send(s, t, bytes, MPI_BYTE, root, TAG);
		ft__coll_round(s);
	}
	return ft__coll_built(s);
}

/*
 * The blocks of a v or w buffer, one for each rank of the remote group:
 * block i is counts[i] elements at displs[i] (count elements, in order,
 * when counts is NULL), of type, or of types[i] when types is not
 * NULL, and then displs are in bytes.
 */
struct blocks {
	const void		*buf;
	int			 count;
	const int		*counts, *displs;
	MPI_Datatype		 type;
	const MPI_Datatype	*types;
	const char		*what;		/* "send" or "receive" */
};

#define BCOUNT(b, i)	((b)->counts != NULL ? (b)->counts[i] : (b)->count)
#define BTYPE(b, i)	((b)->types != NULL ? (b)->types[i] : (b)->type)

static int
blocks_check(struct ft_coll_sched *s, const struct blocks *b)
{
	int i, rn = s->comm->rsize;

	if (b->counts != NULL)
		TRY(ft__coll_check_counts(s, b->counts, b->displs, rn,
		    b->what));
	else
		TRY(ft__coll_check_total(s, rn, b->count));
	for (i = 0; i < rn; i++)
		TRY(ft__coll_check_data(s, b->buf, BCOUNT(b, i), BTYPE(b, i),
		    b->what));
	return MPI_SUCCESS;
}

/* Send block i to rank i of the remote group, or receive it. */
static void
blocks_xfer(struct ft_coll_sched *s, int send, const struct blocks *b, int i)
{
	const char *at;

	if (b->counts == NULL)
		at = CAT(b->buf, (MPI_Aint)i * b->count, b->type);
	else if (b->types != NULL)
		at = (const char *)b->buf + b->displs[i];
	else
		at = CAT(b->buf, b->displs[i], b->type);
	xfer(s, send, at, BCOUNT(b, i), BTYPE(b, i), i);
}

/*
 * Gatherv and scatterv: each member of the remote group sends its own
 * buffer to the root (gather), or receives it from the root, which
 * holds a block for each.
 */
static int
rooted_v(struct ft_coll_sched *s, int gather, const void *own, int count,
    MPI_Datatype type, const struct blocks *b, int root)
{
	enum role role;
	int i;

	TRY(check_root(s, root, &role));
	if (role == IDLE)
		return ft__coll_built(s);
	if (role == REMOTE) {
		TRY(ft__coll_check_data(s, own, count, type, gather ? "send" :
		    "receive"));
		xfer(s, gather, own, count, type, root);
	} else {
		TRY(blocks_check(s, b));
		for (i = 0; i < s->comm->rsize; i++)
			blocks_xfer(s, !gather, b, i);
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

int
ft__coll_inter_gatherv(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
    MPI_Datatype rtype, int root)
{
	struct blocks b = { rbuf, 0, rcounts, displs, rtype, NULL,
	    "receive" };

	return rooted_v(s, 1, sbuf, scount, stype, &b, root);
}

int
ft__coll_inter_scatter(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
	enum role role;
	size_t blk;
	char *t = NULL;
	int n;

	TRY(check_root(s, root, &role));
	if (role == IDLE)
		return ft__coll_built(s);
	if (role == ROOT)
		return root_blocks(s, 0, sbuf, scount, stype);
	TRY(ft__coll_check_data(s, rbuf, rcount, rtype, "receive"));
	n = s->comm->size;
	blk = (size_t)rcount * rtype->size;
	TRY(check_bytes(s, n, blk));
	if (s->comm->rank == 0) {
		if ((t = ft__coll_tmp(s, (int)(n * blk), NULL)) == NULL)
			return ft__coll_built(s);
		ft__coll_recv(s, t, (int)(n * blk), MPI_BYTE, root, TAG);
		ft__coll_round(s);
	}
	LOCAL(s, ft__coll_scatter(s, t, (int)blk, MPI_BYTE, rbuf, rcount,
	    rtype, 0));
	return ft__coll_built(s);
}

int
ft__coll_inter_scatterv(struct ft_coll_sched *s, const void *sbuf,
    const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root)
{
	struct blocks b = { sbuf, 0, scounts, displs, stype, NULL, "send" };

	return rooted_v(s, 0, rbuf, rcount, rtype, &b, root);
}

int
ft__coll_inter_allgather(struct ft_coll_sched *s, const void *sbuf,
    int scount, MPI_Datatype stype, void *rbuf, int rcount,
    MPI_Datatype rtype)
{
	char *t;
	int rn = s->comm->rsize, bytes;

	TRY(ft__coll_check_data(s, rbuf, rcount, rtype, "receive"));
	TRY(ft__coll_check_total(s, rn, rcount));
	TRY(gather_packed(s, sbuf, scount, stype, &t, &bytes));
	if (s->comm->rank == 0) {
		ft__coll_send(s, t, bytes, MPI_BYTE, 0, TAG);
		ft__coll_recv(s, rbuf, rn * rcount, rtype, 0, TAG);
		ft__coll_round(s);
	}
	LOCAL(s, ft__coll_bcast(s, rbuf, rn * rcount, rtype, 0));
	return ft__coll_built(s);
}

/*
 * Every rank sends a block to every rank of the remote group, and
 * receives one from each: all transfers at once, starting at a
 * different peer on each rank to spread the load.  The sender's
 * blocks are one buffer for all when sb is NULL.
 */
static int
exchange(struct ft_coll_sched *s, const struct blocks *sb, const void *sbuf,
    int scount, MPI_Datatype stype, const struct blocks *rb)
{
	int i, j, rn = s->comm->rsize;

	if (sb != NULL)
		TRY(blocks_check(s, sb));
	else
		TRY(ft__coll_check_data(s, sbuf, scount, stype, "send"));
	TRY(blocks_check(s, rb));
	for (i = 0; i < rn; i++) {
		j = (s->comm->rank + i) % rn;
		blocks_xfer(s, 0, rb, j);
		if (sb != NULL)
			blocks_xfer(s, 1, sb, j);
		else
			xfer(s, 1, sbuf, scount, stype, j);
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

int
ft__coll_inter_allgatherv(struct ft_coll_sched *s, const void *sbuf,
    int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
    const int *displs, MPI_Datatype rtype)
{
	struct blocks rb = { rbuf, 0, rcounts, displs, rtype, NULL,
	    "receive" };

	return exchange(s, NULL, sbuf, scount, stype, &rb);
}

int
ft__coll_inter_alltoall(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype)
{
	struct blocks sb = { sbuf, scount, NULL, NULL, stype, NULL, "send" };
	struct blocks rb = { rbuf, rcount, NULL, NULL, rtype, NULL,
	    "receive" };

	return exchange(s, &sb, NULL, 0, NULL, &rb);
}

int
ft__coll_inter_alltoallv(struct ft_coll_sched *s, const void *sbuf,
    const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
    const int *rcounts, const int *rdispls, MPI_Datatype rtype)
{
	struct blocks sb = { sbuf, 0, scounts, sdispls, stype, NULL, "send" };
	struct blocks rb = { rbuf, 0, rcounts, rdispls, rtype, NULL,
	    "receive" };

	return exchange(s, &sb, NULL, 0, NULL, &rb);
}

int
ft__coll_inter_alltoallw(struct ft_coll_sched *s, const void *sbuf,
    const int *scounts, const int *sdispls, const MPI_Datatype *stypes,
    void *rbuf, const int *rcounts, const int *rdispls,
    const MPI_Datatype *rtypes)
{
	struct blocks sb = { sbuf, 0, scounts, sdispls, NULL, stypes,
	    "send" };
	struct blocks rb = { rbuf, 0, rcounts, rdispls, NULL, rtypes,
	    "receive" };

	if (stypes == NULL || rtypes == NULL)
		return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
		    "NULL datatypes");
	return exchange(s, &sb, NULL, 0, NULL, &rb);
}

int
ft__coll_inter_reduce(struct ft_coll_sched *s, const void *sbuf, void *rbuf,
    int count, MPI_Datatype type, MPI_Op op, int root)
{
	enum role role;
	void *t = NULL;

	TRY(check_root(s, root, &role));
	if (role == IDLE)
		return ft__coll_built(s);
	TRY(ft__coll_check_data(s, role == ROOT ? rbuf : sbuf, count, type,
	    role == ROOT ? "receive" : "send"));
	TRY(ft__coll_check_op(s, op, type));
	if (role == ROOT) {
		ft__coll_recv(s, rbuf, count, type, 0, TAG);
		ft__coll_round(s);
		return ft__coll_built(s);
	}
	if (s->comm->rank == 0 &&
	    (t = ft__coll_tmp(s, count, type)) == NULL)
		return ft__coll_built(s);
	LOCAL(s, ft__coll_reduce_build(s, sbuf, t, count, type, op, 0));
	if (s->comm->rank == 0) {
		ft__coll_send(s, t, count, type, root, TAG);
		ft__coll_round(s);
	}
	return ft__coll_built(s);
}

/*
 * The leader of each group reduces its group's count elements of sbuf
 * into a temporary, and trades it for the other group's, which it
 * receives into *theirs (a temporary unless given).
 */
static int
reduce_trade(struct ft_coll_sched *s, const void *sbuf, void **theirs,
    int count, MPI_Datatype type, MPI_Op op)
{
	void *mine = NULL;

	if (s->comm->rank == 0 &&
	    ((mine = ft__coll_tmp(s, count, type)) == NULL ||
	    (*theirs == NULL &&
	    (*theirs = ft__coll_tmp(s, count, type)) == NULL)))
		return ft__coll_built(s);
	LOCAL(s, ft__coll_reduce_build(s, sbuf, mine, count, type, op, 0));
	if (s->comm->rank == 0) {
		ft__coll_send(s, mine, count, type, 0, TAG);
		ft__coll_recv(s, *theirs, count, type, 0, TAG);
		ft__coll_round(s);
	}
	return ft__coll_built(s);
}

int
ft__coll_inter_allreduce(struct ft_coll_sched *s, const void *sbuf,
    void *rbuf, int count, MPI_Datatype type, MPI_Op op)
{
	void *theirs = rbuf;

	TRY(ft__coll_check_data(s, sbuf, count, type, "send"));
	TRY(ft__coll_check_data(s, rbuf, count, type, "receive"));
	TRY(ft__coll_check_op(s, op, type));
	TRY(reduce_trade(s, sbuf, &theirs, count, type, op));
	LOCAL(s, ft__coll_bcast(s, rbuf, count, type, 0));
	return ft__coll_built(s);
}

/*
 * Reduce-scatter: the other group's reduced vector of total elements
 * is scattered over this group, counts[i] elements (or count each when
 * counts is NULL) to rank i.
 */
static int
reduce_scatter(struct ft_coll_sched *s, const void *sbuf, void *rbuf,
    const int *counts, int count, int total, MPI_Datatype type, MPI_Op op)
{
	void *theirs = NULL;
	int n = s->comm->size, i, *displs = NULL;

	TRY(ft__coll_check_data(s, sbuf, total, type, "send"));
	TRY(ft__coll_check_data(s, rbuf, counts != NULL ?
	    counts[s->comm->rank] : count, type, "receive"));
	TRY(ft__coll_check_op(s, op, type));
	TRY(reduce_trade(s, sbuf, &theirs, total, type, op));
	if (counts == NULL) {
		LOCAL(s, ft__coll_scatter(s, theirs, count, type, rbuf, count,
		    type, 0));
		return ft__coll_built(s);
	}
	if (s->comm->rank == 0) {
		if ((displs = ft__coll_tmp(s, (int)(n * sizeof(*displs)),
		    NULL)) == NULL)
			return ft__coll_built(s);
		for (i = 0; i < n; i++)
			displs[i] = i == 0 ? 0 : displs[i - 1] + counts[i - 1];
	}
	LOCAL(s, ft__coll_scatterv(s, theirs, counts, displs, type, rbuf,
	    counts[s->comm->rank], type, 0));
	return ft__coll_built(s);
}

int
ft__coll_inter_reduce_scatter(struct ft_coll_sched *s, const void *sbuf,
    void *rbuf, const int *rcounts, int total, MPI_Datatype type, MPI_Op op)
{
	return reduce_scatter(s, sbuf, rbuf, rcounts, 0, total, type, op);
}

int
ft__coll_inter_reduce_scatter_block(struct ft_coll_sched *s,
    const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op)
{
	return reduce_scatter(s, sbuf, rbuf, NULL, rcount,
	    s->comm->size * rcount, type, op);
}
