/* SPDX-License-Identifier: ISC */
/*
 * Event-log segments (ft-log(5)): the header, the framing of records
 * with their CRC32C, the tell between a torn tail and a corrupt record,
 * and a reader that checks every record in bounded memory.
 */
#include <sys/stat.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store.h"

#define HDR_CRC_OFF	(FT_SEG_HDRLEN - 4)
#define READ_CHUNK	(256u << 10)

_Static_assert(FT_SEG_HDRLEN == 4 + 2 + 2 + 8 + 4 + 4 + 8 + 8 + 4 + 4,
    "the segment header is 48 bytes");
_Static_assert(FT_SEG_REC_MAX >= FT_DET_MAXLEN, "a determinant fits");

void
ft_seg_hdr_encode(uint8_t p[FT_SEG_HDRLEN], const struct ft_seg_hdr *h)
{
	memset(p, 0, FT_SEG_HDRLEN);
	ft_be32(p, FT_SEG_MAGIC);
	p[4] = (uint8_t)(h->version >> 8);
	p[5] = (uint8_t)h->version;
	p[6] = 0;
	p[7] = FT_SEG_HDRLEN;
	ft_be64(p + 8, h->job);
	ft_be32(p + 16, h->rank);
	ft_be32(p + 20, 0);
	ft_be64(p + 24, h->first_seq);
	ft_be64(p + 32, h->created_ns);
	ft_be32(p + HDR_CRC_OFF, ft_crc32c(0, p, HDR_CRC_OFF));
}

int
ft_seg_hdr_decode(const uint8_t *p, size_t len, struct ft_seg_hdr *h)
{
	if (len >= 4 && ft_rd32(p) != FT_SEG_MAGIC) {
		errno = EPROTO;
		return -1;
	}
	if (len < FT_SEG_HDRLEN) {
		errno = EMSGSIZE;
		return -1;
	}
	h->version = (uint16_t)(p[4] << 8 | p[5]);
	if (h->version < FT_SEG_VERSION_MIN || h->version > FT_SEG_VERSION) {
		errno = ENOTSUP;
		return -1;
	}
	if (ft_rd32(p + HDR_CRC_OFF) != ft_crc32c(0, p, HDR_CRC_OFF)) {
		errno = EBADMSG;
		return -1;
	}
	if ((p[6] << 8 | p[7]) != FT_SEG_HDRLEN || ft_rd32(p + 20) != 0 ||
	    ft_rd32(p + 40) != 0) {
		errno = EPROTO;
		return -1;
	}
	h->job = ft_rd64(p + 8);
	h->rank = ft_rd32(p + 16);
	h->first_seq = ft_rd64(p + 24);
	h->created_ns = ft_rd64(p + 32);
	if (h->first_seq == 0) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* Frame the payload written at b->p[start + 8..]: length and crc. */
static void
frame_rec(struct ft_wbuf *b, size_t start)
{
	uint32_t len;

	if (b->err != 0)
		return;
	len = (uint32_t)(b->len - start - FT_SEG_RECHDR);
	ft_wbuf_set32(b, start, len);
	ft_wbuf_set32(b, start + 4, ft_crc32c(ft_crc32c(0, b->p + start, 4),
	    b->p + start + FT_SEG_RECHDR, len));
}

void
ft_seg_put_det(struct ft_wbuf *b, const struct ft_det *d)
{
	size_t start = b->len;

	ft_put32(b, 0);
	ft_put32(b, 0);
	ft_det_put(b, d);
	frame_rec(b, start);
}

void
ft_seg_put_time(struct ft_wbuf *b, uint64_t ns)
{
	size_t start = b->len;

	ft_put32(b, 0);
	ft_put32(b, 0);
	ft_put8(b, FT_SEG_TIME);
	ft_put8(b, 0);
	ft_put16(b, 0);
	ft_put64(b, ns);
	frame_rec(b, start);
}

int
ft_seg_rec_get(const uint8_t *p, size_t len, struct ft_seg_rec *rec,
    size_t *used)
{
	struct ft_rbuf r;
	uint32_t n;

	if (len < 4)
		return 0;
	n = ft_rd32(p);
	if (n < FT_SEG_REC_MIN || n > FT_SEG_REC_MAX) {
		errno = EPROTO;
		return -1;
	}
	if (len < FT_SEG_RECHDR + (size_t)n)
		return 0;
	if (ft_rd32(p + 4) != ft_crc32c(ft_crc32c(0, p, 4), p + FT_SEG_RECHDR,
	    n)) {
		errno = EBADMSG;
		return -1;
	}
	memset(rec, 0, sizeof(*rec));
	ft_rbuf_init(&r, p + FT_SEG_RECHDR, n);
	rec->type = p[FT_SEG_RECHDR];
	if (rec->type == FT_SEG_TIME) {
		(void)ft_get32(&r);
		rec->time_ns = ft_get64(&r);
		if (r.err == 0 && ft_rd32(p + FT_SEG_RECHDR) !=
		    (uint32_t)FT_SEG_TIME << 24)
			r.err = EPROTO;
	} else
		ft_det_get(&r, &rec->det);
	if (r.err != 0 || r.off != r.len) {
		errno = EPROTO;
		return -1;
	}
	*used = FT_SEG_RECHDR + n;
	return 1;
}

int
ft_seg_tail_torn(const uint8_t *p, size_t len, size_t *good)
{
	struct ft_seg_rec rec;
	size_t i, used;
	uint32_t n;

	for (i = 1; i + FT_SEG_RECHDR + FT_SEG_REC_MIN <= len; i++) {
		/* Most offsets fail on the length alone: no crc to compute. */
		n = ft_rd32(p + i);
		if (n < FT_SEG_REC_MIN || n > FT_SEG_REC_MAX ||
		    i + FT_SEG_RECHDR + n > len)
			continue;
		if (ft_seg_rec_get(p + i, len - i, &rec, &used) == 1) {
			*good = i;
			return 0;
		}
	}
	return 1;
}

static int
rd_fail(struct ft_seg_reader *r, int err, const char *fmt, ...)
	FT_PRINTF(3, 4);

static int
rd_fail(struct ft_seg_reader *r, int err, const char *fmt, ...)
{
	va_list ap;
	size_t off = 0;

	ft_appendf(r->why, sizeof(r->why), &off, "segment '%s': ", r->path);
	va_start(ap, fmt);
	vsnprintf(r->why + off, sizeof(r->why) - off, fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

/* Read file bytes [pos, pos + want) into r->buf: 0, or -1 errno. */
static int
rd_fill(struct ft_seg_reader *r, uint64_t pos, size_t want)
{
	uint8_t *nb;
	ssize_t got;
	size_t have = 0;

	if (want > r->bcap) {
		if ((nb = realloc(r->buf, want)) == NULL)
			return -1;
		r->buf = nb;
		r->bcap = want;
	}
	while (have < want) {
		got = pread(r->fd, r->buf + have, want - have,
		    (off_t)(pos + have));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0) {
			/* The file shrank under us. */
			errno = EIO;
			return -1;
		}
		have += (size_t)got;
	}
	r->bpos = pos;
	r->blen = want;
	return 0;
}

int
ft_seg_reader_open(struct ft_seg_reader *r, int fd, const char *path,
    int last, uint64_t limit)
{
	struct stat st;
	const char *what;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->last = last;
	snprintf(r->path, sizeof(r->path), "%s", path);
	if (fstat(fd, &st) != 0)
		return rd_fail(r, errno, "%s", strerror(errno));
	r->size = (uint64_t)st.st_size;
	if (limit != 0 && limit < r->size)
		r->size = limit;
	if (rd_fill(r, 0, r->size < FT_SEG_HDRLEN ? (size_t)r->size :
	    FT_SEG_HDRLEN) != 0)
		return rd_fail(r, errno, "%s", strerror(errno));
	if (ft_seg_hdr_decode(r->buf, r->blen, &r->hdr) != 0) {
		switch (errno) {
		case EMSGSIZE:
			what = "a truncated header";
			break;
		case ENOTSUP:
			return rd_fail(r, ENOTSUP, "version %u, this build "
			    "reads versions %d to %d", r->blen >= 6 ?
			    (unsigned int)(r->buf[4] << 8 | r->buf[5]) : 0,
			    FT_SEG_VERSION_MIN, FT_SEG_VERSION);
		case EBADMSG:
			what = "a header with a bad checksum";
			break;
		default:
			what = "not an ft event-log segment";
		}
		return rd_fail(r, errno, "%s (%" PRIu64 " bytes)", what,
		    r->size);
	}
	r->off = FT_SEG_HDRLEN;
	r->next_seq = r->hdr.first_seq;
	r->blen = 0;
	return 0;
}

/* A bad record at r->off: a torn tail (0) or corruption (-1). */
static int
rd_bad(struct ft_seg_reader *r, int err)
{
	size_t good;
	const char *what = err == EBADMSG ? "bad checksum" :
	    err == EILSEQ ? "seq out of order" : "malformed record";

	if (!r->last)
		return rd_fail(r, EILSEQ, "corrupt record at offset %" PRIu64
		    " (%s) in a segment that is not the last", r->off, what);
	if (rd_fill(r, r->off, (size_t)(r->size - r->off)) != 0)
		return rd_fail(r, errno, "%s", strerror(errno));
	if (err == EILSEQ || !ft_seg_tail_torn(r->buf, r->blen, &good))
		return rd_fail(r, EILSEQ, "corrupt record at offset %" PRIu64
		    " (%s), followed by good ones", r->off, what);
	r->torn_off = r->off;
	r->torn = r->size - r->off;
	r->off = r->size;
	return 0;
}

int
ft_seg_reader_next(struct ft_seg_reader *r, struct ft_seg_rec *rec)
{
	size_t used, at, want;
	int rc;

	for (;;) {
		if (r->off >= r->size)
			return 0;
		at = r->off >= r->bpos && r->off - r->bpos <= r->blen ?
		    (size_t)(r->off - r->bpos) : r->blen + 1;
		if (at > r->blen) {
			r->blen = 0;
			at = 0;
			r->bpos = r->off;
		}
		rc = ft_seg_rec_get(r->buf + at, r->blen - at, rec, &used);
		if (rc < 0)
			return rd_bad(r, errno) == 0 ? 0 : -1;
		if (rc == 1)
			break;
		/* Short: read on from the record's start, unless at the end. */
		if (r->bpos + r->blen >= r->size)
			return rd_bad(r, EPROTO) == 0 ? 0 : -1;
		want = r->size - r->off < READ_CHUNK ?
		    (size_t)(r->size - r->off) : READ_CHUNK;
		if (rd_fill(r, r->off, want) != 0)
			return rd_fail(r, errno, "%s", strerror(errno));
	}
	if (rec->type == FT_DET_TYPE) {
		if (rec->det.seq != r->next_seq)
			return rd_bad(r, EILSEQ) == 0 ? 0 : -1;
		r->next_seq++;
	}
	r->off += used;
	return 1;
}

void
ft_seg_reader_release(struct ft_seg_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->bcap = r->blen = 0;
}
