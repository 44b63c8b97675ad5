/* SPDX-License-Identifier: ISC */
/*
 * Encoders and decoders for every frame ft sends.  Decoders follow one
 * order: fixed fields through a bounded cursor, then counts checked
 * against what is left before anything is allocated, then the body must
 * be consumed exactly.
 */
#include <stdlib.h>

#include "wire.h"

_Static_assert(FT_WIRE_HDRLEN == 16, "frame header is 16 bytes");
_Static_assert(FT_WIRE_CHUNK + FT_WIRE_HDRLEN + FT_RDATA_FIXED <=
    FT_FRAME_MAX, "a rendezvous chunk fits in a frame");

int
ft_hdr_decode(const uint8_t *p, struct ft_hdr *h)
{
	if ((p[0] << 8 | p[1]) != FT_WIRE_MAGIC) {
		errno = EPROTO;
		return -1;
	}
	h->version = p[2];
	h->type = p[3];
	h->len = ft_rd32(p + 4);
	h->sender = ft_rd32(p + 8);
	h->flags = ft_rd32(p + 12);
	if (h->version < FT_WIRE_VERSION_MIN || h->version > FT_WIRE_VERSION ||
	    (h->flags & ~FT_FLAG_KNOWN) != 0) {
		errno = EPROTO;
		return -1;
	}
	if (h->len < FT_WIRE_HDRLEN || h->len > FT_FRAME_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

void
ft_hdr_encode(uint8_t *p, const struct ft_hdr *h)
{
	p[0] = FT_WIRE_MAGIC >> 8;
	p[1] = FT_WIRE_MAGIC & 0xff;
	p[2] = h->version;
	p[3] = h->type;
	ft_be32(p + 4, h->len);
	ft_be32(p + 8, h->sender);
	ft_be32(p + 12, h->flags);
}

const char *
ft_msg_name(unsigned int type)
{
	switch (type) {
	case FT_MSG_HELLO:
		return "HELLO";
	case FT_MSG_CHALLENGE:
		return "CHALLENGE";
	case FT_MSG_AUTH:
		return "AUTH";
	case FT_MSG_REGISTER:
		return "REGISTER";
	case FT_MSG_TABLE:
		return "TABLE";
	case FT_MSG_ABORT:
		return "ABORT";
	case FT_MSG_FINALIZE:
		return "FINALIZE";
	case FT_MSG_FINALIZE_OK:
		return "FINALIZE_OK";
	case FT_MSG_VIEW:
		return "VIEW";
	case FT_MSG_NOTE:
		return "NOTE";
	case FT_MSG_SPAWN:
		return "SPAWN";
	case FT_MSG_REPLY:
		return "REPLY";
	case FT_MSG_PROCS:
		return "PROCS";
	case FT_MSG_PORT:
		return "PORT";
	case FT_MSG_COMMIT:
		return "COMMIT";
	case FT_MSG_DECIDE:
		return "DECIDE";
	case FT_MSG_NDSYNC:
		return "NDSYNC";
	case FT_MSG_EAGER:
		return "EAGER";
	case FT_MSG_RTS:
		return "RTS";
	case FT_MSG_CTS:
		return "CTS";
	case FT_MSG_RDATA:
		return "RDATA";
	case FT_MSG_CREDIT:
		return "CREDIT";
	case FT_MSG_ACK:
		return "ACK";
	case FT_MSG_GOSSIP:
		return "GOSSIP";
	case FT_MSG_PING:
		return "PING";
	case FT_MSG_PONG:
		return "PONG";
	case FT_MSG_MEMBER:
		return "MEMBER";
	case FT_MSG_JOB_START:
		return "JOB_START";
	case FT_MSG_JOB_NEED:
		return "JOB_NEED";
	case FT_MSG_JOB_FILE:
		return "JOB_FILE";
	case FT_MSG_JOB_STARTED:
		return "JOB_STARTED";
	case FT_MSG_JOB_OUTPUT:
		return "JOB_OUTPUT";
	case FT_MSG_JOB_STATUS:
		return "JOB_STATUS";
	case FT_MSG_JOB_BEATS:
		return "JOB_BEATS";
	case FT_MSG_JOB_SIGNAL:
		return "JOB_SIGNAL";
	case FT_MSG_JOB_KEEPALIVE:
		return "JOB_KEEPALIVE";
	case FT_MSG_JOB_NOTE:
		return "JOB_NOTE";
	case FT_MSG_JOB_DONE:
		return "JOB_DONE";
	case FT_MSG_JOB_DETECT:
		return "JOB_DETECT";
	case FT_MSG_JOB_MEMBERS:
		return "JOB_MEMBERS";
	case FT_MSG_JOB_INPUT:
		return "JOB_INPUT";
	case FT_MSG_ULFM_REVOKE:
		return "ULFM_REVOKE";
	case FT_MSG_ULFM_AGREE:
		return "ULFM_AGREE";
	case FT_MSG_FTMPI_JOIN:
		return "FTMPI_JOIN";
	case FT_MSG_ULFM_IAGREE:
		return "ULFM_IAGREE";
	case FT_MSG_BOOT_REGISTER:
		return "BOOT_REGISTER";
	case FT_MSG_BOOT_PEERS:
		return "BOOT_PEERS";
	case FT_MSG_BOOT_RESERVE:
		return "BOOT_RESERVE";
	case FT_MSG_BOOT_RESERVED:
		return "BOOT_RESERVED";
	case FT_MSG_BOOT_CANCEL:
		return "BOOT_CANCEL";
	case FT_MSG_BOOT_DONE:
		return "BOOT_DONE";
	case FT_MSG_BOOT_ALLOC:
		return "BOOT_ALLOC";
	case FT_MSG_BOOT_GRANTS:
		return "BOOT_GRANTS";
	case FT_MSG_BOOT_STATUS:
		return "BOOT_STATUS";
	case FT_MSG_BOOT_STATE:
		return "BOOT_STATE";
	case FT_MSG_LOG_APPEND:
		return "LOG_APPEND";
	case FT_MSG_LOG_ACK:
		return "LOG_ACK";
	case FT_MSG_LOG_FETCH:
		return "LOG_FETCH";
	case FT_MSG_LOG_RECORDS:
		return "LOG_RECORDS";
	case FT_MSG_LOG_ERROR:
		return "LOG_ERROR";
	case FT_MSG_LOG_QUERY:
		return "LOG_QUERY";
	case FT_MSG_VLOG_RESTART:
		return "VLOG_RESTART";
	case FT_MSG_COORD_MARKER:
		return "COORD_MARKER";
	case FT_MSG_COORD_COMPLETE:
		return "COORD_COMPLETE";
	case FT_MSG_COORD_DUE:
		return "COORD_DUE";
	case FT_MSG_COORD_PUSH:
		return "COORD_PUSH";
	case FT_MSG_JOB_RESPAWN:
		return "JOB_RESPAWN";
	case FT_MSG_JOB_RELEASE:
		return "JOB_RELEASE";
	case FT_MSG_VLOG_RESUME:
		return "VLOG_RESUME";
	case FT_MSG_VLOG_DIGEST:
		return "VLOG_DIGEST";
	case FT_MSG_REVIVE:
		return "REVIVE";
	case FT_MSG_VLOG_GC:
		return "VLOG_GC";
	case FT_MSG_CKPT_REQ:
		return "CKPT_REQ";
	case FT_MSG_CKPT_PUT:
		return "CKPT_PUT";
	case FT_MSG_CKPT_DATA:
		return "CKPT_DATA";
	case FT_MSG_CKPT_ENTRIES:
		return "CKPT_ENTRIES";
	case FT_MSG_CKPT_RESULT:
		return "CKPT_RESULT";
	default:
		return "unknown";
	}
}

/* Start a frame: reserve the header, to be completed by frame_end. */
static size_t
frame_begin(struct ft_wbuf *b, unsigned int type, uint32_t sender,
    uint32_t flags)
{
	struct ft_hdr h = { FT_WIRE_VERSION, (uint8_t)type, 0, sender, flags };
	size_t start = b->len;

	if (ft_wbuf_reserve(b, FT_WIRE_HDRLEN) == 0) {
		ft_hdr_encode(b->p + b->len, &h);
		b->len += FT_WIRE_HDRLEN;
	}
	return start;
}

static int
frame_end(struct ft_wbuf *b, size_t start)
{
	if (b->err == 0 && b->len - start > FT_FRAME_MAX)
		b->err = EMSGSIZE;
	if (b->err != 0) {
		errno = b->err;
		if (start <= b->len)
			b->len = start;
		b->err = 0;
		return -1;
	}
	ft_wbuf_set32(b, start + 4, (uint32_t)(b->len - start));
	return 0;
}

/* A decoder's last step: the body must have been consumed exactly. */
static int
decode_done(struct ft_rbuf *r)
{
	if (r->err != 0 || r->off != r->len) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

size_t
ft__frame_begin(struct ft_wbuf *b, unsigned int type, uint32_t sender,
    uint32_t flags)
{
	return frame_begin(b, type, sender, flags);
}

int
ft__frame_end(struct ft_wbuf *b, size_t start)
{
	return frame_end(b, start);
}

int
ft__decode_done(struct ft_rbuf *r)
{
	return decode_done(r);
}

int
ft_msg_hello_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_hello *m)
{
	size_t s = frame_begin(b, FT_MSG_HELLO, sender, 0);

	ft_put8(b, m->minver);
	ft_put8(b, m->maxver);
	ft_put8(b, m->role);
	ft_put8(b, 0);
	ft_put32(b, m->id);
	ft_putbytes(b, m->nonce, sizeof(m->nonce));
	return frame_end(b, s);
}

int
ft_msg_hello_decode(const uint8_t *p, size_t len, struct ft_msg_hello *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->minver = ft_get8(&r);
	m->maxver = ft_get8(&r);
	m->role = ft_get8(&r);
	if (ft_get8(&r) != 0)
		r.err = EPROTO;
	m->id = ft_get32(&r);
	ft_getbytes(&r, m->nonce, sizeof(m->nonce));
	if (m->minver > m->maxver)
		r.err = EPROTO;
	return decode_done(&r);
}

int
ft_msg_challenge_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_challenge *m)
{
	size_t s = frame_begin(b, FT_MSG_CHALLENGE, sender, 0);

	ft_put8(b, m->version);
	ft_put8(b, 0);
	ft_put16(b, 0);
	ft_put32(b, m->id);
	ft_putbytes(b, m->nonce, sizeof(m->nonce));
	ft_putbytes(b, m->mac, sizeof(m->mac));
	return frame_end(b, s);
}

int
ft_msg_challenge_decode(const uint8_t *p, size_t len,
    struct ft_msg_challenge *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->version = ft_get8(&r);
	if (ft_get8(&r) != 0 || ft_get16(&r) != 0)
		r.err = EPROTO;
	m->id = ft_get32(&r);
	ft_getbytes(&r, m->nonce, sizeof(m->nonce));
	ft_getbytes(&r, m->mac, sizeof(m->mac));
	return decode_done(&r);
}

int
ft_msg_auth_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_auth *m)
{
	size_t s = frame_begin(b, FT_MSG_AUTH, sender, 0);

	ft_putbytes(b, m->mac, sizeof(m->mac));
	return frame_end(b, s);
}

int
ft_msg_auth_decode(const uint8_t *p, size_t len, struct ft_msg_auth *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	ft_getbytes(&r, m->mac, sizeof(m->mac));
	return decode_done(&r);
}

static void
put_addr(struct ft_wbuf *b, const struct ft_rank_addr *a)
{
	ft_put32(b, a->node);
	ft_put32(b, a->pid);
	ft_putstr(b, a->unix_addr);
	ft_putstr(b, a->tcp_addr);
}

static void
get_addr(struct ft_rbuf *r, struct ft_rank_addr *a)
{
	a->node = ft_get32(r);
	a->pid = ft_get32(r);
	ft_getstr(r, a->unix_addr, sizeof(a->unix_addr));
	ft_getstr(r, a->tcp_addr, sizeof(a->tcp_addr));
}

/* The smallest encoding of one address: two words, two empty strings. */
#define ADDR_MIN_BYTES	12

int
ft_msg_register_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_register *m)
{
	size_t s = frame_begin(b, FT_MSG_REGISTER, sender, 0);

	ft_put32(b, m->rank);
	put_addr(b, &m->addr);
	return frame_end(b, s);
}

int
ft_msg_register_decode(const uint8_t *p, size_t len,
    struct ft_msg_register *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->rank = ft_get32(&r);
	get_addr(&r, &m->addr);
	return decode_done(&r);
}

int
ft_msg_revive_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_revive *m)
{
	size_t s = frame_begin(b, FT_MSG_REVIVE, sender, 0);

	ft_put32(b, m->proc);
	ft_put32(b, m->inc);
	put_addr(b, &m->addr);
	return frame_end(b, s);
}

int
ft_msg_revive_decode(const uint8_t *p, size_t len, struct ft_msg_revive *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->proc = ft_get32(&r);
	m->inc = ft_get32(&r);
	get_addr(&r, &m->addr);
	if (r.err == 0 && m->proc >= FT_WIRE_MAX_RANKS)
		r.err = EPROTO;
	return decode_done(&r);
}

int
ft_msg_table_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_table *m)
{
	size_t s = frame_begin(b, FT_MSG_TABLE, sender, 0);
	uint32_t i;

	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		put_addr(b, &m->ranks[i]);
	return frame_end(b, s);
}

int
ft_msg_table_decode(const uint8_t *p, size_t len, struct ft_msg_table *m)
{
	struct ft_rbuf r;
	uint32_t i;

	m->n = 0;
	m->ranks = NULL;
	ft_rbuf_init(&r, p, len);
	m->n = ft_get32(&r);
	/* Bound the count by what the body can hold before allocating. */
	if (r.err != 0 || m->n == 0 || m->n > FT_WIRE_MAX_RANKS ||
	    m->n > ft_rbuf_left(&r) / ADDR_MIN_BYTES) {
		m->n = 0;
		errno = EPROTO;
		return -1;
	}
	if ((m->ranks = calloc(m->n, sizeof(*m->ranks))) == NULL) {
		m->n = 0;
		return -1;
	}
	for (i = 0; i < m->n && r.err == 0; i++)
		get_addr(&r, &m->ranks[i]);
	if (decode_done(&r) != 0) {
		ft_msg_table_free(m);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

void
ft_msg_table_free(struct ft_msg_table *m)
{
	free(m->ranks);
	m->ranks = NULL;
	m->n = 0;
}

int
ft_msg_abort_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_abort *m)
{
	size_t s = frame_begin(b, FT_MSG_ABORT, sender, 0);

	ft_put32(b, (uint32_t)m->code);
	ft_putstr(b, m->reason);
	return frame_end(b, s);
}

int
ft_msg_abort_decode(const uint8_t *p, size_t len, struct ft_msg_abort *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->code = (int32_t)ft_get32(&r);
	ft_getstr(&r, m->reason, sizeof(m->reason));
	return decode_done(&r);
}

int
ft_msg_empty_encode(struct ft_wbuf *b, uint32_t sender, unsigned int type)
{
	return frame_end(b, frame_begin(b, type, sender, 0));
}

int
ft_msg_empty_decode(const uint8_t *p, size_t len)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	return decode_done(&r);
}

int
ft_msg_rts_encode(struct ft_wbuf *b, uint32_t sender, uint32_t flags,
    const struct ft_msg_rts *m)
{
	size_t s = frame_begin(b, FT_MSG_RTS, sender, flags);

	ft_put32(b, m->ctx);
	ft_put32(b, m->src);
	ft_put32(b, (uint32_t)m->tag);
	ft_put64(b, m->seq);
	ft_put64(b, m->size);
	ft_put64(b, m->sreq);
	/* The sender's clock (vlog), only when there is one: an RTS
	 * without it is the 36 bytes it always was. */
	if (m->clock != 0)
		ft_put64(b, m->clock);
	return frame_end(b, s);
}

int
ft_msg_rts_decode(const uint8_t *p, size_t len, struct ft_msg_rts *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->ctx = ft_get32(&r);
	m->src = ft_get32(&r);
	m->tag = (int32_t)ft_get32(&r);
	m->seq = ft_get64(&r);
	m->size = ft_get64(&r);
	m->sreq = ft_get64(&r);
	m->clock = 0;
	if (r.err == 0 && r.len - r.off == 8 &&
	    (m->clock = ft_get64(&r)) == 0)
		r.err = EPROTO;		/* 0 is said by leaving it out */
	if (m->tag < 0)
		r.err = EPROTO;
	return decode_done(&r);
}

int
ft_msg_cts_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_cts *m)
{
	size_t s = frame_begin(b, FT_MSG_CTS, sender, 0);

	ft_put64(b, m->sreq);
	ft_put64(b, m->rreq);
	return frame_end(b, s);
}

int
ft_msg_cts_decode(const uint8_t *p, size_t len, struct ft_msg_cts *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->sreq = ft_get64(&r);
	m->rreq = ft_get64(&r);
	return decode_done(&r);
}

int
ft_msg_gossip_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_gossip *m)
{
	uint32_t i;
	size_t s;

	if (m->n == 0 || m->n > FT_WIRE_GOSSIP_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_GOSSIP, sender, 0);
	ft_put64(b, m->epoch);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		ft_put64(b, m->hb[i]);
	return frame_end(b, s);
}

int
ft_msg_gossip_decode(const uint8_t *p, size_t len, struct ft_msg_gossip *m,
    uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i, n;

	ft_rbuf_init(&r, p, len);
	m->epoch = ft_get64(&r);
	n = ft_get32(&r);
	/* The count must be exactly what the body holds, and fit. */
	if (r.err != 0 || n == 0 || n > FT_WIRE_GOSSIP_MAX || n > cap ||
	    ft_rbuf_left(&r) != (size_t)n * 8) {
		m->n = 0;
		errno = EPROTO;
		return -1;
	}
	m->n = n;
	for (i = 0; i < n; i++)
		m->hb[i] = ft_get64(&r);
	return decode_done(&r);
}

int
ft_msg_ping_encode(struct ft_wbuf *b, uint32_t sender, unsigned int type,
    const struct ft_msg_ping *m)
{
	size_t s;

	if (type != FT_MSG_PING && type != FT_MSG_PONG) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, type, sender, 0);
	ft_put64(b, m->nonce);
	ft_put64(b, m->epoch);
	return frame_end(b, s);
}

int
ft_msg_ping_decode(const uint8_t *p, size_t len, struct ft_msg_ping *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->nonce = ft_get64(&r);
	m->epoch = ft_get64(&r);
	return decode_done(&r);
}

int
ft_msg_member_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_member *m)
{
	uint32_t i;
	size_t s;

	if (m->kind == 0 || m->kind > FT_MB_KIND_MAX ||
	    m->nlive > FT_WIRE_GOSSIP_MAX || m->nfail > FT_WIRE_GOSSIP_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_MEMBER, sender, 0);
	ft_put8(b, m->kind);
	ft_put8(b, 0);
	ft_put8(b, 0);
	ft_put8(b, 0);
	ft_put64(b, m->epoch);
	ft_put64(b, m->seen);
	ft_put32(b, m->root);
	ft_put32(b, m->nlive);
	ft_put32(b, m->nfail);
	for (i = 0; i < m->nlive; i++)
		ft_put32(b, m->live[i]);
	for (i = 0; i < m->nfail; i++) {
		ft_put32(b, m->fail[i]);
		ft_put32(b, m->by[i]);
		ft_put64(b, m->ep[i]);
	}
	return frame_end(b, s);
}

int
ft_msg_member_decode(const uint8_t *p, size_t len, struct ft_msg_member *m,
    uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i, nlive, nfail;
	uint8_t pad;

	ft_rbuf_init(&r, p, len);
	m->kind = ft_get8(&r);
	pad = ft_get8(&r);
	pad |= ft_get8(&r);
	pad |= ft_get8(&r);
	m->epoch = ft_get64(&r);
	m->seen = ft_get64(&r);
	m->root = ft_get32(&r);
	nlive = ft_get32(&r);
	nfail = ft_get32(&r);
	m->nlive = m->nfail = 0;
	/* Counts bounded by the caller's arrays and exactly what the body
	 * holds, before anything is read into them. */
	if (r.err != 0 || pad != 0 || m->kind == 0 ||
	    m->kind > FT_MB_KIND_MAX || nlive > cap || nfail > cap ||
	    nlive > FT_WIRE_GOSSIP_MAX || nfail > FT_WIRE_GOSSIP_MAX ||
	    ft_rbuf_left(&r) != (size_t)nlive * 4 + (size_t)nfail * 16) {
		errno = EPROTO;
		return -1;
	}
	for (i = 0; i < nlive; i++)
		m->live[i] = ft_get32(&r);
	for (i = 0; i < nfail; i++) {
		m->fail[i] = ft_get32(&r);
		m->by[i] = ft_get32(&r);
		m->ep[i] = ft_get64(&r);
	}
	m->nlive = nlive;
	m->nfail = nfail;
	return decode_done(&r);
}

/* CREDIT and ACK: one count of bytes, never 0. */
static int
count_encode(struct ft_wbuf *b, unsigned int type, uint32_t sender,
    uint64_t bytes)
{
	size_t s = frame_begin(b, type, sender, 0);

	ft_put64(b, bytes);
	return frame_end(b, s);
}

static int
count_decode(const uint8_t *p, size_t len, uint64_t *bytes)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	*bytes = ft_get64(&r);
	if (*bytes == 0)
		r.err = EPROTO;
	return decode_done(&r);
}

int
ft_msg_credit_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_credit *m)
{
	return count_encode(b, FT_MSG_CREDIT, sender, m->bytes);
}

int
ft_msg_credit_decode(const uint8_t *p, size_t len, struct ft_msg_credit *m)
{
	return count_decode(p, len, &m->bytes);
}

int
ft_msg_ack_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_ack *m)
{
	return count_encode(b, FT_MSG_ACK, sender, m->bytes);
}

int
ft_msg_ack_decode(const uint8_t *p, size_t len, struct ft_msg_ack *m)
{
	return count_decode(p, len, &m->bytes);
}

int
ft_msg_view_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_view *m)
{
	size_t s;
	uint32_t i;

	if (m->ndead > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_VIEW, sender, 0);
	ft_put64(b, m->epoch);
	ft_put32(b, m->ndead);
	for (i = 0; i < m->ndead; i++)
		ft_put32(b, m->dead[i]);
	return frame_end(b, s);
}

int
ft_msg_view_decode(const uint8_t *p, size_t len, struct ft_msg_view *m,
    uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->epoch = ft_get64(&r);
	m->ndead = ft_get32(&r);
	if (r.err == 0 && (m->ndead > cap || m->ndead > FT_WIRE_MAX_RANKS ||
	    (size_t)m->ndead * 4 != r.len - r.off))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->ndead; i++)
		m->dead[i] = ft_get32(&r);
	return decode_done(&r);
}

int
ft_msg_note_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_note *m)
{
	size_t s;

	if (m->kind == 0 || m->kind > FT_NOTE_KIND_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_NOTE, sender, 0);
	ft_put32(b, m->kind);
	ft_putstr(b, m->text);
	return frame_end(b, s);
}

int
ft_msg_note_decode(const uint8_t *p, size_t len, struct ft_msg_note *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->kind = ft_get32(&r);
	ft_getstr(&r, m->text, sizeof(m->text));
	if (r.err == 0 && (m->kind == 0 || m->kind > FT_NOTE_KIND_MAX))
		r.err = EPROTO;
	return decode_done(&r);
}

int
ft_msg_commit_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_commit *m)
{
	size_t s;
	uint32_t i;

	if (m->n > FT_WIRE_BATCH_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_COMMIT, sender, 0);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put32(b, m->e[i].dst);
		ft_put32(b, m->e[i].crc);
		ft_put64(b, m->e[i].seq);
	}
	return frame_end(b, s);
}

int
ft_msg_commit_decode(const uint8_t *p, size_t len, struct ft_msg_commit *m,
    uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->n > cap || m->n > FT_WIRE_BATCH_MAX ||
	    (size_t)m->n * 16 != r.len - r.off))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		m->e[i].dst = ft_get32(&r);
		m->e[i].crc = ft_get32(&r);
		m->e[i].seq = ft_get64(&r);
	}
	return decode_done(&r);
}

#define DECISION_LEN	48

int
ft_msg_decide_encode(struct ft_wbuf *b, uint32_t sender, unsigned int type,
    const struct ft_msg_decide *m)
{
	size_t s;
	uint32_t i;

	if ((type != FT_MSG_DECIDE && type != FT_MSG_NDSYNC) ||
	    m->n > FT_WIRE_BATCH_MAX || m->reply > 1 ||
	    (type == FT_MSG_DECIDE && (m->reply != 0 || m->have != 0))) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, type, sender, 0);
	ft_put32(b, m->reply);
	ft_put64(b, m->have);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put64(b, m->d[i].index);
		ft_put32(b, m->d[i].kind);
		ft_put32(b, 0);
		ft_put64(b, m->d[i].site);
		ft_put64(b, m->d[i].a);
		ft_put64(b, m->d[i].b);
		ft_put64(b, m->d[i].c);
	}
	return frame_end(b, s);
}

int
ft_msg_decide_decode(const uint8_t *p, size_t len, struct ft_msg_decide *m,
    uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->reply = ft_get32(&r);
	m->have = ft_get64(&r);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->reply > 1 || m->n > cap ||
	    m->n > FT_WIRE_BATCH_MAX ||
	    (size_t)m->n * DECISION_LEN != r.len - r.off))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		m->d[i].index = ft_get64(&r);
		m->d[i].kind = ft_get32(&r);
		if (ft_get32(&r) != 0)
			r.err = EPROTO;
		m->d[i].site = ft_get64(&r);
		m->d[i].a = ft_get64(&r);
		m->d[i].b = ft_get64(&r);
		m->d[i].c = ft_get64(&r);
	}
	return decode_done(&r);
}

static int
data_prefix(uint8_t *out, unsigned int type, uint32_t sender, size_t fixed,
    size_t payload, uint32_t flags)
{
	struct ft_hdr h = { FT_WIRE_VERSION, (uint8_t)type, 0, sender, flags };

	if (payload > FT_FRAME_MAX - FT_WIRE_HDRLEN - fixed) {
		errno = EMSGSIZE;
		return -1;
	}
	h.len = (uint32_t)(FT_WIRE_HDRLEN + fixed + payload);
	ft_hdr_encode(out, &h);
	return 0;
}

size_t
ft_msg_eager_fixed(const struct ft_msg_eager *m)
{
	return FT_EAGER_FIXED + (m->clock != 0 ? FT_EAGER_CLOCK : 0);
}

int
ft_msg_eager_cprefix(uint8_t *out, uint32_t sender,
    const struct ft_msg_eager *m, size_t payload)
{
	uint8_t *q = out + FT_WIRE_HDRLEN;

	if (data_prefix(out, FT_MSG_EAGER, sender, ft_msg_eager_fixed(m),
	    payload, m->clock != 0 ? FT_FLAG_CLOCK : 0) != 0)
		return -1;
	ft_be32(q, m->ctx);
	ft_be32(q + 4, m->src);
	ft_be32(q + 8, (uint32_t)m->tag);
	ft_be64(q + 12, m->seq);
	if (m->clock != 0)
		ft_be64(q + FT_EAGER_FIXED, m->clock);
	return 0;
}

int
ft_msg_eager_prefix(uint8_t *out, uint32_t sender,
    const struct ft_msg_eager *m, size_t payload)
{
	struct ft_msg_eager m0 = *m;

	m0.clock = 0;
	return ft_msg_eager_cprefix(out, sender, &m0, payload);
}

int
ft_msg_eager_cdecode(const uint8_t *p, size_t len, uint32_t flags,
    struct ft_msg_eager *m)
{
	size_t need = FT_EAGER_FIXED +
	    ((flags & FT_FLAG_CLOCK) != 0 ? FT_EAGER_CLOCK : 0);

	if (len < need) {
		errno = EPROTO;
		return -1;
	}
	m->ctx = ft_rd32(p);
	m->src = ft_rd32(p + 4);
	m->tag = (int32_t)ft_rd32(p + 8);
	m->seq = ft_rd64(p + 12);
	m->clock = (flags & FT_FLAG_CLOCK) != 0 ?
	    ft_rd64(p + FT_EAGER_FIXED) : 0;
	if (m->tag < 0 || ((flags & FT_FLAG_CLOCK) != 0 && m->clock == 0)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int
ft_msg_eager_decode(const uint8_t *p, size_t len, struct ft_msg_eager *m)
{
	return ft_msg_eager_cdecode(p, len, 0, m);
}

int
ft_msg_rdata_prefix(uint8_t *out, uint32_t sender,
    const struct ft_msg_rdata *m, size_t payload)
{
	uint8_t *q = out + FT_WIRE_HDRLEN;

	if (data_prefix(out, FT_MSG_RDATA, sender, FT_RDATA_FIXED,
	    payload, 0) != 0)
		return -1;
	ft_be64(q, m->rreq);
	ft_be64(q + 8, m->offset);
	return 0;
}

int
ft_msg_rdata_decode(const uint8_t *p, size_t len, struct ft_msg_rdata *m)
{
	if (len < FT_RDATA_FIXED) {
		errno = EPROTO;
		return -1;
	}
	m->rreq = ft_rd64(p);
	m->offset = ft_rd64(p + 8);
	return 0;
}

/* Dynamic processes ------------------------------------------------- */

/* A list of n ids, n first; the caller checked n. */
static void
put_ids(struct ft_wbuf *b, const uint32_t *ids, uint32_t n)
{
	uint32_t i;

	ft_put32(b, n);
	for (i = 0; i < n; i++)
		ft_put32(b, ids[i]);
}

/*
 * Read a list of ids into a new array (NULL when empty): the count is
 * bounded by max and by what the body holds before anything is
 * allocated.  Returns 0, or -1 with r->err set.
 */
static int
get_ids(struct ft_rbuf *r, uint32_t max, uint32_t *n, uint32_t **ids)
{
	uint32_t i;

	*ids = NULL;
	*n = ft_get32(r);
	if (r->err == 0 && (*n > max || *n > ft_rbuf_left(r) / 4))
		r->err = EPROTO;
	if (r->err != 0 || *n == 0) {
		*n = 0;
		return r->err != 0 ? -1 : 0;
	}
	if ((*ids = calloc(*n, sizeof(**ids))) == NULL) {
		*n = 0;
		r->err = ENOMEM;
		return -1;
	}
	for (i = 0; i < *n; i++)
		(*ids)[i] = ft_get32(r);
	return 0;
}

/* A string of fewer than max bytes, copied to the heap; NULL on error. */
static char *
get_strdup(struct ft_rbuf *r, size_t max)
{
	uint16_t n = ft_get16(r);
	char *s;

	if (r->err != 0)
		return NULL;
	if ((size_t)n >= max || ft_rbuf_left(r) < n ||
	    memchr(r->p + r->off, '\0', n) != NULL) {
		r->err = EPROTO;
		return NULL;
	}
	if ((s = malloc((size_t)n + 1)) == NULL) {
		r->err = ENOMEM;
		return NULL;
	}
	memcpy(s, r->p + r->off, n);
	s[n] = '\0';
	r->off += n;
	return s;
}

/* After a failed decode: EPROTO, or ENOMEM when memory ran out. */
static int
decode_fail(struct ft_rbuf *r)
{
	errno = r->err == ENOMEM ? ENOMEM : EPROTO;
	return -1;
}

int
ft_msg_spawn_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_spawn *m)
{
	const struct ft_spawn_cmd *c;
	uint32_t i, k;
	size_t s;

	if (m->nparents == 0 || m->nparents > FT_WIRE_MAX_RANKS ||
	    m->ncmds == 0 || m->ncmds > FT_SPAWN_CMDS_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < m->ncmds; i++) {
		c = &m->cmds[i];
		if (c->maxprocs == 0 || c->maxprocs > FT_WIRE_MAX_RANKS ||
		    c->command == NULL || c->command[0] == '\0' ||
		    strlen(c->command) >= FT_SPAWN_STR_MAX ||
		    c->argc > FT_SPAWN_ARGS_MAX ||
		    c->ninfo > FT_SPAWN_INFO_MAX) {
			errno = EINVAL;
			return -1;
		}
		for (k = 0; k < c->argc; k++)
			if (strlen(c->argv[k]) >= FT_SPAWN_STR_MAX) {
				errno = EINVAL;
				return -1;
			}
		for (k = 0; k < c->ninfo; k++)
			if (c->keys[k][0] == '\0' ||
			    strlen(c->keys[k]) >= FT_SPAWN_KEY_MAX ||
			    strlen(c->vals[k]) >= FT_SPAWN_VAL_MAX) {
				errno = EINVAL;
				return -1;
			}
	}
	s = frame_begin(b, FT_MSG_SPAWN, sender, 0);
	ft_put32(b, m->reqid);
	put_ids(b, m->parents, m->nparents);
	ft_put32(b, m->ncmds);
	for (i = 0; i < m->ncmds; i++) {
		c = &m->cmds[i];
		ft_put32(b, c->maxprocs);
		ft_putstr(b, c->command);
		ft_put32(b, c->argc);
		for (k = 0; k < c->argc; k++)
			ft_putstr(b, c->argv[k]);
		ft_put32(b, c->ninfo);
		for (k = 0; k < c->ninfo; k++) {
			ft_putstr(b, c->keys[k]);
			ft_putstr(b, c->vals[k]);
		}
	}
	return frame_end(b, s);
}

/* One command of SPAWN; counts are bounded before each allocation. */
static void
get_cmd(struct ft_rbuf *r, struct ft_spawn_cmd *c)
{
	uint32_t k;

	c->maxprocs = ft_get32(r);
	if (r->err == 0 && (c->maxprocs == 0 ||
	    c->maxprocs > FT_WIRE_MAX_RANKS))
		r->err = EPROTO;
	if ((c->command = get_strdup(r, FT_SPAWN_STR_MAX)) == NULL)
		return;
	if (c->command[0] == '\0') {
		r->err = EPROTO;
		return;
	}
	c->argc = ft_get32(r);
	/* Every string takes 2 bytes at least. */
	if (r->err == 0 && (c->argc > FT_SPAWN_ARGS_MAX ||
	    c->argc > ft_rbuf_left(r) / 2))
		r->err = EPROTO;
	if (r->err != 0) {
		c->argc = 0;
		return;
	}
	if ((c->argv = calloc((size_t)c->argc + 1, sizeof(*c->argv))) ==
	    NULL) {
		c->argc = 0;
		r->err = ENOMEM;
		return;
	}
	for (k = 0; k < c->argc && r->err == 0; k++)
		c->argv[k] = get_strdup(r, FT_SPAWN_STR_MAX);
	c->ninfo = ft_get32(r);
	if (r->err == 0 && (c->ninfo > FT_SPAWN_INFO_MAX ||
	    c->ninfo > ft_rbuf_left(r) / 4))
		r->err = EPROTO;
	if (r->err != 0) {
		c->ninfo = 0;
		return;
	}
	if (c->ninfo == 0)
		return;
	if ((c->keys = calloc(c->ninfo, sizeof(*c->keys))) == NULL ||
	    (c->vals = calloc(c->ninfo, sizeof(*c->vals))) == NULL) {
		r->err = ENOMEM;
		return;
	}
	for (k = 0; k < c->ninfo && r->err == 0; k++) {
		c->keys[k] = get_strdup(r, FT_SPAWN_KEY_MAX);
		c->vals[k] = get_strdup(r, FT_SPAWN_VAL_MAX);
		if (r->err == 0 && c->keys[k][0] == '\0')
			r->err = EPROTO;
	}
}

int
ft_msg_spawn_decode(const uint8_t *p, size_t len, struct ft_msg_spawn *m)
{
	struct ft_rbuf r;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	if (get_ids(&r, FT_WIRE_MAX_RANKS, &m->nparents, &m->parents) != 0)
		goto fail;
	if (m->nparents == 0)
		r.err = EPROTO;
	m->ncmds = ft_get32(&r);
	/* A command takes 14 bytes at least. */
	if (r.err == 0 && (m->ncmds == 0 || m->ncmds > FT_SPAWN_CMDS_MAX ||
	    m->ncmds > ft_rbuf_left(&r) / 14))
		r.err = EPROTO;
	if (r.err != 0) {
		m->ncmds = 0;
		goto fail;
	}
	if ((m->cmds = calloc(m->ncmds, sizeof(*m->cmds))) == NULL) {
		m->ncmds = 0;
		r.err = ENOMEM;
		goto fail;
	}
	for (i = 0; i < m->ncmds && r.err == 0; i++)
		get_cmd(&r, &m->cmds[i]);
	if (decode_done(&r) == 0)
		return 0;
	if (r.err == 0)
		r.err = EPROTO;
fail:
	ft_msg_spawn_free(m);
	return decode_fail(&r);
}

void
ft_msg_spawn_free(struct ft_msg_spawn *m)
{
	struct ft_spawn_cmd *c;
	uint32_t i, k;

	for (i = 0; i < m->ncmds; i++) {
		c = &m->cmds[i];
		free(c->command);
		for (k = 0; c->argv != NULL && k < c->argc; k++)
			free(c->argv[k]);
		free(c->argv);
		for (k = 0; k < c->ninfo; k++) {
			if (c->keys != NULL)
				free(c->keys[k]);
			if (c->vals != NULL)
				free(c->vals[k]);
		}
		free(c->keys);
		free(c->vals);
	}
	free(m->cmds);
	free(m->parents);
	memset(m, 0, sizeof(*m));
}

int
ft_msg_reply_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_reply *m)
{
	uint32_t i;
	size_t s;

	if (m->err > FT_REPLY_ERR_MAX || m->nids > FT_WIRE_MAX_RANKS ||
	    m->ncodes > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < m->ncodes; i++)
		if (m->codes[i] > FT_REPLY_ERR_MAX) {
			errno = EINVAL;
			return -1;
		}
	s = frame_begin(b, FT_MSG_REPLY, sender, 0);
	ft_put32(b, m->reqid);
	ft_put32(b, m->err);
	ft_put32(b, m->ctx);
	ft_putstr(b, m->text);
	put_ids(b, m->ids, m->nids);
	put_ids(b, m->codes, m->ncodes);
	return frame_end(b, s);
}

int
ft_msg_reply_decode(const uint8_t *p, size_t len, struct ft_msg_reply *m)
{
	struct ft_rbuf r;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	ft_rbuf_init(&r, p, len);
	m->reqid = ft_get32(&r);
	m->err = ft_get32(&r);
	m->ctx = ft_get32(&r);
	ft_getstr(&r, m->text, sizeof(m->text));
	if (r.err == 0 && m->err > FT_REPLY_ERR_MAX)
		r.err = EPROTO;
	if (get_ids(&r, FT_WIRE_MAX_RANKS, &m->nids, &m->ids) != 0 ||
	    get_ids(&r, FT_WIRE_MAX_RANKS, &m->ncodes, &m->codes) != 0)
		goto fail;
	for (i = 0; i < m->ncodes; i++)
		if (m->codes[i] > FT_REPLY_ERR_MAX)
			r.err = EPROTO;
	if (decode_done(&r) == 0)
		return 0;
	if (r.err == 0)
		r.err = EPROTO;
fail:
	ft_msg_reply_free(m);
	return decode_fail(&r);
}

void
ft_msg_reply_free(struct ft_msg_reply *m)
{
	free(m->ids);
	free(m->codes);
	m->ids = m->codes = NULL;
	m->nids = m->ncodes = 0;
}

int
ft_msg_procs_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_procs *m)
{
	uint32_t i;
	size_t s;

	if (m->t.n == 0 || m->first >= FT_WIRE_MAX_RANKS ||
	    m->t.n > FT_WIRE_MAX_RANKS - m->first) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_PROCS, sender, 0);
	ft_put32(b, m->first);
	ft_put32(b, m->t.n);
	for (i = 0; i < m->t.n; i++)
		put_addr(b, &m->t.ranks[i]);
	return frame_end(b, s);
}

int
ft_msg_procs_decode(const uint8_t *p, size_t len, struct ft_msg_procs *m)
{
	uint32_t first;

	m->first = 0;
	m->t.n = 0;
	m->t.ranks = NULL;
	if (len < 4) {
		errno = EPROTO;
		return -1;
	}
	first = ft_rd32(p);
	/* The rest is a TABLE's body. */
	if (ft_msg_table_decode(p + 4, len - 4, &m->t) != 0)
		return -1;
	if (first >= FT_WIRE_MAX_RANKS || m->t.n > FT_WIRE_MAX_RANKS - first) {
		ft_msg_table_free(&m->t);
		errno = EPROTO;
		return -1;
	}
	m->first = first;
	return 0;
}

int
ft_msg_port_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_port *m)
{
	size_t s;

	if (m->op == 0 || m->op > FT_PORT_OP_MAX ||
	    m->nids > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_PORT, sender, 0);
	ft_put32(b, m->op);
	ft_put32(b, m->reqid);
	ft_put32(b, m->ctx);
	ft_putstr(b, m->name);
	ft_putstr(b, m->value);
	put_ids(b, m->ids, m->nids);
	return frame_end(b, s);
}

int
ft_msg_port_decode(const uint8_t *p, size_t len, struct ft_msg_port *m)
{
	struct ft_rbuf r;

	memset(m, 0, sizeof(*m));
	ft_rbuf_init(&r, p, len);
	m->op = ft_get32(&r);
	m->reqid = ft_get32(&r);
	m->ctx = ft_get32(&r);
	ft_getstr(&r, m->name, sizeof(m->name));
	ft_getstr(&r, m->value, sizeof(m->value));
	if (r.err == 0 && (m->op == 0 || m->op > FT_PORT_OP_MAX))
		r.err = EPROTO;
	if (get_ids(&r, FT_WIRE_MAX_RANKS, &m->nids, &m->ids) != 0)
		goto fail;
	if (decode_done(&r) == 0)
		return 0;
	if (r.err == 0)
		r.err = EPROTO;
fail:
	ft_msg_port_free(m);
	return decode_fail(&r);
}

void
ft_msg_port_free(struct ft_msg_port *m)
{
	free(m->ids);
	m->ids = NULL;
	m->nids = 0;
}

/*
 * Remote execution.  JOB_START's strings are decoded into one arena as
 * large as the body: each string takes its 2-byte length on the wire
 * and one NUL more in the arena, so it always fits.
 */
int
ft_job_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < FT_JOB_NAME_MAX && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int
ft_msg_job_start_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_start *m)
{
	uint32_t i;
	size_t s;

	if (m->argc == 0 || m->argc > FT_JOB_ARGS_MAX ||
	    m->nenv > FT_JOB_ARGS_MAX || m->nfiles > FT_JOB_STAGE_MAX ||
	    m->nprocs > FT_WIRE_MAX_RANKS || (m->flags & ~FT_JOB_FLAGS) != 0 ||
	    (m->prog != FT_JOB_NOPROG && m->prog >= m->nfiles)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < m->nfiles; i++)
		if (!ft_job_name_ok(m->files[i].name) ||
		    (m->files[i].flags & ~FT_STAGE_FLAGS) != 0) {
			errno = EINVAL;
			return -1;
		}
	s = frame_begin(b, FT_MSG_JOB_START, sender, 0);
	ft_putbytes(b, m->token, sizeof(m->token));
	ft_put32(b, m->nprocs);
	ft_put64(b, m->jobid);
	ft_put32(b, m->node);
	ft_put32(b, m->nranks);
	ft_put32(b, m->nrep);
	ft_put32(b, m->flags);
	ft_put64(b, m->timeout_ms);
	ft_put64(b, m->grace_ms);
	ft_put64(b, m->hang_ms);
	ft_put32(b, m->hb_period_ms);
	ft_putstr(b, m->launcher);
	ft_putstr(b, m->proto);
	ft_put32(b, m->prog);
	ft_put32(b, m->argc);
	for (i = 0; i < m->argc; i++) {
		if (strlen(m->argv[i]) >= FT_JOB_ARG_MAX)
			b->err = EMSGSIZE;
		ft_putstr(b, m->argv[i]);
	}
	ft_put32(b, m->nenv);
	for (i = 0; i < m->nenv; i++) {
		if (strlen(m->env[i]) >= FT_JOB_ARG_MAX)
			b->err = EMSGSIZE;
		ft_putstr(b, m->env[i]);
	}
	for (i = 0; i < m->nprocs; i++) {
		ft_put32(b, m->procs[i].id);
		ft_put32(b, m->procs[i].kill_signal);
		ft_put64(b, m->procs[i].kill_after);
	}
	ft_put32(b, m->nfiles);
	for (i = 0; i < m->nfiles; i++) {
		if (strlen(m->files[i].url) >= FT_JOB_URL_MAX)
			b->err = EMSGSIZE;
		ft_putstr(b, m->files[i].name);
		ft_putstr(b, m->files[i].url);
		ft_put64(b, m->files[i].size);
		ft_putbytes(b, m->files[i].sha256, 32);
		ft_put32(b, m->files[i].flags);
	}
	ft_putbytes(b, m->sealed, sizeof(m->sealed));
	return frame_end(b, s);
}

/* A string into the arena at *at, at most max bytes with its NUL. */
static char *
get_astr(struct ft_rbuf *r, char *arena, size_t *at, size_t max)
{
	char *s = arena + *at;
	uint16_t n;

	if (r->err != 0)
		return NULL;
	/* Peek the length: ft_getstr checks it against the room given. */
	n = (uint16_t)(ft_rbuf_left(r) >= 2 ?
	    (r->p[r->off] << 8 | r->p[r->off + 1]) : 0);
	if ((size_t)n + 1 > max) {
		r->err = EPROTO;
		return NULL;
	}
	ft_getstr(r, s, (size_t)n + 1);
	if (r->err != 0)
		return NULL;
	*at += (size_t)n + 1;
	return s;
}

void
ft_msg_job_start_free(struct ft_msg_job_start *m)
{
	free(m->argv);
	free(m->env);
	free(m->procs);
	free(m->files);
	free(m->arena);
	m->argv = m->env = NULL;
	m->procs = NULL;
	m->files = NULL;
	m->arena = NULL;
	m->argc = m->nenv = m->nfiles = m->nprocs = 0;
}

int
ft_msg_job_start_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_start *m)
{
	struct ft_rbuf r;
	size_t at = 0;
	uint32_t i;
	char *arena;

	memset(m, 0, sizeof(*m));
	ft_rbuf_init(&r, p, len);
	if ((arena = m->arena = malloc(len + 1)) == NULL)
		return -1;
	ft_getbytes(&r, m->token, sizeof(m->token));
	m->nprocs = ft_get32(&r);
	m->jobid = ft_get64(&r);
	m->node = ft_get32(&r);
	m->nranks = ft_get32(&r);
	m->nrep = ft_get32(&r);
	m->flags = ft_get32(&r);
	m->timeout_ms = ft_get64(&r);
	m->grace_ms = ft_get64(&r);
	m->hang_ms = ft_get64(&r);
	m->hb_period_ms = ft_get32(&r);
	ft_getstr(&r, m->launcher, sizeof(m->launcher));
	ft_getstr(&r, m->proto, sizeof(m->proto));
	m->prog = ft_get32(&r);
	m->argc = ft_get32(&r);
	/* Every count bounded, and by what is left, before allocating. */
	if (r.err != 0 || m->argc == 0 || m->argc > FT_JOB_ARGS_MAX ||
	    m->argc > ft_rbuf_left(&r) / 2 || m->nprocs > FT_WIRE_MAX_RANKS ||
	    m->nrep == 0 || m->nrep > 16 || m->nranks == 0 ||
	    (uint64_t)m->nranks * m->nrep > FT_WIRE_MAX_RANKS ||
	    (m->flags & ~FT_JOB_FLAGS) != 0)
		goto bad;
	if ((m->argv = calloc(m->argc + 1, sizeof(*m->argv))) == NULL)
		goto fail;
	for (i = 0; i < m->argc; i++)
		if ((m->argv[i] = get_astr(&r, arena, &at, FT_JOB_ARG_MAX)) ==
		    NULL)
			goto bad;
	m->nenv = ft_get32(&r);
	if (r.err != 0 || m->nenv > FT_JOB_ARGS_MAX ||
	    m->nenv > ft_rbuf_left(&r) / 2)
		goto bad;
	if ((m->env = calloc(m->nenv + 1, sizeof(*m->env))) == NULL)
		goto fail;
	for (i = 0; i < m->nenv; i++)
		if ((m->env[i] = get_astr(&r, arena, &at, FT_JOB_ARG_MAX)) ==
		    NULL || strchr(m->env[i], '=') == NULL ||
		    m->env[i][0] == '=')
			goto bad;
	if (m->nprocs > ft_rbuf_left(&r) / 16)
		goto bad;
	if ((m->procs = calloc(m->nprocs + 1, sizeof(*m->procs))) == NULL)
		goto fail;
	for (i = 0; i < m->nprocs; i++) {
		m->procs[i].id = ft_get32(&r);
		m->procs[i].kill_signal = ft_get32(&r);
		m->procs[i].kill_after = ft_get64(&r);
		if (m->procs[i].id >= m->nranks * m->nrep ||
		    m->procs[i].kill_signal > 64)
			goto bad;
	}
	m->nfiles = ft_get32(&r);
	if (r.err != 0 || m->nfiles > FT_JOB_STAGE_MAX ||
	    m->nfiles > ft_rbuf_left(&r) / 48 ||
	    (m->prog != FT_JOB_NOPROG && m->prog >= m->nfiles))
		goto bad;
	if ((m->files = calloc(m->nfiles + 1, sizeof(*m->files))) == NULL)
		goto fail;
	for (i = 0; i < m->nfiles; i++) {
		struct ft_job_file *f = &m->files[i];

		if ((f->name = get_astr(&r, arena, &at, FT_JOB_NAME_MAX)) ==
		    NULL || (f->url = get_astr(&r, arena, &at,
		    FT_JOB_URL_MAX)) == NULL || !ft_job_name_ok(f->name))
			goto bad;
		f->size = ft_get64(&r);
		ft_getbytes(&r, f->sha256, sizeof(f->sha256));
		f->flags = ft_get32(&r);
		if ((f->flags & ~FT_STAGE_FLAGS) != 0)
			goto bad;
	}
	ft_getbytes(&r, m->sealed, sizeof(m->sealed));
	if (decode_done(&r) != 0)
		goto bad;
	return 0;
bad:
	errno = EPROTO;
fail:
	{
		int e = errno;

		ft_msg_job_start_free(m);
		errno = e;
	}
	return -1;
}

int
ft_msg_job_need_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_need *m)
{
	uint32_t i;
	size_t s;

	if (m->n > FT_JOB_STAGE_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_NEED, sender, 0);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		ft_put32(b, m->idx[i]);
	return frame_end(b, s);
}

int
ft_msg_job_need_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_need *m)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->n > FT_JOB_STAGE_MAX ||
	    (size_t)m->n * 4 != ft_rbuf_left(&r)))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++)
		if ((m->idx[i] = ft_get32(&r)) >= FT_JOB_STAGE_MAX)
			r.err = EPROTO;
	if (r.err != 0)
		m->n = 0;
	return decode_done(&r);
}

int
ft_msg_job_file_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_file *m)
{
	size_t s;

	if (m->len > FT_JOB_CHUNK) {
		errno = EMSGSIZE;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_FILE, sender, 0);
	ft_put32(b, m->idx);
	ft_put64(b, m->offset);
	ft_putbytes(b, m->data, m->len);
	return frame_end(b, s);
}

int
ft_msg_job_file_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_file *m)
{
	if (len < FT_JOB_FILE_FIXED || len - FT_JOB_FILE_FIXED >
	    FT_JOB_CHUNK || ft_rd32(p) >= FT_JOB_STAGE_MAX ||
	    ft_rd64(p + 4) > INT64_MAX) {
		errno = EPROTO;
		return -1;
	}
	m->idx = ft_rd32(p);
	m->offset = ft_rd64(p + 4);
	m->data = p + FT_JOB_FILE_FIXED;
	m->len = len - FT_JOB_FILE_FIXED;
	return 0;
}

int
ft_msg_job_started_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_started *m)
{
	uint32_t i;
	size_t s;

	if (m->n > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_STARTED, sender, 0);
	ft_put32(b, m->cached);
	ft_put32(b, m->received);
	ft_put32(b, m->fetched);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put32(b, m->p[i].id);
		ft_put32(b, m->p[i].pid);
		ft_put32(b, m->p[i].err);
	}
	return frame_end(b, s);
}

int
ft_msg_job_started_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_started *m, uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->cached = ft_get32(&r);
	m->received = ft_get32(&r);
	m->fetched = ft_get32(&r);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->n > cap || m->n > FT_WIRE_MAX_RANKS ||
	    (size_t)m->n * 12 != ft_rbuf_left(&r)))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		m->p[i].id = ft_get32(&r);
		m->p[i].pid = ft_get32(&r);
		m->p[i].err = ft_get32(&r);
		/* No pid (no fork) comes with an errno; a pid may come
		 * with the errno of its failed exec. */
		if ((m->p[i].pid == 0 && m->p[i].err == 0) ||
		    m->p[i].pid > INT32_MAX || m->p[i].err > 4095)
			r.err = EPROTO;
	}
	if (r.err != 0)
		m->n = 0;
	return decode_done(&r);
}

int
ft_msg_job_output_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_output *m)
{
	size_t s;

	if ((m->stream != FT_JOB_STDOUT && m->stream != FT_JOB_STDERR) ||
	    (m->flags & ~FT_JOB_EOF) != 0 ||
	    (m->len == 0 && m->flags == 0)) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_OUTPUT, sender, 0);
	ft_put32(b, m->id);
	ft_put8(b, m->stream);
	ft_put8(b, m->flags);
	ft_put16(b, 0);
	ft_putbytes(b, m->data, m->len);
	return frame_end(b, s);
}

int
ft_msg_job_output_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_output *m)
{
	if (len < FT_JOB_OUTPUT_FIXED || (p[4] != FT_JOB_STDOUT &&
	    p[4] != FT_JOB_STDERR) || (p[5] & ~FT_JOB_EOF) != 0 ||
	    p[6] != 0 || p[7] != 0 ||
	    (len == FT_JOB_OUTPUT_FIXED && p[5] == 0)) {
		errno = EPROTO;
		return -1;
	}
	m->id = ft_rd32(p);
	m->stream = p[4];
	m->flags = p[5];
	m->data = p + FT_JOB_OUTPUT_FIXED;
	m->len = len - FT_JOB_OUTPUT_FIXED;
	return 0;
}

static int
status_ok(const struct ft_job_status *s)
{
	switch (s->kind) {
	case FT_JOB_EXITED:
		return s->value <= 255;
	case FT_JOB_SIGNALED:
	case FT_JOB_STOPPED:
		return s->value >= 1 && s->value <= 127;
	case FT_JOB_CONTINUED:
		return s->value == 0;
	default:
		return 0;
	}
}

int
ft_msg_job_status_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_status *m)
{
	uint32_t i;
	size_t s;

	if (m->n == 0 || m->n > FT_JOB_BATCH_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < m->n; i++)
		if (!status_ok(&m->s[i])) {
			errno = EINVAL;
			return -1;
		}
	s = frame_begin(b, FT_MSG_JOB_STATUS, sender, 0);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put32(b, m->s[i].id);
		ft_put32(b, m->s[i].kind);
		ft_put32(b, m->s[i].value);
	}
	return frame_end(b, s);
}

int
ft_msg_job_status_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_status *m, uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->n == 0 || m->n > cap ||
	    m->n > FT_JOB_BATCH_MAX || (size_t)m->n * 12 != ft_rbuf_left(&r)))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		m->s[i].id = ft_get32(&r);
		m->s[i].kind = ft_get32(&r);
		m->s[i].value = ft_get32(&r);
		if (!status_ok(&m->s[i]))
			r.err = EPROTO;
	}
	if (r.err != 0)
		m->n = 0;
	return decode_done(&r);
}

int
ft_msg_job_beats_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_beats *m)
{
	uint32_t i;
	size_t s;

	if (m->n > FT_JOB_BATCH_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_BEATS, sender, 0);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_put32(b, m->b[i].id);
		ft_put32(b, m->b[i].flags);
		ft_put32(b, m->b[i].state_ms);
		ft_put64(b, m->b[i].completed);
	}
	return frame_end(b, s);
}

int
ft_msg_job_beats_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_beats *m, uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->n > cap || m->n > FT_JOB_BATCH_MAX ||
	    (size_t)m->n * 20 != ft_rbuf_left(&r)))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		m->b[i].id = ft_get32(&r);
		m->b[i].flags = ft_get32(&r);
		m->b[i].state_ms = ft_get32(&r);
		m->b[i].completed = ft_get64(&r);
	}
	if (r.err != 0)
		m->n = 0;
	return decode_done(&r);
}

int
ft_msg_job_signal_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_signal *m)
{
	uint32_t i;
	size_t s;

	if (m->signo == 0 || m->signo > 64 || m->n > FT_JOB_BATCH_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_SIGNAL, sender, 0);
	ft_put32(b, m->signo);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++)
		ft_put32(b, m->ids[i]);
	return frame_end(b, s);
}

int
ft_msg_job_signal_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_signal *m, uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->signo = ft_get32(&r);
	m->n = ft_get32(&r);
	if (r.err == 0 && (m->signo == 0 || m->signo > 64 || m->n > cap ||
	    m->n > FT_JOB_BATCH_MAX || (size_t)m->n * 4 != ft_rbuf_left(&r)))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++)
		m->ids[i] = ft_get32(&r);
	if (r.err != 0)
		m->n = 0;
	return decode_done(&r);
}

int
ft_msg_job_note_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_note *m)
{
	size_t s;

	if (m->kind != FT_JOB_NOTE_ERROR && m->kind != FT_JOB_NOTE_WARNING) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_NOTE, sender, 0);
	ft_put32(b, m->kind);
	ft_put32(b, m->code);
	ft_putstr(b, m->text);
	return frame_end(b, s);
}

int
ft_msg_job_note_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_note *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->kind = ft_get32(&r);
	m->code = ft_get32(&r);
	ft_getstr(&r, m->text, sizeof(m->text));
	if (r.err == 0 && ((m->kind != FT_JOB_NOTE_ERROR &&
	    m->kind != FT_JOB_NOTE_WARNING) || m->code > 255))
		r.err = EPROTO;
	return decode_done(&r);
}

int
ft_msg_job_detect_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_detect *m)
{
	size_t s;

	if (m->addr[0] == '\0' || memchr(m->addr, '\0', sizeof(m->addr)) ==
	    NULL) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_DETECT, sender, 0);
	ft_putstr(b, m->addr);
	return frame_end(b, s);
}

int
ft_msg_job_detect_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_detect *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	ft_getstr(&r, m->addr, sizeof(m->addr));
	if (r.err == 0 && m->addr[0] == '\0')
		r.err = EPROTO;
	return decode_done(&r);
}

int
ft_msg_job_members_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_members *m)
{
	uint32_t i;
	size_t s;

	if (m->n < 2 || m->n > FT_JOB_MEMBERS_MAX || m->self >= m->n ||
	    m->proto > FT_JOB_GOSSIP_PROTO_MAX || m->period_ns == 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < m->n; i++)
		if (m->addrs[i][0] == '\0' || memchr(m->addrs[i], '\0',
		    FT_WIRE_ADDR_MAX) == NULL) {
			errno = EINVAL;
			return -1;
		}
	s = frame_begin(b, FT_MSG_JOB_MEMBERS, sender, 0);
	ft_put32(b, m->self);
	ft_put32(b, m->n);
	ft_put32(b, m->proto);
	ft_put64(b, m->period_ns);
	ft_put64(b, m->cleanup_ns);
	ft_put64(b, m->ping_ns);
	for (i = 0; i < m->n; i++)
		ft_putstr(b, m->addrs[i]);
	return frame_end(b, s);
}

int
ft_msg_job_members_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_members *m, uint32_t cap)
{
	struct ft_rbuf r;
	uint32_t i;

	ft_rbuf_init(&r, p, len);
	m->self = ft_get32(&r);
	m->n = ft_get32(&r);
	m->proto = ft_get32(&r);
	m->period_ns = ft_get64(&r);
	m->cleanup_ns = ft_get64(&r);
	m->ping_ns = ft_get64(&r);
	if (r.err == 0 && (m->n < 2 || m->n > cap ||
	    m->n > FT_JOB_MEMBERS_MAX || m->self >= m->n ||
	    m->proto > FT_JOB_GOSSIP_PROTO_MAX || m->period_ns == 0))
		r.err = EPROTO;
	for (i = 0; r.err == 0 && i < m->n; i++) {
		ft_getstr(&r, m->addrs[i], FT_WIRE_ADDR_MAX);
		if (r.err == 0 && m->addrs[i][0] == '\0')
			r.err = EPROTO;
	}
	if (r.err != 0)
		m->n = 0;
	return decode_done(&r);
}

static int
job_input_ok(uint32_t flags, size_t len)
{
	if ((flags & ~(FT_JOB_INPUT_EOF | FT_JOB_INPUT_TAKEN |
	    FT_JOB_INPUT_CLOSED)) != 0 || len > FT_JOB_INPUT_MAX)
		return 0;
	if (flags & (FT_JOB_INPUT_TAKEN | FT_JOB_INPUT_CLOSED))
		return (flags & FT_JOB_INPUT_EOF) == 0 && len == 0;
	return len > 0 || flags == FT_JOB_INPUT_EOF;
}

int
ft_msg_job_input_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_job_input *m)
{
	size_t s;

	if (!job_input_ok(m->flags, m->len) || (m->count != 0 &&
	    (m->flags & (FT_JOB_INPUT_TAKEN | FT_JOB_INPUT_CLOSED)) == 0)) {
		errno = EINVAL;
		return -1;
	}
	s = frame_begin(b, FT_MSG_JOB_INPUT, sender, 0);
	ft_put32(b, m->id);
	ft_put32(b, m->flags);
	ft_put64(b, m->count);
	ft_putbytes(b, m->data, m->len);
	return frame_end(b, s);
}

int
ft_msg_job_input_decode(const uint8_t *p, size_t len,
    struct ft_msg_job_input *m)
{
	if (len < FT_JOB_INPUT_FIXED) {
		errno = EPROTO;
		return -1;
	}
	m->id = ft_rd32(p);
	m->flags = ft_rd32(p + 4);
	m->count = ft_rd64(p + 8);
	m->data = p + FT_JOB_INPUT_FIXED;
	m->len = len - FT_JOB_INPUT_FIXED;
	if (!job_input_ok(m->flags, m->len) || (m->count != 0 &&
	    (m->flags & (FT_JOB_INPUT_TAKEN | FT_JOB_INPUT_CLOSED)) == 0)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}
