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

/*
 * An error handler: predefined, or made by MPI_Comm_create_errhandler.
 * refs counts the application's handles to a user handler; its memory
 * stays until MPI_Finalize, so communicators may go on using it after
 * the last handle is freed.
 */
struct ft_mpi_errh {
	int				 kind;
	int				 obj;	/* FT_ERRH_COMM, ... */
	MPI_Comm_errhandler_function	*fn;	/* FT_ERRH_USER: one of */
	MPI_Win_errhandler_function	*wfn;
	MPI_File_errhandler_function	*ffn;
	int				 refs;
};

/* The kind of object a user handler is for (MPI-3.1 8.3). */
enum {
	FT_ERRH_COMM = 0,
	FT_ERRH_WIN,
	FT_ERRH_FILE,
};

enum {
	FT_ERRH_FATAL = 1,
	FT_ERRH_RETURN,
	FT_ERRH_ABORT,
	FT_ERRH_USER,
};

/*
 * A new user error handler calling fn, for MPI_Comm_create_errhandler
 * and MPI_Errhandler_create (errors.c); an error is reported as call.
 */
int	 ft__mpi_errh_create(const char *call,
	    MPI_Comm_errhandler_function *, MPI_Errhandler *);

enum ft_mpi_req_kind {
	FT_MPI_REQ_SEND = 1,
	FT_MPI_REQ_RECV,
	FT_MPI_REQ_NULLPROC,	/* complete at once: PROC_NULL */
	FT_MPI_REQ_COLL,	/* a nonblocking collective */
	FT_MPI_REQ_GREQ,	/* a generalized request (grequest.c) */
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
	/*
	 * Requests that are not one pt2pt transfer (nonblocking
	 * collectives) set advance: the completion calls run it to make
	 * progress, and it sets pt.done (and err) when finished; release
	 * frees state when the request is freed.
	 */
	int			(*advance)(struct ft_mpi_req *);
	void			(*release)(struct ft_mpi_req *);
	void			*state;
	/* MPI_Request_free may release it before completion: its work
	 * goes on below MPI (a ULFM agreement). */
	int			 lets_go;
	/*
	 * Generalized requests set these, and the completion calls run
	 * them: query fills the status of a completed request (never
	 * MPI_STATUS_IGNORE), on_free runs when the request goes, and
	 * on_cancel on MPI_Cancel.  Each returns an MPI error code for the
	 * call that ran it.
	 */
	int			(*query)(struct ft_mpi_req *, MPI_Status *);
	int			(*on_free)(struct ft_mpi_req *);
	int			(*on_cancel)(struct ft_mpi_req *);
	int			 err;		/* error class, when not 0 */
	/* Persistent requests: the arguments MPI_Start uses again. */
	int			 persistent, active;
	const void		*pbuf;
	int			 pcount, ppeer, ptag, pmode;
	MPI_Datatype		 ptype;
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
	/* Progress passes made waiting in MPI calls (ckpt.c's poll need). */
	uint64_t		 waits;
	int			 heartbeat;	/* a thread beats for us */
	int			 ulfm;		/* ftrun --ft ulfm (or ftmpi) */
	/* ftrun --ft ftmpi: the job's modes (ft-ftmpi(3)); replacement:
	 * a process of REBUILD that has not joined MPI_COMM_WORLD yet. */
	int			 ftmpi, ftmpi_comm, ftmpi_msg;
	int			 replacement;
	uint32_t		 ftmpi_known;	/* failures seen by ftmpi_tick */
	uint32_t		 views;		/* the launcher's views taken */
	/* ftrun --inject ...,after-sends=N: die after N sends. */
	uint64_t		 kill_after, sends;
	int			 kill_signal;
	/* Buffered-mode sends (MPI_Buffer_attach). */
	uint8_t			*bbuf;
	size_t			 bsize;
	struct ft_bseg {
		size_t	off, len;
		int	used;
	}			*bsegs;
	int			 nbsegs;
	/* Issue 16: ftreplay run re-executes this rank from its record. */
	int			 replay;
};

extern struct ft_mpi_state ft__mpi;

/* ftreplay run: refuse what cannot be replayed (an MPI call named). */
void	 ft__mpi_replay_refuse(const char *call);
/*
 * record.c: ftrun --record (pc->record_dir) and ftreplay run (the
 * record loaded, env and pc made rank R of the recorded size under the
 * replay protocol; exits 100 on a record it cannot use), from the
 * environment.  ft__mpi_record_table gives a replayed rank its table.
 */
int	 ft__mpi_record_setup(struct ft_pt_conf *);
int	 ft__mpi_record_table(struct ft_pt *, const struct ft_rank_addr *);
/* Under replay, tell ftreplay how far the program got (a word). */
void	 ft__mpi_replay_say(const char *word);

/*
 * Report an error on comm (MPI_COMM_WORLD's handler when comm is not
 * valid): return code under MPI_ERRORS_RETURN, else end the job.
 */
int	 ft__mpi_err(MPI_Comm, int code, const char *call, const char *fmt,
	    ...) FT_PRINTF(4, 5);
/* Waitall & co.: the handler gets first (the first failed request's
 * code), the call returns MPI_ERR_IN_STATUS. */
int	 ft__mpi_err_in_status(MPI_Comm, int first, const char *call,
	    const char *fmt, ...) FT_PRINTF(4, 5);
/* Progress until done(arg) is true. */
void	 ft__mpi_wait(int (*done)(void *), void *arg);
/* One pass of progress without waiting (the MPI_Test family). */
void	 ft__mpi_poll(void);
/*
 * Settle a nondeterministic outcome through the protocol
 * (ft_pt_decide); a divergence aborts the job.
 */
void	 ft__mpi_decide(uint32_t kind, uint64_t v[3]);
/* The same for an event of communicator context ctx (a probe). */
void	 ft__mpi_decide_ctx(uint32_t kind, uint32_t ctx, uint64_t v[3]);
/*
 * Requests for the MPI layer's own use.  ft__mpi_req_new returns a
 * zeroed heap request of kind on comm (NULL when out of memory); the
 * completion calls (MPI_Wait, ...) free it as usual.  The _ctx calls
 * start a transfer of count elements of type on an explicit context:
 * collectives use comm->ctx + 1 so they never match application
 * messages.  r is a request set up by ft__mpi_req_init (on the stack,
 * say) or ft__mpi_req_new; it is done when r->pt.done, and
 * ft__mpi_req_cleanup releases what a stack request may still hold.
 * They return an MPI error class (already reported on comm).
 */
struct ft_mpi_req *ft__mpi_req_new(enum ft_mpi_req_kind, MPI_Comm);
void	 ft__mpi_req_init(struct ft_mpi_req *, enum ft_mpi_req_kind, MPI_Comm);
/*
 * Free a request from ft__mpi_req_new that is done (or an inactive
 * persistent one), as MPI_Request_free would: returns what its on_free
 * hook returned, MPI_SUCCESS without one.  Reports nothing.
 */
int	 ft__mpi_req_free(struct ft_mpi_req *);
void	 ft__mpi_req_cleanup(struct ft_mpi_req *);
int	 ft__mpi_isend_ctx(const char *call, const void *buf, int count,
	    MPI_Datatype, int dest, int tag, MPI_Comm, uint32_t ctx,
	    struct ft_mpi_req *);
/* The same with a send mode (FT_SEND_STANDARD or FT_SEND_SYNC). */
int	 ft__mpi_isend_mode_ctx(const char *call, const void *buf, int count,
	    MPI_Datatype, int dest, int tag, MPI_Comm, uint32_t ctx, int mode,
	    struct ft_mpi_req *);
int	 ft__mpi_irecv_ctx(const char *call, void *buf, int count,
	    MPI_Datatype, int src, int tag, MPI_Comm, uint32_t ctx,
	    struct ft_mpi_req *);
/*
 * Start receive r of the message claim (ft_pt_improbe) on comm into
 * count elements of type at buf, as ft__mpi_irecv_ctx does.
 */
int	 ft__mpi_mrecv_start(const char *call, void *buf, int count,
	    MPI_Datatype, MPI_Comm, void *claim, struct ft_mpi_req *);
/*
 * The argument checks of a point-to-point call (recv: src may be
 * MPI_ANY_SOURCE, tag MPI_ANY_TAG); an error is reported on comm.
 */
int	 ft__mpi_check_p2p(const char *call, const void *buf, int count,
	    MPI_Datatype, int peer, int tag, MPI_Comm, int recv);
/*
 * A probe from src (not MPI_PROC_NULL) with tag on comm: wait for a
 * message when block, else look once and poll once.  With msg, the
 * message found is claimed (a matched probe) and *msg set.  Replicated,
 * the master's outcome is followed.  Returns whether a message was
 * found (always, when block), and then fills st; -1 (block, ULFM) when
 * no message can come: its source failed, or for ANY_SOURCE a failure
 * in comm is not acknowledged.
 */
int	 ft__mpi_probe(int src, int tag, MPI_Comm, int block, void **msg,
	    MPI_Status *);
/* MPI_Wait, reporting an error as call. */
int	 ft__mpi_wait_one(const char *call, MPI_Request *, MPI_Status *);
/* An empty status but for source, tag and count in bytes. */
void	 ft__mpi_status_set(MPI_Status *, int source, int tag, size_t bytes);
/* Progress until every one of n requests is done; n may be 0. */
void	 ft__mpi_wait_reqs(struct ft_mpi_req *, int n);

/*
 * Error codes and classes added by MPI_Add_error_class and _code: the
 * largest code in use (MPI_LASTUSEDCODE), and, at MPI_Finalize, the
 * release of those and of user error handlers.
 */
int	 ft__mpi_err_lastused(void);
void	 ft__mpi_errors_fini(void);
/*
 * Fill MPI_INFO_ENV, at the end of MPI_Init: argc and argv as MPI_Init
 * got them (either may be NULL), required the thread level asked for.
 * Returns an MPI error class, already reported.
 */
int	 ft__mpi_info_env_init(int *argc, char ***argv, int required);

/*
 * Dynamic processes (dynamic.c).  dyn_ctl takes the launcher's REPLY
 * and PROCS frames; dyn_init_read reads a spawned process's parents
 * from the launcher connection at MPI_Init (0, or -1 with errno), and
 * dyn_init makes the parent intercommunicator once MPI_COMM_WORLD is
 * there (an MPI class, already reported).
 */
void	 ft__mpi_dyn_ctl(const struct ft_hdr *, const uint8_t *body);
int	 ft__mpi_dyn_init_read(struct ft_conn *);
int	 ft__mpi_dyn_init(void);
/* The processes of the job known so far: bound of every world rank. */
uint32_t ft__mpi_nprocs(void);
/*
 * This process's world rank, as communicators name it: its rank among
 * every rank of the job (the replicas of a rank share it), which is
 * its process id with one process a rank.
 */
uint32_t ft__mpi_self_rank(void);

/*
 * Is eh a handle the application holds (errors.c)?  Is m a message
 * probed and not yet received (mprobe.c)?
 */
int	 ft__mpi_errh_ok(MPI_Errhandler);
int	 ft__mpi_message_ok(MPI_Message);

/*
 * Fortran integers of handles (fint.c).  When a handle the application
 * made stops being valid, its kind's code calls fint_forget, so that
 * its integer no longer converts to it (a no-op for handles never
 * converted); MPI_Finalize calls fint_fini, which forgets them all.
 */
enum ft_fint_kind {
	FT_FINT_COMM,
	FT_FINT_ERRH,
	FT_FINT_GROUP,
	FT_FINT_INFO,
	FT_FINT_MESSAGE,
	FT_FINT_OP,
	FT_FINT_REQUEST,
	FT_FINT_TYPE,
	FT_FINT_WIN,		/* windows (win.c) */
	FT_FINT_NKINDS
};
void	 ft__mpi_fint_forget(enum ft_fint_kind, const void *handle);
void	 ft__mpi_fint_fini(void);

/*
 * ULFM (ulfm.c), all no-ops unless ft__mpi.ulfm.  ulfm_class maps a
 * request's st.error to an MPI class (ECONNRESET: MPIX_ERR_PROC_FAILED,
 * ECANCELED: MPIX_ERR_REVOKED), 0 for others.  revoked says whether
 * comm is revoked; nfailed counts its members known failed, unacked
 * says whether some of those are not acknowledged (ANY_SOURCE receives
 * then fail).  ulfm_free releases comm's state.
 */
int	 ft__mpi_ulfm_class(int err);
int	 ft__mpi_ulfm_revoked(MPI_Comm);
int	 ft__mpi_ulfm_nfailed(MPI_Comm);
int	 ft__mpi_ulfm_unacked(MPI_Comm);
void	 ft__mpi_ulfm_free(MPI_Comm);

/*
 * FT-MPI's modes (ftmpi.c), all no-ops unless ft__mpi.ftmpi.
 * ftmpi_init reads the job's modes at MPI_Init.  ftmpi_check is the
 * check of an operation on comm naming peer (-1: none, a collective):
 * ABORT ends the job, NOP fails an operation on a communicator in error
 * (a failure not recovered), BLANK fails one naming a hole with
 * MPI_ERR_RANK; it returns an MPI class, already reported.
 * ftmpi_pending says whether a pending request r must stop waiting (NOP:
 * its communicator is in error, and is revoked so that every pending
 * operation on it fails).  ftmpi_dup is MPI_Comm_dup on an
 * intracommunicator, or an intercommunicator in mode SHRINK: the
 * recovery.  ftmpi_set_info and _get_info take
 * and give the info keys "ft_comm_mode" and "ft_msg_mode".
 * ftmpi_coll_comm gives the communicator a collective on comm runs on
 * (its live one, for a BLANK communicator with holes).
 */
void	 ft__mpi_ftmpi_init(void);
/*
 * After a progress pass: a failure puts every communicator holding the
 * failed process in error; those in message mode NOP are revoked, so
 * that every operation pending on them, at every member, fails.
 */
void	 ft__mpi_ftmpi_tick(void);
int	 ft__mpi_ftmpi_check(MPI_Comm, const char *call, int peer);
int	 ft__mpi_ftmpi_pending(struct ft_mpi_req *);
int	 ft__mpi_ftmpi_dup(MPI_Comm, const char *call, MPI_Comm *newcomm);
/* Is MPI_Comm_dup of comm a recovery (ftmpi_dup)?  Every
 * intracommunicator's is; an intercommunicator's in mode SHRINK. */
int	 ft__mpi_ftmpi_recovers(MPI_Comm);
int	 ft__mpi_ftmpi_set_info(MPI_Comm, MPI_Info, const char *call);
int	 ft__mpi_ftmpi_get_info(MPI_Comm, MPI_Info);
MPI_Comm ft__mpi_ftmpi_coll_comm(MPI_Comm);
/* Is rank peer of comm a member known failed (FT-MPI jobs only)? */
int	 ft__mpi_ftmpi_gone(MPI_Comm, int peer);
void	 ft__mpi_ftmpi_free(MPI_Comm);
/*
 * BLANK: making communicators from one with holes (ft-ftmpi(3)); a hole
 * is in no new communicator.  ftmpi_members gives the ranks of comm's
 * live members (*members, the caller's; NULL when comm has no holes),
 * *m of them, ours *me among them, for the agreements of comm.c; -1 if
 * out of memory.  ftmpi_unhole drops the holes of comm from the n
 * members of a new communicator (world ids, and their ranks in comm),
 * in place, keeping *me on ours, and returns how many are left.
 * ftmpi_local gives MPI_Intercomm_create the live communicator of
 * local_comm and the leader's rank in it; MPI_ERR_RANK, reported, if
 * the leader is a hole.
 */
int	 ft__mpi_ftmpi_members(MPI_Comm, int **members, int *m, int *me);
int	 ft__mpi_ftmpi_unhole(MPI_Comm, uint32_t *world, int *ranks, int n,
	    int *me);
int	 ft__mpi_ftmpi_local(MPI_Comm *local, int *leader, const char *call);
/*
 * BLANK: MPI_ERR_COMM, reported, if comm has holes: for the calls that
 * refuse them (MPI_Comm_idup, the topology constructors).
 */
int	 ft__mpi_ftmpi_whole(MPI_Comm, const char *call);
/*
 * REBUILD's ledger of processes (rebuild): the launcher's table at
 * MPI_Init, then each REVIVE (its incarnation and process).
 */
void	 ft__mpi_ftmpi_table(const struct ft_rank_addr *, uint32_t n);
void	 ft__mpi_ftmpi_revived(uint32_t proc, uint32_t inc,
	    const struct ft_rank_addr *);
/*
 * ULFM's pieces FT-MPI's recovery uses (ulfm.c).  ulfm_decide runs an
 * agreement on comm (as shrink) and gives the failed members decided (a
 * bitmap of comm->size bits, the caller's) and the context index
 * agreed among those proposed (ctxv).  ulfm_absorb makes comm's list
 * of failed members what the protocol says now, counting every member
 * dead now as acknowledged when acked (BLANK's holes), and forgetting
 * those that run again (REBUILD).  ulfm_alive says whether world rank
 * w is alive (a replacement is, once it runs).
 */
int	 ft__mpi_ulfm_decide(MPI_Comm, const char *call, uint32_t propose,
	    uint8_t *failed, uint32_t *ctxv);
int	 ft__mpi_ulfm_absorb(MPI_Comm, int acked);
/* MPIX_Comm_shrink of comm, its errors reported as call's (FT-MPI's
 * SHRINK of an intercommunicator). */
int	 ft__mpi_ulfm_shrink(MPI_Comm, const char *call, MPI_Comm *newcomm);
/*
 * REBUILD: comm's failed members are exactly the world ranks w[n] that
 * are its members (those not rebuilt yet), none acknowledged; later
 * failures add to them.  ulfm_failed gives comm's failed members now
 * (*n of them; valid until the next call on comm).
 */
int	 ft__mpi_ulfm_keep(MPI_Comm, const uint32_t *w, int n);
/* FT-MPI: how many failures this process knew of (a new communicator's
 * ulfm_born); 0 in other jobs. */
uint32_t ft__mpi_ulfm_known(void);
const uint32_t *ft__mpi_ulfm_failed(MPI_Comm, int *n);
int	 ft__mpi_ulfm_alive(uint32_t w);

/* End the whole job with code, after a message. */
void	 ft__mpi_abort(int code, const char *why) FT_NORETURN;
/* Tell the launcher (ABORT) and return: 0 if it was told, else -1. */
int	 ft__mpi_abort_tell(int code, const char *why);

#define FT_MPI_CHECK_INIT(call)						\
	do {								\
		if (!ft__mpi.initialized || ft__mpi.finalized)		\
			return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, \
			    call, "called %s",				\
			    ft__mpi.finalized ? "after MPI_Finalize" :	\
			    "before MPI_Init");				\
	} while (0)

/* ckpt.c: push what is left to the checkpoint server, free its comm. */
void	 ft__ckpt_finalize(void);
/*
 * --ft coord: an error may be a dead peer's, which ftrun answers with a
 * rollback (SIGKILL): ftrun is told (ABORT with why) and decides, the
 * process waiting for its signal (a rollback, or the job's end).  Only
 * if ftrun never answers does it end by itself, after 10 s, with code.
 * Returns at once under other protocols.
 */
void	 ft__ckpt_hold(int code, const char *why);
/* --ft coord: ftrun says epoch is the newest complete one. */
void	 ft__ckpt_complete(uint64_t epoch);
void	 ft__ckpt_push(uint64_t epoch);	/* coordsrv: PUSH */
/* --ft coord: ftrun's scheduler (DUE). */
void	 ft__ckpt_due(uint64_t epoch, uint64_t call);
/*
 * --ft vlog (issue 15): a restarted process (incarnation > 0) takes
 * the protocol's state from its newest good image, at MPI_Init before
 * its first progress pass; ft_recover() then restores its regions.
 */
void	 ft__ckpt_vlog_restore(uint32_t incarnation);
/* Tell the launcher something (enum ft_note_kind), best effort. */
void	 ft__mpi_note(uint32_t kind, const char *text);

#endif
