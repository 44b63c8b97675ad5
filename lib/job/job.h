/* SPDX-License-Identifier: ISC */
/*
 * Jobs: what a rank learns from its launcher, the launcher <-> rank
 * handshake (REGISTER, TABLE, FINALIZE, ABORT), and the launcher itself:
 * spawning ranks, forwarding their stdio whole lines at a time,
 * supervising them, and the job's exit status.  ftrun is a thin front
 * end over ft_launch_run; the ftboot daemon will reuse the same pieces.
 */
#ifndef FT_JOB_H
#define FT_JOB_H

#include <stdio.h>
#include <sys/types.h>

#include "../net/net.h"
#include "inject.h"

/* Environment variables the launcher sets for every rank. */
#define FT_ENV_RANK	"FT_RANK"
#define FT_ENV_SIZE	"FT_SIZE"
#define FT_ENV_NODE	"FT_NODE"
#define FT_ENV_LAUNCHER	"FT_LAUNCHER"	/* address of the launcher */
#define FT_ENV_KEYFD	"FT_KEY_FD"	/* fd holding the 32-byte job key */
#define FT_ENV_JOBDIR	"FT_JOB_DIR"	/* private directory for sockets */
#define FT_ENV_TCP	"FT_TCP"	/* "1": TCP even on one host */
#define FT_ENV_TCP_HOST	"FT_TCP_HOST"	/* multi-host: listen on TCP there */
#define FT_ENV_PROTO	"FT_PROTO"
#define FT_ENV_REPLICA	"FT_REPLICA"	/* this process's replica index */
#define FT_ENV_REPLICAS	"FT_REPLICAS"	/* replicas of every rank, R */
#define FT_ENV_DIVERGE	"FT_CHECK_DIVERGENCE"	/* "1": compare digests */
#define FT_REPLICAS_MAX	16
/*
 * Message logging (--ft vlog): the event logger's address, the job's
 * id in its log (16 hex digits), and the process's incarnation (0 at
 * the start, then 1, 2... for each restart).  FT_VLOG_LOG_MEM (bytes of
 * the sender log kept in memory) and FT_VLOG_STRICT ("1": every send
 * waits for every determinant) are the user's, through ftrun -x.
 */
#define FT_ENV_LOG_ADDR		"FT_LOG_ADDR"
#define FT_ENV_JOB_ID		"FT_JOB_ID"
#define FT_ENV_INCARNATION	"FT_INCARNATION"
#define FT_ENV_LOG_KEYFD	"FT_LOG_KEY_FD"	/* --log-server: its key */
#define FT_ENV_LOG_MEM		"FT_VLOG_LOG_MEM"
#define FT_ENV_VLOG_STRICT	"FT_VLOG_STRICT"
/*
 * --ft ftmpi (ft-ftmpi(3)): the job's communicator and message modes,
 * by name ("shrink", "cont"...).  A replacement process of REBUILD
 * gets FT_INCARNATION too.
 */
#define FT_ENV_FTMPI_COMM	"FT_FTMPI_COMM_MODE"
#define FT_ENV_FTMPI_MSG	"FT_FTMPI_MSG_MODE"

/* FT-MPI's communicator modes and message modes (ft-ftmpi(3)). */
enum ft_ftmpi_comm {
	FT_FTMPI_SHRINK = 1,
	FT_FTMPI_BLANK,
	FT_FTMPI_REBUILD,
	FT_FTMPI_ABORT,
};
enum ft_ftmpi_msg {
	FT_FTMPI_CONT = 1,
	FT_FTMPI_NOP,
};
/*
 * A mode by name, case ignored, with FT-MPI's spellings too
 * ("FTMPI_COMM_MODE_SHRINK", "FT_MODE_NOP"...): the enum's value, or -1
 * when name is none of them.  _name gives the lower-case name.
 */
int		 ft_ftmpi_comm_parse(const char *name);
int		 ft_ftmpi_msg_parse(const char *name);
const char	*ft_ftmpi_comm_name(int mode);
const char	*ft_ftmpi_msg_name(int mode);
/* --inject ...,after-sends=N: the process kills itself after N sends. */
#define FT_ENV_KILL_AFTER	"FT_KILL_AFTER_SENDS"
#define FT_ENV_KILL_SIGNAL	"FT_KILL_SIGNAL"
/*
 * Dynamic processes: the process id of rank 0 of this process's world
 * (0 for the job's first world; a world is the MPI_COMM_WORLD of the
 * processes started together), the world's number (0, then 1, 2, ...
 * in the order of the spawns), the universe size (the processes that
 * may be alive at once, MPI_UNIVERSE_SIZE), the command number
 * in MPI_Comm_spawn_multiple (MPI_APPNUM), and "1" when the world was
 * spawned: it then waits for a REPLY of reqid 0, after the TABLE, that
 * names its parents.
 */
#define FT_ENV_WORLD_BASE	"FT_WORLD_BASE"
#define FT_ENV_WORLD		"FT_WORLD"
#define FT_ENV_UNIVERSE		"FT_UNIVERSE_SIZE"
#define FT_ENV_APPNUM		"FT_APPNUM"
#define FT_ENV_PARENT		"FT_PARENT"
/*
 * Process ids are never reused: a spawn takes the ids after every id
 * given so far, so a job that replaces its dead goes past the universe
 * size.  Each id at or past it draws its own context ids from a block
 * of its own (lib/mpi/misc.c), and there are this many blocks: the
 * most process ids a job gives over its life is the universe size plus
 * this (and at most FT_WIRE_MAX_RANKS).
 */
#define FT_JOB_IDS_PAST_UNIVERSE	16383u
/* The write end of the heartbeat pipe, and the period of the beats. */
#define FT_ENV_HB_FD		"FT_HEARTBEAT_FD"
#define FT_ENV_HB_PERIOD	"FT_HEARTBEAT_MS"

/* What a rank is told by its environment. */
struct ft_job_env {
	uint32_t	rank, size, node;
	uint32_t	replica, nrep;	/* nrep >= 1; process id rank*nrep+replica */
	/* Dynamic processes (nrep 1): process id base + rank. */
	uint32_t	base, world, universe, appnum;
	int		spawned;	/* has a parent world */
	int		check_divergence;
	char		launcher[FT_WIRE_ADDR_MAX];
	char		dir[FT_WIRE_ADDR_MAX];
	char		proto[32];
	uint8_t		key[FT_WIRE_KEYLEN];
	int		force_tcp;
	char		tcp_host[FT_WIRE_ADDR_MAX];	/* "" unless multi-host */
};

/*
 * Read the job environment through get (getenv, or a test double).
 * Reads the key from its descriptor and closes it.  Returns 1 when the
 * process runs under a launcher, 0 when it runs alone (singleton: rank
 * 0 of 1), -1 with errno EINVAL and a reason in *why when the
 * environment is malformed.
 */
int	 ft_job_env_read(struct ft_job_env *,
	    const char *(*get)(const char *), const char **why);

/*
 * Read a 32-byte key from fd (a pipe the launcher filled) and close fd.
 * Returns 0, or -1 with EINVAL when fewer bytes came.
 */
int	 ft_job_key_read(int fd, uint8_t key[FT_WIRE_KEYLEN]);

/*
 * Connect to the launcher, authenticate, REGISTER self and wait for the
 * TABLE, blocking up to timeout_ms.  On success the ready connection is
 * in *ctl and the table in *table (free with ft_msg_table_free).
 * Returns 0, or -1 with errno (ETIMEDOUT, EACCES, EPROTO, ECONNRESET).
 */
int	 ft_job_join(const struct ft_job_env *, const struct ft_rank_addr *self,
	    struct ft_conn *ctl, struct ft_msg_table *table, int timeout_ms);

/* This process's id in the job: base + rank * nrep + replica. */
uint32_t ft_job_self(const struct ft_job_env *);

/*
 * After ft_job_join, wait on ctl up to timeout_ms for the next frame,
 * which must be of type; the frame is in *h and *body until the next
 * call on ctl.  Returns 0, or -1 with errno (EPROTO: another type).
 */
int	 ft_job_await(struct ft_conn *ctl, unsigned int type, struct ft_hdr *h,
	    const uint8_t **body, int timeout_ms);

/*
 * Heartbeats (heartbeat.c): a thread of every rank writes one record to
 * its host agent's pipe every period, from MPI_Init to exit.  Records
 * are FT_HB_RECLEN bytes, big-endian: magic, process id, flags, the
 * milliseconds the main thread has been in its present state (inside or
 * outside an MPI wait), and the MPI operations it has completed.
 */
#define FT_HB_MAGIC	0x46544842u	/* "FTHB" */
#define FT_HB_RECLEN	24
#define FT_HB_IN_MPI	0x1u	/* the main thread waits inside MPI */
#define FT_HB_FINALIZED	0x2u	/* it has left MPI_Finalize */
#define FT_HB_FLAGS	(FT_HB_IN_MPI | FT_HB_FINALIZED)

struct ft_hb_rec {
	uint32_t	 id;		/* process id, rank * R + replica */
	uint32_t	 flags;
	uint32_t	 state_ms;
	uint64_t	 completed;
};

void	 ft_hb_encode(uint8_t out[FT_HB_RECLEN], const struct ft_hb_rec *);
/*
 * Find the next record in buf.  Returns 1 with it in *r, or 0 when buf
 * holds no whole record; either way *used bytes of buf are done with
 * (the record, and bytes before it that are not one).
 */
int	 ft_hb_decode(const uint8_t *buf, size_t len, size_t *used,
	    struct ft_hb_rec *r);
/* Start beating on fd every period_ns as process id.  Returns 0 or -1. */
int	 ft_hb_start(int fd, uint32_t id, uint64_t period_ns);
void	 ft_hb_stop(void);
/* What the next beats say: FT_HB_* flags and operations completed. */
void	 ft_hb_state(unsigned int flags, uint64_t completed);

/* A host that runs processes of the job through its agent (--host). */
struct ft_launch_host {
	char	 addr[FT_WIRE_ADDR_MAX];	/* the agent's daemon, "tcp:host:port" */
	char	 name[FT_WIRE_NODE_MAX];
	uint8_t	 token[16];
	uint32_t nprocs;			/* processes placed there */
};

/* What ft_launch_run needs to run a job on this host, or across hosts. */
struct ft_launch {
	uint32_t	  nranks;
	char		**argv;		/* program and arguments */
	char		**setenv;	/* "VAR=VALUE" for every rank */
	size_t		  nsetenv;
	int		  tag_output;
	uint64_t	  timeout_ns;	/* 0: none */
	uint64_t	  grace_ns;	/* SIGTERM to SIGKILL */
	uint64_t	  hang_ns;	/* silence that fails a process; 0: off */
	FILE		 *events;	/* JSON lines, or NULL */
	const char	 *events_name;	/* its name for messages; "-": stdout */
	int		  force_tcp;
	const char	 *proto;	/* fault-tolerance protocol name */
	const char	 *detector;	/* gossip schedule between hosts */
	uint64_t	  gossip_period_ns;
	const char	 *tmpdir;	/* parent of the job directory */
	const char	 *path;		/* PATH to find the program in */
	uint32_t	  nrep;		/* replicas of every rank (-r), >= 1 */
	int		  check_divergence;
	const struct ft_inject *inject;	/* faults to inject */
	size_t		  ninject;
	/* Processes that may be alive at once, spawned ones included
	 * (MPI_UNIVERSE_SIZE); 0: nranks * nrep. */
	uint32_t	  universe;
	/*
	 * Across hosts: every process is started by the agent of its
	 * host, and ftrun only coordinates.  NULL: run everything here.
	 */
	const struct ft_launch_host *hosts;
	size_t		  nhosts;
	const uint32_t	 *host_of_proc;	/* nranks*nrep entries: into hosts */
	const uint8_t	 *cluster_key;	/* FT_WIRE_KEYLEN bytes */
	char * const	 *stage;	/* --stage FILE or URL */
	size_t		  nstage;
	/*
	 * --ft vlog: the event logger to use (--log-server ADDR), or NULL
	 * to start one (ftlog serve) that logs in log_dir (--log-dir,
	 * kept after the job), or else in a directory made for the job
	 * and removed when it ends well; log_sync is its --sync mode.
	 */
	const char	 *log_server;
	const char	 *log_dir;
	const char	 *log_sync;
	/* The key of log_server (the cluster key file's): ranks get it
	 * on a pipe, FT_LOG_KEY_FD.  NULL: the job key. */
	const uint8_t	 *log_key;
	/* --ft coord: ftrun's checkpoint scheduler (--ckpt-interval with
	 * --ckpt-dir); 0: the ranks' own. */
	uint64_t	  ckpt_interval_ns;
	/* --ckpt-server auto: ftrun runs `ftckpt serve` on loopback,
	 * storing in ckpt_serve_dir (NULL: none), with the key in the
	 * file ckpt_serve_key. */
	const char	 *ckpt_serve_dir;
	const char	 *ckpt_serve_key;
	/* --ft coord: the job's images (--ckpt-dir, realpath) and id;
	 * ftrun pins each rank's complete epoch in its lease, so that a
	 * prune between two generations of processes leaves it. */
	const char	 *ckpt_dir;
	uint64_t	  ckpt_job;
	/* ftrun --record DIR: rank 0's standard input is kept
	 * in DIR (ft-record(5)); NULL: not recorded. */
	const char	 *record_dir;
	/* --ft ftmpi (ftmpi): the job's communicator mode
	 * (FT_FTMPI_SHRINK ...); 0 for other protocols. */
	int		  ftmpi_comm;
	/* --ft coord, --ckpt-interval auto (coordperf): ftrun's
	 * scheduler sets its interval by Young's formula. */
	int		  ckpt_interval_auto;
	/* --ft vlog, --ckpt-policy rr|adaptive with --ckpt-interval
	 * (issue 15): ftrun gives each rank its turn (vsched.h);
	 * FT__VSCHED_ALL (0): the ranks' own timers. */
	int		  ckpt_policy;
	/* --ft coord with a checkpoint server (coordsrv): ftrun names
	 * the epoch every rank pushes (PUSH, FT_CKPT_PUSH=ftrun). */
	int		  ckpt_push;
};

#define FT_LAUNCH_TIMEOUT_STATUS	124
/* --hang-timeout: see ftrun(1) for the measurements behind the default. */
#define FT_HANG_TIMEOUT_DEFAULT	10000000000u	/* 10 s */
#define FT_HANG_TIMEOUT_MIN	100000000u	/* 100 ms */

/*
 * Run a job to its end and return its exit status as mpirun does: 0
 * when every rank exited 0, else the status of the lowest rank that
 * exited non-zero by itself, 128+N for a rank killed by signal N, the
 * code given to MPI_Abort, FT_LAUNCH_TIMEOUT_STATUS on a timeout.
 * Failures before any rank started return FT_EXIT_USAGE, FT_EXIT_TEMP,
 * 126 or 127 after a diagnostic.  Blocks; handles SIGINT, SIGTERM,
 * SIGHUP and SIGCHLD while it runs.
 */
int	 ft_launch_run(const struct ft_launch *);

/*
 * Find prog as execvp(3) would.  Returns 0 with the path in out, or -1
 * with ENOENT (not found), EACCES (found, not executable), EISDIR (a
 * directory), or what stat(2) said of a name with a slash (ELOOP,
 * ENOTDIR, ENAMETOOLONG...).  Only ENOENT means "not found": a shell
 * exits 127 for it, 126 for the others.
 */
int	 ft_find_program(const char *prog, const char *path, char *out,
	    size_t outsize);

/*
 * The open files a job of cf needs at most: in ftrun, and in each rank
 * (one that talks to every other process), counting those open now,
 * which the ranks inherit.  An estimate from what the launcher and the
 * engine keep open (see fds.c); cf->events_name counts for one more.
 */
struct ft_launch_fds {
	uint64_t	launcher;	/* about 3 a process, and a few */
	uint64_t	rank;		/* about 2 a process, and a few */
};
void	 ft_launch_fds(const struct ft_launch *cf, struct ft_launch_fds *);

/*
 * Raise the soft limit on open files (RLIMIT_NOFILE) of this process,
 * which the ranks inherit, to the hard limit.  Returns 0 with the new
 * soft limit in *limit, which is then at least need; -1 with EMFILE and
 * the hard limit in *limit when the hard limit is below need (nothing
 * changed); -1 with the errno of setrlimit(2).
 */
int	 ft_launch_nofile(uint64_t need, uint64_t *limit);

#endif
