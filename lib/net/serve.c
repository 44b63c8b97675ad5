/* SPDX-License-Identifier: ISC */
/*
 * The event loop of ft's servers (ftboot, ftlog): ppoll over the
 * listener and the connections.  See serve.h.
 */
#include <sys/socket.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "serve.h"

#define SRV_IBUF	(16u << 10)

static void
conn_free(struct ft__srv_conn *sc)
{
	ft_conn_release(&sc->c);
	free(sc);
}

static void
drop_at(struct ft__srv *s, size_t i)
{
	if (s->gone != NULL)
		s->gone(s, s->conn[i]);
	conn_free(s->conn[i]);
	s->conn[i] = s->conn[--s->n];
}

void
ft__srv_drop(struct ft__srv *s, struct ft__srv_conn *sc)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->conn[i] == sc) {
			drop_at(s, i);
			return;
		}
}

void
ft__srv_release(struct ft__srv *s)
{
	while (s->n > 0)
		drop_at(s, s->n - 1);
	free(s->conn);
	s->conn = NULL;
	s->cap = 0;
}

int
ft__srv_send(struct ft__srv_conn *sc, struct ft_wbuf *b)
{
	int rc = 0;

	if (b->len > 0 && ft_conn_queue_copy(&sc->c, b->p, b->len) != 0) {
		sc->closing = 1;
		rc = -1;
	}
	ft_wbuf_reset(b);
	return rc;
}

void
ft__srv_refuse(struct ft__srv_conn *sc, const char *reason)
{
	struct ft_msg_abort ab;
	struct ft_wbuf b;

	ab.code = 1;
	snprintf(ab.reason, sizeof(ab.reason), "%s", reason);
	ft_wbuf_init(&b);
	if (ft_msg_abort_encode(&b, FT_WIRE_LAUNCHER, &ab) == 0)
		(void)ft__srv_send(sc, &b);
	ft_wbuf_release(&b);
	sc->closing = 1;
}

static void
peer_ip(int fd, char *ip, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	snprintf(ip, size, "local");
	if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
		return;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip,
		    (socklen_t)size);
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
		    ip, (socklen_t)size);
}

static size_t
count_ready(const struct ft__srv *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->conn[i]->c.hs == FT_HS_READY;
	return n;
}

static void
accept_all(struct ft__srv *s)
{
	struct ft__srv_conn *sc, **nv;
	int fd;

	while (count_ready(s) < s->max_conns) {
		if ((fd = ft_net_accept(s->lfd)) < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				ft_warn("%s: accept", s->who);
			return;
		}
		if ((nv = ft_grow(s->conn, &s->cap, s->n,
		    sizeof(*s->conn))) == NULL ||
		    (sc = calloc(1, sizeof(*sc))) == NULL) {
			if (nv != NULL)
				s->conn = nv;
			close(fd);
			return;
		}
		s->conn = nv;
		if (ft_conn_accepted(&sc->c, fd, s->key, 0) != 0) {
			close(fd);
			free(sc);
			return;
		}
		(void)ft_conn_set_ibuf(&sc->c, SRV_IBUF);
		peer_ip(fd, sc->ip, sizeof(sc->ip));
		s->conn[s->n++] = sc;
	}
}

static const struct ft_conn *
guard_at(void *arg, size_t i)
{
	struct ft__srv *s = arg;

	return s->conn[i] != NULL ? &s->conn[i]->c : NULL;
}

static void
guard_drop(void *arg, size_t i, const char *why)
{
	struct ft__srv *s = arg;

	ft_warnx_limited(&s->rl, "%s: connection from %s closed: %s", s->who,
	    s->conn[i]->ip, why);
	if (s->gone != NULL)
		s->gone(s, s->conn[i]);
	conn_free(s->conn[i]);
	s->conn[i] = NULL;
}

/* Read and handle what c has; -1 to close it. */
static int
service(struct ft__srv *s, struct ft__srv_conn *sc)
{
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc, hs;

	for (;;) {
		got = ft_conn_fill(&sc->c);
		while (!sc->closing &&
		    (rc = ft_conn_frame(&sc->c, &h, &body)) == 1) {
			if (sc->c.hs != FT_HS_READY) {
				hs = ft_conn_handshake(&sc->c, &h, body);
				if (hs < 0) {
					ft_warnx_limited(&s->rl, "%s: connection "
					    "from %s refused: %s", s->who,
					    sc->ip, errno == EACCES ?
					    "it does not hold our cluster key" :
					    "a bad handshake");
					return -1;
				}
				if (hs == 1 && !s->role_ok(sc->c.peer_role)) {
					ft_warnx_limited(&s->rl, "%s: connection "
					    "from %s refused: role %u is not "
					    "served here", s->who, sc->ip,
					    sc->c.peer_role);
					return -1;
				}
				continue;
			}
			if (s->frame(s, sc, &h, body) != 0)
				return -1;
			sc->frames++;
		}
		if (!sc->closing && rc < 0) {
			ft_warnx_limited(&s->rl, "%s: connection from %s: a "
			    "malformed frame", s->who, sc->ip);
			return -1;
		}
		if (got < 0) {
			if (sc->c.hs == FT_HS_WAIT_AUTH)
				ft_warnx_limited(&s->rl, "%s: connection from "
				    "%s closed during the handshake (a "
				    "different cluster key?)", s->who, sc->ip);
			return -1;
		}
		if (got == 0 || sc->closing)
			break;
	}
	if (ft_conn_flush(&sc->c) != 0)
		return -1;
	if (sc->closing && !ft_conn_unsent(&sc->c))
		return -1;
	return 0;
}

int
ft__srv_run(struct ft__srv *s)
{
	struct pollfd *pf = NULL, *npf;
	struct timespec ts, *tsp;
	sigset_t block, old;
	uint64_t now, next, hs_next;
	size_t i, npf_cap = 0;
	int rc, ret = 0;

	ft_ratelim_init(&s->rl, "connection warnings", FT_HS_WARN_BURST,
	    FT_HS_WARN_NS);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!*s->stop) {
		next = s->tick != NULL ? s->tick(s) : 0;
		if (*s->stop)
			break;
		now = ft_now_ns();
		hs_next = ft_hs_guard(guard_at, guard_drop, s, s->n,
		    s->max_hs > 0 ? s->max_hs : FT_HS_STRANGERS, now,
		    FT_HS_HELLO_NS);
		for (i = 0; i < s->n;)
			if (s->conn[i] == NULL)
				s->conn[i] = s->conn[--s->n];
			else
				i++;
		if (hs_next != 0 && (next == 0 || hs_next < next))
			next = hs_next;
		if (s->n + 1 > npf_cap) {
			if ((npf = reallocarray(pf, s->n + 16,
			    sizeof(*pf))) == NULL) {
				ret = -1;
				break;
			}
			pf = npf;
			npf_cap = s->n + 16;
		}
		pf[0].fd = count_ready(s) < s->max_conns ? s->lfd : -1;
		pf[0].events = POLLIN;
		pf[0].revents = 0;
		for (i = 0; i < s->n; i++) {
			pf[i + 1].fd = s->conn[i]->c.fd;
			pf[i + 1].events = POLLIN |
			    (ft_conn_want_write(&s->conn[i]->c) ? POLLOUT : 0);
			pf[i + 1].revents = 0;
		}
		tsp = NULL;
		if (next != 0) {
			uint64_t d = next > now ? next - now : 0;

			ts.tv_sec = (time_t)(d / 1000000000u);
			ts.tv_nsec = (long)(d % 1000000000u);
			tsp = &ts;
		}
		rc = ppoll(pf, s->n + 1, tsp, &old);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			ft_warn("%s: ppoll", s->who);
			ret = -1;
			break;
		}
		/* Back to front: dropping moves the last one into place. */
		for (i = s->n; i > 0; i--) {
			struct ft__srv_conn *sc = s->conn[i - 1];

			if (pf[i].revents == 0 || i - 1 >= s->n ||
			    s->conn[i - 1] != sc)
				continue;
			if (service(s, sc) != 0)
				ft__srv_drop(s, sc);
		}
		if (pf[0].revents != 0)
			accept_all(s);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(pf);
	ft_ratelim_flush(&s->rl, 1);
	return ret;
}
