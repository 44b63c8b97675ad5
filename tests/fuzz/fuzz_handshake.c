/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the handshake state machine as a peer that sends arbitrary
 * bytes.  The first input byte picks the side under test: even, an
 * accepting conn waiting for HELLO; odd, a connecting conn that sent
 * its HELLO and waits for CHALLENGE.  The rest is put in the conn's
 * input buffer as if read from the socket, and frames go through
 * ft_conn_frame and ft_conn_handshake until there is no whole frame or
 * the handshake fails.  No socket is needed: the conn has fd -1 and the
 * handshake only appends its answers to hsout.
 */
#include "fuzz.h"
#include "net/net.h"

static const uint8_t key[FT_WIRE_KEYLEN] = "0123456789abcdef0123456789abcde";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *body;
	struct ft_conn c;
	struct ft_hdr h;
	int rc, frames;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		if (ft_conn_connecting(&c, -1, key, 3, FT_ROLE_RANK) != 0)
			abort();
		/* As if connect(2) finished and HELLO went out. */
		c.hs = FT_HS_WAIT_CHALLENGE;
		ft_wbuf_reset(&c.hsout);
	} else if (ft_conn_accepted(&c, -1, key, 0) != 0)
		abort();
	data++;
	size--;
	if (size > c.isize)
		size = c.isize;
	memcpy(c.ibuf, data, size);
	c.iend = size;
	for (frames = 0;; frames++) {
		rc = ft_conn_frame(&c, &h, &body);
		if (rc < 0) {
			if (errno != EPROTO && errno != EMSGSIZE)
				abort();
			break;
		}
		if (rc == 0)
			break;
		if (body < c.ibuf || body + (h.len - FT_WIRE_HDRLEN) >
		    c.ibuf + c.iend)
			abort();
		rc = ft_conn_handshake(&c, &h, body);
		if (rc < 0) {
			if ((errno != EPROTO && errno != EACCES) ||
			    c.hs != FT_HS_FAILED)
				abort();
			break;
		}
		/* Nobody can forge a MAC: the handshake never completes. */
		if (rc == 1 || c.hs == FT_HS_READY)
			abort();
	}
	/* An accepting conn answers one HELLO with one CHALLENGE. */
	if (c.hs == FT_HS_WAIT_AUTH &&
	    c.hsout.len != FT_WIRE_HDRLEN + 8 + 2 * FT_WIRE_NONCE)
		abort();
	ft_conn_release(&c);
	return 0;
}
