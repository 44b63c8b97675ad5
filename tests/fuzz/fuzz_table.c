/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_msg_table_decode, the one decoder that allocates: a failed
 * decode must leave nothing allocated, a successful one is freed with
 * ft_msg_table_free (LeakSanitizer checks both), with the encode round
 * trip.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_table m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	if (ft_msg_table_decode(data, size, &m) != 0) {
		if (errno != EPROTO || m.n != 0 || m.ranks != NULL)
			abort();
		return 0;
	}
	if (m.n == 0 || m.n > FT_WIRE_MAX_RANKS || m.ranks == NULL)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_table_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_TABLE, data, size);
	if (ft_msg_table_decode(body, size, &m2) != 0 || m2.n != m.n)
		abort();
	for (i = 0; i < m.n; i++)
		if (!fuzz_addr_eq(&m.ranks[i], &m2.ranks[i]))
			abort();
	ft_msg_table_free(&m);
	ft_msg_table_free(&m2);
	ft_wbuf_release(&b);
	return 0;
}
