/* SPDX-License-Identifier: ISC */
/*
 * ftboot's frames: registration with the supernode and its list of
 * peers, reservation on a daemon's gatekeeper and its cancellation,
 * a submitter's allocation request and its grants, and a daemon's
 * status.  Same rules as wire.c: fixed fields through a bounded cursor,
 * counts checked against what the body can hold before allocating,
 * the body consumed exactly.
 */
#include <stdlib.h>

#include "wire.h"

/* Smallest encodings: two empty strings and the fixed fields. */
#define PEER_MIN_BYTES	(2 + 2 + 4 + 4 + 8)
#define GRANT_MIN_BYTES	(2 + 2 + 4 + 8 + FT_WIRE_TOKEN)

_Static_assert(FT_WIRE_TOKEN == 16, "tokens are 16 bytes");

int
ft_msg_boot_register_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_register *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_BOOT_REGISTER, sender, 0);

	ft_putstr(b, m->addr);
	ft_putstr(b, m->host);
	ft_put32(b, m->slots);
	ft_put32(b, m->jobs);
	ft_put64(b, m->refresh_ms);
	return ft__frame_end(b, s);
}

int
ft_msg_boot_register_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_register *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	ft_getstr(&r, m->addr, sizeof(m->addr));
	ft_getstr(&r, m->host, sizeof(m->host));
	m->slots = ft_get32(&r);
	m->jobs = ft_get32(&r);
	m->refresh_ms = ft_get64(&r);
	if (r.err == 0 && (m->addr[0] == '\0' || m->host[0] == '\0' ||
	    m->slots == 0 || m->jobs == 0 || m->refresh_ms == 0))
		r.err = EPROTO;
	return ft__decode_done(&r);
}

int
ft_msg_boot_peers_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_peers *m)
{
	size_t s;
	uint32_t i;

	if (m->n > FT_WIRE_PEERS_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_BOOT_PEERS, sender, 0);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		ft_putstr(b, m->p[i].addr);
		ft_putstr(b, m->p[i].host);
		ft_put32(b, m->p[i].slots);
		ft_put32(b, m->p[i].jobs);
		ft_put64(b, m->p[i].age_ms);
	}
	return ft__frame_end(b, s);
}

int
ft_msg_boot_peers_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_peers *m)
{
	struct ft_boot_peer *e;
	struct ft_rbuf r;
	uint32_t i, n;

	m->n = 0;
	m->p = NULL;
	ft_rbuf_init(&r, p, len);
	n = ft_get32(&r);
	/* Bound the count by what the body can hold before allocating. */
	if (r.err != 0 || n > FT_WIRE_PEERS_MAX ||
	    n > ft_rbuf_left(&r) / PEER_MIN_BYTES) {
		errno = EPROTO;
		return -1;
	}
	if (n > 0 && (m->p = calloc(n, sizeof(*m->p))) == NULL)
		return -1;
	m->n = n;
	for (i = 0; i < n && r.err == 0; i++) {
		e = &m->p[i];
		ft_getstr(&r, e->addr, sizeof(e->addr));
		ft_getstr(&r, e->host, sizeof(e->host));
		e->slots = ft_get32(&r);
		e->jobs = ft_get32(&r);
		e->age_ms = ft_get64(&r);
		if (r.err == 0 && (e->addr[0] == '\0' || e->host[0] == '\0'))
			r.err = EPROTO;
	}
	if (ft__decode_done(&r) != 0) {
		ft_msg_boot_peers_free(m);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

void
ft_msg_boot_peers_free(struct ft_msg_boot_peers *m)
{
	free(m->p);
	m->p = NULL;
	m->n = 0;
}

int
ft_msg_boot_reserve_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_reserve *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_BOOT_RESERVE, sender, 0);

	ft_put32(b, m->want);
	return ft__frame_end(b, s);
}

int
ft_msg_boot_reserve_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_reserve *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->want = ft_get32(&r);
	if (r.err == 0 && (m->want == 0 || m->want > FT_WIRE_MAX_RANKS))
		r.err = EPROTO;
	return ft__decode_done(&r);
}

int
ft_msg_boot_reserved_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_reserved *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_BOOT_RESERVED, sender, 0);

	ft_put32(b, m->status);
	ft_put32(b, m->slots);
	ft_put64(b, m->ttl_ms);
	ft_putbytes(b, m->token, sizeof(m->token));
	ft_putstr(b, m->host);
	ft_putstr(b, m->reason);
	return ft__frame_end(b, s);
}

int
ft_msg_boot_reserved_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_reserved *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->status = ft_get32(&r);
	m->slots = ft_get32(&r);
	m->ttl_ms = ft_get64(&r);
	ft_getbytes(&r, m->token, sizeof(m->token));
	ft_getstr(&r, m->host, sizeof(m->host));
	ft_getstr(&r, m->reason, sizeof(m->reason));
	/* A grant has slots; a refusal has none and says why. */
	if (r.err == 0 && (m->status > FT_BOOT_STATUS_MAX ||
	    (m->status == FT_BOOT_OK) != (m->slots > 0) ||
	    (m->status != FT_BOOT_OK && m->reason[0] == '\0') ||
	    m->slots > FT_WIRE_MAX_RANKS))
		r.err = EPROTO;
	return ft__decode_done(&r);
}

int
ft_msg_boot_cancel_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_cancel *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_BOOT_CANCEL, sender, 0);

	ft_putbytes(b, m->token, sizeof(m->token));
	return ft__frame_end(b, s);
}

int
ft_msg_boot_cancel_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_cancel *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	ft_getbytes(&r, m->token, sizeof(m->token));
	return ft__decode_done(&r);
}

int
ft_msg_boot_alloc_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_alloc *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_BOOT_ALLOC, sender, 0);

	ft_put32(b, m->nranks);
	ft_put32(b, m->nrep);
	ft_put8(b, m->mode);
	ft_put8(b, 0);
	ft_put16(b, 0);
	return ft__frame_end(b, s);
}

int
ft_msg_boot_alloc_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_alloc *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	m->nranks = ft_get32(&r);
	m->nrep = ft_get32(&r);
	m->mode = ft_get8(&r);
	if (ft_get8(&r) != 0 || ft_get16(&r) != 0)
		r.err = EPROTO;
	if (r.err == 0 && (m->nranks == 0 || m->nrep == 0 || m->mode > 1 ||
	    (uint64_t)m->nranks * m->nrep > FT_WIRE_MAX_RANKS))
		r.err = EPROTO;
	return ft__decode_done(&r);
}

int
ft_msg_boot_grants_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_grants *m)
{
	const struct ft_boot_grant *g;
	size_t s;
	uint32_t i;

	if (m->n > FT_WIRE_PEERS_MAX) {
		errno = EINVAL;
		return -1;
	}
	s = ft__frame_begin(b, FT_MSG_BOOT_GRANTS, sender, 0);
	ft_put32(b, m->status);
	ft_putstr(b, m->why);
	ft_put32(b, m->n);
	for (i = 0; i < m->n; i++) {
		g = &m->g[i];
		ft_putstr(b, g->addr);
		ft_putstr(b, g->host);
		ft_put32(b, g->slots);
		ft_put64(b, g->rtt_us);
		ft_putbytes(b, g->token, sizeof(g->token));
	}
	return ft__frame_end(b, s);
}

int
ft_msg_boot_grants_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_grants *m)
{
	struct ft_boot_grant *g;
	struct ft_rbuf r;
	uint32_t i, n;

	m->n = 0;
	m->g = NULL;
	ft_rbuf_init(&r, p, len);
	m->status = ft_get32(&r);
	ft_getstr(&r, m->why, sizeof(m->why));
	n = ft_get32(&r);
	if (r.err != 0 || m->status > FT_BOOT_STATUS_MAX ||
	    n > FT_WIRE_PEERS_MAX || n > ft_rbuf_left(&r) / GRANT_MIN_BYTES ||
	    (m->status != FT_BOOT_OK && (n != 0 || m->why[0] == '\0')) ||
	    (m->status == FT_BOOT_OK && n == 0)) {
		errno = EPROTO;
		return -1;
	}
	if ((m->g = calloc(n, sizeof(*m->g))) == NULL && n > 0)
		return -1;
	m->n = n;
	for (i = 0; i < n && r.err == 0; i++) {
		g = &m->g[i];
		ft_getstr(&r, g->addr, sizeof(g->addr));
		ft_getstr(&r, g->host, sizeof(g->host));
		g->slots = ft_get32(&r);
		g->rtt_us = ft_get64(&r);
		ft_getbytes(&r, g->token, sizeof(g->token));
		if (r.err == 0 && (g->addr[0] == '\0' || g->slots == 0 ||
		    g->slots > FT_WIRE_MAX_RANKS))
			r.err = EPROTO;
	}
	if (ft__decode_done(&r) != 0) {
		ft_msg_boot_grants_free(m);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

void
ft_msg_boot_grants_free(struct ft_msg_boot_grants *m)
{
	free(m->g);
	m->g = NULL;
	m->n = 0;
}

int
ft_msg_boot_state_encode(struct ft_wbuf *b, uint32_t sender,
    const struct ft_msg_boot_state *m)
{
	size_t s = ft__frame_begin(b, FT_MSG_BOOT_STATE, sender, 0);

	ft_putstr(b, m->addr);
	ft_putstr(b, m->host);
	ft_put32(b, m->slots);
	ft_put32(b, m->jobs);
	ft_put32(b, m->reserved);
	ft_put32(b, m->running);
	ft_put32(b, m->peers);
	ft_put64(b, m->uptime_ms);
	return ft__frame_end(b, s);
}

int
ft_msg_boot_state_decode(const uint8_t *p, size_t len,
    struct ft_msg_boot_state *m)
{
	struct ft_rbuf r;

	ft_rbuf_init(&r, p, len);
	ft_getstr(&r, m->addr, sizeof(m->addr));
	ft_getstr(&r, m->host, sizeof(m->host));
	m->slots = ft_get32(&r);
	m->jobs = ft_get32(&r);
	m->reserved = ft_get32(&r);
	m->running = ft_get32(&r);
	m->peers = ft_get32(&r);
	m->uptime_ms = ft_get64(&r);
	return ft__decode_done(&r);
}
