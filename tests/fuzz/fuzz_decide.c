/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_msg_decide_decode, with the encode round trip.  The body does
 * not say whether it came as DECIDE or NDSYNC: every accepted body must
 * encode back as NDSYNC, and as DECIDE exactly when reply and have are
 * 0; otherwise the DECIDE encoder must refuse it and write nothing.
 */
#include "fuzz.h"

#define CAP	FT_WIRE_BATCH_MAX
static struct ft_decision d[CAP], d2[CAP];

static void
round_trip(const struct ft_msg_decide *m, unsigned int type,
    const uint8_t *data, size_t size)
{
	struct ft_msg_decide m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	ft_wbuf_init(&b);
	if (ft_msg_decide_encode(&b, FUZZ_SENDER, type, m) != 0)
		abort();
	body = fuzz_check_frame(&b, type, data, size);
	m2.d = d2;
	if (ft_msg_decide_decode(body, size, &m2, CAP) != 0 ||
	    m->reply != m2.reply || m->have != m2.have || m->n != m2.n)
		abort();
	for (i = 0; i < m->n; i++)
		if (d[i].index != d2[i].index || d[i].kind != d2[i].kind ||
		    d[i].site != d2[i].site || d[i].a != d2[i].a ||
		    d[i].b != d2[i].b || d[i].c != d2[i].c)
			abort();
	ft_wbuf_release(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_decide m;
	struct ft_wbuf b;

	m.d = d;
	if (ft_msg_decide_decode(data, size, &m, CAP) != 0)
		return fuzz_refused();
	if (m.n > CAP || m.reply > 1)
		abort();
	round_trip(&m, FT_MSG_NDSYNC, data, size);
	if (m.reply == 0 && m.have == 0) {
		round_trip(&m, FT_MSG_DECIDE, data, size);
		return 0;
	}
	ft_wbuf_init(&b);
	errno = 0;
	if (ft_msg_decide_encode(&b, FUZZ_SENDER, FT_MSG_DECIDE, &m) != -1 ||
	    errno != EINVAL || b.len != 0 || b.err != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
