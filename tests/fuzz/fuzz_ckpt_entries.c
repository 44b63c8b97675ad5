/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_ckpt_entries_decode, with the encode round trip. */
#include "fuzz.h"

static struct ft_ckpt_ent a[FT_CKPT_ENTRIES_MAX], a2[FT_CKPT_ENTRIES_MAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_ckpt_entries m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	m.e = a;
	if (ft_msg_ckpt_entries_decode(data, size, &m,
	    FT_CKPT_ENTRIES_MAX) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_ckpt_entries_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_CKPT_ENTRIES, data, size);
	m2.e = a2;
	if (ft_msg_ckpt_entries_decode(body, size, &m2,
	    FT_CKPT_ENTRIES_MAX) != 0 || m.n != m2.n || m.flags != m2.flags ||
	    m.reqid != m2.reqid)
		abort();
	for (i = 0; i < m.n; i++)
		if (a[i].job != a2[i].job || a[i].rank != a2[i].rank ||
		    a[i].epoch != a2[i].epoch || a[i].nranks != a2[i].nranks ||
		    a[i].raw != a2[i].raw || a[i].stored != a2[i].stored ||
		    a[i].created_ns != a2[i].created_ns ||
		    a[i].state != a2[i].state)
			abort();
	ft_wbuf_release(&b);
	return 0;
}
