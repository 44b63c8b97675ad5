/* SPDX-License-Identifier: ISC */
/*
 * The coordinated checkpoint's frames (protocol "coord", ft-wire(7)):
 * MARKER, which a rank sends on every channel when it reaches the cut
 * of an epoch, COMPLETE, by which ftrun tells the ranks the newest
 * complete global checkpoint, DUE, ftrun's checkpoint scheduler, and
 * PUSH, the epoch every rank pushes to the checkpoint server.  Same
 * rules as wire.c: fixed fields through a bounded cursor, the body
 * consumed exactly.
 */
#include "wire.h"

int
ft_msg_marker_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_marker *m)
{
	size_t s;

	if (m->epoch == 0) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_COORD_MARKER, sender, 0);
	ft_put64(b, m->epoch);
	ft_put64(b, m->count);
	return ft__frame_end(b, s);
}

int
ft_msg_marker_decode(const uint8_t *p, size_t len, struct ft_msg_marker *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->epoch = ft_get64(&r);
	m->count = ft_get64(&r);
	if (r.err == 0 && m->epoch == 0)
		r.err = EPROTO;
	return ft__decode_done(&r);
}

/* A frame whose body is one epoch (>= 1): COMPLETE, PUSH. */
static int
epoch_encode(struct ft_wbuf *b, unsigned int type, uint32_t sender,
    uint64_t epoch)
{
	size_t s;

	if (epoch == 0) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, type, sender, 0);
	ft_put64(b, epoch);
	return ft__frame_end(b, s);
}

static int
epoch_decode(const uint8_t *p, size_t len, uint64_t *epoch)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	*epoch = ft_get64(&r);
	if (r.err == 0 && *epoch == 0)
		r.err = EPROTO;
	return ft__decode_done(&r);
}

int
ft_msg_complete_encode(struct ft_wbuf *b, uint32_t sender, uint64_t epoch)
{
	return epoch_encode(b, FT_MSG_COORD_COMPLETE, sender, epoch);
}

int
ft_msg_complete_decode(const uint8_t *p, size_t len, uint64_t *epoch)
{
	return epoch_decode(p, len, epoch);
}

int
ft_msg_push_encode(struct ft_wbuf *b, uint32_t sender, uint64_t epoch)
{
	return epoch_encode(b, FT_MSG_COORD_PUSH, sender, epoch);
}

int
ft_msg_push_decode(const uint8_t *p, size_t len, uint64_t *epoch)
{
	return epoch_decode(p, len, epoch);
}

int
ft_msg_due_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_due *m)
{
	size_t s;

	if (m->epoch == 0) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_COORD_DUE, sender, 0);
	ft_put64(b, m->epoch);
	ft_put64(b, m->call);
	return ft__frame_end(b, s);
}

int
ft_msg_due_decode(const uint8_t *p, size_t len, struct ft_msg_due *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->epoch = ft_get64(&r);
	m->call = ft_get64(&r);
	if (r.err == 0 && m->epoch == 0)
		r.err = EPROTO;
	return ft__decode_done(&r);
}
