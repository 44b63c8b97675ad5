/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_ftmpi_join_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_ftmpi_join m, m2;
	struct ft_join_member j, j2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	if (ft_msg_ftmpi_join_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.wctx % 2 != 0 || m.dctx % 2 != 0 || m.wctx == m.dctx ||
	    m.n > FT_WIRE_MAX_RANKS || m.nm > FT_WIRE_MAX_RANKS)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_ftmpi_join_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_FTMPI_JOIN, data, size);
	if (ft_msg_ftmpi_join_decode(body, size, &m2) != 0 ||
	    m.wctx != m2.wctx || m.dctx != m2.dctx || m.own != m2.own ||
	    m.n != m2.n || m.nm != m2.nm)
		abort();
	for (i = 0; i < m.n; i++)
		if (ft_msg_ftmpi_join_failed(&m, i) !=
		    ft_msg_ftmpi_join_failed(&m2, i))
			abort();
	/* The trailing list of processes (REBUILD's ledger). */
	for (i = 0; i < m.nm; i++) {
		ft_msg_ftmpi_join_member(&m, i, &j);
		ft_msg_ftmpi_join_member(&m2, i, &j2);
		if (j.inc != j2.inc || j.covered != j2.covered ||
		    j.node != j2.node || j.pid != j2.pid)
			abort();
	}
	ft_wbuf_release(&b);
	return 0;
}
