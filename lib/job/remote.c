/* SPDX-License-Identifier: ISC */
/*
 * ftrun's side of remote execution: connect to the agent of each host,
 * start the job there (JOB_START, then the staged files each agent
 * lacks), and turn what the agents report into the launcher's
 * callbacks.  A connection lost, or silent for the hang timeout, is the
 * loss of its host with every process on it.
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "remote.h"
#include "child.h"
#include "detector.h"
#include "stage.h"

#define CONNECT_NS	(10 * 1000000000ull)
#define SEND_BACKLOG	(4u << 20)	/* queued file bytes per agent */
#define CLOSE_WAIT_NS	(5 * 1000000000ull)	/* for an agent's exit */

struct sfile {
	char		 path[FT_STAGE_PATH_MAX];	/* "" for a URL */
	char		 name[FT_JOB_NAME_MAX];
	char		 url[FT_JOB_URL_MAX];
	uint64_t	 size;
	uint8_t		 sha[32];
	uint32_t	 flags;
	int		 fd;
};

struct rhost {
	const struct ft_launch_host *h;
	struct ft_conn	 c;
	int		 up, started, done, lost;
	/* After DONE, until its agent closes the connection (exits): a
	 * daemon counts the job until it reaps its agent. */
	int		 closing;
	uint64_t	 close_by;
	uint64_t	 last_rx, next_ka;
	/* Files to send: need.idx[at] from offset off. */
	struct ft_msg_job_need need;
	uint32_t	 at;
	uint64_t	 off;
	int		 sending;
	/* Its detector module: where (DETECT said), which member. */
	char		 det_addr[FT_WIRE_ADDR_MAX];
	int		 det_said;
	uint32_t	 member;		/* 0: none */
};

enum { DET_WAIT, DET_RUN, DET_OFF };

struct ft__remote {
	const struct ft_launch	*cf;
	struct rhost		*h;
	size_t			 n;
	const struct ft__remote_cb *cb;
	struct sfile		*files;
	uint32_t		 nfiles, prog;
	uint64_t		 silence_ns, ka_ns;
	uint32_t		 nprocs;
	int			 failed;	/* exit status, or 0 */
	int			 released;	/* RELEASE sent */
	/* The detector among the hosts: we are member 0. */
	int			 det_state;
	struct ft__det		 det;
	uint32_t		*member_host;	/* member - 1 -> host */
	uint8_t			 key[FT_WIRE_KEYLEN];
	/* Standard input to the replicas of rank 0: sent, taken. */
	uint64_t		 in_sent[FT_REPLICAS_MAX];
	uint64_t		 in_taken[FT_REPLICAS_MAX];
	int			 in_closed[FT_REPLICAS_MAX];
	/* Where each process runs now (a restart may move it), and
	 * which wait for the STARTED of a RESPAWN (relocate.h). */
	uint32_t		*host_of;
	uint8_t			*respawning;
	/* Variables every process gets besides the user's (-x). */
	char			**env;
	size_t			 nenv;
	/* Decoding room. */
	struct ft_job_status	*st;
	struct ft_job_beat	*beats;
	struct ft_job_pid	*pids;
};

static void
send_wb(struct ft__remote *rm, struct rhost *rh, struct ft_wbuf *wb, int rc)
{
	if (rc == 0 && !rh->lost && ft_conn_queue_copy(&rh->c, wb->p,
	    wb->len) != 0)
		rh->lost = 1;
	ft_wbuf_release(wb);
}

/* This host's address on fd's connection, as "tcp:IP:0". */
static void
local_listen(int fd, char *out, size_t size)
{
	char ip[64];
	int v;

	if ((v = ft_net_local_ip(fd, ip, sizeof(ip))) < 0)
		snprintf(out, size, "tcp:127.0.0.1:0");
	else
		snprintf(out, size, v == 6 ? "tcp:[%s]:0" : "tcp:%s:0", ip);
}

int
ft__remote_connect(const struct ft_launch *cf, struct ft__remote **out,
    char *listen, size_t listensize)
{
	struct ft__remote *rm;
	struct pollfd *p;
	const uint8_t *body;
	struct ft_hdr h;
	uint64_t deadline = ft_now_ns() + CONNECT_NS, now;
	size_t i, left;
	int fd, rc;

	if ((rm = calloc(1, sizeof(*rm))) == NULL ||
	    (rm->h = calloc(cf->nhosts, sizeof(*rm->h))) == NULL ||
	    (p = calloc(cf->nhosts, sizeof(*p))) == NULL) {
		ft_warn("out of memory");
		free(rm != NULL ? rm->h : NULL);
		free(rm);
		return -1;
	}
	rm->cf = cf;
	rm->n = cf->nhosts;
	rm->prog = FT_JOB_NOPROG;
	rm->silence_ns = cf->hang_ns > 0 ? cf->hang_ns :
	    FT_HANG_TIMEOUT_DEFAULT;
	rm->ka_ns = rm->silence_ns / 10 < 1000000000u ? rm->silence_ns / 10 :
	    1000000000u;
	*out = rm;
	for (i = 0; i < rm->n; i++) {
		rm->h[i].h = &cf->hosts[i];
		rm->h[i].c.fd = -1;
		if ((fd = ft_net_connect(cf->hosts[i].addr)) == -1 ||
		    ft_conn_connecting(&rm->h[i].c, fd, cf->cluster_key, 0,
		    FT_ROLE_SUBMITTER) != 0) {
			ft_error("unable to reach the agent of host '%s' at "
			    "'%s'", cf->hosts[i].name, cf->hosts[i].addr);
			if (fd != -1)
				close(fd);
			return -1;
		}
		rm->h[i].up = 1;
	}
	for (;;) {
		for (i = 0, left = 0; i < rm->n; i++) {
			p[i] = (struct pollfd){ rm->h[i].c.fd, POLLIN, 0 };
			if (ft_conn_want_write(&rm->h[i].c))
				p[i].events |= POLLOUT;
			if (rm->h[i].c.hs != FT_HS_READY ||
			    ft_conn_want_write(&rm->h[i].c))
				left++;
		}
		if (left == 0)
			break;
		if ((now = ft_now_ns()) >= deadline) {
			for (i = 0; i < rm->n; i++)
				if (rm->h[i].c.hs != FT_HS_READY)
					ft_errorx("the agent of host '%s' at "
					    "'%s' did not answer within 10s",
					    cf->hosts[i].name,
					    cf->hosts[i].addr);
			free(p);
			return -1;
		}
		if (poll(p, rm->n, (int)((deadline - now) / 1000000 + 1)) <
		    0 && errno != EINTR)
			ft_die(FT_EXIT_TEMP, "poll");
		for (i = 0; i < rm->n; i++) {
			struct ft_conn *c = &rm->h[i].c;

			errno = 0;
			if ((p[i].revents & POLLOUT) && ft_conn_flush(c) != 0)
				goto refused;
			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (ft_conn_fill(c) < 0)
				goto refused;
			while ((rc = ft_conn_frame(c, &h, &body)) == 1 &&
			    c->hs != FT_HS_READY)
				if (ft_conn_handshake(c, &h, body) < 0)
					goto refused;
			if (rc < 0 || (rc == 1 && c->hs == FT_HS_READY)) {
				errno = EPROTO;
				goto refused;
			}
			continue;
refused:
			if (c->hs == FT_HS_CONNECTING)
				ft_error("unable to connect to the agent of "
				    "host '%s' at '%s'", cf->hosts[i].name,
				    cf->hosts[i].addr);
			else
				ft_errorx("the agent of host '%s' at '%s' "
				    "refused the connection%s",
				    cf->hosts[i].name, cf->hosts[i].addr,
				    errno == EACCES ? ": wrong cluster key" :
				    " (wrong cluster key?)");
			free(p);
			return -1;
		}
	}
	free(p);
	local_listen(rm->h[0].c.fd, listen, listensize);
	return 0;
}

/* "http://host/dir/name?q#sha256=HEX": name, and the pin if any. */
static int
url_file(const char *arg, struct sfile *f, char *why, size_t whysize)
{
	const char *path, *end, *pin, *slash;
	size_t len;

	if (strncmp(arg, "http://", 7) != 0 && strncmp(arg, "https://", 8) !=
	    0 && strncmp(arg, "file://", 7) != 0) {
		snprintf(why, whysize, "only http, https and file URLs are "
		    "staged");
		return -1;
	}
	if ((pin = strstr(arg, "#sha256=")) != NULL) {
		if (strlen(pin + 8) != 64 || ft_hex_decode(pin + 8, f->sha,
		    32) != 0) {
			snprintf(why, whysize, "#sha256= needs 64 lowercase "
			    "hexadecimal digits");
			return -1;
		}
		f->flags |= FT_STAGE_PINNED;
	}
	len = pin != NULL ? (size_t)(pin - arg) : strlen(arg);
	if (len >= sizeof(f->url)) {
		snprintf(why, whysize, "the URL is too long");
		return -1;
	}
	memcpy(f->url, arg, len);
	f->url[len] = '\0';
	path = strstr(f->url, "://") + 3;
	end = path + strcspn(path, "?#");
	for (slash = NULL; path < end; path++)
		if (*path == '/')
			slash = path;
	if (slash == NULL || end - slash - 1 == 0 ||
	    (size_t)(end - slash - 1) >= sizeof(f->name)) {
		snprintf(why, whysize, "the URL names no file");
		return -1;
	}
	memcpy(f->name, slash + 1, (size_t)(end - slash - 1));
	f->name[end - slash - 1] = '\0';
	return 0;
}

/* The files to stage: the program, then --stage, by name, no twice. */
static int
stage_list(struct ft__remote *rm, const char *prog)
{
	const struct ft_launch *cf = rm->cf;
	struct sfile *f;
	const char *arg, *base;
	char why[512];
	uint32_t i, j;

	if ((rm->files = calloc(cf->nstage + 1, sizeof(*rm->files))) == NULL)
		return FT_EXIT_TEMP;
	for (i = 0; i <= cf->nstage; i++) {
		f = &rm->files[i];
		f->fd = -1;
		arg = i == 0 ? prog : cf->stage[i - 1];
		rm->nfiles = i + 1;
		if (i > 0 && strstr(arg, "://") != NULL) {
			if (url_file(arg, f, why, sizeof(why)) != 0)
				goto bad;
		} else {
			base = strrchr(arg, '/') != NULL ? strrchr(arg, '/') +
			    1 : arg;
			snprintf(f->path, sizeof(f->path), "%s", arg);
			snprintf(f->name, sizeof(f->name), "%s", base);
			if ((f->fd = open(arg, O_RDONLY | O_CLOEXEC)) == -1 ||
			    ft__stage_hash(arg, f->sha, &f->size) != 0) {
				snprintf(why, sizeof(why), "%s", errno ==
				    EFBIG ? "larger than the limit of 1 GiB" :
				    strerror(errno));
				goto bad;
			}
			f->flags |= FT_STAGE_PINNED;
		}
		if (!ft_job_name_ok(f->name)) {
			snprintf(why, sizeof(why), "'%s' is not a file name "
			    "to stage", f->name);
			goto bad;
		}
		for (j = 0; j < i; j++)
			if (strcmp(rm->files[j].name, f->name) == 0) {
				snprintf(why, sizeof(why), "a file named '%s' "
				    "is staged already", f->name);
				goto bad;
			}
	}
	rm->prog = 0;
	return 0;
bad:
	if (i == 0)
		ft_errorx("unable to stage the program '%s': %s", arg, why);
	else
		ft_errorx("--stage '%s': %s", arg, why);
	return FT_EXIT_USAGE;
}

static int
send_start(struct ft__remote *rm, size_t hi, const char *launcher,
    const uint8_t *key, uint64_t hb_period_ns, uint64_t jobid)
{
	const struct ft_launch *cf = rm->cf;
	struct rhost *rh = &rm->h[hi];
	struct ft_msg_job_start m;
	struct ft_job_file *jf;
	struct ft_job_proc *pr;
	struct ft_wbuf wb;
	char **env = NULL;
	uint32_t i, n = cf->nranks * (cf->nrep > 1 ? cf->nrep : 1), np = 0;
	uint64_t after;
	int sig, rc;

	memset(&m, 0, sizeof(m));
	pr = calloc(rh->h->nprocs + 1, sizeof(*pr));
	jf = calloc(rm->nfiles + 1, sizeof(*jf));
	if (pr == NULL || jf == NULL) {
		free(pr);
		free(jf);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (cf->host_of_proc[i] != hi || np == rh->h->nprocs)
			continue;
		pr[np].id = i;
		if (ft__inject_after_sends(cf, 0, i / (cf->nrep > 1 ? cf->nrep :
		    1), i % (cf->nrep > 1 ? cf->nrep : 1), &after, &sig)) {
			pr[np].kill_after = after;
			pr[np].kill_signal = (uint32_t)sig;
		}
		np++;
	}
	for (i = 0; i < rm->nfiles; i++)
		jf[i] = (struct ft_job_file){ rm->files[i].name,
		    rm->files[i].url, rm->files[i].size, { 0 },
		    rm->files[i].flags };
	for (i = 0; i < rm->nfiles; i++)
		memcpy(jf[i].sha256, rm->files[i].sha, 32);
	memcpy(m.token, rh->h->token, sizeof(m.token));
	m.nprocs = np;
	m.jobid = jobid;
	m.node = (uint32_t)hi;
	m.nranks = cf->nranks;
	m.nrep = cf->nrep > 1 ? cf->nrep : 1;
	/* Our standard input goes to rank 0, as mpirun's does. */
	m.flags = (cf->force_tcp ? FT_JOB_TCP : 0) |
	    (cf->check_divergence ? FT_JOB_DIVERGE : 0) | FT_JOB_STDIN;
	m.timeout_ms = cf->timeout_ns / 1000000;
	m.grace_ms = cf->grace_ns / 1000000;
	m.hang_ms = cf->hang_ns / 1000000;
	m.hb_period_ms = (uint32_t)(hb_period_ns / 1000000);
	snprintf(m.launcher, sizeof(m.launcher), "%s", launcher);
	snprintf(m.proto, sizeof(m.proto), "%s", cf->proto != NULL ?
	    cf->proto : "none");
	m.prog = rm->prog;
	for (m.argc = 0; cf->argv[m.argc] != NULL; m.argc++)
		continue;
	m.argv = cf->argv;
	if (rm->nenv > 0) {
		if ((env = calloc(cf->nsetenv + rm->nenv + 1,
		    sizeof(*env))) == NULL) {
			free(pr);
			free(jf);
			return -1;
		}
		for (i = 0; i < cf->nsetenv; i++)
			env[i] = cf->setenv[i];
		for (i = 0; i < rm->nenv; i++)
			env[cf->nsetenv + i] = rm->env[i];
		m.env = env;
	} else
		m.env = cf->setenv;
	m.nenv = (uint32_t)(cf->nsetenv + rm->nenv);
	m.procs = pr;
	m.nfiles = rm->nfiles;
	m.files = jf;
	if (ft_conn_seal(&rh->c, key, m.sealed) != 0) {
		free(pr);
		free(jf);
		free(env);
		return -1;
	}
	ft_wbuf_init(&wb);
	rc = ft_msg_job_start_encode(&wb, FT_WIRE_LAUNCHER, &m);
	if (rc != 0)
		ft_error("unable to encode the job for host '%s'",
		    rh->h->name);
	send_wb(rm, rh, &wb, rc);
	free(pr);
	free(jf);
	free(env);
	return rc;
}

/* Queue file chunks for rh while its queue has room. */
static void
send_files(struct ft__remote *rm, struct rhost *rh)
{
	static uint8_t buf[FT_JOB_CHUNK];
	struct ft_msg_job_file m;
	struct sfile *f;
	struct ft_wbuf wb;
	ssize_t got;

	while (rh->sending && !rh->lost && rh->c.oq_bytes < SEND_BACKLOG) {
		if (rh->at == rh->need.n) {
			rh->sending = 0;
			return;
		}
		f = &rm->files[rh->need.idx[rh->at]];
		m.idx = rh->need.idx[rh->at];
		m.offset = rh->off;
		m.len = f->size - rh->off < FT_JOB_CHUNK ?
		    (size_t)(f->size - rh->off) : FT_JOB_CHUNK;
		do
			got = pread(f->fd, buf, m.len, (off_t)rh->off);
		while (got < 0 && errno == EINTR);
		if (got < 0 || (size_t)got != m.len) {
			/* The file shrank since it was hashed: the agent's
			 * check fails and says so. */
			m.len = got > 0 ? (size_t)got : 0;
		}
		m.data = buf;
		ft_wbuf_init(&wb);
		send_wb(rm, rh, &wb, ft_msg_job_file_encode(&wb,
		    FT_WIRE_LAUNCHER, &m));
		rh->off += m.len;
		if (rh->off >= f->size || m.len == 0) {
			rh->at++;
			rh->off = 0;
		}
	}
}

/* proc is placed on host hi? */
static int
owns(const struct ft__remote *rm, size_t hi, uint32_t proc)
{
	return proc < rm->nprocs && rm->host_of[proc] == hi;
}

static int
to_wstatus(const struct ft_job_status *s)
{
	switch (s->kind) {
	case FT_JOB_EXITED:
		return (int)(s->value << 8);
	case FT_JOB_SIGNALED:
		return (int)s->value;
	case FT_JOB_STOPPED:
		return (int)(s->value << 8 | 0x7f);
	default:
		return 0xffff;
	}
}

static void det_maybe_start(struct ft__remote *);

static void
host_lost(struct ft__remote *rm, size_t hi, const char *why)
{
	struct rhost *rh = &rm->h[hi];

	if (rh->done || (rh->lost && !rh->up))
		return;
	rh->lost = 1;
	rh->up = 0;
	if (rh->c.fd != -1) {
		close(rh->c.fd);
		rh->c.fd = -1;
	}
	if (!rh->started && rm->failed == 0) {
		ft_errorx("lost the agent of host '%s' before the job "
		    "started: %s", rh->h->name, why);
		rm->failed = FT_EXIT_TEMP;
	}
	/* Seen here first: the detector spreads it to the others. */
	if (rm->det_state == DET_RUN && rh->member != 0)
		ft__det_dead(&rm->det, rh->member);
	if (rm->cb != NULL && rm->cb->lost != NULL)
		rm->cb->lost(rm->cb->arg, (uint32_t)hi, why);
	det_maybe_start(rm);
}

static void
det_failed(void *arg, uint32_t member, const char *by)
{
	struct ft__remote *rm = arg;
	char why[96];

	if (member == 0 || member > rm->n ||
	    rm->member_host[member - 1] >= rm->n)
		return;
	snprintf(why, sizeof(why), "the failure detector declared it failed "
	    "(member %u, by %s)", member, by);
	host_lost(rm, rm->member_host[member - 1], why);
}

/* What the detector said; exclusion cuts us off from every host. */
static void
det_read(struct ft__remote *rm)
{
	size_t i;

	if (ft__det_events(&rm->det, det_failed, rm) == 0)
		return;
	rm->det_state = DET_OFF;
	if (!rm->det.excluded) {
		ft_warnx("the failure detector ended; hosts are watched "
		    "through their agents' connections only");
		return;
	}
	for (i = 0; i < rm->n; i++)
		host_lost(rm, i, "the failure detector cut this host off "
		    "from it");
}

/*
 * Once every host's agent said where its detector listens (or was
 * lost), start ours as member 0 and send each its members.  A host
 * lost before is no member: the detector watches only what runs.
 */
static void
det_maybe_start(struct ft__remote *rm)
{
	struct ft_msg_job_members m;
	struct ft__det_cfg dc;
	struct ft_wbuf wb;
	char (*addrs)[FT_WIRE_ADDR_MAX] = NULL, here[FT_WIRE_ADDR_MAX];
	uint32_t n = 1, k;
	size_t i;
	int lfd = -1;

	if (rm->det_state != DET_WAIT || rm->cb == NULL)
		return;
	for (i = 0; i < rm->n; i++)
		if (!rm->h[i].lost && !rm->h[i].done && !rm->h[i].det_said)
			return;
	rm->det_state = DET_OFF;
	if ((addrs = calloc(rm->n + 1, sizeof(*addrs))) == NULL ||
	    (rm->member_host = calloc(rm->n, sizeof(uint32_t))) == NULL)
		goto out;
	for (i = 0; i < rm->n; i++) {
		rm->member_host[i] = UINT32_MAX;
		if (rm->h[i].lost || rm->h[i].done || !rm->h[i].det_said ||
		    strcmp(rm->h[i].det_addr, "none") == 0)
			continue;
		rm->h[i].member = n;
		rm->member_host[n - 1] = (uint32_t)i;
		memcpy(addrs[n++], rm->h[i].det_addr, FT_WIRE_ADDR_MAX);
	}
	if (n < 2)
		goto out;
	for (i = 0; i < rm->n && rm->h[i].c.fd == -1; i++)
		continue;
	if (i == rm->n)
		goto out;
	local_listen(rm->h[i].c.fd, here, sizeof(here));
	if ((lfd = ft_net_listen(here, addrs[0], FT_WIRE_ADDR_MAX)) == -1) {
		ft_warn("the failure detector: unable to listen at '%s'",
		    here);
		goto out;
	}
	dc = (struct ft__det_cfg){ .addrs = addrs, .n = n, .self = 0,
	    .proto = rm->cf->detector != NULL ? rm->cf->detector : "dbrr",
	    .period_ns = rm->cf->gossip_period_ns, .listen_fd = lfd,
	    .key = rm->key };
	if (ft__det_start(&rm->det, &dc) != 0) {
		ft_warn("unable to start the failure detector (ftgossip)");
		goto out;
	}
	rm->det_state = DET_RUN;
	m = (struct ft_msg_job_members){ 0, n, ft__det_proto_code(dc.proto),
	    dc.period_ns != 0 ? dc.period_ns : 100000000u, 0, 0, addrs };
	for (k = 1; k < n; k++) {
		m.self = k;
		ft_wbuf_init(&wb);
		send_wb(rm, &rm->h[rm->member_host[k - 1]], &wb,
		    ft_msg_job_members_encode(&wb, FT_WIRE_LAUNCHER, &m));
	}
out:
	if (lfd != -1)
		close(lfd);
	if (rm->det_state != DET_RUN)
		ft_warnx("hosts are watched through their agents' "
		    "connections only: no failure detector among them");
	free(addrs);
}

/* One frame from host hi's agent.  -1: drop the agent. */
static int
on_frame(struct ft__remote *rm, size_t hi, const struct ft_hdr *h,
    const uint8_t *body)
{
	const struct ft__remote_cb *cb = rm->cb;
	struct rhost *rh = &rm->h[hi];
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_msg_job_started sm;
	struct ft_msg_job_output om;
	struct ft_msg_job_status stm;
	struct ft_msg_job_beats bm;
	struct ft_msg_job_note nm;
	struct ft_msg_job_detect dm;
	struct ft_msg_job_input im;
	struct ft_hb_rec rec;
	char shown[4 * FT_WIRE_TEXT_MAX + 1];
	uint32_t i;

	switch (h->type) {
	case FT_MSG_JOB_KEEPALIVE:
		return ft_msg_empty_decode(body, blen);
	case FT_MSG_JOB_NEED:
		if (ft_msg_job_need_decode(body, blen, &rh->need) != 0 ||
		    rh->sending || rh->started)
			return -1;
		for (i = 0; i < rh->need.n; i++)
			if (rh->need.idx[i] >= rm->nfiles ||
			    rm->files[rh->need.idx[i]].fd == -1)
				return -1;
		rh->at = 0;
		rh->off = 0;
		rh->sending = 1;
		send_files(rm, rh);
		return 0;
	case FT_MSG_JOB_STARTED:
		sm.p = rm->pids;
		/* After the start: the answer to a RESPAWN. */
		if (rh->started) {
			if (ft_msg_job_started_decode(body, blen, &sm, 1) != 0 ||
			    sm.n != 1 || !owns(rm, hi, sm.p[0].id) ||
			    !rm->respawning[sm.p[0].id])
				return -1;
			rm->respawning[sm.p[0].id] = 0;
			cb->started(cb->arg, sm.p[0].id, (pid_t)sm.p[0].pid,
			    (int)sm.p[0].err, rh->h->name);
			return 0;
		}
		if ( ft_msg_job_started_decode(body, blen, &sm,
		    rh->h->nprocs) != 0 || sm.n != rh->h->nprocs)
			return -1;
		for (i = 0; i < sm.n; i++)
			if (!owns(rm, hi, sm.p[i].id))
				return -1;
		rh->started = 1;
		rh->sending = 0;
		if (cb->staged != NULL)
			cb->staged(cb->arg, (uint32_t)hi, sm.cached,
			    sm.received, sm.fetched);
		for (i = 0; i < sm.n; i++)
			cb->started(cb->arg, sm.p[i].id, (pid_t)sm.p[i].pid,
			    (int)sm.p[i].err, rh->h->name);
		return 0;
	case FT_MSG_JOB_OUTPUT:
		if (!rh->started || ft_msg_job_output_decode(body, blen,
		    &om) != 0 || !owns(rm, hi, om.id))
			return -1;
		cb->output(cb->arg, om.id, om.stream == FT_JOB_STDERR,
		    om.data, om.len, (om.flags & FT_JOB_EOF) != 0);
		return 0;
	case FT_MSG_JOB_STATUS:
		stm.s = rm->st;
		if (!rh->started || ft_msg_job_status_decode(body, blen, &stm,
		    FT_JOB_BATCH_MAX) != 0)
			return -1;
		for (i = 0; i < stm.n; i++)
			if (owns(rm, hi, stm.s[i].id))
				cb->status(cb->arg, stm.s[i].id,
				    to_wstatus(&stm.s[i]));
		return 0;
	case FT_MSG_JOB_BEATS:
		bm.b = rm->beats;
		if (!rh->started || ft_msg_job_beats_decode(body, blen, &bm,
		    FT_JOB_BATCH_MAX) != 0)
			return -1;
		for (i = 0; i < bm.n; i++) {
			if (!owns(rm, hi, bm.b[i].id))
				continue;
			rec = (struct ft_hb_rec){ bm.b[i].id, bm.b[i].flags,
			    bm.b[i].state_ms, bm.b[i].completed };
			cb->beat(cb->arg, &rec);
		}
		return 0;
	case FT_MSG_JOB_NOTE:
		if (ft_msg_job_note_decode(body, blen, &nm) != 0)
			return -1;
		ft_vis(shown, sizeof(shown), nm.text);
		if (nm.kind == FT_JOB_NOTE_WARNING) {
			ft_warnx("%s", shown);
			return 0;
		}
		ft_errorx("%s", shown);
		if (!rh->started && rm->failed == 0)
			rm->failed = nm.code != 0 ? (int)nm.code : 1;
		return 0;
	case FT_MSG_JOB_DONE:
		if (ft_msg_empty_decode(body, blen) != 0 || !rh->started)
			return -1;
		rh->done = 1;
		rh->closing = 1;
		rh->close_by = ft_now_ns() + CLOSE_WAIT_NS;
		/* Its detector stops: no failure of the job's. */
		det_maybe_start(rm);
		return 0;
	case FT_MSG_JOB_INPUT:
		if (!rh->started || ft_msg_job_input_decode(body, blen,
		    &im) != 0 || !owns(rm, hi, im.id) ||
		    im.id >= FT_REPLICAS_MAX || (im.flags &
		    (FT_JOB_INPUT_TAKEN | FT_JOB_INPUT_CLOSED)) == 0 ||
		    im.count > rm->in_sent[im.id] ||
		    im.count < rm->in_taken[im.id])
			return -1;
		rm->in_taken[im.id] = im.count;
		if (im.flags & FT_JOB_INPUT_CLOSED)
			rm->in_closed[im.id] = 1;
		return 0;
	case FT_MSG_JOB_DETECT:
		if (!rh->started || rh->det_said ||
		    ft_msg_job_detect_decode(body, blen, &dm) != 0)
			return -1;
		memcpy(rh->det_addr, dm.addr, sizeof(rh->det_addr));
		rh->det_said = 1;
		det_maybe_start(rm);
		return 0;
	default:
		errno = EPROTO;
		return -1;
	}
}

static void
host_read(struct ft__remote *rm, size_t hi)
{
	struct rhost *rh = &rm->h[hi];
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc, rounds;

	for (rounds = 0; rounds < 64 && rh->up && !rh->done; rounds++) {
		while ((rc = ft_conn_frame(&rh->c, &h, &body)) == 1) {
			rh->last_rx = ft_now_ns();
			if (on_frame(rm, hi, &h, body) != 0) {
				ft_warnx("dropped the agent of host '%s': "
				    "bad %s frame", rh->h->name,
				    ft_msg_name(h.type));
				host_lost(rm, hi, "it sent a malformed frame");
				return;
			}
			if (rh->done)
				return;
		}
		if (rc < 0 || (got = ft_conn_fill(&rh->c)) < 0) {
			host_lost(rm, hi, "its connection was lost");
			return;
		}
		if (got == 0)
			return;
	}
}

/* A done agent's connection: anything more is dropped, EOF closes it. */
static void
host_drain(struct rhost *rh)
{
	uint8_t junk[512];
	ssize_t got;

	while ((got = read(rh->c.fd, junk, sizeof(junk))) > 0)
		continue;
	if (got == 0 || (errno != EAGAIN && errno != EINTR))
		rh->closing = 0;
}

size_t
ft__remote_pollfds(struct ft__remote *rm, struct pollfd *p)
{
	size_t i, n = 0;

	for (i = 0; i < rm->n; i++) {
		if (rm->h[i].up && rm->h[i].done && rm->h[i].closing) {
			p[n++] = (struct pollfd){ rm->h[i].c.fd, POLLIN, 0 };
			continue;
		}
		if (!rm->h[i].up || rm->h[i].done)
			continue;
		p[n++] = (struct pollfd){ rm->h[i].c.fd, POLLIN |
		    (ft_conn_want_write(&rm->h[i].c) ? POLLOUT : 0), 0 };
	}
	if (rm->det_state == DET_RUN && rm->det.ev_fd != -1)
		p[n++] = (struct pollfd){ rm->det.ev_fd, POLLIN, 0 };
	return n;
}

void
ft__remote_io(struct ft__remote *rm, const struct pollfd *p, size_t np)
{
	size_t i, k;

	for (k = 0; k < np; k++) {
		if (p[k].revents == 0)
			continue;
		if (rm->det_state == DET_RUN && p[k].fd == rm->det.ev_fd) {
			det_read(rm);
			continue;
		}
		for (i = 0; i < rm->n; i++)
			if (rm->h[i].up && rm->h[i].c.fd == p[k].fd)
				break;
		if (i == rm->n)
			continue;
		if (rm->h[i].done) {
			host_drain(&rm->h[i]);
			continue;
		}
		if ((p[k].revents & POLLOUT) && ft_conn_flush(&rm->h[i].c) !=
		    0) {
			host_lost(rm, i, "its connection was lost");
			continue;
		}
		if (p[k].revents & (POLLIN | POLLHUP | POLLERR))
			host_read(rm, i);
		if (rm->h[i].up && rm->h[i].sending)
			send_files(rm, &rm->h[i]);
		if (rm->h[i].up && ft_conn_want_write(&rm->h[i].c) &&
		    ft_conn_flush(&rm->h[i].c) != 0)
			host_lost(rm, i, "its connection was lost");
	}
}

uint64_t
ft__remote_tick(struct ft__remote *rm, uint64_t now)
{
	struct rhost *rh;
	struct ft_wbuf wb;
	uint64_t wake = 0;
	char why[64], d[32];
	size_t i;

	for (i = 0; i < rm->n; i++) {
		rh = &rm->h[i];
		if (rh->closing && now >= rh->close_by)
			rh->closing = 0;
		if (rh->closing && (wake == 0 || rh->close_by < wake))
			wake = rh->close_by;
		if (!rh->up || rh->done)
			continue;
		/* An agent is quiet while it stages: silence counts once
		 * it started the processes. */
		if (rh->started && now >= rh->last_rx + rm->silence_ns) {
			snprintf(why, sizeof(why), "it was silent for %s",
			    ft_fmt_duration(now - rh->last_rx, d, sizeof(d)));
			host_lost(rm, i, why);
			continue;
		}
		if (now >= rh->next_ka) {
			ft_wbuf_init(&wb);
			send_wb(rm, rh, &wb, ft_msg_empty_encode(&wb,
			    FT_WIRE_LAUNCHER, FT_MSG_JOB_KEEPALIVE));
			rh->next_ka = now + rm->ka_ns;
			if (rh->lost) {
				host_lost(rm, i, "its connection was lost");
				continue;
			}
		}
		if (wake == 0 || rh->next_ka < wake)
			wake = rh->next_ka;
		if (rh->started && rh->last_rx + rm->silence_ns < wake)
			wake = rh->last_rx + rm->silence_ns;
	}
	return wake;
}

int
ft__remote_start(struct ft__remote *rm, const char *launcher,
    const uint8_t key[FT_WIRE_KEYLEN], const char *prog,
    uint64_t hb_period_ns, uint64_t deadline, const struct ft__remote_cb *cb)
{
	struct pollfd *p;
	uint64_t jobid, now, wake;
	size_t i, np, left;
	int rc;

	rm->cb = cb;
	memcpy(rm->key, key, sizeof(rm->key));
	rm->nprocs = rm->cf->nranks * (rm->cf->nrep > 1 ? rm->cf->nrep : 1);
	if ((rm->host_of = calloc(rm->nprocs + 1, sizeof(*rm->host_of))) ==
	    NULL || (rm->respawning = calloc(rm->nprocs + 1, 1)) == NULL) {
		ft_warn("out of memory");
		return FT_EXIT_TEMP;
	}
	memcpy(rm->host_of, rm->cf->host_of_proc, rm->nprocs *
	    sizeof(*rm->host_of));
	if ((rm->st = calloc(FT_JOB_BATCH_MAX, sizeof(*rm->st))) == NULL ||
	    (rm->beats = calloc(FT_JOB_BATCH_MAX, sizeof(*rm->beats))) ==
	    NULL || (rm->pids = calloc(rm->nprocs + 1, sizeof(*rm->pids))) ==
	    NULL || (p = calloc(rm->n, sizeof(*p))) == NULL) {
		ft_warn("out of memory");
		return FT_EXIT_TEMP;
	}
	if ((rc = stage_list(rm, prog)) != 0) {
		free(p);
		return rc;
	}
	ft_random(&jobid, sizeof(jobid));
	now = ft_now_ns();
	for (i = 0; i < rm->n; i++) {
		rm->h[i].last_rx = now;
		rm->h[i].next_ka = now + rm->ka_ns;
		if (send_start(rm, i, launcher, key, hb_period_ns, jobid) !=
		    0) {
			free(p);
			return FT_EXIT_TEMP;
		}
	}
	for (;;) {
		for (i = 0, left = 0; i < rm->n; i++)
			if (!rm->h[i].started)
				left++;
		if (left == 0 || rm->failed != 0)
			break;
		now = ft_now_ns();
		if (deadline != 0 && now >= deadline) {
			ft_errorx("the job timed out while its files were "
			    "staged");
			rm->failed = FT_LAUNCH_TIMEOUT_STATUS;
			break;
		}
		wake = ft__remote_tick(rm, now);
		if (deadline != 0 && (wake == 0 || deadline < wake))
			wake = deadline;
		np = ft__remote_pollfds(rm, p);
		if (poll(p, np, wake == 0 ? 1000 : (int)((wake > now ? wake -
		    now : 0) / 1000000 + 1)) < 0 && errno != EINTR)
			ft_die(FT_EXIT_TEMP, "poll");
		ft__remote_io(rm, p, np);
	}
	free(p);
	return rm->failed;
}

void
ft__remote_signal(struct ft__remote *rm, uint32_t proc, int sig)
{
	struct ft_msg_job_signal m;
	struct ft_wbuf wb;
	struct rhost *rh;

	if (proc >= rm->nprocs)
		return;
	rh = &rm->h[rm->host_of[proc]];
	if (!rh->up || rh->done)
		return;
	m.signo = (uint32_t)sig;
	m.n = 1;
	m.ids = &proc;
	ft_wbuf_init(&wb);
	send_wb(rm, rh, &wb, ft_msg_job_signal_encode(&wb, FT_WIRE_LAUNCHER,
	    &m));
	if (!rh->lost)
		(void)ft_conn_flush(&rh->c);
}

ssize_t
ft__remote_input(struct ft__remote *rm, uint32_t proc, const uint8_t *buf,
    size_t len, int eof)
{
	struct ft_msg_job_input m;
	struct ft_wbuf wb;
	struct rhost *rh;
	size_t room;

	if (proc >= FT_REPLICAS_MAX || proc >= rm->nprocs)
		return -1;
	rh = &rm->h[rm->host_of[proc]];
	if (!rh->up || rh->done || rh->lost || rm->in_closed[proc])
		return -1;
	room = FT_JOB_INPUT_WINDOW - (size_t)(rm->in_sent[proc] -
	    rm->in_taken[proc]);
	if (len > room)
		len = room;
	if (len > FT_JOB_INPUT_MAX)
		len = FT_JOB_INPUT_MAX;
	if (len == 0 && !eof)
		return 0;
	m = (struct ft_msg_job_input){ proc, eof && len == 0 ?
	    FT_JOB_INPUT_EOF : 0, 0, buf, len };
	ft_wbuf_init(&wb);
	send_wb(rm, rh, &wb, ft_msg_job_input_encode(&wb, FT_WIRE_LAUNCHER,
	    &m));
	if (rh->lost)
		return -1;
	rm->in_sent[proc] += len;
	return (ssize_t)len;
}

int
ft__remote_busy(const struct ft__remote *rm)
{
	size_t i;

	for (i = 0; i < rm->n; i++)
		if (rm->h[i].up && (!rm->h[i].done || rm->h[i].closing))
			return 1;
	return 0;
}

void
ft__remote_free(struct ft__remote *rm)
{
	size_t i;

	if (rm == NULL)
		return;
	if (rm->det_state == DET_RUN)
		ft__det_stop(&rm->det);
	sodium_memzero(rm->key, sizeof(rm->key));
	free(rm->member_host);
	for (i = 0; i < rm->n; i++)
		if (rm->h[i].c.fd != -1 || rm->h[i].c.ibuf != NULL)
			ft_conn_release(&rm->h[i].c);
	for (i = 0; rm->files != NULL && i < rm->nfiles; i++)
		if (rm->files[i].fd != -1)
			close(rm->files[i].fd);
	free(rm->files);
	free(rm->h);
	free(rm->st);
	free(rm->beats);
	free(rm->pids);
	free(rm->host_of);
	free(rm->respawning);
	free(rm);
}

/* Restarts across hosts (relocate.h) ------------------------------- */

void
ft__remote_setenv(struct ft__remote *rm, char **env, size_t n)
{
	rm->env = env;
	rm->nenv = n;
}

uint32_t
ft__remote_alive(const struct ft__remote *rm, uint8_t *alive)
{
	size_t i;

	for (i = 0; i < rm->n; i++)
		alive[i] = rm->h[i].up && rm->h[i].started &&
		    !rm->h[i].lost && !rm->h[i].done;
	return (uint32_t)rm->n;
}

int
ft__remote_respawn(struct ft__remote *rm, uint32_t host,
    const struct ft_msg_job_respawn *m)
{
	uint32_t proc = m->id;
	struct ft_wbuf wb;
	struct rhost *rh;

	if (proc >= rm->nprocs || host >= rm->n) {
		errno = EINVAL;
		return -1;
	}
	rh = &rm->h[host];
	if (!rh->up || !rh->started || rh->lost || rh->done) {
		errno = EHOSTDOWN;
		return -1;
	}
	ft_wbuf_init(&wb);
	send_wb(rm, rh, &wb, ft_msg_job_respawn_encode(&wb, FT_WIRE_LAUNCHER,
	    m));
	if (rh->lost) {
		errno = EHOSTDOWN;
		return -1;
	}
	(void)ft_conn_flush(&rh->c);
	rm->host_of[proc] = host;
	rm->respawning[proc] = 1;
	/* A restarted process reads no input: it went to the first. */
	if (proc < FT_REPLICAS_MAX)
		rm->in_closed[proc] = 1;
	return 0;
}

void
ft__remote_release(struct ft__remote *rm)
{
	struct ft_wbuf wb;
	size_t i;

	if (rm->released)
		return;
	rm->released = 1;
	for (i = 0; i < rm->n; i++) {
		if (!rm->h[i].up || rm->h[i].lost || rm->h[i].done)
			continue;
		ft_wbuf_init(&wb);
		send_wb(rm, &rm->h[i], &wb, ft_msg_empty_encode(&wb,
		    FT_WIRE_LAUNCHER, FT_MSG_JOB_RELEASE));
		if (!rm->h[i].lost)
			(void)ft_conn_flush(&rm->h[i].c);
	}
}
