/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the net layer in one process: the handshake between a
 * connecting and an accepting ft_conn over a socketpair (same key, wrong
 * key, forged and tampered frames, version ranges), listeners and
 * connects on TCP and Unix addresses, malformed addresses, and the send
 * queue (done callbacks, copies, a frame of 8 MiB, end of file), and
 * the guard on connections in the handshake (ft_hs_guard).
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>

#include "net/net.h"
#include "tap.h"

#define ID_C	7u		/* the connecting side's id */
#define ID_A	0x80000003u	/* the accepting side's id */

static uint8_t	key1[FT_WIRE_KEYLEN], key2[FT_WIRE_KEYLEN];

/*
 * Drive one side of a handshake: write, read, and hand every frame to
 * ft_conn_handshake until it is READY.  Frames after that stay in the
 * input buffer for the test.  *err keeps the first errno.
 */
static void
step(struct ft_conn *c, int *err)
{
	const uint8_t *body;
	struct ft_hdr h;
	int rc;

	if (*err != 0 || c->hs == FT_HS_FAILED)
		return;
	if (ft_conn_want_write(c) && ft_conn_flush(c) != 0) {
		*err = errno;
		return;
	}
	if (c->hs == FT_HS_READY)
		return;
	if (ft_conn_fill(c) < 0) {
		*err = errno;
		return;
	}
	while (c->hs != FT_HS_READY &&
	    (rc = ft_conn_frame(c, &h, &body)) != 0) {
		if (rc < 0 || ft_conn_handshake(c, &h, body) < 0) {
			*err = errno;
			return;
		}
	}
	if (ft_conn_want_write(c) && ft_conn_flush(c) != 0)
		*err = errno;
}

/* Wait a little for either fd to be readable. */
static void
wait_any(const struct ft_conn *a, const struct ft_conn *b)
{
	struct pollfd p[2] = {
		{ a->fd, POLLIN, 0 },
		{ b->fd, POLLIN, 0 },
	};

	(void)poll(p, 2, 20);
}

/* Run both sides until both are READY or one fails; 1 if both READY. */
static int
pump(struct ft_conn *a, struct ft_conn *b, int *erra, int *errb)
{
	int i;

	*erra = *errb = 0;
	for (i = 0; i < 200; i++) {
		step(a, erra);
		step(b, errb);
		if (*erra != 0 || *errb != 0)
			return 0;
		if (a->hs == FT_HS_READY && b->hs == FT_HS_READY &&
		    !ft_conn_want_write(a) && !ft_conn_want_write(b))
			return 1;
		wait_any(a, b);
	}
	t_diag("the handshake did not finish: states %d and %d", a->hs,
	    b->hs);
	return 0;
}

static void
pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
		abort();
}

/* A connecting conn on sv[0] and an accepting one on sv[1]. */
static void
conns(struct ft_conn *c, const uint8_t *kc, struct ft_conn *a,
    const uint8_t *ka)
{
	int sv[2];

	pair(sv);
	if (ft_conn_connecting(c, sv[0], kc, ID_C, FT_ROLE_RANK) != 0 ||
	    ft_conn_accepted(a, sv[1], ka, ID_A) != 0)
		abort();
}

/* Write all of a buffer to a blocking-enough socket. */
static void
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *q = p;
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, q, n)) <= 0)
			abort();
		q += k;
		n -= (size_t)k;
	}
}

static void
test_handshake(void)
{
	struct ft_conn c, a;
	int ec, ea;

	conns(&c, key1, &a, key1);
	T_OK(c.hs == FT_HS_CONNECTING && a.hs == FT_HS_WAIT_HELLO,
	    "handshake: initial states");
	T_OK(ft_conn_want_write(&c) && !ft_conn_want_write(&a),
	    "handshake: the connecting side wants to write first");
	T_OK(pump(&c, &a, &ec, &ea), "handshake: same key, both READY");
	T_EQ_UINT(c.peer, ID_A, "the connecting side knows the acceptor's id");
	T_EQ_UINT(a.peer, ID_C, "the accepting side knows the connector's id");
	T_EQ_INT(a.peer_role, FT_ROLE_RANK, "and its role");
	T_OK(c.version == FT_WIRE_VERSION && a.version == FT_WIRE_VERSION,
	    "both agree on version %d", FT_WIRE_VERSION);
	T_OK(memcmp(c.nonce_peer, a.nonce_self, FT_WIRE_NONCE) == 0 &&
	    memcmp(a.nonce_peer, c.nonce_self, FT_WIRE_NONCE) == 0 &&
	    memcmp(c.nonce_self, a.nonce_self, FT_WIRE_NONCE) != 0,
	    "each side has the other's fresh nonce");
	T_EQ_INT(ft_conn_avail(&c) + ft_conn_avail(&a), 0,
	    "no bytes left over after the handshake");
	ft_conn_release(&c);
	ft_conn_release(&a);

	conns(&c, key1, &a, key2);
	T_OK(!pump(&c, &a, &ec, &ea) && ec == EACCES && ea == 0,
	    "handshake: different keys, the connector refuses the challenge "
	    "with EACCES");
	T_OK(c.hs == FT_HS_FAILED && a.hs == FT_HS_WAIT_AUTH,
	    "the connector FAILED, the acceptor still waits for AUTH");
	T_FAILS(ft_conn_flush(&c), EPIPE, "flush on a FAILED conn is EPIPE");
	ft_conn_release(&c);
	ft_conn_release(&a);
}

/* A raw peer on one end of a socketpair, an accepting conn on the other. */
static void
test_acceptor_refuses(void)
{
	struct ft_msg_hello he;
	struct ft_msg_auth au;
	struct ft_wbuf b;
	struct ft_conn a;
	uint8_t junk[512];
	int sv[2], ea;

	memset(&he, 0, sizeof(he));
	he.minver = FT_WIRE_VERSION_MIN;
	he.maxver = FT_WIRE_VERSION;
	he.role = FT_ROLE_RANK;
	he.id = ID_C;
	ft_random(he.nonce, sizeof(he.nonce));

	/* A peer without the key answers the challenge with a guess. */
	pair(sv);
	if (ft_conn_accepted(&a, sv[1], key1, ID_A) != 0)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_hello_encode(&b, ID_C, &he) != 0)
		abort();
	write_all(sv[0], b.p, b.len);
	ea = 0;
	step(&a, &ea);
	T_OK(ea == 0 && a.hs == FT_HS_WAIT_AUTH,
	    "forged auth: the acceptor answered HELLO with CHALLENGE");
	T_OK(read(sv[0], junk, sizeof(junk)) == FT_WIRE_HDRLEN + 72,
	    "forged auth: the challenge arrived");
	ft_random(au.mac, sizeof(au.mac));
	ft_wbuf_reset(&b);
	if (ft_msg_auth_encode(&b, ID_C, &au) != 0)
		abort();
	write_all(sv[0], b.p, b.len);
	step(&a, &ea);
	T_OK(ea == EACCES && a.hs == FT_HS_FAILED,
	    "forged auth: the acceptor refuses a bad MAC with EACCES");
	ft_conn_release(&a);
	close(sv[0]);

	/* Version ranges with nothing in common. */
	he.minver = he.maxver = FT_WIRE_VERSION + 1;
	pair(sv);
	if (ft_conn_accepted(&a, sv[1], key1, ID_A) != 0)
		abort();
	ft_wbuf_reset(&b);
	if (ft_msg_hello_encode(&b, ID_C, &he) != 0)
		abort();
	write_all(sv[0], b.p, b.len);
	ea = 0;
	step(&a, &ea);
	T_OK(ea == EPROTO && a.hs == FT_HS_FAILED && !ft_conn_want_write(&a),
	    "bad hello: versions %d..%d only: EPROTO, no challenge sent",
	    FT_WIRE_VERSION + 1, FT_WIRE_VERSION + 1);
	ft_conn_release(&a);
	close(sv[0]);

	he.minver = he.maxver = 0;
	pair(sv);
	if (ft_conn_accepted(&a, sv[1], key1, ID_A) != 0)
		abort();
	ft_wbuf_reset(&b);
	if (ft_msg_hello_encode(&b, ID_C, &he) != 0)
		abort();
	write_all(sv[0], b.p, b.len);
	ea = 0;
	step(&a, &ea);
	T_OK(ea == EPROTO && a.hs == FT_HS_FAILED,
	    "bad hello: version 0 only: EPROTO");
	ft_conn_release(&a);
	close(sv[0]);

	/* A malformed HELLO body: min > max. */
	he.minver = 1;
	he.maxver = 1;
	pair(sv);
	if (ft_conn_accepted(&a, sv[1], key1, ID_A) != 0)
		abort();
	ft_wbuf_reset(&b);
	if (ft_msg_hello_encode(&b, ID_C, &he) != 0)
		abort();
	b.p[FT_WIRE_HDRLEN] = 2;
	write_all(sv[0], b.p, b.len);
	ea = 0;
	step(&a, &ea);
	T_OK(ea == EPROTO && a.hs == FT_HS_FAILED,
	    "bad hello: min version > max version: EPROTO");
	ft_conn_release(&a);
	close(sv[0]);

	/* Something else than HELLO first. */
	pair(sv);
	if (ft_conn_accepted(&a, sv[1], key1, ID_A) != 0)
		abort();
	ft_wbuf_reset(&b);
	if (ft_msg_auth_encode(&b, ID_C, &au) != 0)
		abort();
	write_all(sv[0], b.p, b.len);
	ea = 0;
	step(&a, &ea);
	T_OK(ea == EPROTO && a.hs == FT_HS_FAILED,
	    "an AUTH before HELLO: EPROTO");
	ft_conn_release(&a);
	close(sv[0]);

	/* A frame header that is not ft at all. */
	pair(sv);
	if (ft_conn_accepted(&a, sv[1], key1, ID_A) != 0)
		abort();
	write_all(sv[0], "GET / HTTP/1.0\r\n\r\n", 18);
	ea = 0;
	step(&a, &ea);
	T_OK(ea == EPROTO, "an HTTP request: EPROTO");
	ft_conn_release(&a);
	close(sv[0]);
	ft_wbuf_release(&b);
}

/* Bytes changed on the way must make the handshake fail. */
static void
test_tamper(void)
{
	struct ft_conn c, a;
	int ec, ea;

	/* The challenge's id is covered by its MAC. */
	conns(&c, key1, &a, key1);
	ec = 0;
	step(&c, &ec);
	if (ft_conn_fill(&a) <= 0)
		abort();
	{
		const uint8_t *body;
		struct ft_hdr h;

		if (ft_conn_frame(&a, &h, &body) != 1 ||
		    ft_conn_handshake(&a, &h, body) != 0)
			abort();
	}
	T_OK(a.hsout.len == FT_WIRE_HDRLEN + 72,
	    "tamper: the challenge waits in hsout");
	a.hsout.p[FT_WIRE_HDRLEN + 7] ^= 1;	/* the acceptor's id */
	T_OK(!pump(&c, &a, &ec, &ea) && ec == EACCES,
	    "tamper: a changed id in CHALLENGE fails with EACCES");
	ft_conn_release(&c);
	ft_conn_release(&a);

	/* The connector's nonce is covered by both MACs. */
	conns(&c, key1, &a, key1);
	c.hsout.p[FT_WIRE_HDRLEN + 8] ^= 0x80;
	T_OK(!pump(&c, &a, &ec, &ea) && ec == EACCES,
	    "tamper: a changed nonce in HELLO fails with EACCES");
	ft_conn_release(&c);
	ft_conn_release(&a);

	/* The connector's id is covered too. */
	conns(&c, key1, &a, key1);
	c.hsout.p[FT_WIRE_HDRLEN + 7] ^= 1;
	T_OK(!pump(&c, &a, &ec, &ea) && ec == EACCES,
	    "tamper: a changed id in HELLO fails with EACCES");
	ft_conn_release(&c);
	ft_conn_release(&a);

	/* A wider range than ours: the acceptor picks what both speak. */
	conns(&c, key1, &a, key1);
	c.hsout.p[FT_WIRE_HDRLEN + 1] = FT_WIRE_VERSION + 4;
	T_OK(pump(&c, &a, &ec, &ea) && c.version == FT_WIRE_VERSION &&
	    a.version == FT_WIRE_VERSION,
	    "a peer offering versions %d..%d gets version %d",
	    FT_WIRE_VERSION_MIN, FT_WIRE_VERSION + 4, FT_WIRE_VERSION);
	ft_conn_release(&c);
	ft_conn_release(&a);
}

static int	 done_calls;
static struct ft_conn *done_conn;
static int	 done_bad;

static void
on_sent(void *arg)
{
	int *order = arg;

	if (done_conn != NULL && (done_conn->oq_head != NULL &&
	    done_conn->oq_head->arg == arg))
		done_bad++;	/* called while still queued */
	*order = ++done_calls;
}

/* Read and drop what b has; return the number of bytes. */
static size_t
drain(struct ft_conn *b)
{
	ssize_t n;
	size_t total = 0;

	while ((n = ft_conn_fill(b)) > 0) {
		total += (size_t)n;
		b->ibeg = b->iend;
	}
	return total;
}

static void
ready_pair(struct ft_conn *c, struct ft_conn *a)
{
	int ec, ea;

	conns(c, key1, a, key1);
	if (!pump(c, a, &ec, &ea))
		abort();
}

static void
test_queue(void)
{
	struct ft_conn c, a;
	const uint8_t *body;
	struct ft_hdr h;
	uint8_t frame[64], *big, *ref;
	size_t total, len = 4u << 20, i;
	int first = 0, second = 0, early = 0, rc, ec, ea;

	/* Queued before the handshake: sent only after it. */
	conns(&c, key1, &a, key1);
	memset(frame, 0, sizeof(frame));
	{
		struct ft_hdr fh = { FT_WIRE_VERSION, FT_MSG_FINALIZE, 16,
		    ID_C, 0 };

		ft_hdr_encode(frame, &fh);
	}
	done_calls = 0;
	done_conn = NULL;
	T_EQ_INT(ft_conn_queue_ref(&c, frame, 16, on_sent, &early), 0,
	    "queue_ref before the handshake");
	T_OK(early == 0 && c.oq_bytes == 16,
	    "is queued, done not called yet");
	T_OK(pump(&c, &a, &ec, &ea), "the handshake goes first");
	T_OK(early == 1, "done was called once the frame went out");
	(void)ft_conn_fill(&a);
	T_OK(ft_conn_frame(&a, &h, &body) == 1 && h.type == FT_MSG_FINALIZE &&
	    h.sender == ID_C, "the acceptor reads it after the handshake");
	ft_conn_release(&c);
	ft_conn_release(&a);

	/* On a ready connection, a small frame goes at once. */
	ready_pair(&c, &a);
	done_calls = 0;
	T_EQ_INT(ft_conn_queue_ref(&c, frame, 16, on_sent, &first), 0,
	    "queue_ref of 16 bytes");
	T_OK(first == 1 && c.oq_head == NULL,
	    "written at once, done called before the call returns");
	(void)drain(&a);

	/* Big buffers: done only once every byte is out, in order. */
	if ((big = malloc(len)) == NULL || (ref = malloc(len)) == NULL)
		abort();
	for (i = 0; i < len; i++)
		big[i] = (uint8_t)(i * 31 + 7);
	memcpy(ref, big, len);
	done_calls = 0;
	done_conn = &c;
	done_bad = 0;
	first = second = 0;
	rc = ft_conn_queue_ref(&c, big, len, on_sent, &first);
	rc |= ft_conn_queue_ref(&c, big, len / 2, on_sent, &second);
	T_OK(rc == 0 && first == 0 && second == 0 && c.oq_head != NULL,
	    "two large queue_refs are queued, no done yet");
	total = 0;
	for (i = 0; i < 100000 && (first == 0 || second == 0); i++) {
		if (ft_conn_flush(&c) != 0)
			break;
		total += drain(&a);
	}
	total += drain(&a);
	T_OK(first == 1 && second == 2 && done_bad == 0,
	    "each done is called once, in order, once its bytes are sent");
	T_EQ_UINT(total, len + len / 2, "the reader got every byte");
	T_OK(c.oq_head == NULL && c.oq_tail == NULL && c.oq_bytes == 0,
	    "the queue is empty");
	done_conn = NULL;

	/* send2 of a 8 MiB RDATA frame: the caller's buffer is free at once. */
	{
		struct ft_msg_rdata rd = { 42, 0 };
		struct ft_msg_rdata got;
		uint8_t pre[FT_WIRE_HDRLEN + FT_RDATA_FIXED];
		size_t blen = 8u << 20;

		if ((big = realloc(big, blen)) == NULL ||
		    (ref = realloc(ref, blen)) == NULL)
			abort();
		for (i = 0; i < blen; i++)
			big[i] = (uint8_t)(i * 131 + (i >> 13));
		memcpy(ref, big, blen);
		if (ft_msg_rdata_prefix(pre, ID_C, &rd, blen) != 0)
			abort();
		T_EQ_INT(ft_conn_send2(&c, pre, sizeof(pre), big, blen), 0,
		    "send2 of an 8 MiB frame");
		memset(big, 0xee, blen);
		memset(pre, 0xee, sizeof(pre));
		T_OK(c.oq_bytes > 0, "part of it is queued as a copy");
		rc = 0;
		for (i = 0; i < 100000; i++) {
			if (ft_conn_flush(&c) != 0 || ft_conn_fill(&a) < 0)
				break;
			if ((rc = ft_conn_frame(&a, &h, &body)) != 0)
				break;
		}
		T_OK(rc == 1 && h.type == FT_MSG_RDATA &&
		    h.len == FT_WIRE_HDRLEN + FT_RDATA_FIXED + blen,
		    "the reader gets the whole frame");
		T_OK(rc == 1 && ft_msg_rdata_decode(body, h.len -
		    FT_WIRE_HDRLEN, &got) == 0 && got.rreq == 42 &&
		    memcmp(body + FT_RDATA_FIXED, ref, blen) == 0,
		    "intact, though the caller overwrote its buffer");
		T_OK(a.isize >= h.len, "the input buffer grew for it");
	}
	free(big);
	free(ref);

	/* End of file, and writing to a closed peer. */
	ft_conn_release(&a);
	errno = 0;
	T_OK(ft_conn_fill(&c) == -1 && errno == ECONNRESET && c.eof,
	    "fill after the peer closed: -1, ECONNRESET, eof set");
	rc = ft_conn_queue_copy(&c, frame, 16);
	T_OK(rc == -1 && errno == EPIPE,
	    "queue_copy to a closed peer: -1, EPIPE (and no SIGPIPE)");
	ft_conn_release(&c);
}

/*
 * queue_copy before the handshake: nothing can be written yet, so
 * ft_conn_send2 copies the bytes, and with them its absent second piece
 * through memcpy(..., NULL, 0) (UBSan reports it).  pt2pt does this
 * for the first RTS or CTS on a new connection.
 */
/* Read what b has into out (up to cap); returns the bytes read. */
static size_t
drain_to(struct ft_conn *b, uint8_t *out, size_t cap)
{
	size_t total = 0, n;

	while (ft_conn_fill(b) > 0 || ft_conn_avail(b) > 0) {
		n = ft_conn_avail(b);
		if (n > cap - total)
			n = cap - total;
		memcpy(out + total, b->ibuf + b->ibeg, n);
		total += n;
		b->ibeg += n;
		if (n == 0)
			break;
	}
	return total;
}

/*
 * References queued from one buffer move onto a copy (ft_conn_rebase),
 * only those with the given arg, and the reader gets the copy's bytes
 * from the lowest offset ft_conn_ref_min reports.
 */
static void
test_rebase(void)
{
	struct ft_conn c, a;
	size_t len = 4u << 20, chunk = 256u << 10, off, min, got, i;
	uint8_t *src, *copy, *out, *other;
	int mark = 0, stranger = 0, bad = 0, rc = 0;

	ready_pair(&c, &a);
	if ((src = malloc(len)) == NULL || (copy = malloc(len)) == NULL ||
	    (out = malloc(len + 64)) == NULL || (other = malloc(64)) == NULL)
		abort();
	for (i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 29 + 3);
	memset(other, 0x5a, 64);
	for (off = 0; off < len; off += chunk)
		rc |= ft_conn_queue_ref(&c, src + off, chunk, NULL, &mark);
	/* Another reference into the same buffer, with another arg. */
	rc |= ft_conn_queue_ref(&c, src, 64, NULL, &stranger);
	T_OK(rc == 0 && c.oq_head != NULL, "rebase: 4 MiB queued by "
	    "reference, the socket full");
	min = len;
	ft_conn_ref_min(&c, &mark, src, len, &min);
	T_OK(min > 0 && min < len, "rebase: ref_min finds the first byte "
	    "still queued (%zu)", min);
	i = len;
	ft_conn_ref_min(&c, &other, src, len, &i);
	T_EQ_UINT(i, len, "rebase: ref_min ignores references of another "
	    "arg");
	/* The copy holds other bytes, to tell where the reader's came
	 * from; the source is then spoilt. */
	for (i = min; i < len; i++)
		copy[i] = (uint8_t)~src[i];
	ft_conn_rebase(&c, &mark, src, len, copy);
	memcpy(other, src, 64);	/* what the stranger must still send */
	got = 0;
	for (i = 0; i < 100000 && c.oq_head != NULL; i++) {
		if (ft_conn_flush(&c) != 0)
			break;
		got += drain_to(&a, out + got, len + 64 - got);
	}
	got += drain_to(&a, out + got, len + 64 - got);
	T_EQ_UINT(got, len + 64, "rebase: every byte arrives");
	for (i = 0; i < len && !bad; i++)
		bad = out[i] != (i < min ? src[i] : copy[i]);
	T_OK(!bad, "rebase: bytes before the offset from the buffer, after "
	    "it from the copy");
	T_OK(memcmp(out + len, other, 64) == 0, "rebase: a reference with "
	    "another arg still reads the original buffer");
	free(src);
	free(copy);
	free(out);
	free(other);
	ft_conn_release(&c);
	ft_conn_release(&a);
}

static int
copy_before_ready(void *arg)
{
	struct ft_conn c, a;
	const uint8_t *body;
	struct ft_hdr h;
	struct ft_wbuf b;
	int ec, ea, ok;

	conns(&c, key1, &a, key1);
	ft_wbuf_init(&b);
	if (ft_msg_empty_encode(&b, ID_C, FT_MSG_FINALIZE) != 0 ||
	    ft_conn_queue_copy(&c, b.p, b.len) != 0)
		return 1;
	memset(b.p, 0, b.len);
	ok = pump(&c, &a, &ec, &ea) && ft_conn_fill(&a) >= 0 &&
	    ft_conn_frame(&a, &h, &body) == 1 && h.type == FT_MSG_FINALIZE;
	ft_conn_release(&c);
	ft_conn_release(&a);
	ft_wbuf_release(&b);
	return ok ? 0 : 1;
}

static void
test_frames(void)
{
	struct ft_conn c, a;
	const uint8_t *body;
	struct ft_hdr h;
	struct ft_wbuf b;
	uint8_t raw[16];

	ready_pair(&c, &a);
	ft_wbuf_init(&b);
	if (ft_msg_empty_encode(&b, ID_C, FT_MSG_FINALIZE) != 0 ||
	    ft_msg_empty_encode(&b, ID_C, FT_MSG_FINALIZE_OK) != 0)
		abort();
	/* Ten bytes first: no frame until it is whole. */
	T_OK(ft_conn_queue_copy(&c, b.p, 10) == 0 && ft_conn_fill(&a) == 10 &&
	    ft_conn_frame(&a, &h, &body) == 0, "frame: 10 bytes are not a "
	    "frame");
	T_OK(ft_conn_queue_copy(&c, b.p + 10, b.len - 10) == 0 &&
	    ft_conn_fill(&a) > 0 && ft_conn_frame(&a, &h, &body) == 1 &&
	    h.type == FT_MSG_FINALIZE && ft_conn_frame(&a, &h, &body) == 1 &&
	    h.type == FT_MSG_FINALIZE_OK && ft_conn_frame(&a, &h, &body) == 0,
	    "frame: two frames in one read");
	T_EQ_INT(ft_conn_avail(&a), 0, "nothing left");

	memset(raw, 0, sizeof(raw));
	raw[0] = 0x46;
	raw[1] = 0x54;
	raw[2] = FT_WIRE_VERSION;
	ft_be32(raw + 4, FT_FRAME_MAX + 1);
	T_OK(ft_conn_queue_copy(&c, raw, 16) == 0 && ft_conn_fill(&a) == 16,
	    "a header with a length over FT_FRAME_MAX is sent");
	T_FAILS(ft_conn_frame(&a, &h, &body), EMSGSIZE,
	    "frame: length over FT_FRAME_MAX fails with EMSGSIZE");
	ft_conn_release(&c);
	ft_conn_release(&a);
	ft_wbuf_release(&b);
}

/* Connect to addr, accept on lfd, and run a handshake over them. */
static void
connect_accept(const char *what, int lfd, const char *addr)
{
	struct ft_conn c, a;
	struct pollfd p;
	int cfd, afd, ec, ea;

	cfd = ft_net_connect(addr);
	T_OK(cfd >= 0, "%s: connect to %s", what, addr);
	if (cfd < 0)
		return;
	p = (struct pollfd){ cfd, POLLOUT, 0 };
	T_OK(poll(&p, 1, 5000) == 1 && ft_net_connect_done(cfd) == 0,
	    "%s: the connect finishes", what);
	p = (struct pollfd){ lfd, POLLIN, 0 };
	afd = poll(&p, 1, 5000) == 1 ? ft_net_accept(lfd) : -1;
	T_OK(afd >= 0, "%s: accept", what);
	if (afd < 0) {
		close(cfd);
		return;
	}
	T_OK((fcntl(afd, F_GETFL) & O_NONBLOCK) &&
	    (fcntl(afd, F_GETFD) & FD_CLOEXEC) &&
	    (fcntl(cfd, F_GETFL) & O_NONBLOCK) &&
	    (fcntl(cfd, F_GETFD) & FD_CLOEXEC),
	    "%s: both ends are non-blocking and close-on-exec", what);
	if (ft_conn_connecting(&c, cfd, key1, ID_C, FT_ROLE_LAUNCHER) != 0 ||
	    ft_conn_accepted(&a, afd, key1, ID_A) != 0)
		abort();
	T_OK(pump(&c, &a, &ec, &ea) && a.peer == ID_C &&
	    a.peer_role == FT_ROLE_LAUNCHER && c.peer == ID_A,
	    "%s: the handshake completes", what);
	ft_conn_release(&c);
	ft_conn_release(&a);
}

static void
test_listen(void)
{
	static const char *bad[] = {
		"tcp:nohost", "foo:bar", "tcp:127.0.0.1:", "tcp:", "tcp::80",
		"tcp:[::1", "tcp:[::1]80", "", "unix",
	};
	static const char *badport[] = {
		"tcp:127.0.0.1:65536", "tcp:127.0.0.1:99999",
		"tcp:127.0.0.1:abc", "tcp:127.0.0.1:-1",
	};
	char dir[] = "/tmp/ft-test-net.XXXXXX";
	char addr[256], bound[FT_WIRE_ADDR_MAX], longp[200];
	struct pollfd p;
	size_t i;
	int lfd, fd, rc;

	lfd = ft_net_listen("tcp:127.0.0.1:0", bound, sizeof(bound));
	T_OK(lfd >= 0 && strncmp(bound, "tcp:127.0.0.1:", 14) == 0 &&
	    strcmp(bound, "tcp:127.0.0.1:0") != 0,
	    "listen on tcp:127.0.0.1:0 gives a port (%s)", bound);
	T_OK(lfd >= 0 && (fcntl(lfd, F_GETFL) & O_NONBLOCK) &&
	    (fcntl(lfd, F_GETFD) & FD_CLOEXEC),
	    "the listener is non-blocking and close-on-exec");
	if (lfd >= 0) {
		connect_accept("tcp", lfd, bound);
		T_FAILS(ft_net_accept(lfd), EAGAIN,
		    "accept with nobody waiting: EAGAIN");
		close(lfd);
		/* Nobody listens on that port any more. */
		fd = ft_net_connect(bound);
		rc = fd == -1 ? errno : 0;
		if (fd != -1) {
			p = (struct pollfd){ fd, POLLOUT, 0 };
			(void)poll(&p, 1, 5000);
			rc = ft_net_connect_done(fd) == -1 ? errno : 0;
			close(fd);
		}
		T_EQ_INT(rc, ECONNREFUSED,
		    "connect to a closed port is refused");
	}

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(addr, sizeof(addr), "unix:%s/s", dir);
	lfd = ft_net_listen(addr, bound, sizeof(bound));
	T_OK(lfd >= 0 && strcmp(bound, addr) == 0,
	    "listen on %s gives it back", addr);
	if (lfd >= 0) {
		connect_accept("unix", lfd, bound);
		T_FAILS(ft_net_listen(addr, bound, sizeof(bound)), EADDRINUSE,
		    "a second listen on the same path: EADDRINUSE");
		close(lfd);
	}
	unlink(addr + 5);
	T_OK((fd = ft_net_connect(addr)) == -1 && errno == ENOENT,
	    "connect to a unix path nobody listens on: ENOENT");
	if (fd != -1)
		close(fd);
	rmdir(dir);

	memset(longp, 'p', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	snprintf(addr, sizeof(addr), "unix:/tmp/%s", longp);
	T_FAILS(ft_net_listen(addr, bound, sizeof(bound)), ENAMETOOLONG,
	    "listen on a unix path longer than sun_path: ENAMETOOLONG");
	T_FAILS(ft_net_connect(addr), ENAMETOOLONG,
	    "connect to it: ENAMETOOLONG");

	/*
	 * Ports out of range or not numbers are malformed too; getaddrinfo
	 * does not check the range of a numeric service, so 65536 would
	 * wrap to port 0 and 99999 to 34463.
	 */
	for (i = 0; i < FT_NELEM(badport); i++) {
		errno = 0;
		fd = ft_net_listen(badport[i], bound, sizeof(bound));
		rc = errno;
		T_OK(fd == -1 && rc == EINVAL,
		    "listen on \"%s\" fails with EINVAL", badport[i]);
		if (fd != -1) {
			t_diag("it listens on %s", bound);
			close(fd);
		} else if (rc != EINVAL)
			t_diag("errno %d (%s)", rc, strerror(rc));
	}
	for (i = 0; i < FT_NELEM(bad); i++) {
		snprintf(addr, sizeof(addr), "listen on \"%s\" fails with "
		    "EINVAL", bad[i]);
		T_FAILS(ft_net_listen(bad[i], bound, sizeof(bound)), EINVAL,
		    addr);
		snprintf(addr, sizeof(addr), "connect to \"%s\" fails with "
		    "EINVAL", bad[i]);
		T_FAILS(ft_net_connect(bad[i]), EINVAL, addr);
	}
}

/* Connections for ft_hs_guard, with a record of what it dropped. */
struct guard {
	struct ft_conn	 c[6];
	int		 dropped[6];
	char		 why[6][64];
	int		 ndrops;
};

static const struct ft_conn *
guard_at(void *arg, size_t i)
{
	struct guard *g = arg;

	return g->dropped[i] ? NULL : &g->c[i];
}

static void
guard_drop(void *arg, size_t i, const char *why)
{
	struct guard *g = arg;

	g->dropped[i] = ++g->ndrops;
	snprintf(g->why[i], sizeof(g->why[i]), "%s", why);
}

static void
guard_init(struct guard *g)
{
	static const struct {
		enum ft_hs_state hs;
		uint64_t	 accepted;
	} c[6] = {
		{ FT_HS_WAIT_AUTH, 100 },	/* a peer, oldest */
		{ FT_HS_WAIT_HELLO, 200 },	/* silent */
		{ FT_HS_WAIT_HELLO, 300 },	/* silent */
		{ FT_HS_READY, 50 },		/* done: never counts */
		{ FT_HS_WAIT_CHALLENGE, 0 },	/* we dialed: never counts */
		{ FT_HS_WAIT_AUTH, 400 },	/* a peer */
	};
	size_t i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < FT_NELEM(c); i++) {
		g->c[i].hs = c[i].hs;
		g->c[i].accepted = c[i].accepted;
	}
}

static void
test_hs_guard(void)
{
	struct guard g;
	uint64_t next;

	guard_init(&g);
	next = ft_hs_guard(guard_at, guard_drop, &g, 6, 4, 500, 1000);
	T_OK(g.ndrops == 0 && next == 1200, "hs_guard: 4 in the handshake, "
	    "cap 4: nothing closed, the next HELLO deadline is 200 + 1000");
	next = ft_hs_guard(guard_at, guard_drop, &g, 6, 2, 500, 1000);
	T_OK(g.ndrops == 2 && g.dropped[1] == 1 && g.dropped[2] == 2 &&
	    strcmp(g.why[1], "too many connections in the handshake") == 0 &&
	    next == 0, "hs_guard: cap 2: the two silent ones go, the oldest "
	    "first, and the peers that sent HELLO stay");
	next = ft_hs_guard(guard_at, guard_drop, &g, 6, 1, 500, 1000);
	T_OK(g.ndrops == 3 && g.dropped[0] == 3 && !g.dropped[5] &&
	    !g.dropped[3] && !g.dropped[4], "hs_guard: cap 1 with two that "
	    "sent HELLO: the older goes; ready and dialed ones never count");
	guard_init(&g);
	next = ft_hs_guard(guard_at, guard_drop, &g, 6, 10, 1200, 1000);
	T_OK(g.ndrops == 1 && g.dropped[1] && strcmp(g.why[1], "sent no "
	    "HELLO in time") == 0 && next == 1300, "hs_guard: at 1200, the "
	    "one silent since 200 is closed, the one since 300 is due at "
	    "1300");
	next = ft_hs_guard(guard_at, guard_drop, &g, 6, 10, 100000, 1000);
	T_OK(g.ndrops == 2 && g.dropped[2] && !g.dropped[0] &&
	    !g.dropped[5] && next == 0, "hs_guard: no deadline for one that "
	    "sent HELLO, however long it waits");
}

int
main(void)
{
	ft_key_generate(key1);
	ft_key_generate(key2);
	test_handshake();
	test_acceptor_refuses();
	test_tamper();
	test_queue();
	test_rebase();
	test_frames();
	T_OK(t_child(copy_before_ready, NULL), "queue_copy before the "
	    "handshake: a copy is sent after it (UBSan: memcpy from NULL)");
	test_listen();
	test_hs_guard();
	return t_done();
}
