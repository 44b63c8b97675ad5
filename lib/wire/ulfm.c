/* SPDX-License-Identifier: ISC */
/*
 * ULFM's frames (ft-ulfm(3)): REVOKE, which every process forwards to
 * the members of a revoked communicator, and AGREE, the steps of the
 * fault-tolerant agreement.  Same rules as wire.c: fixed fields through
 * a bounded cursor, counts checked against what the body holds, the
 * body consumed exactly.  Decoders point into the body: nothing is
 * allocated, so a peer's counts never size an allocation.
 */
#include "wire.h"

int
ft_msg_revoke_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_revoke *m)
{
	size_t s;
	uint32_t i;

	if (m->nctx == 0 || m->nctx > FT_ULFM_NCTX_MAX || m->n == 0 ||
	    m->n > FT_WIRE_MAX_RANKS || m->ctx > UINT32_MAX - m->nctx) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_ULFM_REVOKE, sender, 0);
	ft_put32(b, m->ctx);
	ft_put32(b, m->nctx);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		ft_put32(b, m->members != NULL ? m->members[i] :
		    ft_msg_revoke_member(m, i));
	return ft__frame_end(b, s);
}

int
ft_msg_revoke_decode(const uint8_t *p, size_t len, struct ft_msg_revoke *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->ctx = ft_get32(&r);
	m->nctx = ft_get32(&r);
	m->n = ft_get32(&r);
	m->members = NULL;
	m->raw = NULL;
	if (r.err == 0 && (m->nctx == 0 || m->nctx > FT_ULFM_NCTX_MAX ||
	    m->ctx > UINT32_MAX - m->nctx || m->n == 0 ||
	    m->n > FT_WIRE_MAX_RANKS || (size_t)m->n * 4 != r.len - r.off))
		r.err = EPROTO;
	if (r.err == 0) {
		m->raw = p + r.off;
		r.off = r.len;
	}
	return ft__decode_done(&r);
}

uint32_t
ft_msg_revoke_member(const struct ft_msg_revoke *m, uint32_t i)
{
	const uint8_t *q = m->raw + (size_t)i * 4;

	return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
	    (uint32_t)q[2] << 8 | q[3];
}

/* Bytes of a bitmap of n bits. */
static size_t
bmbytes(uint32_t n)
{
	return ((size_t)n + 7) / 8;
}

/* How many values an AGREE of this kind and state carries. */
static uint32_t
agree_nval(uint32_t kind, uint32_t state)
{
	switch (kind) {
	case FT_AGREE_CONTRIB:
		return state == FT_AGREE_NONE ? 1 : 2;
	case FT_AGREE_PROPOSE:
	case FT_AGREE_COMMIT:
		return 1;
	default:
		return 0;
	}
}

int
ft_msg_agree_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_agree *m)
{
	size_t s, nb = bmbytes(m->n);
	uint32_t i;

	if (m->kind == 0 || m->kind > FT_AGREE_KIND_MAX ||
	    m->state > FT_AGREE_STATE_MAX || m->n == 0 ||
	    m->n > FT_WIRE_MAX_RANKS || m->from >= m->n ||
	    m->round >= m->n || m->nval != agree_nval(m->kind, m->state)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_ULFM_AGREE, sender, 0);
	ft_put32(b, m->kind);
	ft_put32(b, m->ctx);
	ft_put32(b, m->seq);
	ft_put32(b, m->round);
	ft_put32(b, m->from);
	ft_put32(b, m->n);
	ft_put32(b, m->state);
	ft_put32(b, m->sround);
	for (i = 0; i < m->nval; i++) {
		ft_put32(b, m->v[i].flag);
		ft_put32(b, m->v[i].ctxv);
		ft_putbytes(b, m->v[i].failed, nb);
		ft_putbytes(b, m->v[i].acked, nb);
	}
	return ft__frame_end(b, s);
}

/* Are the bits of a bitmap past n zero? */
static int
bm_tail_clear(const uint8_t *bm, uint32_t n)
{
	return n % 8 == 0 || (bm[n / 8] >> (n % 8)) == 0;
}

int
ft_msg_agree_decode(const uint8_t *p, size_t len, struct ft_msg_agree *m)
{
	struct ft_rbuf r;
	size_t nb;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->kind = ft_get32(&r);
	m->ctx = ft_get32(&r);
	m->seq = ft_get32(&r);
	m->round = ft_get32(&r);
	m->from = ft_get32(&r);
	m->n = ft_get32(&r);
	m->state = ft_get32(&r);
	m->sround = ft_get32(&r);
	if (r.err == 0 && (m->kind == 0 || m->kind > FT_AGREE_KIND_MAX ||
	    m->state > FT_AGREE_STATE_MAX || m->n == 0 ||
	    m->n > FT_WIRE_MAX_RANKS || m->from >= m->n ||
	    m->round >= m->n))
		r.err = EPROTO;
	m->nval = r.err == 0 ? agree_nval(m->kind, m->state) : 0;
	nb = r.err == 0 ? bmbytes(m->n) : 0;
	if (r.err == 0 && r.len - r.off != m->nval * (8 + 2 * nb))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->nval; i++) {
		m->v[i].flag = ft_get32(&r);
		m->v[i].ctxv = ft_get32(&r);
		m->v[i].failed = p + r.off;
		m->v[i].acked = p + r.off + nb;
		if (!bm_tail_clear(m->v[i].failed, m->n) ||
		    !bm_tail_clear(m->v[i].acked, m->n))
			r.err = EPROTO;
		r.off += 2 * nb;
	}
	return ft__decode_done(&r);
}
