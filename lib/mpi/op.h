/* SPDX-License-Identifier: ISC */
/*
 * Reduction operations and collective schedules inside the MPI layer.
 *
 * An operation combines two vectors, inout = in op inout, in the order
 * the standard gives MPI_User_function: in holds the lower ranks'
 * contribution.  Collectives are schedules: lists of point-to-point
 * transfers on the communicator's collective context (ctx + 1) and of
 * local steps (reductions, copies), cut into rounds.  A round starts
 * every step it holds, in order, and ends when all its transfers are
 * done; the next round starts only then, so a step may use what an
 * earlier round received, and may overwrite what it sent.  coll.c
 * builds the schedules of every collective (and runs them to the end
 * for the blocking calls); icoll.c runs them, and drives them from the
 * advance hook of a request for the nonblocking calls.
 */
#ifndef FT_MPI_OP_H
#define FT_MPI_OP_H

#include "mpi_impl.h"

enum ft_op_code {
	FT_OP_USER = 0,
	FT_OP_MAX,
	FT_OP_MIN,
	FT_OP_SUM,
	FT_OP_PROD,
	FT_OP_LAND,
	FT_OP_BAND,
	FT_OP_LOR,
	FT_OP_BOR,
	FT_OP_LXOR,
	FT_OP_BXOR,
	FT_OP_MAXLOC,
	FT_OP_MINLOC,
	FT_OP_REPLACE,
	FT_OP_NO_OP,
};

struct ft_mpi_op {
	enum ft_op_code		 code;
	MPI_User_function	*fn;		/* FT_OP_USER only */
	int			 commute;
	int			 predefined;
	int			 refs;	/* the handle, pending schedules */
	const char		*name;
};

/* Is op a live operation (predefined or made by MPI_Op_create)? */
int	 ft__mpi_op_ok(MPI_Op);
/* The i-th predefined operation, in a fixed order; NULL past the last. */
MPI_Op	 ft__mpi_op_predef(size_t i);
/*
 * May op reduce count elements of type?  Returns MPI_SUCCESS or
 * MPI_ERR_OP (not reported): predefined operations take the predefined
 * types the standard lists for them, and derived types made of one of
 * those; user operations take any type.
 */
int	 ft__mpi_op_check(MPI_Op, MPI_Datatype);
/* inout = in op inout, count elements of type; op_check passed. */
void	 ft__mpi_op_apply(MPI_Op, const void *in, void *inout, int count,
	    MPI_Datatype);
/*
 * One-sided accumulates (rma.c): may predefined op combine units of
 * kind k (MPI_SUCCESS or MPI_ERR_OP, not reported; MPI_REPLACE and
 * MPI_NO_OP take any)?  inout = in op inout for n units of kind k;
 * -1 when op has no code for k.
 */
int	 ft__mpi_op_check_kind(MPI_Op, enum ft_type_kind);
int	 ft__mpi_op_apply_kind(MPI_Op, enum ft_type_kind, const void *in,
	    void *inout, size_t n);
/* Keep a user operation alive while a schedule uses it. */
void	 ft__mpi_op_retain(MPI_Op);
void	 ft__mpi_op_release(MPI_Op);

/* Return the MPI error class expr gives, unless MPI_SUCCESS. */
#define FT_COLL_TRY(expr)						\
	do {								\
		int rc_ = (expr);					\
		if (rc_ != MPI_SUCCESS)					\
			return rc_;					\
	} while (0)

/* Tags below FT_MPI_COMM_TAG_BASE, one range per collective. */
#define FT_COLL_TAG(kind, step)	(((kind) << 20) | ((step) & 0xfffff))

enum ft_coll_step_kind {
	FT_CS_SEND = 1,
	FT_CS_RECV,
	FT_CS_REDUCE,		/* dst = src op dst */
	FT_CS_COPY,		/* (src, count, type) to (dst, count2, type2) */
	FT_CS_ROUND,		/* end of a round */
};

struct ft_coll_step {
	enum ft_coll_step_kind	 kind;
	/*
	 * Where a transfer goes: the schedule's communicator when the
	 * step was added (an intercommunicator's collectives add steps
	 * on its local one too).
	 */
	MPI_Comm		 comm;
	int			 peer, tag;
	int			 count, count2;
	MPI_Datatype		 type, type2;
	MPI_Op			 op;
	const void		*src;
	void			*dst;
};

#define FT_COLL_INLINE_STEPS	32
#define FT_COLL_INLINE_REQS	8
#define FT_COLL_ARENA		1024

/*
 * A schedule.  Blocking collectives keep one on the stack; nonblocking
 * ones on the heap, owned by their request.  Temporary buffers come
 * from ft__coll_tmp and live as long as the schedule.
 */
struct ft_coll_sched {
	MPI_Comm		 comm;
	const char		*call;
	int			 err;		/* MPI error class, or 0 */
	int			 nb;	/* nonblocking: holds types, ops */
	struct ft_coll_step	*steps;
	int			 nsteps, capsteps;
	int			 pc;		/* next step to start */
	int			 inround, maxround;
	struct ft_mpi_req	*reqs;		/* the round's transfers */
	int			 nreqs;
	void			**bufs;		/* heap buffers to free */
	int			 nbufs, capbufs;
	size_t			 arena_used;
	/* Nonblocking: the request, and the list of schedules in flight. */
	struct ft_mpi_req	*req;
	struct ft_coll_sched	*next, *prev;
	int			 linked, started;
	/* FT-MPI's BLANK: the communicator named, when comm is its live
	 * members (ftmpi.c); else NULL. */
	MPI_Comm		 holes;
	/* ULFM: the members of comm known failed when the call began. */
	int			 failed0;
	struct ft_coll_step	 isteps[FT_COLL_INLINE_STEPS];
	struct ft_mpi_req	 ireqs[FT_COLL_INLINE_REQS];
	_Alignas(max_align_t) unsigned char arena[FT_COLL_ARENA];
};

/* Set up and release a schedule for call on comm (not yet checked). */
void	 ft__coll_init(struct ft_coll_sched *, MPI_Comm, const char *call);
void	 ft__coll_release(struct ft_coll_sched *);

/*
 * Append steps.  They never fail: running out of memory sets s->err,
 * which ft__coll_built reports.
 */
void	 ft__coll_send(struct ft_coll_sched *, const void *buf, int count,
	    MPI_Datatype, int peer, int tag);
void	 ft__coll_recv(struct ft_coll_sched *, void *buf, int count,
	    MPI_Datatype, int peer, int tag);
void	 ft__coll_reduce(struct ft_coll_sched *, const void *in, void *inout,
	    int count, MPI_Datatype, MPI_Op);
void	 ft__coll_copy(struct ft_coll_sched *, const void *src, int count,
	    MPI_Datatype, void *dst, int count2, MPI_Datatype type2);
void	 ft__coll_round(struct ft_coll_sched *);
/*
 * Room for count elements of type (laid out as type lays them out:
 * element 0 at the returned address), or for count bytes when type is
 * NULL; valid until the schedule is released.  NULL (and s->err set)
 * when out of memory.
 */
void	*ft__coll_tmp(struct ft_coll_sched *, int count, MPI_Datatype);
/* Report an error found while building: s->err, already reported. */
int	 ft__coll_built(struct ft_coll_sched *);

/*
 * Run a built schedule to the end (blocking collectives), first
 * completing the nonblocking collectives still in flight on its
 * communicator.  Returns an MPI error class, already reported.
 */
int	 ft__coll_run(struct ft_coll_sched *);
/*
 * Hand a built heap schedule (from ft__coll_new) to a new request of
 * kind FT_MPI_REQ_COLL, start it, and store the request in *req.  The
 * request owns the schedule from then on, even on failure.  Returns an
 * MPI error class, already reported.
 */
struct ft_coll_sched *ft__coll_new(MPI_Comm, const char *call);
int	 ft__coll_post(struct ft_coll_sched *, MPI_Request *req);

/*
 * The builders of every collective, shared by the blocking and the
 * nonblocking calls: check the arguments (errors reported on comm, as
 * s->call) and append the collective's steps to s.  Return an MPI error
 * class.
 */
int	 ft__coll_barrier(struct ft_coll_sched *);
int	 ft__coll_bcast(struct ft_coll_sched *, void *, int, MPI_Datatype, int);
int	 ft__coll_reduce_build(struct ft_coll_sched *, const void *, void *,
	    int, MPI_Datatype, MPI_Op, int);
int	 ft__coll_allreduce(struct ft_coll_sched *, const void *, void *, int,
	    MPI_Datatype, MPI_Op);
int	 ft__coll_gather(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype, int);
int	 ft__coll_gatherv(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, const int *, const int *, MPI_Datatype, int);
int	 ft__coll_scatter(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype, int);
int	 ft__coll_scatterv(struct ft_coll_sched *, const void *, const int *,
	    const int *, MPI_Datatype, void *, int, MPI_Datatype, int);
int	 ft__coll_allgather(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype);
int	 ft__coll_allgatherv(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, const int *, const int *, MPI_Datatype);
int	 ft__coll_alltoall(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype);
int	 ft__coll_alltoallv(struct ft_coll_sched *, const void *, const int *,
	    const int *, MPI_Datatype, void *, const int *, const int *,
	    MPI_Datatype);
int	 ft__coll_alltoallw(struct ft_coll_sched *, const void *, const int *,
	    const int *, const MPI_Datatype *, void *, const int *,
	    const int *, const MPI_Datatype *);
int	 ft__coll_reduce_scatter(struct ft_coll_sched *, const void *, void *,
	    const int *, MPI_Datatype, MPI_Op);
int	 ft__coll_reduce_scatter_block(struct ft_coll_sched *, const void *,
	    void *, int, MPI_Datatype, MPI_Op);
int	 ft__coll_scan(struct ft_coll_sched *, const void *, void *, int,
	    MPI_Datatype, MPI_Op, int exclusive);

/*
 * Argument checks of coll.c, which report on s->comm as s->call: a
 * buffer of count elements of type (what names it), n blocks of count
 * elements countable in an int, n counts and displacements, and an
 * operation on type.
 */
int	 ft__coll_check_data(struct ft_coll_sched *, const void *buf,
	    int count, MPI_Datatype, const char *what);
int	 ft__coll_check_total(struct ft_coll_sched *, int n, int count);
int	 ft__coll_check_counts(struct ft_coll_sched *, const int *counts,
	    const int *displs, int n, const char *what);
int	 ft__coll_check_op(struct ft_coll_sched *, MPI_Op, MPI_Datatype);

/*
 * intercoll.c: the builders on an intercommunicator, to which the ones
 * above hand over (scan and exscan are not defined there).  The same
 * arguments, with MPI-2's meaning for intercommunicators; the
 * reduce-scatters' counts are checked already, and total is the sum of
 * the counts.
 */
int	 ft__coll_inter_barrier(struct ft_coll_sched *);
int	 ft__coll_inter_bcast(struct ft_coll_sched *, void *, int,
	    MPI_Datatype, int);
int	 ft__coll_inter_reduce(struct ft_coll_sched *, const void *, void *,
	    int, MPI_Datatype, MPI_Op, int);
int	 ft__coll_inter_allreduce(struct ft_coll_sched *, const void *,
	    void *, int, MPI_Datatype, MPI_Op);
int	 ft__coll_inter_gather(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype, int);
int	 ft__coll_inter_gatherv(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, const int *, const int *, MPI_Datatype, int);
int	 ft__coll_inter_scatter(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype, int);
int	 ft__coll_inter_scatterv(struct ft_coll_sched *, const void *,
	    const int *, const int *, MPI_Datatype, void *, int, MPI_Datatype,
	    int);
int	 ft__coll_inter_allgather(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype);
int	 ft__coll_inter_allgatherv(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, const int *, const int *, MPI_Datatype);
int	 ft__coll_inter_alltoall(struct ft_coll_sched *, const void *, int,
	    MPI_Datatype, void *, int, MPI_Datatype);
int	 ft__coll_inter_alltoallv(struct ft_coll_sched *, const void *,
	    const int *, const int *, MPI_Datatype, void *, const int *,
	    const int *, MPI_Datatype);
int	 ft__coll_inter_alltoallw(struct ft_coll_sched *, const void *,
	    const int *, const int *, const MPI_Datatype *, void *,
	    const int *, const int *, const MPI_Datatype *);
int	 ft__coll_inter_reduce_scatter(struct ft_coll_sched *, const void *,
	    void *, const int *, int total, MPI_Datatype, MPI_Op);
int	 ft__coll_inter_reduce_scatter_block(struct ft_coll_sched *,
	    const void *, void *, int, MPI_Datatype, MPI_Op);

#endif
