/* SPDX-License-Identifier: ISC */
/*
 * The event logger's frames (ftlog(1)) and the determinant, whose
 * encoding is also a log record's payload (ft-log(5)).  Same rules as
 * wire.c: fixed fields through a bounded cursor, counts checked against
 * their bound and against what the body can hold, the body consumed
 * exactly.  Encoders refuse (EINVAL) what the decoders would refuse, so
 * that every encoding is canonical.
 */
#include "wire.h"

_Static_assert(FT_DET_FIXED == 1 + 1 + 2 + 8 + 8 + 4 + 8 + 4,
    "a delivery's determinant is 36 bytes");
_Static_assert(FT_DET_MAXLEN == FT_DET_FIXED + 3 * 8 + 8,
    "another event's determinant is 60 bytes, 68 with its channel seq");
_Static_assert(FT_WIRE_HDRLEN + 32 + FT_LOG_BATCH_MAX * FT_DET_MAXLEN <=
    FT_FRAME_MAX, "a full batch fits in a frame");

#define ACK_BYTES	(8 + 4 + 8 + 8)

static int
det_ok(const struct ft_det *d)
{
	return d->seq != 0 && d->kind <= FT_DET_KIND_MAX &&
	    (d->kind != FT_DET_DELIVERY ||
	    (d->v[0] == 0 && d->v[1] == 0 && d->v[2] == 0)) &&
	    (d->flags & ~FT_DET_F_CSEQ) == 0 &&
	    ((d->flags & FT_DET_F_CSEQ) == 0 ? d->cseq == 0 :
	    d->kind == FT_DET_DELIVERY || d->kind == FT_ND_ANYSRC_KIND);
}

size_t
ft_det_size(const struct ft_det *d)
{
	return (d->kind == FT_DET_DELIVERY ? FT_DET_FIXED :
	    FT_DET_FIXED + 3 * 8) + ((d->flags & FT_DET_F_CSEQ) ? 8 : 0);
}

/*
 * Built in place and appended once (issue 13: the logger client encodes
 * every determinant; one append instead of 8 to 11 cost 420
 * instructions a determinant).  The layout is ft-log(5)'s.
 */
void
ft_det_put(struct ft_wbuf *b, const struct ft_det *d)
{
	uint8_t q[FT_DET_FIXED + 4 * 8];
	size_t n = FT_DET_FIXED;

	q[0] = FT_DET_TYPE;
	q[1] = (uint8_t)d->kind;
	q[2] = (uint8_t)(d->flags >> 8);
	q[3] = (uint8_t)d->flags;
	ft_be64(q + 4, d->seq);
	ft_be64(q + 12, d->clock);
	ft_be32(q + 20, d->sender);
	ft_be64(q + 24, d->sclock);
	ft_be32(q + 32, d->probes);
	if (d->kind != FT_DET_DELIVERY) {
		ft_be64(q + n, d->v[0]);
		ft_be64(q + n + 8, d->v[1]);
		ft_be64(q + n + 16, d->v[2]);
		n += 24;
	}
	if (d->flags & FT_DET_F_CSEQ) {
		ft_be64(q + n, d->cseq);
		n += 8;
	}
	ft_putbytes(b, q, n);
}

void
ft_det_get(struct ft_rbuf *r, struct ft_det *d)
{
	uint8_t type;
	uint16_t flags;

	memset(d, 0, sizeof(*d));
	type = ft_get8(r);
	d->kind = ft_get8(r);
	flags = ft_get16(r);
	d->seq = ft_get64(r);
	d->clock = ft_get64(r);
	d->sender = ft_get32(r);
	d->sclock = ft_get64(r);
	d->probes = ft_get32(r);
	if (r->err == 0 && d->kind != FT_DET_DELIVERY) {
		d->v[0] = ft_get64(r);
		d->v[1] = ft_get64(r);
		d->v[2] = ft_get64(r);
	}
	d->flags = flags;
	if (r->err == 0 && (flags & FT_DET_F_CSEQ) != 0 &&
	    (d->kind == FT_DET_DELIVERY || d->kind == FT_ND_ANYSRC_KIND))
		d->cseq = ft_get64(r);
	if (r->err == 0 && (type != FT_DET_TYPE ||
	    (flags & ~FT_DET_F_CSEQ) != 0 || ((flags & FT_DET_F_CSEQ) != 0 &&
	    d->kind != FT_DET_DELIVERY && d->kind != FT_ND_ANYSRC_KIND) ||
	    d->seq == 0 || d->kind > FT_DET_KIND_MAX))
		r->err = EPROTO;
}

/* Put n determinants, refusing a malformed one. */
static int
dets_ok(const struct ft_det *d, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!det_ok(&d[i]))
			return 0;
	return 1;
}

/*
 * Read n determinants into d, after checking n against cap and against
 * what is left (each takes FT_DET_FIXED bytes at least).
 */
static void
dets_get(struct ft_rbuf *r, struct ft_det *d, uint32_t n, uint32_t cap)
{
	uint32_t i;

	if (r->err != 0)
		return;
	if (n > cap || n > ft_rbuf_left(r) / FT_DET_FIXED) {
		r->err = EPROTO;
		return;
	}
	for (i = 0; i < n && r->err == 0; i++)
		ft_det_get(r, &d[i]);
}

int
ft_msg_log_append_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_log_append *m)
{
	size_t s;
	uint32_t i;

	if (m->n == 0 || m->n > FT_LOG_BATCH_MAX || !dets_ok(m->d, m->n)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_LOG_APPEND, sender, 0);
	ft_put64(b, m->job);
	ft_put32(b, m->rank);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		ft_det_put(b, &m->d[i]);
	if (m->inc != 0)
		ft_put32(b, m->inc);
	return ft__frame_end(b, s);
}

int
ft_msg_log_append_decode(const uint8_t *p, size_t len,
    struct ft_msg_log_append *m, uint32_t cap)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->job = ft_get64(&r);
	m->rank = ft_get32(&r);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->n == 0 || m->n > FT_LOG_BATCH_MAX))
		r.err = EPROTO;
	dets_get(&r, m->d, m->n, cap);
	m->inc = 0;
	if (r.err == 0 && ft_rbuf_left(&r) == 4 && (m->inc = ft_get32(&r)) == 0)
		r.err = EPROTO;		/* 0 is said by leaving it out */
	if (r.err != 0)
		m->n = 0;
	return ft__decode_done(&r);
}

int
ft_msg_log_ack_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_log_ack *m)
{
	size_t s;
	uint32_t i;

	if (m->n == 0 || m->n > FT_LOG_ACK_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_LOG_ACK, sender, 0);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put64(b, m->e[i].job);
		ft_put32(b, m->e[i].rank);
		ft_put64(b, m->e[i].seq);
		ft_put64(b, m->e[i].clock);
	}
	return ft__frame_end(b, s);
}

int
ft_msg_log_ack_decode(const uint8_t *p, size_t len, struct ft_msg_log_ack *m,
    uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i, n;

	ft_rbuf_init(&r, p, len);
	n = ft_get32(&r);
	if (r.err == 0 && (n == 0 || n > FT_LOG_ACK_MAX || n > cap ||
	    n > ft_rbuf_left(&r) / ACK_BYTES))
		r.err = EPROTO;
	for (i = 0; i < n && r.err == 0; i++) {
		m->e[i].job = ft_get64(&r);
		m->e[i].rank = ft_get32(&r);
		m->e[i].seq = ft_get64(&r);
		m->e[i].clock = ft_get64(&r);
	}
	m->n = r.err == 0 ? n : 0;
	return ft__decode_done(&r);
}

int
ft_msg_log_fetch_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_log_fetch *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_LOG_FETCH, sender, 0);

	ft_put32(b, m->reqid);
	ft_put64(b, m->job);
	ft_put32(b, m->rank);
	ft_put64(b, m->from_seq);
	ft_put64(b, m->from_clock);
	return ft__frame_end(b, s);
}

int
ft_msg_log_fetch_decode(const uint8_t *p, size_t len,
    struct ft_msg_log_fetch *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->job = ft_get64(&r);
	m->rank = ft_get32(&r);
	m->from_seq = ft_get64(&r);
	m->from_clock = ft_get64(&r);
	return ft__decode_done(&r);
}

int
ft_msg_log_records_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_log_records *m)
{
	size_t s;
	uint32_t i;

	if (m->n > FT_LOG_BATCH_MAX || (m->flags & ~FT_LOG_LAST) != 0 ||
	    (m->n == 0 && m->flags != FT_LOG_LAST) || !dets_ok(m->d, m->n)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_LOG_RECORDS, sender, 0);
	ft_put32(b, m->reqid);
	ft_put64(b, m->job);
	ft_put32(b, m->rank);
	ft_put32(b, m->flags);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		ft_det_put(b, &m->d[i]);
	return ft__frame_end(b, s);
}

int
ft_msg_log_records_decode(const uint8_t *p, size_t len,
    struct ft_msg_log_records *m, uint32_t cap)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->job = ft_get64(&r);
	m->rank = ft_get32(&r);
	m->flags = ft_get32(&r);
	m->n = ft_get32(&r);
	if (r.err == 0 && ((m->flags & ~FT_LOG_LAST) != 0 ||
	    m->n > FT_LOG_BATCH_MAX || (m->n == 0 && m->flags != FT_LOG_LAST)))
		r.err = EPROTO;
	dets_get(&r, m->d, m->n, cap);
	if (r.err != 0)
		m->n = 0;
	return ft__decode_done(&r);
}

int
ft_msg_log_error_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_log_error *m)
{
	size_t s;

	if (m->code == 0 || m->code > FT_LOG_ERR_MAX ||
	    strnlen(m->text, sizeof(m->text)) == sizeof(m->text)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_LOG_ERROR, sender, 0);
	ft_put32(b, m->reqid);
	ft_put64(b, m->job);
	ft_put32(b, m->rank);
	ft_put32(b, m->code);
	ft_put64(b, m->seq);
	ft_putstr(b, m->text);
	return ft__frame_end(b, s);
}

int
ft_msg_log_error_decode(const uint8_t *p, size_t len,
    struct ft_msg_log_error *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->job = ft_get64(&r);
	m->rank = ft_get32(&r);
	m->code = ft_get32(&r);
	m->seq = ft_get64(&r);
	ft_getstr(&r, m->text, sizeof(m->text));
	if (r.err == 0 && (m->code == 0 || m->code > FT_LOG_ERR_MAX))
		r.err = EPROTO;
	return ft__decode_done(&r);
}

int
ft_msg_log_query_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_log_query *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_LOG_QUERY, sender, 0);

	ft_put64(b, m->job);
	ft_put32(b, m->rank);
	if (m->inc != 0)
		ft_put32(b, m->inc);
	return ft__frame_end(b, s);
}

int
ft_msg_log_query_decode(const uint8_t *p, size_t len,
    struct ft_msg_log_query *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->job = ft_get64(&r);
	m->rank = ft_get32(&r);
	m->inc = 0;
	if (r.err == 0 && ft_rbuf_left(&r) == 4 && (m->inc = ft_get32(&r)) == 0)
		r.err = EPROTO;		/* 0 is said by leaving it out */
	return ft__decode_done(&r);
}
