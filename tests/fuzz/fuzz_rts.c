/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_rts_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_rts m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_rts_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.tag < 0)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_rts_encode(&b, FUZZ_SENDER, 0, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_RTS, data, size);
	if (ft_msg_rts_decode(body, size, &m2) != 0 || m.ctx != m2.ctx ||
	    m.src != m2.src || m.tag != m2.tag || m.seq != m2.seq ||
	    m.size != m2.size || m.sreq != m2.sreq || m.clock != m2.clock)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
