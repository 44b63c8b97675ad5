/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_msg_eager_cdecode: it reads the fixed part only (and the
 * sender's clock when the first input byte says FT_FLAG_CLOCK), whatever
 * follows is payload.  The round trip rebuilds the prefix for that much
 * payload and compares the fixed bytes.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pre[FT_WIRE_HDRLEN + FT_EAGER_FIXED + FT_EAGER_CLOCK];
	struct ft_msg_eager m, m2;
	struct ft_hdr h;
	uint32_t flags;
	size_t payload, fixed;

	if (size == 0)
		return 0;
	flags = (data[0] & 1) ? FT_FLAG_CLOCK : 0;
	data++;
	size--;
	if (ft_msg_eager_cdecode(data, size, flags, &m) != 0) {
		if (errno != EPROTO)
			abort();
		return 0;
	}
	fixed = ft_msg_eager_fixed(&m);
	if (size < fixed || m.tag < 0 || (flags != 0) != (m.clock != 0))
		abort();
	payload = size - fixed;
	if (ft_msg_eager_cprefix(pre, FUZZ_SENDER, &m, payload) != 0) {
		if (errno != EMSGSIZE ||
		    payload <= FT_FRAME_MAX - FT_WIRE_HDRLEN - fixed)
			abort();
		return 0;
	}
	if (ft_hdr_decode(pre, &h) != 0 || h.type != FT_MSG_EAGER ||
	    h.len != FT_WIRE_HDRLEN + size || h.flags != flags ||
	    memcmp(pre + FT_WIRE_HDRLEN, data, fixed) != 0 ||
	    ft_msg_eager_cdecode(pre + FT_WIRE_HDRLEN, fixed, h.flags,
	    &m2) != 0 || m.ctx != m2.ctx || m.src != m2.src ||
	    m.tag != m2.tag || m.seq != m2.seq || m.clock != m2.clock)
		abort();
	return 0;
}
