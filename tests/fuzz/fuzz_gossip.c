/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_gossip_decode, with the encode round trip. */
#include "fuzz.h"

static uint64_t hb[FT_WIRE_GOSSIP_MAX], hb2[FT_WIRE_GOSSIP_MAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_gossip m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	m.hb = hb;
	/* A small cap too, so that the bound is exercised. */
	if (ft_msg_gossip_decode(data, size, &m, size % 2 ? 16 :
	    FT_WIRE_GOSSIP_MAX) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_gossip_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_GOSSIP, data, size);
	m2.hb = hb2;
	if (ft_msg_gossip_decode(body, size, &m2, FT_WIRE_GOSSIP_MAX) != 0 ||
	    m.epoch != m2.epoch || m.n != m2.n ||
	    memcmp(hb, hb2, (size_t)m.n * sizeof(*hb)) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
