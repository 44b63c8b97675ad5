/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_msg_eager_decode: it reads the fixed part only, whatever
 * follows is payload.  The round trip rebuilds the prefix for that much
 * payload and compares the fixed bytes.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pre[FT_WIRE_HDRLEN + FT_EAGER_FIXED];
	struct ft_msg_eager m, m2;
	struct ft_hdr h;
	size_t payload;

	if (ft_msg_eager_decode(data, size, &m) != 0) {
		if (errno != EPROTO)
			abort();
		return 0;
	}
	if (size < FT_EAGER_FIXED || m.tag < 0)
		abort();
	payload = size - FT_EAGER_FIXED;
	if (ft_msg_eager_prefix(pre, FUZZ_SENDER, &m, payload) != 0) {
		if (errno != EMSGSIZE ||
		    payload <= FT_FRAME_MAX - sizeof(pre))
			abort();
		return 0;
	}
	if (ft_hdr_decode(pre, &h) != 0 || h.type != FT_MSG_EAGER ||
	    h.len != FT_WIRE_HDRLEN + size ||
	    memcmp(pre + FT_WIRE_HDRLEN, data, FT_EAGER_FIXED) != 0 ||
	    ft_msg_eager_decode(pre + FT_WIRE_HDRLEN, FT_EAGER_FIXED,
	    &m2) != 0 || m.ctx != m2.ctx || m.src != m2.src ||
	    m.tag != m2.tag || m.seq != m2.seq)
		abort();
	return 0;
}
