/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_vlog_gc_decode (vlog images), with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_vlog_gc m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_vlog_gc_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.epoch == 0)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_vlog_gc_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_VLOG_GC, data, size);
	if (ft_msg_vlog_gc_decode(body, size, &m2) != 0 || m.inc != m2.inc ||
	    m.epoch != m2.epoch || m.seq != m2.seq)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
