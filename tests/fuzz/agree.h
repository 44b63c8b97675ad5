/* SPDX-License-Identifier: ISC */
/*
 * The body of fuzz_agree and fuzz_iagree: decode an AGREE (inter 0) or
 * an IAGREE (inter 1), check what the decoder promises, and make the
 * encode round trip.
 */
#ifndef FT_FUZZ_AGREE_H
#define FT_FUZZ_AGREE_H

#include "fuzz.h"

/* Are a and b both absent, or the same nb bytes? */
static int
same(const uint8_t *a, const uint8_t *b, size_t nb)
{
	if (a == NULL || b == NULL)
		return a == b;
	return memcmp(a, b, nb) == 0;
}

static int
fuzz_agree_one(const uint8_t *data, size_t size, int inter)
{
	int (*decode)(const uint8_t *, size_t, struct ft_msg_agree *) =
	    inter ? ft_msg_iagree_decode : ft_msg_agree_decode;
	struct ft_msg_agree m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	size_t nb;

	if (decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.inter != inter || m.n == 0 || m.from >= m.n ||
	    m.round >= m.n || m.v.failed == NULL || m.v.acked == NULL ||
	    (!inter && m.v.flag2 != UINT32_MAX) ||
	    (m.kind == FT_AGREE_UP) != (m.covered != NULL) ||
	    (m.covered == NULL) != (m.acks == NULL))
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_agree_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, inter ? FT_MSG_ULFM_IAGREE :
	    FT_MSG_ULFM_AGREE, data, size);
	nb = ((size_t)m.n + 7) / 8;
	if (decode(body, size, &m2) != 0 || m.kind != m2.kind ||
	    m.ctx != m2.ctx || m.seq != m2.seq || m.round != m2.round ||
	    m.from != m2.from || m.n != m2.n || m.v.flag != m2.v.flag ||
	    m.v.ctxv != m2.v.ctxv || m.v.flag2 != m2.v.flag2 ||
	    m2.inter != inter || !same(m.v.failed, m2.v.failed, nb) ||
	    !same(m.v.acked, m2.v.acked, nb) ||
	    !same(m.covered, m2.covered, nb) || !same(m.acks, m2.acks, nb))
		abort();
	ft_wbuf_release(&b);
	return 0;
}

#endif
