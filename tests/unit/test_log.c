/* SPDX-License-Identifier: ISC */
/*
 * The event log: the logger's frames (round trip, every truncation,
 * bad values), segments (header, records, checksums), a rank's log on
 * disk (group writes, rollover, a torn tail cut on open, a corrupt
 * record refused with its file and offset, foreign and truncated
 * segments), and the walk of ftlog dump and stat.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "store/store.h"

#define SENDER	0x01020304u
#define JOB	0x2aull
#define DET60	(FT_DET_FIXED + 3 * 8)	/* a record of another event */

static void
mkdet(uint64_t seq, struct ft_det *d)
{
	memset(d, 0, sizeof(*d));
	d->seq = seq;
	d->clock = 3 * seq;
	d->sender = (uint32_t)(seq % 4);
	d->sclock = seq + 1;
	d->probes = (uint32_t)(seq % 2);
	if (seq % 3 == 0) {
		d->kind = 1 + (uint32_t)(seq % FT_DET_KIND_MAX);
		d->v[0] = seq;
		d->v[1] = ~seq;
		d->v[2] = 0x8000000000000000ull | seq;
	}
}

static int
det_eq(const struct ft_det *a, const struct ft_det *b)
{
	return a->seq == b->seq && a->clock == b->clock &&
	    a->sender == b->sender && a->sclock == b->sclock &&
	    a->probes == b->probes && a->kind == b->kind &&
	    a->v[0] == b->v[0] && a->v[1] == b->v[1] && a->v[2] == b->v[2] &&
	    a->flags == b->flags && a->cseq == b->cseq;
}

/* Each codec: encode a sample, decode it, cut it everywhere. */
struct codec {
	const char	*name;
	unsigned int	 type;
	int		(*enc)(struct ft_wbuf *);
	int		(*dec)(const uint8_t *, size_t);
};

static struct ft_det s_dets[5], d_dets[FT_LOG_BATCH_MAX];
static struct ft_log_ack s_acks[2], d_acks[FT_LOG_ACK_MAX];

static int
enc_append(struct ft_wbuf *b)
{
	struct ft_msg_log_append m = { JOB, 3, 5, s_dets, 0 };

	return ft_msg_log_append_encode(b, SENDER, &m);
}

static int
dec_append(const uint8_t *p, size_t len)
{
	struct ft_msg_log_append m;
	uint32_t i;

	m.d = d_dets;
	if (ft_msg_log_append_decode(p, len, &m, FT_LOG_BATCH_MAX) != 0)
		return -1;
	if (m.job != JOB || m.rank != 3 || m.n != 5)
		return -2;
	for (i = 0; i < 5; i++)
		if (!det_eq(&m.d[i], &s_dets[i]))
			return -2;
	return 0;
}

static int
enc_ack(struct ft_wbuf *b)
{
	struct ft_msg_log_ack m = { 2, s_acks };

	return ft_msg_log_ack_encode(b, SENDER, &m);
}

static int
dec_ack(const uint8_t *p, size_t len)
{
	struct ft_msg_log_ack m;

	m.e = d_acks;
	if (ft_msg_log_ack_decode(p, len, &m, FT_LOG_ACK_MAX) != 0)
		return -1;
	return m.n == 2 && memcmp(&m.e[1], &s_acks[1], sizeof(s_acks[1])) ==
	    0 && m.e[0].seq == s_acks[0].seq ? 0 : -2;
}

static int
enc_fetch(struct ft_wbuf *b)
{
	struct ft_msg_log_fetch m = { 7, JOB, 4, 10, 20 };

	return ft_msg_log_fetch_encode(b, SENDER, &m);
}

static int
dec_fetch(const uint8_t *p, size_t len)
{
	struct ft_msg_log_fetch m;

	if (ft_msg_log_fetch_decode(p, len, &m) != 0)
		return -1;
	return m.reqid == 7 && m.job == JOB && m.rank == 4 &&
	    m.from_seq == 10 && m.from_clock == 20 ? 0 : -2;
}

static int
enc_records(struct ft_wbuf *b)
{
	struct ft_msg_log_records m = { 9, JOB, 1, FT_LOG_LAST, 5, s_dets };

	return ft_msg_log_records_encode(b, SENDER, &m);
}

static int
dec_records(const uint8_t *p, size_t len)
{
	struct ft_msg_log_records m;

	m.d = d_dets;
	if (ft_msg_log_records_decode(p, len, &m, FT_LOG_BATCH_MAX) != 0)
		return -1;
	return m.reqid == 9 && m.flags == FT_LOG_LAST && m.n == 5 &&
	    det_eq(&m.d[4], &s_dets[4]) ? 0 : -2;
}

static int
enc_error(struct ft_wbuf *b)
{
	struct ft_msg_log_error m;

	memset(&m, 0, sizeof(m));
	m.reqid = 0;
	m.job = JOB;
	m.rank = 2;
	m.code = FT_LOG_ENOSPC;
	m.seq = 41;
	snprintf(m.text, sizeof(m.text), "no space");
	return ft_msg_log_error_encode(b, SENDER, &m);
}

static int
dec_error(const uint8_t *p, size_t len)
{
	struct ft_msg_log_error m;

	if (ft_msg_log_error_decode(p, len, &m) != 0)
		return -1;
	return m.code == FT_LOG_ENOSPC && m.seq == 41 &&
	    strcmp(m.text, "no space") == 0 ? 0 : -2;
}

static int
enc_query(struct ft_wbuf *b)
{
	struct ft_msg_log_query m = { JOB, 6, 0 };

	return ft_msg_log_query_encode(b, SENDER, &m);
}

static int
dec_query(const uint8_t *p, size_t len)
{
	struct ft_msg_log_query m;

	if (ft_msg_log_query_decode(p, len, &m) != 0)
		return -1;
	return m.job == JOB && m.rank == 6 ? 0 : -2;
}

static const struct codec codecs[] = {
	{ "LOG_APPEND", FT_MSG_LOG_APPEND, enc_append, dec_append },
	{ "LOG_ACK", FT_MSG_LOG_ACK, enc_ack, dec_ack },
	{ "LOG_FETCH", FT_MSG_LOG_FETCH, enc_fetch, dec_fetch },
	{ "LOG_RECORDS", FT_MSG_LOG_RECORDS, enc_records, dec_records },
	{ "LOG_ERROR", FT_MSG_LOG_ERROR, enc_error, dec_error },
	{ "LOG_QUERY", FT_MSG_LOG_QUERY, enc_query, dec_query },
};

static void
test_codec(const struct codec *c)
{
	struct ft_wbuf b;
	struct ft_hdr h;
	uint8_t *q;
	size_t blen, cut, bad = 0;

	ft_wbuf_init(&b);
	if (!T_OK(c->enc(&b) == 0, "%s: encodes", c->name))
		return;
	T_OK(ft_hdr_decode(b.p, &h) == 0 && h.type == c->type &&
	    h.len == b.len && h.sender == SENDER, "%s: its header", c->name);
	T_OK(strcmp(ft_msg_name(c->type), c->name) == 0, "%s: named",
	    c->name);
	blen = b.len - FT_WIRE_HDRLEN;
	T_EQ_INT(c->dec(b.p + FT_WIRE_HDRLEN, blen), 0, "round trip");
	/* Every cut, in its own buffer so that ASan sees an overread. */
	for (cut = 0; cut < blen; cut++) {
		if ((q = malloc(cut + 1)) == NULL)
			abort();
		memcpy(q, b.p + FT_WIRE_HDRLEN, cut);
		errno = 0;
		if (c->dec(q, cut) != -1 || errno != EPROTO)
			bad++;
		free(q);
	}
	T_OK(bad == 0, "%s: all %zu truncations fail with EPROTO", c->name,
	    blen);
	if ((q = malloc(blen + 1)) == NULL)
		abort();
	memcpy(q, b.p + FT_WIRE_HDRLEN, blen);
	q[blen] = 0;
	errno = 0;
	T_OK(c->dec(q, blen + 1) == -1 && errno == EPROTO,
	    "%s: a trailing byte fails with EPROTO", c->name);
	free(q);
	ft_wbuf_release(&b);
}

static void
test_bad_values(void)
{
	struct ft_msg_log_append m = { JOB, 0, 1, s_dets, 0 };
	struct ft_msg_log_records rec = { 1, JOB, 0, 0, 0, s_dets };
	struct ft_msg_log_error e;
	struct ft_wbuf b;
	struct ft_det d = s_dets[0];
	uint8_t *body;
	size_t blen;

	ft_wbuf_init(&b);
	m.n = 0;
	T_FAILS(ft_msg_log_append_encode(&b, SENDER, &m), EINVAL,
	    "append: an empty batch is refused");
	m.n = 1;
	m.d = &d;
	d.kind = FT_DET_KIND_MAX + 1;
	T_FAILS(ft_msg_log_append_encode(&b, SENDER, &m), EINVAL,
	    "append: an unknown kind is refused");
	d = s_dets[0];
	d.seq = 0;
	T_FAILS(ft_msg_log_append_encode(&b, SENDER, &m), EINVAL,
	    "append: seq 0 is refused");
	d = s_dets[0];
	d.kind = FT_DET_DELIVERY;
	d.v[1] = 1;
	T_FAILS(ft_msg_log_append_encode(&b, SENDER, &m), EINVAL,
	    "append: a delivery with values is refused");
	T_FAILS(ft_msg_log_records_encode(&b, SENDER, &rec), EINVAL,
	    "records: none, and not the last, is refused");
	memset(&e, 0, sizeof(e));
	e.code = FT_LOG_ERR_MAX + 1;
	T_FAILS(ft_msg_log_error_encode(&b, SENDER, &e), EINVAL,
	    "error: an unknown code is refused");
	T_OK(b.len == 0, "nothing was left in the buffer");

	/* Decoders: a kind, a count and a type out of bounds. */
	m.d = s_dets;
	m.n = 2;
	T_OK(ft_msg_log_append_encode(&b, SENDER, &m) == 0, "append encodes");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	m.d = d_dets;
	T_FAILS(ft_msg_log_append_decode(body, blen, &m, 1), EPROTO,
	    "append: more than the caller's room fails");
	body[16 + 1] = FT_DET_KIND_MAX + 1;
	T_FAILS(ft_msg_log_append_decode(body, blen, &m, 8), EPROTO,
	    "append: an unknown kind fails");
	body[16 + 1] = (uint8_t)s_dets[0].kind;
	body[16] = 9;
	T_FAILS(ft_msg_log_append_decode(body, blen, &m, 8), EPROTO,
	    "append: another record type fails");
	body[16] = FT_DET_TYPE;
	ft_be32(body + 12, 0x7fffffffu);
	T_FAILS(ft_msg_log_append_decode(body, blen, &m, 8), EPROTO,
	    "append: a count above what the body holds fails");
	ft_be32(body + 12, 2);
	T_OK(ft_msg_log_append_decode(body, blen, &m, 8) == 0 && m.n == 2,
	    "append: restored, it decodes");
	ft_wbuf_release(&b);
}

/* A fresh directory under TMPDIR. */
static char *
tmpdir(void)
{
	static char path[256];
	const char *t = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/test_log.XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(path) == NULL)
		abort();
	return path;
}

static int
dir_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		abort();
	return fd;
}

/* Append seqs from..to to rl, write and sync. */
static int
put(struct ft_rlog *rl, uint64_t from, uint64_t to)
{
	struct ft_det d[64];
	char why[FT_LOG_WHY];
	uint64_t s, expect;
	uint32_t n = 0;

	for (s = from; s <= to; s++) {
		mkdet(s, &d[n++]);
		if (n == FT_NELEM(d) || s == to) {
			if (ft_rlog_add(rl, d, n, 1000000000ull * s,
			    &expect) != 0)
				return -1;
			n = 0;
		}
	}
	if (ft_rlog_write(rl, why, sizeof(why)) != 0 ||
	    ft_rlog_sync(rl, why, sizeof(why)) != 0) {
		t_diag("%s", why);
		return -1;
	}
	return 0;
}

struct walked {
	uint64_t	n, bad, last;
	struct ft_rank_sum sum;
};

static int
walk_det(void *arg, uint64_t job, uint32_t rank, const struct ft_det *d)
{
	struct walked *w = arg;
	struct ft_det e;

	mkdet(w->last + 1, &e);
	if (!det_eq(d, &e))
		w->bad++;
	w->last = d->seq;
	w->n++;
	return 0;
}

static void
walk_sum(void *arg, const struct ft_rank_sum *s)
{
	struct walked *w = arg;

	w->sum = *s;
}

static char *
segfile(const char *dir, uint32_t rank, uint64_t seq)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/job-%016llx/rank-%u/%020llu.ftl",
	    dir, (unsigned long long)JOB, rank, (unsigned long long)seq);
	return path;
}

static void
append_bytes(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

static void
poke(const char *path, off_t off, uint8_t v)
{
	int fd = open(path, O_RDWR);

	if (fd < 0 || pwrite(fd, &v, 1, off) != 1)
		abort();
	close(fd);
}

static off_t
fsize(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void
test_rlog(void)
{
	struct ft_rlog *rl;
	struct walked w;
	struct ft_det d[2];
	char why[FT_LOG_WHY], path[512], *dir = tmpdir();
	uint64_t expect;
	off_t sz;
	int dfd = dir_open(dir);
	uint8_t junk[5] = { 0, 0, 0, 44, 1 }, zeros[300];

	rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
	    sizeof(why));
	if (!T_OK(rl != NULL, "open: a rank without a log is empty"))
		return;
	T_OK(rl->last_seq == 0 && rl->nsegs == 0, "open: nothing there");
	mkdet(2, &d[0]);
	T_FAILS(ft_rlog_add(rl, d, 1, 0, &expect), EILSEQ,
	    "add: seq 2 first is refused");
	T_EQ_UINT(expect, 1, "add: it says 1 was expected");
	for (expect = 1; expect <= 500; expect += 50)
		if (put(rl, expect, expect + 49) != 0)
			break;
	T_OK(expect > 500, "write: 500 determinants, in groups of 50");
	T_OK(rl->nsegs > 1, "write: rolled over to %zu segments",
	    rl->nsegs);
	T_EQ_UINT(rl->durable_seq, 500, "sync: durable up to 500");
	ft_rlog_free(rl);

	rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
	    sizeof(why));
	T_OK(rl != NULL && rl->last_seq == 500 && rl->count == 500,
	    "reopen: 500 held");
	if (rl != NULL)
		T_OK(put(rl, 501, 520) == 0 && rl->last_seq == 520,
		    "reopen: appends go on at 501");
	ft_rlog_free(rl);

	memset(&w, 0, sizeof(w));
	T_OK(ft_logdir_walk(dir, 1, 0, 1, 0, walk_det, walk_sum, &w, why,
	    sizeof(why)) == 0, "walk: reads the log");
	T_OK(w.n == 520 && w.bad == 0 && w.last == 520,
	    "walk: every determinant, in order, as written");
	T_OK(w.sum.count == 520 && w.sum.first_seq == 1 &&
	    w.sum.last_seq == 520 && w.sum.torn == 0 && w.sum.first_ns != 0,
	    "walk: the rank's sum");

	/* A torn tail: half a record at the end of the last segment. */
	rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
	    sizeof(why));
	if (rl == NULL)
		abort();
	snprintf(path, sizeof(path), "%s", segfile(dir, 0,
	    rl->segs[rl->nsegs - 1]));
	ft_rlog_free(rl);
	sz = fsize(path);
	append_bytes(path, junk, sizeof(junk));
	{
		memset(&w, 0, sizeof(w));
		T_OK(ft_logdir_walk(dir, 1, 0, 1, 0, walk_det, walk_sum, &w,
		    why, sizeof(why)) == 0 && w.n == 520 &&
		    w.sum.torn == sizeof(junk),
		    "walk: a torn tail is counted, not read, not cut");
		T_EQ_INT(fsize(path), sz + (off_t)sizeof(junk),
		    "walk: the file is left as it was");
		rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
		    sizeof(why));
		T_OK(rl != NULL && rl->last_seq == 520,
		    "open: a torn tail is cut, the records before kept");
		T_EQ_INT(fsize(path), sz, "open: the file is cut back");
		ft_rlog_free(rl);
		/* Zeros at the end (an extended file): torn too. */
		memset(zeros, 0, sizeof(zeros));
		append_bytes(path, zeros, sizeof(zeros));
		rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
		    sizeof(why));
		T_OK(rl != NULL && rl->last_seq == 520 && fsize(path) == sz,
		    "open: a tail of zeros is cut");
		/* Appends after a cut go where the cut was (a regression). */
		T_OK(rl != NULL && put(rl, 521, 530) == 0,
		    "open: appends after the cut");
		ft_rlog_free(rl);
		rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
		    sizeof(why));
		T_OK(rl != NULL && rl->last_seq == 530,
		    "reopen: the appends after a cut read back");
		ft_rlog_free(rl);
		sz = fsize(path);
		/* A record corrupt in the middle: refused, never cut. */
		poke(path, FT_SEG_HDRLEN + 20, 0xff);
		rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
		    sizeof(why));
		T_OK(rl == NULL && errno == EILSEQ,
		    "open: a corrupt record in the middle is refused");
		/* Byte 68: after the time stamp, the length's first. */
		T_OK(strstr(why, path) != NULL && strstr(why, "offset 68") !=
		    NULL, "open: the message names the file and offset: %s",
		    why);
		T_EQ_INT(fsize(path), sz, "open: the file is not cut");
		memset(&w, 0, sizeof(w));
		T_OK(ft_logdir_walk(dir, 1, 0, 1, 0, walk_det, NULL, &w, why,
		    sizeof(why)) == -1 && w.n == 0,
		    "walk: nothing of a corrupt log is passed on");
	}
	/* The first segment, not the last, corrupt at its end. */
	snprintf(path, sizeof(path), "%s", segfile(dir, 0, 1));
	{
		poke(path, fsize(path) - 1, 0x5a);
		rl = ft_rlog_open(dfd, dir, JOB, 0, FT_SEG_SIZE_MIN, why,
		    sizeof(why));
		T_OK(rl == NULL && errno == EILSEQ && strstr(why,
		    "not the last") != NULL,
		    "open: a bad record at the end of a segment that is not "
		    "the last is corruption: %s", why);
	}
	close(dfd);
}

/* A segment file of rank 1 made of these bytes. */
static void
lay(const char *dir, const void *p, size_t n)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/job-%016llx", dir,
	    (unsigned long long)JOB);
	(void)mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/job-%016llx/rank-1", dir,
	    (unsigned long long)JOB);
	(void)mkdir(path, 0700);
	fd = open(segfile(dir, 1, 1), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

static void
test_foreign(void)
{
	struct ft_seg_hdr h = { FT_SEG_VERSION, JOB, 1, 1, 123 };
	struct ft_rlog *rl;
	uint8_t hdr[FT_SEG_HDRLEN];
	char why[FT_LOG_WHY], *dir = tmpdir();
	int dfd = dir_open(dir);

	ft_seg_hdr_encode(hdr, &h);
	T_OK(ft_seg_hdr_decode(hdr, sizeof(hdr), &h) == 0 && h.job == JOB &&
	    h.rank == 1 && h.first_seq == 1 && h.created_ns == 123,
	    "header: round trip");
	lay(dir, "#!/bin/sh\necho not a segment, longer than a header\n"
	    "------------------------------\n", 80);
	rl = ft_rlog_open(dfd, dir, JOB, 1, FT_SEG_SIZE_MIN, why, sizeof(why));
	T_OK(rl == NULL && errno == EPROTO && strstr(why,
	    "not an ft event-log segment") != NULL,
	    "a foreign file is refused: %s", why);
	hdr[5] = FT_SEG_VERSION + 1;
	lay(dir, hdr, sizeof(hdr));
	rl = ft_rlog_open(dfd, dir, JOB, 1, FT_SEG_SIZE_MIN, why, sizeof(why));
	T_OK(rl == NULL && errno == ENOTSUP && strstr(why, "version 3, "
	    "this build reads versions 1 to 2") != NULL,
	    "a newer version is refused: %s", why);
	hdr[5] = FT_SEG_VERSION;
	lay(dir, hdr, 20);
	rl = ft_rlog_open(dfd, dir, JOB, 1, FT_SEG_SIZE_MIN, why, sizeof(why));
	T_OK(rl == NULL && errno == EMSGSIZE && strstr(why,
	    "truncated header") != NULL, "a truncated header is refused: %s",
	    why);
	hdr[30] ^= 1;
	lay(dir, hdr, sizeof(hdr));
	rl = ft_rlog_open(dfd, dir, JOB, 1, FT_SEG_SIZE_MIN, why, sizeof(why));
	T_OK(rl == NULL && errno == EBADMSG, "a header with a bad checksum "
	    "is refused: %s", why);
	hdr[30] ^= 1;
	lay(dir, hdr, sizeof(hdr));
	rl = ft_rlog_open(dfd, dir, JOB, 2, FT_SEG_SIZE_MIN, why, sizeof(why));
	T_OK(rl != NULL && rl->nsegs == 0, "another rank's directory is "
	    "not looked at");
	ft_rlog_free(rl);
	h.rank = 5;
	ft_seg_hdr_encode(hdr, &h);
	lay(dir, hdr, sizeof(hdr));
	rl = ft_rlog_open(dfd, dir, JOB, 1, FT_SEG_SIZE_MIN, why, sizeof(why));
	T_OK(rl == NULL && errno == EPROTO && strstr(why, "belongs to") !=
	    NULL, "a segment of another rank is refused: %s", why);
	h.rank = 1;
	ft_seg_hdr_encode(hdr, &h);
	lay(dir, hdr, sizeof(hdr));
	rl = ft_rlog_open(dfd, dir, JOB, 1, FT_SEG_SIZE_MIN, why, sizeof(why));
	T_OK(rl != NULL && rl->last_seq == 0 && rl->nsegs == 1,
	    "a header alone is an empty segment");
	ft_rlog_free(rl);
	close(dfd);
}

static void
test_records(void)
{
	struct ft_seg_rec rec;
	struct ft_wbuf b;
	struct ft_det d;
	size_t used, good, cut, bad = 0;

	ft_wbuf_init(&b);
	mkdet(3, &d);
	ft_seg_put_det(&b, &d);
	ft_seg_put_time(&b, 77);
	T_EQ_INT(b.len, FT_SEG_RECHDR + DET60 + FT_SEG_RECHDR +
	    FT_SEG_TIMELEN, "records: 68 and 20 bytes");
	T_OK(ft_seg_rec_get(b.p, b.len, &rec, &used) == 1 &&
	    rec.type == FT_DET_TYPE && det_eq(&rec.det, &d) &&
	    used == FT_SEG_RECHDR + DET60, "records: a determinant");
	T_OK(ft_seg_rec_get(b.p + used, b.len - used, &rec, &used) == 1 &&
	    rec.type == FT_SEG_TIME && rec.time_ns == 77,
	    "records: a time stamp");
	for (cut = 0; cut < FT_SEG_RECHDR + DET60; cut++)
		if (ft_seg_rec_get(b.p, cut, &rec, &used) != 0)
			bad++;
	T_OK(bad == 0, "records: every cut says 'more'");
	b.p[20] ^= 0x10;
	T_OK(ft_seg_rec_get(b.p, b.len, &rec, &used) == -1 &&
	    errno == EBADMSG, "records: a flipped bit fails the checksum");
	T_OK(ft_seg_tail_torn(b.p, b.len, &good) == 0 &&
	    good == FT_SEG_RECHDR + DET60,
	    "records: a good record after a bad one is found");
	T_OK(ft_seg_tail_torn(b.p, FT_SEG_RECHDR + DET60, &good) == 1,
	    "records: a bad one alone is a torn tail");
	ft_wbuf_release(&b);
}

static void
test_format(void)
{
	struct ft_det d;
	char line[FT_DET_TEXT_MAX];

	mkdet(1, &d);
	ft_det_format(line, sizeof(line), JOB, 2, &d, 0);
	T_EQ_STR(line, "job=000000000000002a rank=2 seq=1 clock=3 "
	    "kind=deliver sender=1 sclock=2 probes=1\n", "format: key=value");
	mkdet(3, &d);
	d.sender = FT_DET_NOSENDER;
	ft_det_format(line, sizeof(line), JOB, 2, &d, 1);
	T_EQ_STR(line, "{\"job\":\"000000000000002a\",\"rank\":2,\"seq\":3,"
	    "\"clock\":9,\"kind\":\"index\",\"sender\":null,\"sclock\":4,"
	    "\"probes\":1,\"a\":3,\"b\":18446744073709551612,"
	    "\"c\":9223372036854775811}\n", "format: JSON");
	T_OK(ft_det_format(line, 20, JOB, 2, &d, 0) == -1,
	    "format: a short buffer is -1");
}

/*
 * A segment of version 1 (before cseq) is read, and is not appended to:
 * the next record starts a segment of this version, so that an older
 * build refuses the new one by its header.
 */
static void
test_old_version(void)
{
	struct ft_seg_hdr h = { 1, JOB, 1, 1, 123 };
	struct ft_rlog *rl;
	struct ft_wbuf b;
	struct ft_det d;
	struct walked w;
	uint8_t hdr[FT_SEG_HDRLEN], v[6];
	char why[FT_LOG_WHY], *dir = tmpdir();
	uint64_t s;
	off_t old;
	int dfd = dir_open(dir), fd;

	ft_seg_hdr_encode(hdr, &h);
	lay(dir, hdr, sizeof(hdr));
	ft_wbuf_init(&b);
	for (s = 1; s <= 3; s++) {
		mkdet(s, &d);
		ft_seg_put_det(&b, &d);
	}
	append_bytes(segfile(dir, 1, 1), b.p, b.len);
	ft_wbuf_release(&b);
	old = fsize(segfile(dir, 1, 1));
	rl = ft_rlog_open(dfd, dir, JOB, 1, FT_SEG_SIZE_MIN, why, sizeof(why));
	if (!T_OK(rl != NULL && rl->last_seq == 3, "version 1: read, 3 "
	    "determinants%s%s", rl == NULL ? ": " : "", rl == NULL ? why : ""))
		goto out;
	T_OK(put(rl, 4, 6) == 0, "version 1: appended to");
	T_EQ_INT(rl->nsegs, 2, "version 1: the append started a segment");
	ft_rlog_free(rl);
	T_EQ_INT(fsize(segfile(dir, 1, 1)), old, "version 1: left as it was");
	fd = open(segfile(dir, 1, 4), O_RDONLY);
	T_OK(fd >= 0 && read(fd, v, sizeof(v)) == (ssize_t)sizeof(v) &&
	    v[4] == 0 && v[5] == FT_SEG_VERSION, "version 1: the new "
	    "segment is of version %d", FT_SEG_VERSION);
	if (fd >= 0)
		close(fd);
	memset(&w, 0, sizeof(w));
	T_OK(ft_logdir_walk(dir, 0, JOB, 1, 0, walk_det, walk_sum, &w, why,
	    sizeof(why)) == 0 && w.n == 6 && w.bad == 0,
	    "version 1: both segments read back in order");
out:
	close(dfd);
}

/* A determinant with its message's number on its channel (issue 13). */
static void
test_cseq(void)
{
	struct ft_det d, e[2];
	struct ft_msg_log_append m = { JOB, 0, 1, &d, 0 };
	struct ft_seg_rec rec;
	struct ft_wbuf b;
	char line[FT_DET_TEXT_MAX];
	size_t used;
	uint8_t *body;

	ft_wbuf_init(&b);
	mkdet(1, &d);
	d.flags = FT_DET_F_CSEQ;
	d.cseq = 0;	/* the first message of a channel */
	T_EQ_UINT(ft_det_size(&d), FT_DET_FIXED + 8,
	    "cseq: a delivery takes 8 bytes more");
	T_OK(ft_msg_log_append_encode(&b, SENDER, &m) == 0, "cseq: encodes");
	m.d = e;
	T_OK(ft_msg_log_append_decode(b.p + FT_WIRE_HDRLEN, b.len -
	    FT_WIRE_HDRLEN, &m, 2) == 0 && m.n == 1 && det_eq(&e[0], &d),
	    "cseq: round-trips, 0 included");
	body = b.p + FT_WIRE_HDRLEN;
	body[16 + 3] = 0x2;
	T_FAILS(ft_msg_log_append_decode(body, b.len - FT_WIRE_HDRLEN, &m, 2),
	    EPROTO, "cseq: an unknown flag fails");
	ft_wbuf_reset(&b);
	m.d = &d;
	m.n = 1;
	mkdet(3, &d);
	d.kind = 2;	/* a probe has no message */
	d.flags = FT_DET_F_CSEQ;
	T_FAILS(ft_msg_log_append_encode(&b, SENDER, &m), EINVAL,
	    "cseq: on a probe it is refused");
	d.kind = 1;	/* an ANY_SOURCE match has one */
	d.cseq = 77;
	T_OK(ft_msg_log_append_encode(&b, SENDER, &m) == 0 &&
	    b.len == FT_WIRE_HDRLEN + 16 + FT_DET_MAXLEN,
	    "cseq: an ANY_SOURCE match takes FT_DET_MAXLEN");
	ft_wbuf_reset(&b);
	mkdet(1, &d);
	d.cseq = 5;
	T_FAILS(ft_msg_log_append_encode(&b, SENDER, &m), EINVAL,
	    "cseq: a value without the flag is refused");
	d.flags = FT_DET_F_CSEQ;
	ft_seg_put_det(&b, &d);
	T_OK(ft_seg_rec_get(b.p, b.len, &rec, &used) == 1 &&
	    det_eq(&rec.det, &d) && used == b.len,
	    "cseq: a segment record round-trips");
	ft_det_format(line, sizeof(line), JOB, 2, &d, 0);
	T_EQ_STR(line, "job=000000000000002a rank=2 seq=1 clock=3 "
	    "kind=deliver sender=1 sclock=2 probes=1 cseq=5\n",
	    "cseq: key=value");
	ft_det_format(line, sizeof(line), JOB, 2, &d, 1);
	T_EQ_STR(line, "{\"job\":\"000000000000002a\",\"rank\":2,\"seq\":1,"
	    "\"clock\":3,\"kind\":\"deliver\",\"sender\":1,\"sclock\":2,"
	    "\"probes\":1,\"cseq\":5}\n", "cseq: JSON");
	ft_wbuf_release(&b);
}

/* APPEND and QUERY with the sender's incarnation (issue 13). */
static void
test_inc(void)
{
	struct ft_msg_log_append m = { JOB, 3, 2, s_dets, 7 };
	struct ft_msg_log_query q = { JOB, 6, 2 }, q2;
	struct ft_msg_log_error e;
	struct ft_wbuf b;
	size_t full;

	ft_wbuf_init(&b);
	T_OK(ft_msg_log_append_encode(&b, SENDER, &m) == 0, "inc: encodes");
	full = b.len - FT_WIRE_HDRLEN;
	m.d = d_dets;
	m.inc = 0;
	T_OK(ft_msg_log_append_decode(b.p + FT_WIRE_HDRLEN, full, &m, 8) ==
	    0 && m.inc == 7 && m.n == 2 && det_eq(&d_dets[1], &s_dets[1]),
	    "inc: APPEND round-trips");
	T_OK(ft_msg_log_append_decode(b.p + FT_WIRE_HDRLEN, full - 4, &m,
	    8) == 0 && m.inc == 0, "inc: APPEND without it is incarnation 0");
	T_FAILS(ft_msg_log_append_decode(b.p + FT_WIRE_HDRLEN, full - 2, &m,
	    8), EPROTO, "inc: APPEND with 2 bytes of it fails");
	ft_be32(b.p + b.len - 4, 0);
	T_FAILS(ft_msg_log_append_decode(b.p + FT_WIRE_HDRLEN, full, &m, 8),
	    EPROTO, "inc: APPEND with an explicit 0 fails");
	ft_wbuf_reset(&b);
	T_OK(ft_msg_log_query_encode(&b, SENDER, &q) == 0 &&
	    b.len == FT_WIRE_HDRLEN + 16 &&
	    ft_msg_log_query_decode(b.p + FT_WIRE_HDRLEN, 16, &q2) == 0 &&
	    q2.inc == 2 && q2.rank == 6, "inc: QUERY round-trips");
	T_OK(ft_msg_log_query_decode(b.p + FT_WIRE_HDRLEN, 12, &q2) == 0 &&
	    q2.inc == 0, "inc: QUERY without it is incarnation 0");
	ft_wbuf_reset(&b);
	memset(&e, 0, sizeof(e));
	e.code = FT_LOG_ESTALE;
	snprintf(e.text, sizeof(e.text), "superseded");
	T_OK(ft_msg_log_error_encode(&b, SENDER, &e) == 0 &&
	    ft_msg_log_error_decode(b.p + FT_WIRE_HDRLEN, b.len -
	    FT_WIRE_HDRLEN, &e) == 0 && e.code == FT_LOG_ESTALE,
	    "inc: ERROR says FT_LOG_ESTALE");
	ft_wbuf_release(&b);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < FT_NELEM(s_dets); i++)
		mkdet(i + 1, &s_dets[i]);
	s_acks[0] = (struct ft_log_ack){ JOB, 1, 100, 200 };
	s_acks[1] = (struct ft_log_ack){ JOB, 2, 0, 0 };
	for (i = 0; i < FT_NELEM(codecs); i++)
		test_codec(&codecs[i]);
	test_bad_values();
	test_records();
	test_format();
	test_cseq();
	test_inc();
	test_rlog();
	test_foreign();
	test_old_version();
	return t_done();
}
