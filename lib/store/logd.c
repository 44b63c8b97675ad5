/* SPDX-License-Identifier: ISC */
/*
 * The event logger (ftlog serve): rank logs under one directory, served
 * to authenticated clients through lib/net's server loop.  Appends are
 * committed in groups: every APPEND read in one turn of the loop is
 * written, each rank log touched is fsynced once, and only then are
 * the ACKs sent (--sync batch); --sync always does the same for each
 * APPEND alone; --sync memory writes the group (to the kernel: it
 * survives the logger's crash) and acknowledges before any fsync, which
 * follows every second.  FETCH answers stream from the segment files, a chunk at a
 * time while the connection's queue is short, so that a restarting
 * rank's whole log is never held in memory.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../net/serve.h"
#include "../proto/proto.h"
#include "store.h"

_Static_assert(FT_DET_KIND_MAX == FT_ND_KIND_MAX,
    "a determinant's kinds are the protocol's nondeterministic events");

#define MEMSYNC_NS	1000000000ull	/* --sync memory: fsync period */
#define FETCH_QUEUE	(1u << 20)	/* fetch output queued at most */
#define LOGD_HS_MAX	1024		/* connections in the handshake */

struct logd;

/* A fetch in progress on a connection. */
struct fetch {
	struct fetch		*next;
	uint32_t		 reqid;
	struct ft_rlog		*rl;
	uint64_t		 from_seq, from_clock;
	uint64_t		 limit;		/* last seq to send */
	size_t			 seg;		/* index in rl->segs */
	int			 fd;		/* of segment seg, or -1 */
	struct ft_seg_reader	 r;
};

/* The logger's state of a connection (sc->user). */
struct lconn {
	struct ft_rlog		**want;		/* ACKs due after the group */
	size_t			 nwant, capwant;
	struct fetch		*fq;		/* fetches, in order */
};

/* The logger's state of a rank log (rl->user). */
struct rstate {
	int		 listed;	/* in d->dirty */
	uint32_t	 inc;		/* newest incarnation seen (issue 13) */
	int		 failed;	/* this group: code, text */
	uint32_t	 code;
	char		 text[FT_LOG_WHY];
};

struct logd {
	const struct ft_logd_cfg *cfg;
	int			 dirfd;
	struct ft__srv		 srv;
	struct ft_rlog		**tab;		/* open addressing */
	size_t			 tabcap, ntab;
	struct ft_rlog		**dirty;	/* touched in this group */
	size_t			 ndirty, capdirty;
	struct ft_det		*dets;		/* FT_LOG_BATCH_MAX */
	struct ft_log_ack	*acks;		/* FT_LOG_ACK_MAX */
	struct ft_wbuf		 wb;
	uint64_t		 next_sync;	/* --sync memory */
	struct ft_ratelim	 rl;		/* disk warnings */
	char			 why[FT_LOG_WHY];
};

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
ft_log_sync_parse(const char *s, enum ft_log_sync *m)
{
	if (strcmp(s, "always") == 0)
		*m = FT_LOG_SYNC_ALWAYS;
	else if (strcmp(s, "batch") == 0)
		*m = FT_LOG_SYNC_BATCH;
	else if (strcmp(s, "memory") == 0)
		*m = FT_LOG_SYNC_MEMORY;
	else {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

const char *
ft_log_sync_name(enum ft_log_sync m)
{
	switch (m) {
	case FT_LOG_SYNC_ALWAYS:
		return "always";
	case FT_LOG_SYNC_BATCH:
		return "batch";
	case FT_LOG_SYNC_MEMORY:
		return "memory";
	}
	return "unknown";
}

static size_t
hash(uint64_t job, uint32_t rank, size_t cap)
{
	uint64_t h = (job ^ ((uint64_t)rank << 32 | rank)) *
	    0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

static int
tab_put(struct logd *d, struct ft_rlog *rl)
{
	struct ft_rlog **nt, **ot = d->tab;
	size_t i, ncap, ocap = d->tabcap;

	if ((d->ntab + 1) * 2 > d->tabcap) {
		ncap = d->tabcap > 0 ? d->tabcap * 2 : 64;
		if ((nt = calloc(ncap, sizeof(*nt))) == NULL)
			return -1;
		d->tab = nt;
		d->tabcap = ncap;
		d->ntab = 0;
		for (i = 0; i < ocap; i++)
			if (ot[i] != NULL)
				(void)tab_put(d, ot[i]);
		free(ot);
	}
	for (i = hash(rl->job, rl->rank, d->tabcap); d->tab[i] != NULL;
	    i = (i + 1) & (d->tabcap - 1))
		;
	d->tab[i] = rl;
	d->ntab++;
	return 0;
}

static struct ft_rlog *
tab_get(const struct logd *d, uint64_t job, uint32_t rank)
{
	size_t i;

	if (d->tabcap == 0)
		return NULL;
	for (i = hash(job, rank, d->tabcap); d->tab[i] != NULL;
	    i = (i + 1) & (d->tabcap - 1))
		if (d->tab[i]->job == job && d->tab[i]->rank == rank)
			return d->tab[i];
	return NULL;
}

/* What an ACK may say is held: written (memory), else synced. */
static uint64_t
held_seq(const struct logd *d, const struct ft_rlog *rl)
{
	return d->cfg->sync == FT_LOG_SYNC_MEMORY ? rl->written_seq :
	    rl->durable_seq;
}

static uint64_t
held_clock(const struct logd *d, const struct ft_rlog *rl)
{
	return d->cfg->sync == FT_LOG_SYNC_MEMORY ? rl->written_clock :
	    rl->durable_clock;
}

static int
send_error(struct logd *d, struct ft__srv_conn *sc, uint32_t reqid,
    uint64_t job, uint32_t rank, uint32_t code, uint64_t seq,
    const char *text)
{
	struct ft_msg_log_error m;

	memset(&m, 0, sizeof(m));
	m.reqid = reqid;
	m.job = job;
	m.rank = rank;
	m.code = code;
	m.seq = seq;
	snprintf(m.text, sizeof(m.text), "%s", text);
	if (ft_msg_log_error_encode(&d->wb, FT_WIRE_LAUNCHER, &m) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

static int
send_ack(struct logd *d, struct ft__srv_conn *sc, uint32_t n)
{
	struct ft_msg_log_ack m;

	if (n == 0)
		return 0;
	m.n = n;
	m.e = d->acks;
	if (ft_msg_log_ack_encode(&d->wb, FT_WIRE_LAUNCHER, &m) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

static uint32_t
err_code(int err)
{
	switch (err) {
	case ENOSPC:
	case EDQUOT:
		return FT_LOG_ENOSPC;
	case ENOENT:
	case ESTALE:
		return FT_LOG_EGONE;
	case ENOMEM:
		return FT_LOG_ENOMEM;
	case EILSEQ:
	case EPROTO:
	case EBADMSG:
	case ENOTSUP:
	case EMSGSIZE:
		return FT_LOG_ECORRUPT;
	default:
		return FT_LOG_EIO;
	}
}

/*
 * The rank log of job/rank, opened (and checked) at first use.  NULL
 * with d->why on a corrupt or unreadable log: it is tried again at the
 * next request, so that a repaired log is served without a restart.
 */
static struct ft_rlog *
rlog_open(struct logd *d, uint64_t job, uint32_t rank)
{
	struct ft_rlog *rl;
	struct rstate *rs;

	if ((rl = tab_get(d, job, rank)) != NULL)
		return rl;
	rl = ft_rlog_open(d->dirfd, d->cfg->dir, job, rank, d->cfg->segsize,
	    d->why, sizeof(d->why));
	if (rl == NULL) {
		if (errno == ENOMEM)
			snprintf(d->why, sizeof(d->why), "out of memory");
		ft_warnx_limited(&d->rl, "%s", d->why);
		return NULL;
	}
	if ((rs = calloc(1, sizeof(*rs))) == NULL || tab_put(d, rl) != 0) {
		free(rs);
		ft_rlog_free(rl);
		errno = ENOMEM;
		snprintf(d->why, sizeof(d->why), "out of memory");
		return NULL;
	}
	rl->user = rs;
	return rl;
}

/*
 * rlog_open for a request of sc: NULL after an ERROR of reqid went to
 * sc, *rc saying whether that could be sent.
 */
static struct ft_rlog *
rlog_get(struct logd *d, struct ft__srv_conn *sc, uint32_t reqid,
    uint64_t job, uint32_t rank, int *rc)
{
	struct ft_rlog *rl;

	if ((rl = rlog_open(d, job, rank)) == NULL)
		*rc = send_error(d, sc, reqid, job, rank, err_code(errno), 0,
		    d->why);
	return rl;
}

static int
list_dirty(struct logd *d, struct ft_rlog *rl)
{
	struct rstate *rs = rl->user;
	struct ft_rlog **nv;

	if (rs->listed)
		return 0;
	if ((nv = ft_grow(d->dirty, &d->capdirty, d->ndirty,
	    sizeof(*d->dirty))) == NULL)
		return -1;
	d->dirty = nv;
	d->dirty[d->ndirty++] = rl;
	rs->listed = 1;
	return 0;
}

static int
want_ack(struct lconn *lc, struct ft_rlog *rl)
{
	struct ft_rlog **nv;
	size_t i;

	for (i = 0; i < lc->nwant; i++)
		if (lc->want[i] == rl)
			return 0;
	if ((nv = ft_grow(lc->want, &lc->capwant, lc->nwant,
	    sizeof(*lc->want))) == NULL)
		return -1;
	lc->want = nv;
	lc->want[lc->nwant++] = rl;
	return 0;
}

static void
ack_one(struct logd *d, const struct ft_rlog *rl)
{
	d->acks[0].job = rl->job;
	d->acks[0].rank = rl->rank;
	d->acks[0].seq = held_seq(d, rl);
	d->acks[0].clock = held_clock(d, rl);
}

/*
 * Write rl now, and fsync it unless --sync memory: 0, or -1 with
 * rs->code and rs->text.
 */
static int
commit(struct logd *d, struct ft_rlog *rl)
{
	struct rstate *rs = rl->user;

	if (ft_rlog_write(rl, rs->text, sizeof(rs->text)) == 0 &&
	    (d->cfg->sync == FT_LOG_SYNC_MEMORY ||
	    ft_rlog_sync(rl, rs->text, sizeof(rs->text)) == 0))
		return 0;
	rs->failed = 1;
	rs->code = err_code(errno);
	ft_warnx_limited(&d->rl, "%s", rs->text);
	return -1;
}

/*
 * The incarnation fence (issue 13).  A restarted rank's process
 * announces its incarnation in its QUERY and APPENDs; from then on the
 * logger refuses those of an older one, whose appends may still be on
 * their way (sent before it died, read after).  Else they would be
 * taken after the new process learnt what the log holds, and its own
 * appends refused as out of sequence, or worse, stale records taken as
 * its.  What the older one appended before is written at once, so that
 * the newer one's answer holds it and its own appends follow it.  The
 * fence is kept in memory: a logger that restarts has closed every
 * connection of a dead process, whose frames die with them.  Returns
 * 1 after an ERROR went to sc (*rc: could it be sent), or 0.
 */
static int
fence(struct logd *d, struct ft__srv_conn *sc, struct ft_rlog *rl,
    uint32_t inc, int *rc)
{
	struct rstate *rs = rl->user;
	char text[160];

	if (inc < rs->inc) {
		snprintf(text, sizeof(text), "incarnation %u of rank %u is "
		    "superseded by incarnation %u: its records are refused",
		    inc, rl->rank, rs->inc);
		*rc = send_error(d, sc, 0, rl->job, rl->rank, FT_LOG_ESTALE,
		    held_seq(d, rl), text);
		return 1;
	}
	if (inc > rs->inc) {
		rs->inc = inc;
		if (held_seq(d, rl) < rl->last_seq && commit(d, rl) != 0) {
			rs->failed = 0;
			*rc = send_error(d, sc, 0, rl->job, rl->rank,
			    rs->code, held_seq(d, rl), rs->text);
			return 1;
		}
	}
	return 0;
}

static int
on_append(struct logd *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft_msg_log_append m;
	struct ft_rlog *rl;
	struct rstate *rs;
	uint64_t expect;
	char text[128];
	int rc;

	m.d = d->dets;
	if (ft_msg_log_append_decode(body, len, &m, FT_LOG_BATCH_MAX) != 0)
		return -1;
	if ((rl = rlog_get(d, sc, 0, m.job, m.rank, &rc)) == NULL ||
	    fence(d, sc, rl, m.inc, &rc))
		return rc;
	rs = rl->user;
	if (ft_rlog_add(rl, m.d, m.n, realtime_ns(), &expect) != 0) {
		if (errno != EILSEQ)
			return send_error(d, sc, 0, m.job, m.rank,
			    FT_LOG_ENOMEM, held_seq(d, rl), "out of memory");
		snprintf(text, sizeof(text), "seq %" PRIu64 " where %" PRIu64
		    " was expected", m.d[0].seq, expect);
		return send_error(d, sc, 0, m.job, m.rank, FT_LOG_ESEQ,
		    held_seq(d, rl), text);
	}
	switch (d->cfg->sync) {
	case FT_LOG_SYNC_ALWAYS:
		if (commit(d, rl) != 0) {
			rs->failed = 0;
			return send_error(d, sc, 0, m.job, m.rank, rs->code,
			    held_seq(d, rl), rs->text);
		}
		ack_one(d, rl);
		return send_ack(d, sc, 1);
	case FT_LOG_SYNC_BATCH:
	case FT_LOG_SYNC_MEMORY:
		if (list_dirty(d, rl) != 0 || want_ack(sc->user, rl) != 0)
			return -1;
		return 0;
	}
	return -1;
}

static int
on_query(struct logd *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft_msg_log_query m;
	struct ft_rlog *rl;
	int rc;

	if (ft_msg_log_query_decode(body, len, &m) != 0)
		return -1;
	if ((rl = rlog_get(d, sc, 0, m.job, m.rank, &rc)) == NULL ||
	    fence(d, sc, rl, m.inc, &rc))
		return rc;
	ack_one(d, rl);
	return send_ack(d, sc, 1);
}

static void
fetch_free(struct fetch *f)
{
	if (f->fd >= 0) {
		ft_seg_reader_release(&f->r);
		close(f->fd);
	}
	free(f);
}

static int
on_fetch(struct logd *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft_msg_log_fetch m;
	struct lconn *lc = sc->user;
	struct ft_rlog *rl;
	struct fetch *f, **pp;
	int rc;

	if (ft_msg_log_fetch_decode(body, len, &m) != 0)
		return -1;
	if ((rl = rlog_get(d, sc, m.reqid, m.job, m.rank, &rc)) == NULL)
		return rc;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return -1;
	f->reqid = m.reqid;
	f->rl = rl;
	f->from_seq = m.from_seq;
	f->from_clock = m.from_clock;
	f->limit = held_seq(d, rl);
	f->fd = -1;
	/* Start at the segment that holds from_seq. */
	while (f->seg + 1 < rl->nsegs && rl->segs[f->seg + 1] <= m.from_seq)
		f->seg++;
	for (pp = &lc->fq; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = f;
	return 0;
}

/*
 * Send the next chunk of the first fetch of sc: 1 if it goes on, 0 if
 * it is over (and freed), -1 if the connection must close.
 */
static int
fetch_step(struct logd *d, struct ft__srv_conn *sc)
{
	struct lconn *lc = sc->user;
	struct fetch *f = lc->fq;
	struct ft_rlog *rl = f->rl;
	struct ft_msg_log_records m;
	struct ft_seg_rec rec;
	char path[FT_LOG_WHY / 2], full[FT_LOG_WHY / 2];
	size_t off;
	uint32_t n = 0;
	int rc, done = 0, last;

	while (n < FT_LOG_BATCH_MAX && !done) {
		if (f->fd < 0) {
			if (f->seg >= rl->nsegs || (rl->nsegs > 0 &&
			    rl->segs[f->seg] > f->limit)) {
				done = 1;
				break;
			}
			ft_rlog_segpath(rl, f->seg, path, sizeof(path));
			off = 0;
			ft_appendf(full, sizeof(full), &off, "%s/%s",
			    d->cfg->dir, path);
			last = f->seg + 1 == rl->nsegs;
			if ((f->fd = openat(d->dirfd, path, O_RDONLY |
			    O_CLOEXEC)) < 0) {
				off = 0;
				ft_appendf(d->why, sizeof(d->why), &off,
				    "segment '%s': %s", full, strerror(errno));
				goto fail;
			}
			if (ft_seg_reader_open(&f->r, f->fd, full, last,
			    last ? rl->size : 0) != 0) {
				snprintf(d->why, sizeof(d->why), "%s",
				    f->r.why);
				goto fail;
			}
		}
		rc = ft_seg_reader_next(&f->r, &rec);
		if (rc < 0) {
			snprintf(d->why, sizeof(d->why), "%s", f->r.why);
			goto fail;
		}
		if (rc == 0) {
			ft_seg_reader_release(&f->r);
			close(f->fd);
			f->fd = -1;
			f->seg++;
			continue;
		}
		if (rec.type != FT_DET_TYPE || rec.det.seq < f->from_seq ||
		    rec.det.clock < f->from_clock)
			continue;
		if (rec.det.seq > f->limit) {
			done = 1;
			break;
		}
		d->dets[n++] = rec.det;
		if (rec.det.seq == f->limit)
			done = 1;
	}
	m.reqid = f->reqid;
	m.job = rl->job;
	m.rank = rl->rank;
	m.flags = done ? FT_LOG_LAST : 0;
	m.n = n;
	m.d = d->dets;
	if (ft_msg_log_records_encode(&d->wb, FT_WIRE_LAUNCHER, &m) != 0 ||
	    ft__srv_send(sc, &d->wb) != 0)
		return -1;
	if (!done)
		return 1;
	lc->fq = f->next;
	fetch_free(f);
	return 0;
fail:
	ft_warnx_limited(&d->rl, "%s", d->why);
	lc->fq = f->next;
	rc = send_error(d, sc, f->reqid, rl->job, rl->rank, err_code(errno),
	    held_seq(d, rl), d->why);
	fetch_free(f);
	return rc;
}

static int
on_frame(struct ft__srv *s, struct ft__srv_conn *sc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct logd *d = s->arg;
	size_t len = h->len - FT_WIRE_HDRLEN;
	int rc;

	if (sc->user == NULL && (sc->user = calloc(1,
	    sizeof(struct lconn))) == NULL)
		return -1;
	switch (h->type) {
	case FT_MSG_LOG_APPEND:
		rc = on_append(d, sc, body, len);
		break;
	case FT_MSG_LOG_QUERY:
		rc = on_query(d, sc, body, len);
		break;
	case FT_MSG_LOG_FETCH:
		rc = on_fetch(d, sc, body, len);
		break;
	default:
		errno = EPROTO;
		rc = -1;
	}
	if (rc != 0 && errno == EPROTO)
		ft_warnx_limited(&s->rl, "logger: connection from %s: a "
		    "malformed or unexpected %s frame; closed", sc->ip,
		    ft_msg_name(h->type));
	return rc;
}

static void
on_gone(struct ft__srv *s, struct ft__srv_conn *sc)
{
	struct lconn *lc = sc->user;
	struct fetch *f;

	if (lc == NULL)
		return;
	while ((f = lc->fq) != NULL) {
		lc->fq = f->next;
		fetch_free(f);
	}
	free(lc->want);
	free(lc);
	sc->user = NULL;
}

static int
role_ok(uint8_t role)
{
	return role == FT_ROLE_LOGGER || role == FT_ROLE_RANK;
}

/*
 * --sync batch and memory: the group commit, then every ACK and ERROR
 * it owes.
 */
static void
group_commit(struct logd *d)
{
	struct ft__srv_conn *sc;
	struct lconn *lc;
	struct ft_rlog *rl;
	struct rstate *rs;
	uint32_t n;
	size_t i, k;

	for (i = 0; i < d->ndirty; i++)
		(void)commit(d, d->dirty[i]);
	for (i = 0; i < d->srv.n; i++) {
		sc = d->srv.conn[i];
		if ((lc = sc->user) == NULL || lc->nwant == 0)
			continue;
		for (k = 0, n = 0; k < lc->nwant; k++) {
			rl = lc->want[k];
			rs = rl->user;
			if (rs->failed) {
				(void)send_error(d, sc, 0, rl->job, rl->rank,
				    rs->code, held_seq(d, rl), rs->text);
				continue;
			}
			d->acks[n].job = rl->job;
			d->acks[n].rank = rl->rank;
			d->acks[n].seq = held_seq(d, rl);
			d->acks[n].clock = held_clock(d, rl);
			if (++n == FT_LOG_ACK_MAX) {
				(void)send_ack(d, sc, n);
				n = 0;
			}
		}
		(void)send_ack(d, sc, n);
		lc->nwant = 0;
	}
	for (i = 0; i < d->ndirty; i++) {
		rs = d->dirty[i]->user;
		rs->listed = rs->failed = 0;
	}
	d->ndirty = 0;
}

/* --sync memory: fsync what was written, every MEMSYNC_NS. */
static void
sync_behind(struct logd *d)
{
	struct ft_rlog *rl;
	struct rstate *rs;
	size_t i;

	for (i = 0; i < d->tabcap; i++) {
		if ((rl = d->tab[i]) == NULL || !rl->dirty)
			continue;
		rs = rl->user;
		if (ft_rlog_sync(rl, rs->text, sizeof(rs->text)) != 0)
			ft_warnx_limited(&d->rl, "%s", rs->text);
	}
}

static uint64_t
tick(struct ft__srv *s)
{
	struct logd *d = s->arg;
	struct ft__srv_conn *sc;
	struct lconn *lc;
	uint64_t next = 0;
	size_t i;

	if (d->cfg->sync != FT_LOG_SYNC_ALWAYS)
		group_commit(d);
	if (d->cfg->sync == FT_LOG_SYNC_MEMORY) {
		if (ft_now_ns() >= d->next_sync) {
			sync_behind(d);
			d->next_sync = ft_now_ns() + MEMSYNC_NS;
		}
		next = d->next_sync;
	}
	for (i = 0; i < s->n; i++) {
		sc = s->conn[i];
		lc = sc->user;
		while (lc != NULL && lc->fq != NULL && !sc->closing &&
		    sc->c.oq_bytes < FETCH_QUEUE)
			if (fetch_step(d, sc) < 0)
				sc->closing = 1;
	}
	ft_ratelim_flush(&d->rl, 0);
	return next;
}

int
ft_logd_serve(const struct ft_logd_cfg *cfg, char *why, size_t whysize)
{
	struct logd d;
	size_t i;
	int lockfd, rc, saved;

	memset(&d, 0, sizeof(d));
	d.cfg = cfg;
	d.dirfd = open(cfg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d.dirfd < 0) {
		saved = errno;
		snprintf(why, whysize, "log directory '%s': %s", cfg->dir,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	if ((lockfd = ft__store_lock(d.dirfd, cfg->dir, "ftlog.lock",
	    "log directory", "logger", why, whysize)) < 0) {
		saved = errno;
		close(d.dirfd);
		errno = saved;
		return -1;
	}
	d.dets = calloc(FT_LOG_BATCH_MAX, sizeof(*d.dets));
	d.acks = calloc(FT_LOG_ACK_MAX, sizeof(*d.acks));
	if (d.dets == NULL || d.acks == NULL) {
		snprintf(why, whysize, "out of memory");
		rc = -1;
		goto out;
	}
	ft_wbuf_init(&d.wb);
	ft_ratelim_init(&d.rl, "log warnings", FT_HS_WARN_BURST,
	    FT_HS_WARN_NS);
	d.next_sync = ft_now_ns() + MEMSYNC_NS;
	d.srv.lfd = cfg->lfd;
	d.srv.key = cfg->key;
	d.srv.who = "logger";
	d.srv.max_conns = cfg->max_conns;
	/* The ranks of a job connect at once, as it starts. */
	d.srv.max_hs = LOGD_HS_MAX;
	d.srv.role_ok = role_ok;
	d.srv.frame = on_frame;
	d.srv.tick = tick;
	d.srv.gone = on_gone;
	d.srv.arg = &d;
	d.srv.stop = cfg->stop;
	if (cfg->ready != NULL)
		cfg->ready(cfg->ready_arg);
	rc = ft__srv_run(&d.srv);
	if (rc != 0)
		snprintf(why, whysize, "the server loop: %s", strerror(errno));
	/* Stopping: what is held in memory goes to disk first. */
	if (cfg->sync != FT_LOG_SYNC_ALWAYS)
		group_commit(&d);
	for (i = 0; i < d.tabcap; i++)
		if (d.tab[i] != NULL) {
			if (ft_rlog_write(d.tab[i], d.why,
			    sizeof(d.why)) != 0 ||
			    ft_rlog_sync(d.tab[i], d.why, sizeof(d.why)) != 0)
				ft_warnx("%s", d.why);
		}
	ft__srv_release(&d.srv);
	ft_ratelim_flush(&d.rl, 1);
out:
	saved = errno;
	for (i = 0; i < d.tabcap; i++)
		if (d.tab[i] != NULL) {
			free(d.tab[i]->user);
			ft_rlog_free(d.tab[i]);
		}
	free(d.tab);
	free(d.dirty);
	free(d.dets);
	free(d.acks);
	ft_wbuf_release(&d.wb);
	close(lockfd);
	close(d.dirfd);
	errno = saved;
	return rc;
}
