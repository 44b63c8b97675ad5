/* SPDX-License-Identifier: ISC */
/*
 * Restarts across hosts (ftrun(1), PLACEMENT OF RESTARTS): where a
 * process that died is started again when its job spans several hosts.
 * Internal to lib/job.
 */
#ifndef FT_JOB_RELOCATE_H
#define FT_JOB_RELOCATE_H

#include <stddef.h>
#include <stdint.h>

#define FT_RELOCATE_NONE	UINT32_MAX

/*
 * Does a job of protocol proto, with the nenv "VAR=VALUE" entries env
 * (JOB_START's), restart processes, so that a host agent must wait for
 * the submitter's RELEASE before it ends?  vlog and coord do, and
 * ftmpi in communicator mode rebuild (FT_FTMPI_COMM_MODE, the last
 * entry that sets it).
 */
int	 ft__relocate_holds(const char *proto, char *const *env, size_t nenv);

/*
 * The host for a process that ran on host own and must start again:
 * own while it is alive; else the live host running the fewest of the
 * job's processes (load[h]), the first in the job's host list on a
 * tie.  alive[h] is non-zero for a host whose agent is still with us.
 * Returns the host, or FT_RELOCATE_NONE when no host is alive.
 */
uint32_t ft__relocate_pick(uint32_t own, const uint8_t *alive,
	    const uint32_t *load, uint32_t nhosts);

#endif
