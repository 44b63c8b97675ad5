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
};

/* A rank's cuts since the complete epoch, ascending. */
struct ft__coord_cuts {
	struct ft__coord_cut	*v;
	size_t			 n, cap;
};

struct ft__coord {
	int		 on;		/* --ft coord */
	int		 rolling;	/* every rank is being killed */
	uint64_t	 complete;	/* newest epoch all made durable */
	uint64_t	 target;	/* the epoch of the rollback under way */
	uint32_t	 rollbacks;
	uint64_t	 failed_ns;	/* when the rollback began */
};

/*
 * A FT_NOTE_CKPT text: "epoch=E cut=1" (the rank is at the cut of E,
 * its output flushed) or "epoch=E durable=D" (its image of E is
 * committed: in the store when D is 1, locally when 0).  0, or -1 for
 * anything else.
 */
int	 ft__coord_note_parse(const char *text, uint64_t *epoch, int *cut,
	    int *durable);
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

#endif
