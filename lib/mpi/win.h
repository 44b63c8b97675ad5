/* SPDX-License-Identifier: ISC */
/*
 * One-sided communication (MPI-3.1 chapter 11) inside the MPI layer:
 * windows (win.c) and the operations on them (rma.c).
 *
 * A window owns a hidden intracommunicator with the group of the one it
 * was made on (its own pair of contexts, so nothing of the application
 * matches its traffic).  Every operation is a point-to-point message on
 * that communicator's context with tag FT_RMA_TAG_REQ: a header, the
 * target's layout as blocks of bytes, and the data.  The target applies
 * it when it makes progress, which it does in any MPI call that
 * progresses the engine (ft__mpi_rma_tick, after each progress pass);
 * it answers gets and acknowledgements on a tag the origin chose and
 * posted a receive for.  Messages from one origin are applied in the
 * order they were sent, so an UNLOCK, FLUSH or COMPLETE request is
 * applied after every operation before it: its acknowledgement is
 * remote completion.  The memory model is MPI_WIN_UNIFIED: the target's
 * memory is the window, written in place.
 */
#ifndef FT_MPI_WIN_H
#define FT_MPI_WIN_H

#include "mpi_impl.h"

/*
 * A put of at least FT_RMA_SPLIT bytes travels as two messages: the
 * request (arg FT_RMA_DATA, no data) and the data on the request's tag,
 * which the target receives straight into the window when the target
 * data is one block.
 */
#define FT_RMA_SPLIT		65536
#define FT_RMA_DATA		1

/* The tag of requests; replies use tags from FT_RMA_TAG_REPLY up. */
#define FT_RMA_TAG_REQ		1
#define FT_RMA_TAG_REPLY	2
#define FT_RMA_TAG_SPAN		0x3fff0000

/* What a request asks the target (struct ft_rma_hdr's kind). */
enum ft_rma_kind {
	FT_RMA_PUT = 1,
	FT_RMA_GET,
	FT_RMA_ACC,		/* accumulate */
	FT_RMA_GACC,		/* get_accumulate, fetch_and_op */
	FT_RMA_CAS,
	FT_RMA_LOCK,		/* arg: MPI_LOCK_SHARED or _EXCLUSIVE */
	FT_RMA_UNLOCK,
	FT_RMA_FLUSH,
	FT_RMA_POST,		/* the target posted: an access may start */
	FT_RMA_COMPLETE,	/* an access epoch (PSCW) ended */
};

/*
 * A request's header.  The data it acts on is addr (the window's base
 * plus disp times the target's displacement unit, or the absolute
 * address disp in a dynamic window) plus each block's offset, nblk
 * blocks of (offset, length) pairs that follow the header (none: one
 * block of bytes bytes at addr); the data (bytes bytes: for CAS, the
 * compare value and then the new one) follows them.  unit is the size
 * and elem the kind (enum ft_type_kind) of the elements an accumulate
 * combines, op its operation (enum ft_op_code).
 */
struct ft_rma_hdr {
	uint32_t	kind;
	int32_t		tag;		/* the reply's, or 0 */
	int64_t		disp;
	uint64_t	bytes;		/* of data at the target */
	uint32_t	nblk;
	uint32_t	arg;		/* LOCK's type */
	uint32_t	op, elem;
	uint64_t	unit;
};

/* An operation started here and not yet complete (rma.c). */
struct ft_rma_op {
	struct ft_rma_op	*next;
	int			 target;
	int			 has_send, has_recv;
	struct ft_mpi_req	 send, recv;
	int			 has_data;	/* a split put's data */
	struct ft_mpi_req	 data;
	void			*msg;		/* what send sends */
	void			*tmp;		/* a reply to unpack */
	int			 user;		/* a request holds it */
	int			 reaped;	/* the window let it go */
	int			 err;		/* an errno: not sent */
	int32_t			 ack;		/* an acknowledgement */
};

/* A request received and not yet applied (rma.c). */
struct ft_rma_in {
	struct ft_rma_in	*next;
	struct ft_mpi_req	 r;
	uint8_t			*buf;
	size_t			 len;
	/* A split put: its data, received into the window (inplace) or
	 * into tmp. */
	int			 split, inplace;
	struct ft_mpi_req	 data;
	uint8_t			*tmp;
};

/* A memory region attached to a dynamic window. */
struct ft_rma_region {
	uintptr_t	base;
	size_t		size;
};

enum {
	FT_WIN_LOCK_NONE = 0,
	FT_WIN_LOCK_SHARED,
	FT_WIN_LOCK_EXCL,
	FT_WIN_LOCK_NOCHECK,	/* held under MPI_MODE_NOCHECK */
};

struct ft_mpi_win {
	uint32_t		 magic;		/* FT_WIN_MAGIC while valid */
	MPI_Comm		 comm;		/* hidden */
	int			 rank, size;
	int			 flavor;	/* MPI_WIN_FLAVOR_* */
	void			*base;
	MPI_Aint		 wsize;
	int			 disp_unit;
	int			 alloc;		/* base is ours to free */
	/* Every rank's size and displacement unit. */
	MPI_Aint		*sizes;
	int			*units;
	MPI_Errhandler		 errh;
	char			 name[MPI_MAX_OBJECT_NAME];
	struct ft_mpi_attr	*attrs;
	MPI_Info		 info;		/* or MPI_INFO_NULL */
	/* What the attributes point to. */
	void			*a_base;
	MPI_Aint		 a_size;
	int			 a_unit, a_flavor, a_model;
	/* Dynamic windows: the regions attached here. */
	struct ft_rma_region	*regions;
	int			 nregions, capregions;

	/* The origin's side. */
	struct ft_rma_op	*ops, **opstail;
	int			*sent;		/* requests since the last ack */
	int32_t			 err;		/* a target's error, to report */
	uint32_t		 seq;		/* reply tags */
	int			 fence;		/* a fence epoch is open */
	int			 fence_ops;
	int			*locked;	/* FT_WIN_LOCK_* per target */
	int			 nlocked;
	int			 lock_all;
	int			*access;	/* PSCW: in the start group */
	int			*posted;	/* consumed its POST */
	int			 naccess;
	/* The target's side. */
	struct ft_rma_in	*in, **intail;
	struct ft_rma_op	*replies, **repliestail;
	int			*posts;		/* POSTs received, per origin */
	int			 completes;	/* COMPLETEs received */
	int			 exposed;	/* PSCW: origins in the post group */
	int			 excl;		/* holder, or -1 */
	int			 nshared;
	struct ft_rma_wait {
		int	src, type;
		int32_t	tag;
	}			*waiting;
	int			 nwaiting, capwaiting;
	int			*held;		/* FT_WIN_LOCK_* per origin */
	int			*exposing;	/* PSCW: in the post group */
	uint32_t		 known;		/* ULFM: failures seen */
	int32_t			*terr;		/* errors to acknowledge */
	struct ft_mpi_win	*next;		/* every live window */
};

#define FT_WIN_MAGIC	0x4654574eu	/* "FTWN" */

/* win.c: is win a live window (never dereferences a bad handle)? */
int	 ft__mpi_win_ok(MPI_Win);
/* The first window, for rma.c's progress (ft__mpi_rma_tick). */
MPI_Win	 ft__mpi_win_first(void);
/*
 * Report an error on win through its handler as ft__mpi_err does on a
 * communicator; win not valid: MPI_ERR_WIN on MPI_COMM_WORLD.
 */
int	 ft__mpi_win_err(MPI_Win, int code, const char *call,
	    const char *fmt, ...) FT_PRINTF(4, 5);
/* Check win for call: MPI_SUCCESS, or MPI_ERR_WIN reported. */
int	 ft__mpi_win_check(MPI_Win, const char *call);
/* errors.c: raise code on win through eh (a window's handler). */
int	 ft__mpi_errh_win(MPI_Errhandler, MPI_Win, int code, const char *call,
	    const char *msg);

/*
 * rma.c.  rma_tick applies what arrived for every window (after each
 * progress pass).  The others are the window's synchronization steps:
 * send a control request of kind to target (arg: LOCK's type) and, with
 * ack, wait for its acknowledgement; wait for the local completion of
 * every operation (to target, or all with -1); send FLUSH to every
 * target that had a request since its last acknowledgement and wait.
 * Each returns an MPI class, already reported as call.
 */
void	 ft__mpi_rma_tick(void);
int	 ft__mpi_rma_ctl(MPI_Win, const char *call, int kind, int target,
	    int arg, int ack);
int	 ft__mpi_rma_ctl_all(MPI_Win, const char *call, int kind, int arg,
	    const int *only);
int	 ft__mpi_rma_local(MPI_Win, const char *call, int target);
int	 ft__mpi_rma_flush_sent(MPI_Win, const char *call);
/*
 * ULFM (--ft ulfm): is rank r of win dead?  An error number of a
 * request as an MPI class (MPIX_ERR_PROC_FAILED for a dead peer, else
 * MPI_ERR_OTHER).
 */
int	 ft__mpi_rma_dead(MPI_Win, int r);
int	 ft__mpi_rma_class(int err);
/* Wait for one POST from target (PSCW's access). */
int	 ft__mpi_rma_await_post(MPI_Win, const char *call, int target);
/* Let go of what the window still holds of either side, at its free. */
void	 ft__mpi_rma_drop(MPI_Win);

#endif
