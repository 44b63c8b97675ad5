/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_job_start_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_job_start m, m2;
	struct ft_wbuf b, b2;
	const uint8_t *body;
	uint32_t i;

	if (ft_msg_job_start_decode(data, size, &m) != 0) {
		if (m.argv != NULL || m.arena != NULL || m.files != NULL)
			abort();
		return fuzz_refused();
	}
	if (m.argc == 0 || m.argv[m.argc] != NULL ||
	    m.nfiles > FT_JOB_STAGE_MAX ||
	    (m.prog != FT_JOB_NOPROG && m.prog >= m.nfiles))
		abort();
	for (i = 0; i < m.nfiles; i++)
		if (!ft_job_name_ok(m.files[i].name))
			abort();
	ft_wbuf_init(&b);
	if (ft_msg_job_start_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_JOB_START, data, size);
	if (ft_msg_job_start_decode(body, size, &m2) != 0)
		abort();
	ft_wbuf_init(&b2);
	if (ft_msg_job_start_encode(&b2, FUZZ_SENDER, &m2) != 0 ||
	    b2.len != b.len || memcmp(b.p, b2.p, b.len) != 0)
		abort();
	ft_wbuf_release(&b);
	ft_wbuf_release(&b2);
	ft_msg_job_start_free(&m);
	ft_msg_job_start_free(&m2);
	return 0;
}
