/* SPDX-License-Identifier: ISC */
/*
 * Placement of restarts across hosts (relocate.h).  ftrun restarts a
 * dead process where it ran while that host is alive: its node-local
 * files (the job directory, a coord image) are there.  When the host is
 * gone, the least loaded live host takes it, so that the ranks of a
 * dead host spread over the others instead of piling on one.
 */
#include <string.h>

#include "job.h"
#include "relocate.h"

int
ft__relocate_holds(const char *proto, char *const *env, size_t nenv)
{
	static const char mode[] = FT_ENV_FTMPI_COMM "=";
	const char *last = NULL;
	size_t k;

	if (proto == NULL)
		return 0;
	if (strcmp(proto, "vlog") == 0 || strcmp(proto, "coord") == 0)
		return 1;
	if (strcmp(proto, "ftmpi") != 0)
		return 0;
	for (k = 0; k < nenv; k++)
		if (strncmp(env[k], mode, sizeof(mode) - 1) == 0)
			last = env[k] + sizeof(mode) - 1;
	return last != NULL && strcmp(last, "rebuild") == 0;
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
