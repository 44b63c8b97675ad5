/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_ckpt_data_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_ckpt_data m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_ckpt_data_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.data != data + FT_CKPT_DATA_FIXED ||
	    m.len != size - FT_CKPT_DATA_FIXED)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_ckpt_data_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_CKPT_DATA, data, size);
	if (ft_msg_ckpt_data_decode(body, size, &m2) != 0 ||
	    m.reqid != m2.reqid || m.len != m2.len ||
	    memcmp(m.data, m2.data, m.len) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
