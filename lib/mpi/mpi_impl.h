/* SPDX-License-Identifier: ISC */
/*
 * The MPI layer's own structures and cross-file internals (ft__mpi_*).
 * The public face is lib/include/mpi.h; below this layer everything is
 * bytes, contexts and world ranks (lib/pt2pt).
 */
#ifndef FT_MPI_IMPL_H
#define FT_MPI_IMPL_H

#include "../include/mpi.h"
#include "../job/job.h"
#include "../pt2pt/pt2pt.h"
#include "comm.h"
#include "type.h"

struct ft_mpi_errh {
	int	kind;
};

enum {
	FT_ERRH_FATAL = 1,
	FT_ERRH_RETURN,
	FT_ERRH_ABORT,
};

enum ft_mpi_req_kind {
	FT_MPI_REQ_SEND = 1,
	FT_MPI_REQ_RECV,
	FT_MPI_REQ_NULLPROC,	/* complete at once: PROC_NULL */
};

struct ft_mpi_req {
	struct ft_req		 pt;
	enum ft_mpi_req_kind	 kind;
	MPI_Comm		 comm;
	int			 freed;		/* MPI_Request_free'd */
	long			 bsend_seg;	/* offset in the attached buffer, or -1 */
	/* Data that is not one dense block travels packed. */
	void			*packbuf;
	void			*ubuf;		/* the application's buffer */
	int			 ucount;
	MPI_Datatype		 utype;
	int			 is_recv;
};

/* The one MPI state of the process. */
struct ft_mpi_state {
	int			 initialized, finalized;
	int			 thread_level;
	struct ft_job_env	 env;
	struct ft_pt		*pt;
	int			 singleton;
	int			 finalize_ok;
	int			 spin_us;
	int			 oversubscribed;
	/* Buffered-mode sends (MPI_Buffer_attach). */
	uint8_t			*bbuf;
	size_t			 bsize;
	struct ft_bseg {
		size_t	off, len;
		int	used;
	}			*bsegs;
	int			 nbsegs;
};

extern struct ft_mpi_state ft__mpi;

/*
 * Report an error on comm (MPI_COMM_WORLD's handler when comm is not
 * valid): return code under MPI_ERRORS_RETURN, else end the job.
 */
int	 ft__mpi_err(MPI_Comm, int code, const char *call, const char *fmt,
	    ...) FT_PRINTF(4, 5);
/* Progress until done(arg) is true. */
void	 ft__mpi_wait(int (*done)(void *), void *arg);
/* End the whole job with code, after a message. */
void	 ft__mpi_abort(int code, const char *why) FT_NORETURN;

#define FT_MPI_CHECK_INIT(call)						\
	do {								\
		if (!ft__mpi.initialized || ft__mpi.finalized)		\
			return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, \
			    call, "called %s MPI_Init",		\
			    ft__mpi.finalized ? "after MPI_Finalize" :	\
			    "before");					\
	} while (0)

#endif
