/* SPDX-License-Identifier: ISC */
/*
 * The checkpoint server (ftckpt serve): a store directory served to
 * authenticated clients through lib/net's server loop.  An upload is
 * written to a temporary file of its own, checked whole (header, every
 * byte decompressed, checksums) once its last byte is in, then
 * fsynced, renamed into place and the directory fsynced, and only then
 * acknowledged: a connection lost midway leaves nothing behind, and a
 * reader never sees half an image.  Downloads are sent a chunk at a
 * time while the connection's queue is short, from a file opened at the
 * request (a concurrent rm or prune cannot tear it).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../net/serve.h"
#include "store.h"

#define SEND_QUEUE	(4u << 20)	/* download output queued at most */
#define CKPTD_HS_MAX	1024		/* a job's ranks connect at once */
#define LEASES_MAX	64		/* leases held for one connection */

struct ckptd;

/* The server's state of a connection (sc->user). */
struct cconn {
	/* An upload in progress. */
	int		 up_fd;		/* its temporary file, or -1 */
	int		 up_dirfd;	/* its rank directory */
	uint32_t	 up_reqid;
	uint64_t	 up_job, up_epoch, up_size, up_got;
	uint32_t	 up_rank;
	char		 up_tmp[FT_CKPT_NAME_MAX];
	char		 up_name[FT_CKPT_NAME_MAX];
	/* A download in progress. */
	int		 dn_fd;
	uint32_t	 dn_reqid;
	uint64_t	 dn_left;
	/* Leases held for the client (PIN). */
	int		 lease[LEASES_MAX];
	uint64_t	 lease_job[LEASES_MAX];
	uint32_t	 lease_rank[LEASES_MAX];
	size_t		 nlease;
};

struct ckptd {
	const struct ft_ckptd_cfg *cfg;
	struct ft__srv		 srv;
	struct ft_wbuf		 wb;
	uint8_t			*chunk;		/* FT_CKPT_CHUNK */
	struct ft_ckpt_ent	*ents;		/* FT_CKPT_ENTRIES_MAX */
	struct ft_ratelim	 rl;
	char			 why[FT_LOG_WHY];
};

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t
err_code(int err)
{
	switch (err) {
	case ENOENT:
		return FT_CKPT_ENOENT;
	case ENOSPC:
	case EDQUOT:
		return FT_CKPT_ENOSPC;
	case ENOMEM:
		return FT_CKPT_ENOMEM;
	case EINVAL:
		return FT_CKPT_EINVAL;
	case EPROTO:
	case EBADMSG:
	case ENOTSUP:
	case EMSGSIZE:
		return FT_CKPT_ECORRUPT;
	default:
		return FT_CKPT_EIO;
	}
}

static int
send_result(struct ckptd *d, struct ft__srv_conn *sc, uint32_t reqid,
    uint32_t code, const char *text)
{
	struct ft_msg_ckpt_result m;

	memset(&m, 0, sizeof(m));
	m.reqid = reqid;
	m.code = code;
	snprintf(m.text, sizeof(m.text), "%s", text);
	if (ft_msg_ckpt_result_encode(&d->wb, FT_WIRE_LAUNCHER, &m) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

/* Entries in frames of FT_CKPT_ENTRIES_MAX, the last one LAST. */
static int
send_entries(struct ckptd *d, struct ft__srv_conn *sc, uint32_t reqid,
    struct ft_ckpt_ent *e, size_t n)
{
	struct ft_msg_ckpt_entries m;
	size_t off = 0;

	do {
		m.reqid = reqid;
		m.n = n - off > FT_CKPT_ENTRIES_MAX ? FT_CKPT_ENTRIES_MAX :
		    (uint32_t)(n - off);
		m.flags = off + m.n == n ? FT_CKPT_LAST : 0;
		m.e = e + off;
		if (ft_msg_ckpt_entries_encode(&d->wb, FT_WIRE_LAUNCHER,
		    &m) != 0 || ft__srv_send(sc, &d->wb) != 0)
			return -1;
		off += m.n;
	} while (off < n);
	return 0;
}

static void
up_abort(struct cconn *cc)
{
	if (cc->up_fd < 0)
		return;
	(void)unlinkat(cc->up_dirfd, cc->up_tmp, 0);
	close(cc->up_fd);
	close(cc->up_dirfd);
	cc->up_fd = -1;
	cc->up_dirfd = -1;
}

static int
on_put(struct ckptd *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct cconn *cc = sc->user;
	struct ft_msg_ckpt_put m;
	char name[FT_CKPT_NAME_MAX], *slash;
	uint64_t nonce;
	int dfd;

	if (ft_msg_ckpt_put_decode(body, len, &m) != 0)
		return -1;
	if (cc->up_fd >= 0 || cc->dn_fd >= 0) {
		errno = EPROTO;
		return -1;
	}
	(void)ft_ckpt_name(name, sizeof(name), m.job, m.rank, m.epoch);
	slash = strrchr(name, '/');
	if ((dfd = ft__ckpt_rankdir(d->cfg->dir, m.job, m.rank, d->why,
	    sizeof(d->why))) < 0)
		return send_result(d, sc, m.reqid, err_code(errno), d->why);
	/* A temporary name of its own: uploads of one image may race. */
	ft_random(&nonce, sizeof(nonce));
	snprintf(cc->up_name, sizeof(cc->up_name), "%s", slash + 1);
	snprintf(name, sizeof(name), "%s.%016" PRIx64, slash + 1, nonce);
	if ((cc->up_fd = ft_store_tmp(dfd, name, cc->up_tmp,
	    sizeof(cc->up_tmp))) < 0) {
		close(dfd);
		return send_result(d, sc, m.reqid, err_code(errno),
		    strerror(errno));
	}
	cc->up_dirfd = dfd;
	cc->up_reqid = m.reqid;
	cc->up_job = m.job;
	cc->up_rank = m.rank;
	cc->up_epoch = m.epoch;
	cc->up_size = m.size;
	cc->up_got = 0;
	return 0;
}

/* The last byte is in: check the image, commit it, answer. */
static int
up_finish(struct ckptd *d, struct ft__srv_conn *sc)
{
	struct cconn *cc = sc->user;
	struct ft_ckpt_hdr *h;
	char text[FT_WIRE_TEXT_MAX];
	uint32_t reqid = cc->up_reqid;
	int rc;

	if ((h = malloc(sizeof(*h))) == NULL) {
		up_abort(cc);
		return send_result(d, sc, reqid, FT_CKPT_ENOMEM,
		    "out of memory");
	}
	rc = ft_ckpt_verify(cc->up_dirfd, cc->up_tmp, h, d->why,
	    sizeof(d->why));
	if (rc == 0 && (h->job != cc->up_job || h->rank != cc->up_rank ||
	    h->epoch != cc->up_epoch)) {
		snprintf(d->why, sizeof(d->why), "the image is of job %016"
		    PRIx64 " rank %u epoch %" PRIu64 ", not the one announced",
		    h->job, h->rank, h->epoch);
		errno = EINVAL;
		rc = -1;
	}
	free(h);
	if (rc != 0) {
		snprintf(text, sizeof(text), "upload refused: %s", d->why);
		rc = errno;
		up_abort(cc);
		ft_warnx_limited(&d->rl, "connection from %s: %s", sc->ip,
		    text);
		return send_result(d, sc, reqid, err_code(rc), text);
	}
	if (ft_store_commit(cc->up_dirfd, cc->up_fd, cc->up_tmp,
	    cc->up_name) != 0) {
		rc = errno;
		snprintf(text, sizeof(text), "image '%s': %s", cc->up_name,
		    strerror(rc));
		close(cc->up_fd);
		close(cc->up_dirfd);
		cc->up_fd = cc->up_dirfd = -1;
		return send_result(d, sc, reqid, err_code(rc), text);
	}
	close(cc->up_fd);
	close(cc->up_dirfd);
	cc->up_fd = cc->up_dirfd = -1;
	ft_debug("stored job %016" PRIx64 " rank %u epoch %" PRIu64,
	    cc->up_job, cc->up_rank, cc->up_epoch);
	return send_result(d, sc, reqid, 0, "");
}

static int
on_data(struct ckptd *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct cconn *cc = sc->user;
	struct ft_msg_ckpt_data m;
	char text[FT_WIRE_TEXT_MAX];
	int err;

	if (ft_msg_ckpt_data_decode(body, len, &m) != 0)
		return -1;
	if (cc->up_fd < 0 || m.reqid != cc->up_reqid ||
	    m.len > cc->up_size - cc->up_got) {
		up_abort(cc);
		errno = EPROTO;
		return -1;
	}
	if (ft_store_write(cc->up_fd, m.data, m.len) != 0) {
		err = errno;
		snprintf(text, sizeof(text), "image '%s': %s", cc->up_tmp,
		    strerror(err));
		ft_warnx_limited(&d->rl, "%s", text);
		up_abort(cc);
		return send_result(d, sc, m.reqid, err_code(err), text);
	}
	cc->up_got += m.len;
	if (cc->up_got == cc->up_size)
		return up_finish(d, sc);
	return 0;
}

static int
on_get(struct ckptd *d, struct ft__srv_conn *sc,
    const struct ft_msg_ckpt_req *q)
{
	struct cconn *cc = sc->user;
	struct ft_msg_ckpt_put m;
	struct ft_ckpt_ent *e;
	struct stat st;
	char name[FT_CKPT_NAME_MAX], path[PATH_MAX];
	uint64_t epoch = q->epoch;
	size_t n, i;

	if (cc->dn_fd >= 0 || cc->up_fd >= 0) {
		errno = EPROTO;
		return -1;
	}
	if (epoch == 0) {
		/* The newest complete image of the rank. */
		if (ft_ckpt_scan(d->cfg->dir, 0, q->job, 0, q->rank, &e, &n,
		    d->why, sizeof(d->why)) != 0)
			return send_result(d, sc, q->reqid, err_code(errno),
			    d->why);
		for (i = n; i > 0 && epoch == 0; i--)
			if (e[i - 1].state == FT_CKPT_OK)
				epoch = e[i - 1].epoch;
		free(e);
		if (epoch == 0)
			return send_result(d, sc, q->reqid, FT_CKPT_ENOENT,
			    "no complete image of that rank");
	}
	(void)ft_ckpt_name(name, sizeof(name), q->job, q->rank, epoch);
	snprintf(path, sizeof(path), "%s/%s", d->cfg->dir, name);
	if ((cc->dn_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(cc->dn_fd, &st) != 0 || st.st_size == 0) {
		snprintf(d->why, sizeof(d->why), "image '%s': %s", name,
		    errno != 0 ? strerror(errno) : "empty");
		if (cc->dn_fd >= 0)
			close(cc->dn_fd);
		cc->dn_fd = -1;
		return send_result(d, sc, q->reqid, FT_CKPT_ENOENT, d->why);
	}
	m.reqid = q->reqid;
	m.job = q->job;
	m.rank = q->rank;
	m.epoch = epoch;
	m.size = (uint64_t)st.st_size;
	cc->dn_reqid = q->reqid;
	cc->dn_left = m.size;
	if (ft_msg_ckpt_put_encode(&d->wb, FT_WIRE_LAUNCHER, &m) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

/* Send the next chunk of sc's download: -1 to close. */
static int
dn_step(struct ckptd *d, struct ft__srv_conn *sc)
{
	struct cconn *cc = sc->user;
	struct ft_msg_ckpt_data m;
	ssize_t n;
	size_t want;

	want = cc->dn_left > FT_CKPT_CHUNK ? FT_CKPT_CHUNK :
	    (size_t)cc->dn_left;
	do
		n = read(cc->dn_fd, d->chunk, want);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		/* The client sees a short image and refuses it. */
		ft_warnx_limited(&d->rl, "connection from %s: a download "
		    "failed: %s", sc->ip, n < 0 ? strerror(errno) :
		    "the file is shorter than it was");
		return -1;
	}
	m.reqid = cc->dn_reqid;
	m.data = d->chunk;
	m.len = (size_t)n;
	cc->dn_left -= (uint64_t)n;
	if (cc->dn_left == 0) {
		close(cc->dn_fd);
		cc->dn_fd = -1;
	}
	if (ft_msg_ckpt_data_encode(&d->wb, FT_WIRE_LAUNCHER, &m) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

static int
on_list(struct ckptd *d, struct ft__srv_conn *sc,
    const struct ft_msg_ckpt_req *q, int verify)
{
	struct ft_ckpt_ent *e;
	char name[FT_CKPT_NAME_MAX], first[FT_LOG_WHY];
	size_t n, i, bad = 0;
	int rc, dfd = -1;

	if (ft_ckpt_scan(d->cfg->dir, (q->flags & FT_CKPT_ALLJOBS) != 0,
	    q->job, (q->flags & FT_CKPT_ALLRANKS) != 0, q->rank, &e, &n,
	    d->why, sizeof(d->why)) != 0)
		return send_result(d, sc, q->reqid, err_code(errno), d->why);
	first[0] = '\0';
	if (verify && (dfd = open(d->cfg->dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0) {
		free(e);
		return send_result(d, sc, q->reqid, err_code(errno),
		    strerror(errno));
	}
	if (verify) {
		/* One image, or all of them: each decompressed whole. */
		for (i = 0; i < n; i++) {
			if (q->epoch != 0 && e[i].epoch != q->epoch) {
				e[i].epoch = 0;
				continue;
			}
			(void)ft_ckpt_name(name, sizeof(name), e[i].job,
			    e[i].rank, e[i].epoch);
			if (ft_ckpt_verify(dfd, name, NULL, d->why,
			    sizeof(d->why)) == 0)
				continue;
			e[i].state = FT_CKPT_BAD;
			if (bad++ == 0)
				snprintf(first, sizeof(first), "%s", d->why);
		}
		for (i = 0; i < n;)
			if (e[i].epoch == 0)
				e[i] = e[--n];
			else
				i++;
		close(dfd);
	}
	rc = send_entries(d, sc, q->reqid, e, n);
	free(e);
	if (rc != 0 || !verify)
		return rc;
	if (n == 0)
		return send_result(d, sc, q->reqid, FT_CKPT_ENOENT,
		    "no such image");
	return send_result(d, sc, q->reqid, bad > 0 ? FT_CKPT_ECORRUPT : 0,
	    first);
}

static int
on_prune(struct ckptd *d, struct ft__srv_conn *sc,
    const struct ft_msg_ckpt_req *q)
{
	struct ft_ckpt_prune p;
	struct ft_ckpt_ent *e;
	size_t n;
	int rc, err;

	memset(&p, 0, sizeof(p));
	p.alljobs = (q->flags & FT_CKPT_ALLJOBS) != 0;
	p.job = q->job;
	p.keep = q->keep;
	p.older_ns = q->older_ns;
	p.now_ns = realtime_ns();
	p.dryrun = (q->flags & FT_CKPT_DRYRUN) != 0;
	if (p.keep == 0 && p.older_ns == 0)
		return send_result(d, sc, q->reqid, FT_CKPT_EINVAL,
		    "prune needs a count to keep or an age");
	rc = ft_ckpt_prune(d->cfg->dir, &p, &e, &n, d->why, sizeof(d->why));
	err = errno;
	if (e != NULL && send_entries(d, sc, q->reqid, e, n) != 0) {
		free(e);
		return -1;
	}
	free(e);
	return send_result(d, sc, q->reqid, rc != 0 ? err_code(err) : 0,
	    rc != 0 ? d->why : "");
}

static int
on_pin(struct ckptd *d, struct ft__srv_conn *sc,
    const struct ft_msg_ckpt_req *q)
{
	struct cconn *cc = sc->user;
	size_t i;
	int fd;

	for (i = 0; i < cc->nlease; i++)
		if (cc->lease_job[i] == q->job && cc->lease_rank[i] == q->rank)
			break;
	if (i == LEASES_MAX)
		return send_result(d, sc, q->reqid, FT_CKPT_EINVAL,
		    "too many leases on one connection");
	fd = ft_ckpt_lease(d->cfg->dir, q->job, q->rank, q->epoch,
	    i < cc->nlease ? cc->lease[i] : -1, d->why, sizeof(d->why));
	if (fd < 0)
		return send_result(d, sc, q->reqid, err_code(errno), d->why);
	if (i == cc->nlease) {
		cc->lease[i] = fd;
		cc->lease_job[i] = q->job;
		cc->lease_rank[i] = q->rank;
		cc->nlease++;
	}
	return send_result(d, sc, q->reqid, 0, "");
}

/*
 * ckptsrv2: a rank's GC (store.h, ft_ckpt_gc_decide).  Idempotent: a
 * GC lost, repeated or overtaken by a newer one is harmless; errors are
 * answered, the connection stays.
 */
static int
on_gc(struct ckptd *d, struct ft__srv_conn *sc,
    const struct ft_msg_ckpt_req *q)
{
	char text[64];
	size_t n;

	if (ft_ckpt_gc(d->cfg->dir, q->job, q->rank, q->epoch, q->keep, &n,
	    d->why, sizeof(d->why)) != 0)
		return send_result(d, sc, q->reqid, err_code(errno), d->why);
	if (n > 0)
		ft_debug("gc: job %016" PRIx64 " rank %u: %zu images below "
		    "epoch %" PRIu64 " removed", q->job, q->rank, n, q->epoch);
	snprintf(text, sizeof(text), "%zu removed", n);
	return send_result(d, sc, q->reqid, 0, text);
}

static int
on_req(struct ckptd *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft_msg_ckpt_req q;
	struct cconn *cc = sc->user;

	if (ft_msg_ckpt_req_decode(body, len, &q) != 0)
		return -1;
	if (cc->up_fd >= 0) {
		errno = EPROTO;
		return -1;
	}
	switch (q.op) {
	case FT_CKPT_LIST:
		return on_list(d, sc, &q, 0);
	case FT_CKPT_VERIFY:
		return on_list(d, sc, &q, 1);
	case FT_CKPT_GET:
		return on_get(d, sc, &q);
	case FT_CKPT_RM:
		if (ft_ckpt_rm(d->cfg->dir, q.job, q.rank, q.epoch, d->why,
		    sizeof(d->why)) != 0)
			return send_result(d, sc, q.reqid, err_code(errno),
			    d->why);
		return send_result(d, sc, q.reqid, 0, "");
	case FT_CKPT_PRUNE:
		return on_prune(d, sc, &q);
	case FT_CKPT_PIN:
		return on_pin(d, sc, &q);
	case FT_CKPT_GC:
		return on_gc(d, sc, &q);
	}
	errno = EPROTO;
	return -1;
}

static struct cconn *
cconn_new(void)
{
	struct cconn *cc = calloc(1, sizeof(*cc));

	if (cc != NULL)
		cc->up_fd = cc->up_dirfd = cc->dn_fd = -1;
	return cc;
}

static int
on_frame(struct ft__srv *s, struct ft__srv_conn *sc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct ckptd *d = s->arg;
	size_t len = h->len - FT_WIRE_HDRLEN;
	int rc;

	if (sc->user == NULL && (sc->user = cconn_new()) == NULL)
		return -1;
	switch (h->type) {
	case FT_MSG_CKPT_REQ:
		rc = on_req(d, sc, body, len);
		break;
	case FT_MSG_CKPT_PUT:
		rc = on_put(d, sc, body, len);
		break;
	case FT_MSG_CKPT_DATA:
		rc = on_data(d, sc, body, len);
		break;
	default:
		errno = EPROTO;
		rc = -1;
	}
	if (rc != 0 && errno == EPROTO)
		ft_warnx_limited(&s->rl, "checkpoint server: connection from "
		    "%s: a malformed or unexpected %s frame; closed", sc->ip,
		    ft_msg_name(h->type));
	return rc;
}

static void
on_gone(struct ft__srv *s, struct ft__srv_conn *sc)
{
	struct cconn *cc = sc->user;
	size_t i;

	if (cc == NULL)
		return;
	up_abort(cc);
	if (cc->dn_fd >= 0)
		close(cc->dn_fd);
	for (i = 0; i < cc->nlease; i++)
		close(cc->lease[i]);
	free(cc);
	sc->user = NULL;
}

static int
role_ok(uint8_t role)
{
	return role == FT_ROLE_CKPT || role == FT_ROLE_RANK;
}

static uint64_t
tick(struct ft__srv *s)
{
	struct ckptd *d = s->arg;
	struct ft__srv_conn *sc;
	struct cconn *cc;
	size_t i;

	for (i = 0; i < s->n; i++) {
		sc = s->conn[i];
		cc = sc->user;
		while (cc != NULL && cc->dn_fd >= 0 && !sc->closing &&
		    sc->c.oq_bytes < SEND_QUEUE)
			if (dn_step(d, sc) != 0)
				sc->closing = 1;
	}
	ft_ratelim_flush(&d->rl, 0);
	return 0;
}

int
ft_ckptd_serve(const struct ft_ckptd_cfg *cfg, char *why, size_t whysize)
{
	struct ckptd d;
	int dfd, lockfd, rc, saved;

	memset(&d, 0, sizeof(d));
	d.cfg = cfg;
	if ((dfd = open(cfg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		saved = errno;
		snprintf(why, whysize, "checkpoint directory '%s': %s",
		    cfg->dir, strerror(saved));
		errno = saved;
		return -1;
	}
	lockfd = ft__store_lock(dfd, cfg->dir, "ftckpt.lock",
	    "checkpoint directory", "server", why, whysize);
	saved = errno;
	close(dfd);
	errno = saved;
	if (lockfd < 0)
		return -1;
	/* What an upload cut off by our own end left. */
	(void)ft_ckpt_clean_tmp(cfg->dir);
	d.chunk = malloc(FT_CKPT_CHUNK);
	if (d.chunk == NULL) {
		close(lockfd);
		snprintf(why, whysize, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	ft_wbuf_init(&d.wb);
	ft_ratelim_init(&d.rl, "checkpoint warnings", FT_HS_WARN_BURST,
	    FT_HS_WARN_NS);
	d.srv.lfd = cfg->lfd;
	d.srv.key = cfg->key;
	d.srv.who = "checkpoint server";
	d.srv.max_conns = cfg->max_conns;
	d.srv.max_hs = CKPTD_HS_MAX;
	d.srv.role_ok = role_ok;
	d.srv.frame = on_frame;
	d.srv.tick = tick;
	d.srv.gone = on_gone;
	d.srv.arg = &d;
	d.srv.stop = cfg->stop;
	if (cfg->ready != NULL)
		cfg->ready(cfg->ready_arg);
	rc = ft__srv_run(&d.srv);
	saved = errno;
	if (rc != 0)
		snprintf(why, whysize, "the server loop: %s", strerror(saved));
	ft__srv_release(&d.srv);
	ft_ratelim_flush(&d.rl, 1);
	free(d.chunk);
	ft_wbuf_release(&d.wb);
	close(lockfd);
	errno = saved;
	return rc;
}
