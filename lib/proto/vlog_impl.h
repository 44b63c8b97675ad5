/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/proto: the "vlog" protocol's state and what its files
 * share.  vlog.c is the protocol (its description is there) and its
 * ops table; vlog_log.c stores the payloads of the sender log (the
 * chunks, the memfd, the spill file and the sender-log file).  ft__vlog_*
 * are the protocol's internals: nothing outside vlog*.c calls them
 * (ft__vlog_state_check, for the fuzzer, is in proto.h).
 */
#ifndef FT_PROTO_VLOG_IMPL_H
#define FT_PROTO_VLOG_IMPL_H

#include "proto.h"
#include "../store/store.h"

/*
 * The sender log's memory: chunks that are never freed before the job
 * ends, filled in order (a bump allocator), instead of a malloc and a
 * free each (glibc maps and unmaps every large block).  Not huge pages:
 * with the kernel's default defrag=madvise, a fault may wait for
 * compaction, and the measured bandwidth was worse.
 */
struct chunk {
	struct chunk	*next;
	uint8_t		*base;
	size_t		 size, used;
	size_t		 live;		/* bytes of entries not dropped */
};

/* A free extent of the memfd or the spill file (GC gives them back). */
struct ext {
	uint64_t	 off, len;
};

struct extents {
	struct ext	*v;		/* by offset, never adjacent */
	size_t		 n, cap;
};

/* Where an image left the receive positions (GC, lag one image). */
struct imgpos {
	uint64_t	 epoch;
	uint64_t	*dlow;		/* size: by peer */
};

/* A message we sent to another rank, by its number on the channel. */
struct lent {
	uint32_t	 ctx, csrc;
	int32_t		 tag;
	int		 mode;
	size_t		 len;
	uint8_t		*data;		/* in memory, or NULL (len 0) */
	uint64_t	 off;		/* or at this offset of a file */
	int		 file;		/* 1: the memfd; 2: the spill file;
					 * 3: the sender-log file */
	uint64_t	 need;		/* new determinants durable first */
	uint64_t	 clock;		/* ours when we sent it */
	struct chunk	*ch;		/* data's chunk (file 0) */
	uint32_t	 crc;		/* of the payload (file 3) */
};

/*
 * Room of the sender-log file that GC gave back while an image kept
 * for fallback may still name it: free once the image of epoch + 2 is
 * durable (the newest image and the one before it came after).
 */
struct qext {
	uint64_t	 off, len, epoch;
};

/* A message that came ahead of its turn, held by its handle. */
struct early {
	struct early	*next;
	uint64_t	 seq;
	int		 rts;
	void		*handle;
};

/* A rank as a peer. */
struct vpeer {
	/* To it. */
	struct lent	*log;		/* by seq - lbase */
	size_t		 nlog, caplog;	/* nlog: the next seq (not a count) */
	uint64_t	 lbase;		/* below: dropped (GC) */
	uint64_t	 txnext;	/* next seq to transmit */
	uint64_t	 sup;		/* it holds ours below: not sent */
	int		 down;		/* dead, and not back yet */
	int		 resumed;	/* we know sup (RESUME, RESTART) */
	struct ft_vlog_digest *dig;	/* digests to send it */
	uint32_t	 ndig;
	/* From it. */
	uint64_t	 rseq;		/* next seq we take */
	uint64_t	*rts;		/* taken as RTS, payload not in */
	size_t		 nrts, caprts;
	struct early	*early;
	uint32_t	*crc;		/* digest of each message, by seq */
	size_t		 ncrc, capcrc;
	uint64_t	*rclk;		/* its clock at each send, by seq */
	size_t		 caprclk;	/*   - rcbase (below: delivered) */
	uint64_t	 rcbase;
	int		 restart_due;	/* its RESTART waits for REVIVE */
	uint64_t	 restart_from;
	/* Images (issue 15): every message below dlow is delivered, and
	 * those in dskip above it; rskip, those an image restored had
	 * delivered, dropped when they come again. */
	uint64_t	 dlow;
	uint64_t	*dskip, *rskip;
	size_t		 ndskip, capdskip, nrskip, caprskip;
	/* The newest incarnation its frames carried (RESTART, RESUME,
	 * GC): a GC of an older one is stale (issue 15).  A REVIVE
	 * raises it above every incarnation heard from, and a message of
	 * an older one is stale too (a host cut off, not killed). */
	uint32_t	 pinc;
	uint32_t	 rinc;		/* the newest its messages carried */
};

/* An ANY_SOURCE receive waiting for the log. */
struct vwait {
	struct ft_req	*req;
	uint64_t	 site;
};

/* A logged ANY_SOURCE outcome, by site. */
struct vany {
	uint64_t	 site;
	uint32_t	 src, csrc;
	uint64_t	 seq;		/* its message's number on its channel */
	int		 used;
};

enum { REPLAY_NONE = 0, REPLAY_FETCH, REPLAY_ON };

struct vlog {
	struct ft_proto		*p;
	uint32_t		 rank, size, inc;
	int			 strict, check, diverged, replay_off;
	uint64_t		 clock;
	uint32_t		 lprobes;	/* logged since the last delivery */
	uint64_t		 lclock;	/* of the last record logged */
	uint64_t		 unsucc;	/* tests not logged yet */
	/* The logger. */
	struct ft_logc		*lc;
	int			 opened;
	uint64_t		 base;		/* seqs it held at open */
	uint64_t		 last;		/* seqs handed to the client */
	uint64_t		 nrec;		/* new determinants recorded */
	uint64_t		 need;		/* sends wait for these */
	struct ft_det		*q;		/* recorded, not handed over */
	size_t			 qfirst, qn, qcap;
	int			 lerr;		/* an error is reported */
	/* Replay. */
	int			 replay;
	uint32_t		 fetch_id;
	struct ft_det		*rsync;		/* other outcomes, in order */
	size_t			 rsfirst, rsn, rscap;
	struct vany		*rany;		/* ANY_SOURCE, sorted by site */
	size_t			 nany, capany, anyleft;
	uint64_t		*rdel;		/* deliveries: hash set */
	size_t			 rdcap, rdn, rdleft;
	struct ft_det		*pre;		/* deliveries while fetching */
	size_t			 npre, cappre;
	uint64_t		 any_site;
	struct vwait		*wait;
	size_t			 nwait, capwait;
	int			 started;	/* RESTARTs sent */
	/* Sender log. */
	struct chunk		*chunks;	/* the newest first */
	struct vpeer		*peers;
	uint64_t		 mem, mem_max;
	int			 spill_fd, mem_fd;
	uint64_t		 spill_off, mem_off;
	const char		*spill_dir;
	/* The message the send hook holds: a progress pass it runs must
	 * not send it from the log (own_dst UINT32_MAX: none). */
	uint32_t		 own_dst;
	uint64_t		 own_seq;
	uint64_t		 oldest;	/* now_ns of the first unsent */
	uint64_t		 flushed;	/* seqs given to ft_logc_flush */
	int			 told;		/* FT_NOTE_REPLAYED is sent */
	/* Images (issue 15). */
	uint64_t		 self_sent, self_del;	/* to ourselves */
	uint64_t		 dfrom;		/* determinants the image had */
	uint64_t		 img_epoch;	/* of the image being saved */
	struct imgpos		*img;		/* saved, oldest first */
	size_t			 nimg, capimg;
	struct chunk		*spare;		/* emptied chunks */
	struct extents		 memx, spillx;	/* free extents */
	uint64_t		 bytes, peak, dropped;	/* the log's */
	uint64_t		 sent, recvd;	/* payload bytes, others */
	uint64_t		 stale;		/* of dead incarnations */
	/*
	 * The sender-log file (vlogbw, FT_EXT_VLOG_LOGFILE): payloads of
	 * log_min bytes and more, written once; images name their
	 * extents.  log_live: its bytes in the log now.
	 */
	int			 log_fd;
	uint64_t		 log_off, log_min, log_bytes, log_live;
	struct extents		 logx;		/* free extents */
	struct qext		*quar;		/* freed, images may name */
	size_t			 nquar, capquar;
	/* The newest payload written there, and at the last save
	 * (tests: FT_CKPT_TEST_DIE=logcorrupt). */
	uint64_t		 wr_off, wr_len, cut_off, cut_len;
};

/* vlog_log.c: a payload stored, read back, freed. */
struct lent	*ft__vlog_log_add(struct vlog *, const struct ft_msg *,
		    const struct lent *);
int		 ft__vlog_spill_read(struct vlog *, const struct lent *,
		    uint8_t *);
void		 ft__vlog_payload_free(struct vlog *, struct lent *);
/* vlog_log.c: the sender-log file. */
int		 ft__vlog_logfile_set(struct vlog *, struct ft_ext *);
void		 ft__vlog_quar_release(struct vlog *, uint64_t);
int		 ft__vlog_extent_check(struct vlog *, uint64_t, uint64_t,
		    uint32_t, uint64_t);

#endif /* FT_PROTO_VLOG_IMPL_H */
