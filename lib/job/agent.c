/* SPDX-License-Identifier: ISC */
/*
 * The host agent: serve one job of a submitter on this host.  Stage the
 * files (from the cache, from the submitter, or fetched), start the
 * processes, then forward what they do: output as whole lines, stops,
 * exits, heartbeats; obey SIGNAL; and end every process of the job on
 * this host when the submitter is gone or silent for the hang timeout,
 * or when the job outlives its timeout (a backstop: ftrun ends it
 * first).
 *
 * As in the launcher, signals are blocked except inside ppoll, whose
 * handlers only set flags.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "agent.h"
#include "child.h"
#include "relocate.h"
#include "detector.h"
#include "stage.h"

#define LINE_MAX_FWD	(64u << 10)	/* a longer line is split */
#define BACKLOG_MAX	(4u << 20)	/* unsent output: stop reading */
#define SILENCE_DEFAULT_NS	FT_HANG_TIMEOUT_DEFAULT

enum { P_RUNNING, P_REAPED, P_REPORTED };

struct astream {
	int		 fd;
	uint8_t		*buf;
	size_t		 len;
};

struct aproc {
	uint32_t	 id;
	pid_t		 pid;
	int		 err;
	int		 state;
	int		 status;
	uint64_t	 reaped_at;
	uint32_t	 incarnation;	/* 0, or its RESPAWN's */
	int		 rollback;	/* --ft coord: restore an epoch */
	uint64_t	 rollback_epoch;
	struct astream	 s[2];
	/* Rank 0's: the submitter's standard input, to its pipe. */
	int		 in_fd;
	uint8_t		*in_buf;
	size_t		 in_len;
	uint64_t	 in_taken, in_told;
	int		 in_eof;
};

struct agent {
	const struct ft_agent_opts *o;
	struct ft_conn	*c;
	struct ft_msg_job_start js;
	uint8_t		 key[FT_WIRE_KEYLEN];
	char		 node[FT_WIRE_NODE_MAX];
	char		 cachedir[FT_STAGE_PATH_MAX];
	char		 jobdir[FT_STAGE_PATH_MAX];
	char		 sockdir[FT_STAGE_PATH_MAX];
	char		 prog[FT_STAGE_PATH_MAX];
	char		 tcp_host[FT_WIRE_ADDR_MAX];
	struct aproc	*p;
	uint32_t	 n, unreported;
	uint32_t	 cached, received, fetched;
	int		 hb_fd, hb_wfd;
	uint8_t		 hb_buf[64 * FT_HB_RECLEN];
	size_t		 hb_len;
	uint64_t	 grace_ns, silence_ns, ka_ns;
	uint64_t	 last_rx, next_ka, deadline, kill_at;
	int		 lost;		/* the submitter is gone */
	int		 ending;	/* we are killing the processes */
	/* A protocol that restarts processes (relocate.h): the end waits
	 * for the submitter's RELEASE, as it may RESPAWN one here. */
	int		 hold, released;
	struct ft_job_status *st;	/* statuses to send */
	uint32_t	 nst;
	/* The detector module among the job's hosts. */
	const sigset_t	*mask;		/* for what we start */
	const sigset_t	*waitmask;	/* lets the signals we catch in */
	int		 det_lfd;	/* bound, until MEMBERS */
	char		 det_addr[FT_WIRE_ADDR_MAX];
	int		 det_on;
	struct ft__det	 det;
};

static volatile sig_atomic_t a_chld, a_term;

static void
on_signal(int sig)
{
	if (sig == SIGCHLD)
		a_chld = 1;
	else
		a_term = 1;
}

static void
alog(struct agent *a, const char *fmt, ...) FT_PRINTF(2, 3);

static void
alog(struct agent *a, const char *fmt, ...)
{
	va_list ap;

	if (a->o->log == NULL)
		return;
	fprintf(a->o->log, "agent[%s] job %016llx: ", a->node,
	    (unsigned long long)a->js.jobid);
	va_start(ap, fmt);
	vfprintf(a->o->log, fmt, ap);
	va_end(ap);
	fputc('\n', a->o->log);
	fflush(a->o->log);
}

/* Queue a frame encoded by the caller; a failure loses the submitter. */
static void
send_wb(struct agent *a, struct ft_wbuf *wb, int rc)
{
	if (rc != 0 || a->lost) {
		ft_wbuf_release(wb);
		return;
	}
	if (ft_conn_queue_copy(a->c, wb->p, wb->len) != 0)
		a->lost = 1;
	ft_wbuf_release(wb);
}

static void
note(struct agent *a, uint32_t kind, uint32_t code, const char *fmt, ...)
    FT_PRINTF(4, 5);

/* Tell the submitter, prefixed with our name. */
static void
note(struct agent *a, uint32_t kind, uint32_t code, const char *fmt, ...)
{
	struct ft_msg_job_note m;
	struct ft_wbuf wb;
	size_t off = 0;
	va_list ap;

	m.kind = kind;
	m.code = code;
	m.text[0] = '\0';
	ft_appendf(m.text, sizeof(m.text), &off, "host '%s': ", a->node);
	va_start(ap, fmt);
	vsnprintf(m.text + off, sizeof(m.text) - off, fmt, ap);
	va_end(ap);
	alog(a, "%s", m.text);
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_note_encode(&wb, FT_WIRE_LAUNCHER, &m));
}

/* Push what is queued, waiting at most until deadline. */
static void
flush_until(struct agent *a, uint64_t deadline)
{
	struct pollfd p;
	uint64_t now;

	while (!a->lost && ft_conn_want_write(a->c)) {
		if (ft_conn_flush(a->c) != 0) {
			a->lost = 1;
			return;
		}
		if (!ft_conn_want_write(a->c))
			return;
		if ((now = ft_now_ns()) >= deadline)
			return;
		p = (struct pollfd){ a->c->fd, POLLOUT, 0 };
		(void)poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
	}
}

/*
 * The next frame from the submitter, before the processes start (while
 * staging).  Returns 1, 0 on silence past the deadline, -1 when the
 * connection failed.
 */
static int
next_frame(struct agent *a, struct ft_hdr *h, const uint8_t **body)
{
	struct timespec ts;
	struct pollfd p;
	uint64_t now, wait;
	int rc;

	for (;;) {
		if ((rc = ft_conn_frame(a->c, h, body)) != 0) {
			if (rc == 1)
				a->last_rx = ft_now_ns();
			return rc;
		}
		now = ft_now_ns();
		if (now >= a->last_rx + a->silence_ns)
			return 0;
		p = (struct pollfd){ a->c->fd, POLLIN, 0 };
		if (ft_conn_want_write(a->c))
			p.events |= POLLOUT;
		wait = a->last_rx + a->silence_ns - now;
		ts.tv_sec = (time_t)(wait / 1000000000u);
		ts.tv_nsec = (long)(wait % 1000000000u);
		if (ppoll(&p, 1, &ts, a->waitmask) < 0 && errno != EINTR)
			return -1;
		if (a_term) {
			errno = ECANCELED;
			return -1;
		}
		if ((p.revents & POLLOUT) && ft_conn_flush(a->c) != 0)
			return -1;
		if ((p.revents & (POLLIN | POLLHUP | POLLERR)) &&
		    ft_conn_fill(a->c) < 0)
			return -1;
	}
}

static int
mkdir_p(const char *path, mode_t mode)
{
	char buf[FT_STAGE_PATH_MAX], *s;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (s = buf + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, mode) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(buf, mode) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)f;
	if (flag == FTW_DP)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

/* Remove a directory and what is in it, never following a link. */
static void
rm_tree(const char *dir)
{
	if (dir[0] != '\0')
		(void)nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Staging failed: say why. */
static int
stage_fail(struct agent *a, const struct ft_job_file *f, const char *why)
{
	note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "unable to stage '%s': %s", f->name,
	    why);
	return -1;
}

/* Receive the files of need from the submitter, in that order. */
static int
receive_files(struct agent *a, const struct ft_msg_job_need *need,
    char (*paths)[FT_STAGE_PATH_MAX])
{
	struct ft__stage_recv r;
	struct ft_msg_job_file fm;
	const struct ft_job_file *f;
	const uint8_t *body;
	struct ft_hdr h;
	uint32_t k;
	int rc;

	for (k = 0; k < need->n; k++) {
		f = &a->js.files[need->idx[k]];
		if (ft__stage_recv_begin(&r, a->cachedir, f->size) != 0)
			return stage_fail(a, f, errno == EFBIG ? "larger "
			    "than the limit of 1 GiB" : strerror(errno));
		/* At least one chunk, an empty one for an empty file. */
		do {
			if ((rc = next_frame(a, &h, &body)) <= 0) {
				ft__stage_recv_abort(&r);
				if (!a_term)
					a->lost = 1;
				return -1;
			}
			if (h.type == FT_MSG_JOB_KEEPALIVE)
				continue;
			if (h.type != FT_MSG_JOB_FILE ||
			    ft_msg_job_file_decode(body, h.len -
			    FT_WIRE_HDRLEN, &fm) != 0 ||
			    fm.idx != need->idx[k]) {
				ft__stage_recv_abort(&r);
				return stage_fail(a, f, "malformed transfer");
			}
			if (ft__stage_recv_data(&r, fm.offset, fm.data,
			    fm.len) != 0) {
				ft__stage_recv_abort(&r);
				return stage_fail(a, f, errno == EPROTO ?
				    "malformed transfer" : strerror(errno));
			}
		} while (r.got < r.size);
		if (ft__stage_recv_end(&r, a->cachedir, f->sha256,
		    paths[need->idx[k]], sizeof(paths[0])) != 0) {
			ft__stage_recv_abort(&r);
			return stage_fail(a, f, errno == EBADMSG ? "its SHA-256 "
			    "does not match (damaged in transit?)" :
			    strerror(errno));
		}
		a->received++;
		alog(a, "received '%s' (%llu bytes)", f->name,
		    (unsigned long long)f->size);
	}
	return 0;
}

/*
 * Stage every file into the job directory: from the cache when its
 * hash is known and cached, else from the submitter (NEED, FILE) or
 * fetched from its URL.
 */
static int
stage(struct agent *a)
{
	char (*paths)[FT_STAGE_PATH_MAX];
	struct ft_msg_job_need need;
	const struct ft_job_file *f;
	struct ft_wbuf wb;
	sigset_t held;
	uint8_t sha[32];
	char why[2048];
	uint32_t i;
	int rc = -1, hit;

	if ((paths = calloc(a->js.nfiles + 1, sizeof(*paths))) == NULL) {
		note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "out of memory");
		return -1;
	}
	need.n = 0;
	for (i = 0; i < a->js.nfiles; i++) {
		f = &a->js.files[i];
		hit = 0;
		if ((f->flags & FT_STAGE_PINNED) && (hit =
		    ft__stage_cached(a->cachedir, f->sha256, paths[i],
		    sizeof(paths[i]))) < 0) {
			stage_fail(a, f, strerror(errno));
			goto out;
		}
		if (hit) {
			a->cached++;
			alog(a, "'%s' is in the cache", f->name);
		} else if (f->url[0] == '\0') {
			if (!(f->flags & FT_STAGE_PINNED)) {
				stage_fail(a, f, "no SHA-256 given");
				goto out;
			}
			need.idx[need.n++] = i;
		}
	}
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_need_encode(&wb, FT_WIRE_LAUNCHER, &need));
	if (receive_files(a, &need, paths) != 0)
		goto out;
	for (i = 0; i < a->js.nfiles && !a_term; i++) {
		f = &a->js.files[i];
		if (paths[i][0] != '\0')
			continue;
		/* Let the signals we catch in: a stop cancels the fetch. */
		sigprocmask(SIG_SETMASK, a->waitmask, &held);
		rc = ft__stage_fetch(f->url, a->cachedir,
		    (f->flags & FT_STAGE_PINNED) ? f->sha256 : NULL, sha,
		    paths[i], sizeof(paths[i]), why, sizeof(why), &a_term);
		sigprocmask(SIG_SETMASK, &held, NULL);
		if (rc != 0) {
			if (!a_term)
				note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP,
				    "unable to fetch '%s': %s", f->url, why);
			rc = -1;
			goto out;
		}
		a->fetched++;
		alog(a, "fetched '%s'", f->url);
	}
	rc = -1;
	if (a_term)
		goto out;
	for (i = 0; i < a->js.nfiles; i++)
		if (ft__stage_link(paths[i], a->jobdir,
		    a->js.files[i].name) != 0) {
			snprintf(why, sizeof(why), "unable to put it in '%s': "
			    "%s", a->jobdir, strerror(errno));
			stage_fail(a, &a->js.files[i], why);
			goto out;
		}
	rc = 0;
out:
	free(paths);
	return rc;
}

void
ft_agent_sweep(const char *statedir, FILE *log)
{
	char dir[FT_STAGE_PATH_MAX], path[FT_STAGE_PATH_MAX + 256];
	struct dirent *de;
	unsigned int files = 0, jobs = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/cache", statedir);
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strncmp(de->d_name, "tmp.", 4) == 0 &&
			    (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			    de->d_name) < sizeof(path) && unlink(path) == 0)
				files++;
		closedir(d);
	}
	snprintf(dir, sizeof(dir), "%s/jobs", statedir);
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.' || (size_t)snprintf(path,
			    sizeof(path), "%s/%s", dir, de->d_name) >=
			    sizeof(path))
				continue;
			rm_tree(path);
			jobs++;
		}
		closedir(d);
	}
	if (log != NULL && files + jobs > 0)
		fprintf(log, "agent: removed what killed jobs left: %u partial "
		    "file%s, %u job director%s\n", files, files == 1 ? "" :
		    "s", jobs, jobs == 1 ? "y" : "ies");
}

/* Our address on the submitter's connection: ranks listen there. */
static void
own_address(struct agent *a)
{
	if (ft_net_local_ip(a->c->fd, a->tcp_host, sizeof(a->tcp_host)) < 0)
		snprintf(a->tcp_host, sizeof(a->tcp_host), "127.0.0.1");
}

static int
spawn_one(struct agent *a, struct aproc *p, const struct ft_job_proc *jp,
    const sigset_t *mask, int *errfd)
{
	int out[2], err[2], key[2], ep[2];
	struct ft__rank_env re;
	struct ft__spawn sp;
	char *extra[FT__ENV_MAX], *slash;
	pid_t pid, parent = getpid();
	int n, in[2] = { -1, -1 };

	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
	    pipe2(key, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0)
		return -1;
	/* Rank 0 reads the submitter's input, as under mpirun; a
	 * restarted one reads nothing (its input went to the first). */
	if ((a->js.flags & FT_JOB_STDIN) && jp->id < a->js.nrep &&
	    p->incarnation == 0 &&
	    ((p->in_buf = malloc(FT_JOB_INPUT_WINDOW)) == NULL ||
	    pipe2(in, O_CLOEXEC) != 0))
		return -1;
	if (write(key[1], a->key, sizeof(a->key)) != (ssize_t)sizeof(a->key))
		return -1;
	close(key[1]);
	memset(&re, 0, sizeof(re));
	re.rank = jp->id / a->js.nrep;
	re.replica = jp->id % a->js.nrep;
	re.size = a->js.nranks;
	re.nrep = a->js.nrep;
	re.node = a->js.node;
	re.launcher = a->js.launcher;
	re.jobdir = a->sockdir;
	slash = strrchr(a->js.argv[0], '/');
	re.progname = slash != NULL ? slash + 1 : a->js.argv[0];
	re.proto = a->js.proto;
	re.tcp_host = a->tcp_host;
	re.keyfd = key[0];
	re.hbfd = a->hb_wfd;
	re.hb_period_ns = (uint64_t)a->js.hb_period_ms * 1000000;
	re.force_tcp = (a->js.flags & FT_JOB_TCP) != 0;
	re.diverge = (a->js.flags & FT_JOB_DIVERGE) != 0;
	re.kill_after = jp->kill_signal != 0 ? jp->kill_after : 0;
	re.kill_signal = (int)jp->kill_signal;
	re.incarnation = p->incarnation;
	re.rollback = p->rollback;
	re.rollback_epoch = p->rollback_epoch;
	if ((n = ft__rank_env(&re, extra)) < 0)
		return -1;
	fflush(NULL);
	if ((pid = fork()) == -1) {
		ft__env_free(extra, (size_t)n);
		return -1;
	}
	if (pid == 0) {
		sp = (struct ft__spawn){ a->prog, a->js.argv, a->js.env,
		    a->js.nenv, extra, (size_t)n, in[0], out[1], err[1],
		    { key[0], a->hb_wfd, -1 }, a->jobdir, mask, parent, ep[1] };
		ft__spawn_exec(&sp);
	}
	ft__env_free(extra, (size_t)n);
	close(out[1]);
	close(err[1]);
	close(key[0]);
	close(ep[1]);
	if (in[0] != -1) {
		close(in[0]);
		ft__fd_nonblock(in[1]);
		p->in_fd = in[1];
	}
	*errfd = ep[0];
	ft__fd_nonblock(out[0]);
	ft__fd_nonblock(err[0]);
	p->pid = pid;
	p->s[0].fd = out[0];
	p->s[1].fd = err[0];
	return 0;
}

/* Start every process; tell the submitter their pids. */
static void
spawn_all(struct agent *a, const sigset_t *mask)
{
	struct ft_msg_job_started m;
	struct ft_wbuf wb;
	int *errfds, e;
	uint32_t i;
	ssize_t n;

	m.p = calloc(a->n + 1, sizeof(*m.p));
	errfds = calloc(a->n + 1, sizeof(*errfds));
	if (m.p == NULL || errfds == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	for (i = 0; i < a->n; i++) {
		errfds[i] = -1;
		if (spawn_one(a, &a->p[i], &a->js.procs[i], mask,
		    &errfds[i]) != 0) {
			a->p[i].err = errno != 0 ? errno : EAGAIN;
			a->p[i].state = P_REPORTED;
			a->unreported--;
		}
	}
	for (i = 0; i < a->n; i++) {
		if (errfds[i] == -1)
			continue;
		do
			n = read(errfds[i], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close(errfds[i]);
		if (n == (ssize_t)sizeof(e))
			a->p[i].err = e;
	}
	m.cached = a->cached;
	m.received = a->received;
	m.fetched = a->fetched;
	m.n = a->n;
	for (i = 0; i < a->n; i++)
		m.p[i] = (struct ft_job_pid){ a->p[i].id,
		    (uint32_t)(a->p[i].pid > 0 ? a->p[i].pid : 0),
		    (uint32_t)a->p[i].err };
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_started_encode(&wb, FT_WIRE_LAUNCHER, &m));
	alog(a, "started %u processes", a->n);
	free(m.p);
	free(errfds);
}

static void lost(struct agent *, const char *);

/*
 * Say where our detector module will listen, the port bound now so
 * that no one takes it before the submitter's MEMBERS; "none" when it
 * cannot run here (the submitter then watches this host through our
 * connection only).
 */
static void
det_offer(struct agent *a)
{
	struct ft_msg_job_detect m;
	struct ft_wbuf wb;
	char here[FT_WIRE_ADDR_MAX], prog[PATH_MAX];

	snprintf(m.addr, sizeof(m.addr), "none");
	snprintf(here, sizeof(here), strchr(a->tcp_host, ':') != NULL ?
	    "tcp:[%s]:0" : "tcp:%s:0", a->tcp_host);
	if (ft__helper_path("ftgossip", prog, sizeof(prog)) != 0)
		alog(a, "no failure detector here: ftgossip is not found");
	else if ((a->det_lfd = ft_net_listen(here, a->det_addr,
	    sizeof(a->det_addr))) == -1)
		alog(a, "no failure detector here: unable to listen at '%s': "
		    "%s", here, strerror(errno));
	else
		memcpy(m.addr, a->det_addr, sizeof(m.addr));
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_detect_encode(&wb, FT_WIRE_LAUNCHER, &m));
}

/* MEMBERS: run our module as member m->self of them. */
static int
det_start(struct agent *a, const uint8_t *body, size_t blen)
{
	struct ft_msg_job_members m;
	struct ft__det_cfg dc;
	int rc = 0;

	if (a->det_on || a->det_lfd == -1)
		return -1;
	if ((m.addrs = calloc(FT_JOB_MEMBERS_MAX, sizeof(*m.addrs))) == NULL)
		return 0;
	if (ft_msg_job_members_decode(body, blen, &m, FT_JOB_MEMBERS_MAX) !=
	    0 || m.self == 0 || strcmp(m.addrs[m.self], a->det_addr) != 0) {
		rc = -1;
		goto out;
	}
	dc = (struct ft__det_cfg){ .addrs = m.addrs, .n = m.n, .self = m.self,
	    .proto = ft__det_proto_name(m.proto), .period_ns = m.period_ns,
	    .cleanup_ns = m.cleanup_ns, .ping_ns = m.ping_ns,
	    .listen_fd = a->det_lfd, .key = a->key, .mask = a->mask };
	if (ft__det_start(&a->det, &dc) != 0)
		alog(a, "unable to start the failure detector: %s",
		    strerror(errno));
	else {
		a->det_on = 1;
		alog(a, "failure detector: member %u of %u", m.self, m.n);
	}
out:
	close(a->det_lfd);
	a->det_lfd = -1;
	free(m.addrs);
	return rc;
}

static void
det_failed(void *arg, uint32_t member, const char *by)
{
	struct agent *a = arg;

	/* Member 0 is the submitter: the job's coordinator is gone. */
	if (member == 0 && !a->lost)
		lost(a, "was declared failed by the failure detector");
}

static void
det_read(struct agent *a)
{
	if (ft__det_events(&a->det, det_failed, a) == 0)
		return;
	if (a->det.excluded && !a->lost)
		lost(a, "cut this host off: the failure detector excluded it");
	ft__det_stop(&a->det);
	a->det_on = 0;
}

static void
signal_all(struct agent *a, int sig)
{
	uint32_t i;

	for (i = 0; i < a->n; i++)
		if (a->p[i].pid > 0 && a->p[i].state == P_RUNNING &&
		    killpg(a->p[i].pid, sig) != 0)
			(void)kill(a->p[i].pid, sig);
}

/* End the job here: SIGTERM now, SIGKILL after the grace period. */
static void
end_all(struct agent *a)
{
	if (a->ending)
		return;
	a->ending = 1;
	signal_all(a, SIGTERM);
	a->kill_at = ft_now_ns() + a->grace_ns;
}

static void
queue_status(struct agent *a, uint32_t id, uint32_t kind, uint32_t value)
{
	if (a->nst < FT_JOB_BATCH_MAX)
		a->st[a->nst++] = (struct ft_job_status){ id, kind, value };
}

static void
send_status(struct agent *a)
{
	struct ft_msg_job_status m;
	struct ft_wbuf wb;

	if (a->nst == 0)
		return;
	m.n = a->nst;
	m.s = a->st;
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_status_encode(&wb, FT_WIRE_LAUNCHER, &m));
	a->nst = 0;
}

/* Send the whole lines in s (all of it on eof or when full). */
static void
send_lines(struct agent *a, struct aproc *p, int k, int eof)
{
	struct astream *s = &p->s[k];
	struct ft_msg_job_output m;
	struct ft_wbuf wb;
	uint8_t *nl;
	size_t len = s->len;

	if (!eof && len < LINE_MAX_FWD) {
		nl = memrchr(s->buf, '\n', s->len);
		len = nl != NULL ? (size_t)(nl - s->buf) + 1 : 0;
	}
	if (len == 0 && !eof)
		return;
	m.id = p->id;
	m.stream = k == 0 ? FT_JOB_STDOUT : FT_JOB_STDERR;
	m.flags = eof ? FT_JOB_EOF : 0;
	m.data = s->buf;
	m.len = len;
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_output_encode(&wb, FT_WIRE_LAUNCHER, &m));
	memmove(s->buf, s->buf + len, s->len - len);
	s->len -= len;
}

static void
close_stream(struct agent *a, struct aproc *p, int k)
{
	if (p->s[k].fd == -1)
		return;
	close(p->s[k].fd);
	p->s[k].fd = -1;
	send_lines(a, p, k, 1);
}

/* Read what a process wrote, send whole lines; close on end of file. */
static void
read_stream(struct agent *a, struct aproc *p, int k)
{
	struct astream *s = &p->s[k];
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 16 && s->fd != -1; rounds++) {
		n = read(s->fd, s->buf + s->len, LINE_MAX_FWD - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			close_stream(a, p, k);
			break;
		}
		s->len += (size_t)n;
		send_lines(a, p, k, 0);
	}
}

/* A reaped process is reported once its output is all sent. */
static void
report_exits(struct agent *a, uint64_t now)
{
	struct aproc *p;
	uint32_t i;
	int k;

	for (i = 0; i < a->n; i++) {
		p = &a->p[i];
		if (p->state != P_REAPED)
			continue;
		if ((p->s[0].fd != -1 || p->s[1].fd != -1) &&
		    now < p->reaped_at + a->grace_ns)
			continue;
		/* What it started may hold the pipes: not our wait. */
		for (k = 0; k < 2; k++)
			close_stream(a, p, k);
		if (WIFSIGNALED(p->status))
			queue_status(a, p->id, FT_JOB_SIGNALED,
			    (uint32_t)WTERMSIG(p->status));
		else
			queue_status(a, p->id, FT_JOB_EXITED,
			    (uint32_t)WEXITSTATUS(p->status));
		p->state = P_REPORTED;
		a->unreported--;
	}
	send_status(a);
}

static void input_close(struct agent *, struct aproc *, int);

static void
reap(struct agent *a)
{
	uint32_t i;
	pid_t pid;
	int st, k;

	while ((pid = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED)) >
	    0) {
		for (i = 0; i < a->n; i++)
			if (a->p[i].pid == pid && a->p[i].state == P_RUNNING)
				break;
		if (i == a->n)
			continue;
		if (WIFSTOPPED(st)) {
			queue_status(a, a->p[i].id, FT_JOB_STOPPED,
			    (uint32_t)WSTOPSIG(st));
			continue;
		}
		if (WIFCONTINUED(st)) {
			queue_status(a, a->p[i].id, FT_JOB_CONTINUED, 0);
			continue;
		}
		a->p[i].state = P_REAPED;
		a->p[i].status = st;
		input_close(a, &a->p[i], 1);
		a->p[i].reaped_at = ft_now_ns();
		/* What it wrote before it died is in the pipes now. */
		for (k = 0; k < 2; k++)
			read_stream(a, &a->p[i], k);
	}
	send_status(a);
}

/* Forward the heartbeat records read from the pipe, in one frame. */
static void
read_beats(struct agent *a)
{
	struct ft_job_beat b[FT_NELEM(a->hb_buf) / FT_HB_RECLEN];
	struct ft_msg_job_beats m;
	struct ft_hb_rec rec;
	struct ft_wbuf wb;
	size_t used;
	ssize_t got;

	if (a->hb_fd == -1)
		return;
	for (;;) {
		got = read(a->hb_fd, a->hb_buf + a->hb_len,
		    sizeof(a->hb_buf) - a->hb_len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return;
		a->hb_len += (size_t)got;
		m.n = 0;
		m.b = b;
		while (m.n < FT_NELEM(b) && ft_hb_decode(a->hb_buf, a->hb_len,
		    &used, &rec) == 1) {
			memmove(a->hb_buf, a->hb_buf + used, a->hb_len - used);
			a->hb_len -= used;
			b[m.n++] = (struct ft_job_beat){ rec.id, rec.flags,
			    rec.state_ms, rec.completed };
		}
		if (m.n == 0) {
			memmove(a->hb_buf, a->hb_buf + used, a->hb_len - used);
			a->hb_len -= used;
			continue;
		}
		ft_wbuf_init(&wb);
		send_wb(a, &wb, ft_msg_job_beats_encode(&wb,
		    FT_WIRE_LAUNCHER, &m));
	}
}

static int
proc_index(const struct agent *a, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < a->n; i++)
		if (a->p[i].id == id)
			return (int)i;
	return -1;
}

/* Tell the submitter how much of its input process p took. */
static void
input_tell(struct agent *a, struct aproc *p, uint32_t flags)
{
	struct ft_msg_job_input m;
	struct ft_wbuf wb;

	m = (struct ft_msg_job_input){ p->id, flags, p->in_taken, NULL, 0 };
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_input_encode(&wb, FT_WIRE_LAUNCHER, &m));
	p->in_told = p->in_taken;
}

/* Its input is closed, or it is gone: what is left is not wanted. */
static void
input_close(struct agent *a, struct aproc *p, int tell)
{
	if (p->in_fd == -1)
		return;
	close(p->in_fd);
	p->in_fd = -1;
	p->in_len = 0;
	if (tell && !a->lost)
		input_tell(a, p, FT_JOB_INPUT_CLOSED);
}

/* Write what we hold of the input to the process's pipe. */
static void
input_write(struct agent *a, struct aproc *p)
{
	ssize_t n;

	while (p->in_fd != -1 && p->in_len > 0) {
		n = write(p->in_fd, p->in_buf, p->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			/* EPIPE: it closed its input, or died. */
			input_close(a, p, 1);
			return;
		}
		p->in_taken += (uint64_t)n;
		p->in_len -= (size_t)n;
		memmove(p->in_buf, p->in_buf + n, p->in_len);
	}
	if (p->in_fd != -1 && p->in_len == 0 && p->in_eof) {
		close(p->in_fd);
		p->in_fd = -1;
	}
	/* Room for more: a quarter of the window, or all of it. */
	if (!a->lost && p->in_taken != p->in_told && (p->in_len == 0 ||
	    p->in_taken - p->in_told >= FT_JOB_INPUT_WINDOW / 4))
		input_tell(a, p, FT_JOB_INPUT_TAKEN);
}

static int
input_frame(struct agent *a, const uint8_t *body, size_t blen)
{
	struct ft_msg_job_input m;
	struct aproc *p;
	int i;

	if (ft_msg_job_input_decode(body, blen, &m) != 0 || (m.flags &
	    (FT_JOB_INPUT_TAKEN | FT_JOB_INPUT_CLOSED)) != 0 ||
	    (i = proc_index(a, m.id)) < 0 || a->p[i].in_buf == NULL)
		return -1;
	p = &a->p[i];
	if (p->in_eof)
		return -1;
	if (m.flags & FT_JOB_INPUT_EOF)
		p->in_eof = 1;
	if (p->in_fd == -1)
		return 0;	/* closed: dropped */
	if (m.len > FT_JOB_INPUT_WINDOW - p->in_len)
		return -1;	/* beyond the window it was given */
	memcpy(p->in_buf + p->in_len, m.data, m.len);
	p->in_len += m.len;
	input_write(a, p);
	return 0;
}

/*
 * RESPAWN: start process id again here, as its next incarnation (a
 * slot of its own if it ran elsewhere before), and answer STARTED for
 * it alone.  A process of ours still running is not started twice.
 */
static int
respawn(struct agent *a, const uint8_t *body, size_t blen)
{
	struct ft_msg_job_respawn m;
	struct ft_msg_job_started sm;
	struct ft_job_proc jp;
	struct ft_job_pid pid;
	struct ft_wbuf wb;
	struct aproc *p, *np;
	char path[FT_STAGE_PATH_MAX + 32];
	int i, errfd = -1, e;
	ssize_t got;

	if (ft_msg_job_respawn_decode(body, blen, &m) != 0 ||
	    m.id >= a->js.nranks * a->js.nrep || a->ending)
		return -1;
	if ((i = proc_index(a, m.id)) >= 0 && a->p[i].state != P_REPORTED)
		return -1;
	if (i < 0) {
		if ((np = reallocarray(a->p, a->n + 2, sizeof(*np))) == NULL)
			return -1;
		a->p = np;
		p = &a->p[a->n];
		memset(p, 0, sizeof(*p));
		p->s[0].fd = p->s[1].fd = p->in_fd = -1;
		if ((p->s[0].buf = malloc(LINE_MAX_FWD)) == NULL ||
		    (p->s[1].buf = malloc(LINE_MAX_FWD)) == NULL) {
			free(p->s[0].buf);
			return -1;
		}
		p->id = m.id;
		i = (int)a->n++;
	}
	p = &a->p[i];
	p->pid = 0;
	p->err = 0;
	p->state = P_RUNNING;
	p->status = 0;
	p->s[0].len = p->s[1].len = 0;
	p->incarnation = m.incarnation;
	p->rollback = (m.flags & FT_RESPAWN_ROLLBACK) != 0;
	p->rollback_epoch = m.rollback;
	a->unreported++;
	/* Its socket's name is the new one's (ft_pt_new). */
	snprintf(path, sizeof(path), "%s/r%u.sock", a->sockdir, m.id);
	(void)unlink(path);
	jp = (struct ft_job_proc){ .id = m.id, .kill_after = m.kill_after,
	    .kill_signal = m.kill_signal };
	if (spawn_one(a, p, &jp, a->mask, &errfd) != 0) {
		p->err = errno != 0 ? errno : EAGAIN;
		p->state = P_REPORTED;
		a->unreported--;
	} else {
		do
			got = read(errfd, &e, sizeof(e));
		while (got < 0 && errno == EINTR);
		close(errfd);
		if (got == (ssize_t)sizeof(e))
			p->err = e;
	}
	pid = (struct ft_job_pid){ p->id, (uint32_t)(p->pid > 0 ? p->pid :
	    0), (uint32_t)p->err };
	sm = (struct ft_msg_job_started){ .n = 1, .p = &pid };
	ft_wbuf_init(&wb);
	send_wb(a, &wb, ft_msg_job_started_encode(&wb, FT_WIRE_LAUNCHER, &sm));
	alog(a, "restarted process %u (incarnation %u)", m.id,
	    m.incarnation);
	return 0;
}

/* A frame from the submitter while the job runs; -1 drops it. */
static int
on_frame(struct agent *a, const struct ft_hdr *h, const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_msg_job_signal m;
	uint32_t ids[FT_JOB_BATCH_MAX], k;
	int i;

	switch (h->type) {
	case FT_MSG_JOB_KEEPALIVE:
		return ft_msg_empty_decode(body, blen);
	case FT_MSG_JOB_SIGNAL:
		m.ids = ids;
		if (ft_msg_job_signal_decode(body, blen, &m,
		    FT_JOB_BATCH_MAX) != 0)
			return -1;
		if (m.n == 0)
			signal_all(a, (int)m.signo);
		for (k = 0; k < m.n; k++) {
			if ((i = proc_index(a, ids[k])) < 0)
				continue;
			if (a->p[i].pid > 0 && a->p[i].state == P_RUNNING &&
			    killpg(a->p[i].pid, (int)m.signo) != 0)
				(void)kill(a->p[i].pid, (int)m.signo);
		}
		return 0;
	case FT_MSG_JOB_MEMBERS:
		return det_start(a, body, blen);
	case FT_MSG_JOB_INPUT:
		return input_frame(a, body, blen);
	case FT_MSG_JOB_RESPAWN:
		return respawn(a, body, blen);
	case FT_MSG_JOB_RELEASE:
		if (ft_msg_empty_decode(body, blen) != 0)
			return -1;
		a->released = 1;
		return 0;
	default:
		errno = EPROTO;
		return -1;
	}
}

static void
conn_read(struct agent *a)
{
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc, rounds;

	for (rounds = 0; rounds < 64 && !a->lost; rounds++) {
		while ((rc = ft_conn_frame(a->c, &h, &body)) == 1) {
			a->last_rx = ft_now_ns();
			if (on_frame(a, &h, body) != 0) {
				ft_warnx("host agent: dropped the submitter: "
				    "bad %s frame", ft_msg_name(h.type));
				a->lost = 1;
				return;
			}
		}
		if (rc < 0 || (got = ft_conn_fill(a->c)) < 0) {
			a->lost = 1;
			return;
		}
		if (got == 0)
			return;
	}
}

/*
 * The submitter is gone, or has gone on without this host: the job's
 * processes here are killed at once, not asked to end (SIGTERM and the
 * grace period), so that none outlives the start of its successor
 * elsewhere; there is no one left to hear how they end.
 */
static void
lost(struct agent *a, const char *why)
{
	alog(a, "the submitter %s: killing the job's processes here", why);
	a->lost = 1;
	end_all(a);
	signal_all(a, SIGKILL);
	a->kill_at = 0;
}

static int
setup(struct agent *a)
{
	char host[256], state[PATH_MAX];
	int p[2];

	if (a->o->node_name != NULL)
		snprintf(a->node, sizeof(a->node), "%s", a->o->node_name);
	else if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		snprintf(a->node, sizeof(a->node), "%.*s",
		    (int)sizeof(a->node) - 1, host);
	} else
		snprintf(a->node, sizeof(a->node), "?");
	/* The processes run in the job directory: its path is absolute. */
	if (mkdir_p(a->o->statedir, 0700) != 0 ||
	    realpath(a->o->statedir, state) == NULL) {
		note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "unable to create "
		    "'%s': %s", a->o->statedir, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(a->cachedir, sizeof(a->cachedir), "%s/cache",
	    state) >= sizeof(a->cachedir) ||
	    mkdir_p(a->cachedir, 0700) != 0) {
		note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "unable to create "
		    "'%s': %s", a->cachedir, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(a->jobdir, sizeof(a->jobdir), "%s/jobs/%016llx."
	    "%ld", state, (unsigned long long)a->js.jobid,
	    (long)getpid()) >= sizeof(a->jobdir) ||
	    mkdir_p(a->jobdir, 0700) != 0) {
		note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "unable to create "
		    "the job directory '%s': %s", a->jobdir, strerror(errno));
		a->jobdir[0] = '\0';
		return -1;
	}
	/* Unix socket paths are short: the sockets go to a directory of
	 * their own in the temporary directory. */
	if ((size_t)snprintf(a->sockdir, sizeof(a->sockdir), "%s/ft.XXXXXX",
	    a->o->tmpdir != NULL ? a->o->tmpdir : "/tmp") >=
	    sizeof(a->sockdir) || mkdtemp(a->sockdir) == NULL) {
		note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "unable to create a "
		    "directory for sockets: %s", strerror(errno));
		a->sockdir[0] = '\0';
		return -1;
	}
	if (a->js.hang_ms > 0 && a->js.hb_period_ms > 0) {
		if (ft__hb_pipe(a->n, p) != 0) {
			note(a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "unable to "
			    "make the heartbeat pipe: %s", strerror(errno));
			return -1;
		}
		a->hb_fd = p[0];
		a->hb_wfd = p[1];
	}
	return 0;
}

static void
release(struct agent *a)
{
	uint32_t i;
	int k;

	for (i = 0; i < a->n; i++) {
		if (a->p[i].pid > 0)
			(void)killpg(a->p[i].pid, SIGKILL);
		if (a->p[i].in_fd != -1)
			close(a->p[i].in_fd);
		free(a->p[i].in_buf);
		for (k = 0; k < 2; k++) {
			if (a->p[i].s[k].fd != -1)
				close(a->p[i].s[k].fd);
			free(a->p[i].s[k].buf);
		}
	}
	if (a->hb_fd != -1) {
		close(a->hb_fd);
		close(a->hb_wfd);
	}
	if (a->det_on)
		ft__det_stop(&a->det);
	if (a->det_lfd != -1)
		close(a->det_lfd);
	rm_tree(a->jobdir);
	rm_tree(a->sockdir);
	free(a->p);
	free(a->st);
	sodium_memzero(a->key, sizeof(a->key));
	ft_msg_job_start_free(&a->js);
}

/* The main loop: until every process is reported, or gone with us. */
static void
run(struct agent *a, const sigset_t *waitmask)
{
	struct pollfd *fds;
	struct timespec ts;
	uint64_t now, wake;
	size_t nf, i;
	int *who, k;
	uint32_t cap = a->n, cap0;

	fds = calloc(3 * (size_t)a->n + 4, sizeof(*fds));
	who = calloc(3 * (size_t)a->n + 4, sizeof(*who));
	if (fds == NULL || who == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	for (;;) {
		/* A RESPAWN may have added a process. */
		if (a->n > cap) {
			free(fds);
			free(who);
			cap = a->n;
			fds = calloc(3 * (size_t)cap + 4, sizeof(*fds));
			who = calloc(3 * (size_t)cap + 4, sizeof(*who));
			if (fds == NULL || who == NULL)
				ft_die(FT_EXIT_TEMP, "out of memory");
		}
		if (a_chld) {
			a_chld = 0;
			reap(a);
		}
		if (a_term && !a->ending) {
			a_term = 0;
			note(a, FT_JOB_NOTE_WARNING, 0, "the host agent was "
			    "told to stop; ending the job's processes here");
			end_all(a);
		}
		read_beats(a);
		now = ft_now_ns();
		report_exits(a, now);
		if (!a->lost && now >= a->last_rx + a->silence_ns)
			lost(a, "was silent too long");
		if (a->deadline != 0 && now >= a->deadline && !a->ending) {
			note(a, FT_JOB_NOTE_WARNING, 0, "the job outlived its "
			    "timeout; ending its processes here");
			end_all(a);
		}
		if (a->ending && a->kill_at != 0 && now >= a->kill_at) {
			signal_all(a, SIGKILL);
			a->kill_at = 0;
		}
		if (!a->lost && now >= a->next_ka) {
			struct ft_wbuf wb;

			ft_wbuf_init(&wb);
			send_wb(a, &wb, ft_msg_empty_encode(&wb,
			    FT_WIRE_LAUNCHER, FT_MSG_JOB_KEEPALIVE));
			a->next_ka = now + a->ka_ns;
		}
		if (a->unreported == 0 && (!a->hold || a->released ||
		    a->lost))
			break;
		if (a->lost && !a->ending)
			lost(a, "is gone");
		nf = 0;
		if (!a->lost) {
			fds[nf] = (struct pollfd){ a->c->fd, POLLIN |
			    (ft_conn_want_write(a->c) ? POLLOUT : 0), 0 };
			who[nf++] = -1;
		}
		if (a->hb_fd != -1) {
			fds[nf] = (struct pollfd){ a->hb_fd, POLLIN, 0 };
			who[nf++] = -2;
		}
		if (a->det_on && a->det.ev_fd != -1) {
			fds[nf] = (struct pollfd){ a->det.ev_fd, POLLIN, 0 };
			who[nf++] = -3;
		}
		/* A submitter that does not read makes the processes wait
		 * on their pipes, not us grow without bound. */
		if (a->lost || a->c->oq_bytes < BACKLOG_MAX)
			for (i = 0; i < a->n; i++)
				for (k = 0; k < 2; k++)
					if (a->p[i].s[k].fd != -1) {
						fds[nf] = (struct pollfd){
						    a->p[i].s[k].fd, POLLIN, 0 };
						who[nf++] = (int)(2 * i) + k;
					}
		for (i = 0; i < a->n; i++)
			if (a->p[i].in_fd != -1 && a->p[i].in_len > 0) {
				fds[nf] = (struct pollfd){ a->p[i].in_fd,
				    POLLOUT, 0 };
				who[nf++] = (int)(2 * a->n + i);
			}
		wake = a->lost ? 0 : a->last_rx + a->silence_ns;
		if (!a->lost && a->next_ka < wake)
			wake = a->next_ka;
		if (a->deadline != 0 && !a->ending && (wake == 0 ||
		    a->deadline < wake))
			wake = a->deadline;
		if (a->ending && a->kill_at != 0 && (wake == 0 ||
		    a->kill_at < wake))
			wake = a->kill_at;
		for (i = 0; i < a->n; i++)
			if (a->p[i].state == P_REAPED && (wake == 0 ||
			    a->p[i].reaped_at + a->grace_ns < wake))
				wake = a->p[i].reaped_at + a->grace_ns;
		if (wake == 0)
			wake = now + 1000000000u;
		wake = wake > now ? wake - now : 0;
		ts.tv_sec = (time_t)(wake / 1000000000u);
		ts.tv_nsec = (long)(wake % 1000000000u);
		if (ppoll(fds, nf, &ts, waitmask) < 0) {
			if (errno == EINTR)
				continue;
			ft_die(FT_EXIT_TEMP, "poll");
		}
		for (i = 0, cap0 = a->n; i < nf && a->n == cap0; i++) {
			/* A RESPAWN moved the indexes: poll again. */
			if (fds[i].revents == 0)
				continue;
			if (who[i] == -1) {
				if ((fds[i].revents & POLLOUT) &&
				    ft_conn_flush(a->c) != 0)
					a->lost = 1;
				if (!a->lost && (fds[i].revents &
				    (POLLIN | POLLHUP | POLLERR)))
					conn_read(a);
			} else if (who[i] == -2)
				read_beats(a);
			else if (who[i] == -3)
				det_read(a);
			else if (who[i] >= (int)(2 * a->n))
				input_write(a, &a->p[who[i] - 2 * (int)a->n]);
			else
				read_stream(a, &a->p[who[i] / 2], who[i] % 2);
		}
		if (!a->lost && ft_conn_want_write(a->c) &&
		    ft_conn_flush(a->c) != 0)
			a->lost = 1;
	}
	free(fds);
	free(who);
}

int
ft_agent_serve(struct ft_conn *c, const struct ft_hdr *h,
    const uint8_t *body, const struct ft_agent_opts *o)
{
	struct agent a;
	sigset_t orig, waitmask;
	struct ft_wbuf wb;
	uint32_t i;
	int rc = FT_EXIT_NO;

	memset(&a, 0, sizeof(a));
	a.o = o;
	a.c = c;
	a.hb_fd = a.hb_wfd = -1;
	a.det_lfd = -1;
	if (h->type != FT_MSG_JOB_START || ft_msg_job_start_decode(body,
	    h->len - FT_WIRE_HDRLEN, &a.js) != 0) {
		ft_warnx("host agent: malformed %s from the submitter",
		    ft_msg_name(h->type));
		return FT_EXIT_USAGE;
	}
	a.n = a.unreported = a.js.nprocs;
	a.hold = ft__relocate_holds(a.js.proto, a.js.env, a.js.nenv);
	a.grace_ns = a.js.grace_ms * 1000000;
	a.silence_ns = a.js.hang_ms > 0 ? a.js.hang_ms * 1000000 :
	    SILENCE_DEFAULT_NS;
	a.ka_ns = a.silence_ns / 10 < 1000000000u ? a.silence_ns / 10 :
	    1000000000u;
	/*
	 * Self-fencing: the submitter declares this host lost after the
	 * hang timeout of silence (or sooner, by the detector) and starts
	 * its processes elsewhere.  Ours must be dead by then, even when
	 * only the link to the submitter is cut (the detector then hears
	 * this host through the others, and never declares it): they end
	 * two keepalive periods sooner, at 8 of the default 10 seconds.
	 */
	a.silence_ns -= 2 * a.ka_ns;
	a.last_rx = ft_now_ns();
	if ((a.p = calloc(a.n + 1, sizeof(*a.p))) == NULL ||
	    (a.st = calloc(FT_JOB_BATCH_MAX, sizeof(*a.st))) == NULL) {
		ft_warnx("host agent: out of memory");
		release(&a);
		return FT_EXIT_TEMP;
	}
	for (i = 0; i < a.n; i++) {
		a.p[i].id = a.js.procs[i].id;
		a.p[i].s[0].fd = a.p[i].s[1].fd = -1;
		a.p[i].in_fd = -1;
		if ((a.p[i].s[0].buf = malloc(LINE_MAX_FWD)) == NULL ||
		    (a.p[i].s[1].buf = malloc(LINE_MAX_FWD)) == NULL) {
			ft_warnx("host agent: out of memory");
			release(&a);
			return FT_EXIT_TEMP;
		}
	}
	/* Caught from now on: a stop while staging removes what it
	 * began (a partial file, the job directory). */
	ft__signals_catch(on_signal, &orig, &waitmask);
	a.mask = &orig;
	a.waitmask = &waitmask;
	if (setup(&a) != 0)
		goto out;
	if (ft_conn_open(c, a.js.sealed, a.key) != 0) {
		note(&a, FT_JOB_NOTE_ERROR, FT_EXIT_USAGE, "the job key does "
		    "not open under the cluster key");
		goto out;
	}
	own_address(&a);
	alog(&a, "%u processes of '%s' for the submitter at '%s'", a.n,
	    a.js.argv[0], a.js.launcher);
	if (stage(&a) != 0) {
		if (a_term)
			note(&a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "the host "
			    "agent was told to stop while it staged the job's "
			    "files");
		goto out;
	}
	if (a.js.prog != FT_JOB_NOPROG) {
		if ((size_t)snprintf(a.prog, sizeof(a.prog), "%s/%s",
		    a.jobdir, a.js.files[a.js.prog].name) >= sizeof(a.prog)) {
			note(&a, FT_JOB_NOTE_ERROR, FT_EXIT_TEMP, "the path "
			    "of the program is too long");
			goto out;
		}
	} else if (ft_find_program(a.js.argv[0], "/usr/local/bin:/usr/bin:/bin",
	    a.prog, sizeof(a.prog)) != 0)
		snprintf(a.prog, sizeof(a.prog), "%s", a.js.argv[0]);
	if (a.js.timeout_ms > 0)
		a.deadline = ft_now_ns() + a.js.timeout_ms * 1000000 +
		    2 * a.grace_ns + 1000000000u;
	spawn_all(&a, &orig);
	det_offer(&a);
	a.next_ka = ft_now_ns() + a.ka_ns;
	run(&a, &waitmask);
	if (!a.lost) {
		ft_wbuf_init(&wb);
		send_wb(&a, &wb, ft_msg_empty_encode(&wb, FT_WIRE_LAUNCHER,
		    FT_MSG_JOB_DONE));
		rc = FT_EXIT_OK;
	}
out:
	sigprocmask(SIG_SETMASK, &orig, NULL);
	flush_until(&a, ft_now_ns() + 2000000000u);
	alog(&a, "%s", rc == 0 ? "done" : "ended");
	release(&a);
	return rc;
}
