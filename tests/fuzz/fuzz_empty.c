/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_msg_empty_decode (FINALIZE, FINALIZE_OK): only an empty body
 * is accepted, and it is what the encoder writes.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_wbuf b;

	if (ft_msg_empty_decode(data, size) != 0) {
		if (errno != EPROTO || size == 0)
			abort();
		return 0;
	}
	if (size != 0)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_empty_encode(&b, FUZZ_SENDER, FT_MSG_FINALIZE_OK) != 0)
		abort();
	(void)fuzz_check_frame(&b, FT_MSG_FINALIZE_OK, data, size);
	ft_wbuf_release(&b);
	return 0;
}
