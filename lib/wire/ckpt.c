/* SPDX-License-Identifier: ISC */
/*
 * The checkpoint server's frames (ftckpt(1)): requests, uploads and
 * downloads of images in chunks, listings and results.  Same rules as
 * wire.c: fixed fields through a bounded cursor, counts checked against
 * their bound and against what the body holds, the body consumed
 * exactly; encoders refuse what decoders would refuse.
 */
#include "wire.h"

_Static_assert(FT_CKPT_ENTRY_LEN == 8 + 4 + 8 + 4 + 8 + 8 + 8 + 4,
    "an entry is 52 bytes");
_Static_assert(FT_WIRE_HDRLEN + 12 + FT_CKPT_ENTRIES_MAX *
    FT_CKPT_ENTRY_LEN <= FT_FRAME_MAX, "a full ENTRIES fits in a frame");
_Static_assert(FT_WIRE_HDRLEN + FT_CKPT_DATA_FIXED + FT_CKPT_CHUNK <=
    FT_FRAME_MAX, "a chunk fits in a frame");

static int
req_ok(const struct ft_msg_ckpt_req *m)
{
	return m->op >= 1 && m->op <= FT_CKPT_OP_MAX &&
	    (m->flags & ~FT_CKPT_REQ_FLAGS) == 0 &&
	    m->rank < FT_WIRE_MAX_RANKS && (m->op != FT_CKPT_GC ||
	    (m->epoch != 0 && m->keep != 0 && (m->flags &
	    (FT_CKPT_ALLJOBS | FT_CKPT_ALLRANKS)) == 0));
}

int
ft_msg_ckpt_req_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_ckpt_req *m)
{
	size_t s;

	if (!req_ok(m)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_CKPT_REQ, sender, 0);
	ft_put32(b, m->reqid);
	ft_put8(b, m->op);
	ft_put8(b, 0);
	ft_put16(b, m->flags);
	ft_put64(b, m->job);
	ft_put32(b, m->rank);
	ft_put64(b, m->epoch);
	ft_put32(b, m->keep);
	ft_put64(b, m->older_ns);
	return ft__frame_end(b, s);
}

int
ft_msg_ckpt_req_decode(const uint8_t *p, size_t len,
    struct ft_msg_ckpt_req *m)
{
	struct ft_rbuf r;
	uint8_t zero;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->op = ft_get8(&r);
	zero = ft_get8(&r);
	m->flags = ft_get16(&r);
	m->job = ft_get64(&r);
	m->rank = ft_get32(&r);
	m->epoch = ft_get64(&r);
	m->keep = ft_get32(&r);
	m->older_ns = ft_get64(&r);
	if (r.err == 0 && (zero != 0 || !req_ok(m)))
		r.err = EPROTO;
	return ft__decode_done(&r);
}

static int
put_ok(const struct ft_msg_ckpt_put *m)
{
	return m->rank < FT_WIRE_MAX_RANKS && m->epoch != 0 &&
	    m->size != 0 && m->size <= FT_CKPT_IMAGE_MAX;
}

int
ft_msg_ckpt_put_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_ckpt_put *m)
{
	size_t s;

	if (!put_ok(m)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_CKPT_PUT, sender, 0);
	ft_put32(b, m->reqid);
	ft_put64(b, m->job);
	ft_put32(b, m->rank);
	ft_put64(b, m->epoch);
	ft_put64(b, m->size);
	return ft__frame_end(b, s);
}

int
ft_msg_ckpt_put_decode(const uint8_t *p, size_t len,
    struct ft_msg_ckpt_put *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->job = ft_get64(&r);
	m->rank = ft_get32(&r);
	m->epoch = ft_get64(&r);
	m->size = ft_get64(&r);
	if (r.err == 0 && !put_ok(m))
		r.err = EPROTO;
	return ft__decode_done(&r);
}

int
ft_msg_ckpt_data_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_ckpt_data *m)
{
	size_t s;

	if (m->len == 0 || m->len > FT_CKPT_CHUNK) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_CKPT_DATA, sender, 0);
	ft_put32(b, m->reqid);
	ft_putbytes(b, m->data, m->len);
	return ft__frame_end(b, s);
}

int
ft_msg_ckpt_data_decode(const uint8_t *p, size_t len,
    struct ft_msg_ckpt_data *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->len = ft_rbuf_left(&r);
	m->data = p + r.off;
	if (r.err == 0 && (m->len == 0 || m->len > FT_CKPT_CHUNK))
		r.err = EPROTO;
	if (r.err == 0)
		r.off = r.len;
	return ft__decode_done(&r);
}

static int
ent_ok(const struct ft_ckpt_ent *e)
{
	return e->rank < FT_WIRE_MAX_RANKS && e->epoch != 0 &&
	    e->nranks <= FT_WIRE_MAX_RANKS && e->state <= FT_CKPT_STATE_MAX;
}

int
ft_msg_ckpt_entries_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_ckpt_entries *m)
{
	size_t s;
	uint32_t i;

	if (m->n > FT_CKPT_ENTRIES_MAX || (m->flags & ~FT_CKPT_LAST) != 0 ||
	    (m->n == 0 && m->flags != FT_CKPT_LAST)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < m->n; i++)
		if (!ent_ok(&m->e[i])) {
			errno = EINVAL;
			return -1;
		}
	s = ft__frame_begin(b, FT_MSG_CKPT_ENTRIES, sender, 0);
	ft_put32(b, m->reqid);
	ft_put32(b, m->flags);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put64(b, m->e[i].job);
		ft_put32(b, m->e[i].rank);
		ft_put64(b, m->e[i].epoch);
		ft_put32(b, m->e[i].nranks);
		ft_put64(b, m->e[i].raw);
		ft_put64(b, m->e[i].stored);
		ft_put64(b, m->e[i].created_ns);
		ft_put32(b, m->e[i].state);
	}
	return ft__frame_end(b, s);
}

int
ft_msg_ckpt_entries_decode(const uint8_t *p, size_t len,
    struct ft_msg_ckpt_entries *m, uint32_t cap)
{
	struct ft_rbuf r;
	struct ft_ckpt_ent *e;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->flags = ft_get32(&r);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->n > FT_CKPT_ENTRIES_MAX || m->n > cap ||
	    (m->flags & ~FT_CKPT_LAST) != 0 ||
	    (m->n == 0 && m->flags != FT_CKPT_LAST) ||
	    m->n > ft_rbuf_left(&r) / FT_CKPT_ENTRY_LEN))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		e = &m->e[i];
		e->job = ft_get64(&r);
		e->rank = ft_get32(&r);
		e->epoch = ft_get64(&r);
		e->nranks = ft_get32(&r);
		e->raw = ft_get64(&r);
		e->stored = ft_get64(&r);
		e->created_ns = ft_get64(&r);
		e->state = ft_get32(&r);
		if (r.err == 0 && !ent_ok(e))
			r.err = EPROTO;
	}
	if (r.err != 0)
		m->n = 0;
	return ft__decode_done(&r);
}

int
ft_msg_ckpt_result_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_ckpt_result *m)
{
	size_t s;

	if (m->code > FT_CKPT_ERR_MAX ||
	    strnlen(m->text, sizeof(m->text)) == sizeof(m->text)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_CKPT_RESULT, sender, 0);
	ft_put32(b, m->reqid);
	ft_put32(b, m->code);
	ft_putstr(b, m->text);
	return ft__frame_end(b, s);
}

int
ft_msg_ckpt_result_decode(const uint8_t *p, size_t len,
    struct ft_msg_ckpt_result *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->code = ft_get32(&r);
	ft_getstr(&r, m->text, sizeof(m->text));
	if (r.err == 0 && m->code > FT_CKPT_ERR_MAX)
		r.err = EPROTO;
	return ft__decode_done(&r);
}
