/* SPDX-License-Identifier: ISC */
/*
 * ULFM's frames (ft-ulfm(3)): REVOKE, which every process forwards to
 * the members of a revoked communicator, and AGREE (IAGREE on an
 * intercommunicator), the steps of the fault-tolerant agreement.  Same rules as wire.c: fixed fields through
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

/* How many bitmaps an AGREE of this kind carries. */
static size_t
agree_nbm(uint32_t kind)
{
	return kind == FT_AGREE_UP ? 4 : 2;
}

int
ft_msg_agree_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_agree *m)
{
	size_t s, nb = bmbytes(m->n);

	if (m->kind == 0 || m->kind > FT_AGREE_KIND_MAX || m->n == 0 ||
	    m->n > FT_WIRE_MAX_RANKS || m->from >= m->n ||
	    m->round >= m->n) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, m->inter ? FT_MSG_ULFM_IAGREE :
	    FT_MSG_ULFM_AGREE, sender, 0);
	ft_put32(b, m->kind);
	ft_put32(b, m->ctx);
	ft_put32(b, m->seq);
	ft_put32(b, m->round);
	ft_put32(b, m->from);
	ft_put32(b, m->n);
	ft_put32(b, m->v.flag);
	ft_put32(b, m->v.ctxv);
	if (m->inter)
		ft_put32(b, m->v.flag2);
	ft_putbytes(b, m->v.failed, nb);
	ft_putbytes(b, m->v.acked, nb);
	if (m->kind == FT_AGREE_UP) {
		ft_putbytes(b, m->covered, nb);
		ft_putbytes(b, m->acks, nb);
	}
	return ft__frame_end(b, s);
}

/* Are the bits of a bitmap past n zero? */
static int
bm_tail_clear(const uint8_t *bm, uint32_t n)
{
	return n % 8 == 0 || (bm[n / 8] >> (n % 8)) == 0;
}

/* AGREE, or with inter IAGREE (one more word: flag2). */
static int
agree_decode(const uint8_t *p, size_t len, struct ft_msg_agree *m, int inter)
{
	const uint8_t *bm[4] = { NULL, NULL, NULL, NULL };
	struct ft_rbuf r;
	size_t nb, i, k = 0;

	ft_rbuf_init(&r, p, len);
	m->kind = ft_get32(&r);
	m->ctx = ft_get32(&r);
	m->seq = ft_get32(&r);
	m->round = ft_get32(&r);
	m->from = ft_get32(&r);
	m->n = ft_get32(&r);
	m->v.flag = ft_get32(&r);
	m->v.ctxv = ft_get32(&r);
	m->v.flag2 = inter ? ft_get32(&r) : UINT32_MAX;
	m->inter = inter;
	if (r.err == 0 && (m->kind == 0 || m->kind > FT_AGREE_KIND_MAX ||
	    m->n == 0 || m->n > FT_WIRE_MAX_RANKS || m->from >= m->n ||
	    m->round >= m->n))
		r.err = EPROTO;
	if (r.err == 0) {
		k = agree_nbm(m->kind);
		nb = bmbytes(m->n);
		if (r.len - r.off != k * nb)
			r.err = EPROTO;
		for (i = 0; r.err == 0 && i < k; i++) {
			bm[i] = p + r.off;
			if (!bm_tail_clear(bm[i], m->n))
				r.err = EPROTO;
			r.off += nb;
		}
	}
	m->v.failed = bm[0];
	m->v.acked = bm[1];
	m->covered = bm[2];
	m->acks = bm[3];
	return ft__decode_done(&r);
}

int
ft_msg_agree_decode(const uint8_t *p, size_t len, struct ft_msg_agree *m)
{
	return agree_decode(p, len, m, 0);
}

int
ft_msg_iagree_decode(const uint8_t *p, size_t len, struct ft_msg_agree *m)
{
	return agree_decode(p, len, m, 1);
}

/* FTMPI_JOIN: three context words, both pairs even, and a list. */
int
ft_msg_ftmpi_join_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_ftmpi_join *m)
{
	size_t s;
	uint32_t i;

	if (m->wctx % 2 != 0 || m->dctx % 2 != 0 || m->wctx == m->dctx ||
	    m->n > FT_WIRE_MAX_RANKS || m->nm > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_FTMPI_JOIN, sender, 0);
	ft_put32(b, m->wctx);
	ft_put32(b, m->dctx);
	ft_put32(b, m->own);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		ft_put32(b, m->failed != NULL ? m->failed[i] :
		    ft_msg_ftmpi_join_failed(m, i));
	if (m->nm > 0) {
		ft_put32(b, m->nm);
		for (i = 0; i < m->nm * FT_JOIN_MEMBER_WORDS; i++)
			ft_put32(b, m->members != NULL ? m->members[i] :
			    ft_rd32(m->mraw + (size_t)i * 4));
	}
	return ft__frame_end(b, s);
}

int
ft_msg_ftmpi_join_decode(const uint8_t *p, size_t len,
    struct ft_msg_ftmpi_join *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->wctx = ft_get32(&r);
	m->dctx = ft_get32(&r);
	m->own = ft_get32(&r);
	m->n = ft_get32(&r);
	m->failed = NULL;
	m->raw = NULL;
	m->nm = 0;
	m->members = NULL;
	m->mraw = NULL;
	if (r.err == 0 && (m->wctx % 2 != 0 || m->dctx % 2 != 0 ||
	    m->wctx == m->dctx || m->n > FT_WIRE_MAX_RANKS ||
	    (size_t)m->n * 4 > r.len - r.off))
		r.err = EPROTO;
	if (r.err != 0)
		return ft__decode_done(&r);
	m->raw = p + r.off;
	r.off += (size_t)m->n * 4;
	/* The list of members, when the sender has it, ends the body. */
	if (r.off < r.len) {
		m->nm = ft_get32(&r);
		if (r.err == 0 && (m->nm == 0 || m->nm > FT_WIRE_MAX_RANKS ||
		    (size_t)m->nm * FT_JOIN_MEMBER_WORDS * 4 !=
		    r.len - r.off))
			r.err = EPROTO;
		if (r.err == 0) {
			m->mraw = p + r.off;
			r.off = r.len;
		}
	}
	return ft__decode_done(&r);
}

uint32_t
ft_msg_ftmpi_join_failed(const struct ft_msg_ftmpi_join *m, uint32_t i)
{
	return ft_rd32(m->raw + (size_t)i * 4);
}

void
ft_msg_ftmpi_join_member(const struct ft_msg_ftmpi_join *m, uint32_t i,
    struct ft_join_member *o)
{
	const uint8_t *q = m->mraw + (size_t)i * FT_JOIN_MEMBER_WORDS * 4;

	if (m->members != NULL) {
		o->inc = m->members[i * FT_JOIN_MEMBER_WORDS];
		o->covered = m->members[i * FT_JOIN_MEMBER_WORDS + 1];
		o->node = m->members[i * FT_JOIN_MEMBER_WORDS + 2];
		o->pid = m->members[i * FT_JOIN_MEMBER_WORDS + 3];
		return;
	}
	o->inc = ft_rd32(q);
	o->covered = ft_rd32(q + 4);
	o->node = ft_rd32(q + 8);
	o->pid = ft_rd32(q + 12);
}
