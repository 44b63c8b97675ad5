/* SPDX-License-Identifier: ISC */
/*
 * ftrun's checkpoint scheduler for --ft vlog (issue 15, ftrun(1)
 * --ckpt-policy): with rr or adaptive, ftrun tells one rank at a time
 * to checkpoint (DUE to that rank alone), one turn every interval / n,
 * so that every rank saves about once an interval and never two at
 * once.  rr: in rank order.  adaptive (MPICH-V2): at the start of each
 * round, the ranks in decreasing order of the bytes they received over
 * the bytes they sent (as they last reported), so that the ranks whose
 * restart would replay most go first; ties, and ranks not heard of
 * yet, in rank order.  Pure logic: the launcher sends and hears.
 */
#ifndef FT_JOB_VSCHED_H
#define FT_JOB_VSCHED_H

#include <stdint.h>

enum ft__vsched_policy {
	FT__VSCHED_ALL = 0,	/* each rank on its own timer: no turns */
	FT__VSCHED_RR,
	FT__VSCHED_ADAPTIVE,
};

struct ft__vsched {
	int		 policy;
	uint32_t	 n;
	uint64_t	 interval_ns;
	uint64_t	 next_ns;	/* the next turn, 0: not started */
	uint32_t	 pos;		/* in order, of this round */
	uint32_t	*order;		/* n */
	uint64_t	*recv, *sent;	/* n: as reported */
	uint64_t	 turns;		/* given so far */
};

/* Parse "all", "rr", "adaptive": the policy, or -1. */
int	 ft__vsched_policy(const char *);
/* 0, or -1 (ENOMEM).  Without turns (all, or interval 0), tick never
 * names a rank. */
int	 ft__vsched_init(struct ft__vsched *, uint32_t n, int policy,
	    uint64_t interval_ns);
void	 ft__vsched_free(struct ft__vsched *);
/* Rank reported its traffic so far (bytes received, sent). */
void	 ft__vsched_traffic(struct ft__vsched *, uint32_t rank, uint64_t recv,
	    uint64_t sent);
/* At now: 1 with *rank when a rank's turn has come, else 0. */
int	 ft__vsched_tick(struct ft__vsched *, uint64_t now, uint32_t *rank);
/* When tick wants to run next (0: never). */
uint64_t ft__vsched_next(const struct ft__vsched *);
/* Order n ranks by recv / sent, highest first, ties by rank. */
void	 ft__vsched_order(uint32_t n, const uint64_t *recv,
	    const uint64_t *sent, uint32_t *order);

#endif
