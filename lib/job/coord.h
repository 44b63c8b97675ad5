/* SPDX-License-Identifier: ISC */
/*
 * The launcher's side of --ft coord (ft(7)): what ranks tell it of
 * their checkpoints, the newest complete global checkpoint, and where
 * each rank's output stood at its cuts, so that a rollback prints
 * nothing twice.
 */
#ifndef FT_JOB_COORD_H
#define FT_JOB_COORD_H

#include <stdint.h>

#define FT__COORD_ROLLBACKS_MAX	64	/* then the job ends */

/* Where a rank's stdout and stderr stood at the cut of epoch. */
struct ft__coord_cut {
	uint64_t	 epoch;
	uint64_t	 out, err;
	int		 durable;	/* its image is in the store */
	int		 local;		/* its image is written locally
					 * (coordsrv) */
};

/* A rank's cuts since the complete epoch, ascending. */
struct ft__coord_cuts {
	struct ft__coord_cut	*v;
	size_t			 n, cap;
};

/* A rank's answers to the scheduler's last two rounds. */
struct ft__coord_ans {
	uint64_t	 call, t;	/* its call, when we heard (ns) */
	uint64_t	 pcall, pt;	/* the round before; pt 0: none */
	int		 fresh;		/* answered this round */
};

struct ft__coord {
	int		 on;		/* --ft coord */
	int		 rolling;	/* every rank is being killed */
	uint64_t	 complete;	/* newest epoch all made durable */
	uint64_t	 target;	/* the epoch of the rollback under way */
	uint32_t	 rollbacks;
	uint64_t	 failed_ns;	/* when the rollback began */
	/* The scheduler (--ckpt-interval): DUE rounds. */
	uint64_t	 interval_ns;	/* 0: the ranks' own scheduler */
	uint64_t	 next_ns;	/* when the next is due, 0: unset */
	uint64_t	 epoch;		/* the last one asked for */
	int		 asking;	/* waiting for every rank's call */
	uint32_t	 nreplied;
	uint64_t	 maxcall;
	uint64_t	 margin;	/* calls beyond the highest, doubled
					 * at every miss */
	uint64_t	 missed;	/* rounds called off so */
	int		 lastmiss;	/* the last round was */
	struct ft__coord_ans *ans;	/* nranks of them */
	uint32_t	 nranks;
	/* A rank's error (ABORT with a reason) waits until err_at for a
	 * death it may be the consequence of (coordperf); 0: none. */
	uint64_t	 err_at;
	uint32_t	 nrestored;	/* ranks restored since the rollback */
	uint64_t	 restore_us;	/* the slowest image read of them */
	/* --ckpt-interval auto (coordperf): interval_ns follows Young's
	 * sqrt(2 C M), C the checkpoint's cost (from the last rank's cut
	 * to the epoch complete, averaged), M the mean time between
	 * failures (the run's time over its failures; none yet: the time
	 * so far).  With failures but no cost known yet, M / 2. */
	int		 autoi;
	uint64_t	 start_ns;
	uint32_t	 failures;
	uint64_t	 cost_ns;	/* 0: no sample yet */
	uint64_t	 cut_epoch, cut_ns;	/* the newest cut heard of */
	/*
	 * coordsrv: with a checkpoint server (push), ftrun names the epoch
	 * every rank pushes (PUSH): the newest one every rank has written
	 * locally (local), once the last one asked for (pushing) is
	 * complete.  srvdown: ftrun's own server died; the complete epoch
	 * follows the local copies from then on (ft(7)).  lc: when each
	 * epoch above complete became complete locally (the lag).
	 */
	int		 push, srvdown;
	uint64_t	 pushing, local;
	struct ft__coord_lc {
		uint64_t	 epoch, ns;
	}		*lc;
	size_t		 nlc, caplc;
};

/* coordsrv: what a rank's image note changed (ft__coord_image). */
struct ft__coord_news {
	uint64_t	 local;		/* newly complete locally, or 0 */
	uint64_t	 complete;	/* newly complete, or 0 */
	uint64_t	 push;		/* every rank is to push it, or 0 */
	double		 lag_ms;	/* complete: since it was local, -1 */
	uint64_t	 behind;	/* complete: epochs local is ahead */
};

#define FT__COORD_AUTO_FIRST_NS	(1000000000ull)	/* before any cost */
#define FT__COORD_AUTO_MIN_NS	(100000000ull)
#define FT__COORD_AUTO_MAX_NS	(3600ull * 1000000000u)

#define FT__COORD_ERR_GRACE_NS	(500ull * 1000000u)

/* What a FT_NOTE_CKPT says. */
enum ft__coord_note {
	FT__COORD_CUT = 1,	/* "epoch=E cut=1": at the cut of E, its
				 * output flushed */
	FT__COORD_DURABLE,	/* "epoch=E durable=D": its image of E is
				 * committed, in the store when D is 1 */
	FT__COORD_CALL,		/* "epoch=E call=C": asked by DUE, it is
				 * at its Cth ft_checkpoint() call */
	FT__COORD_MISSED,	/* "epoch=E missed=1": it was past the call
				 * DUE named */
	FT__COORD_RESTORED,	/* "epoch=E restored=U": after a rollback,
				 * its image of E read back in U us (at
				 * least 1), coordperf */
	FT__COORD_FROM,		/* "epoch=E from=1" (--ft vlog, issue 15):
				 * a restarted process goes on from its
				 * image of E */
	FT__COORD_RECV,		/* "epoch=E recv=B", "epoch=E sent=B" (--ft */
	FT__COORD_SENT,		/* vlog): its traffic in bytes, for
				 * --ckpt-policy adaptive */
	FT__COORD_SERVER,	/* "epoch=E server=S" (ckptsrv2): its push
				 * of E failed (S 0: the server cannot be
				 * reached), or succeeded after that (1) */
};

/* Parse a FT_NOTE_CKPT text: 0 with *kind and *value, or -1. */
int	 ft__coord_note_parse(const char *text, uint64_t *epoch, int *kind,
	    uint64_t *value);
/*
 * Remember the output offsets at the cut of epoch; what was known of
 * epoch and later (a generation rolled back) is forgotten.  0, or -1
 * with ENOMEM.
 */
int	 ft__coord_cut_put(struct ft__coord_cuts *, uint64_t epoch,
	    uint64_t out, uint64_t err);
/* The offsets at the cut of epoch (0: the start): 0, or -1 unknown. */
int	 ft__coord_cut_get(const struct ft__coord_cuts *, uint64_t epoch,
	    uint64_t *out, uint64_t *err);
/* Forget the cuts before epoch (no rollback goes there any more). */
void	 ft__coord_cut_forget(struct ft__coord_cuts *, uint64_t epoch);
void	 ft__coord_cuts_free(struct ft__coord_cuts *);
/* Forget the cuts after epoch (a rollback to it). */
void	 ft__coord_cut_truncate(struct ft__coord_cuts *, uint64_t epoch);
/* The rank's image of epoch is durable: 0, or -1 (no such cut). */
int	 ft__coord_cut_durable(struct ft__coord_cuts *, uint64_t epoch);
/*
 * The newest epoch above floor that every one of n ranks' cuts has
 * durable, or floor: the job's complete global checkpoint.
 */
uint64_t ft__coord_complete(struct ft__coord_cuts *const *ranks, size_t n,
	    uint64_t floor);
/*
 * coordsrv: rank's image of epoch is written locally (durable 0) or in
 * the store (durable 1), heard at now: the newest epoch complete
 * locally and in the store, and the push to ask for, in *news.  Cuts
 * before a new complete epoch are forgotten.  0, or -1 (no such cut,
 * or ENOMEM: nothing changed).  ft__coord_srv_down: the server died
 * or cannot be reached (down 1: the same news, from the local copies
 * from then on), or is reached again (down 0, ckptsrv2: complete
 * epochs need the store again, never going back).  ft__coord_lc_free.
 */
int	 ft__coord_image(struct ft__coord *, struct ft__coord_cuts *const *ranks,
	    size_t n, uint32_t rank, uint64_t epoch, int durable, uint64_t now,
	    struct ft__coord_news *news);
void	 ft__coord_srv_down(struct ft__coord *,
	    struct ft__coord_cuts *const *ranks, size_t n, uint64_t now,
	    struct ft__coord_news *news, int down);
void	 ft__coord_lc_free(struct ft__coord *);

/*
 * ftrun's checkpoint scheduler (--ckpt-interval D under --ft coord),
 * as pure state: launch.c sends what these decide.
 *
 * ft__coord_sched_init: for nranks ranks (0, or -1 ENOMEM).
 * ft__coord_sched_tick: at now, may a round start (ok: the job runs,
 * no rank finalized)?  1 with *epoch to ask every rank for, else 0.
 * ft__coord_sched_called: rank answered epoch at call (heard at now);
 * 1 with *at, the call to cut at, once all did: beyond the highest by
 * what each rank, at its pace of the round before, will have done
 * meanwhile, plus a margin that halves after a round that went well.  ft__coord_sched_missed:
 * a rank was past it: 1 when the epoch is called off (the margin
 * doubles, the next round starts at once).  ft__coord_sched_off: a rank
 * finalized: 1 when a round under way is called off.
 * ft__coord_sched_next: when tick wants to run next (a round, or a
 * rank's error to decide: err_at), or 0.
 * ft__coord_sched_reset: after a rollback to epoch.
 */
int	 ft__coord_sched_init(struct ft__coord *, uint32_t nranks);
void	 ft__coord_sched_free(struct ft__coord *);
int	 ft__coord_sched_tick(struct ft__coord *, uint64_t now, int ok,
	    uint64_t *epoch);
int	 ft__coord_sched_called(struct ft__coord *, uint32_t rank,
	    uint64_t epoch, uint64_t call, uint64_t now, uint64_t *at);
int	 ft__coord_sched_missed(struct ft__coord *, uint64_t epoch,
	    uint64_t now);
int	 ft__coord_sched_off(struct ft__coord *);
uint64_t ft__coord_sched_next(const struct ft__coord *);
void	 ft__coord_sched_reset(struct ft__coord *, uint64_t epoch);

/*
 * --ckpt-interval auto: ft__coord_auto_init at the job's start (now);
 * ft__coord_auto_cut, a rank at the cut of epoch (now);
 * ft__coord_auto_complete, epoch complete (now); ft__coord_auto_failed,
 * a failure (now).  Each sets interval_ns (no-ops unless autoi).
 * ft__coord_young: Young's interval for a cost and an MTBF, within
 * FT__COORD_AUTO_MIN_NS and _MAX_NS.
 */
void	 ft__coord_auto_init(struct ft__coord *, uint64_t now);
void	 ft__coord_auto_cut(struct ft__coord *, uint64_t epoch, uint64_t now);
void	 ft__coord_auto_complete(struct ft__coord *, uint64_t epoch,
	    uint64_t now);
void	 ft__coord_auto_failed(struct ft__coord *, uint64_t now);
uint64_t ft__coord_young(uint64_t cost_ns, uint64_t mtbf_ns);

#endif
