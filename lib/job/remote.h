/* SPDX-License-Identifier: ISC */
/*
 * ftrun's side of remote execution: one connection to the agent of each
 * host of a job (ftrun --host), authenticated under the cluster key as
 * a SUBMITTER.  The launcher (launch.c) starts the job through it and
 * learns through callbacks what the agents report, so that a process on
 * another host reads to it like one of its own.  Internal to lib/job.
 */
#ifndef FT_JOB_REMOTE_H
#define FT_JOB_REMOTE_H

#include <poll.h>

#include "job.h"

struct ft__remote;

/* What the agents report; proc is a process id, rank * R + replica. */
struct ft__remote_cb {
	void	*arg;
	/* The agent of host started proc as pid, or failed with err. */
	void	(*started)(void *, uint32_t proc, pid_t pid, int err,
		    const char *host);
	/* Whole lines of stream 0 (stdout) or 1 (stderr); eof: the last. */
	void	(*output)(void *, uint32_t proc, int stream, const uint8_t *,
		    size_t, int eof);
	/* A wait(2) status: exited, killed, stopped or continued. */
	void	(*status)(void *, uint32_t proc, int wstatus);
	void	(*beat)(void *, const struct ft_hb_rec *);
	/* The connection to host's agent is gone: its processes with it. */
	void	(*lost)(void *, uint32_t host, const char *why);
	/* What staging did on host. */
	void	(*staged)(void *, uint32_t host, uint32_t cached,
		    uint32_t received, uint32_t fetched);
};

/*
 * Connect to the agent of every host of cf and authenticate, within 10
 * seconds.  Puts in listen the address the launcher should listen on
 * ("tcp:IP:0", IP this host's end of the first connection), so that
 * the ranks of every host reach it.  Returns 0, or -1 after saying why.
 */
int	 ft__remote_connect(const struct ft_launch *cf, struct ft__remote **,
	    char *listen, size_t listensize);

/*
 * Start the job: send every agent JOB_START (launcher: the launcher's
 * address; key: the job key, sealed; prog: the program's path here,
 * staged with cf->stage), send the files they lack, and wait until
 * each started its processes (cb->started) or failed.  Returns 0, or an
 * exit status for the job after saying why (126/127: the program could
 * not be run; FT_EXIT_TEMP, FT_EXIT_USAGE, 1).  deadline: 0, or when
 * to give up (FT_LAUNCH_TIMEOUT_STATUS).
 */
int	 ft__remote_start(struct ft__remote *, const char *launcher,
	    const uint8_t key[FT_WIRE_KEYLEN], const char *prog,
	    uint64_t hb_period_ns, uint64_t deadline,
	    const struct ft__remote_cb *);

/* The descriptors to poll (at most nhosts + 1), and what they said. */
size_t	 ft__remote_pollfds(struct ft__remote *, struct pollfd *);
void	 ft__remote_io(struct ft__remote *, const struct pollfd *, size_t);
/* Keepalives and silences; returns when to be called next. */
uint64_t ft__remote_tick(struct ft__remote *, uint64_t now);
/* Ask proc's agent to signal its process group. */
void	 ft__remote_signal(struct ft__remote *, uint32_t proc, int sig);
/*
 * Our standard input for process proc, a replica of rank 0: sends what
 * fits in its window of bytes not yet taken by the process (at most
 * FT_JOB_INPUT_WINDOW), with eof (and no bytes) its end.  Returns
 * the bytes sent (0: the window is full, come back after I/O), or -1
 * when the process is gone or closed its input: send it no more.
 */
ssize_t	 ft__remote_input(struct ft__remote *, uint32_t proc,
	    const uint8_t *, size_t, int eof);
/* Are agents still to say DONE (and not lost)? */
int	 ft__remote_busy(const struct ft__remote *);
/*
 * Restarts across hosts (relocate.h).  ft__remote_setenv: variables for
 * every process besides -x (env kept by the caller; before
 * ft__remote_start).  ft__remote_alive: alive[h] 1 for each host whose
 * agent is still with us; returns the number of hosts.
 * ft__remote_respawn: ask host's agent to start process m->id again
 * (cb->started follows); -1 with errno EHOSTDOWN when
 * that host is gone.  ft__remote_release: tell every agent that no
 * more restarts will come, so that it ends with its processes.
 */
void	 ft__remote_setenv(struct ft__remote *, char **env, size_t n);
uint32_t ft__remote_alive(const struct ft__remote *, uint8_t *alive);
int	 ft__remote_respawn(struct ft__remote *, uint32_t host,
	    const struct ft_msg_job_respawn *);
void	 ft__remote_release(struct ft__remote *);

/* Close every connection: the agents kill what is left. */
void	 ft__remote_free(struct ft__remote *);

#endif
