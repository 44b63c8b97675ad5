/* SPDX-License-Identifier: ISC */
/*
 * The host agent: what a daemon runs to serve one job on its host for a
 * submitter (ftrun --host).  It stages the job's files, starts its
 * processes there as ftrun starts local ones, forwards their output a
 * whole line at a time, their heartbeats, stops and exits, obeys
 * signals, and leaves nothing behind: when the submitter's connection
 * is lost or silent too long, every process of the job on this host is
 * killed.  ft-wire(7) documents the frames.
 */
#ifndef FT_JOB_AGENT_H
#define FT_JOB_AGENT_H

#include <stdio.h>

#include "job.h"

struct ft_agent_opts {
	const char	*statedir;	/* staging cache and per-job directories under it */
	const uint8_t	*cluster_key;	/* FT_WIRE_KEYLEN bytes */
	const char	*node_name;	/* this host's name for messages, NULL: gethostname */
	const char	*tmpdir;	/* for the job's sockets; NULL: /tmp */
	FILE		*log;		/* one line per job and staged file, or NULL */
};

/*
 * Serve one job on the READY submitter connection c, whose first frame
 * (JOB_START) is h/body.  Runs in a child the daemon forked for the
 * job; blocks until the job's processes on this host are gone and
 * reported; returns an exit status for the child: 0 when the job ran
 * to its end here, FT_EXIT_NO when the submitter was lost or staging
 * failed (it was told why), FT_EXIT_USAGE for a malformed JOB_START.
 * Kills every process of the job on this host (their process groups)
 * when the submitter's connection is lost or silent too long: no
 * orphans.  Changes the signal mask and the SIGCHLD, SIGTERM, SIGINT
 * and SIGHUP handlers of the process; releases nothing of c.
 */
int	 ft_agent_serve(struct ft_conn *c, const struct ft_hdr *h,
	    const uint8_t *body, const struct ft_agent_opts *);

/*
 * Remove what agents killed outright (SIGKILL, a crash, the host's
 * reboot) left under statedir: partial files in the staging cache and
 * job directories.  Only with no agent running: the daemon, at start,
 * holding the state directory's lock.  Says what it removed on log.
 */
void	 ft_agent_sweep(const char *statedir, FILE *log);

#endif
