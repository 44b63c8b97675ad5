/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_msg_rdata_decode: it reads the fixed part only, whatever
 * follows is payload.  The round trip rebuilds the prefix for that much
 * payload and compares the fixed bytes.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pre[FT_WIRE_HDRLEN + FT_RDATA_FIXED];
	struct ft_msg_rdata m, m2;
	struct ft_hdr h;
	size_t payload;

	if (ft_msg_rdata_decode(data, size, &m) != 0) {
		if (errno != EPROTO)
			abort();
		return 0;
	}
	if (size < FT_RDATA_FIXED)
		abort();
	payload = size - FT_RDATA_FIXED;
	if (ft_msg_rdata_prefix(pre, FUZZ_SENDER, &m, payload) != 0) {
		if (errno != EMSGSIZE ||
		    payload <= FT_FRAME_MAX - sizeof(pre))
			abort();
		return 0;
	}
	if (ft_hdr_decode(pre, &h) != 0 || h.type != FT_MSG_RDATA ||
	    h.len != FT_WIRE_HDRLEN + size ||
	    memcmp(pre + FT_WIRE_HDRLEN, data, FT_RDATA_FIXED) != 0 ||
	    ft_msg_rdata_decode(pre + FT_WIRE_HDRLEN, FT_RDATA_FIXED,
	    &m2) != 0 || m.rreq != m2.rreq || m.offset != m2.offset)
		abort();
	return 0;
}
