/* SPDX-License-Identifier: ISC */
/*
 * Rank-to-rank messages in bytes: connections to every peer (Unix sockets
 * on one host, TCP otherwise, opened on first use), eager sends for small
 * messages, rendezvous (RTS, CTS, data) for large and synchronous ones,
 * matching against posted and unexpected queues per communicator context,
 * and the progress engine.  Datatypes and communicator ranks are the MPI
 * layer's business: here a message is bytes with a context, a source
 * rank in the communicator, and a tag.
 *
 * Ordering: every message from rank i to rank j travels on the one
 * connection i opened to j, and unexpected messages queue in arrival
 * order, so messages from one source on one context never overtake.
 *
 * The fault-tolerance protocol of the job (lib/proto, ft-proto(7)) is
 * called at fixed points of the data path and acts through the engine's
 * effects; the engine knows processes and ranks, not what a protocol
 * makes of them.
 *
 * The engine is single-threaded: only the thread that called
 * ft_pt_init calls into it (MPI_THREAD_FUNNELED).
 */
#ifndef FT_PT2PT_H
#define FT_PT2PT_H

#include "../net/net.h"
#include "../proto/proto.h"

#define FT_PT_ANY		(-1)	/* wildcard source or tag */
#define FT_PT_EAGER_MAX		(64u << 10)
/*
 * Eager flow control: a sender may have at most FT_PT_EAGER_WINDOW bytes
 * of eager messages (payload plus FT_PT_EAGER_COST each) that the receiver
 * has not yet matched; beyond that it sends by rendezvous, which waits for
 * the receive.  The receiver returns credit in CREDIT frames, a quarter
 * window at a time.  So a fast sender can never fill a slow receiver's
 * memory with unexpected messages.
 */
#define FT_PT_EAGER_WINDOW	(4u << 20)
#define FT_PT_EAGER_COST	64u

enum ft_req_kind {
	FT_REQ_SEND = 1,
	FT_REQ_RECV,
};

struct ft_pt_status {
	int	 source;	/* rank in the communicator */
	int	 tag;
	int	 error;		/* 0, or EMSGSIZE when truncated */
	int	 cancelled;
	size_t	 bytes;		/* bytes received (after truncation) */
	size_t	 msglen;	/* bytes the sender sent */
};

struct ft_req {
	enum ft_req_kind	 kind;
	int			 done;
	int			 posted;	/* in a posted queue */
	/* Receives. */
	void			*buf;
	size_t			 cap;
	int			 src;		/* or FT_PT_ANY */
	int			 tag;		/* or FT_PT_ANY */
	uint32_t		 ctx;
	size_t			 got;
	/* Sends. */
	const void		*sbuf;
	size_t			 len;
	uint32_t		 dst;		/* world rank */
	int			 mode;
	/* Both. */
	uint64_t		 id;		/* rendezvous handle, or 0 */
	uint64_t		 seq;		/* the message's number */
	uint32_t		 peer;		/* receives: process of the sender */
	uint32_t		 wsrc;		/* receives: world rank named, or
						 * UINT32_MAX (FT_PROTO_FAILS) */
	struct ft_pt_status	 st;
	/* A send to several processes (the protocol's send_msg). */
	int			 multi;
	uint32_t		 want;		/* processes yet to answer RTS */
	uint32_t		 sending;	/* processes data is going to */
	/* Receives the protocol saw posted with ANY_SOURCE. */
	uint64_t		 rtag;		/* its word, for its match hook */
	int			 held;		/* source waits: core->resolve */
	struct ft_req		*next, *prev;
	/* Called once when the request completes (never if it fails). */
	void			(*on_done)(struct ft_req *);
	void			*user;
};

struct ft_pt;

struct ft_pt_conf {
	uint32_t		 rank, size;	/* world */
	/* The job's layout: ppr processes per rank (0 or 1: one), this
	 * one the index-th of its rank; process id rank * ppr + index. */
	uint32_t		 index, ppr;
	int			 check_divergence;
	const uint8_t		*key;		/* FT_WIRE_KEYLEN, not owned */
	const struct ft_proto_ops *proto;
	int			 force_tcp;	/* TCP even on one host */
	const char		*unix_dir;	/* where to listen, or NULL */
	const char		*tcp_host;	/* "127.0.0.1" by default */
	uint32_t		 node;		/* this host's index */
	/* A connection must send HELLO this long after it was accepted
	 * (0: FT_HS_HELLO_NS, ft-wire(7)); tests shorten it. */
	uint64_t		 hello_ns;
	/* Message logging (vlog): see struct ft_conf. */
	const char		*log_addr;
	uint64_t		 job;
	uint32_t		 incarnation;
	uint64_t		 log_mem;
	int			 strict;
	int			 replay_off;
	const uint8_t		*log_key;	/* NULL: key */
	/* Issue 16: handed to the protocol seam as they are (struct
	 * ft_conf); the engine does not look at them. */
	const char		*record_dir;
	struct ft_rec		*record;
	uint32_t		 universe;
};

/*
 * Create the engine and open its listeners: a Unix socket in unix_dir
 * unless force_tcp, and a TCP socket on tcp_host only with force_tcp,
 * when tcp_host is given (a job over several hosts: ranks of other
 * hosts connect there) or without unix_dir (in a world of more than
 * one process), since a TCP port is open to every user of the host.
 * Returns NULL with errno.
 * ft_pt_addr gives this rank's addresses for the launcher's table; the
 * address of a socket it does not listen on is empty, and a peer that
 * has no address we can use cannot be sent to (EHOSTUNREACH).
 */
struct ft_pt *ft_pt_new(const struct ft_pt_conf *);
void	 ft_pt_addr(const struct ft_pt *, struct ft_rank_addr *);

/*
 * Hand the engine the addresses of every rank (n must equal the world
 * size, or with one process a rank be at least it: the processes of
 * the job so far); the engine keeps a copy.  Returns 0, or -1 with
 * EINVAL.
 */
int	 ft_pt_set_table(struct ft_pt *, const struct ft_rank_addr *, uint32_t n);

/*
 * Processes that joined the job after the table (dynamic processes,
 * one process a rank only): the addresses of processes first to
 * first + n - 1 (FT_MSG_PROCS).  The engine grows to hold them; ids in
 * between that it has no address for yet wait for one.  A process
 * whose address is empty (pid 0, no socket) has not joined yet.  Returns 0, or -1 with
 * errno (EINVAL: more than one process a rank, or ids out of range;
 * ENOMEM).
 *
 * Sending to a process the engine has no address for, or accepting a
 * connection from one, waits (up to FT_PT_JOIN_NS) for the launcher's
 * PROCS frame on the control connection: the launcher sends it to
 * every process before any can learn of the new ids.
 */
#define FT_PT_JOIN_NS	30000000000u	/* 30 s */
int	 ft_pt_grow(struct ft_pt *, uint32_t first, const struct ft_rank_addr *,
	    uint32_t n);

/*
 * The launcher connection, already authenticated: the engine polls it
 * with the rest and hands each frame to on_ctl (which may be called
 * from any progress call), and calls on_ctl with h == NULL when it
 * closes.  The engine owns conn from now on.
 */
void	 ft_pt_set_ctl(struct ft_pt *, struct ft_conn *,
	    void (*on_ctl)(void *, const struct ft_hdr *, const uint8_t *),
	    void *arg);
struct ft_conn *ft_pt_ctl(struct ft_pt *);

/* Close every connection and free the engine. */
void	 ft_pt_free(struct ft_pt *);

/*
 * Start a send of len bytes from buf to world rank dst, on context ctx,
 * as rank src of the communicator.  The caller owns req, which must stay
 * put until done.  Returns 0, or -1 with errno (ENOMEM; ECONNRESET when
 * dst is known to be gone).
 */
int	 ft_pt_isend(struct ft_pt *, struct ft_req *, const void *buf,
	    size_t len, uint32_t dst, uint32_t ctx, uint32_t src, int tag,
	    int mode);
/* Start a receive; src and tag may be FT_PT_ANY. */
int	 ft_pt_irecv(struct ft_pt *, struct ft_req *, void *buf, size_t cap,
	    int src, int tag, uint32_t ctx);
/*
 * The same, naming the world rank wsrc of a source that is not
 * FT_PT_ANY: under a protocol with FT_PROTO_FAILS, a receive from a
 * process that a view says is dead completes with st.error ECONNRESET
 * once nothing it sent matches it.  Under such a protocol, requests
 * also complete in error rather than wait: ECONNRESET when the peer is
 * dead (a send to it, at once), ECANCELED when their context is
 * revoked (the ext hook's FT_EXT_REVOKE).
 */
int	 ft_pt_irecv_from(struct ft_pt *, struct ft_req *, void *buf,
	    size_t cap, int src, uint32_t wsrc, int tag, uint32_t ctx);
/*
 * Ask the protocol for an operation beyond the data path (struct
 * ft_ext in proto.h).  Returns 0, or -1 with errno (ENOTSUP: the
 * protocol has none).
 */
int	 ft_pt_ext(struct ft_pt *, struct ft_ext *);
/*
 * What the protocol adds to a checkpoint image (its save hook; nothing
 * without one), and rebuilds from it (restore; an empty section
 * without one).  0, or -1 with errno.
 */
int	 ft_pt_save(struct ft_pt *, struct ft_wbuf *);
int	 ft_pt_restore(struct ft_pt *, struct ft_rbuf *);
/*
 * Look for a matching message that has arrived and not been received.
 * Returns 1 and fills st (source, tag, msglen), or 0.
 */
int	 ft_pt_iprobe(struct ft_pt *, int src, int tag, uint32_t ctx,
	    struct ft_pt_status *);
/*
 * A matched probe (MPI_Improbe): as ft_pt_iprobe, but the message found
 * is claimed, so that no receive, probe or claim matches it any more;
 * ft_pt_mrecv receives it.  A message that a receive posted earlier may
 * still take (one behind a receive whose source the protocol has yet to
 * settle) is not claimed: then nothing is, and the caller asks again
 * later.  Returns 1, filling st and setting *msg to an opaque handle
 * valid until ft_pt_mrecv or ft_pt_free, or 0.
 */
int	 ft_pt_improbe(struct ft_pt *, int src, int tag, uint32_t ctx,
	    struct ft_pt_status *, void **msg);
/*
 * Start receive req of the message msg claimed (with its source, tag
 * and context), into buf of cap bytes, as ft_pt_irecv would.  Returns
 * 0, or -1 with errno (EINVAL: msg is not a claimed message of this
 * engine).
 */
int	 ft_pt_mrecv(struct ft_pt *, struct ft_req *, void *buf, size_t cap,
	    void *msg);
/* Cancel a receive not yet matched: returns 1 if it was cancelled. */
int	 ft_pt_cancel(struct ft_pt *, struct ft_req *);

/*
 * Make progress: accept, connect, read and write whatever is ready,
 * waiting up to timeout_ms (0: do not wait, -1: until something
 * happens).  Returns 0, or -1 with errno on a local failure (ENOMEM).
 * This is also when the engine enforces the limits on connections in
 * the handshake (ft_hs_guard): at most nproc + FT_HS_STRANGERS, and
 * none silent past its HELLO deadline, which ends a wait early.
 * Refused connections are reported through a rate limit.
 */
int	 ft_pt_progress(struct ft_pt *, int timeout_ms);

/* Anything still to be written or waiting for a CTS? */
int	 ft_pt_busy(struct ft_pt *);
/* Requests completed so far: a measure of progress for heartbeats. */
uint64_t ft_pt_ncompleted(const struct ft_pt *);

/*
 * This process's rank (its process id, with one process a rank: with
 * dynamic processes, an id among every process of the job), the
 * processes known so far, and ranks known to be gone (every process).
 */
uint32_t ft_pt_rank(const struct ft_pt *);
uint32_t ft_pt_size(const struct ft_pt *);
int	 ft_pt_peer_gone(const struct ft_pt *, uint32_t);

/*
 * Nondeterministic events (struct ft_nd, enum ft_nd_kind in proto.h),
 * settled by the protocol: logged, decided by one process and followed
 * by others, or replayed.
 * ft_pt_nondet_on says whether the protocol settles any (else every
 * outcome is the local one and the calls below cost nothing).
 * ft_pt_nondet runs the protocol's hook, making progress while it asks
 * to wait.  Returns 0, or -1 with errno (EPROTO: the protocol expected
 * another event, which means the process diverged).
 */
int	 ft_pt_nondet_on(const struct ft_pt *);
int	 ft_pt_nondet(struct ft_pt *, struct ft_nd *);
/*
 * The same for one outcome: v holds the local outcome and, on return,
 * the one to use.
 */
int	 ft_pt_decide(struct ft_pt *, uint32_t kind, uint64_t v[3]);
/* The same for an event of one communicator (a probe): ctx its context. */
int	 ft_pt_decide_ctx(struct ft_pt *, uint32_t kind, uint32_t ctx,
	    uint64_t v[3]);
/*
 * Before a blocking event (a probe, a wait for any or some, the clock):
 * returns 1 when this process works the outcome out (it runs the event,
 * then calls ft_pt_decide with it), 0 when an outcome to follow is
 * already here, waiting as needed.
 */
int	 ft_pt_decides(struct ft_pt *);

/*
 * A new view: the processes now known dead (process ids).  The engine
 * stops sending to them, then the protocol's view hook runs.  Returns 0,
 * or -1 with errno ENOLINK when every process of some rank is gone.
 */
int	 ft_pt_view(struct ft_pt *, const uint32_t *dead, uint32_t ndead);

/*
 * A process known dead is back as a new incarnation (the launcher's
 * REVIVE, under a protocol with FT_PROTO_RESTARTS): forget the
 * connections with the one before, unread bytes included (the new one
 * makes them again), and reach it at addr from now on.  Returns 0, or
 * -1 with EINVAL (proc out of range, ourselves, or a protocol that
 * does not restart).
 */
int	 ft_pt_revive(struct ft_pt *, uint32_t proc,
	    const struct ft_rank_addr *addr);

/*
 * Called with what the protocol has to tell the launcher (a divergence
 * found by the digest check): kind is an enum ft_note_kind.  Without
 * it, a warning is printed.
 */
void	 ft_pt_set_notify(struct ft_pt *, void (*)(void *, uint32_t,
	    const char *), void *);

#endif
