/* SPDX-License-Identifier: ISC */
/*
 * Message logging's frames between ranks (protocol "vlog", ft-proto(7)):
 * RESTART and RESUME, which bring a restarted process and its peers to
 * the same account of what each holds of the other, and DIGEST, the
 * checksums of messages a restarted process made again without sending
 * them.  Same rules as wire.c: fixed fields through a bounded cursor,
 * counts checked against their bound and what the body holds, the body
 * consumed exactly.
 */
#include "wire.h"

int
ft_msg_vlog_seq_encode(struct ft_wbuf *b, uint32_t sender, unsigned int type,
    const struct ft_msg_vlog_seq *m)
{
	size_t s;

	if (type != FT_MSG_VLOG_RESTART && type != FT_MSG_VLOG_RESUME) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, type, sender, 0);
	ft_put32(b, m->inc);
	ft_put64(b, m->seq);
	return ft__frame_end(b, s);
}

int
ft_msg_vlog_seq_decode(const uint8_t *p, size_t len, struct ft_msg_vlog_seq *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->inc = ft_get32(&r);
	m->seq = ft_get64(&r);
	return ft__decode_done(&r);
}

int
ft_msg_vlog_digest_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_vlog_digest *m)
{
	size_t s;
	uint32_t i;

	if (m->n == 0 || m->n > FT_VLOG_DIGEST_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_VLOG_DIGEST, sender, 0);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put64(b, m->d[i].seq);
		ft_put32(b, m->d[i].crc);
	}
	return ft__frame_end(b, s);
}

int
ft_msg_vlog_digest_decode(const uint8_t *p, size_t len,
    struct ft_msg_vlog_digest *m, uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->n = ft_get32(&r);
	if (cap > FT_VLOG_DIGEST_MAX)
		cap = FT_VLOG_DIGEST_MAX;
	/* Bounded by the cap and by what the body holds, before use. */
	if (r.err == 0 && (m->n == 0 || m->n > cap ||
	    (size_t)m->n * 12 != r.len - r.off))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		m->d[i].seq = ft_get64(&r);
		m->d[i].crc = ft_get32(&r);
	}
	if (r.err != 0)
		m->n = 0;
	return ft__decode_done(&r);
}

int
ft_msg_vlog_gc_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_vlog_gc *m)
{
	size_t s;

	if (m->epoch == 0) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_VLOG_GC, sender, 0);
	ft_put32(b, m->inc);
	ft_put64(b, m->epoch);
	ft_put64(b, m->seq);
	return ft__frame_end(b, s);
}

int
ft_msg_vlog_gc_decode(const uint8_t *p, size_t len, struct ft_msg_vlog_gc *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->inc = ft_get32(&r);
	m->epoch = ft_get64(&r);
	m->seq = ft_get64(&r);
	if (ft__decode_done(&r) != 0)
		return -1;
	if (m->epoch == 0) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}
