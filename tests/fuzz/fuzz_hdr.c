/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_hdr_decode on the first 16 bytes of the input; an accepted
 * header must encode back to the same bytes and satisfy every check
 * the decoder promises.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t p[FT_WIRE_HDRLEN], q[FT_WIRE_HDRLEN];
	struct ft_hdr h, h2;

	if (size < FT_WIRE_HDRLEN)
		return 0;
	memcpy(p, data, sizeof(p));
	if (ft_hdr_decode(p, &h) != 0) {
		if (errno != EPROTO && errno != EMSGSIZE)
			abort();
		return 0;
	}
	if (h.version < FT_WIRE_VERSION_MIN || h.version > FT_WIRE_VERSION ||
	    h.len < FT_WIRE_HDRLEN || h.len > FT_FRAME_MAX ||
	    (h.flags & ~FT_FLAG_KNOWN) != 0)
		abort();
	ft_hdr_encode(q, &h);
	if (memcmp(p, q, sizeof(p)) != 0 || ft_hdr_decode(q, &h2) != 0 ||
	    h2.version != h.version || h2.type != h.type || h2.len != h.len ||
	    h2.sender != h.sender || h2.flags != h.flags)
		abort();
	return 0;
}
