/* SPDX-License-Identifier: ISC */
/*
 * The event logger of a --ft vlog job: `ftlog serve` in a child of
 * ftrun (the same binary a user runs by hand, ARCHITECTURE.md section
 * 2), authenticated with the job key, listening on loopback.  Internal
 * to lib/job.
 */
#ifndef FT_JOB_LOGGER_H
#define FT_JOB_LOGGER_H

#include <signal.h>

#include "job.h"

struct ft__logger {
	pid_t		 pid;		/* -1: not running */
	char		 addr[FT_WIRE_ADDR_MAX];	/* where it listens */
};

struct ft__logger_cfg {
	const char	*dir;		/* its log directory (exists) */
	const char	*listen;	/* FT__LOGGER_LOCAL, or its old address */
	const char	*sync;		/* --sync, or NULL: its default */
	const uint8_t	*key;		/* FT_WIRE_KEYLEN bytes */
	const sigset_t	*mask;		/* its signal mask */
	uint64_t	 timeout_ns;	/* for its address */
};

/* A logger on this host: a Unix socket in its directory if it fits. */
#define FT__LOGGER_LOCAL	"tcp:127.0.0.1:0"

/*
 * The Unix address of a logger on this host for log directory dir
 * (ftrun's process id): "unix:/ABS/DIR/.logger-ID.sock" in out.  0, or
 * -1 with errno (ENAMETOOLONG: past a socket path's length; then the
 * logger listens on loopback TCP).
 */
int	 ft__logger_local_addr(const char *dir, long id, char *out,
	    size_t size);

/*
 * Start the logger (ftlog next to the running program, else on PATH)
 * and wait until it says where it listens.  Returns 0, or -1 with
 * errno (ETIMEDOUT: it said nothing in time; EPROTO: it ended first)
 * and lg->pid -1.
 */
int	 ft__logger_start(struct ft__logger *, const struct ft__logger_cfg *);

/*
 * --ckpt-server auto: start `ftckpt serve --dir dir --key-file keyfile`
 * on listen (NULL: loopback, a port of its choice; a restart: the
 * address it had) (ftckpt next to the running program, else on PATH),
 * and wait until it says where it listens; srv->addr holds it.  As
 * ft__logger_start.  ft__logger_stop stops it too.
 */
int	 ft__ckserver_start(struct ft__logger *srv, const char *dir,
	    const char *keyfile, const char *listen, const sigset_t *mask,
	    uint64_t timeout_ns);

/* Stop it (SIGTERM, so that it writes what it holds) and reap it. */
void	 ft__logger_stop(struct ft__logger *);

/* Remove a log directory made for one job, and what is in it. */
int	 ft__logdir_remove(const char *dir);

#endif
