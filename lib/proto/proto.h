/* SPDX-License-Identifier: ISC */
/*
 * The fault-tolerance protocol seam (ARCHITECTURE.md section 4).  Every
 * point-to-point message passes through a protocol's hooks: send before
 * it leaves, deliver when it is matched.  A protocol is a const table
 * of hooks chosen by name; hooks other than init may be NULL, which
 * means the core default (do nothing).  Protocols take events in and
 * give effects back: they never do I/O themselves.
 */
#ifndef FT_PROTO_H
#define FT_PROTO_H

#include "../base/base.h"
#include "../wire/wire.h"

#define FT_PROTO_ABI	1

/* A message as the protocols see it. */
struct ft_msg {
	uint32_t	 ctx;		/* communicator context */
	uint32_t	 src;		/* world rank of the sender */
	uint32_t	 dst;		/* world rank of the receiver */
	int32_t		 tag;
	uint64_t	 seq;		/* per (src, dst) message number */
	const void	*buf;
	size_t		 len;
};

struct ft_conf {
	uint32_t	 rank, size;	/* world */
};

struct ft_proto;

struct ft_proto_ops {
	unsigned int	 abi;		/* FT_PROTO_ABI at build time */
	const char	*name;
	size_t		 privsize;	/* private state, allocated by core */
	/* ABI 1.  Hooks other than init may be NULL: core default. */
	int	(*init)(struct ft_proto *, const struct ft_conf *);
	void	(*fini)(struct ft_proto *);
	int	(*send)(struct ft_proto *, struct ft_msg *);
	int	(*deliver)(struct ft_proto *, const struct ft_msg *);
	int	(*peer_down)(struct ft_proto *, uint32_t, uint64_t epoch);
	int	(*save)(struct ft_proto *, struct ft_wbuf *);
	int	(*restore)(struct ft_proto *, struct ft_rbuf *);
	/* ABI 2 appends here; never reorder or remove. */
};

struct ft_proto {
	const struct ft_proto_ops	*ops;
	void				*priv;
	struct ft_conf			 conf;
	uint64_t			 sent, delivered;
};

/*
 * Find a protocol by name.  Returns the ops table, or NULL with ENOENT;
 * ft_proto_names gives "none, ..." for the message an unknown name
 * deserves.
 */
const struct ft_proto_ops *ft_proto_find(const char *name);
const char *ft_proto_names(void);

/*
 * Set up p with ops: allocate privsize bytes and call init.  Returns 0,
 * or -1 with errno (ENOMEM, or ENOTSUP from init).  ft_proto_release
 * calls fini and frees the private state.
 */
int	 ft_proto_init(struct ft_proto *, const struct ft_proto_ops *,
	    const struct ft_conf *);
void	 ft_proto_release(struct ft_proto *);

/* Run a hook, or the core default when the protocol has none. */
int	 ft_proto_send(struct ft_proto *, struct ft_msg *);
int	 ft_proto_deliver(struct ft_proto *, const struct ft_msg *);

extern const struct ft_proto_ops ft__proto_none;
extern const struct ft_proto_ops ft__proto_replicate;

/*
 * Replication's tables (replicate.c); lib/pt2pt drives them.  A job of
 * size ranks run with R replicas has size * R processes, process id
 * rank * R + replica.  A rank's master is its lowest-numbered live
 * replica: every process computes the same one from the same view.
 * gone[] is indexed by process id.  Returns the replica index, or
 * UINT32_MAX when every replica of rank is gone.
 */
uint32_t ft_rep_master(const uint8_t *gone, uint32_t rank, uint32_t nrep);

/* A copy of a message a replica produced, kept until committed. */
struct ft_rep_entry {
	struct ft_rep_entry	*next;
	uint64_t		 seq;
	uint32_t		 ctx, src;
	int32_t			 tag;
	int			 mode;
	uint32_t		 crc;
	size_t			 len;
	uint8_t			*data;
};

/* The backup table for one destination rank, in message order. */
/* A digest committed before we made its message (we are behind). */
struct ft_rep_digest {
	uint64_t	 seq;
	uint32_t	 crc;
};

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
 * Keep a copy of m unless it is already committed.  Returns 1 when
 * kept, 0 when not needed, -1 with ENOMEM.
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

#endif
