/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_vlog_digest_decode, with the encode round trip. */
#include "fuzz.h"

static struct ft_vlog_digest a[FT_VLOG_DIGEST_MAX], a2[FT_VLOG_DIGEST_MAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_vlog_digest m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	m.d = a;
	if (ft_msg_vlog_digest_decode(data, size, &m, FT_VLOG_DIGEST_MAX) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_vlog_digest_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_VLOG_DIGEST, data, size);
	m2.d = a2;
	if (ft_msg_vlog_digest_decode(body, size, &m2, FT_VLOG_DIGEST_MAX) !=
	    0 || m.n != m2.n)
		abort();
	for (i = 0; i < m.n; i++)
		if (a[i].seq != a2[i].seq || a[i].crc != a2[i].crc)
			abort();
	ft_wbuf_release(&b);
	return 0;
}
