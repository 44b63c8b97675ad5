/* SPDX-License-Identifier: ISC */
/*
 * Placement of restarts across hosts (relocate.h).  ftrun restarts a
 * dead process where it ran while that host is alive: its node-local
 * files (the job directory, a coord image) are there.  When the host is
 * gone, the least loaded live host takes it, so that the ranks of a
 * dead host spread over the others instead of piling on one.
 */
#include <string.h>

#include "relocate.h"

int
ft__relocate_holds(const char *proto)
{
	return proto != NULL && (strcmp(proto, "vlog") == 0 ||
	    strcmp(proto, "coord") == 0 || strcmp(proto, "ftmpi") == 0);
}

uint32_t
ft__relocate_pick(uint32_t own, const uint8_t *alive, const uint32_t *load,
    uint32_t nhosts)
{
	uint32_t h, best = FT_RELOCATE_NONE;

	if (own < nhosts && alive[own])
		return own;
	for (h = 0; h < nhosts; h++)
		if (alive[h] && (best == FT_RELOCATE_NONE ||
		    load[h] < load[best]))
			best = h;
	return best;
}
