/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_procs_decode (allocates its table), with the round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_procs m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	if (ft_msg_procs_decode(data, size, &m) != 0) {
		if (m.t.ranks != NULL || m.t.n != 0)
			abort();
		return errno == ENOMEM ? 0 : fuzz_refused();
	}
	if (m.t.n == 0 || m.first >= FT_WIRE_MAX_RANKS ||
	    m.t.n > FT_WIRE_MAX_RANKS - m.first)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_procs_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_PROCS, data, size);
	if (ft_msg_procs_decode(body, size, &m2) != 0 || m2.first != m.first ||
	    m2.t.n != m.t.n)
		abort();
	for (i = 0; i < m.t.n; i++)
		if (!fuzz_addr_eq(&m.t.ranks[i], &m2.t.ranks[i]))
			abort();
	ft_msg_table_free(&m.t);
	ft_msg_table_free(&m2.t);
	ft_wbuf_release(&b);
	return 0;
}
