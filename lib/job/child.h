/* SPDX-License-Identifier: ISC */
/*
 * What the two host agents of lib/job share to start a process: ftrun's
 * launcher (launch.c) for the ranks on its own host, and the remote
 * agent (agent.c) for the ranks a submitter sends it.  Internal to
 * lib/job.
 */
#ifndef FT_JOB_CHILD_H
#define FT_JOB_CHILD_H

#include <signal.h>

#include "job.h"

/* The environment a process of a job gets from its host agent. */
struct ft__rank_env {
	uint32_t	 rank, size, node;
	uint32_t	 universe;	/* FT_UNIVERSE, or 0: not set */
	uint32_t	 nrep, replica;
	const char	*launcher;	/* FT_LAUNCHER */
	const char	*jobdir;	/* FT_JOB_DIR: its Unix sockets */
	const char	*progname;
	const char	*proto;		/* NULL: "none" */
	const char	*tcp_host;	/* FT_TCP_HOST, or NULL */
	int		 keyfd;
	int		 hbfd;		/* -1: no heartbeats */
	uint64_t	 hb_period_ns;
	int		 force_tcp, diverge;
	uint64_t	 kill_after;	/* --inject after-sends, or 0 */
	int		 kill_signal;
	/* Message logging (--ft vlog). */
	const char	*log_addr;	/* FT_LOG_ADDR, or NULL */
	uint64_t	 job_id;	/* FT_JOB_ID */
	uint32_t	 incarnation;	/* FT_INCARNATION: restarts so far */
	int		 log_keyfd;	/* FT_LOG_KEY_FD, or -1 */
	/* --ft coord: a rollback to rollback_epoch (FT_CKPT_ROLLBACK). */
	int		 rollback;
	uint64_t	 rollback_epoch;
	/* --ckpt-server auto: FT_CKPT_SERVER, FT_CKPT_KEY_FILE. */
	const char	*ckpt_server, *ckpt_keyfile;
};

/* Above the count of entries ft__rank_env can fill (26 if every one
 * applied at once). */
#define FT__ENV_MAX	32

/*
 * Fill out (room for FT__ENV_MAX) with "VAR=VALUE" strings, which the
 * caller frees with ft__env_free.  Returns the count, or -1 with ENOMEM
 * (nothing left allocated).
 */
int	 ft__rank_env(const struct ft__rank_env *, char **out);
void	 ft__env_free(char **, size_t);

/* How the child of a fork becomes a process of the job. */
struct ft__spawn {
	const char	 *prog;		/* path to exec */
	char		**argv;
	char		**setenv;	/* -x: "VAR=VALUE", before env */
	size_t		  nsetenv;
	char		**env;		/* the job's variables: they win */
	size_t		  nenv;
	int		  in_fd;	/* stdin, or -1 for /dev/null */
	int		  out_fd, err_fd;
	int		  keep[3];	/* fds it inherits, or -1 */
	const char	 *cwd;		/* NULL: ours */
	const sigset_t	 *mask;		/* signal mask to restore */
	pid_t		  parent;	/* dies with it */
	int		  errfd;	/* the exec's errno goes there */
};

/*
 * In the child of a fork: own process group, SIGKILL when the parent
 * dies, default signal handlers, stdio and the kept descriptors set
 * up, then exec (a file without #! through /bin/sh, as execvp(3)
 * does).  Never returns: on failure it writes the errno to errfd and
 * exits 127.
 */
void	 ft__spawn_exec(const struct ft__spawn *) FT_NORETURN;

/*
 * Is the process (rank, replica) to kill itself after some sends
 * (--inject ...,after-sends=N)?  nth picks among the specs that name
 * it, in their order: a process restarted (--ft vlog) for the nth time
 * takes the nth.  Returns 1 with N and the signal.
 */
int	 ft__inject_after_sends(const struct ft_launch *, uint32_t nth,
	    uint32_t rank, uint32_t replica, uint64_t *after, int *signo);

/*
 * Block SIGCHLD, SIGINT, SIGTERM, SIGHUP and SIGPIPE, the mask before in
 * *orig, and have handler catch the first four; *waitmask is the mask
 * for ppoll, which lets them in.
 */
void	 ft__signals_catch(void (*handler)(int), sigset_t *orig,
	    sigset_t *waitmask);

/* The heartbeat pipe of n processes: non-blocking both ends. */
int	 ft__hb_pipe(uint32_t n, int p[2]);

/* Make fd non-blocking. */
void	 ft__fd_nonblock(int fd);

#endif
