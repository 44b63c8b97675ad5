/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_revoke_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_revoke m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	if (ft_msg_revoke_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.n == 0 || m.n > FT_WIRE_MAX_RANKS || m.nctx == 0 ||
	    m.nctx > FT_ULFM_NCTX_MAX)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_revoke_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_ULFM_REVOKE, data, size);
	if (ft_msg_revoke_decode(body, size, &m2) != 0 || m.ctx != m2.ctx ||
	    m.nctx != m2.nctx || m.n != m2.n)
		abort();
	for (i = 0; i < m.n; i++)
		if (ft_msg_revoke_member(&m, i) != ft_msg_revoke_member(&m2, i))
			abort();
	ft_wbuf_release(&b);
	return 0;
}
