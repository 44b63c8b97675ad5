/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_job_respawn_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_job_respawn m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_job_respawn_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.incarnation == 0 || m.kill_signal > 64 ||
	    (m.kill_signal == 0 && m.kill_after != 0) ||
	    (m.flags & ~FT_RESPAWN_FLAGS) != 0 ||
	    (!(m.flags & FT_RESPAWN_ROLLBACK) && m.rollback != 0))
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_job_respawn_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_JOB_RESPAWN, data, size);
	if (ft_msg_job_respawn_decode(body, size, &m2) != 0 ||
	    memcmp(&m, &m2, sizeof(m)) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
