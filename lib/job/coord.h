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

#define FT__COORD_CUTS		8	/* cuts remembered per rank */
#define FT__COORD_ROLLBACKS_MAX	64	/* then the job ends */

/* Where a rank's stdout and stderr stood at the cut of epoch. */
struct ft__coord_cut {
	uint64_t	 epoch;		/* 0: unused */
	uint64_t	 out, err;
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
/* Remember the output offsets at the cut of epoch. */
void	 ft__coord_cut_put(struct ft__coord_cut *ring, uint64_t epoch,
	    uint64_t out, uint64_t err);
/* The offsets at the cut of epoch (0: the start): 0, or -1 unknown. */
int	 ft__coord_cut_get(const struct ft__coord_cut *ring, uint64_t epoch,
	    uint64_t *out, uint64_t *err);

#endif
