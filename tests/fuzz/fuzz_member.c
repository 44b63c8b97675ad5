/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_member_decode, with the encode round trip. */
#include "fuzz.h"

#define CAP	4096
static uint32_t live[CAP], fail[CAP], by[CAP];
static uint64_t ep[CAP];
static uint32_t live2[CAP], fail2[CAP], by2[CAP];
static uint64_t ep2[CAP];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_member m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	m.live = live;
	m.fail = fail;
	m.by = by;
	m.ep = ep;
	/* A small cap too, so that the bound is exercised. */
	if (ft_msg_member_decode(data, size, &m, size % 2 ? 8 : CAP) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_member_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_MEMBER, data, size);
	m2.live = live2;
	m2.fail = fail2;
	m2.by = by2;
	m2.ep = ep2;
	if (ft_msg_member_decode(body, size, &m2, CAP) != 0 ||
	    m.kind != m2.kind || m.epoch != m2.epoch || m.seen != m2.seen ||
	    m.root != m2.root || m.nlive != m2.nlive || m.nfail != m2.nfail ||
	    memcmp(live, live2, m.nlive * sizeof(*live)) != 0 ||
	    memcmp(fail, fail2, m.nfail * sizeof(*fail)) != 0 ||
	    memcmp(by, by2, m.nfail * sizeof(*by)) != 0 ||
	    memcmp(ep, ep2, m.nfail * sizeof(*ep)) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
