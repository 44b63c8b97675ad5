/* SPDX-License-Identifier: ISC */
/*
 * The fault-tolerance protocol seam (ARCHITECTURE.md section 4, ft-proto(7)).
 *
 * A protocol is a const table of hooks (struct ft_proto_ops) with private
 * state that the core allocates.  The engine (lib/pt2pt) calls the hooks at
 * fixed points of the data path; the protocol acts only through the table
 * of effects the engine gives it (struct ft_core_ops): it never touches a
 * socket, never blocks on I/O and never reads a clock of its own.  The same
 * effects are implemented by a simulated engine in tests/unit/test_seam.c,
 * so a protocol is tested without sockets, under any interleaving and with
 * processes killed at any step.
 *
 * Processes and ranks.  A job of size ranks laid out with ppr processes per
 * rank has size * ppr processes, process id rank * ppr + k (the job table's
 * layout).  The engine sends a message for rank d to process d * ppr unless
 * a protocol routes it; the protocol decides what the other processes are
 * (replicas, for "replicate").
 *
 * Hooks other than init may be NULL: the engine then does what it does
 * without a protocol, at no cost.  "none" sets no hook but init.
 *
 * Ordering the engine guarantees:
 *  - bytes and frames to one process leave in the order they were given
 *    (one connection per ordered pair of processes), and arrive in that
 *    order; what the kernel has when a process dies is still delivered;
 *  - hooks run on the thread that drives the engine, never concurrently;
 *    an effect calls back into hooks only where its contract says so
 *    (release and resolve may call match and deliver, send_msg may call
 *    sent, progress runs a whole pass and so may call any hook);
 *  - tick runs at the end of every progress pass that polled (a pass
 *    that fails, or is interrupted by a signal, returns before it).
 *
 * Buffers: a struct ft_msg and the bytes it points to belong to the caller
 * and are valid only during the hook, except that the send hook's m->buf
 * stays valid until m->req completes (it is the application's buffer).
 * A protocol that needs them later copies them.  Frame bodies are valid
 * only during the frame hook.
 */
#ifndef FT_PROTO_H
#define FT_PROTO_H

#include "../base/base.h"
#include "../wire/wire.h"

#define FT_PROTO_ABI	3

struct ft_req;		/* the engine's request: opaque to protocols */
struct ft_rec;		/* a record (lib/store, issue 16) */

/* Send modes (the engine's ft_pt_isend mode argument). */
enum ft_send_mode {
	FT_SEND_STANDARD = 0,
	FT_SEND_SYNC,		/* complete only once matched */
};

/* A message as the protocols see it. */
struct ft_msg {
	uint32_t	 ctx;		/* communicator context */
	uint32_t	 src;		/* world rank of the sender */
	uint32_t	 dst;		/* world rank of the receiver */
	int32_t		 tag;
	uint64_t	 seq;		/* per (src, dst) message number */
	const void	*buf;
	size_t		 len;
	/* ABI 2. */
	uint32_t	 csrc;		/* the sender's rank in the communicator */
	int		 mode;		/* enum ft_send_mode */
	uint32_t	 proc;		/* arrive, match: the process it came from */
	struct ft_req	*req;		/* send: the sender's request */
	/* ABI 3. */
	uint32_t	 flags;		/* FT_MSGF_* */
	/* Message logging (vlog, issue 13): the sender's logical clock.
	 * send: the protocol sets it, the engine carries it (0: none);
	 * arrive: the one the message carried, or 0. */
	uint64_t	 clock;
};

/* Bits of struct ft_msg's flags. */
#define FT_MSGF_RTS	0x1	/* arrive: an RTS, the payload is still at
				 * its sender (buf is NULL) */

struct ft_conf {
	uint32_t	 rank, size;	/* world */
	/* ABI 2. */
	uint32_t	 ppr;		/* processes per rank (1: one each) */
	uint32_t	 proc;		/* our process id */
	int		 check_divergence;
	/* ABI 3: message logging (vlog).  Strings and key are the
	 * caller's and outlive the protocol. */
	const char	*log_addr;	/* the event logger, or NULL */
	const uint8_t	*key;		/* the job key, FT_WIRE_KEYLEN */
	uint64_t	 job;		/* the job's id in the log */
	uint32_t	 incarnation;	/* 0, then 1, 2... for each restart */
	const char	*spill_dir;	/* private directory for spill files */
	uint64_t	 log_mem;	/* sender log bytes kept in memory */
	int		 strict;	/* wait for every determinant */
	int		 replay_off;	/* tests only: a restarted process
					 * ignores its log (a divergence) */
	/* Record and replay (issue 16, ft-record(5)).  The caller's,
	 * outliving the protocol. */
	const char	*record_dir;	/* ftrun --record: the recorder tap
					 * (tap.c) writes rank-R.ftr there */
	struct ft_rec	*record;	/* ftreplay run: the record the
					 * replay protocol follows */
	uint32_t	 universe;	/* MPI_UNIVERSE_SIZE, recorded */
};

/*
 * Nondeterministic events (ft_pt_nondet).  v[] carries the outcome;
 * the comment says what each word holds.
 */
enum ft_nd_kind {
	FT_ND_ANYSRC = 1,	/* a: source, b: seq, c: world rank */
	FT_ND_PROBE,		/* a: found, b: source, c: tag */
	FT_ND_FLAG,		/* a: a test's flag */
	FT_ND_INDEX,		/* a: the index a wait or test chose */
	FT_ND_COUNT,		/* a: how many requests a wait-some took */
	FT_ND_CLOCK,		/* a: the bits of a double */
	FT_ND_KIND_MAX = FT_ND_CLOCK,
};

enum ft_nd_op {
	/*
	 * Before a blocking event (a probe, a wait for any or some, the
	 * clock): may this process work the outcome out itself?  The hook
	 * sets local to 1 (compute it, then SETTLE it) or 0 (an outcome to
	 * follow is here: SETTLE with any value and take the one given).
	 */
	FT_ND_ASK = 1,
	/* v holds the local outcome; on return it holds the one to use. */
	FT_ND_SETTLE,
};

struct ft_nd {
	enum ft_nd_op	 op;
	uint32_t	 kind;		/* enum ft_nd_kind */
	uint64_t	 v[3];
	int		 local;		/* FT_ND_ASK: the answer */
	/* The protocol's: zero on the first call, kept across retries. */
	uint64_t	 site;
	int		 started;
	/* replay2: a probe's communicator (context id), so the replay
	 * feeds the message of that communicator (ft_pt_decide_ctx). */
	uint32_t	 ctx;
};

/* Results of the arrive hook. */
enum ft_arrive {
	FT_ARRIVE_MATCH = 0,	/* match it now, as without a protocol */
	FT_ARRIVE_HELD,		/* the protocol keeps it: release or drop */
	FT_ARRIVE_DUP,		/* a copy of one already taken: drop it */
};

/* recv_any's answer when the source must wait (core->resolve). */
#define FT_RECV_WAIT	(-2)

/* Flags of struct ft_proto_ops. */
#define FT_PROTO_RESENDS 0x1	/* a message cut off by its sender's death is
				 * sent again by another process: receives wait
				 * for it, data from a process that no longer
				 * serves a receive is skipped, and a dead peer
				 * is not an error of the request (nor a
				 * warning) */

#define FT_PROTO_RESTARTS 0x4	/* a dead process is started again, as the
				 * same process id (vlog): a view with every
				 * process of a rank dead is no error, and
				 * REVIVE gives the new incarnation's
				 * address (ft_pt_revive) */

#define FT_PROTO_FAILS	0x2	/* a dead process is the application's news
				 * (ULFM): requests to and from it complete
				 * in error (ECONNRESET) instead of waiting,
				 * and losing every process of a rank is no
				 * error of the view */

/* Bits of core->proc_state. */
#define FT_PROC_GONE	0x1	/* known dead (a view, or its connection) */
#define FT_PROC_UNSENT	0x2	/* bytes queued to it that the kernel lacks */
#define FT_PROC_READING	0x4	/* a connection from it is still being read */

/*
 * What a protocol may ask of the engine.  core is the engine's first
 * argument, given at init.
 */
struct ft_core_ops {
	/*
	 * Send an encoded frame (header included) to process proc.  The
	 * bytes are copied.  Returns 0, or -1 with errno (ECONNRESET: proc
	 * is gone).  Never calls a hook.
	 */
	int	(*send_frame)(void *core, uint32_t proc, const struct ft_wbuf *);
	/*
	 * Send message m to the n processes in procs[] (1 to
	 * FT_PROTO_MULTI_MAX, processes of rank m->dst), each by eager or
	 * rendezvous as the engine's flow control allows.  With m->req
	 * non-NULL, that request completes when the message is sent as an
	 * unsent message would (eager: at once; rendezvous: when the first
	 * process matched it); m->buf must stay valid until then.  With
	 * m->req NULL, the engine copies what it keeps.  When cookie is
	 * not NULL, the sent hook gets it once every process has the whole
	 * message in its kernel or is gone.  Returns 0, or -1 with errno
	 * (ENOMEM; EINVAL when n is 0 or above FT_PROTO_MULTI_MAX, or a
	 * process is not of rank m->dst).  May call sent before it returns.
	 */
	int	(*send_msg)(void *core, const uint32_t *procs, uint32_t n,
		    const struct ft_msg *m, void *cookie);
	/* Complete a send request the send hook took (err 0: success). */
	void	(*complete)(void *core, struct ft_req *, int err);
	uint64_t (*now_ns)(void *core);
	/* Tell the launcher (kind: enum ft_note_kind). */
	void	(*notify)(void *core, uint32_t kind, const char *text);
	/*
	 * ABI 2.  A message the arrive hook held: match it now (it is
	 * next in its sender's order), or drop it as a duplicate (the
	 * engine answers a duplicate RTS so its sender is not left
	 * waiting).  Either consumes the handle.  release may call match
	 * and deliver; it returns 0, or -1 with errno.
	 */
	int	(*release)(void *core, void *handle);
	void	(*drop)(void *core, void *handle);
	/*
	 * An ANY_SOURCE receive that recv_any made wait learns its source
	 * (a rank of its communicator, or -1 for any).  It then matches
	 * in posting order.  May call match and deliver.  0, or -1.
	 */
	int	(*resolve)(void *core, struct ft_req *, int src);
	/* FT_PROC_* bits of process proc. */
	int	(*proc_state)(void *core, uint32_t proc);
	/*
	 * One progress pass of the engine, waiting up to timeout_ms; it
	 * may call any hook.  Returns 0, or -1 with errno: EDEADLK when
	 * called from inside a pass (from a hook the pass runs: arrive,
	 * match, deliver, frame, view, tick, sent; the application-side
	 * hooks send, recv_any, recv_cancel and nondet may wait here).
	 */
	int	(*progress)(void *core, int timeout_ms);
	/*
	 * Complete in error err every pending request on the contexts
	 * ctx to ctx + n - 1 (posted receives, sends waiting for their
	 * receive), and every later one on them at once: a revoked
	 * communicator (ULFM).  Never calls a hook.
	 */
	void	(*fail_ctx)(void *core, uint32_t ctx, uint32_t n, int err);
	/*
	 * ABI 3.  Poll fd for events along with the engine's sockets
	 * (fd -1: nothing), and wake up no later than deadline_ns
	 * (ft_now_ns; 0: none).  The io hook runs when it is ready or the
	 * deadline passed.  One fd at a time: a new call replaces the
	 * last.  This is how a protocol's client of a service (vlog's
	 * event logger, lib/store) is driven by the engine without the
	 * protocol touching a socket itself.  Never calls a hook.
	 */
	void	(*watch)(void *core, int fd, short events,
		    uint64_t deadline_ns);
	/*
	 * Deliver message m (ctx, src: a world rank, csrc, tag, seq,
	 * buf, len) as if rank m->src had sent it and it arrived whole
	 * now: it is matched as an eager message from m->src, after those
	 * injected before it and before any other from m->src not
	 * injected.  Nothing goes to m->src and it owes no credit; the
	 * bytes are copied.  Used by coord (a message a checkpoint image
	 * recorded in flight: m->seq has FT_SEQ_INJECTED set, and comes
	 * back so in deliver) and by the replay protocol of ftreplay run
	 * (the record's messages, no sender running).  Never calls a hook
	 * but match and deliver.  0, or -1 with errno (EINVAL, ENOMEM).
	 */
	int	(*inject)(void *core, const struct ft_msg *m);
	/*
	 * vlog images (issue 15) append.  The next message this process
	 * sends to process dst gets number seq on that channel (a process
	 * restarted from an image goes on from where the image stood).
	 * Only before the first send to dst; never calls a hook.
	 */
	void	(*set_seq)(void *core, uint32_t dst, uint64_t seq);
};

/*
 * A kind for core->notify beyond the wire's FT_NOTE_*: this process
 * cannot go on (vlog: its log cannot be fetched); the MPI layer ends
 * the job with the text as the reason.  Never sent as a NOTE frame.
 */
#define FT_NOTE_FATAL	0x100

/* coord: the bit of an injected message's seq (core->inject). */
#define FT_SEQ_INJECTED	(UINT64_C(1) << 63)

#define FT_PROTO_MULTI_MAX	16

struct ft_proto;

/*
 * The operations of the ext hook (ULFM, ft-ulfm(3)).  Process ids are
 * those of the job (one process a rank).  Bitmaps have one bit per
 * member, bit i of byte i / 8 at 1 << (i % 8).
 */
enum ft_ext_op {
	/* dead, ndead: every process known dead, in the order learnt;
	 * valid until the next progress pass. */
	FT_EXT_FAILED = 1,
	/* Revoke contexts ctx to ctx + nctx - 1, whose processes are
	 * members[n]: every one is told, reliably. */
	FT_EXT_REVOKE,
	/* result: 1 when context ctx is revoked. */
	FT_EXT_REVOKED,
	/*
	 * Join agreement seq on context ctx among members[n], we being
	 * member me, with flag, ctxv and the bitmaps failed and acked (n
	 * bits each, copied): handle is set.  Every member joins the
	 * agreements of a context in the same order.
	 */
	FT_EXT_AGREE,
	/* handle: result 1 once decided, with flag, ctxv, err (1: some
	 * failed member is not acknowledged by all) and failed (n bits,
	 * written to the caller's buffer). */
	FT_EXT_AGREE_TEST,
	/* handle: the caller is done with it (the instance goes on as
	 * long as other members may need it). */
	FT_EXT_AGREE_FREE,
	/* result: the number of agreement instances kept (joined and not
	 * forgotten), for tests of their lifetime. */
	FT_EXT_AGREE_KEPT,
	/*
	 * Coordinated checkpoint (coord), appended.  CUT: this process
	 * reached the cut of epoch (ft_checkpoint): markers go out on
	 * every channel.  MARKERS: result 1 once every other rank's marker
	 * of that epoch is here.  READY: result 1 once the channel state
	 * is whole (every message in flight across the cut was delivered
	 * and recorded); err 1 when the cut is not consistent (a message
	 * sent after its sender's cut was received before ours), and the
	 * epoch must not be saved.  ABANDON: forget the cut.
	 */
	FT_EXT_CKPT_CUT,
	FT_EXT_CKPT_MARKERS,
	FT_EXT_CKPT_READY,
	FT_EXT_CKPT_ABANDON,
	/* FT-MPI's REBUILD (protocol "ftmpi", ft-ftmpi(3)) appends: */
	/* result: 1 when process me is not known dead (a replacement of
	 * it counts as alive once the revive hook ran). */
	FT_EXT_ALIVE,
	/* Send FTMPI_JOIN { ctx, ctxv, seq, dead } to the n processes
	 * members[] (replacements): ctx and ctxv are the context pairs of
	 * the rebuilt world and of its duplicate, seq the floor of their
	 * own context ids, dead[ndead] the processes of the world still
	 * failed, jmembers[njmembers] the sender's ledger of the world
	 * (rebuild: FT_JOIN_MEMBER_WORDS words a rank, ft-wire(7)).  A
	 * member that is dead again is skipped. */
	FT_EXT_JOIN_SEND,
	/* result: 1 once a JOIN came (the first one is kept), with ctx,
	 * ctxv, seq, dead[ndead] and jmembers[njmembers] as sent (valid
	 * until fini). */
	FT_EXT_JOIN_TEST,
	/*
	 * vlog images (issue 15) append.  VLOG_PREPARE: a checkpoint is
	 * due: record what is pending and push the determinants; result
	 * 1 once the state may be saved (every determinant durable, no
	 * replay under way, no message to ourselves in flight), 0 not
	 * yet (call again after a progress pass), err 1 not now at all
	 * (replaying: skip this checkpoint).  VLOG_DURABLE: the image of
	 * epoch (saved last by save) is durable: peers are told what
	 * they may drop (GC).  VLOG_STATS: the sender log's bytes now
	 * and at its peak, and the payloads GC dropped (vlog_*).
	 */
	FT_EXT_VLOG_PREPARE,
	FT_EXT_VLOG_DURABLE,
	FT_EXT_VLOG_STATS,
	/*
	 * vlog's sender-log file (vlogbw, ft-ckpt(5) "VLG2"), appended:
	 * payloads of vlog_logmin bytes and more (0: the module's
	 * default) go to the file vlog_logfd (the module takes a dup;
	 * vlog_logfresh: empty it first, else its bytes stay, for an
	 * image to be restored from them), and an image names their
	 * extents instead of holding them.  Before the image's rename,
	 * the caller makes the file durable (fdatasync).
	 */
	FT_EXT_VLOG_LOGFILE,
};

struct ft_ext {
	enum ft_ext_op	 op;
	uint32_t	 ctx, nctx, seq;
	const uint32_t	*members;
	uint32_t	 n, me;
	uint32_t	 flag, ctxv;
	uint8_t		*failed;
	const uint8_t	*acked;
	int		 err;
	int		 result;
	void		*handle;
	const uint32_t	*dead;
	uint32_t	 ndead;
	/* Coordinated checkpoint (coord), appended: FT_EXT_CKPT_*. */
	uint64_t	 epoch;
	/* FT-MPI's REBUILD (rebuild), appended: FTMPI_JOIN's list of the
	 * world's processes, FT_JOIN_MEMBER_WORDS words each. */
	const uint32_t	*jmembers;
	uint32_t	 njmembers;
	/* vlog images (issue 15), appended: FT_EXT_VLOG_STATS (and the
	 * payload bytes sent to and received from other ranks). */
	uint64_t	 vlog_bytes, vlog_peak, vlog_dropped;
	uint64_t	 vlog_sent, vlog_recv;
	/* ULFM on intercommunicators, appended: FT_EXT_AGREE among the
	 * members of both groups (inter set); flag is the first group's
	 * contribution and result, flag2 the second's (bitwise AND). */
	uint32_t	 flag2;
	int		 inter;
	/* vlog's sender-log file (vlogbw), appended: FT_EXT_VLOG_LOGFILE;
	 * VLOG_STATS also gives the bytes written to it. */
	int		 vlog_logfd, vlog_logfresh;
	uint64_t	 vlog_logmin;
	uint64_t	 vlog_logbytes;
	/* Tests: the extent of the newest payload the last image named
	 * in the sender-log file (length 0: none). */
	uint64_t	 vlog_cutoff, vlog_cutlen;
	/* vlog's receiver (issue 15, vlogsrv), appended:
	 * FT_EXT_VLOG_STATS, the bytes its per-message arrays hold. */
	uint64_t	 vlog_rarr;
	/* A host cut off, not killed (partition), appended:
	 * FT_EXT_VLOG_STATS, the messages dropped as stale (from an
	 * incarnation older than one heard from since, or revived). */
	uint64_t	 vlog_stale;
};

struct ft_proto_ops {
	unsigned int	 abi;		/* FT_PROTO_ABI at build time */
	const char	*name;
	size_t		 privsize;	/* private state, allocated by core */
	/* ABI 1.  Hooks other than init may be NULL: core default. */
	int	(*init)(struct ft_proto *, const struct ft_conf *);
	void	(*fini)(struct ft_proto *);
	/*
	 * A message is about to leave (m->seq is its number, m->req the
	 * sender's request).  Returns 0 to let the engine send it as
	 * usual, 1 when the protocol took it, or -1 with errno.  Having
	 * taken it, the protocol completes m->req exactly once: by giving
	 * it to send_msg (which completes it), or through complete.
	 */
	int	(*send)(struct ft_proto *, struct ft_msg *);
	/*
	 * A matched receive's payload is in its buffer.  The engine
	 * ignores the result; m->proc is not meaningful here.
	 */
	int	(*deliver)(struct ft_proto *, const struct ft_msg *);
	/* Unused since ABI 2 (see view); kept so the table keeps its
	 * layout. */
	int	(*peer_down)(struct ft_proto *, uint32_t, uint64_t epoch);
	/* What the protocol adds to a checkpoint image, and rebuilds. */
	int	(*save)(struct ft_proto *, struct ft_wbuf *);
	int	(*restore)(struct ft_proto *, struct ft_rbuf *);
	/* ABI 2 appends here; never reorder or remove. */
	unsigned int	 flags;		/* FT_PROTO_* */
	/*
	 * A whole message came from process m->proc (an eager payload
	 * read in full, or an RTS); handle is the engine's.  Returns an
	 * enum ft_arrive, or -1 with errno: the connection is closed, and
	 * the protocol has released or dropped the handle.  With HELD the
	 * handle is the protocol's until it releases or drops it (fini
	 * drops what it still holds).  With this hook set, the engine
	 * matches a message only once it is whole.
	 */
	int	(*arrive)(struct ft_proto *, const struct ft_msg *, void *handle);
	/*
	 * An ANY_SOURCE receive is posted (req is the handle for
	 * resolve).  *rtag is a word the engine keeps with the request
	 * and gives back to match.  Returns -1 (FT_PT_ANY: match freely),
	 * a source to match, or FT_RECV_WAIT: the engine holds the
	 * receive, and messages it could match, until core->resolve.
	 */
	int	(*recv_any)(struct ft_proto *, struct ft_req *, uint64_t *rtag);
	/*
	 * A receive for which recv_any set a non-zero *rtag is cancelled
	 * (MPI_Cancel): forget req.  A protocol that keeps no word for a
	 * receive (*rtag left 0) is not told.
	 */
	void	(*recv_cancel)(struct ft_proto *, struct ft_req *);
	/*
	 * A receive matched message m (its source is now fixed; its
	 * payload may still be on the way).  rtag is recv_any's word, 0
	 * for a receive with a source.
	 */
	void	(*match)(struct ft_proto *, const struct ft_msg *,
		    uint64_t rtag);
	/*
	 * A nondeterministic event (see struct ft_nd).  Returns 0 when
	 * settled, -1 with EAGAIN to be called again after a progress
	 * pass (an outcome to follow is not here yet), or -1 with errno
	 * (EPROTO: the event is not the one the protocol expected, a
	 * divergence).
	 */
	int	(*nondet)(struct ft_proto *, struct ft_nd *);
	/*
	 * A frame of a type the engine does not own, from process proc,
	 * on an authenticated connection; body is h->len - FT_WIRE_HDRLEN
	 * bytes.  0, or -1 with errno: the connection is closed.
	 */
	int	(*frame)(struct ft_proto *, uint32_t proc, const struct ft_hdr *,
		    const uint8_t *body);
	/*
	 * A new membership view: dead[] lists every process known dead so
	 * far (the launcher's list, so a process comes again in later
	 * views: the hook must be idempotent).  The engine has stopped
	 * sending to them.  0, or -1 with errno.
	 */
	int	(*view)(struct ft_proto *, const uint32_t *dead, uint32_t ndead);
	/* End of a progress pass: flush batches, advance a state machine. */
	void	(*tick)(struct ft_proto *);
	/*
	 * Work that must finish before this process may leave: 1, else 0.
	 * Asked in a loop by a process about to leave, so a protocol that
	 * batches may take it as the signal to flush.
	 */
	int	(*busy)(struct ft_proto *);
	/* The cookie given to send_msg: the message is out (see send_msg). */
	void	(*sent)(struct ft_proto *, void *cookie);
	/* Drop what no restart can need: peer's messages below clock. */
	int	(*gc)(struct ft_proto *, uint32_t peer, uint64_t clock);
	/*
	 * An operation the MPI layer asks of the protocol beyond the
	 * data path (struct ft_ext: ULFM's failure list, revoke and
	 * agreement).  0, or -1 with errno (ENOTSUP: not this
	 * protocol's).
	 */
	int	(*ext)(struct ft_proto *, struct ft_ext *);
	/* ABI 3 appends here. */
	/*
	 * The fd given to core->watch is ready (revents; 0 when its
	 * deadline passed).  Runs in a progress pass, before tick.
	 */
	void	(*io)(struct ft_proto *, short revents);
	/*
	 * FT-MPI's REBUILD (issue 17) appends.  Process proc, which a view
	 * said dead, runs again as a new incarnation (the launcher's
	 * REVIVE, ft_pt_revive): it is alive from now on, until a later
	 * view says otherwise.  May be NULL.
	 */
	void	(*revive)(struct ft_proto *, uint32_t proc);
};

struct ft_proto {
	const struct ft_proto_ops	*ops;
	void				*priv;
	struct ft_conf			 conf;
	uint64_t			 sent, delivered;
	/* ABI 2. */
	const struct ft_core_ops	*core;
	void				*cookie;	/* core's first argument */
	/* Issue 16: the recorder tap (conf.record_dir).  ops then points
	 * at tapops, the protocol's table with the tap's hooks in front;
	 * inner is the protocol's own. */
	struct ft__tap			*tap;
	const struct ft_proto_ops	*inner;
	struct ft_proto_ops		 tapops;
};

/*
 * Find a protocol by name.  Returns the ops table, or NULL with ENOENT;
 * ft_proto_names gives "none, ..." for the message an unknown name
 * deserves.
 */
const struct ft_proto_ops *ft_proto_find(const char *name);
const char *ft_proto_names(void);

/*
 * Set up p with ops, acting through core (whose first argument is arg):
 * allocate privsize bytes and call init.  Returns 0, or -1 with errno
 * (ENOMEM, or ENOTSUP from init or for another ABI).  ft_proto_release
 * calls fini and frees the private state.
 */
int	 ft_proto_init(struct ft_proto *, const struct ft_proto_ops *,
	    const struct ft_conf *, const struct ft_core_ops *core, void *arg);
void	 ft_proto_release(struct ft_proto *);

/*
 * Tell the launcher through core->notify, formatted.  Of the
 * divergences, only the first is told (*diverged counts them): what
 * follows is its echo.
 */
void	 ft__proto_note(struct ft_proto *, int *diverged, uint32_t kind,
	    const char *fmt, ...) FT_PRINTF(4, 5);

/* Run a hook, or the core default when the protocol has none. */
int	 ft_proto_send(struct ft_proto *, struct ft_msg *);
int	 ft_proto_deliver(struct ft_proto *, const struct ft_msg *);

extern const struct ft_proto_ops ft__proto_none;
extern const struct ft_proto_ops ft__proto_replicate;
extern const struct ft_proto_ops ft__proto_ulfm;
extern const struct ft_proto_ops ft__proto_ftmpi;
extern const struct ft_proto_ops ft__proto_vlog;
extern const struct ft_proto_ops ft__proto_coord;
/* Issue 16: not in the registry (ftrun --ft cannot name it). */
extern const struct ft_proto_ops ft__proto_replay;

/*
 * The recorder (tap.c): put the tap in front of p's hooks and open the
 * record.  0, or -1 with errno (from open).  ft__tap_fini writes the
 * end record, closes, and gives p its own table back.
 */
int	 ft__tap_init(struct ft_proto *);
void	 ft__tap_fini(struct ft_proto *);

/*
 * Replication's tables (replicate.c), exported for their unit tests.  A
 * job of size ranks run with R replicas has size * R processes, process
 * id rank * R + replica.  A rank's master is its lowest-numbered live
 * replica: every process computes the same one from the same view.
 * gone[] is indexed by process id.  Returns the replica index, or
 * UINT32_MAX when every replica of rank is gone.
 */
uint32_t ft_rep_master(const uint8_t *gone, uint32_t rank, uint32_t nrep);

/* A copy of a message a replica produced, kept until committed. */
struct ft_rep_entry {
	struct ft_rep_entry	*next;
	uint64_t		 seq;
	uint32_t		 ctx, src;	/* src: rank in the communicator */
	int32_t			 tag;
	int			 mode;
	uint32_t		 crc;
	size_t			 len;
	uint8_t			*data;
};

/* A digest committed before we made its message (we are behind). */
struct ft_rep_digest {
	uint64_t	 seq;
	uint32_t	 crc;
};

/* The backup table for one destination rank, in message order. */
struct ft_rep_backup {
	struct ft_rep_entry	*head, *tail;
	uint64_t		 committed;	/* messages below are committed */
	size_t			 count, bytes;
	/* Digests of messages we have not made yet, by number: as long as
	 * we lag behind the master, like the copies as long as we lead. */
	struct ft_rep_digest	*ahead;
	size_t			 nahead, first, capahead;
};

/*
 * Keep a copy of m (m->csrc is stored as the entry's src) unless it is
 * already committed.  Returns 1 when kept, 0 when not needed, -1 with
 * ENOMEM.
 */
int	 ft_rep_backup_add(struct ft_rep_backup *, const struct ft_msg *,
	    int mode, uint32_t crc);
/*
 * The master committed every message up to seq; crc is message seq's
 * digest (0: unchecked).  Drops the copies.  Returns 1 when the copy of
 * seq has another digest (divergence, *bad = seq), else 0.
 */
int	 ft_rep_backup_commit(struct ft_rep_backup *, uint64_t seq,
	    uint32_t crc, uint64_t *bad);
void	 ft_rep_backup_free(struct ft_rep_backup *);
/*
 * We made message seq (digest crc) after its commit arrived: returns 1
 * when the master's digest of it differs.  Forgets the digests up to
 * seq.
 */
int	 ft_rep_backup_late(struct ft_rep_backup *, uint64_t seq,
	    uint32_t crc);

/*
 * The master's decisions in the order it made them.  Every decision is
 * counted; the newest cap are kept, for a new master to collect from
 * the replicas after a failover.
 */
struct ft_nd_log {
	struct ft_decision	*ring;
	uint32_t		 cap;
	uint64_t		 count;		/* indices below are known */
};

int	 ft_nd_log_init(struct ft_nd_log *, uint32_t cap);
void	 ft_nd_log_free(struct ft_nd_log *);
/* Append d: 0, or 1 for an index already held, -1 EPROTO for a gap. */
int	 ft_nd_log_add(struct ft_nd_log *, const struct ft_decision *);
/* The decision of that index, or NULL when unknown or no longer kept. */
const struct ft_decision *ft_nd_log_get(const struct ft_nd_log *,
	    uint64_t index);

/*
 * vlog images (issue 15): 0 when p[len] is a whole "VLG1" protocol
 * state of rank among size ranks (ft-ckpt(5)), else -1 (EPROTO).
 * For the fuzzer and the tests; the restore hook checks the same.
 */
int	ft__vlog_state_check(const uint8_t *, size_t, uint32_t rank,
	    uint32_t size);

#endif
