/* SPDX-License-Identifier: ISC */
/*
 * The replay layer: reading message logs offline (ftreplay(1)).  It
 * parses the text of ftlog dump (ftlog(1), key=value or JSON lines),
 * or walks a log directory (lib/store), into a scratch file of its own;
 * checks a job's log against the invariants of pessimistic message
 * logging; and sums it up per rank, as a message matrix and as an SVG
 * space-time diagram.
 *
 * Memory.  The determinants go to a scratch file (unlinked at once, in
 * the directory the caller names); what stays in memory is a few
 * buffers a rank, a bitmap of the clocks the log names (2 bits a clock
 * value, in 1 KiB pages made on demand, capped by max_mem) and the
 * aggregates of the diagram (capped: bins merge when they would
 * overflow).  So memory does not grow with the number of determinants
 * of a log whose clocks are dense, as clocks that tick at each send and
 * delivery are.
 *
 * Clock model (ft-log(5)): a rank's clock ticks at each send and each
 * delivery; a determinant carries the clock after the tick of its
 * delivery, a nondeterministic event the clock at the time (no tick),
 * and a delivery names its message by the sender's rank and the
 * sender's clock at the send (sclock).  With FT_REPLAY_SCLOCK_SEQ the
 * sclock is instead the message's number on its channel, from 0 (what
 * the vlog protocol's first version writes): the rules that read it as
 * a clock then use only what that number bounds.
 */
#ifndef FT_REPLAY_H
#define FT_REPLAY_H

#include <stdio.h>

#include "../store/store.h"

#define FT_REPLAY_LINE_MAX	1024	/* longest input line, newline incl. */
#define FT_REPLAY_WHY		512
#define FT_REPLAY_MEM_DEFAULT	(1ull << 30)
#define FT_REPLAY_INVOLVED	8	/* records a violation names */

/* One determinant, with where it was read. */
struct ft_rrec {
	uint64_t	 job;
	uint32_t	 rank;
	uint64_t	 line;		/* input line; 0 from a directory */
	struct ft_det	 d;
};

/*
 * Parse one line of ftlog dump output (without its newline; len bytes
 * at s, NUL bytes refused): key=value fields or a JSON object, as
 * ft_det_format writes them.  job is optional (0), the keys may come
 * in any order, each once; a, b and c are required for a kind other
 * than deliver and refused for deliver.  Returns 0, or -1 with EPROTO
 * and why saying what is wrong (without the line number).
 */
int	 ft_replay_parse(const char *s, size_t len, struct ft_rrec *,
	    char *why, size_t whysize);

/*
 * A log read for checking: ft_replay_new makes an empty one whose
 * scratch file is in tmpdir; ft_replay_read_stream reads dump lines
 * from f (name names it in messages) until EOF, skipping empty lines;
 * ft_replay_read_dir walks a log directory (every job, every rank), a
 * torn tail left out (warn is called with the rank's summary when it
 * has one; may be NULL).  ft_replay_add adds one record.  Records of
 * one job and rank must come together, as ftlog dump prints them.
 *
 * All return 0, or -1 with errno and why: EPROTO for a line that does
 * not parse ("line N: ..."), EINVAL for a rank met again after another
 * rank's records, what ft_logdir_walk says of a corrupt directory
 * (EILSEQ, EBADMSG, ENOTSUP, EMSGSIZE), or a system error.
 */
struct ft_replay;

struct ft_replay *ft_replay_new(const char *tmpdir, char *why,
	    size_t whysize);
void	 ft_replay_free(struct ft_replay *);
int	 ft_replay_add(struct ft_replay *, const struct ft_rrec *,
	    char *why, size_t whysize);
int	 ft_replay_read_stream(struct ft_replay *, FILE *, const char *name,
	    char *why, size_t whysize);
int	 ft_replay_read_dir(struct ft_replay *, const char *dir,
	    void (*warn)(void *, const struct ft_rank_sum *), void *arg,
	    char *why, size_t whysize);
/* The jobs read, in increasing order; valid until the next read. */
size_t	 ft_replay_njobs(const struct ft_replay *);
uint64_t ft_replay_job(const struct ft_replay *, size_t i);

/*
 * Check job's log.  The rules, in the order they are checked: first
 * rank by rank (ranks in increasing order, each in seq order) seq,
 * clock, probes, outcome, duplicate, channel-order and anysrc; then,
 * over the whole job in an order consistent with happened-before,
 * send-clock and causality (ftreplay(1) says what each one holds).
 *
 * Returns 0 when the log holds (with its figures in *st), 1 at the
 * first violation (in *v), or -1 with errno and why (ENOMEM: more
 * memory than max_mem needed; a read error of the scratch file).
 */
enum ft_replay_sclock {
	FT_REPLAY_SCLOCK_CLOCK = 0,	/* the sender's clock (ft-log(5)) */
	FT_REPLAY_SCLOCK_SEQ,		/* the message's number on its channel */
};

struct ft_replay_opts {
	enum ft_replay_sclock	 sclock;
	int			 no_channel_order;
	uint64_t		 max_mem;	/* 0: FT_REPLAY_MEM_DEFAULT */
};

struct ft_replay_stats {
	uint64_t	 job;
	uint32_t	 ranks;		/* ranks with a log */
	uint64_t	 dets, deliveries, nondet;
	uint64_t	 mem;		/* bytes of clock bitmap used */
};

struct ft_replay_violation {
	const char	*rule;		/* "seq", "clock", ... */
	uint64_t	 job;
	uint32_t	 rank;		/* where it shows */
	uint64_t	 clock;
	char		 what[FT_REPLAY_WHY];
	struct ft_rrec	 rec[FT_REPLAY_INVOLVED];	/* records involved */
	size_t		 nrec;
};

int	 ft_replay_verify(struct ft_replay *, uint64_t job,
	    const struct ft_replay_opts *, struct ft_replay_stats *,
	    struct ft_replay_violation *, char *why, size_t whysize);

/*
 * Sum job's log up.  Per rank (one entry for every rank that has a log
 * or is named as a sender, in increasing order): determinants,
 * deliveries received, messages sent (deliveries elsewhere that name
 * it), unsuccessful probes, nondeterministic events by kind, first
 * and last clock; the message matrix (one entry a channel with at
 * least one delivery, by sender then receiver).  Heap arrays the
 * caller frees.  Returns 0, or -1 with errno and why.
 */
struct ft_replay_rank {
	uint32_t	 rank;
	uint64_t	 dets, recv, sent, probes;
	uint64_t	 kinds[FT_DET_KIND_MAX + 1];
	uint64_t	 first_clock, last_clock;
};

struct ft_replay_cell {
	uint32_t	 from, to;
	uint64_t	 messages;
};

struct ft_replay_summary {
	uint64_t		 job;
	struct ft_replay_rank	*ranks;
	size_t			 nranks;
	struct ft_replay_cell	*cells;
	size_t			 ncells;
};

int	 ft_replay_summarize(struct ft_replay *, uint64_t job,
	    struct ft_replay_summary *, char *why, size_t whysize);
void	 ft_replay_summary_release(struct ft_replay_summary *);

/*
 * Write job's space-time diagram to f as an SVG document: one line a
 * rank, time left to right (a Lamport time: the events in an order
 * consistent with happened-before, each rank's clock ticks spaced
 * out), cut into at most bins columns; messages between the same two
 * ranks in the same pair of columns are drawn as one arrow, its width
 * growing with the log of the count, and a rank's activity in a
 * column as a shade.  Arrows beyond max_arrows make neighbouring
 * columns merge.  opts as for ft_replay_verify (the log need not hold:
 * what a cycle blocks is left out, and said so in the picture).
 * Returns 0, or -1 with errno and why.
 */
/*
 * A mark on a rank's line (replay2: ftreplay inspect --events): at the
 * column of the rank's first determinant whose clock is clock or more,
 * or at the end of the line when none is, or when after is set (the
 * rank logged nothing after the event).
 */
enum ft_replay_mark_kind {
	FT_MARK_FAILED = 0,
	FT_MARK_RESTART,
	FT_MARK_CKPT,
};

struct ft_replay_mark {
	uint32_t	 rank;
	uint64_t	 clock;
	int		 after;
	int		 kind;		/* enum ft_replay_mark_kind */
	char		 label[120];	/* its tooltip */
};

struct ft_replay_svg {
	uint32_t	 bins;		/* 0: 200 */
	size_t		 max_arrows;	/* 0: 20000 */
	const char	*title;		/* may be NULL */
	/* replay2: marks of failures, restarts and checkpoints. */
	const struct ft_replay_mark *marks;
	size_t		 nmarks;
	int		 events;	/* an events file was given */
};

int	 ft_replay_svg(struct ft_replay *, uint64_t job,
	    const struct ft_replay_opts *, const struct ft_replay_svg *,
	    FILE *, char *why, size_t whysize);

/*
 * Internals shared by the files of lib/replay.  A job's ranks
 * (ft__replay_ranks: in increasing order of rank, valid until the next
 * read) and a cursor over one rank's records in the scratch file
 * (ft__rcur_next: 1 with a record, 0 at its end, -1 with errno).
 */
/* Print to why, set errno to err: -1. */
int	 ft__replay_say(char *why, size_t whysize, int err, const char *fmt,
	    ...) FT_PRINTF(4, 5);

struct ft__rchunk {
	uint64_t	 job;
	uint32_t	 rank;
	uint64_t	 off, end;	/* bytes of the scratch file */
	uint64_t	 count;
	uint64_t	 first_line;
};

struct ft__rcur {
	int		 fd;
	uint64_t	 job;
	uint32_t	 rank;
	uint64_t	 off, end;	/* file bytes not yet in buf */
	uint8_t		*buf;
	size_t		 bpos, blen, bcap;
};

int	 ft__replay_ranks(struct ft_replay *, uint64_t job,
	    const struct ft__rchunk **, size_t *n, char *why, size_t whysize);
int	 ft__rcur_open(struct ft__rcur *, struct ft_replay *,
	    const struct ft__rchunk *, size_t bufsize);
int	 ft__rcur_next(struct ft__rcur *, struct ft_rrec *);
void	 ft__rcur_release(struct ft__rcur *);
/*
 * The events of job in an order consistent with happened-before (the
 * simulation of ft_replay_verify), each with its Lamport time and, for
 * a reception, its send's (else UINT64_MAX); event returns 0 to go on.
 * Ranks that a cycle blocks are left out and counted in *stuck.
 * Returns 0, or -1 with errno and why.
 */
int	 ft__replay_walk(struct ft_replay *, uint64_t job,
	    const struct ft_replay_opts *,
	    int (*event)(void *, const struct ft_rrec *, uint64_t t,
	    uint64_t tsend), void *arg, uint64_t *stuck, char *why,
	    size_t whysize);

#endif
