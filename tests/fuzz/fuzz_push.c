/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_push_decode (--ft coord, coordsrv), with the round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_wbuf b;
	const uint8_t *body;
	uint64_t e, e2;

	if (ft_msg_push_decode(data, size, &e) != 0)
		return fuzz_refused();
	if (e == 0)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_push_encode(&b, FUZZ_SENDER, e) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_COORD_PUSH, data, size);
	if (ft_msg_push_decode(body, size, &e2) != 0 || e != e2)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
