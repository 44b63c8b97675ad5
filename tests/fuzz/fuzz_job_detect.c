/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_job_detect_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_job_detect m, m2;
	struct ft_wbuf b, b2;
	const uint8_t *body;

	if (ft_msg_job_detect_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_job_detect_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_JOB_DETECT, data, size);
	if (ft_msg_job_detect_decode(body, size, &m2) != 0)
		abort();
	/* Canonical: the second decoding encodes to the same bytes. */
	ft_wbuf_init(&b2);
	if (ft_msg_job_detect_encode(&b2, FUZZ_SENDER, &m2) != 0 ||
	    b2.len != b.len || memcmp(b.p, b2.p, b.len) != 0)
		abort();
	ft_wbuf_release(&b);
	ft_wbuf_release(&b2);
	return 0;
}
