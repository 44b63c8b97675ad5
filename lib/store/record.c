/* SPDX-License-Identifier: ISC */
/*
 * Record files of ftrun --record (ft-record(5)): the writer a recording
 * process appends its receptions, sends and outcomes with, and the
 * reader ftreplay run loads one with.  The reader takes a file whole
 * into memory, refuses what is corrupt or foreign naming the offset,
 * and cuts a torn tail, as the log segments do (seg.c).
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

_Static_assert(FT_REC_HDRLEN == 4 + 2 + 2 + 4 + 4 + 4 + 4 + 8 +
    FT_REC_PROTO_MAX + 4, "the record header is 52 bytes");

#define FLUSH_AT	(256u << 10)
#define ZLEVEL		1

int
ft_rec_path(char *buf, size_t size, const char *dir, uint32_t rank)
{
	int n = snprintf(buf, size, "%s/rank-%" PRIu32 ".ftr", dir, rank);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The writer. */

static int
write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, p, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
ft_rec_writer_open(struct ft_rec_writer *w, const char *dir,
    const struct ft_rec_hdr *h)
{
	char path[4096];
	uint8_t proto[FT_REC_PROTO_MAX];

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	ft_wbuf_init(&w->b);
	if (ft_rec_path(path, sizeof(path), dir, h->rank) != 0)
		return -1;
	/* On a host other than ftrun's, the directory is made here. */
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	if ((w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		return -1;
	memset(proto, 0, sizeof(proto));
	memcpy(proto, h->proto, strnlen(h->proto, sizeof(proto)));
	ft_put32(&w->b, FT_REC_MAGIC);
	ft_put16(&w->b, FT_REC_VERSION);
	ft_put16(&w->b, 0);
	ft_put32(&w->b, h->rank);
	ft_put32(&w->b, h->size);
	ft_put32(&w->b, h->replica);
	ft_put32(&w->b, h->universe);
	ft_put64(&w->b, h->job);
	ft_putbytes(&w->b, proto, sizeof(proto));
	ft_put32(&w->b, w->b.err == 0 ? ft_crc32c(0, w->b.p, w->b.len) : 0);
	if (w->b.err != 0)
		w->err = w->b.err;
	if (ft_rec_writer_flush(w) != 0) {
		(void)close(w->fd);
		w->fd = -1;
		ft_wbuf_release(&w->b);
		errno = w->err;
		return -1;
	}
	return 0;
}

/* Open a record: its length and checksum are set by rec_end. */
static size_t
rec_begin(struct ft_rec_writer *w, uint8_t type)
{
	size_t start = w->b.len;

	ft_put32(&w->b, 0);
	ft_put32(&w->b, 0);
	ft_put8(&w->b, type);
	return start;
}

static void
rec_end(struct ft_rec_writer *w, size_t start)
{
	uint32_t len, crc;

	if (w->b.err != 0) {
		w->err = w->b.err;
		return;
	}
	len = (uint32_t)(w->b.len - start - FT_REC_RECHDR);
	ft_wbuf_set32(&w->b, start, len);
	crc = ft_crc32c(0, w->b.p + start, 4);
	crc = ft_crc32c(crc, w->b.p + start + FT_REC_RECHDR, len);
	ft_wbuf_set32(&w->b, start + 4, crc);
	if (w->b.len >= FLUSH_AT)
		(void)ft_rec_writer_flush(w);
}

void
ft_rec_wmatch(struct ft_rec_writer *w, uint32_t ctx, uint32_t src,
    uint32_t csrc, int32_t tag, uint64_t seq, uint64_t len)
{
	size_t start;

	if (w->err != 0)
		return;
	start = rec_begin(w, FT_REC_MATCH);
	ft_put32(&w->b, ctx);
	ft_put32(&w->b, src);
	ft_put32(&w->b, csrc);
	ft_put32(&w->b, (uint32_t)tag);
	ft_put64(&w->b, seq);
	ft_put64(&w->b, len);
	w->nmatch++;
	rec_end(w, start);
}

void
ft_rec_wdata(struct ft_rec_writer *w, uint32_t src, uint64_t seq,
    const void *buf, size_t len)
{
	size_t start, zat;

	if (w->err != 0)
		return;
	if (len > FT_REC_DATA_MAX) {
		/* A message this large is not kept: the record says so by
		 * its end, and ftreplay refuses to go past it. */
		w->err = EMSGSIZE;
		return;
	}
	start = rec_begin(w, FT_REC_DATA);
	ft_put32(&w->b, src);
	ft_put64(&w->b, seq);
	ft_put64(&w->b, len);
	zat = w->b.len;
	ft_put8(&w->b, len >= FT_REC_ZMIN);
	if (w->b.err == 0 && len >= FT_REC_ZMIN) {
		if (ft__zstd_pack(&w->b, &w->zctx, buf, len, ZLEVEL) != 0) {
			w->err = errno;
			return;
		}
		/* Incompressible: keep it raw, which costs less to read. */
		if (w->b.len - zat - 1 >= len) {
			w->b.len = zat;
			ft_put8(&w->b, 0);
			ft_putbytes(&w->b, buf, len);
		}
	} else if (len > 0)
		ft_putbytes(&w->b, buf, len);
	rec_end(w, start);
}

void
ft_rec_digest(struct ft_rec_send *s, uint64_t n, uint32_t ctx, uint32_t dst,
    int32_t tag, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint8_t be[4 * FT_REC_BLOCKS];
	uint32_t i;
	size_t off, k;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->ctx = ctx;
	s->dst = dst;
	s->tag = tag;
	s->len = len;
	s->bsize = 64;
	while (len / s->bsize >= FT_REC_BLOCKS)
		s->bsize *= 2;
	s->nblk = (uint32_t)((len + s->bsize - 1) / s->bsize);
	for (i = 0; i < s->nblk; i++) {
		off = (size_t)i * s->bsize;
		k = len - off < s->bsize ? len - off : s->bsize;
		s->blk[i] = ft_crc32c(0, p + off, k);
		be[4 * i] = (uint8_t)(s->blk[i] >> 24);
		be[4 * i + 1] = (uint8_t)(s->blk[i] >> 16);
		be[4 * i + 2] = (uint8_t)(s->blk[i] >> 8);
		be[4 * i + 3] = (uint8_t)s->blk[i];
	}
	/* The whole, from the blocks': the bytes are read only once. */
	s->crc = ft_crc32c(0, be, 4 * (size_t)s->nblk);
}

void
ft_rec_wsend(struct ft_rec_writer *w, uint32_t ctx, uint32_t dst, int32_t tag,
    const void *buf, size_t len)
{
	struct ft_rec_send s;
	size_t start;
	uint32_t i;

	if (w->err != 0)
		return;
	ft_rec_digest(&s, w->nsend++, ctx, dst, tag, buf, len);
	start = rec_begin(w, FT_REC_SEND);
	ft_put64(&w->b, s.n);
	ft_put32(&w->b, s.ctx);
	ft_put32(&w->b, s.dst);
	ft_put32(&w->b, (uint32_t)s.tag);
	ft_put64(&w->b, s.len);
	ft_put32(&w->b, s.crc);
	ft_put32(&w->b, s.bsize);
	ft_put32(&w->b, s.nblk);
	for (i = 0; i < s.nblk; i++)
		ft_put32(&w->b, s.blk[i]);
	rec_end(w, start);
}

void
ft_rec_wnd(struct ft_rec_writer *w, uint32_t kind, const uint64_t v[3])
{
	size_t start;

	if (w->err != 0)
		return;
	start = rec_begin(w, FT_REC_ND);
	ft_put32(&w->b, kind);
	ft_put64(&w->b, v[0]);
	ft_put64(&w->b, v[1]);
	ft_put64(&w->b, v[2]);
	w->nnd++;
	rec_end(w, start);
}

void
ft_rec_wfail(struct ft_rec_writer *w, uint32_t ndead)
{
	size_t start;

	if (w->err != 0)
		return;
	start = rec_begin(w, FT_REC_FAIL);
	ft_put32(&w->b, ndead);
	rec_end(w, start);
}

int
ft_rec_writer_flush(struct ft_rec_writer *w)
{
	if (w->err == 0 && w->b.len > 0 && w->fd != -1) {
		if (write_all(w->fd, w->b.p, w->b.len) != 0)
			w->err = errno;
		w->b.len = 0;
	}
	if (w->err != 0) {
		errno = w->err;
		return -1;
	}
	return 0;
}

int
ft_rec_writer_close(struct ft_rec_writer *w, int ended)
{
	size_t start;
	int rc;

	if (ended && w->err == 0) {
		start = rec_begin(w, FT_REC_END);
		ft_put64(&w->b, w->nsend);
		ft_put64(&w->b, w->nmatch);
		ft_put64(&w->b, w->nnd);
		rec_end(w, start);
	}
	rc = ft_rec_writer_flush(w);
	if (w->fd != -1 && close(w->fd) != 0 && rc == 0) {
		w->err = errno;
		rc = -1;
	}
	w->fd = -1;
	ft_wbuf_release(&w->b);
	ft__zstd_free(w->zctx);
	w->zctx = NULL;
	if (rc != 0)
		errno = w->err;
	return rc;
}

/* Comparing a send with its record. */

int
ft_rec_diff(const struct ft_rec_send *rec, const struct ft_rec_send *now,
    char *what, size_t size)
{
	uint32_t i;
	uint64_t a, b;

	if (rec->ctx != now->ctx)
		snprintf(what, size, "the communicator (context %" PRIu32
		    " recorded, %" PRIu32 " now)", rec->ctx, now->ctx);
	else if (rec->dst != now->dst)
		snprintf(what, size, "the destination (rank %" PRIu32
		    " recorded, %" PRIu32 " now)", rec->dst, now->dst);
	else if (rec->tag != now->tag)
		snprintf(what, size, "the tag (%" PRId32 " recorded, %"
		    PRId32 " now)", rec->tag, now->tag);
	else if (rec->len != now->len)
		snprintf(what, size, "the size (%" PRIu64 " bytes recorded, %"
		    PRIu64 " now)", rec->len, now->len);
	else if (rec->crc != now->crc) {
		for (i = 0; i < rec->nblk && i < now->nblk; i++)
			if (rec->blk[i] != now->blk[i])
				break;
		a = (uint64_t)i * rec->bsize;
		b = a + rec->bsize > rec->len ? rec->len : a + rec->bsize;
		snprintf(what, size, "the payload, first in bytes %" PRIu64
		    "-%" PRIu64, a, b - 1);
	} else
		return 0;
	return 1;
}

/* The reader. */

static int
rfail(char *why, size_t size, int err, const char *name, uint64_t off,
    const char *what)
{
	snprintf(why, size, "record '%s': %s at offset %" PRIu64, name, what,
	    off);
	errno = err;
	return -1;
}

static int
add_match(struct ft_rec *r, struct ft_rbuf *b)
{
	struct ft_rec_match *m;

	if ((m = ft_grow(r->m, &r->capm, r->nm, sizeof(*m))) == NULL)
		return -1;
	r->m = m;
	m = &r->m[r->nm];
	memset(m, 0, sizeof(*m));
	m->ctx = ft_get32(b);
	m->src = ft_get32(b);
	m->csrc = ft_get32(b);
	m->tag = (int32_t)ft_get32(b);
	m->seq = ft_get64(b);
	m->len = ft_get64(b);
	if (b->err == 0)
		r->nm++;
	return 0;
}

/*
 * DATA: find the message it belongs to, the newest first.  at is 0 for
 * a payload in b, else the file offset of its stored bytes, left in
 * the file (ft_rec_open).
 */
static int
add_data(struct ft_rec *r, struct ft_rbuf *b, const char **what,
    uint64_t at, size_t stored)
{
	struct ft_rec_match *m = NULL;
	uint64_t seq, raw;
	uint32_t src;
	size_t i, left;
	int z;

	src = ft_get32(b);
	seq = ft_get64(b);
	raw = ft_get64(b);
	z = ft_get8(b);
	if (b->err != 0)
		return 0;
	left = at == 0 ? ft_rbuf_left(b) : stored;
	if (raw > FT_REC_DATA_MAX || z > 1 || (!z && left != raw)) {
		*what = "a malformed message payload";
		errno = EPROTO;
		return -1;
	}
	for (i = r->nm; i > 0; i--)
		if (r->m[i - 1].src == src && r->m[i - 1].seq == seq) {
			m = &r->m[i - 1];
			break;
		}
	if (m == NULL || m->has_data) {
		*what = m == NULL ? "the payload of a message never matched" :
		    "a second payload for one message";
		errno = EPROTO;
		return -1;
	}
	if (at != 0) {
		m->off = at;
		m->zlen = left;
		m->z = z;
	} else if (raw > 0 && (m->data = malloc(raw)) == NULL) {
		*what = "no memory for a payload";
		return -1;
	}
	if (at != 0)
		;
	else if (!z && raw > 0)
		memcpy(m->data, b->p + b->off, raw);
	else if (z && ft__zstd_unpack(b->p + b->off, left, m->data,
	    raw) != 0) {
		free(m->data);
		m->data = NULL;
		*what = "a corrupt compressed payload";
		errno = EBADMSG;
		return -1;
	}
	b->off = b->len;
	m->dlen = raw;
	m->has_data = 1;
	r->bytes += raw;
	return 0;
}

static int
add_send(struct ft_rec *r, struct ft_rbuf *b, const char **what)
{
	struct ft_rec_send *s;
	uint8_t be[4 * FT_REC_BLOCKS];
	uint32_t i;

	if ((s = ft_grow(r->s, &r->caps, r->ns, sizeof(*s))) == NULL) {
		*what = "no memory";
		return -1;
	}
	r->s = s;
	s = &r->s[r->ns];
	memset(s, 0, sizeof(*s));
	s->n = ft_get64(b);
	s->ctx = ft_get32(b);
	s->dst = ft_get32(b);
	s->tag = (int32_t)ft_get32(b);
	s->len = ft_get64(b);
	s->crc = ft_get32(b);
	s->bsize = ft_get32(b);
	s->nblk = ft_get32(b);
	if (b->err != 0)
		return 0;
	if (s->n != r->ns || s->nblk > FT_REC_BLOCKS || s->bsize == 0 ||
	    s->nblk != (s->len + s->bsize - 1) / s->bsize) {
		*what = "a malformed send digest";
		errno = EPROTO;
		return -1;
	}
	for (i = 0; i < s->nblk; i++) {
		s->blk[i] = ft_get32(b);
		be[4 * i] = (uint8_t)(s->blk[i] >> 24);
		be[4 * i + 1] = (uint8_t)(s->blk[i] >> 16);
		be[4 * i + 2] = (uint8_t)(s->blk[i] >> 8);
		be[4 * i + 3] = (uint8_t)s->blk[i];
	}
	if (b->err != 0)
		return 0;
	if (ft_crc32c(0, be, 4 * (size_t)s->nblk) != s->crc) {
		*what = "a send digest whose blocks disagree with it";
		errno = EPROTO;
		return -1;
	}
	r->ns++;
	return 0;
}

static int
add_nd(struct ft_rec *r, struct ft_rbuf *b, const char **what)
{
	struct ft_rec_nd *d;

	if ((d = ft_grow(r->nd, &r->capnd, r->nnd, sizeof(*d))) == NULL) {
		*what = "no memory";
		return -1;
	}
	r->nd = d;
	d = &r->nd[r->nnd];
	d->kind = ft_get32(b);
	d->v[0] = ft_get64(b);
	d->v[1] = ft_get64(b);
	d->v[2] = ft_get64(b);
	if (b->err == 0)
		r->nnd++;
	return 0;
}

/* One record's payload (at, stored: see add_data). */
static int
add_rec(struct ft_rec *r, const uint8_t *p, size_t len, const char **what,
    uint64_t at, size_t stored)
{
	struct ft_rbuf b;
	uint64_t ns, nm, nnd;
	int rc = 0;

	ft_rbuf_init(&b, p, len);
	if (r->ended) {
		*what = "a record after the end record";
		errno = EPROTO;
		return -1;
	}
	switch (ft_get8(&b)) {
	case FT_REC_MATCH:
		if ((rc = add_match(r, &b)) != 0)
			*what = "no memory";
		break;
	case FT_REC_DATA:
		rc = add_data(r, &b, what, at, stored);
		break;
	case FT_REC_SEND:
		rc = add_send(r, &b, what);
		break;
	case FT_REC_ND:
		rc = add_nd(r, &b, what);
		break;
	case FT_REC_FAIL:
		(void)ft_get32(&b);
		r->nfail++;
		break;
	case FT_REC_END:
		ns = ft_get64(&b);
		nm = ft_get64(&b);
		nnd = ft_get64(&b);
		if (b.err == 0 && (ns != r->ns || nm != r->nm ||
		    nnd != r->nnd)) {
			*what = "an end record whose counts disagree with "
			    "the records before it";
			errno = EPROTO;
			return -1;
		}
		r->ended = 1;
		break;
	default:
		*what = "a record of an unknown type";
		errno = EPROTO;
		return -1;
	}
	if (rc != 0)
		return -1;
	if (b.err != 0 || ft_rbuf_left(&b) != 0) {
		*what = "a malformed record";
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int
ft_rec_load_mem(struct ft_rec *r, const uint8_t *p, size_t len,
    const char *name, char *why, size_t size)
{
	struct ft_rbuf b;
	const char *what = NULL;
	uint32_t magic, ver, rlen, crc;
	size_t off;

	memset(r, 0, sizeof(*r));
	ft_rbuf_init(&b, p, len);
	magic = ft_get32(&b);
	ver = ft_get16(&b);
	(void)ft_get16(&b);
	if (b.err != 0 || magic != FT_REC_MAGIC)
		return rfail(why, size, b.err != 0 && len >= 4 &&
		    magic == FT_REC_MAGIC ? EMSGSIZE : EPROTO, name, 0,
		    "not a record of ftrun --record (bad magic)");
	if (ver != FT_REC_VERSION)
		return rfail(why, size, ENOTSUP, name, 4,
		    "a version this build does not read");
	if (len < FT_REC_HDRLEN)
		return rfail(why, size, EMSGSIZE, name, len,
		    "truncated header");
	if (ft_crc32c(0, p, FT_REC_HDRLEN - 4) !=
	    ((uint32_t)p[48] << 24 | (uint32_t)p[49] << 16 |
	    (uint32_t)p[50] << 8 | p[51]))
		return rfail(why, size, EBADMSG, name, 0,
		    "corrupt header (bad checksum)");
	r->h.version = ver;
	r->h.rank = ft_get32(&b);
	r->h.size = ft_get32(&b);
	r->h.replica = ft_get32(&b);
	r->h.universe = ft_get32(&b);
	r->h.job = ft_get64(&b);
	ft_getbytes(&b, r->h.proto, FT_REC_PROTO_MAX);
	r->h.proto[FT_REC_PROTO_MAX] = '\0';
	if (r->h.size == 0 || r->h.rank >= r->h.size ||
	    r->h.size > FT_WIRE_MAX_RANKS || p[8 - 2] != 0 || p[8 - 1] != 0)
		return rfail(why, size, EPROTO, name, 8,
		    "a header with a bad rank, size or flags");
	off = FT_REC_HDRLEN;
	while (off < len) {
		if (len - off < FT_REC_RECHDR) {
			r->torn = len - off;
			break;
		}
		ft_rbuf_init(&b, p + off, FT_REC_RECHDR);
		rlen = ft_get32(&b);
		crc = ft_get32(&b);
		if (rlen == 0 || rlen > FT_REC_MAX) {
			ft_rec_free(r);
			return rfail(why, size, EPROTO, name, off,
			    "a record with a bad length");
		}
		if (len - off - FT_REC_RECHDR < rlen) {
			r->torn = len - off;
			break;
		}
		if (ft_crc32c(ft_crc32c(0, p + off, 4), p + off +
		    FT_REC_RECHDR, rlen) != crc) {
			ft_rec_free(r);
			return rfail(why, size, EBADMSG, name, off,
			    "corrupt record (bad checksum)");
		}
		if (add_rec(r, p + off + FT_REC_RECHDR, rlen, &what, 0,
		    0) != 0) {
			int saved = errno;

			ft_rec_free(r);
			return rfail(why, size, saved, name, off,
			    what != NULL ? what : "a bad record");
		}
		off += FT_REC_RECHDR + rlen;
	}
	return 0;
}

/* Open the record file path, a regular file: its fd, or -1 with why. */
static int
open_file(const char *path, struct stat *st, char *why, size_t size)
{
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		saved = errno;
		snprintf(why, size, "unable to open '%s': %s", path,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		saved = S_ISREG(st->st_mode) ? errno : EINVAL;
		snprintf(why, size, "record '%s': not a regular file", path);
		(void)close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int
ft_rec_load(struct ft_rec *r, const char *path, char *why, size_t size)
{
	struct stat st;
	uint8_t *p = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, rc, saved;

	memset(r, 0, sizeof(*r));
	if ((fd = open_file(path, &st, why, size)) == -1)
		return -1;
	if (st.st_size > 0 && (p = malloc((size_t)st.st_size)) == NULL) {
		saved = errno;
		snprintf(why, size, "record '%s': no memory for %lld bytes",
		    path, (long long)st.st_size);
		(void)close(fd);
		errno = saved;
		return -1;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, p + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n < 0 ? errno : EIO;
			snprintf(why, size, "unable to read '%s': %s", path,
			    strerror(saved));
			free(p);
			(void)close(fd);
			errno = saved;
			return -1;
		}
		got += (size_t)n;
	}
	(void)close(fd);
	rc = ft_rec_load_mem(r, p, got, path, why, size);
	saved = errno;
	free(p);
	errno = saved;
	return rc;
}

void
ft_rec_free(struct ft_rec *r)
{
	size_t i;

	if (r->lazy)
		(void)close(r->fd);
	for (i = 0; i < r->nm; i++)
		free(r->m[i].data);
	/* A match being added when memory ran out is not counted. */
	free(r->m);
	free(r->s);
	free(r->nd);
	memset(r, 0, sizeof(*r));
}

/* The streaming reader (ft_rec_open, ft_rec_payload). */

/* DATA's fields before its bytes: type, src, seq, raw length, zstd. */
#define DATA_FIXED	(1 + 4 + 8 + 8 + 1)

static int
pread_all(int fd, void *dst, size_t len, uint64_t off)
{
	uint8_t *p = dst;
	ssize_t n;

	while (len > 0) {
		n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * The record at off, rlen bytes, whose crc is crc: checked through the
 * window, and added; a DATA record's bytes are left in the file.
 */
static int
open_rec(struct ft_rec *r, uint8_t *win, uint64_t off, uint32_t rlen,
    uint32_t crc, const char **what)
{
	uint8_t fixed[DATA_FIXED];
	uint64_t at = off + FT_REC_RECHDR, end = at + rlen;
	uint32_t c;
	size_t n = rlen < FT_REC_WINDOW ? rlen : FT_REC_WINDOW;

	if (pread_all(r->fd, win, n, at) != 0) {
		*what = "unable to read a record";
		return -1;
	}
	/* Over the length's bytes (before win), then the payload's. */
	c = ft_crc32c(ft_crc32c(0, win - FT_REC_RECHDR, 4), win, n);
	if (win[0] == FT_REC_DATA && rlen > DATA_FIXED) {
		memcpy(fixed, win, DATA_FIXED);
		for (at += n; at < end; at += n) {
			n = end - at < FT_REC_WINDOW ? (size_t)(end - at) :
			    FT_REC_WINDOW;
			if (pread_all(r->fd, win, n, at) != 0) {
				*what = "unable to read a record";
				return -1;
			}
			c = ft_crc32c(c, win, n);
		}
		if (c != crc) {
			*what = "corrupt record (bad checksum)";
			errno = EBADMSG;
			return -1;
		}
		return add_rec(r, fixed, DATA_FIXED, what, off +
		    FT_REC_RECHDR + DATA_FIXED, rlen - DATA_FIXED);
	}
	if (rlen > FT_REC_WINDOW) {
		/* Only a payload is this large. */
		*what = "a malformed record";
		errno = EPROTO;
		return -1;
	}
	if (c != crc) {
		*what = "corrupt record (bad checksum)";
		errno = EBADMSG;
		return -1;
	}
	return add_rec(r, win, rlen, what, 0, 0);
}

int
ft_rec_open(struct ft_rec *r, const char *path, char *why, size_t size)
{
	uint8_t hdr[FT_REC_HDRLEN], *buf = NULL;
	const char *what = NULL;
	struct stat st;
	uint64_t off, fsize;
	uint32_t rlen, crc;
	struct ft_rbuf b;
	int fd, saved;

	memset(r, 0, sizeof(*r));
	if ((fd = open_file(path, &st, why, size)) == -1)
		return -1;
	fsize = (uint64_t)st.st_size;
	/* The header, checked by the reader in memory (no records). */
	off = fsize < FT_REC_HDRLEN ? fsize : FT_REC_HDRLEN;
	if (pread_all(fd, hdr, (size_t)off, 0) != 0) {
		saved = errno;
		snprintf(why, size, "unable to read '%s': %s", path,
		    strerror(saved));
		(void)close(fd);
		errno = saved;
		return -1;
	}
	if (ft_rec_load_mem(r, hdr, (size_t)off, path, why, size) != 0) {
		saved = errno;
		(void)close(fd);
		errno = saved;
		return -1;
	}
	r->fd = fd;
	r->lazy = 1;
	/* The window, after room for a record's header (open_rec). */
	if ((buf = malloc(FT_REC_RECHDR + FT_REC_WINDOW)) == NULL) {
		saved = errno;
		ft_rec_free(r);
		snprintf(why, size, "record '%s': no memory", path);
		errno = saved;
		return -1;
	}
	while (off < fsize) {
		if (fsize - off < FT_REC_RECHDR) {
			r->torn = fsize - off;
			break;
		}
		if (pread_all(fd, buf, FT_REC_RECHDR, off) != 0) {
			what = "unable to read a record";
			goto fail;
		}
		ft_rbuf_init(&b, buf, FT_REC_RECHDR);
		rlen = ft_get32(&b);
		crc = ft_get32(&b);
		if (rlen == 0 || rlen > FT_REC_MAX) {
			what = "a record with a bad length";
			errno = EPROTO;
			goto fail;
		}
		if (fsize - off - FT_REC_RECHDR < rlen) {
			r->torn = fsize - off;
			break;
		}
		if (open_rec(r, buf + FT_REC_RECHDR, off, rlen, crc,
		    &what) != 0)
			goto fail;
		off += FT_REC_RECHDR + rlen;
	}
	free(buf);
	return 0;
fail:
	saved = errno;
	free(buf);
	ft_rec_free(r);
	return rfail(why, size, saved, path, off, what != NULL ? what :
	    "a bad record");
}

int
ft_rec_payload(const struct ft_rec *r, size_t i, void *dst)
{
	const struct ft_rec_match *m;
	uint8_t *z;
	int rc, saved;

	if (i >= r->nm || !(m = &r->m[i])->has_data) {
		errno = EINVAL;
		return -1;
	}
	if (m->dlen == 0)
		return 0;
	if (m->data != NULL) {
		memcpy(dst, m->data, m->dlen);
		return 0;
	}
	if (!r->lazy) {
		errno = EINVAL;
		return -1;
	}
	if (!m->z)
		return pread_all(r->fd, dst, m->dlen, m->off);
	if ((z = malloc(m->zlen)) == NULL)
		return -1;
	if ((rc = pread_all(r->fd, z, m->zlen, m->off)) == 0)
		rc = ft__zstd_unpack(z, m->zlen, dst, m->dlen);
	saved = errno;
	free(z);
	errno = saved;
	return rc;
}

/* Rank 0's standard input (see store.h). */

int
ft_rec_stdin_open(struct ft_rec_stdin *w, const char *dir)
{
	char path[4096];

	memset(w, 0, sizeof(*w));
	ft_wbuf_init(&w->b);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, FT_REC_STDIN) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		w->fd = -1;
		return -1;
	}
	if ((w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		return -1;
	return 0;
}

void
ft_rec_stdin_add(struct ft_rec_stdin *w, const void *p, size_t len)
{
	if (w->fd == -1 || len == 0)
		return;
	w->b.len = 0;
	if (ft__zstd_pack(&w->b, &w->zctx, p, len, ZLEVEL) != 0 ||
	    write_all(w->fd, w->b.p, w->b.len) != 0) {
		ft_warn("ftrun --record: rank 0's standard input is recorded "
		    "up to byte %" PRIu64 " only", w->bytes);
		(void)close(w->fd);
		w->fd = -1;
		return;
	}
	w->bytes += len;
}

void
ft_rec_stdin_close(struct ft_rec_stdin *w)
{
	if (w->fd != -1)
		(void)close(w->fd);
	w->fd = -1;
	ft__zstd_free(w->zctx);
	w->zctx = NULL;
	ft_wbuf_release(&w->b);
}
