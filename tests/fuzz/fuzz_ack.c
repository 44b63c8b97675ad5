/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_ack_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_ack m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_ack_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_ack_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_ACK, data, size);
	if (ft_msg_ack_decode(body, size, &m2) != 0 || m.bytes != m2.bytes)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
