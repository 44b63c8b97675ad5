/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_abort_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_abort m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_abort_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (strlen(m.reason) >= FT_WIRE_TEXT_MAX)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_abort_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_ABORT, data, size);
	if (ft_msg_abort_decode(body, size, &m2) != 0 || m.code != m2.code ||
	    strcmp(m.reason, m2.reason) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
