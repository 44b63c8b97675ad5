/* SPDX-License-Identifier: ISC */
/*
 * The frame that restarts a process on a host of a job that spans
 * several (ft-wire(7)): RESPAWN, from ftrun to a host agent.  RELEASE
 * has an empty body (ft_msg_empty_*).  Same rules as wire.c: fixed
 * fields through a bounded cursor, the body consumed exactly.
 */
#include "wire.h"

static int
respawn_ok(const struct ft_msg_job_respawn *m)
{
	return m->incarnation != 0 && m->kill_signal <= 64 &&
	    (m->kill_signal != 0 || m->kill_after == 0) &&
	    (m->flags & ~FT_RESPAWN_FLAGS) == 0 &&
	    ((m->flags & FT_RESPAWN_ROLLBACK) || m->rollback == 0);
}

int
ft_msg_job_respawn_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_respawn *m)
{
	size_t s;

	if (!respawn_ok(m)) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_JOB_RESPAWN, sender, 0);
	ft_put32(b, m->id);
	ft_put32(b, m->incarnation);
	ft_put32(b, m->flags);
	ft_put32(b, m->kill_signal);
	ft_put64(b, m->kill_after);
	ft_put64(b, m->rollback);
	return ft__frame_end(b, s);
}

int
ft_msg_job_respawn_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_respawn *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->id = ft_get32(&r);
	m->incarnation = ft_get32(&r);
	m->flags = ft_get32(&r);
	m->kill_signal = ft_get32(&r);
	m->kill_after = ft_get64(&r);
	m->rollback = ft_get64(&r);
	if (r.err == 0 && !respawn_ok(m))
		r.err = EPROTO;
	return ft__decode_done(&r);
}
