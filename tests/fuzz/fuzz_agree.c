/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_agree_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_agree m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	size_t nb;
	uint32_t i;

	if (ft_msg_agree_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.n == 0 || m.from >= m.n || m.round >= m.n || m.nval > 2)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_agree_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_ULFM_AGREE, data, size);
	if (ft_msg_agree_decode(body, size, &m2) != 0 || m.kind != m2.kind ||
	    m.ctx != m2.ctx || m.seq != m2.seq || m.round != m2.round ||
	    m.from != m2.from || m.n != m2.n || m.state != m2.state ||
	    m.sround != m2.sround || m.nval != m2.nval)
		abort();
	nb = ((size_t)m.n + 7) / 8;
	for (i = 0; i < m.nval; i++)
		if (m.v[i].flag != m2.v[i].flag ||
		    m.v[i].ctxv != m2.v[i].ctxv ||
		    memcmp(m.v[i].failed, m2.v[i].failed, nb) != 0 ||
		    memcmp(m.v[i].acked, m2.v[i].acked, nb) != 0)
			abort();
	ft_wbuf_release(&b);
	return 0;
}
