/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_view_decode, with the encode round trip. */
#include "fuzz.h"

#define CAP	64
static uint32_t dead[CAP], dead2[CAP];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_view m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	m.dead = dead;
	if (ft_msg_view_decode(data, size, &m, CAP) != 0)
		return fuzz_refused();
	if (m.ndead > CAP)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_view_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_VIEW, data, size);
	m2.dead = dead2;
	if (ft_msg_view_decode(body, size, &m2, CAP) != 0 ||
	    m.epoch != m2.epoch || m.ndead != m2.ndead ||
	    memcmp(dead, dead2, (size_t)m.ndead * sizeof(*dead)) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
