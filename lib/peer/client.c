/* SPDX-License-Identifier: ISC */
/*
 * Client calls of the peer layer: one request and its answer over a
 * fresh authenticated connection, bounded by a deadline; and on top,
 * reserve, cancel, status, ping and registration.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "peer.h"

#define CALL_IBUF	(16u << 10)

int
ft_peer_call(const char *addr, const uint8_t *key, uint8_t role,
    const struct ft_wbuf *req, unsigned int want, uint64_t timeout_ns,
    int (*take)(void *, const uint8_t *, size_t), void *arg, uint64_t *rtt_ns,
    char *why, size_t whysize)
{
	uint64_t deadline = ft_now_ns() + timeout_ns, t0;
	struct ft_msg_abort ab;
	const uint8_t *body;
	struct ft_conn c;
	struct ft_hdr h;
	char vis[FT_WIRE_TEXT_MAX];
	int fd, stage = 0, saved;

	while ((fd = ft_net_connect(addr)) == -1) {
		if (errno != EAGAIN || ft_now_ns() >= deadline) {
			saved = errno;
			snprintf(why, whysize, "%s: %s", addr, strerror(saved));
			errno = saved;
			return -1;
		}
		(void)poll(NULL, 0, 1);
	}
	if (ft_conn_connecting(&c, fd, key, (uint32_t)getpid(), role) != 0) {
		saved = errno;
		close(fd);
		snprintf(why, whysize, "%s: %s", addr, strerror(saved));
		errno = saved;
		return -1;
	}
	(void)ft_conn_set_ibuf(&c, CALL_IBUF);
	if (ft_conn_await(&c, 0, 0, &h, &body, deadline) < 0)
		goto fail;
	stage = 1;
	t0 = ft_now_ns();
	if (ft_conn_queue_copy(&c, req->p, req->len) != 0)
		goto fail;
	if (ft_conn_await(&c, want, FT_MSG_ABORT, &h, &body, deadline) < 0)
		goto fail;
	if (rtt_ns != NULL)
		*rtt_ns = ft_now_ns() - t0;
	if (h.type == FT_MSG_ABORT) {
		if (ft_msg_abort_decode(body, h.len - FT_WIRE_HDRLEN, &ab) == 0)
			snprintf(why, whysize, "%s: %s", addr,
			    ft_vis(vis, sizeof(vis), ab.reason));
		else
			snprintf(why, whysize, "%s: refused the request", addr);
		ft_conn_release(&c);
		errno = EACCES;
		return -1;
	}
	if (take(arg, body, h.len - FT_WIRE_HDRLEN) != 0) {
		saved = errno;
		snprintf(why, whysize, "%s: a malformed %s answer", addr,
		    ft_msg_name(want));
		ft_conn_release(&c);
		errno = saved;
		return -1;
	}
	ft_conn_release(&c);
	return 0;
fail:
	saved = errno;
	if (saved == EACCES)
		snprintf(why, whysize, "%s: authentication failed: the daemon "
		    "does not hold our cluster key", addr);
	else if (saved == ETIMEDOUT)
		snprintf(why, whysize, "%s: no answer within %llus%s", addr,
		    (unsigned long long)(timeout_ns / 1000000000u),
		    stage == 0 ? " (during the handshake)" : "");
	else if (stage == 0 && (saved == ECONNRESET || saved == EPIPE))
		snprintf(why, whysize, "%s: closed the connection during the "
		    "handshake (not an ftboot daemon, or one that refuses "
		    "this role)", addr);
	else if (saved == ECONNRESET || saved == EPIPE)
		snprintf(why, whysize, "%s: closed the connection without "
		    "answering", addr);
	else
		snprintf(why, whysize, "%s: %s", addr, strerror(saved));
	ft_conn_release(&c);
	errno = saved;
	return -1;
}

int
ft__peer_request(const char *addr, const uint8_t *key, uint8_t role,
    struct ft_wbuf *req, int encoded, unsigned int want, uint64_t timeout_ns,
    int (*take)(void *, const uint8_t *, size_t), void *arg,
    uint64_t *rtt_ns, char *why, size_t whysize)
{
	int rc = -1;

	if (encoded == 0)
		rc = ft_peer_call(addr, key, role, req, want, timeout_ns, take,
		    arg, rtt_ns, why, whysize);
	else
		snprintf(why, whysize, "%s: %s", addr, strerror(errno));
	ft_wbuf_release(req);
	return rc;
}

static int
take_reserved(void *arg, const uint8_t *p, size_t len)
{
	return ft_msg_boot_reserved_decode(p, len, arg);
}

int
ft_peer_reserve(const char *addr, const uint8_t *key, uint8_t role,
    uint32_t want, struct ft_grant *g, char *why, size_t whysize)
{
	struct ft_msg_boot_reserve rq = { want };
	struct ft_msg_boot_reserved rs;
	struct ft_wbuf b;
	uint64_t rtt = 0;
	char vis[FT_WIRE_TEXT_MAX];
	int rc;

	ft_wbuf_init(&b);
	rc = ft__peer_request(addr, key, role, &b,
	    ft_msg_boot_reserve_encode(&b, 0, &rq), FT_MSG_BOOT_RESERVED,
	    FT_PEER_CALL_NS, take_reserved, &rs, &rtt, why, whysize);
	if (rc != 0)
		return -1;
	if (rs.status != FT_BOOT_OK) {
		snprintf(why, whysize, "%s: %s", addr,
		    ft_vis(vis, sizeof(vis), rs.reason));
		return (int)rs.status;
	}
	memset(g, 0, sizeof(*g));
	snprintf(g->addr, sizeof(g->addr), "%s", addr);
	ft_vis(g->host, sizeof(g->host), rs.host);
	g->slots = rs.slots;
	g->rtt_us = rtt / 1000 > 0 ? rtt / 1000 : 1;
	memcpy(g->token, rs.token, FT_PEER_TOKEN);
	return FT_BOOT_OK;
}

static int
take_empty(void *arg, const uint8_t *p, size_t len)
{
	(void)arg;
	return ft_msg_empty_decode(p, len);
}

int
ft_peer_cancel(const char *addr, const uint8_t *key, uint8_t role,
    const uint8_t token[FT_PEER_TOKEN], char *why, size_t whysize)
{
	struct ft_msg_boot_cancel m;
	struct ft_wbuf b;

	memcpy(m.token, token, FT_PEER_TOKEN);
	ft_wbuf_init(&b);
	return ft__peer_request(addr, key, role, &b,
	    ft_msg_boot_cancel_encode(&b, 0, &m), FT_MSG_BOOT_DONE,
	    FT_PEER_CALL_NS, take_empty, NULL, NULL, why, whysize);
}

void
ft_peer_release(const uint8_t *key, const struct ft_grant *g, size_t n)
{
	char why[FT_WIRE_TEXT_MAX];
	size_t i;

	for (i = 0; i < n; i++)
		if (ft_peer_cancel(g[i].addr, key, FT_ROLE_SUBMITTER,
		    g[i].token, why, sizeof(why)) != 0)
			ft_debug("cancel: %s", why);
}

static int
take_state(void *arg, const uint8_t *p, size_t len)
{
	return ft_msg_boot_state_decode(p, len, arg);
}

int
ft_peer_state(const char *addr, const uint8_t *key,
    struct ft_msg_boot_state *st, char *why, size_t whysize)
{
	struct ft_wbuf b;

	ft_wbuf_init(&b);
	return ft__peer_request(addr, key, FT_ROLE_SUBMITTER, &b,
	    ft_msg_empty_encode(&b, 0, FT_MSG_BOOT_STATUS), FT_MSG_BOOT_STATE,
	    FT_PEER_CALL_NS, take_state, st, NULL, why, whysize);
}

struct pong {
	uint64_t	nonce;
};

static int
take_pong(void *arg, const uint8_t *p, size_t len)
{
	struct pong *pg = arg;
	struct ft_msg_ping m;

	if (ft_msg_ping_decode(p, len, &m) != 0)
		return -1;
	if (m.nonce != pg->nonce) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int
ft_peer_ping(const char *addr, const uint8_t *key, uint64_t *rtt_us,
    char *why, size_t whysize)
{
	struct ft_msg_ping m;
	struct pong pg;
	struct ft_wbuf b;
	uint64_t rtt = 0;
	int rc;

	ft_random(&m.nonce, sizeof(m.nonce));
	m.epoch = 0;
	pg.nonce = m.nonce;
	ft_wbuf_init(&b);
	rc = ft__peer_request(addr, key, FT_ROLE_DAEMON, &b,
	    ft_msg_ping_encode(&b, 0, FT_MSG_PING, &m), FT_MSG_PONG,
	    FT_PEER_CALL_NS, take_pong, &pg, &rtt, why, whysize);
	if (rc == 0)
		*rtt_us = rtt / 1000 > 0 ? rtt / 1000 : 1;
	return rc;
}

static int
take_peers(void *arg, const uint8_t *p, size_t len)
{
	return ft_msg_boot_peers_decode(p, len, arg);
}

int
ft_peer_register(const char *supernode, const uint8_t *key,
    const struct ft_msg_boot_register *self, struct ft_msg_boot_peers *out,
    char *why, size_t whysize)
{
	struct ft_wbuf b;

	out->n = 0;
	out->p = NULL;
	ft_wbuf_init(&b);
	return ft__peer_request(supernode, key, FT_ROLE_DAEMON, &b,
	    ft_msg_boot_register_encode(&b, 0, self), FT_MSG_BOOT_PEERS,
	    FT_PEER_CALL_NS, take_peers, out, NULL, why, whysize);
}
