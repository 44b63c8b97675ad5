/* SPDX-License-Identifier: ISC */
/*
 * The job's garbage collection on the checkpoint server (ckptsrv2):
 * what a rank's retention no longer keeps goes from the server too,
 * as it goes from the rank's local directory (retire in
 * lib/mpi/ckpt.c).  The decision is a pure function of the server's
 * listing (store.h says what it keeps and why a stale GC is safe).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

size_t
ft_ckpt_gc_decide(struct ft_ckpt_ent *e, size_t n, uint64_t durable,
    uint32_t keep)
{
	size_t i, from = n, removed = 0;
	uint32_t ok = 0;
	int named = 0;

	if (keep == 0)
		keep = 1;
	for (i = 0; i < n; i++) {
		e[i].state = e[i].state == FT_CKPT_OK ? FT_CKPT_OK :
		    FT_CKPT_BAD;
		if (e[i].epoch == durable && e[i].state == FT_CKPT_OK)
			named = 1;
	}
	/* The keep newest complete images at or below durable: from is
	 * the oldest of them, once there are keep. */
	for (i = n; named && i > 0; i--) {
		if (e[i - 1].epoch > durable || e[i - 1].state != FT_CKPT_OK)
			continue;
		if (++ok == keep) {
			from = i - 1;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		if (named && ok == keep && i < from && e[i].epoch < durable) {
			e[i].state = FT_CKPT_REMOVED;
			removed++;
		} else
			e[i].state = FT_CKPT_KEPT;
	}
	return removed;
}

int
ft_ckpt_gc(const char *dir, uint64_t job, uint32_t rank, uint64_t durable,
    uint32_t keep, size_t *removed, char *why, size_t whysize)
{
	struct ft_ckpt_ent *e;
	size_t n, i, k = 0;
	int saved;

	*removed = 0;
	if (ft_ckpt_scan(dir, 0, job, 0, rank, &e, &n, why, whysize) != 0)
		return -1;
	/* The scan is sorted by epoch; it may list other ranks' images
	 * of the same number only with allranks, so these are rank's. */
	(void)ft_ckpt_gc_decide(e, n, durable, keep);
	for (i = 0; i < n; i++) {
		if (e[i].state != FT_CKPT_REMOVED)
			continue;
		if (ft_ckpt_rm(dir, job, rank, e[i].epoch, why,
		    whysize) != 0 && errno != ENOENT) {
			saved = errno;
			free(e);
			*removed = k;
			errno = saved;
			return -1;
		}
		k++;
	}
	free(e);
	*removed = k;
	return 0;
}
