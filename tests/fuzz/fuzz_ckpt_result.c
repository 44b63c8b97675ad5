/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_ckpt_result_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_ckpt_result m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	memset(&m, 0, sizeof(m));
	memset(&m2, 0, sizeof(m2));
	if (ft_msg_ckpt_result_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_ckpt_result_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_CKPT_RESULT, data, size);
	if (ft_msg_ckpt_result_decode(body, size, &m2) != 0 ||
	    memcmp(&m, &m2, sizeof(m)) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
