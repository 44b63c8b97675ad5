/* SPDX-License-Identifier: ISC */
/*
 * The store layer: durable files.  For now the event log of message
 * logging (ft-log(5)): per job and per rank, append-only segment files
 * of length-prefixed records with a CRC32C each; the logger that holds
 * them (ftlog serve) and the client a rank logs its determinants
 * through; and the atomic file operations they rest on.
 *
 * Layout of a log directory DIR:
 *	DIR/ftlog.lock				held by the running logger
 *	DIR/job-JJJJJJJJJJJJJJJJ/		the job id, 16 hex digits
 *	DIR/job-J.../rank-R/			the rank, decimal
 *	DIR/job-J.../rank-R/SSSSSSSSSSSSSSSSSSSS.ftl	a segment whose
 *		first determinant has seq S (20 decimal digits)
 *
 * A segment: a 48-byte header (FT_SEG_*), then records.  A record is
 * u32 len, u32 crc32c (of the 4 length bytes and the payload), then
 * len bytes of payload: a determinant (wire.h, FT_DET_TYPE) or a time
 * stamp (FT_SEG_TIME: u8 type, u8 0, u16 0, u64 realtime ns).  All
 * big-endian.  Determinants follow each other by seq, with no gap,
 * within a segment and from one segment to the next.
 */
#ifndef FT_STORE_H
#define FT_STORE_H

#include <sys/types.h>

#include <signal.h>

#include "../net/net.h"

/* Segment header. */
#define FT_SEG_MAGIC		0x46544c47u	/* "FTLG" */
#define FT_SEG_VERSION		2	/* 2: determinants may carry cseq */
#define FT_SEG_VERSION_MIN	1
#define FT_SEG_HDRLEN		48
#define FT_SEG_RECHDR		8	/* u32 len, u32 crc */
#define FT_SEG_TIME		2	/* record type of a time stamp */
#define FT_SEG_TIMELEN		12
#define FT_SEG_REC_MIN		FT_SEG_TIMELEN
#define FT_SEG_REC_MAX		FT_DET_MAXLEN
#define FT_SEG_SIZE_MIN		4096u
#define FT_SEG_SIZE_DEFAULT	(16u << 20)
#define FT_SEG_SIZE_MAX		(1u << 30)
#define FT_LOG_WHY		512	/* room for a message naming a file */

struct ft_seg_hdr {
	uint16_t	version;
	uint64_t	job;
	uint32_t	rank;
	uint64_t	first_seq;	/* of its first determinant */
	uint64_t	created_ns;	/* CLOCK_REALTIME */
};

/*
 * Header codec: magic, version, header length, job, rank, flags (0),
 * first seq, creation time, 4 bytes 0, crc32c of the 44 bytes before
 * it.  Decode returns 0, or -1 with errno: EMSGSIZE (fewer than
 * FT_SEG_HDRLEN bytes: a truncated header), EPROTO (not a segment: bad
 * magic, length or flags), ENOTSUP (a version this build does not
 * read), EBADMSG (bad checksum).
 */
void	 ft_seg_hdr_encode(uint8_t p[FT_SEG_HDRLEN], const struct ft_seg_hdr *);
int	 ft_seg_hdr_decode(const uint8_t *, size_t, struct ft_seg_hdr *);

/* One record, decoded. */
struct ft_seg_rec {
	int		 type;		/* FT_DET_TYPE or FT_SEG_TIME */
	struct ft_det	 det;
	uint64_t	 time_ns;
};

/* Append one framed record to b (errors are sticky in b->err). */
void	 ft_seg_put_det(struct ft_wbuf *, const struct ft_det *);
void	 ft_seg_put_time(struct ft_wbuf *, uint64_t realtime_ns);
/*
 * Decode the record at p (len bytes there): 1 with *rec and *used (its
 * bytes); 0 if len is short of the whole record; -1 if it is bad, with
 * errno EPROTO (a length out of bounds, a malformed payload) or EBADMSG
 * (bad checksum).
 */
int	 ft_seg_rec_get(const uint8_t *, size_t, struct ft_seg_rec *,
	    size_t *used);
/*
 * After a bad record at the start of p (len bytes up to the end of the
 * file): is it a torn tail, a write that did not reach the disk, rather
 * than a corrupt record followed by good ones?  1 if no good record
 * starts anywhere in p after its first byte, else 0 with *good at the
 * offset of the first one.
 */
int	 ft_seg_tail_torn(const uint8_t *, size_t, size_t *good);

/*
 * Read a segment file record by record, checking every checksum and
 * the seq of every determinant (from the header's first seq on, each
 * the next), in bounded memory.  ft_seg_reader_open reads the header
 * of fd (path names it in messages); limit is how much of the file to
 * read (0: all of it).  last says whether the segment is its rank's
 * last: only there may a bad record be a torn tail, which ends the
 * reading as the end of the file does and sets torn to the bytes from
 * it to the end (torn_off is where it starts).  Elsewhere, and for a
 * bad record followed by good ones, the reader refuses.
 *
 * Both return -1 with errno and a message naming path and the offset in
 * why: EMSGSIZE, EPROTO, ENOTSUP, EBADMSG (the header, as
 * ft_seg_hdr_decode), EILSEQ (a corrupt record, or a seq out of order),
 * or a read error.  ft_seg_reader_next returns 1 with a record, 0 at the
 * end.  The reader does not own fd.
 */
struct ft_seg_reader {
	int		 fd;
	char		 path[FT_LOG_WHY / 2];
	int		 last;
	uint64_t	 size;		/* bytes to read */
	struct ft_seg_hdr hdr;
	uint64_t	 off;		/* file offset of the next record */
	uint64_t	 next_seq;
	uint64_t	 torn, torn_off;
	uint8_t		*buf;		/* file bytes [bpos, bpos + blen) */
	size_t		 blen, bcap;
	uint64_t	 bpos;
	char		 why[FT_LOG_WHY];
};

int	 ft_seg_reader_open(struct ft_seg_reader *, int fd, const char *path,
	    int last, uint64_t limit);
int	 ft_seg_reader_next(struct ft_seg_reader *, struct ft_seg_rec *);
void	 ft_seg_reader_release(struct ft_seg_reader *);

/*
 * Atomic file operations.  ft_store_fsync_dir fsyncs a directory (so
 * that a create or rename in it survives a crash).  ft_store_mkdir
 * makes directory name under dirfd (mode 0700) and fsyncs dirfd, or
 * finds it there: 0, or -1 with errno.  ft_store_create writes len
 * bytes to name.tmp in dirfd, fsyncs it, renames it to name and fsyncs
 * dirfd, and returns an fd of name open for appending (O_RDWR), or -1
 * with errno (the temporary file is gone then).
 *
 * ft_store_create is ft_store_tmp and ft_store_commit, for a file
 * written in one piece; a file written as a stream (a checkpoint
 * image) uses them itself.  ft_store_tmp opens name.tmp in dirfd
 * (removing a leftover one first), O_EXCL, mode 0600, and puts its name
 * in tmp: the fd, or -1 with errno.  ft_store_commit fsyncs fd, renames
 * tmp to name and fsyncs dirfd: 0, or -1 with errno, the file being
 * gone then under either name (fd stays the caller's to close).
 */
int	 ft_store_tmp(int dirfd, const char *name, char *tmp, size_t tmpsize);
int	 ft_store_commit(int dirfd, int fd, const char *tmp, const char *name);
int	 ft_store_fsync_dir(int dirfd);
int	 ft_store_mkdir(int dirfd, const char *name);
int	 ft_store_create(int dirfd, const char *name, const void *, size_t);
/*
 * The entries "PREFIX<number>SUFFIX" of directory path, numbers (hex
 * or decimal, at most max) parsed and sorted into *ids (heap, the
 * caller frees): 0, or -1 with errno.
 */
int	 ft__store_list_ids(const char *path, const char *prefix,
	    const char *suffix, int hex, uint64_t max, uint64_t **ids,
	    size_t *n);
/*
 * Take a server's lock on its directory: name under dirfd (dir names
 * it), flock'ed exclusively without waiting.  Its fd, or -1 with errno
 * (EBUSY: another holds it) and why ("WHAT 'dir' is in use by another
 * WHO").
 */
int	 ft__store_lock(int dirfd, const char *dir, const char *name,
	    const char *what, const char *who, char *why, size_t size);
/* write(2) all of it, restarting after EINTR: 0, or -1 with errno. */
int	 ft_store_write(int fd, const void *, size_t);

/*
 * A rank's log on disk, as the logger holds it: segments, the one open
 * for appending, the records appended but not written yet.
 *
 * ft_rlog_open finds job/rank's log under the directory dirfd (named
 * dirname in messages): it
 * checks every segment (header, every record, seq continuity), cuts a
 * torn tail from the last one and fsyncs it.  A rank without a log is
 * empty; its directories are made at its first write.  Returns the log
 * (ft_rlog_free), or NULL with errno and why: EILSEQ, EPROTO, ENOTSUP,
 * EBADMSG, EMSGSIZE for a corrupt or foreign segment (why names it and
 * the offset), or a system error.
 *
 * ft_rlog_add takes n determinants, which must carry the seqs after
 * the last one it holds: 0, or -1 with EILSEQ (*expect says the seq it
 * wanted) or ENOMEM.  They wait in memory until
 * ft_rlog_write writes them (rolling over to a new segment once the
 * current one reaches segsize) and ft_rlog_sync makes them durable
 * (fdatasync, and a check that the file is still linked: a vanished
 * directory is ENOENT).  Both return 0 or -1 with errno and why; on a
 * failed write the file is cut back to its last whole record, and what
 * was not written is dropped (last falls back to what the file holds).  A write of nothing pending, a sync of nothing written, do
 * nothing.  time_ns is written as a time stamp when a second has
 * passed since the last one.
 */
struct ft_rlog {
	uint64_t	 job;
	uint32_t	 rank;
	int		 dirfd;		/* the log directory, not owned */
	int		 rfd;		/* DIR/job-J/rank-R, or -1 */
	int		 fd;		/* the segment appended to, or -1 */
	char		 name[32];	/* its file name */
	uint64_t	 size;		/* its bytes written */
	uint64_t	 segsize;
	uint64_t	 last_seq, last_clock;		/* added */
	uint64_t	 written_seq, written_clock;	/* written */
	uint64_t	 durable_seq, durable_clock;	/* synced */
	uint64_t	 last_stamp;	/* time of the last time stamp */
	uint64_t	 count;		/* determinants held */
	uint64_t	*segs;		/* first seqs of the segments */
	size_t		 nsegs, capsegs;
	struct ft_wbuf	 pend;		/* framed records not written */
	uint64_t	 pend_seq, pend_clock;
	int		 dirty;		/* written, not synced */
	int		 broken;	/* a failed write could not be undone */
	int		 old_seg;	/* fd's segment is of an older version */
	char		 dirname[FT_LOG_WHY / 2];	/* for messages */
	void		*user;		/* the logger's */
};

struct ft_rlog *ft_rlog_open(int dirfd, const char *dirname, uint64_t job,
	    uint32_t rank, uint64_t segsize, char *why, size_t whysize);
void	 ft_rlog_free(struct ft_rlog *);
int	 ft_rlog_add(struct ft_rlog *, const struct ft_det *, uint32_t n,
	    uint64_t time_ns, uint64_t *expect);
int	 ft_rlog_write(struct ft_rlog *, char *why, size_t whysize);
int	 ft_rlog_sync(struct ft_rlog *, char *why, size_t whysize);
/* Path of segment i of rl relative to the log directory, in buf. */
void	 ft_rlog_segpath(const struct ft_rlog *, size_t i, char *buf,
	    size_t size);

/*
 * Walk a log directory for ftlog dump and stat (read only: a torn
 * tail is reported, never cut).  For each rank of job (every job if
 * alljobs) and rank (every rank if allranks), in order of job and
 * rank: check its whole log, then call det(arg, job, rank, d) for each
 * determinant (if det is not NULL), then rank_done(arg, &sum).
 * Returns 0, or -1 with errno and why naming the file and offset of the
 * first corrupt or foreign segment, or the directory that could not be
 * read; nothing of a rank that fails its check is passed to det.
 */
struct ft_rank_sum {
	uint64_t	job;
	uint32_t	rank;
	uint64_t	count;		/* determinants */
	uint64_t	first_seq, last_seq;
	uint64_t	bytes;		/* on disk, headers included */
	uint32_t	segments;
	uint64_t	first_ns, last_ns;	/* time stamps, 0: none */
	uint64_t	torn;		/* bytes of a torn tail */
};

int	 ft_logdir_walk(const char *dir, int alljobs, uint64_t job,
	    int allranks, uint32_t rank,
	    int (*det)(void *, uint64_t, uint32_t, const struct ft_det *),
	    void (*rank_done)(void *, const struct ft_rank_sum *), void *arg,
	    char *why, size_t whysize);
/*
 * The same, also calling stamp(arg, job, rank, time_ns, next_seq) for
 * each time stamp of the logger (replay2: ftreplay inspect --events),
 * next_seq the seq of the determinant that follows it.
 */
int	 ft_logdir_walk_stamps(const char *dir, int alljobs, uint64_t job,
	    int allranks, uint32_t rank,
	    int (*det)(void *, uint64_t, uint32_t, const struct ft_det *),
	    void (*stamp)(void *, uint64_t, uint32_t, uint64_t, uint64_t),
	    void (*rank_done)(void *, const struct ft_rank_sum *), void *arg,
	    char *why, size_t whysize);

/*
 * Text forms of a determinant (ftlog(1)), one line with its newline,
 * key=value or JSON.  Return the length, or -1 if size is too small.
 */
#define FT_DET_TEXT_MAX	512
int	 ft_det_format(char *buf, size_t size, uint64_t job, uint32_t rank,
	    const struct ft_det *, int json);
/*
 * A job id as the text forms write it and the tools take it (--job):
 * 1 to 16 hex digits and nothing else.  0, or -1 with EINVAL.
 */
int	 ft_log_job_parse(const char *, uint64_t *);
/* "deliver", "anysrc", "probe", "flag", "index", "count", "clock". */
const char *ft_det_kind_name(uint32_t kind);

/*
 * The logger (ftlog serve).  It serves lfd (a listener, owned by the
 * caller) with the key until *stop, logging under dir, which must
 * exist; it takes dir's lock first (EBUSY: another logger holds it).
 * Returns 0, or -1 with errno and why.
 */
enum ft_log_sync {
	FT_LOG_SYNC_ALWAYS = 1,	/* fdatasync before each APPEND's ACK */
	FT_LOG_SYNC_BATCH,	/* one fdatasync a group, ACKs after it */
	FT_LOG_SYNC_MEMORY,	/* ACK once written, fdatasync every second */
};

struct ft_logd_cfg {
	int			 lfd;
	const uint8_t		*key;
	const char		*dir;
	enum ft_log_sync	 sync;
	uint64_t		 segsize;
	size_t			 max_conns;
	volatile sig_atomic_t	*stop;
	/* Called once the lock is held, before serving (may be NULL). */
	void			(*ready)(void *);
	void			*ready_arg;
};

int	 ft_logd_serve(const struct ft_logd_cfg *, char *why, size_t whysize);
/* "always", "batch", "memory" and back: 0, or -1 with EINVAL. */
int	 ft_log_sync_parse(const char *, enum ft_log_sync *);
const char *ft_log_sync_name(enum ft_log_sync);

/*
 * The client a rank logs through (and tools; fttest log).  It never
 * blocks unless said so: the caller polls ft_logc_pollfd's fd for
 * ft_logc_events, no longer than ft_logc_deadline, and calls
 * ft_logc_progress when it is ready or the deadline passed.
 *
 * ft_logc_new connects to addr with key (not copied: it must outlive
 * the client) as process self of job; the connection is made, and made
 * again after it is lost (backoff 10 ms doubling to 1 s), by progress.
 * Returns NULL with errno (EINVAL: a bad address, ENOMEM).
 *
 * A rank is opened first: ft_logc_open asks the logger what it holds
 * of it; acked(arg, rank, seq, clock) then gives the last seq it holds
 * (0 for a new log).  Until then ft_logc_append fails with EAGAIN.
 * Appends take the next seqs after it: ft_logc_append copies d (d->seq
 * must be the last appended + 1, else EINVAL) into the rank's batch;
 * ft_logc_flush sends every batch now, pipelined behind the ones in
 * flight (call it before a send that needs them durable);
 * ft_logc_progress sends a batch when its rank has none in flight, or
 * when it is full (FT_LOG_BATCH_MAX).  The logger acknowledges in
 * groups: acked(arg, rank, seq, clock) says that every determinant up
 * to seq is durable (as the logger's --sync mode says), and
 * ft_logc_durable returns that seq.  Determinants not acknowledged are
 * kept and sent again after a reconnection, from the logger's own
 * account of what it holds.
 *
 * error(arg, rank, reqid, code, text) reports an ERROR (enum
 * ft_log_err; text from the logger, made printable) or the loss of the
 * connection during a fetch (code 0); after an error of an append the
 * client asks the logger again (after the backoff) and resends.  A
 * logger that acknowledged a seq and then holds less (one that lost
 * what it held in memory) is reported as FT_LOG_EGONE, and the client
 * resends what it still has.
 *
 * ft_logc_fetch asks for rank's determinants of seq >= from_seq and
 * clock >= from_clock: records(arg, rank, reqid, d, n, last) gives them
 * in chunks of at most FT_LOG_BATCH_MAX, in seq order, the last call
 * with last set; d is valid during the call.  Returns the reqid (>= 1),
 * or 0 with errno (ENOTCONN: not connected now).
 *
 * ft_logc_progress returns 0, or -1 with errno on a failure that the
 * client cannot absorb (ENOMEM); a lost connection is absorbed.
 */
struct ft_logc_cb {
	void	(*acked)(void *, uint32_t rank, uint64_t seq, uint64_t clock);
	void	(*records)(void *, uint32_t rank, uint32_t reqid,
		    const struct ft_det *, uint32_t n, int last);
	void	(*error)(void *, uint32_t rank, uint32_t reqid, uint32_t code,
		    const char *text);
};

struct ft_logc;

struct ft_logc *ft_logc_new(const char *addr, const uint8_t *key,
	    uint64_t job, uint32_t self, const struct ft_logc_cb *, void *arg);
void	 ft_logc_free(struct ft_logc *);
int	 ft_logc_open(struct ft_logc *, uint32_t rank);
/*
 * Issue 13: the incarnation of the process the client speaks for (0,
 * the default, then 1, 2... for each restart), sent in every QUERY and
 * APPEND; set it before ft_logc_open.  Once a newer incarnation of a
 * rank has spoken, the logger refuses an older one's with ERROR
 * FT_LOG_ESTALE, after which the client gives that rank up (the error
 * callback says so).
 */
void	 ft_logc_incarnation(struct ft_logc *, uint32_t inc);
int	 ft_logc_append(struct ft_logc *, uint32_t rank, const struct ft_det *);
int	 ft_logc_flush(struct ft_logc *);
uint64_t ft_logc_durable(const struct ft_logc *, uint32_t rank);
uint32_t ft_logc_fetch(struct ft_logc *, uint32_t rank, uint64_t from_seq,
	    uint64_t from_clock);
int	 ft_logc_fd(const struct ft_logc *);	/* -1 while down */
short	 ft_logc_events(const struct ft_logc *);
uint64_t ft_logc_deadline(const struct ft_logc *);	/* ft_now_ns, or 0 */
int	 ft_logc_progress(struct ft_logc *);
int	 ft_logc_connected(const struct ft_logc *);
/*
 * Issue 13 (latency): 1 when the client waits for nothing from the
 * logger (connected, every determinant sent is acknowledged, no
 * question or fetch out, nothing to write or read buffered).  Its fd
 * need not be polled then: what it sends next goes with a flush or an
 * append, and a logger that died meanwhile is seen at that write (or
 * at the poll that waits for its answer), and everything not
 * acknowledged goes again to its successor.
 */
int	 ft_logc_idle(const struct ft_logc *);
/*
 * Blocking: poll and progress until cond(arg) holds, or the deadline
 * (ft_now_ns): 0, or -1 with ETIMEDOUT or progress's errno.  For tools
 * and tests, and for a rank that has nothing else to do.
 */
int	 ft_logc_wait(struct ft_logc *, int (*cond)(void *), void *arg,
	    uint64_t deadline);

/*
 * Checkpoint images (ft-ckpt(5)).  An image holds one rank's protected
 * regions and its protocol's state, as one zstd frame (with zstd's
 * content checksum and content size) behind a header that has a
 * CRC32C of its own:
 *
 *	u32 magic "FTCK", u16 version, u16 flags (0), u32 header length,
 *	u64 job, u32 rank, u32 nranks, u64 epoch, u64 created (realtime
 *	ns), 16 bytes protocol name (NUL-padded), u32 nregions, u64 raw
 *	size, u64 stored size, u64 protocol state size, u8 zstd level,
 *	3 bytes 0, u32 crc32c of the stored bytes; then nregions times
 *	(u32 id, u64 size); then the crc32c of the header bytes before
 *	it.
 *
 * The stored bytes follow the header to the end of the file, exactly
 * (their own CRC catches what zstd would not notice: a bit it ignores);
 * decompressed, they are the regions' bytes in the order of the table,
 * then the protocol state (opaque: what the protocol gives to save()
 * and gets back in restore()).  Big-endian throughout.
 *
 * A store directory DIR (local, or served by ftckpt serve):
 *	DIR/ftckpt.lock				held by a running server
 *	DIR/job-JJJJJJJJJJJJJJJJ/		the job id, 16 hex digits
 *	DIR/job-J.../rank-R/			the rank, decimal
 *	DIR/job-J.../rank-R/EEEEEEEEEEEEEEEEEEEE.ftc	the image of epoch E
 *		(20 decimal digits)
 *	DIR/job-J.../rank-R/lease		held (flock) by a running job
 *	*.tmp					an image being written
 *
 * An image is complete once it has its name: it is renamed into place
 * after it was written and fsynced, and the directory is fsynced after
 * the rename, so a complete image is durable.  The newest complete
 * image of a rank is the one of the highest epoch there.  The restart
 * point of a job is the highest epoch of which every rank 0 to
 * nranks - 1 has a complete image in the store.
 */
#define FT_CKPT_MAGIC		0x4654434bu	/* "FTCK" */
#define FT_CKPT_VERSION		1
#define FT_CKPT_FIXED		96	/* header bytes before the table */
#define FT_CKPT_REGLEN		12	/* a region in the table */
#define FT_CKPT_REGIONS_MAX	4096u
#define FT_CKPT_PROTO_MAX	16	/* protocol name, NUL included */
#define FT_CKPT_RAW_MAX		(1ull << 40)	/* 1 TiB decompressed */
#define FT_CKPT_HDR_MAX		(FT_CKPT_FIXED + \
	FT_CKPT_REGIONS_MAX * FT_CKPT_REGLEN + 4)
#define FT_CKPT_LEVEL_DEFAULT	3
#define FT_CKPT_LEVEL_MAX	19
#define FT_CKPT_NAME_MAX	64	/* "job-J/rank-R/E.ftc", NUL incl. */

struct ft_ckpt_region {
	uint32_t	 id;
	uint64_t	 size;
};

struct ft_ckpt_hdr {
	uint16_t	 version;
	uint64_t	 job;
	uint32_t	 rank, nranks;
	uint64_t	 epoch;
	uint64_t	 created_ns;	/* CLOCK_REALTIME */
	char		 proto[FT_CKPT_PROTO_MAX];
	uint32_t	 nregions;
	uint64_t	 raw;		/* decompressed bytes */
	uint64_t	 stored;	/* compressed bytes after the header */
	uint64_t	 pstate;	/* protocol state bytes, within raw */
	uint8_t		 level;
	uint32_t	 stored_crc;
	uint32_t	 hdrlen;
	struct ft_ckpt_region reg[FT_CKPT_REGIONS_MAX];
};

/*
 * Header codec.  ft_ckpt_hdr_encode appends the header of h (its
 * hdrlen is set) to b.  ft_ckpt_hdr_decode reads one from the len bytes
 * at p: 0, or -1 with errno EMSGSIZE (len is short: *need says how many
 * bytes the header takes, once the fixed part is there, else
 * FT_CKPT_FIXED), EPROTO (not an image: magic, flags, a length or
 * count out of bounds, sizes that do not add up, a duplicate region),
 * ENOTSUP (a version this build does not read), EBADMSG (bad CRC).
 */
void	 ft_ckpt_hdr_encode(struct ft_wbuf *, struct ft_ckpt_hdr *);
int	 ft_ckpt_hdr_decode(const uint8_t *, size_t, struct ft_ckpt_hdr *,
	    size_t *need);

/* "job-%016x/rank-%u/%020u.ftc" and its two directories. */
int	 ft_ckpt_name(char *, size_t, uint64_t job, uint32_t rank,
	    uint64_t epoch);

/*
 * Write an image as name (a relative path, its directories made) under
 * dirfd: streamed through zstd into name.tmp, header written last,
 * fsynced, renamed, directory fsynced.  h gives job, rank, nranks,
 * epoch, proto, level, nregions and reg (their sizes); src[i] the bytes
 * of region i; pstate/h->pstate the protocol state.  Fills the rest of
 * h (created, raw, stored, hdrlen).  Returns 0, or -1 with errno and
 * why (naming the file); the temporary file is gone then.  Blocks on
 * the disk.
 */
int	 ft_ckpt_write(int dirfd, const char *name, struct ft_ckpt_hdr *h,
	    const void *const *src, const void *pstate, char *why,
	    size_t whysize);

/*
 * Read an image.  ft_ckpt_open reads and checks fd's header and that
 * the file holds exactly the stored bytes it announces (path names it
 * in messages).  ft_ckpt_read then gives the next len decompressed
 * bytes (into buf, or dropped if buf is NULL): regions in table order,
 * then the protocol state.  ft_ckpt_done checks that nothing is left
 * and the frame ended with a good checksum (after it reads what was
 * not read).  All return 0, or -1 with errno and why naming the file:
 * EMSGSIZE (truncated), EPROTO (foreign, malformed), ENOTSUP (future
 * version), EBADMSG (corrupt), or a read error.  A caller that must not
 * act on half an image runs ft_ckpt_verify first.  The reader does not
 * own fd; ft_ckpt_close frees the rest.
 */
struct ft_ckpt_reader {
	int		 fd;
	struct ft_ckpt_hdr *h;		/* heap, valid until close */
	void		*zd;		/* ZSTD_DCtx */
	uint8_t		*in;		/* compressed input buffer */
	size_t		 inlen, inpos;
	uint64_t	 inleft;	/* stored bytes not yet read */
	uint64_t	 out;		/* decompressed bytes given */
	uint32_t	 crc;		/* of the stored bytes read */
	int		 ended;		/* the frame is complete */
	char		 path[FT_LOG_WHY / 2];
	char		 why[FT_LOG_WHY];
};

int	 ft_ckpt_open(struct ft_ckpt_reader *, int fd, const char *path);
int	 ft_ckpt_read(struct ft_ckpt_reader *, void *buf, uint64_t len);
int	 ft_ckpt_done(struct ft_ckpt_reader *);
void	 ft_ckpt_close(struct ft_ckpt_reader *);
/*
 * Check a whole image (at path under dirfd, AT_FDCWD for a plain
 * path): 0 with its header in *h (if not NULL), or -1 with errno and
 * why as ft_ckpt_reader.
 */
int	 ft_ckpt_verify(int dirfd, const char *path, struct ft_ckpt_hdr *h,
	    char *why, size_t whysize);
/* Same on bytes in memory (the fuzz target, the unit tests). */
int	 ft_ckpt_verify_mem(const uint8_t *, size_t, char *why,
	    size_t whysize);

/*
 * A store directory.  ft_ckpt_scan lists the images of job (every job
 * if alljobs) and rank (every rank if allranks) under dir, sorted by
 * job, rank and epoch, each with what its header says (state
 * FT_CKPT_OK) or FT_CKPT_BAD when the reader refuses its header or
 * size (ftckpt verify decompresses; scan does not): *ents is heap, the
 * caller frees it.  0, or -1 with errno and why.
 *
 * ft_ckpt_restart_point: of the entries of a scan, the restart point
 * of job (the highest epoch that every rank has), or 0.
 *
 * ft_ckpt_rm removes one image and fsyncs its directory: 0, or -1
 * with errno and why (ENOENT: no such image).
 *
 * ft_ckpt_prune removes the images of job (every job if alljobs) that
 * none of these rules keeps: the newest complete image of each rank;
 * every image of the job's restart point; for a rank whose lease a
 * running job holds, every image of an epoch at or above its pin (all
 * of them when it has none); with keep, the keep newest of the rank;
 * with older_ns, those created less than older_ns before now_ns
 * (CLOCK_REALTIME).  With dryrun it removes nothing.  *ents gives
 * every image considered, with FT_CKPT_KEPT, FT_CKPT_REMOVED or
 * FT_CKPT_WOULD.  It holds each rank's lease exclusively while it
 * removes, without waiting.  0, or -1 with errno and why.
 *
 * ft_ckpt_lease takes rank's lease (fd -1: made if need be, opened and
 * locked shared, waiting for a prune at work on it) and writes pin in
 * it: the fd, which the caller keeps open as long as the job may
 * restart from the images, or -1 with errno and why.  With an fd, it
 * only writes the new pin.
 *
 * ft_ckpt_clean_tmp removes the temporary files of interrupted writes
 * under dir: for a server, which alone writes there, at its start.
 */
struct ft_ckpt_prune {
	int		 alljobs;
	uint64_t	 job;
	uint32_t	 keep;		/* 0: no limit */
	uint64_t	 older_ns;	/* 0: no limit */
	uint64_t	 now_ns;	/* CLOCK_REALTIME */
	int		 dryrun;
};

int	 ft_ckpt_scan(const char *dir, int alljobs, uint64_t job, int allranks,
	    uint32_t rank, struct ft_ckpt_ent **ents, size_t *n, char *why,
	    size_t whysize);
uint64_t ft_ckpt_restart_point(const struct ft_ckpt_ent *, size_t n,
	    uint64_t job);
int	 ft_ckpt_rm(const char *dir, uint64_t job, uint32_t rank,
	    uint64_t epoch, char *why, size_t whysize);
int	 ft_ckpt_prune(const char *dir, const struct ft_ckpt_prune *,
	    struct ft_ckpt_ent **ents, size_t *n, char *why, size_t whysize);
int	 ft_ckpt_lease(const char *dir, uint64_t job, uint32_t rank,
	    uint64_t pin, int fd, char *why, size_t whysize);
int	 ft_ckpt_clean_tmp(const char *dir);

/*
 * The job's garbage collection on the checkpoint server (ckptsrv2,
 * ckgc.c).  A rank that pushed its image of epoch `durable` (the
 * server acknowledged it) asks the server to drop what its retention
 * (FT_CKPT_KEEP) no longer keeps.  ft_ckpt_gc_decide marks the
 * entries e[0..n) of that one job and rank (sorted by epoch)
 * FT_CKPT_REMOVED or FT_CKPT_KEPT and returns how many go: nothing
 * at all unless the image of epoch durable is there and complete
 * (a GC that names an image the server lacks, after a restart on
 * another directory or a prune, decides nothing); then every image
 * at or above durable stays, and the keep newest complete ones at or
 * below it, and only images below the oldest of those go.  A stale or
 * reordered GC (an older durable) removes a subset of what a newer one
 * removes, and one repeated removes nothing more: lost, late or
 * duplicated GCs never remove the newest complete image nor the
 * keep - 1 before it.  keep 0 counts as 1.
 *
 * ft_ckpt_gc scans the rank's images under dir, decides, and removes
 * (an image already gone counts as removed): 0 with *removed, or -1
 * with errno and why.
 */
size_t	 ft_ckpt_gc_decide(struct ft_ckpt_ent *e, size_t n, uint64_t durable,
	    uint32_t keep);
int	 ft_ckpt_gc(const char *dir, uint64_t job, uint32_t rank,
	    uint64_t durable, uint32_t keep, size_t *removed, char *why,
	    size_t whysize);
/*
 * Copy the image read from sfd (spath names it) to name under dirfd:
 * to a temporary file, verified whole (and, with expect, of the same
 * job, rank and epoch), then committed.  0, or -1 with errno and why;
 * nothing is left under name then.
 */
int	 ft_ckpt_copy(int sfd, const char *spath, int dirfd, const char *name,
	    const struct ft_ckpt_hdr *expect, char *why, size_t whysize);
/* The directory of job/rank under dir, made if need be: its fd, or -1
 * with errno and why. */
int	 ft__ckpt_rankdir(const char *dir, uint64_t job, uint32_t rank,
	    char *why, size_t whysize);

/*
 * The checkpoint server (ftckpt serve).  It serves lfd (a listener,
 * owned by the caller) with the key until *stop, storing under dir,
 * which must exist; it takes dir's lock first (EBUSY: another server
 * holds it) and removes what interrupted uploads left.  Returns 0, or
 * -1 with errno and why.
 */
struct ft_ckptd_cfg {
	int			 lfd;
	const uint8_t		*key;
	const char		*dir;
	size_t			 max_conns;
	volatile sig_atomic_t	*stop;
	void			(*ready)(void *);	/* may be NULL */
	void			*ready_arg;
};

int	 ft_ckptd_serve(const struct ft_ckptd_cfg *, char *why, size_t whysize);

/*
 * The checkpoint server's client: blocking, one request at a time, each
 * wait bounded by timeout_ns.  All return 0, or -1 with errno and why
 * (naming the server and, from its answer, the file): ETIMEDOUT,
 * EACCES (wrong key), ECONNRESET, EPROTO (a malformed answer), and
 * from the server ENOENT (no such image), EBADMSG (a corrupt one),
 * ENOSPC, EINVAL, ENOMEM, EIO.
 *
 * ft_ckptc_open connects to addr and authenticates with key (not
 * copied; it must outlive the client).  ft_ckptc_put uploads the image
 * file fd as job/rank/epoch and returns once the server holds it
 * complete and durable.  ft_ckptc_get downloads job/rank/epoch (0: the
 * newest complete image) as name under dirfd, verified then committed
 * (the epoch in *got).  ft_ckptc_request sends LIST, VERIFY, PRUNE
 * (entries in *ents, heap, the caller frees them, even after a failed
 * VERIFY), RM or PIN (ents NULL).
 */
struct ft_ckptc {
	struct ft_conn	 c;
	int		 open;
	uint32_t	 reqid;
	uint64_t	 timeout_ns;
	char		 addr[FT_WIRE_ADDR_MAX];
	char		 why[FT_LOG_WHY];
	/* Tests (coordsrv): ft_ckptc_put sends this many bytes of the
	 * image at most, then fails (ECANCELED); 0: all. */
	uint64_t	 cut_after;
};

int	 ft_ckptc_open(struct ft_ckptc *, const char *addr, const uint8_t *key,
	    uint64_t timeout_ns);
void	 ft_ckptc_close(struct ft_ckptc *);
int	 ft_ckptc_put(struct ft_ckptc *, int fd, uint64_t job, uint32_t rank,
	    uint64_t epoch);
int	 ft_ckptc_get(struct ft_ckptc *, uint64_t job, uint32_t rank,
	    uint64_t epoch, int dirfd, const char *name, uint64_t *got);
int	 ft_ckptc_request(struct ft_ckptc *, const struct ft_msg_ckpt_req *,
	    struct ft_ckpt_ent **ents, size_t *n);

/*
 * Records of ftrun --record (ft-record(5), issue 16): what one process
 * of a job received, sent and decided, so that ftreplay run re-executes
 * it alone.  One file a rank, DIR/rank-R.ftr: a 52-byte header (magic
 * "FTRC", version, rank, size, replica, universe, job, protocol,
 * CRC32C), then
 * records as in a log segment (u32 len, u32 crc32c of the length bytes
 * and the payload, payload).  A payload starts with its type:
 *	MATCH	u32 ctx, u32 src (world), u32 csrc, u32 tag, u64 seq,
 *		u64 len: a receive matched a message, in matching order
 *	DATA	u32 src, u64 seq, u64 raw length, u8 zstd (0 or 1), bytes:
 *		the delivered payload of a message matched before
 *	SEND	u64 number, u32 ctx, u32 dst, u32 tag, u64 len, u32 crc32c
 *		of the blocks' (big-endian), u32 block size, u32 blocks (0
 *		to 64), u32 crc32c a block
 *	ND	u32 kind, u64 v[3]: a settled nondeterministic outcome
 *	FAIL	u32 processes dead: a view that reported failures
 *	END	u64 sends, u64 matches, u64 outcomes: the process finished
 * A record cut short at the end of the file (a torn tail) is cut; a
 * bad checksum or a malformed record is refused, naming the offset.
 */
#define FT_REC_MAGIC		0x46545243u	/* "FTRC" */
#define FT_REC_VERSION		1
#define FT_REC_HDRLEN		52
#define FT_REC_PROTO_MAX	16
#define FT_REC_RECHDR		8
#define FT_REC_MAX		((256u << 20) + 64)	/* largest payload */
#define FT_REC_DATA_MAX		(256u << 20)	/* largest message kept */
#define FT_REC_BLOCKS		64
#define FT_REC_ZMIN		64	/* smaller payloads are not compressed */

enum ft_rec_type {
	FT_REC_MATCH = 1,
	FT_REC_DATA,
	FT_REC_SEND,
	FT_REC_ND,
	FT_REC_FAIL,
	FT_REC_END,
};

struct ft_rec_hdr {
	uint32_t	 version, rank, size, replica;
	uint32_t	 universe;	/* MPI_UNIVERSE_SIZE of the job */
	uint64_t	 job;
	char		 proto[FT_REC_PROTO_MAX + 1];
};

/* A message received, in matching order, with its payload. */
struct ft_rec_match {
	uint32_t	 ctx, src, csrc;
	int32_t		 tag;
	uint64_t	 seq, len;
	uint8_t		*data;		/* NULL until its DATA record */
	size_t		 dlen;
	int		 has_data;
	/* replay2: a payload left in the file (ft_rec_open): zlen bytes
	 * at offset off, zstd when z; read by ft_rec_payload. */
	uint64_t	 off;
	size_t		 zlen;
	int		 z;
};

/* The digest of a message sent. */
struct ft_rec_send {
	uint64_t	 n;
	uint32_t	 ctx, dst;
	int32_t		 tag;
	uint64_t	 len;
	uint32_t	 crc, bsize, nblk;
	uint32_t	 blk[FT_REC_BLOCKS];
};

struct ft_rec_nd {
	uint32_t	 kind;
	uint64_t	 v[3];
};

/* A record file in memory (ft_rec_load), or its index (ft_rec_open). */
struct ft_rec {
	struct ft_rec_hdr	 h;
	struct ft_rec_match	*m;
	struct ft_rec_send	*s;
	struct ft_rec_nd	*nd;
	size_t			 nm, ns, nnd, capm, caps, capnd;
	uint32_t		 nfail;		/* FAIL records */
	int			 ended;		/* an END record */
	uint64_t		 torn;		/* bytes cut at the end */
	uint64_t		 bytes;		/* payload bytes, raw */
	/* replay2: ft_rec_open's: payloads stay in the file, open on fd. */
	int			 lazy, fd;
};

/* The file of rank in dir: "DIR/rank-R.ftr".  0, or -1 ENAMETOOLONG. */
int	 ft_rec_path(char *buf, size_t size, const char *dir, uint32_t rank);

/*
 * The writer.  ft_rec_writer_open creates (truncates) the file of h's
 * rank in dir (made, mode 0700, if missing) and writes the header; the ft_rec_w* calls append to a
 * buffer that ft_rec_writer_flush writes out (they flush by themselves
 * past 256 KiB).  A write error is kept in w->err and every later call
 * does nothing; ft_rec_writer_close writes END when ended, flushes and
 * closes, returning 0 or -1 with the first error.  0, or -1 with errno.
 */
struct ft_rec_writer {
	int		 fd;
	int		 err;
	struct ft_wbuf	 b;
	void		*zctx;		/* zstd's, made on first use */
	uint64_t	 nsend, nmatch, nnd;
};

int	 ft_rec_writer_open(struct ft_rec_writer *, const char *dir,
	    const struct ft_rec_hdr *);
void	 ft_rec_wmatch(struct ft_rec_writer *, uint32_t ctx, uint32_t src,
	    uint32_t csrc, int32_t tag, uint64_t seq, uint64_t len);
void	 ft_rec_wdata(struct ft_rec_writer *, uint32_t src, uint64_t seq,
	    const void *buf, size_t len);
void	 ft_rec_wsend(struct ft_rec_writer *, uint32_t ctx, uint32_t dst,
	    int32_t tag, const void *buf, size_t len);
void	 ft_rec_wnd(struct ft_rec_writer *, uint32_t kind, const uint64_t v[3]);
void	 ft_rec_wfail(struct ft_rec_writer *, uint32_t ndead);
int	 ft_rec_writer_flush(struct ft_rec_writer *);
int	 ft_rec_writer_close(struct ft_rec_writer *, int ended);

/* The digest of a send (SEND's fields from number n on). */
void	 ft_rec_digest(struct ft_rec_send *, uint64_t n, uint32_t ctx,
	    uint32_t dst, int32_t tag, const void *buf, size_t len);
/*
 * Compare a send with the recorded one: 0 when alike, else 1 with what
 * differs first described in what (the communicator, destination, tag,
 * size, or the bytes of the first block that differs).
 */
int	 ft_rec_diff(const struct ft_rec_send *rec, const struct ft_rec_send *now,
	    char *what, size_t size);

/*
 * Read a whole record file (ft_rec_load) or bytes in memory named name
 * (ft_rec_load_mem).  Returns 0, or -1 with errno and why saying what
 * is wrong, naming name and the offset: EPROTO (not a record, or a
 * malformed one), ENOTSUP (another version), EBADMSG (bad checksum),
 * EMSGSIZE (too large), ENOMEM, or the error of open or read.  A torn
 * tail is cut (r->torn).  ft_rec_free releases.
 */
int	 ft_rec_load(struct ft_rec *, const char *path, char *why, size_t size);
int	 ft_rec_load_mem(struct ft_rec *, const uint8_t *p, size_t len,
	    const char *name, char *why, size_t size);
void	 ft_rec_free(struct ft_rec *);
/*
 * Read a record file as ft_rec_load does, checking every record, but
 * in bounded memory: the payloads stay in the file (kept open) and
 * ft_rec_payload reads one when it is needed.  The index holds about
 * 100 bytes a message received, 300 a send and 32 an outcome; reading
 * takes a window of FT_REC_WINDOW bytes.  Same returns as ft_rec_load.
 */
#define FT_REC_WINDOW		(1u << 20)
int	 ft_rec_open(struct ft_rec *, const char *path, char *why, size_t size);
/*
 * The payload of message i (has_data) into dst, r->m[i].dlen bytes:
 * read from the file and decompressed when ft_rec_open left it there.
 * 0, or -1 with errno (EBADMSG: a corrupt compressed payload, EIO: the
 * file changed).
 */
int	 ft_rec_payload(const struct ft_rec *, size_t i, void *dst);

/*
 * Rank 0's standard input under ftrun --record (replay2): what ftrun
 * read and forwarded, in DIR/stdin.zst, a zstd frame for each read (so
 * that a file cut short still gives what came before it; zstd -dc reads
 * it).  ft_rec_stdin_open creates the file (fd -1 and a warning when it
 * cannot); add appends, close ends it.  A write error stops the record
 * with a warning, once; the job goes on.
 */
#define FT_REC_STDIN		"stdin.zst"
struct ft_rec_stdin {
	int		 fd;
	void		*zctx;
	struct ft_wbuf	 b;
	uint64_t	 bytes;
};

int	 ft_rec_stdin_open(struct ft_rec_stdin *, const char *dir);
void	 ft_rec_stdin_add(struct ft_rec_stdin *, const void *, size_t);
void	 ft_rec_stdin_close(struct ft_rec_stdin *);
/*
 * Decompress the zstd frames read from fd in into fd out, in bounded
 * memory.  Returns the bytes written, or -1 with errno: EBADMSG for a
 * corrupt stream, EPIPE when out closed, or the error of read or
 * write; *cut is set when the input ends inside a frame (what came
 * before is written).
 */
int64_t	 ft__zstd_cat(int in, int out, int *cut);

/*
 * zstd in one call (image.c holds zstd.h): 0, or -1 with errno.  *ctx
 * is a compression context made on first use (NULL at first), for
 * ft__zstd_free.
 */
int	 ft__zstd_pack(struct ft_wbuf *out, void **ctx, const void *p,
	    size_t len, int level);
void	 ft__zstd_free(void *ctx);
int	 ft__zstd_unpack(const void *p, size_t len, void *dst, size_t dstlen);

#endif
