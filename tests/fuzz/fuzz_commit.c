/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_commit_decode, with the encode round trip. */
#include "fuzz.h"

#define CAP	FT_WIRE_BATCH_MAX
static struct ft_commit e[CAP], e2[CAP];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_commit m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	m.e = e;
	if (ft_msg_commit_decode(data, size, &m, CAP) != 0)
		return fuzz_refused();
	if (m.n > CAP)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_commit_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_COMMIT, data, size);
	m2.e = e2;
	if (ft_msg_commit_decode(body, size, &m2, CAP) != 0 || m.n != m2.n)
		abort();
	for (i = 0; i < m.n; i++)
		if (e[i].dst != e2[i].dst || e[i].crc != e2[i].crc ||
		    e[i].seq != e2[i].seq)
			abort();
	ft_wbuf_release(&b);
	return 0;
}
