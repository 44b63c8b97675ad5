/* SPDX-License-Identifier: ISC */
/*
 * Every byte format that crosses a socket: the 16-byte frame header and
 * one encoder/decoder pair per message type.  Pure functions over
 * buffers, big-endian, every length checked before use.  ft-wire(7)
 * documents the formats; tests/fuzz/ holds one target per decoder.
 *
 * Encoders append one whole frame (header included) to a ft_wbuf and
 * return 0, or -1 with ENOMEM or EMSGSIZE.  Decoders take the frame
 * body (the bytes after the header), fill the caller's struct and
 * return 0, or -1 with errno EPROTO when the body is malformed: short,
 * too long, a bad count, a string with a NUL byte or longer than its
 * field.  Decoders never allocate except ft_msg_table_decode, whose
 * result the caller frees with ft_msg_table_free.
 */
#ifndef FT_WIRE_H
#define FT_WIRE_H

#include "../base/base.h"

#define FT_WIRE_MAGIC		0x4654	/* "FT" */
#define FT_WIRE_VERSION		1	/* newest version this build speaks */
#define FT_WIRE_VERSION_MIN	1	/* oldest version this build speaks */
#define FT_WIRE_HDRLEN		16
#define FT_FRAME_MAX		(16u << 20)	/* whole frame, header included */
#define FT_WIRE_CHUNK		(8u << 20)	/* rendezvous data per frame */
#define FT_WIRE_NONCE		32
#define FT_WIRE_MAC		32
#define FT_WIRE_KEYLEN		32
#define FT_WIRE_MAX_RANKS	(1u << 20)
#define FT_WIRE_NODE_MAX	64	/* host names, NUL included */
#define FT_WIRE_ADDR_MAX	128	/* "unix:/path" or "tcp:host:port" */
#define FT_WIRE_TEXT_MAX	1024

enum ft_msg_type {
	/* Handshake: every connection starts with these three. */
	FT_MSG_HELLO = 1,
	FT_MSG_CHALLENGE = 2,
	FT_MSG_AUTH = 3,
	/* Rank <-> launcher. */
	FT_MSG_REGISTER = 16,
	FT_MSG_TABLE = 17,
	FT_MSG_ABORT = 18,
	FT_MSG_FINALIZE = 19,
	FT_MSG_FINALIZE_OK = 20,
	FT_MSG_VIEW = 21,
	FT_MSG_NOTE = 22,
	/* Rank <-> launcher: dynamic processes (spawn, ports, names). */
	FT_MSG_SPAWN = 23,
	FT_MSG_REPLY = 24,
	FT_MSG_PROCS = 25,
	FT_MSG_PORT = 26,
	/* Rank <-> rank. */
	FT_MSG_EAGER = 32,
	FT_MSG_RTS = 33,
	FT_MSG_CTS = 34,
	FT_MSG_RDATA = 35,
	FT_MSG_CREDIT = 36,
	FT_MSG_COMMIT = 37,
	FT_MSG_DECIDE = 38,
	FT_MSG_NDSYNC = 39,
	FT_MSG_ACK = 40,
	/* Detector <-> detector (ftgossip). */
	FT_MSG_GOSSIP = 48,
	FT_MSG_PING = 49,
	FT_MSG_PONG = 50,
	FT_MSG_MEMBER = 51,
	/* Peer daemons, the supernode and submitters (ftboot). */
	FT_MSG_BOOT_REGISTER = 64,
	FT_MSG_BOOT_PEERS = 65,
	FT_MSG_BOOT_RESERVE = 66,
	FT_MSG_BOOT_RESERVED = 67,
	FT_MSG_BOOT_CANCEL = 68,
	FT_MSG_BOOT_DONE = 69,
	FT_MSG_BOOT_ALLOC = 70,
	FT_MSG_BOOT_GRANTS = 71,
	FT_MSG_BOOT_STATUS = 72,
	FT_MSG_BOOT_STATE = 73,
	/* Submitter (ftrun) <-> host agent: remote execution. */
	FT_MSG_JOB_START = 80,
	FT_MSG_JOB_NEED = 81,
	FT_MSG_JOB_FILE = 82,
	FT_MSG_JOB_STARTED = 83,
	FT_MSG_JOB_OUTPUT = 84,
	FT_MSG_JOB_STATUS = 85,
	FT_MSG_JOB_BEATS = 86,
	FT_MSG_JOB_SIGNAL = 87,
	FT_MSG_JOB_KEEPALIVE = 88,
	FT_MSG_JOB_NOTE = 89,
	FT_MSG_JOB_DONE = 90,
	FT_MSG_JOB_DETECT = 91,
	FT_MSG_JOB_MEMBERS = 92,
	FT_MSG_JOB_INPUT = 93,
	/* ULFM (protocol "ulfm", lib/proto/ulfm.c): rank to rank. */
	FT_MSG_ULFM_REVOKE = 96,
	FT_MSG_ULFM_AGREE = 97,
	/* FT-MPI's REBUILD (protocol "ftmpi"): a survivor to a replacement. */
	FT_MSG_FTMPI_JOIN = 98,
	/* Ranks (and tools) <-> the event logger (ftlog serve). */
	FT_MSG_LOG_APPEND = 112,
	FT_MSG_LOG_ACK = 113,
	FT_MSG_LOG_FETCH = 114,
	FT_MSG_LOG_RECORDS = 115,
	FT_MSG_LOG_ERROR = 116,
	FT_MSG_LOG_QUERY = 117,
	/* Message logging (protocol "vlog", lib/proto/vlog.c). */
	FT_MSG_VLOG_RESTART = 144,	/* rank to rank */
	FT_MSG_VLOG_RESUME = 145,	/* rank to rank */
	FT_MSG_VLOG_DIGEST = 146,	/* rank to rank */
	FT_MSG_REVIVE = 147,		/* launcher to rank */
	FT_MSG_VLOG_GC = 148,		/* rank to rank (vlog images) */
	/* Ranks (and tools) <-> the checkpoint server (ftckpt serve). */
	FT_MSG_CKPT_REQ = 128,
	FT_MSG_CKPT_PUT = 129,
	FT_MSG_CKPT_DATA = 130,
	FT_MSG_CKPT_ENTRIES = 131,
	FT_MSG_CKPT_RESULT = 132,
	/* Coordinated checkpoint (protocol "coord", lib/proto/coord.c). */
	FT_MSG_COORD_MARKER = 160,	/* rank to rank */
	FT_MSG_COORD_COMPLETE = 161,	/* launcher to rank */
	FT_MSG_COORD_DUE = 162,		/* launcher to rank */
	FT_MSG_COORD_PUSH = 163,	/* launcher to rank (coordsrv) */
	/* ULFM on intercommunicators: AGREE with each group's flag. */
	FT_MSG_ULFM_IAGREE = 168,	/* rank to rank */
	/* Restarts on another host (ftrun -> host agent; multihost). */
	FT_MSG_JOB_RESPAWN = 176,
	FT_MSG_JOB_RELEASE = 177,
};

/* Header flags.  Unknown bits must be zero. */
#define FT_FLAG_SYNC	0x1u	/* RTS of a synchronous-mode send */
#define FT_FLAG_CLOCK	0x2u	/* EAGER: the sender's clock follows the
				 * fixed part (vlog, issue 13) */
#define FT_FLAG_KNOWN	(FT_FLAG_SYNC | FT_FLAG_CLOCK)

struct ft_hdr {
	uint8_t		version;
	uint8_t		type;
	uint32_t	len;		/* whole frame, header included */
	uint32_t	sender;		/* world rank, or FT_WIRE_LAUNCHER */
	uint32_t	flags;
};

#define FT_WIRE_LAUNCHER	0xffffffffu

/*
 * Decode and check a header: magic, a version this build speaks, a
 * length between FT_WIRE_HDRLEN and FT_FRAME_MAX, no unknown flag.
 * p must hold at least FT_WIRE_HDRLEN bytes.  Returns 0, or -1 with
 * EPROTO (bad magic, version or flags) or EMSGSIZE (bad length).
 */
int	 ft_hdr_decode(const uint8_t *p, struct ft_hdr *);
void	 ft_hdr_encode(uint8_t *p, const struct ft_hdr *);
const char *ft_msg_name(unsigned int type);

/* Roles a connecting peer announces in HELLO. */
#define FT_ROLE_RANK		1
#define FT_ROLE_LAUNCHER	2
#define FT_ROLE_DETECTOR	3
#define FT_ROLE_DAEMON		4	/* ftboot to ftboot or the supernode */
#define FT_ROLE_SUBMITTER	5	/* ftrun (or ftboot reserve) to ftboot */
#define FT_ROLE_LOGGER		6	/* a client of the event logger */
#define FT_ROLE_CKPT		7	/* a client of the checkpoint server */

struct ft_msg_hello {
	uint8_t		minver, maxver;
	uint8_t		role;
	uint32_t	id;
	uint8_t		nonce[FT_WIRE_NONCE];
};

struct ft_msg_challenge {
	uint8_t		version;	/* chosen by the acceptor */
	uint32_t	id;		/* the acceptor's id */
	uint8_t		nonce[FT_WIRE_NONCE];
	uint8_t		mac[FT_WIRE_MAC];
};

struct ft_msg_auth {
	uint8_t		mac[FT_WIRE_MAC];
};

struct ft_rank_addr {
	uint32_t	node;		/* index of the host in the job */
	uint32_t	pid;
	char		unix_addr[FT_WIRE_ADDR_MAX];
	char		tcp_addr[FT_WIRE_ADDR_MAX];
};

struct ft_msg_register {
	uint32_t		rank;
	struct ft_rank_addr	addr;
};

struct ft_msg_table {
	uint32_t		 n;
	struct ft_rank_addr	*ranks;	/* n entries, heap */
};

struct ft_msg_abort {
	int32_t		code;
	char		reason[FT_WIRE_TEXT_MAX];
};

/*
 * The fixed part of EAGER; the payload follows it to the frame's end.
 * With FT_FLAG_CLOCK in the header, FT_EAGER_CLOCK bytes more (the
 * sender's logical clock, u64) come between the two (vlog, issue 13).
 */
#define FT_EAGER_FIXED	20
#define FT_EAGER_CLOCK	8
struct ft_msg_eager {
	uint32_t	ctx;
	uint32_t	src;		/* rank in the communicator */
	int32_t		tag;
	uint64_t	seq;		/* per (sender, receiver) message number */
	uint64_t	clock;		/* the sender's clock, or 0: none */
};

struct ft_msg_rts {
	uint32_t	ctx;
	uint32_t	src;
	int32_t		tag;
	uint64_t	seq;
	uint64_t	size;
	uint64_t	sreq;		/* sender's handle, echoed in CTS */
	uint64_t	clock;		/* the sender's clock, or 0: none (a
					 * trailing u64 when not 0; vlog) */
};

struct ft_msg_cts {
	uint64_t	sreq;
	uint64_t	rreq;		/* receiver's handle, echoed in RDATA */
};

/*
 * A detector's heartbeat table: n counters, one per member, and the
 * membership epoch the sender is in.  n is at most FT_WIRE_GOSSIP_MAX.
 */
#define FT_WIRE_GOSSIP_MAX	65536u
struct ft_msg_gossip {
	uint64_t	 epoch;
	uint32_t	 n;
	uint64_t	*hb;		/* n counters: the caller's array */
};

/* The direct probe of a suspect, and its answer, which echoes nonce. */
struct ft_msg_ping {
	uint64_t	nonce;
	uint64_t	epoch;
};

/* The membership protocol's messages (detect.h tells the protocol). */
enum ft_mb_kind {
	FT_MB_NODE_FAILURE = 1,
	FT_MB_NODE_FAILURE_ACK,
	FT_MB_ROOT_FAILURE,
	FT_MB_FAILED_NODE,
	FT_MB_ROOT_DEAD,
	FT_MB_FAILURE_ACK,
	FT_MB_NEW_NODE,
	FT_MB_NODE_ALIVE,
	FT_MB_JOIN_DET_ACK,
	FT_MB_KIND_MAX = FT_MB_JOIN_DET_ACK,
};

/* In a failure list, a "by" of FT_MB_JOINED marks an id that joined. */
#define FT_MB_JOINED	UINT32_MAX
#define FT_MB_NONE	UINT32_MAX

/*
 * One membership message (FT_MSG_MEMBER).  live: FAILED_NODE and ROOT_DEAD, the view's
 * members; NEW_NODE and NODE_ALIVE, the joiner.  fail/by/ep: the
 * failures the sender knows of, with who detected each and the epoch
 * the detector held then; and the joins (by FT_MB_JOINED), with the
 * epoch of the view that took the joiner in.  A failure older than the
 * member's last join is stale and ignored, so a rejoined id is not
 * struck out again by a report sent before it came back.
 */
struct ft_msg_member {
	uint8_t		 kind;		/* enum ft_mb_kind */
	uint64_t	 epoch;
	uint64_t	 seen;		/* FAILURE_ACK: highest epoch below */
	uint32_t	 root;
	uint32_t	 nlive;
	uint32_t	*live;
	uint32_t	 nfail;
	uint32_t	*fail;
	uint32_t	*by;
	uint64_t	*ep;
};

int	 ft_msg_member_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_member *);
/*
 * Decode into the caller's arrays m->live (cap ids) and m->fail, m->by,
 * m->ep (cap entries each): EPROTO if a count is above cap.
 */
int	 ft_msg_member_decode(const uint8_t *, size_t, struct ft_msg_member *,
	    uint32_t cap);

/* Eager bytes the receiver has matched, which the sender may reuse. */
struct ft_msg_credit {
	uint64_t	bytes;		/* never 0 */
};

/*
 * Frame bytes a receiver has read in full on the sender's TCP
 * connection (ACK), counted from the end of the handshake and leaving
 * out ACK frames: what the sender may consider delivered.
 */
struct ft_msg_ack {
	uint64_t	bytes;		/* never 0 */
};

/*
 * A new view of a replicated job's processes (launcher to process): the
 * processes known dead, by process id (rank * R + replica).  ndead is
 * at most FT_WIRE_MAX_RANKS.
 */
struct ft_msg_view {
	uint64_t	 epoch;
	uint32_t	 ndead;
	uint32_t	*dead;
};

int	 ft_msg_view_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_view *);
/* Decode into the caller's m->dead (cap ids): EPROTO above cap. */
int	 ft_msg_view_decode(const uint8_t *, size_t, struct ft_msg_view *,
	    uint32_t cap);

/* What a process tells its launcher besides REGISTER/ABORT/FINALIZE. */
enum ft_note_kind {
	FT_NOTE_WARNING = 1,	/* a libft diagnostic, printed once */
	FT_NOTE_DIVERGE,	/* replicas of a rank sent different bytes */
	FT_NOTE_REPLAYED,	/* a restarted process replayed its log
				 * (--ft vlog): it is back where it died */
	/* --ft coord: an image is committed; text "epoch=E durable=0|1"
	 * (durable: the checkpoint server, or the store, holds it). */
	FT_NOTE_CKPT,
	FT_NOTE_KIND_MAX = FT_NOTE_CKPT,
};

struct ft_msg_note {
	uint32_t	kind;
	char		text[FT_WIRE_TEXT_MAX];
};

int	 ft_msg_note_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_note *);
int	 ft_msg_note_decode(const uint8_t *, size_t, struct ft_msg_note *);

/*
 * Replication: a master tells its own replicas that its messages to
 * rank dst up to number seq have left for every replica of dst, so they
 * may drop their backup copies; crc is the CRC32C of message seq's
 * bytes, or 0 when not checked.
 */
struct ft_commit {
	uint32_t	dst;
	uint32_t	crc;
	uint64_t	seq;
};

#define FT_WIRE_BATCH_MAX	4096u	/* entries in COMMIT, DECIDE, NDSYNC */
struct ft_msg_commit {
	uint32_t		 n;
	struct ft_commit	*e;
};

int	 ft_msg_commit_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_commit *);
/* Decode into the caller's m->e (cap entries): EPROTO above cap. */
int	 ft_msg_commit_decode(const uint8_t *, size_t, struct ft_msg_commit *,
	    uint32_t cap);

/*
 * A master's decision on a nondeterministic event, numbered index in
 * the order the master made them; kind and site say which event of the
 * program it settles, a, b, c its outcome (see lib/pt2pt).
 */
struct ft_decision {
	uint64_t	index;
	uint32_t	kind;
	uint64_t	site;
	uint64_t	a, b, c;
};

struct ft_msg_decide {
	uint32_t		 reply;		/* NDSYNC: 0 ask, 1 answer */
	uint64_t		 have;		/* NDSYNC: decisions held */
	uint32_t		 n;
	struct ft_decision	*d;
};

/* type is FT_MSG_DECIDE (reply and have 0) or FT_MSG_NDSYNC. */
int	 ft_msg_decide_encode(struct ft_wbuf *, uint32_t sender,
	    unsigned int type, const struct ft_msg_decide *);
int	 ft_msg_decide_decode(const uint8_t *, size_t, struct ft_msg_decide *,
	    uint32_t cap);

/*
 * ftboot's frames (ft-wire(7)).  A daemon REGISTERs with the supernode,
 * which answers PEERS; a requester RESERVEs slots on a daemon's
 * gatekeeper, which answers RESERVED (a token, or a refusal and its
 * reason), and CANCELs what it does not use (answered DONE); a
 * submitter asks its own daemon to ALLOC slots for a job, answered
 * GRANTS; STATUS (empty) is answered STATE.
 */
#define FT_WIRE_TOKEN		16
#define FT_WIRE_PEERS_MAX	65536u	/* peers in PEERS, grants in GRANTS */

struct ft_msg_boot_register {
	char		addr[FT_WIRE_ADDR_MAX];	/* "tcp:host:port" */
	char		host[FT_WIRE_NODE_MAX];
	uint32_t	slots;			/* P: processes per job */
	uint32_t	jobs;			/* J: jobs at once */
	uint64_t	refresh_ms;		/* it registers this often */
};

/* One peer the supernode knows; age_ms since it last registered. */
struct ft_boot_peer {
	char		addr[FT_WIRE_ADDR_MAX];
	char		host[FT_WIRE_NODE_MAX];
	uint32_t	slots, jobs;
	uint64_t	age_ms;
};

struct ft_msg_boot_peers {
	uint32_t		 n;
	struct ft_boot_peer	*p;	/* n entries, heap */
};

/* Status of RESERVED and GRANTS. */
enum ft_boot_status {
	FT_BOOT_OK = 0,
	FT_BOOT_BUSY,		/* J jobs already reserved or running */
	FT_BOOT_DENIED,		/* the submitter is not allowed */
	FT_BOOT_INVALID,	/* a request that makes no sense */
	FT_BOOT_SHORT,		/* not enough slots found */
	FT_BOOT_FAILED,		/* anything else; the text says */
	FT_BOOT_STATUS_MAX = FT_BOOT_FAILED,
};

struct ft_msg_boot_reserve {
	uint32_t	want;		/* slots wanted, at least 1 */
};

struct ft_msg_boot_reserved {
	uint32_t	status;		/* enum ft_boot_status */
	uint32_t	slots;		/* granted, 0 unless OK */
	uint64_t	ttl_ms;		/* the token expires then unless claimed */
	uint8_t		token[FT_WIRE_TOKEN];
	char		host[FT_WIRE_NODE_MAX];
	char		reason[FT_WIRE_TEXT_MAX];	/* why not, "" if OK */
};

struct ft_msg_boot_cancel {
	uint8_t		token[FT_WIRE_TOKEN];
};

struct ft_msg_boot_alloc {
	uint32_t	nranks, nrep;
	uint8_t		mode;		/* 0 spread, 1 concentrate */
};

struct ft_boot_grant {
	char		addr[FT_WIRE_ADDR_MAX];
	char		host[FT_WIRE_NODE_MAX];
	uint32_t	slots;
	uint64_t	rtt_us;
	uint8_t		token[FT_WIRE_TOKEN];
};

struct ft_msg_boot_grants {
	uint32_t		 status;	/* enum ft_boot_status */
	char			 why[FT_WIRE_TEXT_MAX];
	uint32_t		 n;
	struct ft_boot_grant	*g;	/* n entries, heap */
};

struct ft_msg_boot_state {
	char		addr[FT_WIRE_ADDR_MAX];
	char		host[FT_WIRE_NODE_MAX];
	uint32_t	slots, jobs;
	uint32_t	reserved;	/* live reservations */
	uint32_t	running;	/* jobs claimed and not done */
	uint32_t	peers;		/* in the cache */
	uint64_t	uptime_ms;
};

int	 ft_msg_boot_register_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_register *);
int	 ft_msg_boot_register_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_register *);
/* PEERS and GRANTS decode into heap arrays, freed by their _free. */
int	 ft_msg_boot_peers_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_peers *);
int	 ft_msg_boot_peers_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_peers *);
void	 ft_msg_boot_peers_free(struct ft_msg_boot_peers *);
int	 ft_msg_boot_reserve_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_reserve *);
int	 ft_msg_boot_reserve_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_reserve *);
int	 ft_msg_boot_reserved_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_reserved *);
int	 ft_msg_boot_reserved_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_reserved *);
int	 ft_msg_boot_cancel_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_cancel *);
int	 ft_msg_boot_cancel_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_cancel *);
int	 ft_msg_boot_alloc_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_alloc *);
int	 ft_msg_boot_alloc_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_alloc *);
int	 ft_msg_boot_grants_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_grants *);
int	 ft_msg_boot_grants_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_grants *);
void	 ft_msg_boot_grants_free(struct ft_msg_boot_grants *);
int	 ft_msg_boot_state_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_boot_state *);
int	 ft_msg_boot_state_decode(const uint8_t *, size_t,
	    struct ft_msg_boot_state *);

/*
 * The coordinated checkpoint's marker (lib/wire/coord.c, ft-wire(7)):
 * the sender reached the cut of epoch (>= 1), having sent count
 * messages to the receiver before it (the receiver's engine numbers
 * them 0 to count - 1).  Everything after it on the connection was
 * sent after the cut.
 */
struct ft_msg_marker {
	uint64_t	 epoch;
	uint64_t	 count;
};

int	 ft_msg_marker_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_marker *);
int	 ft_msg_marker_decode(const uint8_t *, size_t, struct ft_msg_marker *);

/*
 * COMPLETE (launcher to rank, --ft coord): epoch (>= 1) is the newest
 * complete global checkpoint; a rank keeps its image of it.
 */
int	 ft_msg_complete_encode(struct ft_wbuf *, uint32_t sender,
	    uint64_t epoch);
int	 ft_msg_complete_decode(const uint8_t *, size_t, uint64_t *epoch);

/*
 * PUSH (launcher to rank, --ft coord with a checkpoint server,
 * coordsrv): push your image of epoch (>= 1) to the server; every rank
 * is asked for the same epoch, the newest every rank wrote locally.
 */
int	 ft_msg_push_encode(struct ft_wbuf *, uint32_t sender, uint64_t epoch);
int	 ft_msg_push_decode(const uint8_t *, size_t, uint64_t *epoch);

/*
 * DUE (launcher to rank, --ft coord): ftrun's checkpoint scheduler.
 * call FT_DUE_ASK: a checkpoint of epoch (>= 1) is due; tell ftrun the
 * number of your current ft_checkpoint() call and wait.  FT_DUE_OFF:
 * epoch is called off.  Any other call: take epoch's checkpoint at
 * that call.
 */
#define FT_DUE_ASK	0
#define FT_DUE_OFF	UINT64_MAX

struct ft_msg_due {
	uint64_t	 epoch;
	uint64_t	 call;
};

int	 ft_msg_due_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_due *);
int	 ft_msg_due_decode(const uint8_t *, size_t, struct ft_msg_due *);

/*
 * ULFM's frames (lib/wire/ulfm.c, ft-ulfm(3)).  REVOKE: the context ids
 * ctx to ctx + nctx - 1 of a communicator are revoked; members are its
 * processes (n of them, at most FT_WIRE_MAX_RANKS), to whom every
 * process forwards the first REVOKE it sees of it.
 */
struct ft_msg_revoke {
	uint32_t	 ctx, nctx;	/* nctx 1 to FT_ULFM_NCTX_MAX */
	uint32_t	 n;
	const uint32_t	*members;	/* encode: n ids */
	const uint8_t	*raw;		/* decode: n big-endian words */
};
#define FT_ULFM_NCTX_MAX	4

int	 ft_msg_revoke_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_revoke *);
/* raw points into p; ft_msg_revoke_member reads member i (< n). */
int	 ft_msg_revoke_decode(const uint8_t *, size_t, struct ft_msg_revoke *);
uint32_t ft_msg_revoke_member(const struct ft_msg_revoke *, uint32_t i);

/*
 * AGREE: one step of the agreement instance (ctx, seq) among n members,
 * on a tree of the live members (lib/proto/ulfm.c, ft-ulfm(3)).  from
 * is the sender's member index; round is the member index of the root
 * the sender believes in (every member below it is dead), 0 in a
 * COMMIT.  A value is a flag (bitwise AND), a context id (maximum) and
 * two bitmaps of n bits (ceil(n / 8) bytes, bit i of byte i / 8 at
 * 1 << (i % 8), the bits past n zero): failed members (union) and
 * acknowledged failures (intersection).  UP carries, towards the root,
 * the combination v of the contributions of the members in covered,
 * and the members in acks that hold the root's proposal; PROPOSE
 * carries the root's proposal down, COMMIT the decision.
 */
enum ft_agree_kind {
	FT_AGREE_UP = 1,
	FT_AGREE_PROPOSE,
	FT_AGREE_COMMIT,
	FT_AGREE_KIND_MAX = FT_AGREE_COMMIT,
};

struct ft_agree_val {
	uint32_t	 flag, ctxv;
	const uint8_t	*failed, *acked;	/* ceil(n / 8) bytes each */
	/* Intercommunicators (IAGREE), appended: the second group's
	 * flag (bitwise AND); flag is then the first group's. */
	uint32_t	 flag2;
};

struct ft_msg_agree {
	uint32_t		 kind, ctx, seq, round, from, n;
	struct ft_agree_val	 v;
	const uint8_t		*covered, *acks;	/* UP only */
	/* Appended: an IAGREE (v.flag2 on the wire), not an AGREE. */
	int			 inter;
};

/*
 * The bitmaps of a decoded AGREE point into p.  Decode checks that
 * from and round are below n, and that the bits past n are zero.
 * IAGREE (an agreement on an intercommunicator, among the members of
 * both groups) is AGREE with the word flag2 after ctxv: encode writes
 * it when m->inter is set; ft_msg_iagree_decode reads it (and sets
 * inter), ft_msg_agree_decode reads an AGREE (inter 0, flag2 all ones).
 */
int	 ft_msg_agree_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_agree *);
int	 ft_msg_agree_decode(const uint8_t *, size_t, struct ft_msg_agree *);
int	 ft_msg_iagree_decode(const uint8_t *, size_t, struct ft_msg_agree *);

/*
 * FTMPI_JOIN (ft-ftmpi(3)): the survivors of a communicator rebuilt in
 * mode REBUILD tell a replacement process, which waits for it in its
 * first MPI_Comm_dup of MPI_COMM_WORLD, the context ids they agreed on:
 * wctx for the rebuilt MPI_COMM_WORLD and dctx for the duplicate the
 * call returns (both even: each is a pair), and own, the index its own
 * context ids must stay above (those its dead incarnation drew).
 */
struct ft_msg_ftmpi_join {
	uint32_t	 wctx, dctx, own;
	/* Processes of the world still failed (dead, or started again
	 * and not joined yet): n of them, at most FT_WIRE_MAX_RANKS. */
	uint32_t	 n;
	const uint32_t	*failed;	/* encode: n ids */
	const uint8_t	*raw;		/* decode: n big-endian words */
	/*
	 * Optional, trailing (a body without it decodes with nm 0): for
	 * each process 0..nm-1 of the world, at most FT_WIRE_MAX_RANKS,
	 * what the sender knows of it: the incarnation it runs, how many
	 * of its deaths were rebuilt, and the node and pid of the process
	 * (FT_JOIN_MEMBER_WORDS words each).
	 */
	uint32_t	 nm;
	const uint32_t	*members;	/* encode: nm * 4 words */
	const uint8_t	*mraw;		/* decode */
};

#define FT_JOIN_MEMBER_WORDS	4
struct ft_join_member {
	uint32_t	inc, covered, node, pid;
};

int	 ft_msg_ftmpi_join_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_ftmpi_join *);
int	 ft_msg_ftmpi_join_decode(const uint8_t *, size_t,
	    struct ft_msg_ftmpi_join *);
/* raw points into p; ft_msg_ftmpi_join_failed reads id i (< n). */
uint32_t ft_msg_ftmpi_join_failed(const struct ft_msg_ftmpi_join *,
	    uint32_t i);
/* Process i (< nm) of the trailing list. */
void	 ft_msg_ftmpi_join_member(const struct ft_msg_ftmpi_join *,
	    uint32_t i, struct ft_join_member *);

/*
 * Cross-file internals of lib/wire: start a frame (its header reserved),
 * finish it (its length set; -1 with errno if a put failed or it grew
 * beyond FT_FRAME_MAX), and a decoder's last step (the body consumed
 * exactly, else -1 with EPROTO).
 */
size_t	 ft__frame_begin(struct ft_wbuf *, unsigned int type, uint32_t sender,
	    uint32_t flags);
int	 ft__frame_end(struct ft_wbuf *, size_t start);
int	 ft__decode_done(struct ft_rbuf *);

/*
 * Dynamic processes (MPI_Comm_spawn and friends, ft-wire(7)).
 *
 * SPAWN (rank to launcher): start the processes of ncmds commands, as
 * one new world, for the parents (the global process ids of the
 * spawning communicator's group, in rank order).  The launcher answers
 * with a REPLY of the same reqid once every new process has joined the
 * job (or the spawn failed): ids are the new processes' ids, codes one
 * enum ft_reply_err per process asked for, ctx the context id of the
 * intercommunicator between parents and children.  Every new process
 * gets a REPLY of reqid 0 after its TABLE, with the parents' ids in ids
 * and the same ctx.
 */
#define FT_SPAWN_CMDS_MAX	64	/* commands in one SPAWN */
/*
 * Context ids the launcher hands out for intercommunicators between
 * worlds (spawn, accept/connect), 4 at a time, unique in the job: the
 * ids that ranks agree on among themselves stay below.
 */
#define FT_WIRE_CTX_JOB		0x70000000u
#define FT_WIRE_CTX_JOB_END	0x80000000u
#define FT_SPAWN_ARGS_MAX	1024	/* arguments of one command */
#define FT_SPAWN_INFO_MAX	64	/* info pairs of one command */
#define FT_SPAWN_STR_MAX	4096	/* a command, argument, NUL included */
#define FT_SPAWN_KEY_MAX	256	/* an info key, NUL included */
#define FT_SPAWN_VAL_MAX	1025	/* an info value, NUL included */

struct ft_spawn_cmd {
	uint32_t	  maxprocs;	/* >= 1 */
	char		 *command;	/* not empty */
	uint32_t	  argc;
	char		**argv;		/* argc strings, then NULL */
	uint32_t	  ninfo;
	char		**keys, **vals;	/* ninfo each; keys not empty */
};

struct ft_msg_spawn {
	uint32_t		 reqid;
	uint32_t		 nparents;	/* >= 1 */
	uint32_t		*parents;
	uint32_t		 ncmds;		/* 1..FT_SPAWN_CMDS_MAX */
	struct ft_spawn_cmd	*cmds;
};

int	 ft_msg_spawn_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_spawn *);
/*
 * Decode into heap storage, which ft_msg_spawn_free releases (also after
 * a failed decode, which leaves nothing allocated).
 */
int	 ft_msg_spawn_decode(const uint8_t *, size_t, struct ft_msg_spawn *);
void	 ft_msg_spawn_free(struct ft_msg_spawn *);

/* What a REPLY says of a request, and of each process of a spawn. */
enum ft_reply_err {
	FT_REPLY_OK = 0,
	FT_REPLY_NOPROG,	/* no such program */
	FT_REPLY_EXEC,		/* found, but it cannot be run */
	FT_REPLY_UNIVERSE,	/* more processes than the universe holds */
	FT_REPLY_UNJOINED,	/* a new process ended before MPI_Init */
	FT_REPLY_REFUSED,	/* not under this fault-tolerance protocol */
	FT_REPLY_PORT,		/* no such port */
	FT_REPLY_NAME,		/* no such service name */
	FT_REPLY_SERVICE,	/* the name is published, or not by us */
	FT_REPLY_NOMEM,		/* the launcher ran out of memory */
	FT_REPLY_ERR_MAX = FT_REPLY_NOMEM,
};

/*
 * The launcher's answer to SPAWN and PORT requests.  ids and codes are
 * heap arrays (ft_msg_reply_free), at most FT_WIRE_MAX_RANKS each.
 */
struct ft_msg_reply {
	uint32_t	 reqid;
	uint32_t	 err;		/* enum ft_reply_err */
	uint32_t	 ctx;
	char		 text[FT_WIRE_TEXT_MAX];	/* a port, or why */
	uint32_t	 nids;
	uint32_t	*ids;
	uint32_t	 ncodes;
	uint32_t	*codes;		/* enum ft_reply_err each */
};

int	 ft_msg_reply_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_reply *);
int	 ft_msg_reply_decode(const uint8_t *, size_t, struct ft_msg_reply *);
void	 ft_msg_reply_free(struct ft_msg_reply *);

/*
 * PROCS (launcher to process): the addresses of processes first to
 * first + n - 1, which joined the job after the TABLE went out.  An
 * empty address (pid 0, no socket), in TABLE or PROCS, is of a process
 * that has not joined yet.  t.ranks is heap (ft_msg_table_free).
 */
struct ft_msg_procs {
	uint32_t		first;
	struct ft_msg_table	t;	/* t.n >= 1, first + t.n in range */
};

int	 ft_msg_procs_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_procs *);
int	 ft_msg_procs_decode(const uint8_t *, size_t, struct ft_msg_procs *);

/*
 * PORT (rank to launcher): ports and names of MPI chapter 10.4, and
 * MPI_Comm_disconnect.  OPEN answers with a new port name in text;
 * ACCEPT and CONNECT name the port and the local group (ids), and are
 * answered once both sides are there, with the remote group's ids and
 * the intercommunicator's ctx; PUBLISH binds name to value; LOOKUP
 * answers with the port in text; DISCONNECT (no answer) tells that the
 * process left the intercommunicator on context ctx.
 */
#define FT_PORT_NAME_MAX	256	/* port and service names, NUL included */

enum ft_port_op {
	FT_PORT_OPEN = 1,
	FT_PORT_CLOSE,
	FT_PORT_ACCEPT,
	FT_PORT_CONNECT,
	FT_PORT_PUBLISH,
	FT_PORT_UNPUBLISH,
	FT_PORT_LOOKUP,
	FT_PORT_DISCONNECT,
	FT_PORT_OP_MAX = FT_PORT_DISCONNECT,
};

struct ft_msg_port {
	uint32_t	 op;		/* enum ft_port_op */
	uint32_t	 reqid;
	uint32_t	 ctx;		/* DISCONNECT */
	char		 name[FT_PORT_NAME_MAX];
	char		 value[FT_PORT_NAME_MAX];
	uint32_t	 nids;
	uint32_t	*ids;		/* heap: ft_msg_port_free */
};

int	 ft_msg_port_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_port *);
int	 ft_msg_port_decode(const uint8_t *, size_t, struct ft_msg_port *);
void	 ft_msg_port_free(struct ft_msg_port *);

/* The fixed part of RDATA; the payload follows it. */
#define FT_RDATA_FIXED	16
struct ft_msg_rdata {
	uint64_t	rreq;
	uint64_t	offset;
};

int	 ft_msg_hello_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_hello *);
int	 ft_msg_hello_decode(const uint8_t *, size_t, struct ft_msg_hello *);
int	 ft_msg_challenge_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_challenge *);
int	 ft_msg_challenge_decode(const uint8_t *, size_t,
	    struct ft_msg_challenge *);
int	 ft_msg_auth_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_auth *);
int	 ft_msg_auth_decode(const uint8_t *, size_t, struct ft_msg_auth *);
int	 ft_msg_register_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_register *);
int	 ft_msg_register_decode(const uint8_t *, size_t,
	    struct ft_msg_register *);
int	 ft_msg_table_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_table *);
int	 ft_msg_table_decode(const uint8_t *, size_t, struct ft_msg_table *);
void	 ft_msg_table_free(struct ft_msg_table *);
int	 ft_msg_abort_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_abort *);
int	 ft_msg_abort_decode(const uint8_t *, size_t, struct ft_msg_abort *);
/* FINALIZE and FINALIZE_OK have an empty body. */
int	 ft_msg_empty_encode(struct ft_wbuf *, uint32_t sender,
	    unsigned int type);
int	 ft_msg_empty_decode(const uint8_t *, size_t);
int	 ft_msg_rts_encode(struct ft_wbuf *, uint32_t sender, uint32_t flags,
	    const struct ft_msg_rts *);
int	 ft_msg_rts_decode(const uint8_t *, size_t, struct ft_msg_rts *);
int	 ft_msg_cts_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_cts *);
int	 ft_msg_cts_decode(const uint8_t *, size_t, struct ft_msg_cts *);
int	 ft_msg_gossip_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_gossip *);
/* Decode into m->hb, which holds cap counters: EPROTO if n > cap. */
int	 ft_msg_gossip_decode(const uint8_t *, size_t, struct ft_msg_gossip *,
	    uint32_t cap);
/* type is FT_MSG_PING or FT_MSG_PONG. */
int	 ft_msg_ping_encode(struct ft_wbuf *, uint32_t sender,
	    unsigned int type, const struct ft_msg_ping *);
int	 ft_msg_ping_decode(const uint8_t *, size_t, struct ft_msg_ping *);
int	 ft_msg_credit_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_credit *);
int	 ft_msg_credit_decode(const uint8_t *, size_t,
	    struct ft_msg_credit *);
int	 ft_msg_ack_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_ack *);
int	 ft_msg_ack_decode(const uint8_t *, size_t, struct ft_msg_ack *);

/*
 * Data frames are written without copying the payload: the encoder
 * fills the fixed bytes (header and fixed part, FT_WIRE_HDRLEN +
 * FT_*_FIXED bytes) into out, and the caller sends the payload right
 * after them.  payload is at most FT_FRAME_MAX minus those bytes, or
 * the call returns -1 with EMSGSIZE.  The decoders read the fixed part
 * only and need at least FT_*_FIXED bytes of body.
 */
int	 ft_msg_eager_prefix(uint8_t *out, uint32_t sender,
	    const struct ft_msg_eager *, size_t payload);
int	 ft_msg_eager_decode(const uint8_t *, size_t, struct ft_msg_eager *);
/*
 * EAGER with the sender's clock (vlog, issue 13).  The prefix is
 * ft_msg_eager_fixed(m) bytes of body: FT_EAGER_FIXED, plus
 * FT_EAGER_CLOCK when m->clock is not 0, which also sets FT_FLAG_CLOCK
 * in the header; out must hold FT_WIRE_HDRLEN + that.  The decoder
 * takes the header's flags: with FT_FLAG_CLOCK it needs the
 * FT_EAGER_CLOCK bytes more and reads the clock (EPROTO when the clock
 * is 0), else clock is 0.  ft_msg_eager_prefix and _decode are these
 * with clock 0.
 */
size_t	 ft_msg_eager_fixed(const struct ft_msg_eager *);
int	 ft_msg_eager_cprefix(uint8_t *out, uint32_t sender,
	    const struct ft_msg_eager *, size_t payload);
int	 ft_msg_eager_cdecode(const uint8_t *, size_t, uint32_t flags,
	    struct ft_msg_eager *);
int	 ft_msg_rdata_prefix(uint8_t *out, uint32_t sender,
	    const struct ft_msg_rdata *, size_t payload);
int	 ft_msg_rdata_decode(const uint8_t *, size_t, struct ft_msg_rdata *);

/*
 * Remote execution (ft-wire(7)): a submitter sends JOB_START to a host
 * agent, which answers NEED (the staged files it lacks, which the
 * submitter then sends in FILE chunks), then STARTED (the pids), then
 * OUTPUT, STATUS and BEATS while the job runs, and DONE at its end.
 * The submitter may send SIGNAL; both sides send KEEPALIVE when they
 * have nothing else to say, and NOTE carries an agent's errors.
 */
#define FT_PEER_TOKEN		16	/* reservation token bytes */
#define FT_JOB_SEALED		72	/* nonce 24, MAC 16, job key 32 */
#define FT_JOB_ARGS_MAX		4096	/* argv or environment entries */
#define FT_JOB_ARG_MAX		8192	/* one argument, NUL included */
#define FT_JOB_STAGE_MAX	256	/* staged files */
#define FT_JOB_NAME_MAX		256	/* a staged file's name, NUL incl. */
#define FT_JOB_URL_MAX		2048
#define FT_JOB_PROTO_MAX	32
#define FT_JOB_NOPROG		UINT32_MAX	/* program not staged */
#define FT_JOB_TCP		0x1u	/* JOB_START flags */
#define FT_JOB_DIVERGE		0x2u
#define FT_JOB_STDIN		0x4u	/* rank 0 reads JOB_INPUT */
#define FT_JOB_FLAGS		(FT_JOB_TCP | FT_JOB_DIVERGE | FT_JOB_STDIN)
#define FT_STAGE_PINNED		0x1u	/* sha256 known before the transfer */
#define FT_STAGE_FLAGS		(FT_STAGE_PINNED)

struct ft_job_proc {
	uint32_t	id;		/* process id: rank * R + replica */
	uint32_t	kill_signal;	/* --inject after-sends, or 0 */
	uint64_t	kill_after;
};

struct ft_job_file {
	const char	*name;		/* a plain file name: no '/', not . or .. */
	const char	*url;		/* "" when the submitter sends it */
	uint64_t	 size;		/* submitter's files only */
	uint8_t		 sha256[32];	/* with FT_STAGE_PINNED */
	uint32_t	 flags;
};

struct ft_msg_job_start {
	uint8_t		 token[FT_PEER_TOKEN];
	uint32_t	 nprocs;
	uint64_t	 jobid;
	uint32_t	 node;		/* this host's index in the job */
	uint32_t	 nranks, nrep;
	uint32_t	 flags;		/* FT_JOB_* */
	uint64_t	 timeout_ms, grace_ms, hang_ms;	/* 0: none */
	uint32_t	 hb_period_ms;
	char		 launcher[FT_WIRE_ADDR_MAX];
	char		 proto[FT_JOB_PROTO_MAX];
	uint32_t	 prog;		/* index in files, or FT_JOB_NOPROG */
	uint32_t	 argc, nenv, nfiles;
	char		**argv;		/* argc entries and a NULL */
	char		**env;		/* "VAR=VALUE", nenv entries */
	struct ft_job_proc *procs;	/* nprocs entries */
	struct ft_job_file *files;	/* nfiles entries */
	uint8_t		 sealed[FT_JOB_SEALED];	/* the job key, encrypted */
	void		*arena;		/* decoder's strings */
};

int	 ft_msg_job_start_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_start *);
/*
 * Allocates m->argv, env, procs, files and arena: free with
 * ft_msg_job_start_free, also after a failed decode.  Refuses (EPROTO)
 * counts above their FT_JOB_* bounds or what the body holds, unknown
 * flags, argc 0, prog out of range, and unsafe file names.
 */
int	 ft_msg_job_start_decode(const uint8_t *, size_t,
	    struct ft_msg_job_start *);
void	 ft_msg_job_start_free(struct ft_msg_job_start *);
/* Is name a plain file name a staged file may have? */
int	 ft_job_name_ok(const char *name);

/* NEED: indexes into JOB_START's files; n at most FT_JOB_STAGE_MAX. */
struct ft_msg_job_need {
	uint32_t	n;
	uint32_t	idx[FT_JOB_STAGE_MAX];
};
int	 ft_msg_job_need_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_need *);
int	 ft_msg_job_need_decode(const uint8_t *, size_t,
	    struct ft_msg_job_need *);

/* FILE: bytes of file idx from offset; data points into the body. */
#define FT_JOB_FILE_FIXED	12
#define FT_JOB_CHUNK		(1u << 20)
struct ft_msg_job_file {
	uint32_t	 idx;
	uint64_t	 offset;
	const uint8_t	*data;
	size_t		 len;
};
int	 ft_msg_job_file_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_file *);
int	 ft_msg_job_file_decode(const uint8_t *, size_t,
	    struct ft_msg_job_file *);

/* STARTED: what staging did, and each process's pid or exec errno. */
struct ft_job_pid {
	uint32_t	id;
	uint32_t	pid;		/* 0 when it could not fork */
	uint32_t	err;		/* errno of the failed fork or exec */
};
struct ft_msg_job_started {
	uint32_t	  cached, received, fetched;	/* staged files */
	uint32_t	  n;
	struct ft_job_pid *p;		/* caller's array */
};
int	 ft_msg_job_started_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_started *);
/* Decode into the caller's m->p (cap entries): EPROTO above cap. */
int	 ft_msg_job_started_decode(const uint8_t *, size_t,
	    struct ft_msg_job_started *, uint32_t cap);

/* OUTPUT: whole lines of one stream; data may be empty only with eof. */
#define FT_JOB_OUTPUT_FIXED	8
#define FT_JOB_STDOUT		1
#define FT_JOB_STDERR		2
#define FT_JOB_EOF		0x1u
struct ft_msg_job_output {
	uint32_t	 id;
	uint8_t		 stream;	/* FT_JOB_STDOUT or FT_JOB_STDERR */
	uint8_t		 flags;		/* FT_JOB_EOF */
	const uint8_t	*data;		/* into the body */
	size_t		 len;
};
int	 ft_msg_job_output_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_output *);
int	 ft_msg_job_output_decode(const uint8_t *, size_t,
	    struct ft_msg_job_output *);

/* STATUS: how processes ended, stopped or went on. */
enum ft_job_status_kind {
	FT_JOB_EXITED = 1,	/* value: exit code, 0 to 255 */
	FT_JOB_SIGNALED,	/* value: the signal, 1 to 127 */
	FT_JOB_STOPPED,		/* value: the signal, 1 to 127 */
	FT_JOB_CONTINUED,	/* value: 0 */
};
struct ft_job_status {
	uint32_t	id;
	uint32_t	kind;
	uint32_t	value;
};
#define FT_JOB_BATCH_MAX	4096u	/* entries in STATUS, BEATS, SIGNAL */
struct ft_msg_job_status {
	uint32_t	      n;
	struct ft_job_status *s;	/* caller's array */
};
int	 ft_msg_job_status_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_status *);
int	 ft_msg_job_status_decode(const uint8_t *, size_t,
	    struct ft_msg_job_status *, uint32_t cap);

/* BEATS: heartbeat records the agent read from its processes. */
struct ft_job_beat {
	uint32_t	id, flags, state_ms;
	uint64_t	completed;
};
struct ft_msg_job_beats {
	uint32_t	    n;
	struct ft_job_beat *b;		/* caller's array */
};
int	 ft_msg_job_beats_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_beats *);
int	 ft_msg_job_beats_decode(const uint8_t *, size_t,
	    struct ft_msg_job_beats *, uint32_t cap);

/* SIGNAL: send signo (1 to 64) to processes ids, or to all if n is 0. */
struct ft_msg_job_signal {
	uint32_t	 signo;
	uint32_t	 n;
	uint32_t	*ids;		/* caller's array */
};
int	 ft_msg_job_signal_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_signal *);
int	 ft_msg_job_signal_decode(const uint8_t *, size_t,
	    struct ft_msg_job_signal *, uint32_t cap);

/* NOTE: an agent's error (the job cannot run there) or warning. */
#define FT_JOB_NOTE_ERROR	1
#define FT_JOB_NOTE_WARNING	2
struct ft_msg_job_note {
	uint32_t	kind;
	uint32_t	code;		/* exit status it suggests, or 0 */
	char		text[FT_WIRE_TEXT_MAX];
};
int	 ft_msg_job_note_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_note *);
int	 ft_msg_job_note_decode(const uint8_t *, size_t,
	    struct ft_msg_job_note *);
/* KEEPALIVE and DONE have an empty body: ft_msg_empty_*. */

/*
 * DETECT: an agent's detector module listens at addr ("tcp:IP:PORT"),
 * sent once after STARTED.  MEMBERS: the submitter's answer once every
 * agent said where: the job's detector members (addrs[0] the
 * submitter's, addrs[1 + i] host i's), which of them the agent is, and
 * the schedule (enum ft_gossip_proto) and times to run it with.
 */
struct ft_msg_job_detect {
	char		 addr[FT_WIRE_ADDR_MAX];
};
int	 ft_msg_job_detect_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_detect *);
int	 ft_msg_job_detect_decode(const uint8_t *, size_t,
	    struct ft_msg_job_detect *);

#define FT_JOB_MEMBERS_MAX	4097u	/* the submitter and 4096 hosts */
#define FT_JOB_GOSSIP_PROTO_MAX	3u	/* FT_GOSSIP_DBRR */
struct ft_msg_job_members {
	uint32_t	 self, n, proto;
	uint64_t	 period_ns, cleanup_ns, ping_ns;
	char		(*addrs)[FT_WIRE_ADDR_MAX];	/* caller's array */
};
int	 ft_msg_job_members_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_members *);
/*
 * INPUT: from the submitter, bytes of its standard input for process
 * id (a replica of rank 0), then EOF; from the agent, TAKEN: count
 * bytes of it were written to the process so far, or CLOSED: the
 * process closed its input (send no more).  Data comes only without
 * TAKEN and CLOSED, at most FT_JOB_INPUT_MAX bytes a frame.
 */
#define FT_JOB_INPUT_FIXED	16
#define FT_JOB_INPUT_MAX	(64u << 10)
/* The submitter sends at most this much beyond what the agent said the
 * process took: the agent holds no more. */
#define FT_JOB_INPUT_WINDOW	(256u << 10)
#define FT_JOB_INPUT_EOF	0x1u
#define FT_JOB_INPUT_TAKEN	0x2u
#define FT_JOB_INPUT_CLOSED	0x4u
struct ft_msg_job_input {
	uint32_t	 id;
	uint32_t	 flags;
	uint64_t	 count;		/* TAKEN, CLOSED: bytes written */
	const uint8_t	*data;		/* into the body */
	size_t		 len;
};
int	 ft_msg_job_input_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_input *);
int	 ft_msg_job_input_decode(const uint8_t *, size_t,
	    struct ft_msg_job_input *);

/* Decode into the caller's m->addrs (cap entries): EPROTO above cap. */
int	 ft_msg_job_members_decode(const uint8_t *, size_t,
	    struct ft_msg_job_members *, uint32_t cap);

/*
 * The event logger (ftlog(1), ft-log(5)).  A determinant is what a rank
 * records of one delivery or other nondeterministic event; the same
 * encoding is a record's payload in a log segment (lib/store) and an
 * element of APPEND and RECORDS:
 *
 *	u8 type (FT_DET_TYPE), u8 kind, u16 flags (0), u64 seq,
 *	u64 clock, u32 sender, u64 sender clock, u32 probes,
 *	and when kind is not FT_DET_DELIVERY: u64 v[0], v[1], v[2]
 *
 * kind is FT_DET_DELIVERY for a delivery, else the enum ft_nd_kind of
 * the event (lib/proto); seq counts a rank's determinants from 1, with
 * no gap.  36 bytes for a delivery, 60 for another event.
 */
#define FT_DET_TYPE		1
#define FT_DET_DELIVERY		0
#define FT_DET_KIND_MAX		6	/* FT_ND_KIND_MAX */
#define FT_DET_FIXED		36
#define FT_DET_MAXLEN		68
#define FT_DET_NOSENDER		UINT32_MAX
/*
 * flags: FT_DET_F_CSEQ on a delivery or an FT_ND_ANYSRC event (vlog,
 * issue 13): the message's number on its channel (u64) follows, last,
 * so that a replay names it whatever the sender's clock was.
 */
#define FT_DET_F_CSEQ		0x1u
#define FT_ND_ANYSRC_KIND	1	/* FT_ND_ANYSRC of lib/proto */
#define FT_LOG_BATCH_MAX	4096u	/* determinants in APPEND, RECORDS */
#define FT_LOG_ACK_MAX		4096u	/* entries in one ACK */

struct ft_det {
	uint64_t	seq;		/* >= 1 */
	uint64_t	clock;		/* the rank's, at the event */
	uint32_t	sender;		/* or FT_DET_NOSENDER */
	uint64_t	sclock;		/* the sender's clock at the send */
	uint32_t	probes;		/* unsuccessful probes before it */
	uint32_t	kind;		/* FT_DET_DELIVERY or enum ft_nd_kind */
	uint64_t	v[3];		/* kind's values; 0 for a delivery */
	uint32_t	flags;		/* FT_DET_F_* (issue 13) */
	uint64_t	cseq;		/* with FT_DET_F_CSEQ */
};

/* Bytes of d's encoding: FT_DET_FIXED or FT_DET_MAXLEN, 8 more with
 * FT_DET_F_CSEQ. */
size_t	 ft_det_size(const struct ft_det *);
void	 ft_det_put(struct ft_wbuf *, const struct ft_det *);
/*
 * Read one determinant; a malformed one (another type, a kind above
 * FT_DET_KIND_MAX, flags, seq 0) sets r->err to EPROTO.
 */
void	 ft_det_get(struct ft_rbuf *, struct ft_det *);

/*
 * APPEND (client to logger): n determinants of rank in job, seq
 * following the last one the logger holds for it, each one the next.
 * The logger answers with ACK (once they are held as its --sync mode
 * says) or ERROR.  Decoded into the caller's array d of cap entries
 * (EPROTO above cap); n is 1 to FT_LOG_BATCH_MAX.
 */
struct ft_msg_log_append {
	uint64_t	 job;
	uint32_t	 rank;
	uint32_t	 n;
	struct ft_det	*d;
	/*
	 * Issue 13: the incarnation of the rank that sends (0 for its
	 * first process, 1, 2... for each restart), a u32 after the
	 * determinants (after rank in QUERY), left out when 0: a frame
	 * without it is one of incarnation 0.  The logger refuses
	 * (FT_LOG_ESTALE) APPEND and QUERY of an incarnation older than
	 * one it has seen in either.
	 */
	uint32_t	 inc;
};

/*
 * ACK (logger to client): for each rank, the highest seq the logger
 * holds durably, and its clock (both 0: none).  The answer to APPEND
 * and QUERY; n is 1 to FT_LOG_ACK_MAX.
 */
struct ft_log_ack {
	uint64_t	job;
	uint32_t	rank;
	uint64_t	seq;
	uint64_t	clock;
};
struct ft_msg_log_ack {
	uint32_t	   n;
	struct ft_log_ack *e;		/* caller's array */
};

/*
 * FETCH (client to logger): rank's determinants of seq >= from_seq and
 * clock >= from_clock, in seq order, as RECORDS frames of the same
 * reqid, the last one with FT_LOG_LAST; or an ERROR of that reqid.
 */
struct ft_msg_log_fetch {
	uint32_t	reqid;
	uint64_t	job;
	uint32_t	rank;
	uint64_t	from_seq;
	uint64_t	from_clock;
};

#define FT_LOG_LAST		0x1u	/* RECORDS: the fetch is complete */
struct ft_msg_log_records {
	uint32_t	 reqid;
	uint64_t	 job;
	uint32_t	 rank;
	uint32_t	 flags;		/* FT_LOG_LAST */
	uint32_t	 n;		/* 0 only with FT_LOG_LAST */
	struct ft_det	*d;		/* caller's array */
};

/*
 * ERROR (logger to client): what the logger could not do for rank in
 * job: reqid is the FETCH's, or 0 for APPEND and QUERY; seq the highest
 * seq held durably; text says why, naming files.  Records it did not
 * acknowledge are not held.
 */
enum ft_log_err {
	FT_LOG_ENOSPC = 1,	/* the disk is full */
	FT_LOG_EIO,		/* a write or fsync failed */
	FT_LOG_EGONE,		/* the log directory or file vanished */
	FT_LOG_ECORRUPT,	/* a segment is corrupt; text names it */
	FT_LOG_ESEQ,		/* seq is not the one expected */
	FT_LOG_ENOMEM,
	FT_LOG_ESTALE,		/* a newer incarnation of the rank is in
				 * (issue 13) */
	FT_LOG_ERR_MAX = FT_LOG_ESTALE,
};
struct ft_msg_log_error {
	uint32_t	reqid;
	uint64_t	job;
	uint32_t	rank;
	uint32_t	code;		/* enum ft_log_err */
	uint64_t	seq;
	char		text[FT_WIRE_TEXT_MAX];
};

/* QUERY (client to logger): what is held of rank?  Answered by ACK. */
struct ft_msg_log_query {
	uint64_t	job;
	uint32_t	rank;
	uint32_t	inc;		/* issue 13: see APPEND */
};

int	 ft_msg_log_append_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_log_append *);
int	 ft_msg_log_append_decode(const uint8_t *, size_t,
	    struct ft_msg_log_append *, uint32_t cap);
int	 ft_msg_log_ack_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_log_ack *);
int	 ft_msg_log_ack_decode(const uint8_t *, size_t,
	    struct ft_msg_log_ack *, uint32_t cap);
int	 ft_msg_log_fetch_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_log_fetch *);
int	 ft_msg_log_fetch_decode(const uint8_t *, size_t,
	    struct ft_msg_log_fetch *);
int	 ft_msg_log_records_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_log_records *);
int	 ft_msg_log_records_decode(const uint8_t *, size_t,
	    struct ft_msg_log_records *, uint32_t cap);
int	 ft_msg_log_error_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_log_error *);
int	 ft_msg_log_error_decode(const uint8_t *, size_t,
	    struct ft_msg_log_error *);
int	 ft_msg_log_query_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_log_query *);
int	 ft_msg_log_query_decode(const uint8_t *, size_t,
	    struct ft_msg_log_query *);

/*
 * Message logging's frames (lib/wire/vlog.c, ft-proto(7)).
 *
 * RESTART (a restarted process to every peer): it is incarnation inc
 * of its rank, and holds the messages from the peer below seq from
 * (their numbers on the peer's channel to it): resend from there, and
 * say what you hold of mine.  RESUME (the answer): the peer holds the
 * restarted process's messages below have; they are not sent again.
 * Both are u32 inc, u64 seq.
 *
 * DIGEST (a restarted process to a peer): the crc32c of messages it
 * made again and did not send, because the peer had them: n entries
 * of u64 seq, u32 crc, n from 1 to FT_VLOG_DIGEST_MAX.  The peer
 * compares them with the messages it received (divergence).
 *
 * REVIVE (launcher to every live process): process proc is back as
 * incarnation inc at address addr; what was known of the one before is
 * void.  u32 proc, u32 inc, then the address as in REGISTER.
 */
#define FT_VLOG_DIGEST_MAX	1024

struct ft_msg_vlog_seq {
	uint32_t	inc;
	uint64_t	seq;
};

struct ft_vlog_digest {
	uint64_t	seq;
	uint32_t	crc;
};

struct ft_msg_vlog_digest {
	uint32_t		 n;
	struct ft_vlog_digest	*d;	/* caller's array of cap */
};

/*
 * GC (vlog images, issue 15; a rank to each peer): rank r, incarnation
 * inc, holds in a durable image (an older one than its newest, epoch)
 * every message of the peer's below seq: the peer may drop them from
 * its sender log.  u32 inc, u64 epoch (>= 1), u64 seq.
 */
struct ft_msg_vlog_gc {
	uint32_t	inc;
	uint64_t	epoch;
	uint64_t	seq;
};

struct ft_msg_revive {
	uint32_t		proc;
	uint32_t		inc;
	struct ft_rank_addr	addr;
};

/* type: FT_MSG_VLOG_RESTART or FT_MSG_VLOG_RESUME. */
int	 ft_msg_vlog_seq_encode(struct ft_wbuf *, uint32_t sender,
	    unsigned int type, const struct ft_msg_vlog_seq *);
int	 ft_msg_vlog_seq_decode(const uint8_t *, size_t,
	    struct ft_msg_vlog_seq *);
int	 ft_msg_vlog_digest_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_vlog_digest *);
/* EPROTO when n is 0 or above cap (at most FT_VLOG_DIGEST_MAX). */
int	 ft_msg_vlog_digest_decode(const uint8_t *, size_t,
	    struct ft_msg_vlog_digest *, uint32_t cap);
int	 ft_msg_revive_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_revive *);
/* EINVAL / EPROTO when epoch is 0. */
int	 ft_msg_vlog_gc_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_vlog_gc *);
int	 ft_msg_vlog_gc_decode(const uint8_t *, size_t,
	    struct ft_msg_vlog_gc *);
int	 ft_msg_revive_decode(const uint8_t *, size_t, struct ft_msg_revive *);

/*
 * The checkpoint server (ftckpt(1), ft-ckpt(5)).  A client asks one
 * thing at a time; reqid echoes in the answer.
 *
 * REQ: op on the images of job (every job with FT_CKPT_ALLJOBS) and
 * rank (every rank with FT_CKPT_ALLRANKS), epoch (0: the newest):
 * LIST (answered by ENTRIES), GET (PUT and DATA, or RESULT), RM,
 * VERIFY and PRUNE (ENTRIES, then RESULT), PIN (RESULT: the server
 * holds rank's lease with epoch as its pin while the connection
 * lives).  PRUNE takes keep (0: no count limit) and older_ns (0: no
 * age limit) and FT_CKPT_DRYRUN.  GC (ckptsrv2, RESULT): the job's
 * garbage collection of one rank's images (ft_ckpt_gc_decide): epoch
 * (not 0) is that rank's newest image the server holds, keep (not 0)
 * how many complete ones at or below it stay; no FT_CKPT_ALLJOBS nor
 * FT_CKPT_ALLRANKS.
 *
 * PUT: an image of size bytes follows in DATA frames of the same
 * reqid (client to server: an upload, answered by RESULT once the
 * image is complete and durable, or refused; server to client: the
 * answer to GET).  DATA: at most FT_CKPT_CHUNK bytes.
 *
 * ENTRIES: n images (0 only with FT_CKPT_LAST), the last frame of an
 * answer with FT_CKPT_LAST.  RESULT: code 0, or an enum ft_ckpt_err
 * with text naming the file.
 */
#define FT_CKPT_CHUNK		(1u << 20)
#define FT_CKPT_ENTRIES_MAX	4096u
#define FT_CKPT_ENTRY_LEN	52
#define FT_CKPT_IMAGE_MAX	(1ull << 41)	/* a stored image, bytes */

enum ft_ckpt_op {
	FT_CKPT_LIST = 1,
	FT_CKPT_GET,
	FT_CKPT_RM,
	FT_CKPT_VERIFY,
	FT_CKPT_PRUNE,
	FT_CKPT_PIN,
	FT_CKPT_GC,		/* ckptsrv2 */
	FT_CKPT_OP_MAX = FT_CKPT_GC,
};

#define FT_CKPT_ALLJOBS		0x1u
#define FT_CKPT_ALLRANKS	0x2u
#define FT_CKPT_DRYRUN		0x4u
#define FT_CKPT_REQ_FLAGS	0x7u
#define FT_CKPT_LAST		0x1u	/* ENTRIES */

struct ft_msg_ckpt_req {
	uint32_t	reqid;
	uint8_t		op;		/* enum ft_ckpt_op */
	uint16_t	flags;		/* FT_CKPT_ALLJOBS... */
	uint64_t	job;
	uint32_t	rank;
	uint64_t	epoch;
	uint32_t	keep;
	uint64_t	older_ns;
};

struct ft_msg_ckpt_put {
	uint32_t	reqid;
	uint64_t	job;
	uint32_t	rank;
	uint64_t	epoch;
	uint64_t	size;		/* 1 to FT_CKPT_IMAGE_MAX */
};

#define FT_CKPT_DATA_FIXED	4
struct ft_msg_ckpt_data {
	uint32_t	 reqid;
	const uint8_t	*data;		/* into the body */
	size_t		 len;		/* 1 to FT_CKPT_CHUNK */
};

/* An image as the server lists it. */
enum ft_ckpt_state {
	FT_CKPT_OK = 0,		/* complete, header checked */
	FT_CKPT_BAD,		/* refused by the reader */
	FT_CKPT_REMOVED,	/* prune removed it */
	FT_CKPT_WOULD,		/* prune --dry-run would remove it */
	FT_CKPT_KEPT,		/* prune keeps it */
	FT_CKPT_STATE_MAX = FT_CKPT_KEPT,
};
struct ft_ckpt_ent {
	uint64_t	job;
	uint32_t	rank;
	uint64_t	epoch;
	uint32_t	nranks;		/* 0 if unknown */
	uint64_t	raw, stored;
	uint64_t	created_ns;	/* CLOCK_REALTIME */
	uint32_t	state;		/* enum ft_ckpt_state */
};
struct ft_msg_ckpt_entries {
	uint32_t	    reqid;
	uint32_t	    flags;	/* FT_CKPT_LAST */
	uint32_t	    n;
	struct ft_ckpt_ent *e;		/* caller's array */
};

enum ft_ckpt_err {
	FT_CKPT_ENOENT = 1,	/* no such image */
	FT_CKPT_ECORRUPT,	/* an image is corrupt; text names it */
	FT_CKPT_EIO,		/* a write, fsync or read failed */
	FT_CKPT_ENOSPC,
	FT_CKPT_EINVAL,		/* a request the server refuses */
	FT_CKPT_ENOMEM,
	FT_CKPT_ERR_MAX = FT_CKPT_ENOMEM,
};
struct ft_msg_ckpt_result {
	uint32_t	reqid;
	uint32_t	code;		/* 0 or enum ft_ckpt_err */
	char		text[FT_WIRE_TEXT_MAX];
};

int	 ft_msg_ckpt_req_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_ckpt_req *);
int	 ft_msg_ckpt_req_decode(const uint8_t *, size_t,
	    struct ft_msg_ckpt_req *);
int	 ft_msg_ckpt_put_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_ckpt_put *);
int	 ft_msg_ckpt_put_decode(const uint8_t *, size_t,
	    struct ft_msg_ckpt_put *);
int	 ft_msg_ckpt_data_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_ckpt_data *);
int	 ft_msg_ckpt_data_decode(const uint8_t *, size_t,
	    struct ft_msg_ckpt_data *);
int	 ft_msg_ckpt_entries_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_ckpt_entries *);
int	 ft_msg_ckpt_entries_decode(const uint8_t *, size_t,
	    struct ft_msg_ckpt_entries *, uint32_t cap);
int	 ft_msg_ckpt_result_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_ckpt_result *);
int	 ft_msg_ckpt_result_decode(const uint8_t *, size_t,
	    struct ft_msg_ckpt_result *);

/*
 * Restarts across hosts (multihost, ft-wire(7)).  RESPAWN (submitter to
 * host agent): start process id again on this host, as its incarnation
 * (1 or more), armed to kill itself with kill_signal after kill_after
 * sends (--inject; kill_signal 0: not armed, kill_after 0); with
 * FT_RESPAWN_ROLLBACK, restoring epoch rollback (--ft coord; 0: from
 * the beginning).  The agent answers with JOB_STARTED for that one
 * process.  RELEASE (empty body): no more RESPAWN will come; the agent
 * ends once its processes have.
 */
#define FT_RESPAWN_ROLLBACK	0x1u
#define FT_RESPAWN_FLAGS	FT_RESPAWN_ROLLBACK
struct ft_msg_job_respawn {
	uint32_t	id;
	uint32_t	incarnation;
	uint32_t	flags;		/* FT_RESPAWN_* */
	uint32_t	kill_signal;	/* 0, or 1 to 64 */
	uint64_t	kill_after;
	uint64_t	rollback;	/* 0 without FT_RESPAWN_ROLLBACK */
};
int	 ft_msg_job_respawn_encode(struct ft_wbuf *, uint32_t sender,
	    const struct ft_msg_job_respawn *);
int	 ft_msg_job_respawn_decode(const uint8_t *, size_t,
	    struct ft_msg_job_respawn *);

#endif
