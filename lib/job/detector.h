/* SPDX-License-Identifier: ISC */
/*
 * The detector module of a host agent across hosts: ftrun and every
 * daemon serving a job run `ftgossip run` (ARCHITECTURE.md section 2),
 * the same binary a user runs by hand, as members of one gossip group;
 * the agent reads its events and feeds it the deaths it sees first.
 * Internal to lib/job.
 */
#ifndef FT_JOB_DETECTOR_H
#define FT_JOB_DETECTOR_H

#include <signal.h>

#include "job.h"

struct ft__det {
	pid_t		 pid;		/* -1: not running */
	int		 ev_fd;		/* its events, a line each */
	int		 in_fd;		/* "dead ID" lines to it */
	int		 ended;		/* excluded, or gone */
	int		 excluded;	/* the others cut us off */
	char		 buf[4096];
	size_t		 len;
};

struct ft__det_cfg {
	char		(*addrs)[FT_WIRE_ADDR_MAX];	/* n members */
	uint32_t	 n, self;
	const char	*proto;		/* "dbrr" ... */
	uint64_t	 period_ns, cleanup_ns, ping_ns;	/* 0: its default */
	int		 listen_fd;	/* bound to addrs[self]; taken */
	const uint8_t	*key;		/* FT_WIRE_KEYLEN bytes */
	const sigset_t	*mask;		/* its signal mask; NULL: none */
};

/*
 * Start the module (ftgossip next to the running program, else on
 * PATH).  Returns 0, or -1 with errno; d->pid is -1 when not running.
 */
int	 ft__det_start(struct ft__det *, const struct ft__det_cfg *);

/*
 * Read what the module said: failed(arg, id) for every member it
 * declared failed.  Returns 1 once it excluded this member or ended,
 * else 0.
 */
int	 ft__det_events(struct ft__det *, void (*failed)(void *, uint32_t,
	    const char *), void *arg);

/* Tell it that member id is dead (seen first by other means). */
void	 ft__det_dead(struct ft__det *, uint32_t id);

/* Stop it and reap it. */
void	 ft__det_stop(struct ft__det *);

/* A schedule's number on the wire (MEMBERS), and back. */
uint32_t ft__det_proto_code(const char *);
const char *ft__det_proto_name(uint32_t);

/* Find helper program name: next to /proc/self/exe, else on PATH. */
int	 ft__helper_path(const char *name, char *out, size_t size);

#endif
