/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_log_append_decode, with the encode round trip. */
#include "fuzz.h"

static struct ft_det a[FT_LOG_BATCH_MAX], b2[FT_LOG_BATCH_MAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_log_append m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	m.d = a;
	if (ft_msg_log_append_decode(data, size, &m, FT_LOG_BATCH_MAX) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_log_append_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_LOG_APPEND, data, size);
	m2.d = b2;
	if (ft_msg_log_append_decode(body, size, &m2, FT_LOG_BATCH_MAX) != 0 ||
	    m.n != m2.n || m.inc != m2.inc ||
	    memcmp(a, b2, m.n * sizeof(a[0])) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
