/* SPDX-License-Identifier: ISC */
/*
 * The launcher: spawn every rank of a job on this host, give each the job
 * key and the launcher's address, answer REGISTER with the TABLE once all
 * have registered, release FINALIZE once all have finalized, forward
 * stdio a whole line at a time, and end the job as mpirun would.
 *
 * Signals are blocked except inside ppoll, whose handlers only set flags,
 * so the loop sees every SIGCHLD, SIGINT and SIGTERM between two polls.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
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
};

static void	process_rejoined(struct launcher *, uint32_t);
static int	coord_note(struct launcher *, struct lconn *, const char *);
static int	vlog_ckpt_note(struct launcher *, struct lconn *, const char *);
static void	vlog_sched_tick(struct launcher *, uint64_t);
static void	coord_finalized(struct launcher *);
static void	coord_reaped(struct launcher *);
static void	coord_pin(struct launcher *, uint64_t);
static void	reap_children(struct launcher *);

static volatile sig_atomic_t got_chld, got_term;
static volatile sig_atomic_t term_signo;

static void
on_signal(int sig)
{
	if (sig == SIGCHLD)
		got_chld = 1;
	else {
		got_term = 1;
		term_signo = sig;
	}
}

static void
event(struct launcher *l, const char *fmt, ...) FT_PRINTF(2, 3);

/* "rank R", or "rank R replica K" in a replicated job, for messages. */
static const char *
who(const struct launcher *l, uint32_t i, char *buf, size_t size)
{
	if (l->ranks[i].spec != NULL)
		snprintf(buf, size, "rank %s", l->ranks[i].spec->label);
	else if (l->nrep > 1)
		snprintf(buf, size, "rank %u replica %u", i / l->nrep,
		    i % l->nrep);
	else
		snprintf(buf, size, "rank %u", i);
	return buf;
}

/* An event's "replica":K, field in a replicated job, else "". */
static const char *
replica_field(const struct launcher *l, const struct lrank *r, char *buf,
    size_t size)
{
	buf[0] = '\0';
	if (l->nrep > 1)
		snprintf(buf, size, "\"replica\":%u,", r->replica);
	return buf;
}

/*
 * Flush the events written so far.  The first write error is reported,
 * once; the job goes on, and ftrun's exit status tells of the loss (the
 * error stays set on the stream).  errno is kept for the caller.
 */
static void
events_flush(struct launcher *l)
{
	const char *name = l->cf->events_name;
	int saved = errno;

	errno = 0;
	if ((fflush(l->cf->events) != 0 || ferror(l->cf->events)) &&
	    !l->events_failed) {
		l->events_failed = 1;
		if (errno == 0)
			errno = EIO;
		if (l->cf->events == stdout)
			ft_error("unable to write the events to standard "
			    "output");
		else
			ft_error("events file '%s'", name != NULL ? name :
			    "?");
	}
	errno = saved;
}

/* One JSON object per line: {"t":<monotonic s>,"event":...}. */
static void
event(struct launcher *l, const char *fmt, ...)
{
	va_list ap;

	if (l->cf->events == NULL)
		return;
	fprintf(l->cf->events, "{\"t\":%.6f,", ft_now());
	va_start(ap, fmt);
	vfprintf(l->cf->events, fmt, ap);
	va_end(ap);
	fputs("}\n", l->cf->events);
	events_flush(l);
}

/* Write a JSON string body: the reason texts we emit are ours, but a
 * rank's MPI_Abort message is not. */
static void
json_quote(const char *s, char *out, size_t outsize)
{
	size_t o = 0;

	for (; *s != '\0' && o + 7 < outsize; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			out[o++] = '\\';
			out[o++] = (char)ch;
		} else if (ch < 0x20) {
			o += (size_t)snprintf(out + o, outsize - o, "\\u%04x",
			    ch);
		} else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
}

int
ft_find_program(const char *prog, const char *path, char *out,
    size_t outsize)
{
	const char *p, *colon;
	int found_noexec = 0;
	struct stat sb;
	size_t dlen;

	if (strchr(prog, '/') != NULL) {
		/* stat's errno says why: ENOENT, ELOOP, ENOTDIR... */
		if (stat(prog, &sb) != 0)
			return -1;
		if (S_ISDIR(sb.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (access(prog, X_OK) != 0) {
			errno = EACCES;
			return -1;
		}
		snprintf(out, outsize, "%s", prog);
		return 0;
	}
	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchr(p, ':');
		dlen = colon != NULL ? (size_t)(colon - p) : strlen(p);
		if ((int)snprintf(out, outsize, "%.*s%s%s", (int)dlen, p,
		    dlen > 0 ? "/" : "", prog) < (int)outsize &&
		    stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			found_noexec = 1;
		}
		if (colon == NULL)
			break;
	}
	errno = found_noexec ? EACCES : ENOENT;
	return -1;
}

static int
pipe_cloexec(int p[2])
{
	return pipe2(p, O_CLOEXEC);
}

/* Signal process i's group, here or through the agent of its host. */
static void
proc_signal(struct launcher *l, uint32_t i, int sig)
{
	struct lrank *r = &l->ranks[i];

	if (r->remote)
		ft__remote_signal(l->rm, i, sig);
	else if (killpg(r->pid, sig) != 0)
		(void)kill(r->pid, sig);
}

/* Kill every running rank's process group with sig. */
static void
signal_ranks(struct launcher *l, int sig, int mark_killed)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (l->ranks[i].state != R_RUNNING || l->ranks[i].pid <= 0)
			continue;
		/* A rank that asked for the abort exits with its code on
		 * its own; only SIGKILL, after the grace period, is for it. */
		if (l->ranks[i].aborted && sig != SIGKILL)
			continue;
		if (mark_killed)
			l->ranks[i].killed = 1;
		l->ranks[i].sent_sig = sig;
		proc_signal(l, i, sig);
	}
}

/*
 * Did process i end because of us (a signal we sent while ending the
 * job, or its own ABORT), rather than by itself?  A process we sent
 * SIGTERM that died of SIGKILL before the grace period ran out was
 * killed by someone else: that death is a cause, not a consequence.
 */
static int
ended_by_us(const struct lrank *r)
{
	if (r->aborted)
		return 1;
	if (!r->killed)
		return 0;
	if (WIFSIGNALED(r->status))
		return WTERMSIG(r->status) == r->sent_sig ||
		    WTERMSIG(r->status) == SIGTERM;
	return 1;
}

/* Start ending the job: SIGTERM now, SIGKILL after the grace period. */
static void
abort_job(struct launcher *l, int status)
{
	if (l->aborting)
		return;
	l->aborting = 1;
	l->abort_status = status;
	signal_ranks(l, SIGTERM, 1);
	l->kill_at = ft_now_ns() + l->cf->grace_ns;
}

static void
describe_status(int st, char *out, size_t outsize)
{
	if (WIFSIGNALED(st))
		snprintf(out, outsize, "was killed by signal %d (%s)",
		    WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(out, outsize, "exited with status %d",
		    WEXITSTATUS(st));
}

/*
 * Write process i's whole lines.  The replicas of a rank write the same
 * stream: a line is printed by the first replica to reach it, so each
 * byte of the rank's output is printed once, in order, whichever
 * replicas die on the way.
 */
static void
flush_lines(struct launcher *l, uint32_t i, struct outbuf *o, int final)
{
	uint32_t rank = l->ranks[i].rank;
	uint64_t *printed = &l->printed[2 * rank + (o->to == STDERR_FILENO)];
	char prefix[32], *nl, *line;
	size_t plen = 0, llen, start = 0, skip;
	struct iovec iov[3];
	ssize_t n;

	if (l->cf->tag_output && l->ranks[i].spec != NULL)
		plen = (size_t)snprintf(prefix, sizeof(prefix), "[%s] ",
		    l->ranks[i].spec->label);
	else if (l->cf->tag_output)
		plen = (size_t)snprintf(prefix, sizeof(prefix), "[%u] ", rank);
	while (start < o->len) {
		line = o->buf + start;
		nl = memchr(line, '\n', o->len - start);
		if (nl != NULL)
			llen = (size_t)(nl - line) + 1;
		else if (final || (start == 0 && o->len == LINE_MAX_FWD))
			llen = o->len - start;
		else
			break;
		o->off += llen;
		start += llen;
		if (o->off <= *printed)
			continue;	/* another replica printed it */
		skip = *printed > o->off - llen ?
		    (size_t)(*printed - (o->off - llen)) : 0;
		*printed = o->off;
		line += skip;
		llen -= skip;
		iov[0].iov_base = prefix;
		iov[0].iov_len = skip > 0 ? 0 : plen;
		iov[1].iov_base = line;
		iov[1].iov_len = llen;
		/* A line cut by EOF or by its length is completed here, so
		 * the next one never starts on the same line. */
		iov[2].iov_base = "\n";
		iov[2].iov_len = line[llen - 1] == '\n' ? 0 : 1;
		if (!(o->to == STDOUT_FILENO && l->stdout_broken)) {
			size_t total = iov[0].iov_len + llen + iov[2].iov_len;
			int cnt = 3;
			struct iovec *v = iov;

			while (total > 0) {
				n = writev(o->to, v, cnt);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					if (o->to == STDOUT_FILENO)
						l->stdout_broken = 1;
					break;
				}
				total -= (size_t)n;
				while (cnt > 0 && (size_t)n >= v->iov_len) {
					n -= (ssize_t)v->iov_len;
					v++;
					cnt--;
				}
				if (cnt > 0) {
					v->iov_base = (char *)v->iov_base + n;
					v->iov_len -= (size_t)n;
				}
			}
		}
	}
	memmove(o->buf, o->buf + start, o->len - start);
	o->len -= start;
}

/*
 * Replicated: the last line of a rank's output, if it has no newline, is
 * printed from a replica that ended well; a replica that died may have
 * written only part of it.
 */
static void
end_outputs(struct launcher *l)
{
	struct lrank *r;
	uint32_t i;
	int k;

	if (l->nrep == 1 && !l->vlog && !l->coord.on)
		return;
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if (r->dead || r->state != R_EXITED || !WIFEXITED(r->status) ||
		    WEXITSTATUS(r->status) != 0)
			continue;
		for (k = 0; k < 2; k++)
			flush_lines(l, i, k ? &r->err : &r->out, 1);
	}
}

/* Read what a rank wrote; close the pipe on end of file. */
static void
read_output(struct launcher *l, uint32_t rank, struct outbuf *o)
{
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 16 && o->fd != -1; rounds++) {
		if (o->len == LINE_MAX_FWD)
			flush_lines(l, rank, o, 0);
		n = read(o->fd, o->buf + o->len, LINE_MAX_FWD - o->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			/* Replicated, a cut line is printed at the end, from
			 * a replica that ended well (end_outputs). */
			flush_lines(l, rank, o, l->nrep == 1 && !l->vlog &&
			    !l->coord.on);
			close(o->fd);
			o->fd = -1;
			break;
		}
		o->len += (size_t)n;
		flush_lines(l, rank, o, 0);
	}
}

static void
close_in(struct launcher *l, uint32_t k)
{
	if (l->in_remote[k]) {
		/* The end of input, once what was read has gone. */
		(void)ft__remote_input(l->rm, k, NULL, 0, 1);
		l->in_remote[k] = 0;
	} else if (l->in_fds[k] != -1) {
		close(l->in_fds[k]);
		l->in_fds[k] = -1;
	} else
		return;
	if (--l->in_open == 0)
		l->stdin_open = 0;
}

static void
close_stdin(struct launcher *l)
{
	uint32_t k;

	for (k = 0; k < l->nrep; k++)
		close_in(l, k);
	l->stdin_open = 0;
}

static int
in_open(const struct launcher *l, uint32_t k)
{
	return l->in_fds[k] != -1 || l->in_remote[k];
}

/* Has every replica of rank 0 taken the buffer?  Then read more. */
static int
stdin_drained(const struct launcher *l)
{
	uint32_t k;

	for (k = 0; k < l->nrep; k++)
		if (in_open(l, k) && l->in_offs[k] < l->inlen)
			return 0;
	return 1;
}

/* Our stdin goes to rank 0: to every replica of it, each at its pace. */
static void
forward_stdin(struct launcher *l)
{
	ssize_t n;
	uint32_t k;

	if (stdin_drained(l)) {
		n = read(STDIN_FILENO, l->inbuf, sizeof(l->inbuf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			close_stdin(l);
			return;
		}
		l->inlen = (size_t)n;
		ft_rec_stdin_add(&l->inrec, l->inbuf, l->inlen);
		for (k = 0; k < l->nrep; k++)
			l->in_offs[k] = 0;
	}
	for (k = 0; k < l->nrep; k++) {
		if (!in_open(l, k) || l->in_offs[k] == l->inlen)
			continue;
		if (l->in_remote[k]) {
			/* What the window takes; the rest after I/O. */
			n = ft__remote_input(l->rm, k, (const uint8_t *)l->inbuf +
			    l->in_offs[k], l->inlen - l->in_offs[k], 0);
			if (n < 0) {
				l->in_remote[k] = 0;
				if (--l->in_open == 0)
					l->stdin_open = 0;
			} else
				l->in_offs[k] += (size_t)n;
			continue;
		}
		n = write(l->in_fds[k], l->inbuf + l->in_offs[k],
		    l->inlen - l->in_offs[k]);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			/* It closed its stdin: the rest is not wanted. */
			close_in(l, k);
			continue;
		}
		l->in_offs[k] += (size_t)n;
	}
}

static int
make_jobdir(struct launcher *l)
{
	const char *tmp = l->cf->tmpdir != NULL ? l->cf->tmpdir : "/tmp";

	if ((size_t)snprintf(l->dir, sizeof(l->dir), "%s/ft.XXXXXX", tmp) >=
	    sizeof(l->dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdtemp(l->dir) == NULL)
		return -1;
	snprintf(l->sock, sizeof(l->sock), "unix:%s/launcher.sock", l->dir);
	return 0;
}

/* Remove job directory dir of n ranks: its sockets, then itself. */
static void
remove_jobdir_at(const char *dir, uint32_t n)
{
	char path[512];
	uint32_t i;

	snprintf(path, sizeof(path), "%s/launcher.sock", dir);
	(void)unlink(path);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/r%u.sock", dir, i);
		(void)unlink(path);
	}
	(void)rmdir(dir);
}

static void
remove_jobdir(struct launcher *l)
{
	if (l->dir[0] != '\0')
		remove_jobdir_at(l->dir, l->n);
}

/*
 * PR_SET_PDEATHSIG ends the ranks when ftrun is killed, but not what the
 * ranks started, and nothing would remove the job directory.  A watchdog,
 * detached from ftrun so that it is nobody's rank, learns the process
 * group of each rank through a pipe.  If the pipe closes without ftrun
 * first writing 0 (the job ended normally), ftrun died: the watchdog kills
 * those groups and removes the directory.
 */
static void
watchdog_run(int rfd, const char *dir, uint32_t n)
{
	pid_t *pgids = NULL, *grown;
	size_t npg = 0, cap = 0, k;
	int32_t pgid;
	ssize_t got;
	int devnull;

	(void)setsid();
	(void)prctl(PR_SET_NAME, "ftrun-watchdog");
	(void)signal(SIGINT, SIG_IGN);
	(void)signal(SIGTERM, SIG_IGN);
	(void)signal(SIGHUP, SIG_IGN);
	(void)signal(SIGPIPE, SIG_IGN);
	if ((devnull = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(devnull, STDIN_FILENO);
		(void)dup2(devnull, STDOUT_FILENO);
		(void)dup2(devnull, STDERR_FILENO);
	}
	(void)dup2(rfd, 3);
	closefrom(4);
	for (;;) {
		do
			got = read(3, &pgid, sizeof(pgid));
		while (got < 0 && errno == EINTR);
		if (got != (ssize_t)sizeof(pgid))
			break;
		if (pgid == 0)
			_exit(0);
		if (npg == cap) {
			cap = cap ? cap * 2 : 64;
			if ((grown = realloc(pgids, cap * sizeof(*pgids))) ==
			    NULL)
				break;
			pgids = grown;
		}
		pgids[npg++] = pgid;
	}
	for (k = 0; k < npg; k++)
		(void)killpg(pgids[k], SIGKILL);
	remove_jobdir_at(dir, n);
	_exit(0);
}

/* Start the watchdog as a grandchild, so that ftrun never reaps it. */
static int
start_watchdog(struct launcher *l)
{
	int p[2], st;
	pid_t mid;

	if (pipe_cloexec(p) != 0)
		return -1;
	if ((mid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (mid == 0) {
		if (fork() == 0)
			watchdog_run(p[0], l->dir, l->n);
		_exit(0);
	}
	close(p[0]);
	while (waitpid(mid, &st, 0) == -1 && errno == EINTR)
		continue;
	l->watchdog_fd = p[1];
	return 0;
}

static void
watchdog_tell(struct launcher *l, pid_t pgid)
{
	int32_t v = (int32_t)pgid;
	ssize_t n;

	if (l->watchdog_fd == -1)
		return;
	do
		n = write(l->watchdog_fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v)) {
		close(l->watchdog_fd);
		l->watchdog_fd = -1;
	}
}

/*
 * Spawn rank i.  In the child: own process group, die with the
 * launcher (PR_SET_PDEATHSIG), signals as they were, stdio on pipes,
 * the key on an inherited pipe.  exec errors come back on errpipe.
 */
static int
spawn(struct launcher *l, uint32_t i, const char *prog,
    const sigset_t *origmask, int *errfd)
{
	int out[2], err[2], in[2] = { -1, -1 }, key[2], ep[2];
	int lkey[2] = { -1, -1 };
	const struct ft_launch_proc *spec = l->ranks[i].spec;
	char **argv = spec != NULL ? spec->argv : l->cf->argv;
	pid_t pid, parent = getpid();
	struct ft__rank_env re;
	struct ft__spawn sp;
	char *extra[FT__ENV_MAX], **env = extra;
	size_t nenv, k;
	int nextra;

	if (pipe_cloexec(out) != 0 || pipe_cloexec(err) != 0 ||
	    pipe_cloexec(key) != 0 || pipe_cloexec(ep) != 0)
		return -1;
	/* A restarted rank 0 reads nothing: its input went to the one
	 * before. */
	if (i < l->nrep && l->stdin_open && l->ranks[i].incarnation == 0 &&
	    pipe_cloexec(in) != 0)
		return -1;
	if (write(key[1], l->key, sizeof(l->key)) != (ssize_t)sizeof(l->key))
		return -1;
	close(key[1]);
	/* --log-server: the logger's key, on a pipe of its own. */
	if (l->vlog && l->cf->log_key != NULL) {
		if (pipe_cloexec(lkey) != 0)
			return -1;
		if (write(lkey[1], l->cf->log_key, FT_WIRE_KEYLEN) !=
		    FT_WIRE_KEYLEN)
			return -1;
		close(lkey[1]);
	}
	memset(&re, 0, sizeof(re));
	re.rank = spec != NULL ? spec->rank : l->ranks[i].rank;
	re.size = spec != NULL ? spec->size : l->nranks;
	re.universe = l->cf->universe > l->n0 ? l->cf->universe : l->n0;
	re.node = 0;
	re.nrep = l->nrep;
	re.replica = l->ranks[i].replica;
	re.launcher = l->addr;
	re.jobdir = l->dir;
	re.progname = l->progname;
	re.proto = l->cf->proto;
	re.keyfd = key[0];
	re.log_keyfd = lkey[0];
	re.hbfd = l->hb_wfd;
	re.hb_period_ns = l->hb_period_ns;
	re.force_tcp = l->cf->force_tcp;
	re.diverge = l->cf->check_divergence;
	l->ranks[i].injected = 0;
	if (spec == NULL && ft__inject_after_sends(l->cf,
	    l->ranks[i].incarnation, l->ranks[i].rank, l->ranks[i].replica,
	    &re.kill_after, &re.kill_signal))
		l->ranks[i].injected = 1;
	if (l->ckserver.pid > 0) {
		re.ckpt_server = l->ckserver.addr;
		re.ckpt_keyfile = l->ckkey;
	}
	if (l->coord.on && l->coord.rolling) {
		re.rollback = 1;
		re.rollback_epoch = l->coord.target;
	}
	re.incarnation = l->ranks[i].incarnation;
	if (l->vlog) {
		re.log_addr = l->log_addr;
		re.job_id = l->job_id;
	}
	if ((nextra = ft__rank_env(&re, extra)) < 0)
		return -1;
	/* A spawned process's own variables come last: they win. */
	nenv = (size_t)nextra;
	for (k = 0; spec != NULL && spec->env[k] != NULL; k++)
		;
	if (k > 0) {
		if ((env = calloc(nenv + k, sizeof(*env))) == NULL) {
			ft__env_free(extra, (size_t)nextra);
			return -1;
		}
		memcpy(env, extra, nenv * sizeof(*env));
		memcpy(env + nenv, spec->env, k * sizeof(*env));
		nenv += k;
	}
	fflush(NULL);
	if ((pid = fork()) == -1) {
		ft__env_free(extra, (size_t)nextra);
		if (env != extra)
			free(env);
		return -1;
	}
	if (pid == 0) {
		sp = (struct ft__spawn){ prog, argv, l->cf->setenv,
		    l->cf->nsetenv, env, nenv, in[0], out[1], err[1],
		    { key[0], l->hb_wfd, lkey[0] },
		    spec != NULL ? spec->wdir : NULL,
		    origmask, parent, ep[1] };
		ft__spawn_exec(&sp);
	}
	ft__env_free(extra, (size_t)nextra);
	if (env != extra)
		free(env);
	close(out[1]);
	close(err[1]);
	close(key[0]);
	if (lkey[0] != -1)
		close(lkey[0]);
	close(ep[1]);
	*errfd = ep[0];
	if (in[0] != -1) {
		close(in[0]);
		l->in_fds[i] = in[1];
		l->in_open++;
		ft__fd_nonblock(in[1]);
	}
	ft__fd_nonblock(out[0]);
	ft__fd_nonblock(err[0]);
	l->ranks[i].pid = pid;
	watchdog_tell(l, pid);
	l->ranks[i].out.fd = out[0];
	l->ranks[i].err.fd = err[0];
	l->running++;
	if (l->nrep > 1)
		event(l, "\"event\":\"spawn\",\"rank\":%u,\"replica\":%u,"
		    "\"pid\":%d", l->ranks[i].rank, l->ranks[i].replica,
		    (int)pid);
	else
		event(l, "\"event\":\"spawn\",\"rank\":%u,\"pid\":%d", i,
		    (int)pid);
	return 0;
}

static void
send_frame(struct lconn *lc, const struct ft_wbuf *wb)
{
	if (lc == NULL || lc->closed)
		return;
	if (ft_conn_queue_copy(&lc->c, wb->p, wb->len) != 0)
		lc->closed = 1;
}

/* The table to process i alone: a restarted one (--ft vlog). */
static void
send_table_to(struct launcher *l, uint32_t i)
{
	struct ft_msg_table t;
	struct ft_wbuf wb;
	uint32_t k;

	if ((t.ranks = calloc(l->n, sizeof(*t.ranks))) == NULL)
		ft_die(FT_EXIT_TEMP, "unable to build the rank table");
	t.n = l->n;
	for (k = 0; k < l->n; k++)
		t.ranks[k] = l->ranks[k].addr;
	ft_wbuf_init(&wb);
	if (ft_msg_table_encode(&wb, FT_WIRE_LAUNCHER, &t) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode the rank table");
	send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
	free(t.ranks);
}

static void
send_table(struct launcher *l)
{
	struct ft_msg_table t;
	struct ft_wbuf wb;
	uint32_t i;

	if ((t.ranks = calloc(l->n, sizeof(*t.ranks))) == NULL)
		ft_die(FT_EXIT_TEMP, "unable to build the rank table");
	t.n = l->n;
	for (i = 0; i < l->n; i++)
		t.ranks[i] = l->ranks[i].addr;
	ft_wbuf_init(&wb);
	if (ft_msg_table_encode(&wb, FT_WIRE_LAUNCHER, &t) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode the rank table");
	for (i = 0; i < l->n; i++)
		send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
	free(t.ranks);
	l->table_sent = 1;
	l->started_ns = ft_now_ns();
	/* after-sends kills are the processes' own business. */
	for (i = 0; i < l->cf->ninject; i++)
		if (l->cf->inject[i].trigger != FT_INJECT_AFTER_SENDS)
			l->inj_next[i] = l->started_ns +
			    (l->cf->inject[i].trigger == FT_INJECT_AT ?
			    l->cf->inject[i].at_ns :
			    l->cf->inject[i].every_ns);
}

static void
send_all_empty(struct launcher *l, unsigned int type)
{
	struct ft_wbuf wb;
	uint32_t i;

	ft_wbuf_init(&wb);
	if (ft_msg_empty_encode(&wb, FT_WIRE_LAUNCHER, type) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode %s", ft_msg_name(type));
	for (i = 0; i < l->n; i++)
		send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
}

/*
 * Rank i ended without joining the job while others have joined (or
 * will): those wait in MPI_Init for a table that can never be complete.
 */
static void
unjoinable(struct launcher *l, uint32_t i)
{
	char name[48];

	ft_warnx("%s (pid %d) exited without calling MPI_Init, and the "
	    "ranks that did wait for it; aborting the job",
	    who(l, i, name, sizeof(name)), (int)l->ranks[i].pid);
	event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
	    "\"rank %u exited without calling MPI_Init\"", l->ranks[i].rank,
	    l->ranks[i].rank);
	abort_job(l, 1);
}

/* Every live process has finalized: let them go. */
static void
finalize_check(struct launcher *l)
{
	if (ft__spawn_worlds(l->sp)) {
		if (!l->aborting)
			ft__spawn_finalize(l->sp);
		return;
	}
	/* A dead process comes back (--ft vlog), and may need the others'
	 * messages again. */
	if (l->vlog && l->ndead > 0)
		return;
	if (l->finalized > 0 && l->finalized + l->ndead == l->n &&
	    !l->aborting)
		send_all_empty(l, FT_MSG_FINALIZE_OK);
}

/* A replicated process's diagnostic, or a divergence it found. */
static int
on_note(struct launcher *l, struct lconn *lc, const uint8_t *body,
    size_t blen)
{
	struct ft_msg_note n;
	char text[2 * FT_WIRE_TEXT_MAX], shown[4 * FT_WIRE_TEXT_MAX + 2];
	size_t len;

	if (ft_msg_note_decode(body, blen, &n) != 0)
		return -1;
	/* The text goes to a terminal: its control characters, escape
	 * sequences included, are shown, not obeyed. */
	len = strlen(n.text);
	if (len > 0 && n.text[len - 1] == '\n')
		n.text[--len] = '\0';
	ft_vis(shown, sizeof(shown) - 1, n.text);
	if (n.kind == FT_NOTE_REPLAYED) {
		/* --ft vlog: back where it died, this long after. */
		const struct lrank *r = &l->ranks[lc->rank];

		event(l, "\"event\":\"replayed\",\"rank\":%u,\"pid\":%d,"
		    "\"incarnation\":%u,\"ms\":%.3f", r->rank, (int)r->pid,
		    r->incarnation, r->died_ns != 0 ?
		    (double)(ft_now_ns() - r->died_ns) / 1e6 : 0.0);
		return 0;
	}
	if (n.kind == FT_NOTE_CKPT && l->vlog)
		return vlog_ckpt_note(l, lc, n.text);
	if (n.kind == FT_NOTE_CKPT)
		return coord_note(l, lc, n.text);
	if (n.kind == FT_NOTE_WARNING) {
		len = strlen(shown);
		shown[len++] = '\n';
		(void)!write(STDERR_FILENO, shown, len);
		return 0;
	}
	ft_warnx("divergence: %s", shown);
	json_quote(n.text, text, sizeof(text));
	event(l, "\"event\":\"diverge\",\"rank\":%u,\"replica\":%u,"
	    "\"what\":\"%s\"", l->ranks[lc->rank].rank,
	    l->ranks[lc->rank].replica, text);
	return 0;
}

/* Rank r aborted the job (ABORT): with its code, or 1. */
static void
rank_aborted(struct launcher *l, struct lrank *r, const struct ft_msg_abort *ab)
{
	char reason[2 * FT_WIRE_TEXT_MAX], name[48];
	char shown[4 * FT_WIRE_TEXT_MAX + 1];

	/* It exits by itself, with its code. */
	r->aborted = 1;
	json_quote(ab->reason[0] != '\0' ? ab->reason : "MPI_Abort",
	    reason, sizeof(reason));
	/* An empty reason is MPI_Abort's: the program chose to end. */
	if (ab->reason[0] == '\0')
		ft_warnx("%s (pid %d) called MPI_Abort with code %d",
		    who(l, r - l->ranks, name, sizeof(name)),
		    (int)r->pid, ab->code);
	else
		ft_warnx("%s (pid %d) aborted the job with code %d: %s",
		    who(l, r - l->ranks, name, sizeof(name)),
		    (int)r->pid, ab->code, ft_vis(shown, sizeof(shown),
		    ab->reason));
	event(l, "\"event\":\"abort\",\"rank\":%u,\"code\":%d,"
	    "\"reason\":\"%s\"", r->rank, ab->code, reason);
	/* An error may be the consequence of a death we have not
	 * reaped yet: job_status lets such a death win. */
	if (!l->aborting)
		l->abort_is_error = ab->reason[0] != '\0';
	/* An abort never reads as success, whatever its code. */
	abort_job(l, (ab->code & 0xff) != 0 ? ab->code & 0xff : 1);
}

/*
 * Rank r is at the cut of an image of epoch (coord, or vlog's images):
 * where its output stands is where a restart from that image prints
 * from.  What it wrote before telling us is in its pipes.
 */
static void
cut_output(struct launcher *l, struct lrank *r, uint64_t epoch)
{
	uint32_t i = (uint32_t)(r - l->ranks);

	read_output(l, i, &r->out);
	read_output(l, i, &r->err);
	if (ft__coord_cut_put(&r->ck_cuts, epoch, r->out.off + r->out.len,
	    r->err.off + r->err.len) != 0)
		ft_die(FT_EXIT_TEMP, "out of memory");
}

/*
 * --ft vlog with images (issue 15): a rank at the cut of an image (its
 * output flushed: where it stands is where a restart from that image
 * prints from), or a restarted process going on from one.
 */
static int
vlog_ckpt_note(struct launcher *l, struct lconn *lc, const char *text)
{
	struct lrank *r = &l->ranks[lc->rank];
	uint64_t epoch, v, out, err;
	int kind;

	if (r->spec != NULL || ft__coord_note_parse(text, &epoch, &kind,
	    &v) != 0)
		return -1;
	if (kind == FT__COORD_CUT)
		cut_output(l, r, epoch);
	else if (kind == FT__COORD_RECV)
		r->ck_recv = v;
	else if (kind == FT__COORD_SENT)
		ft__vsched_traffic(&l->vs, r->rank, r->ck_recv, v);
	else if (kind == FT__COORD_FROM &&
	    ft__coord_cut_get(&r->ck_cuts, epoch, &out, &err) == 0) {
		r->out.off = out;
		r->err.off = err;
		event(l, "\"event\":\"restart_image\",\"rank\":%u,"
		    "\"incarnation\":%u,\"epoch\":%llu", r->rank,
		    r->incarnation, (unsigned long long)epoch);
	}
	return 0;
}

/*
 * --ft vlog, --ckpt-policy rr|adaptive: a rank's turn (vsched.h): DUE
 * to it alone; it saves at its next ft_checkpoint() call.  A rank that
 * is dead or done loses its turn.
 */
static void
vlog_sched_tick(struct launcher *l, uint64_t now)
{
	struct ft_msg_due d = { 0, FT_DUE_ASK };
	struct ft_wbuf wb;
	struct lrank *r;
	uint32_t k;

	if (!l->table_sent || l->aborting || !ft__vsched_tick(&l->vs, now, &k))
		return;
	r = &l->ranks[k];
	if (r->dead || r->finalized || r->state != R_RUNNING ||
	    r->conn == NULL)
		return;
	d.epoch = l->vs.turns;
	ft_wbuf_init(&wb);
	if (ft_msg_due_encode(&wb, FT_WIRE_LAUNCHER, &d) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode DUE");
	send_frame(r->conn, &wb);
	ft_wbuf_release(&wb);
}

/* Handle one frame from a rank.  Returns -1 to drop the connection. */
static int
on_rank_frame(struct launcher *l, struct lconn *lc, const struct ft_hdr *h,
    const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_msg_register reg;
	struct ft_msg_abort ab;
	char rep[32];
	struct lrank *r;

	if (h->type == FT_MSG_REGISTER) {
		if (ft_msg_register_decode(body, blen, &reg) != 0 ||
		    reg.rank >= l->n || reg.rank != lc->c.peer ||
		    lc->rank != -1 || l->ranks[reg.rank].registered)
			return -1;
		r = &l->ranks[reg.rank];
		lc->rank = (int)reg.rank;
		r->registered = 1;
		r->addr = reg.addr;
		r->conn = lc;
		/* MPI_Init starts the heartbeat thread before it registers,
		 * so silence counts from here: a process stopped before its
		 * first beat reached us is a hang too, not one to wait for. */
		if (l->cf->hang_ns != 0 && r->hb_last == 0)
			r->hb_last = r->hb_progress_at = ft_now_ns();
		if (r->spec != NULL) {
			ft__spawn_registered(l->sp, reg.rank);
			return 0;
		}
		if (r->incarnation > 0 && l->table_sent) {
			process_rejoined(l, reg.rank);
			return 0;
		}
		if (++l->registered == l->n0)
			send_table(l);
		else if (l->unjoined >= 0 && !l->aborting)
			unjoinable(l, l->unjoined);
		return 0;
	}
	if (lc->rank < 0)
		return -1;
	r = &l->ranks[lc->rank];
	switch (h->type) {
	case FT_MSG_ABORT:
		if (ft_msg_abort_decode(body, blen, &ab) != 0)
			return -1;
		/* --ft coord: it is being killed to roll back. */
		if (l->coord.rolling)
			return 0;
		/* --ft coord: an error may come of a death not reaped yet,
		 * which rolls back instead (coord_tick); the rank waits
		 * for our verdict. */
		if (l->coord.on && ab.reason[0] != '\0' && !l->aborting) {
			/* The first is the one said. */
			if (l->coord.err_at == 0) {
				l->coord_err = ab;
				l->coord_err_rank = (uint32_t)lc->rank;
				l->coord.err_at = ft_now_ns() +
				    FT__COORD_ERR_GRACE_NS;
			}
			return 0;
		}
		rank_aborted(l, r, &ab);
		return 0;
	case FT_MSG_FINALIZE:
		if (ft_msg_empty_decode(body, blen) != 0 || r->finalized)
			return -1;
		r->finalized = 1;
		event(l, "\"event\":\"finalize\",\"rank\":%u,%s\"pid\":%d",
		    r->rank, replica_field(l, r, rep, sizeof(rep)), (int)r->pid);
		/* Read after its death was reaped, it is counted as dead. */
		if (!r->dead)
			l->finalized++;
		coord_finalized(l);
		finalize_check(l);
		return 0;
	case FT_MSG_NOTE:
		return on_note(l, lc, body, blen);
	case FT_MSG_SPAWN:
	case FT_MSG_PORT:
		return ft__spawn_frame(l->sp, (uint32_t)lc->rank, h, body);
	default:
		errno = EPROTO;
		return -1;
	}
}

static void
lconn_read(struct launcher *l, struct lconn *lc)
{
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc, rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		while ((rc = ft_conn_frame(&lc->c, &h, &body)) == 1) {
			if (lc->c.hs != FT_HS_READY) {
				if (ft_conn_handshake(&lc->c, &h, body) < 0) {
					ft_warnx_limited(&l->refusals,
					    "refused a connection: %s",
					    errno == EACCES ? "wrong job key" :
					    "malformed handshake");
					lc->closed = 1;
					return;
				}
				if (lc->c.hs == FT_HS_READY &&
				    (lc->c.peer_role != FT_ROLE_RANK ||
				    lc->c.peer >= l->n)) {
					ft_warnx_limited(&l->refusals,
					    "refused a connection from an "
					    "unknown rank");
					lc->closed = 1;
					return;
				}
				(void)ft_conn_flush(&lc->c);
				continue;
			}
			if (on_rank_frame(l, lc, &h, body) != 0) {
				ft_warnx("dropped the connection of rank %u: "
				    "bad %s frame", lc->c.peer,
				    ft_msg_name(h.type));
				lc->closed = 1;
				return;
			}
		}
		if (rc < 0) {
			ft_warnx("dropped a connection: malformed frame");
			lc->closed = 1;
			return;
		}
		got = ft_conn_fill(&lc->c);
		if (got < 0) {
			if (lc->c.hs != FT_HS_READY)
				ft_warnx_limited(&l->refusals, "refused a "
				    "connection: closed during the handshake");
			lc->closed = 1;
			return;
		}
		if (got == 0)
			return;
	}
}

static const struct ft_conn *
lconn_at(void *arg, size_t i)
{
	struct launcher *l = arg;

	return l->conns[i]->closed ? NULL : &l->conns[i]->c;
}

static void
lconn_drop(void *arg, size_t i, const char *why)
{
	struct launcher *l = arg;
	struct lconn *lc = l->conns[i];

	ft_warnx_limited(&l->refusals, "refused a connection: %s", why);
	lc->closed = 1;
	/* Its descriptor goes now, not after a burst of accepts. */
	close(lc->c.fd);
	lc->c.fd = -1;
}

static void
accept_conns(struct launcher *l)
{
	struct lconn *lc, **nc;
	int fd;

	while ((fd = ft_net_accept(l->lfd)) != -1) {
		if ((lc = calloc(1, sizeof(*lc))) == NULL ||
		    (nc = reallocarray(l->conns, l->nconns + 1,
		    sizeof(*nc))) == NULL) {
			free(lc);
			close(fd);
			return;
		}
		l->conns = nc;
		if (ft_conn_accepted(&lc->c, fd, l->key, FT_WIRE_LAUNCHER) !=
		    0) {
			free(lc);
			close(fd);
			return;
		}
		lc->rank = -1;
		l->conns[l->nconns++] = lc;
		/* A rank's HELLO is there already: read it, so that its
		 * connection is not taken for a silent stranger's. */
		lconn_read(l, lc);
		(void)ft_hs_guard(lconn_at, lconn_drop, l, l->nconns,
		    (size_t)l->n + FT_HS_STRANGERS, ft_now_ns(),
		    FT_HS_HELLO_NS);
	}
}

/*
 * Rank i failed.  Every rank of a job runs on this host, so ftrun is
 * the host's detector module: it learns of the death from waitpid at
 * once, with no gossip, and is alone in making the next view of live
 * ranks (stable when made; no other module to wait for).  The gossip
 * schedule and period (--detector, --gossip-period) apply between the
 * modules of several hosts.
 */
static void
failure_events(struct launcher *l, uint32_t i, const char *how, uint64_t t0)
{
	const char *seen = l->ranks[i].lost ? "host" : l->ranks[i].hung ?
	    "heartbeat" : "waitpid";

	FILE *f = l->cf->events;
	const struct lrank *r = &l->ranks[i];
	char rep[32];
	uint32_t k, n = 0;

	if (f == NULL)
		return;
	event(l, "\"event\":\"failed\",\"rank\":%u,%s\"pid\":%d,"
	    "\"by\":\"ftrun\",\"how\":\"%s\",\"detector\":\"%s\","
	    "\"reason\":\"%s\"", r->rank, replica_field(l, r, rep,
	    sizeof(rep)), (int)r->pid, seen, l->cf->detector, how);
	fprintf(f, "{\"t\":%.6f,\"event\":\"view\",\"epoch\":%llu,"
	    "\"members\":[", ft_now(), (unsigned long long)l->view_epoch);
	/* Members: the processes that have not failed, i.e. running or
	 * ended with status 0 (process i did not, nor did a dead replica or
	 * one killed for its silence). */
	for (k = 0; k < l->n; k++)
		if (!l->ranks[k].hung && !l->ranks[k].dead &&
		    (l->ranks[k].state != R_EXITED ||
		    (WIFEXITED(l->ranks[k].status) &&
		    WEXITSTATUS(l->ranks[k].status) == 0)))
			fprintf(f, "%s%u", n++ > 0 ? "," : "", k);
	fprintf(f, "],\"n\":%u,\"stable_ms\":%.3f}\n", n,
	    (double)(ft_now_ns() - t0) / 1e6);
	events_flush(l);
}

static void
rank_failed(struct launcher *l, uint32_t i, const char *how)
{
	uint64_t t0 = ft_now_ns();

	if (l->cf->events == NULL)
		return;
	l->view_epoch++;
	failure_events(l, i, how, t0);
}

/* The master of a rank: its lowest replica that has not failed. */
static uint32_t
master_of(const struct launcher *l, uint32_t rank)
{
	uint32_t k;

	for (k = 0; k < l->nrep; k++)
		if (!l->ranks[rank * l->nrep + k].dead)
			return k;
	return UINT32_MAX;
}

/* Tell every live process of the job which processes have failed. */
static void
send_view(struct launcher *l)
{
	struct ft_msg_view v;
	struct ft_wbuf wb;
	uint32_t i;

	if ((v.dead = calloc(l->n, sizeof(*v.dead))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	v.epoch = l->view_epoch;
	v.ndead = 0;
	for (i = 0; i < l->n; i++)
		if (l->ranks[i].dead)
			v.dead[v.ndead++] = i;
	ft_wbuf_init(&wb);
	if (ft_msg_view_encode(&wb, FT_WIRE_LAUNCHER, &v) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode a view");
	for (i = 0; i < l->n; i++)
		if (!l->ranks[i].dead && l->ranks[i].state == R_RUNNING)
			send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
	free(v.dead);
}

/*
 * Replicated: process i failed.  If another replica of its rank lives,
 * the job goes on: the processes learn the new view, and where the
 * master died its next replica takes over.  Returns 0, or -1 when this
 * was the rank's last replica.
 */
static int
replica_failed(struct launcher *l, uint32_t i, const char *how)
{
	struct lrank *r = &l->ranks[i];
	uint32_t rank = r->rank, old = master_of(l, rank), now;
	uint64_t t0 = ft_now_ns();

	if (!l->table_sent || old == UINT32_MAX)
		return -1;
	r->dead = 1;
	if ((now = master_of(l, rank)) == UINT32_MAX) {
		r->dead = 0;
		return -1;
	}
	l->ndead++;
	/* finalized counts live processes: each process is counted once,
	 * or FINALIZE_OK would go out while others still compute. */
	if (r->finalized)
		l->finalized--;
	l->view_epoch++;
	send_view(l);
	ft_warnx("rank %u replica %u (pid %d) %s; rank %u goes on with "
	    "replica %u as master", rank, r->replica, (int)r->pid, how, rank,
	    now);
	failure_events(l, i, how, t0);
	if (now != old)
		event(l, "\"event\":\"master\",\"rank\":%u,\"replica\":%u,"
		    "\"pid\":%d,\"epoch\":%llu", rank, now,
		    (int)l->ranks[rank * l->nrep + now].pid,
		    (unsigned long long)l->view_epoch);
	finalize_check(l);
	return 0;
}

/*
 * Process i failed; how says how ("was killed by signal 9 (Killed)").
 * Replicated, its rank goes on while a replica lives; else the job
 * ends, naming it.  A process we killed because it fell silent makes
 * the job's status 128+SIGKILL, as its death would have.
 */
/*
 * --ft ulfm: process i failed and the job goes on.  Every live process
 * gets the new view at once (the application hears of the failure
 * through ULFM's errors); the job ends when the last one does.
 */
static void
ulfm_failed(struct launcher *l, uint32_t i, const char *how,
    const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t t0 = ft_now_ns();
	char name[48];

	r->dead = 1;
	l->ndead++;
	if (r->finalized)
		l->finalized--;
	l->view_epoch++;
	send_view(l);
	ft_warnx("%s (pid %d) %s%s; the job goes on (--ft %s)",
	    who(l, i, name, sizeof(name)), (int)r->pid, how, seen,
	    l->cf->proto);
	failure_events(l, i, how, t0);
	finalize_check(l);
}

/* --ft vlog: how many times a rank is restarted before the job ends. */
#define VLOG_RESTARTS_MAX	64

/* Forget what the pipes of a dead process still hold but whole lines. */
static void
drain_output(struct launcher *l, uint32_t i, struct outbuf *o)
{
	if (o->fd != -1) {
		read_output(l, i, o);
		/* A child it left behind may hold the pipe open. */
		if (o->fd != -1) {
			close(o->fd);
			o->fd = -1;
		}
	}
	/* A cut last line is made again, whole, by the next one. */
	o->len = 0;
	o->off = 0;
}

/*
 * Across hosts: ask an agent to start process i again, on its host
 * while that is alive, else on another (ft__relocate_pick); the agent's
 * STARTED gives its pid (remote_started).
 */
static void
remote_restart(struct launcher *l, uint32_t i)
{
	struct lrank *r = &l->ranks[i];
	uint32_t nh = l->cf->nhosts, h, k, *load;
	struct ft_msg_job_respawn m;
	uint8_t *alive;
	uint64_t after = 0;
	int sig = 0;
	char name[48];

	alive = calloc(nh + 1, sizeof(*alive));
	load = calloc(nh + 1, sizeof(*load));
	if (alive == NULL || load == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	(void)ft__remote_alive(l->rm, alive);
	for (k = 0; k < l->n; k++)
		if (k != i && l->ranks[k].state == R_RUNNING &&
		    l->ranks[k].remote && l->ranks[k].host < nh)
			load[l->ranks[k].host]++;
	h = ft__relocate_pick(r->host, alive, load, nh);
	free(alive);
	free(load);
	r->lost = 0;
	r->injected = ft__inject_after_sends(l->cf, r->incarnation, r->rank,
	    r->replica, &after, &sig);
	m = (struct ft_msg_job_respawn){ i, r->incarnation, 0,
	    r->injected ? (uint32_t)sig : 0, r->injected ? after : 0, 0 };
	if (l->coord.on && l->coord.rolling) {
		m.flags = FT_RESPAWN_ROLLBACK;
		m.rollback = l->coord.target;
	}
	if (h == FT_RELOCATE_NONE || ft__remote_respawn(l->rm, h, &m) != 0) {
		ft_warnx("unable to restart %s: no host of the job is left",
		    who(l, i, name, sizeof(name)));
		r->state = R_EXITED;
		abort_job(l, FT_EXIT_TEMP);
		return;
	}
	if (h != r->host)
		ft_warnx("%s moves from host '%s' to host '%s'", who(l, i,
		    name, sizeof(name)), l->cf->hosts[r->host].name,
		    l->cf->hosts[h].name);
	r->host = h;
	l->respawning++;
}

/*
 * Start process i again, as its next incarnation (--ft vlog).  It
 * replays what its log holds and prints again what it printed: that
 * much of its output is not shown twice (flush_lines).
 */
static void
restart_process(struct launcher *l, uint32_t i)
{
	struct lrank *r = &l->ranks[i];
	char path[512], name[48];
	ssize_t got;
	int errfd = -1, e;

	drain_output(l, i, &r->out);
	drain_output(l, i, &r->err);
	if (r->conn != NULL) {
		r->conn->closed = 1;
		r->conn = NULL;
	}
	/* Its socket's name is the new one's (ft_pt_new). */
	snprintf(path, sizeof(path), "%s/r%u.sock", l->dir, i);
	(void)unlink(path);
	r->incarnation++;
	r->pid = 0;
	r->state = R_RUNNING;
	r->registered = r->finalized = r->killed = r->aborted = 0;
	r->doomed = r->sent_sig = r->stopped = r->hung = 0;
	r->hb_last = r->hb_completed = r->hb_progress_at = 0;
	r->hb_flags = r->hb_state_ms = 0;
	memset(&r->addr, 0, sizeof(r->addr));
	l->restarts++;
	if (r->remote) {
		remote_restart(l, i);
		return;
	}
	if (spawn(l, i, l->prog, l->origmask, &errfd) != 0) {
		ft_error("unable to restart %s", who(l, i, name,
		    sizeof(name)));
		r->state = R_EXITED;
		abort_job(l, FT_EXIT_TEMP);
		return;
	}
	do
		got = read(errfd, &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(errfd);
	if (got == (ssize_t)sizeof(e)) {
		ft_errorx("unable to restart '%s': %s", l->cf->argv[0],
		    strerror(e));
		r->aborted = 1;
		abort_job(l, e == ENOENT ? 127 : 126);
		return;
	}
	event(l, "\"event\":\"restart\",\"rank\":%u,\"pid\":%d,"
	    "\"incarnation\":%u", i, (int)r->pid, r->incarnation);
}

/*
 * --ft vlog: process i died by a signal (or hung, or was lost with its
 * host).  The others learn it from a view and go on; it is started
 * again at once.  A process that exited by itself with an error, or
 * after MPI_Finalize was answered, is no failure to recover from.
 */
static int
vlog_failed(struct launcher *l, uint32_t i, const char *how, const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t t0 = ft_now_ns();
	char name[48];

	if (!(WIFSIGNALED(r->status) || r->hung || r->lost))
		return -1;
	if (!r->dead) {
		r->dead = 1;
		l->ndead++;
	}
	r->died_ns = ft_now_ns();
	if (r->finalized) {
		r->finalized = 0;
		l->finalized--;
	}
	l->view_epoch++;
	send_view(l);
	failure_events(l, i, how, t0);
	if (r->incarnation >= VLOG_RESTARTS_MAX) {
		ft_warnx("%s (pid %d) %s%s for the %uth time; aborting the "
		    "job", who(l, i, name, sizeof(name)), (int)r->pid, how,
		    seen, r->incarnation + 1);
		event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"rank %u failed %u times\"", i, i, r->incarnation + 1);
		abort_job(l, 128 + SIGKILL);
		return 0;
	}
	ft_warnx("%s (pid %d) %s%s; restarting it (--ft vlog)",
	    who(l, i, name, sizeof(name)), (int)r->pid, how, seen);
	restart_process(l, i);
	return 0;
}

/*
 * A restarted process registered (--ft vlog).  Every live process
 * learns its address (REVIVE) before it gets the table and can call
 * them; then it learns who is dead now.
 */
static void
process_rejoined(struct launcher *l, uint32_t i)
{
	struct lrank *r = &l->ranks[i];
	struct ft_msg_revive rv;
	struct ft_msg_view v;
	struct ft_wbuf wb;
	uint32_t k;

	r->dead = 0;
	l->ndead--;
	rv.proc = i;
	rv.inc = r->incarnation;
	rv.addr = r->addr;
	ft_wbuf_init(&wb);
	if (ft_msg_revive_encode(&wb, FT_WIRE_LAUNCHER, &rv) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode a revive");
	for (k = 0; k < l->n; k++)
		if (k != i && !l->ranks[k].dead &&
		    l->ranks[k].state == R_RUNNING)
			send_frame(l->ranks[k].conn, &wb);
	ft_wbuf_release(&wb);
	send_table_to(l, i);
	if ((v.dead = calloc(l->n, sizeof(*v.dead))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	v.epoch = l->view_epoch;
	v.ndead = 0;
	for (k = 0; k < l->n; k++)
		if (l->ranks[k].dead)
			v.dead[v.ndead++] = k;
	ft_wbuf_init(&wb);
	if (ft_msg_view_encode(&wb, FT_WIRE_LAUNCHER, &v) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode a view");
	send_frame(r->conn, &wb);
	ft_wbuf_release(&wb);
	free(v.dead);
	event(l, "\"event\":\"rejoin\",\"rank\":%u,\"pid\":%d,"
	    "\"incarnation\":%u", i, (int)r->pid, r->incarnation);
}

/* --ft coord: DUE(epoch, call) to every running rank. */
static void
coord_due(struct launcher *l, uint64_t epoch, uint64_t call)
{
	struct ft_msg_due d = { epoch, call };
	struct ft_wbuf wb;
	uint32_t k;

	ft_wbuf_init(&wb);
	if (ft_msg_due_encode(&wb, FT_WIRE_LAUNCHER, &d) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode DUE");
	for (k = 0; k < l->n; k++)
		if (l->ranks[k].state == R_RUNNING)
			send_frame(l->ranks[k].conn, &wb);
	ft_wbuf_release(&wb);
}

/*
 * --ft coord, --ckpt-interval D: a checkpoint is due every D.  ftrun
 * asks every rank where it is (DUE, ASK); each answers at its next
 * ft_checkpoint() call with that call's number, and goes on; the epoch
 * is taken at the highest of them plus a margin (DUE, that call).  A
 * rank already past it says so: the epoch is called off (DUE, OFF) and
 * the margin doubles.  No round while a rank has finalized, or while
 * the job rolls back.
 */
static void
coord_tick(struct launcher *l, uint64_t now)
{
	uint64_t epoch;

	if (l->coord.on && l->table_sent && !l->aborting &&
	    ft__coord_sched_tick(&l->coord, now, l->finalized == 0, &epoch))
		coord_due(l, epoch, FT_DUE_ASK);
	if (l->coord.err_at != 0 && now >= l->coord.err_at) {
		/* A rank's error: no death came with it (a death reaped
		 * now rolls back and clears err_at), so the job ends at
		 * once, not after the rank's hold. */
		reap_children(l);
		if (l->coord.err_at != 0 && !l->coord.rolling &&
		    !l->aborting) {
			rank_aborted(l, &l->ranks[l->coord_err_rank],
			    &l->coord_err);
			/* It waits for us: it ends now too. */
			if (l->ranks[l->coord_err_rank].state == R_RUNNING)
				proc_signal(l, l->coord_err_rank, SIGTERM);
		}
		l->coord.err_at = 0;
	}
}

/* A rank answered DUE's ASK: at its call'th ft_checkpoint() call. */
static void
coord_called(struct launcher *l, struct lrank *r, uint64_t epoch,
    uint64_t call)
{
	uint64_t at;

	if (ft__coord_sched_called(&l->coord, (uint32_t)(r - l->ranks),
	    epoch, call, ft_now_ns(), &at))
		coord_due(l, epoch, at);
}

/* A rank was past the call of epoch: call it off, widen the margin. */
static void
coord_missed(struct launcher *l, uint64_t epoch)
{
	if (!ft__coord_sched_missed(&l->coord, epoch, ft_now_ns()))
		return;
	event(l, "\"event\":\"checkpoint\",\"epoch\":%llu,"
	    "\"missed\":true,\"margin\":%llu", (unsigned long long)epoch,
	    (unsigned long long)l->coord.margin);
	coord_due(l, epoch, FT_DUE_OFF);
}

/* A rank finalized: a round under way is called off. */
static void
coord_finalized(struct launcher *l)
{
	if (ft__coord_sched_off(&l->coord))
		coord_due(l, l->coord.epoch, FT_DUE_OFF);
}

/*
 * --ft coord: a rank read its image of epoch back in us microseconds;
 * once every rank has, the rollback's restart is over (an event: from
 * the failure, and the slowest image read).
 */
static void
coord_restored(struct launcher *l, uint64_t epoch, uint64_t us)
{
	if (us > l->coord.restore_us)
		l->coord.restore_us = us;
	if (++l->coord.nrestored != l->n || l->coord.failed_ns == 0)
		return;
	event(l, "\"event\":\"restored\",\"epoch\":%llu,\"ms\":%.3f,"
	    "\"read_ms\":%.3f", (unsigned long long)epoch,
	    (double)(ft_now_ns() - l->coord.failed_ns) / 1e6,
	    (double)l->coord.restore_us / 1e3);
}

/*
 * --ft coord: rank's image of epoch is written locally (durable 0) or
 * in the store (1), or ftrun's server died (rank UINT32_MAX): a new
 * complete epoch is told to the ranks, a new push asked for (coordsrv,
 * lib/job/coord.c).
 */
static void
coord_image(struct launcher *l, uint32_t rank, uint64_t epoch, int durable)
{
	struct ft__coord_cuts **all;
	struct ft__coord_news nw;
	struct ft_wbuf wb;
	uint32_t k;

	/* Mid-rollback, the dead generation's cuts are not to count. */
	if (rank == UINT32_MAX && l->coord.rolling) {
		l->coord.srvdown = 1;
		return;
	}
	if ((all = calloc(l->n, sizeof(*all))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	for (k = 0; k < l->n; k++)
		all[k] = &l->ranks[k].ck_cuts;
	if (rank == UINT32_MAX)
		ft__coord_srv_down(&l->coord, all, l->n, ft_now_ns(), &nw);
	else if (ft__coord_image(&l->coord, all, l->n, rank, epoch, durable,
	    ft_now_ns(), &nw) != 0)
		memset(&nw, 0, sizeof(nw));
	free(all);
	if (nw.local != 0)
		event(l, "\"event\":\"checkpoint\",\"epoch\":%llu,"
		    "\"local\":true", (unsigned long long)nw.local);
	if (nw.complete != 0) {
		ft__coord_auto_complete(&l->coord, nw.complete, ft_now_ns());
		event(l, "\"event\":\"checkpoint\",\"epoch\":%llu,"
		    "\"complete\":true,\"interval_ms\":%.1f,"
		    "\"since_cut_ms\":%.1f,\"since_local_ms\":%.1f,"
		    "\"behind\":%llu", (unsigned long long)nw.complete,
		    (double)l->coord.interval_ns / 1e6,
		    l->coord.cut_epoch == nw.complete ? (double)(ft_now_ns() -
		    l->coord.cut_ns) / 1e6 : -1.0, nw.lag_ms,
		    (unsigned long long)nw.behind);
		coord_pin(l, nw.complete);
	}
	ft_wbuf_init(&wb);
	/* The ranks keep their images of it (COMPLETE); all push the
	 * same epoch (PUSH). */
	if ((nw.complete != 0 && ft_msg_complete_encode(&wb,
	    FT_WIRE_LAUNCHER, nw.complete) != 0) || (nw.push != 0 &&
	    ft_msg_push_encode(&wb, FT_WIRE_LAUNCHER, nw.push) != 0))
		ft_die(FT_EXIT_TEMP, "unable to encode COMPLETE or PUSH");
	for (k = 0; wb.len > 0 && k < l->n; k++)
		if (l->ranks[k].state == R_RUNNING)
			send_frame(l->ranks[k].conn, &wb);
	ft_wbuf_release(&wb);
}

/*
 * --ft coord: rank lc->rank is at the cut of an epoch (its output is
 * flushed: where it stands now is where a rollback to that epoch
 * starts printing again), or has committed an image.  The newest
 * epoch that every rank made durable is the job's complete global
 * checkpoint (ft(7)).
 */
static int
coord_note(struct launcher *l, struct lconn *lc, const char *text)
{
	struct lrank *r = &l->ranks[lc->rank];
	uint64_t epoch, v;
	int kind;

	if (!l->coord.on || r->spec != NULL ||
	    ft__coord_note_parse(text, &epoch, &kind, &v) != 0)
		return -1;
	if (kind == FT__COORD_CALL) {
		coord_called(l, r, epoch, v);
		return 0;
	}
	if (kind == FT__COORD_MISSED) {
		coord_missed(l, epoch);
		return 0;
	}
	if (kind == FT__COORD_RESTORED) {
		coord_restored(l, epoch, v);
		return 0;
	}
	if (kind == FT__COORD_CUT) {
		cut_output(l, r, epoch);
		ft__coord_auto_cut(&l->coord, epoch, ft_now_ns());
		return 0;
	}
	if (kind == FT__COORD_DURABLE)
		coord_image(l, (uint32_t)(r - l->ranks), epoch, (int)v);
	return 0;
}

/*
 * --ft coord: ftrun too holds every rank's lease, pinned at the
 * complete epoch: while the processes of a rollback are dead, the
 * ranks hold none, and a prune would keep only the images every rank
 * has, which may be newer than ftrun's complete epoch.
 */
static void
coord_pin(struct launcher *l, uint64_t epoch)
{
	char why[FT_LOG_WHY];
	struct lrank *r;
	uint32_t k;
	int fd;

	if (l->cf->ckpt_dir == NULL)
		return;
	for (k = 0; k < l->n; k++) {
		r = &l->ranks[k];
		fd = ft_ckpt_lease(l->cf->ckpt_dir, l->cf->ckpt_job, k, epoch,
		    r->ck_lease - 1, why, sizeof(why));
		if (fd < 0)
			ft_warnx("%s", why);
		else
			r->ck_lease = fd + 1;
	}
}

/* --ft coord: every process of the job is gone; start them all again. */
static void
coord_restart_all(struct launcher *l)
{
	struct lrank *r;
	uint64_t out, err;
	uint32_t k;

	l->registered = l->finalized = 0;
	l->ndead = 0;
	l->table_sent = 0;
	l->unjoined = -1;
	for (k = 0; k < l->n; k++) {
		r = &l->ranks[k];
		r->dead = 0;
		/* What the dead generation did after it never happened. */
		ft__coord_cut_truncate(&r->ck_cuts, l->coord.target);
		if (ft__coord_cut_get(&r->ck_cuts, l->coord.target, &out,
		    &err) != 0)
			out = err = 0;	/* not reached: checked before */
		restart_process(l, k);
		if (l->aborting)
			return;
		/* It prints again from there: what was shown is not. */
		r->out.off = out;
		r->err.off = err;
	}
	/* The scheduler goes on from there. */
	ft__coord_sched_reset(&l->coord, l->coord.target);
	event(l, "\"event\":\"rollback\",\"epoch\":%llu,\"ms\":%.3f",
	    (unsigned long long)l->coord.target,
	    (double)(ft_now_ns() - l->coord.failed_ns) / 1e6);
	l->coord.rolling = 0;
}

/* --ft coord: a process is reaped while the job rolls back. */
static void
coord_reaped(struct launcher *l)
{
	/* Across hosts, restarts asked for before are killed once started. */
	if (l->running == 0 && l->respawning == 0)
		coord_restart_all(l);
}

/*
 * --ft coord: process i died by a signal (or hung).  Every rank rolls
 * back to the newest complete global checkpoint: the others are
 * killed, and once all are reaped, all start again from it (or from
 * the beginning when there is none yet).
 */
static int
coord_failed(struct launcher *l, uint32_t i, const char *how, const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t out, err;
	char name[48];
	uint32_t k;

	if (!(WIFSIGNALED(r->status) || r->hung || r->lost))
		return -1;
	if (l->coord.rolling) {
		coord_reaped(l);
		return 0;
	}
	failure_events(l, i, how, ft_now_ns());
	if (++l->coord.rollbacks > FT__COORD_ROLLBACKS_MAX) {
		ft_warnx("%s (pid %d) %s%s; %u rollbacks already: aborting "
		    "the job", who(l, i, name, sizeof(name)), (int)r->pid,
		    how, seen, FT__COORD_ROLLBACKS_MAX);
		return -1;
	}
	/* Every rank must know where its output stood then. */
	for (k = 0; k < l->n; k++)
		if (ft__coord_cut_get(&l->ranks[k].ck_cuts, l->coord.complete,
		    &out, &err) != 0) {
			ft_warnx("%s (pid %d) %s%s; rank %u's output at epoch "
			    "%llu is not known: aborting the job", who(l, i,
			    name, sizeof(name)), (int)r->pid, how, seen, k,
			    (unsigned long long)l->coord.complete);
			return -1;
		}
	l->coord.target = l->coord.complete;
	l->coord.rolling = 1;
	l->coord.err_at = 0;	/* the error was the death's */
	l->coord.nrestored = 0;
	l->coord.restore_us = 0;
	ft__coord_auto_failed(&l->coord, l->coord.failed_ns);
	l->coord.failed_ns = ft_now_ns();
	if (l->coord.target > 0)
		ft_warnx("%s (pid %d) %s%s; every rank rolls back to epoch "
		    "%llu (--ft coord)", who(l, i, name, sizeof(name)),
		    (int)r->pid, how, seen,
		    (unsigned long long)l->coord.target);
	else
		ft_warnx("%s (pid %d) %s%s; no complete checkpoint yet: every "
		    "rank starts again (--ft coord)", who(l, i, name,
		    sizeof(name)), (int)r->pid, how, seen);
	for (k = 0; k < l->n; k++)
		if (l->ranks[k].state == R_RUNNING && l->ranks[k].pid > 0) {
			l->ranks[k].sent_sig = SIGKILL;
			proc_signal(l, k, SIGKILL);
		}
	coord_reaped(l);
	return 0;
}

/* --ft ftmpi --comm-mode rebuild: new processes in one rank's place. */
#define REBUILD_RESPAWNS_MAX	8

/*
 * --ft ftmpi --comm-mode rebuild: process i failed before MPI_Finalize.
 * The survivors hear of it (a view) and rebuild MPI_COMM_WORLD with a
 * new process in its place, started at once by the path vlog uses
 * (restart_process; it joins with process_rejoined).  It runs the
 * program from the start, so its output is all new: none of it is
 * taken for what the failed one printed.
 */
static int
rebuild_failed(struct launcher *l, uint32_t i, const char *how,
    const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t t0 = ft_now_ns();
	char name[48];

	if (r->finalized)
		return -1;
	r->dead = 1;
	l->ndead++;
	l->view_epoch++;
	send_view(l);
	failure_events(l, i, how, t0);
	if (r->incarnation >= REBUILD_RESPAWNS_MAX) {
		ft_warnx("%s (pid %d) %s%s, and was started %u times in its "
		    "place already (--comm-mode rebuild); aborting the job",
		    who(l, i, name, sizeof(name)), (int)r->pid, how, seen,
		    r->incarnation);
		event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"rank %u failed %u times\"", i, i, r->incarnation + 1);
		abort_job(l, 128 + SIGKILL);
		return 0;
	}
	ft_warnx("%s (pid %d) %s%s; starting a new process in its place "
	    "(--comm-mode rebuild)", who(l, i, name, sizeof(name)),
	    (int)r->pid, how, seen);
	restart_process(l, i);
	r->out.off = l->printed[2 * (size_t)r->rank];
	r->err.off = l->printed[2 * (size_t)r->rank + 1];
	return 0;
}

static void
process_failed(struct launcher *l, uint32_t i, const char *how)
{
	struct lrank *r = &l->ranks[i];
	const char *seen = r->hung || r->lost ? "" : r->remote ?
	    ", detected by waitpid on its host" :
	    ", detected by waitpid on this host";
	int status = r->hung ? 128 + SIGKILL : -1;
	char name[48];

	if (l->vlog && l->table_sent && !l->aborting &&
	    vlog_failed(l, i, how, seen) == 0)
		return;
	if (l->coord.on && !l->aborting && (l->table_sent ||
	    l->coord.rolling) && coord_failed(l, i, how, seen) == 0)
		return;
	if (l->rebuild && l->table_sent && !l->aborting && !r->dead &&
	    rebuild_failed(l, i, how, seen) == 0)
		return;
	if (l->ulfm && l->table_sent && !r->dead) {
		/* Past MPI_Finalize it is no failure: its status counts. */
		if (!r->finalized)
			ulfm_failed(l, i, how, seen);
		return;
	}

	if (l->nrep > 1) {
		if (replica_failed(l, i, how) == 0)
			return;
		if (!l->table_sent) {
			ft_warnx("rank %u replica %u (pid %d) %s before every "
			    "process joined the job; aborting the job", r->rank,
			    r->replica, (int)r->pid, how);
			event(l, "\"event\":\"abort\",\"rank\":%u,"
			    "\"reason\":\"a replica of rank %u %s before the "
			    "job started\"", r->rank, r->rank, how);
			abort_job(l, status);
			return;
		}
		ft_warnx("rank %u lost its last replica: replica %u (pid %d) "
		    "%s%s; aborting the job", r->rank, r->replica, (int)r->pid,
		    how, seen);
		event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"rank %u lost all %u replicas\"", r->rank, r->rank,
		    l->nrep);
		abort_job(l, status);
		return;
	}
	rank_failed(l, i, how);
	ft_warnx("%s (pid %d) %s%s; aborting the job", who(l, i, name,
	    sizeof(name)), (int)r->pid, how, seen);
	event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":\"rank %u %s\"",
	    i, i, how);
	abort_job(l, status);
}

/*
 * --ft vlog: start the event logger (ftlog serve) for the job, in the
 * directory --log-dir names, else in one made for the job; or use the
 * one --log-server names.
 */
static int
start_logger(struct launcher *l)
{
	const char *tmp = l->cf->tmpdir != NULL ? l->cf->tmpdir : "/tmp";
	struct ft__logger_cfg lc;
	sigset_t cur;

	ft_random(&l->job_id, sizeof(l->job_id));
	if (l->cf->log_server != NULL) {
		l->log_addr = l->cf->log_server;
		return 0;
	}
	if (l->cf->log_dir != NULL) {
		if (mkdir(l->cf->log_dir, 0700) != 0 && errno != EEXIST) {
			ft_warn("unable to make the log directory '%s'",
			    l->cf->log_dir);
			return -1;
		}
		l->logdir_used = l->cf->log_dir;
	} else {
		if ((size_t)snprintf(l->logdir, sizeof(l->logdir),
		    "%s/ftlog.XXXXXX", tmp) >= sizeof(l->logdir) ||
		    mkdtemp(l->logdir) == NULL) {
			l->logdir[0] = '\0';
			ft_warn("unable to make a log directory in '%s'", tmp);
			return -1;
		}
		l->logdir_used = l->logdir;
	}
	sigprocmask(SIG_SETMASK, NULL, &cur);
	/* Across hosts, where the ranks reach us (ft__remote_connect). */
	lc = (struct ft__logger_cfg){ l->logdir_used, l->rm != NULL ?
	    l->sock : "tcp:127.0.0.1:0", l->cf->log_sync, l->key, &cur,
	    10000000000ull };
	if (ft__logger_start(&l->logger, &lc) != 0) {
		ft_warn("unable to start the event logger (ftlog serve)");
		if (l->logdir[0] != '\0')
			(void)ft__logdir_remove(l->logdir);
		return -1;
	}
	watchdog_tell(l, l->logger.pid);
	l->log_addr = l->logger.addr;
	return 0;
}

/*
 * --ft vlog: the logger died.  It is started again on the same address
 * and directory: what it acknowledged is in its files (ft-log(5)), and
 * the ranks send again what it had not.  The job ends if it cannot be.
 */
#define LOGGER_RESTARTS_MAX	8

static void
logger_died(struct launcher *l, int st)
{
	struct ft__logger_cfg lc;
	char how[128], addr[FT_WIRE_ADDR_MAX];

	l->logger.pid = -1;
	if (l->aborting)
		return;
	describe_status(st, how, sizeof(how));
	event(l, "\"event\":\"logger\",\"status\":\"%s\"", how);
	if (l->logger_restarts++ >= LOGGER_RESTARTS_MAX) {
		ft_warnx("the event logger %s %u times; aborting the job", how,
		    l->logger_restarts);
		abort_job(l, FT_EXIT_TEMP);
		return;
	}
	ft_warnx("the event logger %s; restarting it on %s", how,
	    l->logger.addr);
	snprintf(addr, sizeof(addr), "%s", l->logger.addr);
	lc = (struct ft__logger_cfg){ l->logdir_used, addr, l->cf->log_sync,
	    l->key, l->origmask, 10000000000ull };
	if (ft__logger_start(&l->logger, &lc) != 0) {
		ft_warn("unable to restart the event logger on %s; aborting "
		    "the job", addr);
		event(l, "\"event\":\"abort\",\"reason\":\"the event "
		    "logger is gone\"");
		abort_job(l, FT_EXIT_TEMP);
		return;
	}
	watchdog_tell(l, l->logger.pid);
}

/* --ft vlog, at the end: the logger goes, and its directory if ours. */
static void
stop_logger(struct launcher *l, int status)
{
	ft__logger_stop(&l->logger);
	if (l->logdir[0] == '\0')
		return;
	if (status == 0)
		(void)ft__logdir_remove(l->logdir);
	else
		ft_warnx("the event log of the job is kept in '%s'",
		    l->logdir);
}

/* A rank has exited: record it and decide whether the job goes on. */
static void
rank_exited(struct launcher *l, uint32_t i, int st)
{
	struct lrank *r = &l->ranks[i];
	char how[128], rep[32], name[48];

	r->state = R_EXITED;
	r->status = st;
	r->stopped = 0;
	l->running--;
	/* What it said before it exited (ABORT, FINALIZE) may still be in
	 * its connection, unread: it decides how the exit reads. */
	if (r->conn != NULL && !r->conn->closed)
		lconn_read(l, r->conn);
	/* A SPAWN among it may have moved the table. */
	r = &l->ranks[i];
	(void)replica_field(l, r, rep, sizeof(rep));
	if (WIFSIGNALED(st))
		event(l, "\"event\":\"exit\",\"rank\":%u,%s\"pid\":%d,"
		    "\"signal\":%d", r->rank, rep, (int)r->pid,
		    WTERMSIG(st));
	else
		event(l, "\"event\":\"exit\",\"rank\":%u,%s\"pid\":%d,"
		    "\"status\":%d", r->rank, rep, (int)r->pid,
		    WEXITSTATUS(st));
	/* A spawn that this process was part of fails with it. */
	if (r->spec != NULL && ft__spawn_exited(l->sp, i))
		return;
	/* --ft coord: killed to roll back, or died meanwhile. */
	if (l->coord.rolling && !l->aborting) {
		coord_reaped(l);
		return;
	}
	/* Declared failed when it fell silent, or ended the job itself. */
	if (r->hung || r->aborted)
		return;
	describe_status(st, how, sizeof(how));
	if (l->aborting) {
		/*
		 * A death while the job ends may be what ended it: a
		 * survivor's error on the dead connection can reach us
		 * first.  Name it; job_status makes it the status.
		 */
		if (!l->user_signal && !r->dead && !ended_by_us(r) &&
		    !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			rank_failed(l, i, how);
			ft_warnx("%s (pid %d) %s, detected by waitpid on this "
			    "host", who(l, i, name, sizeof(name)),
			    (int)r->pid, how);
		}
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		if (!r->registered && l->unjoined < 0) {
			l->unjoined = (int)i;
			if (l->registered > 0)
				unjoinable(l, i);
			return;
		}
		if (!r->registered || r->finalized)
			return;
		if (l->ulfm && l->table_sent) {
			process_failed(l, i, "exited without calling "
			    "MPI_Finalize");
			return;
		}
		ft_warnx("%s (pid %d) exited without calling "
		    "MPI_Finalize; aborting the job",
		    who(l, i, name, sizeof(name)), (int)r->pid);
		event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"rank %u exited without calling MPI_Finalize\"",
		    r->rank, r->rank);
		abort_job(l, 1);
		return;
	}
	if (r->injected && WIFSIGNALED(st))
		/* The after-sends kills happen in the process itself. */
		event(l, "\"event\":\"inject\",\"rank\":%u,\"replica\":%u,"
		    "\"pid\":%d,\"trigger\":\"after-sends\"", r->rank,
		    r->replica, (int)r->pid);
	process_failed(l, i, how);
}

/* A process was stopped by a signal, or continued: say so at once. */
static void
rank_stopped(struct launcher *l, uint32_t i, int st)
{
	struct lrank *r = &l->ranks[i];
	char name[48], rep[32], silent[32];

	(void)replica_field(l, r, rep, sizeof(rep));
	if (WIFCONTINUED(st)) {
		if (!r->stopped)
			return;
		r->stopped = 0;
		event(l, "\"event\":\"continued\",\"rank\":%u,%s\"pid\":%d",
		    r->rank, rep, (int)r->pid);
		return;
	}
	r->stopped = WSTOPSIG(st);
	event(l, "\"event\":\"stopped\",\"rank\":%u,%s\"pid\":%d,"
	    "\"signal\":%d", r->rank, rep, (int)r->pid, WSTOPSIG(st));
	if (l->cf->hang_ns == 0 || r->hb_last == 0)
		ft_warnx("%s (pid %d) was stopped by signal %d (%s); the job "
		    "waits for it", who(l, i, name, sizeof(name)),
		    (int)r->pid, WSTOPSIG(st), strsignal(WSTOPSIG(st)));
	else
		ft_warnx("%s (pid %d) was stopped by signal %d (%s); it is "
		    "killed if it stays silent for %s", who(l, i, name,
		    sizeof(name)), (int)r->pid, WSTOPSIG(st),
		    strsignal(WSTOPSIG(st)), ft_fmt_duration(l->cf->hang_ns,
		    silent, sizeof(silent)));
}

/*
 * --ckpt-server auto: the server died.  It is not started again:
 * images stop being durable, and the job goes on from what it holds.
 */
static void
ckserver_died(struct launcher *l, int st)
{
	char how[128];

	l->ckserver.pid = -1;
	if (l->aborting)
		return;
	describe_status(st, how, sizeof(how));
	ft_warnx("the checkpoint server %s; images are no longer pushed%s",
	    how, l->coord.on ? ": the job goes on with the ranks' local "
	    "images" : "");
	event(l, "\"event\":\"ckpt_server\",\"status\":\"%s\"", how);
	if (l->coord.on)
		coord_image(l, UINT32_MAX, 0, 0);
}

/*
 * --ckpt-server auto: start `ftckpt serve` on loopback, storing in
 * cf->ckpt_serve_dir, with the key ftrun made for it.
 */
static int
start_ckserver(struct launcher *l)
{
	snprintf(l->ckkey, sizeof(l->ckkey), "%s", l->cf->ckpt_serve_key);
	if (mkdir(l->cf->ckpt_serve_dir, 0700) != 0 && errno != EEXIST) {
		ft_warn("checkpoint server directory '%s'",
		    l->cf->ckpt_serve_dir);
		return -1;
	}
	if (ft__ckserver_start(&l->ckserver, l->cf->ckpt_serve_dir, l->ckkey,
	    l->origmask, 10000000000ull) != 0) {
		ft_warn("unable to start the checkpoint server");
		return -1;
	}
	event(l, "\"event\":\"ckpt_server\",\"addr\":\"%s\",\"pid\":%d",
	    l->ckserver.addr, (int)l->ckserver.pid);
	return 0;
}

static void
reap_children(struct launcher *l)
{
	uint32_t i;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED)) >
	    0) {
		if (pid == l->logger.pid) {
			if (!WIFSTOPPED(st) && !WIFCONTINUED(st))
				logger_died(l, st);
			continue;
		}
		if (pid == l->ckserver.pid) {
			if (!WIFSTOPPED(st) && !WIFCONTINUED(st))
				ckserver_died(l, st);
			continue;
		}
		for (i = 0; i < l->n; i++) {
			if (l->ranks[i].pid != pid ||
			    l->ranks[i].state != R_RUNNING)
				continue;
			if (WIFSTOPPED(st) || WIFCONTINUED(st))
				rank_stopped(l, i, st);
			else
				rank_exited(l, i, st);
			break;
		}
	}
}

/*
 * A silence during which we did not run ourselves (ftrun stopped, or
 * starved on a loaded host) is not the processes' fault: their beats
 * may have been dropped on a full pipe meanwhile.  The pipe is readable
 * every period, so a longer gap between two reads is our delay.
 */
static void
excuse_own_delay(struct launcher *l)
{
	uint64_t now = ft_now_ns(), late;
	uint32_t i;

	if (l->hb_read_at != 0 && now - l->hb_read_at > 2 * l->hb_period_ns) {
		late = now - l->hb_read_at - l->hb_period_ns;
		for (i = 0; i < l->n; i++)
			if (l->ranks[i].hb_last != 0)
				l->ranks[i].hb_last = l->ranks[i].hb_last +
				    late < now ? l->ranks[i].hb_last + late :
				    now;
	}
	l->hb_read_at = now;
}

/* A beat of process rec->id, read (or received from its agent) now. */
static void
hb_note(struct launcher *l, const struct ft_hb_rec *rec, uint64_t now)
{
	struct lrank *r;

	if (rec->id >= l->n)
		return;
	r = &l->ranks[rec->id];
	if (r->state != R_RUNNING || r->dead || r->hung)
		return;
	l->hb_beats++;
	if (r->hb_last != 0 && now - r->hb_last > l->hb_maxgap_ns) {
		l->hb_maxgap_ns = now - r->hb_last;
		l->hb_maxgap_id = rec->id;
	}
	if (r->hb_last == 0 || rec->completed != r->hb_completed)
		r->hb_progress_at = now;
	r->hb_last = now;
	r->hb_completed = rec->completed;
	r->hb_flags = rec->flags;
	r->hb_state_ms = rec->state_ms;
}

/*
 * Heartbeats: read every record in the pipe.  A beat stamps its process
 * with the time we read it, so a launcher that was itself late (loaded
 * machine, stopped ftrun) finds everyone's queued beats fresh.
 */
static void
read_heartbeats(struct launcher *l)
{
	struct ft_hb_rec rec;
	uint64_t now;
	size_t used;
	ssize_t got;

	if (l->hb_fd == -1)
		return;
	excuse_own_delay(l);
	for (;;) {
		got = read(l->hb_fd, l->hb_buf + l->hb_len,
		    sizeof(l->hb_buf) - l->hb_len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return;
		l->hb_len += (size_t)got;
		now = ft_now_ns();
		while (ft_hb_decode(l->hb_buf, l->hb_len, &used, &rec) == 1) {
			memmove(l->hb_buf, l->hb_buf + used, l->hb_len - used);
			l->hb_len -= used;
			hb_note(l, &rec, now);
		}
		memmove(l->hb_buf, l->hb_buf + used, l->hb_len - used);
		l->hb_len -= used;
	}
}

/*
 * Fail-stop: a process silent for the hang timeout is killed with
 * SIGKILL, its whole process group with it, and handled as a crash at
 * once, before it is reaped: a process stuck in the kernel may take a
 * while to die, and must not come back as a zombie replica meanwhile.
 */
static void
check_hangs(struct launcher *l)
{
	struct lrank *r;
	char how[96], silent[32], rep[32];
	uint64_t now;
	uint32_t i;

	if (l->cf->hang_ns == 0 || l->aborting)
		return;
	read_heartbeats(l);
	now = ft_now_ns();
	for (i = 0; i < l->n && !l->aborting; i++) {
		r = &l->ranks[i];
		if (r->state != R_RUNNING || r->dead || r->hung ||
		    r->hb_last == 0 || now - r->hb_last < l->cf->hang_ns)
			continue;
		r->hung = 1;
		proc_signal(l, i, SIGKILL);
		snprintf(how, sizeof(how), "sent no heartbeat for %s%s; "
		    "killed with SIGKILL", ft_fmt_duration(now - r->hb_last,
		    silent, sizeof(silent)), r->stopped ? " (stopped)" : "");
		event(l, "\"event\":\"hang\",\"rank\":%u,%s\"pid\":%d,"
		    "\"silent_ms\":%llu", r->rank, replica_field(l, r, rep,
		    sizeof(rep)), (int)r->pid, (unsigned long long)((now -
		    r->hb_last) / 1000000));
		process_failed(l, i, how);
	}
}

/*
 * The heartbeat pipe: one for the job, the write end inherited by every
 * process, non-blocking at both ends.  Room for several rounds of beats
 * of every process, so a late launcher loses none.
 */
static int
open_heartbeats(struct launcher *l)
{
	int p[2];

	if (ft__hb_pipe(l->n, p) != 0)
		return -1;
	l->hb_fd = p[0];
	l->hb_wfd = p[1];
	/* Ten beats a timeout: a process is declared hung after missing
	 * ten in a row, never for one late wake-up. */
	l->hb_period_ns = l->cf->hang_ns / 10;
	if (l->hb_period_ns < 10000000u)
		l->hb_period_ns = 10000000u;
	if (l->hb_period_ns > 1000000000u)
		l->hb_period_ns = 1000000000u;
	return 0;
}

/* The longest silence of a live process: what the hang timeout must
 * exceed on this host (see ftrun(1), --hang-timeout). */
static void
heartbeat_event(struct launcher *l)
{
	char rep[32];

	read_heartbeats(l);
	if (l->hb_beats == 0)
		return;
	event(l, "\"event\":\"heartbeats\",\"beats\":%llu,\"period_ms\":"
	    "%llu,\"max_gap_ms\":%.3f,\"rank\":%u,%s\"timeout_ms\":%llu",
	    (unsigned long long)l->hb_beats,
	    (unsigned long long)(l->hb_period_ns / 1000000),
	    (double)l->hb_maxgap_ns / 1e6, l->ranks[l->hb_maxgap_id].rank,
	    replica_field(l, &l->ranks[l->hb_maxgap_id], rep, sizeof(rep)),
	    (unsigned long long)(l->cf->hang_ns / 1000000));
}

/*
 * At the end of the job, what the ranks started dies with them: every
 * rank leads its own process group, and the group lives on while a
 * member does, even after its leader was reaped.
 */
static void
kill_leftovers(struct launcher *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->ranks[i].pid > 0 && (!l->ranks[i].remote ||
		    l->ranks[i].state == R_RUNNING))
			proc_signal(l, i, SIGKILL);
}

/* When the next process falls silent for the hang timeout, or 0. */
static uint64_t
next_hang_check(const struct launcher *l)
{
	const struct lrank *r;
	uint64_t w = 0;
	uint32_t i;

	if (l->cf->hang_ns == 0 || l->aborting)
		return 0;
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if (r->state != R_RUNNING || r->dead || r->hung ||
		    r->hb_last == 0)
			continue;
		if (w == 0 || r->hb_last + l->cf->hang_ns < w)
			w = r->hb_last + l->cf->hang_ns;
	}
	return w;
}

static int
job_status(struct launcher *l)
{
	const struct lrank *r;
	uint32_t i;

	/* The program chose the end (MPI_Abort), or ftrun did. */
	if (l->abort_status >= 0 && !l->abort_is_error)
		return l->abort_status;
	/*
	 * Otherwise the lowest rank that failed by itself decides: a death
	 * wins over the errors it causes in others.  Ranks we ended while
	 * aborting do not decide; but when the user signalled the job, the
	 * ranks' own answer to that signal is the status.
	 */
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if ((!l->user_signal && ended_by_us(r)) ||
		    r->state != R_EXITED || r->dead)
			continue;
		if (WIFSIGNALED(r->status))
			return 128 + WTERMSIG(r->status);
		if (WEXITSTATUS(r->status) != 0)
			return WEXITSTATUS(r->status);
	}
	if (l->abort_status >= 0)
		return l->abort_status;
	/* --ft ulfm with no survivor: the lowest rank's death, as mpirun. */
	if (l->ulfm && l->ndead == l->n && l->n > 0) {
		r = &l->ranks[0];
		if (WIFSIGNALED(r->status))
			return 128 + WTERMSIG(r->status);
		return WEXITSTATUS(r->status) != 0 ?
		    WEXITSTATUS(r->status) : 1;
	}
	return l->aborting && !l->user_signal ? 1 : 0;
}

/*
 * What process i was doing, for the --timeout message: "" when it made
 * progress lately or we cannot tell (it never beat).
 */
static void
progress_note(const struct launcher *l, uint32_t i, uint64_t now,
    uint64_t window, char *out, size_t size)
{
	const struct lrank *r = &l->ranks[i];
	uint64_t in_state;
	char d[32];

	out[0] = '\0';
	if (r->stopped) {
		snprintf(out, size, "stopped by signal %d", r->stopped);
		return;
	}
	if (r->hb_last == 0 || now - r->hb_progress_at < window)
		return;
	/* As of the last beat, plus the time since. */
	in_state = (uint64_t)r->hb_state_ms * 1000000 + (now - r->hb_last);
	snprintf(out, size, "%s for %s", (r->hb_flags & FT_HB_FINALIZED) ?
	    "after MPI_Finalize" : (r->hb_flags & FT_HB_IN_MPI) ?
	    "waiting in MPI" : "outside MPI", ft_fmt_duration(in_state, d,
	    sizeof(d)));
}

/*
 * The timeout names the processes that were not progressing (no MPI
 * operation completed in the last half of the timeout, at most the
 * hang timeout), and says what each was doing; processes that never
 * beat (not MPI programs, or no heartbeats) are listed as running.
 */
static void
on_timeout(struct launcher *l)
{
	char stuck[2048], running[1024], all[1024], note[160], name[48],
	    id[24];
	size_t so = 0, ro = 0, ao = 0;
	uint64_t now, window;
	uint32_t i, nprog = 0;

	read_heartbeats(l);
	now = ft_now_ns();
	window = l->cf->timeout_ns / 2;
	if (l->cf->hang_ns != 0 && window > l->cf->hang_ns)
		window = l->cf->hang_ns;
	stuck[0] = running[0] = all[0] = '\0';
	for (i = 0; i < l->n; i++) {
		const struct lrank *r = &l->ranks[i];

		if (r->state != R_RUNNING || r->dead)
			continue;
		if (l->nrep > 1)
			snprintf(id, sizeof(id), "%u.%u", r->rank, r->replica);
		else
			snprintf(id, sizeof(id), "%u", i);
		ft_appendf(all, sizeof(all), &ao, "%s%s", ao > 0 ? " " : "",
		    id);
		progress_note(l, i, now, window, note, sizeof(note));
		if (note[0] != '\0')
			ft_appendf(stuck, sizeof(stuck), &so, "%s%s (%s)",
			    so > 0 ? ", " : "", who(l, i, name, sizeof(name)),
			    note);
		else if (r->hb_last != 0)
			nprog++;
		else
			ft_appendf(running, sizeof(running), &ro, "%s%s",
			    ro > 0 ? " " : "", id);
	}
	if (so == 0 && nprog == 0)
		ft_warnx("the job timed out after %.3gs; ranks still running: "
		    "%s", (double)l->cf->timeout_ns / 1e9, running);
	else
		ft_warnx("the job timed out after %.3gs; %s%s%s%s%s%s",
		    (double)l->cf->timeout_ns / 1e9,
		    so > 0 ? "not progressing: " : "every MPI process was "
		    "progressing", stuck, ro > 0 ? "; not in MPI, still "
		    "running: " : "", running, nprog > 0 && so > 0 ?
		    "; the others were progressing" : "", "");
	event(l, "\"event\":\"abort\",\"reason\":\"timeout\","
	    "\"running\":\"%s\"", all);
	abort_job(l, FT_LAUNCH_TIMEOUT_STATUS);
}

/* A small generator for random kills: splitmix64. */
static uint64_t
inj_random(struct launcher *l)
{
	uint64_t z = (l->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The process an --inject spec names now, or -1 when there is none. */
static int64_t
inj_target(struct launcher *l, const struct ft_inject *in)
{
	uint32_t k, m, cand[FT_REPLICAS_MAX], nc, rank, tries;

	if (in->target == FT_INJECT_RANDOM) {
		/* A random rank that keeps a replica after the kill. */
		for (tries = 0; tries < 4 * l->nranks + 16; tries++) {
			rank = (uint32_t)(inj_random(l) % l->nranks);
			for (nc = 0, k = 0; k < l->nrep; k++) {
				struct lrank *r = &l->ranks[rank * l->nrep + k];

				if (!r->dead && !r->doomed &&
				    r->state == R_RUNNING)
					cand[nc++] = rank * l->nrep + k;
			}
			if (nc >= 2)
				return cand[inj_random(l) % nc];
		}
		return -1;
	}
	if (in->rank >= l->nranks)
		return -1;
	if (in->target == FT_INJECT_REPLICA)
		return in->replica < l->nrep ?
		    (int64_t)(in->rank * l->nrep + in->replica) : -1;
	if ((m = master_of(l, in->rank)) == UINT32_MAX)
		return -1;
	if (in->target == FT_INJECT_MASTER)
		return in->rank * l->nrep + m;
	for (k = 0; k < l->nrep; k++)
		if (k != m && !l->ranks[in->rank * l->nrep + k].dead)
			return in->rank * l->nrep + k;
	return -1;
}

/* Fire the timed --inject specs that are due. */
static void
inject_due(struct launcher *l, uint64_t now)
{
	const struct ft_inject *in;
	char spec[FT_INJECT_SPEC_MAX + 1];
	struct lrank *r;
	int64_t t;
	size_t i;

	if (!l->table_sent || l->aborting)
		return;
	for (i = 0; i < l->cf->ninject; i++) {
		in = &l->cf->inject[i];
		if (l->inj_next[i] == 0 || now < l->inj_next[i])
			continue;
		l->inj_next[i] = in->trigger == FT_INJECT_EVERY &&
		    (in->count == 0 || l->inj_kills[i] + 1 < in->count) ?
		    now + in->every_ns : 0;
		if ((t = inj_target(l, in)) < 0)
			continue;
		r = &l->ranks[t];
		if (r->state != R_RUNNING || r->pid <= 0)
			continue;
		l->inj_kills[i]++;
		r->doomed = 1;
		(void)ft_inject_format(in, spec, sizeof(spec));
		event(l, "\"event\":\"inject\",\"spec\":\"%s\",\"rank\":%u,"
		    "\"replica\":%u,\"pid\":%d,\"signal\":%d", spec, r->rank,
		    r->replica, (int)r->pid, in->signo);
		proc_signal(l, (uint32_t)t, in->signo);
	}
}

/* The soonest timed injection, or 0. */
static uint64_t
inject_next(const struct launcher *l)
{
	uint64_t w = 0;
	size_t i;

	for (i = 0; i < l->cf->ninject; i++)
		if (l->inj_next[i] != 0 && (w == 0 || l->inj_next[i] < w))
			w = l->inj_next[i];
	return w;
}

/* Everything the loop polls, rebuilt every round. */
struct pollset {
	struct pollfd	*fds;
	int		*what;	/* see the WHAT_* below */
	size_t		 n;
};

enum {
	WHAT_LISTEN = -1,
	WHAT_STDIN = -2,
	WHAT_STDIN_OUT = -3,
	WHAT_HEARTBEAT = -4,
	WHAT_REMOTE = -5,
	/* >= 0: conn index; rank outputs are encoded below */
	WHAT_OUT_BASE = 1 << 24,
};

static void
ps_add(struct pollset *ps, int fd, short events, int what)
{
	ps->fds[ps->n] = (struct pollfd){ fd, events, 0 };
	ps->what[ps->n++] = what;
}

static void
close_lconns(struct launcher *l)
{
	size_t i, j;

	for (i = j = 0; i < l->nconns; i++) {
		struct lconn *lc = l->conns[i];

		if (!lc->closed) {
			l->conns[j++] = lc;
			continue;
		}
		if (lc->rank >= 0 && l->ranks[lc->rank].conn == lc)
			l->ranks[lc->rank].conn = NULL;
		ft_conn_release(&lc->c);
		free(lc);
	}
	l->nconns = j;
}

static int
outputs_open(const struct launcher *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->ranks[i].out.fd != -1 || l->ranks[i].err.fd != -1)
			return 1;
	return 0;
}

static void
loop(struct launcher *l, const sigset_t *waitmask)
{
	struct pollset ps;
	struct timespec ts, *tsp;
	uint64_t now, wake;
	size_t i, cap, rstart, rn = 0;
	int rc, w;

	cap = 5 + FT_REPLICAS_MAX + 2 * (size_t)l->n;
	ps.fds = calloc(cap + 1, sizeof(*ps.fds));
	ps.what = calloc(cap + 1, sizeof(*ps.what));
	if (ps.fds == NULL || ps.what == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	while (l->running > 0 || outputs_open(l) ||
	    (l->rm != NULL && ft__remote_busy(l->rm))) {
		if (got_chld) {
			got_chld = 0;
			reap_children(l);
		}
		if (got_term) {
			got_term = 0;
			ft_warnx("got signal %d; forwarding it to the ranks",
			    (int)term_signo);
			event(l, "\"event\":\"abort\",\"reason\":\"signal %d\"",
			    (int)term_signo);
			signal_ranks(l, term_signo, 0);
			l->user_signal = 1;
			if (!l->aborting) {
				l->aborting = 1;
				l->abort_status = -1;
				l->kill_at = ft_now_ns() + l->cf->grace_ns;
			}
		}
		check_hangs(l);
		now = ft_now_ns();
		inject_due(l, now);
		coord_tick(l, now);
		vlog_sched_tick(l, now);
		if (l->deadline != 0 && now >= l->deadline && !l->aborting && l->running > 0)
			on_timeout(l);
		if (l->aborting && l->kill_at != 0 && now >= l->kill_at) {
			signal_ranks(l, SIGKILL, 1);
			l->kill_at = 0;
		}
		/* No restart can come now: the agents may end. */
		if (l->rm != NULL && l->running == 0 && l->respawning == 0)
			ft__remote_release(l->rm);
		if (l->running == 0 && !outputs_open(l) &&
		    (l->rm == NULL || !ft__remote_busy(l->rm)))
			break;
		/* A restart asked of an agent runs, for this. */
		if (l->running == 0 && l->respawning == 0 && l->drain_at == 0)
			l->drain_at = now + l->cf->grace_ns;
		if (l->running == 0 && l->respawning == 0 &&
		    now >= l->drain_at) {
			for (i = 0; i < l->n; i++) {
				struct outbuf *ob[2] = { &l->ranks[i].out, &l->ranks[i].err };
				for (int k = 0; k < 2; k++) if (ob[k]->fd != -1) {
					flush_lines(l, (uint32_t)i, ob[k],
					    l->nrep == 1);
					close(ob[k]->fd);
					ob[k]->fd = -1;
				}
			}
			break;
		}
		close_lconns(l);
		if (cap < 4 + FT_REPLICAS_MAX + 2 * (size_t)l->n + l->nconns +
		    l->cf->nhosts) {
			cap = 4 + FT_REPLICAS_MAX + 2 * (size_t)l->n +
			    l->nconns + l->cf->nhosts;
			ps.fds = reallocarray(ps.fds, cap, sizeof(*ps.fds));
			ps.what = reallocarray(ps.what, cap, sizeof(*ps.what));
			if (ps.fds == NULL || ps.what == NULL)
				ft_die(FT_EXIT_TEMP, "out of memory");
		}
		ps.n = 0;
		ps_add(&ps, l->lfd, POLLIN, WHAT_LISTEN);
		if (l->hb_fd != -1)
			ps_add(&ps, l->hb_fd, POLLIN, WHAT_HEARTBEAT);
		if (l->stdin_open && l->in_open > 0) {
			if (stdin_drained(l))
				ps_add(&ps, STDIN_FILENO, POLLIN, WHAT_STDIN);
			else
				for (i = 0; i < l->nrep; i++)
					if (l->in_fds[i] != -1 &&
					    l->in_offs[i] < l->inlen)
						ps_add(&ps, l->in_fds[i],
						    POLLOUT, WHAT_STDIN_OUT);
		}
		for (i = 0; i < l->nconns; i++)
			ps_add(&ps, l->conns[i]->c.fd, POLLIN |
			    (ft_conn_want_write(&l->conns[i]->c) ? POLLOUT : 0),
			    (int)i);
		for (i = 0; i < l->n; i++) {
			if (l->ranks[i].out.fd != -1)
				ps_add(&ps, l->ranks[i].out.fd, POLLIN,
				    WHAT_OUT_BASE + 2 * (int)i);
			if (l->ranks[i].err.fd != -1)
				ps_add(&ps, l->ranks[i].err.fd, POLLIN,
				    WHAT_OUT_BASE + 2 * (int)i + 1);
		}
		rstart = ps.n;
		if (l->rm != NULL) {
			rn = ft__remote_pollfds(l->rm, ps.fds + ps.n);
			for (i = 0; i < rn; i++)
				ps.what[ps.n++] = WHAT_REMOTE;
		}
		wake = 0;
		if (l->rm != NULL)
			wake = ft__remote_tick(l->rm, now);
		if (l->deadline != 0 && !l->aborting && (wake == 0 ||
		    l->deadline < wake))
			wake = l->deadline;
		if (l->aborting && l->kill_at != 0 && (wake == 0 ||
		    l->kill_at < wake))
			wake = l->kill_at;
		if (l->running == 0 && l->drain_at != 0 && (wake == 0 ||
		    l->drain_at < wake))
			wake = l->drain_at;
		if (!l->aborting && inject_next(l) != 0 &&
		    (wake == 0 || inject_next(l) < wake))
			wake = inject_next(l);
		if (ft__coord_sched_next(&l->coord) != 0 && (wake == 0 ||
		    ft__coord_sched_next(&l->coord) < wake))
			wake = ft__coord_sched_next(&l->coord);
		if (ft__vsched_next(&l->vs) != 0 && (wake == 0 ||
		    ft__vsched_next(&l->vs) < wake))
			wake = ft__vsched_next(&l->vs);
		if (next_hang_check(l) != 0 &&
		    (wake == 0 || next_hang_check(l) < wake))
			wake = next_hang_check(l);
		tsp = NULL;
		if (wake != 0) {
			uint64_t d = wake > now ? wake - now : 0;

			ts.tv_sec = (time_t)(d / 1000000000u);
			ts.tv_nsec = (long)(d % 1000000000u);
			tsp = &ts;
		}
		rc = ppoll(ps.fds, (nfds_t)ps.n, tsp, waitmask);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			ft_die(FT_EXIT_TEMP, "poll");
		}
		if (l->rm != NULL) {
			ft__remote_io(l->rm, ps.fds + rstart, rn);
			/* Room may have come for rank 0's input. */
			if (l->stdin_open && !stdin_drained(l))
				forward_stdin(l);
		}
		for (i = 0; i < ps.n; i++) {
			short re = ps.fds[i].revents;

			if (re == 0)
				continue;
			w = ps.what[i];
			if (w == WHAT_REMOTE)
				continue;
			if (w == WHAT_LISTEN)
				accept_conns(l);
			else if (w == WHAT_HEARTBEAT)
				read_heartbeats(l);
			else if (w == WHAT_STDIN || w == WHAT_STDIN_OUT)
				forward_stdin(l);
			else if (w >= WHAT_OUT_BASE) {
				uint32_t r = (uint32_t)(w - WHAT_OUT_BASE) / 2;

				read_output(l, r, (w - WHAT_OUT_BASE) % 2 ?
				    &l->ranks[r].err : &l->ranks[r].out);
			} else {
				struct lconn *lc = l->conns[w];

				if ((re & POLLOUT) &&
				    ft_conn_flush(&lc->c) != 0)
					lc->closed = 1;
				if (!lc->closed &&
				    (re & (POLLIN | POLLHUP | POLLERR)))
					lconn_read(l, lc);
				if (!lc->closed &&
				    ft_conn_want_write(&lc->c))
					(void)ft_conn_flush(&lc->c);
			}
		}
	}
	free(ps.fds);
	free(ps.what);
}

/*
 * Across hosts (cf->hosts): the agents report what their processes do,
 * and each report goes where the same event of a local process goes.
 */
static void
remote_started(void *arg, uint32_t i, pid_t pid, int err, const char *host)
{
	struct launcher *l = arg;
	struct lrank *r = &l->ranks[i];
	char rep[32], name[48];

	if (r->incarnation > 0 && r->pid <= 0 && l->respawning > 0)
		l->respawning--;
	if (pid <= 0) {
		errno = err;
		ft_error("unable to start %s on host '%s'", who(l, i, name,
		    sizeof(name)), host);
		abort_job(l, FT_EXIT_TEMP);
		return;
	}
	r->pid = pid;
	l->running++;
	/* Asked for before the job began to end, or to roll back again. */
	if (l->aborting || (l->coord.on && l->coord.rolling)) {
		r->sent_sig = SIGKILL;
		proc_signal(l, i, SIGKILL);
	}
	if (r->incarnation > 0)
		event(l, "\"event\":\"restart\",\"rank\":%u,\"pid\":%d,"
		    "\"incarnation\":%u,\"host\":\"%s\"", i, (int)pid,
		    r->incarnation, host);
	event(l, "\"event\":\"spawn\",\"rank\":%u,%s\"pid\":%d,"
	    "\"host\":\"%s\"", r->rank, replica_field(l, r, rep,
	    sizeof(rep)), (int)pid, host);
	/* As a local exec error read from its pipe: the job cannot run. */
	if (err != 0 && !l->exec_failed) {
		l->exec_failed = 1;
		ft_errorx("unable to run '%s' on host '%s': %s", l->cf->argv[0],
		    host, strerror(err));
		event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"exec failed\"", r->rank);
		abort_job(l, err == ENOENT ? 127 : 126);
	}
}

static void
remote_output(void *arg, uint32_t i, int stream, const uint8_t *p,
    size_t len, int eof)
{
	struct launcher *l = arg;
	struct outbuf *o = stream ? &l->ranks[i].err : &l->ranks[i].out;
	size_t n;

	while (len > 0) {
		n = LINE_MAX_FWD - o->len < len ? LINE_MAX_FWD - o->len : len;
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		p += n;
		len -= n;
		flush_lines(l, i, o, 0);
	}
	if (eof)
		flush_lines(l, i, o, l->nrep == 1);
}

static void
remote_status(void *arg, uint32_t i, int st)
{
	struct launcher *l = arg;

	if (l->ranks[i].state != R_RUNNING || l->ranks[i].pid <= 0)
		return;
	if (WIFSTOPPED(st) || WIFCONTINUED(st))
		rank_stopped(l, i, st);
	else
		rank_exited(l, i, st);
}

static void
remote_beat(void *arg, const struct ft_hb_rec *rec)
{
	hb_note(arg, rec, ft_now_ns());
}

static void
remote_staged(void *arg, uint32_t host, uint32_t cached, uint32_t received,
    uint32_t fetched)
{
	struct launcher *l = arg;

	event(l, "\"event\":\"stage\",\"host\":\"%s\",\"cached\":%u,"
	    "\"received\":%u,\"fetched\":%u", l->cf->hosts[host].name,
	    cached, received, fetched);
}

/* A host is gone: every process of the job there failed with it. */
static void
remote_lost(void *arg, uint32_t host, const char *why)
{
	struct launcher *l = arg;
	struct lrank *r;
	char how[256];
	uint32_t i;

	snprintf(how, sizeof(how), "was lost with its host '%s' (%s)",
	    l->cf->hosts[host].name, why);
	event(l, "\"event\":\"host\",\"host\":\"%s\",\"reason\":\"%s\"",
	    l->cf->hosts[host].name, why);
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if (!r->remote || r->host != host || r->state != R_RUNNING ||
		    (r->pid <= 0 && r->incarnation == 0))
			continue;
		r->lost = 1;
		r->state = R_EXITED;
		r->status = SIGKILL;
		/* A restart it was asked for is lost with it too. */
		if (r->pid > 0)
			l->running--;
		else if (l->respawning > 0)
			l->respawning--;
		if (r->hung || r->aborted || l->aborting)
			continue;
		process_failed(l, i, how);
	}
}

/* --ft vlog across hosts: every process learns the logger and job id. */
static int
remote_vlog_env(struct launcher *l)
{
	if (asprintf(&l->rm_env[0], "%s=%s", FT_ENV_LOG_ADDR,
	    l->log_addr) < 0 || asprintf(&l->rm_env[1], "%s=%016llx",
	    FT_ENV_JOB_ID, (unsigned long long)l->job_id) < 0)
		return -1;
	ft__remote_setenv(l->rm, l->rm_env, 2);
	return 0;
}

int
ft_launch_run(const struct ft_launch *cf)
{
	struct launcher l;
	struct ft__remote_cb rcb;
	sigset_t orig, waitmask;
	char prog[4096];
	uint32_t i;
	int status, e, *errfds;
	ssize_t n;

	memset(&l, 0, sizeof(l));
	l.cf = cf;
	l.nranks = cf->nranks;
	l.nrep = cf->nrep > 1 ? cf->nrep : 1;
	l.ulfm = cf->proto != NULL && (strcmp(cf->proto, "ulfm") == 0 ||
	    (strcmp(cf->proto, "ftmpi") == 0 &&
	    cf->ftmpi_comm != FT_FTMPI_ABORT));
	l.rebuild = l.ulfm && cf->ftmpi_comm == FT_FTMPI_REBUILD;
	l.vlog = cf->proto != NULL && strcmp(cf->proto, "vlog") == 0;
	l.coord.on = cf->proto != NULL && strcmp(cf->proto, "coord") == 0;
	l.coord.interval_ns = l.coord.on ? cf->ckpt_interval_ns : 0;
	l.coord.push = l.coord.on && cf->ckpt_push;
	if (l.coord.interval_ns > 0 && ft__coord_sched_init(&l.coord,
	    cf->nranks) != 0)
		ft_die(FT_EXIT_TEMP, "out of memory");
	if (l.coord.interval_ns > 0 && cf->ckpt_interval_auto)
		ft__coord_auto_init(&l.coord, ft_now_ns());
	if (ft__vsched_init(&l.vs, cf->nranks, l.vlog ? cf->ckpt_policy : 0,
	    cf->ckpt_interval_ns) != 0)
		ft_die(FT_EXIT_TEMP, "out of memory");
	l.logger.pid = -1;
	l.ckserver.pid = -1;
	l.n = cf->nranks * l.nrep;
	l.n0 = l.n;
	l.lfd = -1;
	for (i = 0; i < FT_REPLICAS_MAX; i++)
		l.in_fds[i] = -1;
	l.abort_status = -1;
	l.watchdog_fd = -1;
	l.hb_fd = l.hb_wfd = -1;
	l.unjoined = -1;
	l.rng = 0x5eed;
	ft_ratelim_init(&l.refusals, "refused connections", FT_HS_WARN_BURST,
	    FT_HS_WARN_NS);
	for (i = 0; i < cf->ninject; i++)
		if (cf->inject[i].seed != 0)
			l.rng = cf->inject[i].seed;
	l.progname = strrchr(cf->argv[0], '/') != NULL ?
	    strrchr(cf->argv[0], '/') + 1 : cf->argv[0];
	if (ft_find_program(cf->argv[0], cf->path, prog, sizeof(prog)) != 0) {
		ft_error("unable to run '%s'", cf->argv[0]);
		return errno == ENOENT ? 127 : 126;
	}
	snprintf(l.prog, sizeof(l.prog), "%s", prog);
	if ((l.ranks = calloc(l.n, sizeof(*l.ranks))) == NULL ||
	    (errfds = calloc(l.n, sizeof(*errfds))) == NULL ||
	    (l.sp = ft__spawn_new(&l, l.n, cf->universe)) == NULL) {
		ft_warn("unable to allocate %u ranks", l.n);
		return FT_EXIT_TEMP;
	}
	if ((l.printed = calloc(2 * (size_t)l.nranks, sizeof(*l.printed))) ==
	    NULL || (l.inj_next = calloc(cf->ninject + 1,
	    sizeof(*l.inj_next))) == NULL || (l.inj_kills =
	    calloc(cf->ninject + 1, sizeof(*l.inj_kills))) == NULL) {
		ft_warn("unable to allocate %u ranks", l.n);
		return FT_EXIT_TEMP;
	}
	for (i = 0; i < l.n; i++) {
		l.ranks[i].rank = i / l.nrep;
		l.ranks[i].replica = i % l.nrep;
		l.ranks[i].out = (struct outbuf){ -1, STDOUT_FILENO, NULL, 0,
		    0 };
		l.ranks[i].err = (struct outbuf){ -1, STDERR_FILENO, NULL, 0,
		    0 };
		l.ranks[i].out.buf = malloc(LINE_MAX_FWD);
		l.ranks[i].err.buf = malloc(LINE_MAX_FWD);
		if (l.ranks[i].out.buf == NULL || l.ranks[i].err.buf == NULL) {
			ft_warn("unable to allocate output buffers");
			return FT_EXIT_TEMP;
		}
	}
	ft_key_generate(l.key);
	if (make_jobdir(&l) != 0) {
		ft_warn("unable to create a job directory in '%s'",
		    cf->tmpdir != NULL ? cf->tmpdir : "/tmp");
		return FT_EXIT_TEMP;
	}
	/* Across hosts the ranks reach us over TCP, at our address on the
	 * connections to their agents. */
	if (cf->hosts != NULL && ft__remote_connect(cf, &l.rm, l.sock,
	    sizeof(l.sock)) != 0) {
		ft__remote_free(l.rm);
		remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	for (i = 0; cf->hosts != NULL && i < l.n; i++) {
		uint64_t after;
		int sig;

		l.ranks[i].remote = 1;
		l.ranks[i].host = cf->host_of_proc[i];
		/* Its agent arms it (JOB_START); we learn of the kill when
		 * the agent reports its death. */
		l.ranks[i].injected = ft__inject_after_sends(cf, 0,
		    l.ranks[i].rank, l.ranks[i].replica, &after, &sig);
	}
	if (l.vlog && start_logger(&l) != 0) {
		remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if (cf->ckpt_serve_dir != NULL && start_ckserver(&l) != 0) {
		stop_logger(&l, FT_EXIT_TEMP);
		remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if ((l.lfd = ft_net_listen(l.sock, l.addr, sizeof(l.addr))) == -1) {
		ft_warn("unable to listen on '%s'", l.sock);
		remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if (cf->hang_ns > 0 && open_heartbeats(&l) != 0) {
		ft_warn("unable to make the heartbeat pipe");
		close(l.lfd);
		remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if (start_watchdog(&l) != 0)
		ft_warn("unable to start the watchdog; if ftrun is killed, "
		    "what the ranks started may outlive it");
	/* Block the signals the loop handles; ppoll unblocks them. */
	ft__signals_catch(on_signal, &orig, &waitmask);
	l.stdin_open = 1;
	l.inrec.fd = -1;
	if (cf->record_dir != NULL && ft_rec_stdin_open(&l.inrec,
	    cf->record_dir) != 0)
		ft_warn("ftrun --record: rank 0's standard input is not "
		    "recorded");
	l.origmask = &orig;
	if (cf->timeout_ns > 0)
		l.deadline = ft_now_ns() + cf->timeout_ns;
	for (i = 0; i < l.n; i++)
		errfds[i] = -1;
	/* The agents' callbacks, kept for the whole job (rm holds them). */
	rcb = (struct ft__remote_cb){ &l, remote_started, remote_output,
	    remote_status, remote_beat, remote_lost, remote_staged };
	if (l.rm != NULL) {
		if (l.vlog && remote_vlog_env(&l) != 0) {
			ft_warn("out of memory");
			abort_job(&l, FT_EXIT_TEMP);
		}
		for (i = 0; i < l.nrep; i++)
			l.in_remote[i] = 1;
		l.in_open = (int)l.nrep;
		if ((e = ft__remote_start(l.rm, l.addr, l.key, prog,
		    l.hb_period_ns, l.deadline, &rcb)) != 0) {
			event(&l, "\"event\":\"abort\",\"reason\":\"the "
			    "job could not start on every host\"");
			abort_job(&l, e);
		}
	}
	for (i = 0; l.rm == NULL && i < l.n; i++) {
		if (spawn(&l, i, prog, &orig, &errfds[i]) != 0) {
			ft_error("unable to start rank %u", i);
			abort_job(&l, FT_EXIT_TEMP);
			break;
		}
	}
	/* An exec that failed reports its errno on the error pipe. */
	for (i = 0; i < l.n; i++) {
		if (errfds[i] == -1)
			continue;
		do
			n = read(errfds[i], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close(errfds[i]);
		if (n == (ssize_t)sizeof(e) && !l.aborting) {
			ft_errorx("unable to run '%s': %s", cf->argv[0],
			    strerror(e));
			event(&l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
			    "\"exec failed\"", i);
			abort_job(&l, e == ENOENT ? 127 : 126);
		}
	}
	free(errfds);
	/* stdin stays blocking: it is shared with our parent, and it is
	 * read only when poll says it is readable. */
	if (!l.stdin_open || l.in_open == 0)
		close_stdin(&l);
	loop(&l, &waitmask);
	/* What the ranks said last (a NOTE just before exiting) is read
	 * even when their exit ended the loop first. */
	for (i = 0; i < l.nconns; i++)
		if (!l.conns[i]->closed)
			lconn_read(&l, l.conns[i]);
	ft_ratelim_flush(&l.refusals, 1);
	end_outputs(&l);
	status = job_status(&l);
	close_stdin(&l);
	ft_rec_stdin_close(&l.inrec);
	close_lconns(&l);
	for (i = 0; i < l.nconns; i++) {
		ft_conn_release(&l.conns[i]->c);
		free(l.conns[i]);
	}
	free(l.conns);
	close(l.lfd);
	if (l.hb_fd != -1) {
		heartbeat_event(&l);
		close(l.hb_fd);
		close(l.hb_wfd);
	}
	kill_leftovers(&l);
	ft__remote_free(l.rm);
	free(l.rm_env[0]);
	free(l.rm_env[1]);
	ft__logger_stop(&l.ckserver);
	remove_jobdir(&l);
	if (l.vlog)
		stop_logger(&l, status);
	watchdog_tell(&l, 0);
	if (l.watchdog_fd != -1)
		close(l.watchdog_fd);
	for (i = 0; i < l.n; i++) {
		free(l.ranks[i].out.buf);
		free(l.ranks[i].err.buf);
	}
	ft__spawn_free(l.sp);
	for (i = 0; i < l.n; i++) {
		ft__coord_cuts_free(&l.ranks[i].ck_cuts);
		if (l.ranks[i].ck_lease > 0)
			close(l.ranks[i].ck_lease - 1);
	}
	ft__coord_sched_free(&l.coord);
	ft__coord_lc_free(&l.coord);
	ft__vsched_free(&l.vs);
	free(l.ranks);
	free(l.printed);
	free(l.inj_next);
	free(l.inj_kills);
	{
		sigset_t ps;
		struct timespec zero = { 0, 0 };

		sigemptyset(&ps);
		sigaddset(&ps, SIGPIPE);
		while (sigtimedwait(&ps, NULL, &zero) > 0)
			;
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return status;
}

/* For spawn.c: adding processes to the running job ------------------ */

int
ft__launch_add(struct launcher *l, const struct ft_launch_proc *procs,
    uint32_t n, uint32_t *first, uint32_t *failed)
{
	struct lrank *nr;
	uint64_t *np;
	uint32_t i, k, id;
	ssize_t got;
	int e, errfd;

	*first = l->n;
	*failed = 0;
	if ((nr = reallocarray(l->ranks, (size_t)l->n + n,
	    sizeof(*nr))) == NULL)
		return -1;
	l->ranks = nr;
	/* Output is counted per process: one process a rank here. */
	if ((np = reallocarray(l->printed, 2 * ((size_t)l->n + n),
	    sizeof(*np))) == NULL)
		return -1;
	l->printed = np;
	for (i = 0; i < n; i++) {
		id = l->n;
		memset(&l->ranks[id], 0, sizeof(l->ranks[id]));
		memset(&l->printed[2 * (size_t)id], 0, 2 * sizeof(*np));
		l->ranks[id].rank = id;
		l->ranks[id].spec = &procs[i];
		l->ranks[id].out = (struct outbuf){ -1, STDOUT_FILENO,
		    malloc(LINE_MAX_FWD), 0, 0 };
		l->ranks[id].err = (struct outbuf){ -1, STDERR_FILENO,
		    malloc(LINE_MAX_FWD), 0, 0 };
		l->n++;
		errfd = -1;
		if (l->ranks[id].out.buf == NULL ||
		    l->ranks[id].err.buf == NULL ||
		    spawn(l, id, procs[i].prog, l->origmask, &errfd) != 0) {
			/* Never started: it ends here, as if it had. */
			e = errno;
			l->ranks[id].state = R_EXITED;
			l->ranks[id].aborted = 1;
			if (errfd != -1)
				close(errfd);
			goto fail;
		}
		do
			got = read(errfd, &e, sizeof(e));
		while (got < 0 && errno == EINTR);
		close(errfd);
		if (got == (ssize_t)sizeof(e)) {
			/* Exec failed: it exits 127, and is reaped later. */
			l->ranks[id].aborted = 1;
			goto fail;
		}
	}
	return 0;
fail:
	*failed = i;
	for (k = 0; k < i; k++)
		ft__launch_cancel(l, *first + k, 1);
	errno = e;
	return -1;
}

void
ft__launch_cancel(struct launcher *l, uint32_t id, int kill_it)
{
	struct lrank *r = &l->ranks[id];

	/* Read as an abort of its own: no failure, not in the status. */
	r->aborted = 1;
	if (kill_it && r->state == R_RUNNING && r->pid > 0) {
		r->sent_sig = SIGKILL;
		if (killpg(r->pid, SIGKILL) != 0)
			(void)kill(r->pid, SIGKILL);
	}
}

void
ft__launch_send(struct launcher *l, uint32_t id, const struct ft_wbuf *wb)
{
	if (id < l->n && l->ranks[id].state == R_RUNNING)
		send_frame(l->ranks[id].conn, wb);
}

unsigned int
ft__launch_state(const struct launcher *l, uint32_t id)
{
	const struct lrank *r = &l->ranks[id];
	unsigned int st = 0;

	if (r->registered)
		st |= FT_LS_REGISTERED;
	if (r->finalized)
		st |= FT_LS_FINALIZED;
	if (r->state == R_EXITED || r->dead || r->hung)
		st |= FT_LS_EXITED;
	if (id < l->n0 && l->table_sent)
		st |= FT_LS_TABLED;
	return st;
}

const struct ft_rank_addr *
ft__launch_addr(const struct launcher *l, uint32_t id)
{
	return &l->ranks[id].addr;
}

uint32_t
ft__launch_nprocs(const struct launcher *l)
{
	return l->n;
}

uint32_t
ft__launch_nrep(const struct launcher *l)
{
	return l->nrep;
}

const struct ft_launch *
ft__launch_conf(const struct launcher *l)
{
	return l->cf;
}

void
ft__launch_event(struct launcher *l, const char *fmt, ...)
{
	char line[2 * FT_WIRE_TEXT_MAX + 512];
	va_list ap;

	if (l->cf->events == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	event(l, "%s", line);
}

void
ft__launch_json(const char *s, char *out, size_t outsize)
{
	json_quote(s, out, outsize);
}
