/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/job: the launcher of a job (ft_launch_run, job.h), its
 * state and what its files share.  launch.c holds ft_launch_run and
 * the loop, and calls the other launch_*.c files, one concern each,
 * named at their prototypes below; none of them calls launch.c.
 * Everything here runs in ftrun's one thread, on the one struct
 * launcher of the job.  ft__l_* are the launcher's internals: nothing
 * outside launch*.c calls them (spawn.c goes through spawn.h's
 * ft__launch_*, in launch_proc.c).
 */
#ifndef FT_JOB_LAUNCH_IMPL_H
#define FT_JOB_LAUNCH_IMPL_H

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "job.h"
#include "coord.h"
#include "vsched.h"
#include "child.h"
#include "logger.h"
#include "remote.h"
#include "relocate.h"
#include "spawn.h"
#include "../store/store.h"

#define LINE_MAX_FWD	(64u << 10)	/* a longer line is split */

struct outbuf {
	int	 fd;		/* read end of the rank's pipe, or -1 */
	int	 to;		/* STDOUT_FILENO or STDERR_FILENO */
	char	*buf;
	size_t	 len;
	uint64_t off;		/* bytes of the stream before buf */
};

enum rank_state {
	R_RUNNING = 0,
	R_EXITED,
};

struct lrank {
	pid_t		 pid;
	enum rank_state	 state;
	int		 status;	/* wait(2) status */
	int		 registered;
	int		 finalized;
	int		 killed;	/* we sent it a signal while aborting */
	int		 aborted;	/* it sent ABORT and exits by itself */
	struct ft_rank_addr addr;
	struct lconn	*conn;
	struct outbuf	 out, err;
	uint32_t	 rank, replica;	/* process id = rank * R + replica */
	int		 dead;		/* failed; its replicas go on */
	int		 injected;	/* after-sends armed (--inject) */
	int		 doomed;	/* --inject signalled it */
	int		 sent_sig;	/* the last signal we sent it, or 0 */
	int		 stopped;	/* stopped by a signal (WUNTRACED) */
	int		 hung;		/* silent too long: we killed it */
	/* Heartbeats: watched from the first beat on. */
	uint64_t	 hb_last;	/* when the last beat arrived, or 0 */
	uint64_t	 hb_completed;	/* MPI operations it has completed */
	uint64_t	 hb_progress_at;	/* when that number last grew */
	uint32_t	 hb_flags, hb_state_ms;
	/* Added to the running job (spawn.c), or NULL. */
	const struct ft_launch_proc *spec;
	/* Across hosts: started by the agent of host, pid is there. */
	int		 remote;
	int		 lost;		/* failed with its host */
	uint32_t	 host;
	/* --ft vlog: restarts so far (0: the first process), and when
	 * the last one died (ft_now_ns). */
	uint32_t	 incarnation;
	uint64_t	 died_ns;
	/* --ft coord: where its output stood at its cuts since the
	 * complete epoch, and which images are durable (coord.c). */
	struct ft__coord_cuts ck_cuts;
	uint64_t	 ck_recv;	/* --ft vlog: its last "recv=" */
	int		 ck_lease;	/* its lease's fd + 1, 0: none */
	/* ckptsrv2: it said it cannot reach the checkpoint server (its
	 * incarnation + 1), and has not said it reached it since; 0: no. */
	uint32_t	 ck_srvdown;
};

struct lconn {
	struct ft_conn	 c;
	int		 rank;		/* -1 until REGISTER */
	int		 closed;
};

struct launcher {
	const struct ft_launch	*cf;
	uint8_t			 key[FT_WIRE_KEYLEN];
	char			 dir[256];
	char			 sock[300];
	char			 addr[FT_WIRE_ADDR_MAX];
	int			 lfd;
	struct lrank		*ranks;
	uint32_t		 n, running, registered, finalized;
	int			 unjoined;	/* exited 0, never joined */
	struct lconn		**conns;
	size_t			 nconns;
	/* stdin forwarding to rank 0 */
	int			 stdin_open;
	int			 in_open;	/* rank 0's pipes still open */
	char			 inbuf[4096];
	size_t			 inlen;
	struct ft_rec_stdin	 inrec;		/* --record: what was read */
	/* How the job ends. */
	int			 aborting;
	int			 abort_status;	/* -1: decide from ranks */
	int			 abort_is_error;	/* a rank's error, not MPI_Abort */
	uint64_t		 kill_at;	/* when to send SIGKILL */
	int			 table_sent;
	int			 stdout_broken;
	uint64_t		 deadline;
	int			 user_signal;	/* SIGINT/TERM/HUP forwarded */
	const char		*progname;
	uint64_t		 drain_at;
	int			 watchdog_fd;	/* write end, or -1 */
	int			 events_failed;	/* a write error was reported */
	uint64_t		 view_epoch;	/* membership view of the ranks */
	/* Replication: n = nranks * nrep processes. */
	uint32_t		 nranks, nrep;
	int			 ulfm;		/* --ft ulfm: deaths go on */
	int			 rebuild;	/* --ft ftmpi --comm-mode rebuild */
	uint64_t		*printed;	/* per rank: stdout, stderr */
	uint32_t		 ndead;
	uint64_t		 started_ns;	/* when the table went out */
	uint64_t		*inj_next;	/* per --inject: next time */
	uint64_t		*inj_kills;
	uint64_t		 rng;
	int			 in_fds[FT_REPLICAS_MAX];	/* rank 0's */
	size_t			 in_offs[FT_REPLICAS_MAX];
	/* Across hosts, rank 0's input goes through its agent instead. */
	int			 in_remote[FT_REPLICAS_MAX];
	/* Heartbeats: every process writes records to one pipe. */
	int			 hb_fd, hb_wfd;	/* read and write ends */
	uint64_t		 hb_period_ns;
	uint8_t			 hb_buf[64 * FT_HB_RECLEN];
	size_t			 hb_len;
	uint64_t		 hb_maxgap_ns;	/* longest silence seen */
	uint32_t		 hb_maxgap_id;
	uint64_t		 hb_beats;
	uint64_t		 hb_read_at;	/* our last read of the pipe */
	struct ft_ratelim	 refusals;	/* warnings about strangers */
	struct ft_spawner	*sp;		/* dynamic processes (spawn.c) */
	uint32_t		 n0;		/* processes started at first */
	const sigset_t		*origmask;	/* what processes start with */
	struct ft__remote	*rm;		/* the agents, across hosts */
	int			 exec_failed;	/* an agent's exec failed */
	uint32_t		 respawning;	/* restarts asked of agents */
	char			*rm_env[2];	/* vlog: the logger, the job id */
	/* --ft vlog: dead processes are restarted; the event logger. */
	int			 vlog;
	char			 prog[4096];	/* the program, to restart */
	uint64_t		 job_id;
	const char		*log_addr;
	struct ft__logger	 logger;	/* pid -1: not ours */
	char			 logdir[300];	/* made for this job, or "" */
	const char		*logdir_used;	/* the one it logs in */
	uint32_t		 logger_restarts;
	uint64_t		 restarts;
	/* --ft coord: every rank rolls back on a failure. */
	struct ft__coord	 coord;
	/* --ft coord: a rank's error waiting for coord.err_at. */
	struct ft_msg_abort	 coord_err;
	uint32_t		 coord_err_rank;
	struct ft__vsched	 vs;	/* --ft vlog --ckpt-policy rr|adaptive */
	/* --ckpt-server auto: the checkpoint server we run, its key. */
	struct ft__logger	 ckserver;	/* pid -1: none */
	char			 ckkey[320];
	/* ckptsrv2: the auto server is restarted on its address, at most
	 * FT__CKSERVER_RESTARTS_MAX times (gone: not any more); down: the
	 * server (auto or by hand) died or a rank cannot reach it, said
	 * once until a rank reaches it again. */
	uint32_t		 ckserver_restarts;
	int			 ckserver_gone, ckserver_down;
};

/* launch_end.c: signals to processes, aborting, the exit status. */
void	 ft__l_proc_signal(struct launcher *l, uint32_t i, int sig);
void	 ft__l_signal_ranks(struct launcher *l, int sig, int mark_killed);
int	 ft__l_ended_by_us(const struct lrank *r);
void	 ft__l_abort_job(struct launcher *l, int status);
void	 ft__l_unjoinable(struct launcher *l, uint32_t i);
void	 ft__l_rank_aborted(struct launcher *l, struct lrank *r,
	    const struct ft_msg_abort *ab);
int	 ft__l_job_status(struct launcher *l);
void	 ft__l_kill_leftovers(struct launcher *l);

/* launch_events.c: --events lines, and names in messages. */
const char *ft__l_who(const struct launcher *l, uint32_t i, char *buf,
	    size_t size);
const char *ft__l_replica_field(const struct launcher *l,
	    const struct lrank *r, char *buf, size_t size);
void	 ft__l_events_flush(struct launcher *l);
void	 ft__l_event(struct launcher *l, const char *fmt, ...)
	    FT_PRINTF(2, 3);
void	 ft__l_json_quote(const char *s, char *out, size_t outsize);
void	 ft__l_describe_status(int st, char *out, size_t outsize);

/* launch_proc.c: starting a process here; spawn.h's ft__launch_*. */
int	 ft__l_spawn(struct launcher *l, uint32_t i, const char *prog,
	    const sigset_t *origmask, int *errfd);

/* launch_output.c: the ranks' output, rank 0's input. */
void	 ft__l_flush_lines(struct launcher *l, uint32_t i, struct outbuf *o,
	    int final);
void	 ft__l_end_outputs(struct launcher *l);
void	 ft__l_read_output(struct launcher *l, uint32_t rank, struct outbuf *o);
void	 ft__l_close_stdin(struct launcher *l);
int	 ft__l_stdin_drained(const struct launcher *l);
void	 ft__l_forward_stdin(struct launcher *l);
void	 ft__l_cut_output(struct launcher *l, struct lrank *r, uint64_t epoch);
void	 ft__l_drain_output(struct launcher *l, uint32_t i, struct outbuf *o);
int	 ft__l_outputs_open(const struct launcher *l);

/* launch_jobdir.c: the job directory, the watchdog. */
int	 ft__l_make_jobdir(struct launcher *l);
void	 ft__l_remove_jobdir(struct launcher *l);
int	 ft__l_start_watchdog(struct launcher *l);
void	 ft__l_watchdog_tell(struct launcher *l, pid_t pgid);
int	 ft__l_pipe_cloexec(int p[2]);

/* launch_conn.c: the ranks' connections and their frames. */
void	 ft__l_send_frame(struct lconn *lc, const struct ft_wbuf *wb);
void	 ft__l_finalize_check(struct launcher *l);
void	 ft__l_lconn_read(struct launcher *l, struct lconn *lc);
void	 ft__l_accept_conns(struct launcher *l);
void	 ft__l_send_view(struct launcher *l);
void	 ft__l_close_lconns(struct launcher *l);

/* launch_fail.c: exits, failures, restarts, coord's rollbacks. */
uint32_t ft__l_master_of(const struct launcher *l, uint32_t rank);
void	 ft__l_process_failed(struct launcher *l, uint32_t i, const char *how);
void	 ft__l_rank_exited(struct launcher *l, uint32_t i, int st);
void	 ft__l_rank_stopped(struct launcher *l, uint32_t i, int st);
void	 ft__l_reap_children(struct launcher *l);

/* launch_ckpt.c: --ft coord's checkpoints, vlog's images. */
int	 ft__l_vlog_ckpt_note(struct launcher *l, struct lconn *lc,
	    const char *text);
void	 ft__l_vlog_sched_tick(struct launcher *l, uint64_t now);
void	 ft__l_coord_tick(struct launcher *l, uint64_t now);
void	 ft__l_coord_finalized(struct launcher *l);
void	 ft__l_coord_image(struct launcher *l, uint32_t rank, uint64_t epoch,
	    int durable);
int	 ft__l_coord_note(struct launcher *l, struct lconn *lc,
	    const char *text);

/* launch_remote.c: across hosts, the agents' reports. */
int	 ft__l_remote_vlog_env(struct launcher *l);
void	 ft__l_remote_cb(struct launcher *l, struct ft__remote_cb *rcb);

/* launch_servers.c: the event logger, the checkpoint server. */
int	 ft__l_start_logger(struct launcher *l);
void	 ft__l_logger_died(struct launcher *l, int st);
void	 ft__l_stop_logger(struct launcher *l, int status);
void	 ft__l_ckserver_died(struct launcher *l, int st);
int	 ft__l_start_ckserver(struct launcher *l);
void	 ft__l_ckserver_reach(struct launcher *l, uint32_t i, uint32_t rank,
	    int up);

/* launch_hang.c: heartbeats, hangs, the timeout. */
void	 ft__l_hb_note(struct launcher *l, const struct ft_hb_rec *rec,
	    uint64_t now);
void	 ft__l_read_heartbeats(struct launcher *l);
void	 ft__l_check_hangs(struct launcher *l);
int	 ft__l_open_heartbeats(struct launcher *l);
void	 ft__l_heartbeat_event(struct launcher *l);
uint64_t ft__l_next_hang_check(const struct launcher *l);
void	 ft__l_on_timeout(struct launcher *l);

/* launch_inject.c: timed fault injection. */
void	 ft__l_inject_due(struct launcher *l, uint64_t now);
uint64_t ft__l_inject_next(const struct launcher *l);

#endif
