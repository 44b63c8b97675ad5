/* SPDX-License-Identifier: ISC */
/*
 * Listeners, non-blocking connects, connections with a send queue, and
 * the challenge-response handshake.  The MAC is libsodium's
 * HMAC-SHA-256; keys and nonces come from arc4random_buf (libbsd).
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <bsd/stdlib.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "net.h"

_Static_assert(crypto_auth_hmacsha256_BYTES == FT_WIRE_MAC, "mac size");
_Static_assert(crypto_auth_hmacsha256_KEYBYTES == FT_WIRE_KEYLEN, "key size");

void
ft_random(void *buf, size_t n)
{
	arc4random_buf(buf, n);
}

void
ft_key_generate(uint8_t key[FT_WIRE_KEYLEN])
{
	arc4random_buf(key, FT_WIRE_KEYLEN);
}

static int
set_flags(int fd)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		return -1;
	return 0;
}

/* Split "tcp:HOST:PORT" (HOST may be [v6]) into host and port. */
static int
split_tcp(const char *a, char *host, size_t hostsize, char *port,
    size_t portsize)
{
	const char *colon;
	size_t hlen;

	if (*a == '[') {
		const char *close = strchr(a, ']');

		if (close == NULL || close[1] != ':')
			return -1;
		hlen = (size_t)(close - a - 1);
		a++;
		colon = close + 1;
	} else {
		if ((colon = strrchr(a, ':')) == NULL)
			return -1;
		hlen = (size_t)(colon - a);
	}
	if (hlen == 0 || hlen >= hostsize || strlen(colon + 1) >= portsize ||
	    colon[1] == '\0' ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strtol(colon + 1, NULL, 10) > 65535)
		return -1;
	memcpy(host, a, hlen);
	host[hlen] = '\0';
	snprintf(port, portsize, "%s", colon + 1);
	return 0;
}

static int
unix_sockaddr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun->sun_path, path, strlen(path));
	return 0;
}

static int
tcp_resolve(const char *addr, int passive, struct addrinfo **res)
{
	struct addrinfo hints;
	char host[256], port[16];

	if (split_tcp(addr, host, sizeof(host), port, sizeof(port)) != 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	if (getaddrinfo(host, port, &hints, res) != 0) {
		errno = EHOSTUNREACH;
		return -1;
	}
	return 0;
}

static void
tune_tcp(int fd)
{
	int one = 1;

	/* Latency first: ft batches small frames itself. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int
ft_net_listen(const char *addr, char *bound, size_t boundsize)
{
	struct sockaddr_un sun;
	struct addrinfo *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	char host[INET6_ADDRSTRLEN];
	int fd = -1, one = 1, saved;

	if (strncmp(addr, "unix:", 5) == 0) {
		if (unix_sockaddr(addr + 5, &sun) != 0)
			return -1;
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
			return -1;
		if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
			goto fail;
		snprintf(bound, boundsize, "%s", addr);
	} else if (strncmp(addr, "tcp:", 4) == 0) {
		if (tcp_resolve(addr + 4, 1, &res) != 0)
			return -1;
		if ((fd = socket(res->ai_family, SOCK_STREAM, 0)) == -1)
			goto fail;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof(one));
		if (bind(fd, res->ai_addr, res->ai_addrlen) != 0)
			goto fail;
		if (getsockname(fd, (struct sockaddr *)&ss, &sslen) != 0)
			goto fail;
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
			snprintf(bound, boundsize, "tcp:%s:%u", host,
			    ntohs(sin->sin_port));
		} else {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &sin6->sin6_addr, host,
			    sizeof(host));
			snprintf(bound, boundsize, "tcp:[%s]:%u", host,
			    ntohs(sin6->sin6_port));
		}
		freeaddrinfo(res);
		res = NULL;
	} else {
		errno = EINVAL;
		return -1;
	}
	if (listen(fd, 1024) != 0 || set_flags(fd) != 0)
		goto fail;
	return fd;
fail:
	saved = errno;
	if (res != NULL)
		freeaddrinfo(res);
	if (fd != -1)
		close(fd);
	errno = saved;
	return -1;
}

int
ft_net_connect(const char *addr)
{
	struct sockaddr_un sun;
	struct addrinfo *res = NULL;
	int fd, saved;

	if (strncmp(addr, "unix:", 5) == 0) {
		if (unix_sockaddr(addr + 5, &sun) != 0)
			return -1;
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
			return -1;
		if (set_flags(fd) != 0)
			goto fail;
		/* EAGAIN on a Unix socket is a full accept queue: no
		 * connection is under way, unlike TCP's EINPROGRESS. */
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 &&
		    errno != EINPROGRESS)
			goto fail;
		return fd;
	}
	if (strncmp(addr, "tcp:", 4) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (tcp_resolve(addr + 4, 0, &res) != 0)
		return -1;
	if ((fd = socket(res->ai_family, SOCK_STREAM, 0)) == -1) {
		saved = errno;
		freeaddrinfo(res);
		errno = saved;
		return -1;
	}
	tune_tcp(fd);
	if (set_flags(fd) != 0 ||
	    (connect(fd, res->ai_addr, res->ai_addrlen) != 0 &&
	    errno != EINPROGRESS)) {
		saved = errno;
		freeaddrinfo(res);
		close(fd);
		errno = saved;
		return -1;
	}
	freeaddrinfo(res);
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
ft_net_connect_done(int fd)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		return -1;
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

int
ft_net_accept(int lfd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd;

	if ((fd = accept(lfd, (struct sockaddr *)&ss, &len)) == -1)
		return -1;
	if (set_flags(fd) != 0) {
		close(fd);
		return -1;
	}
	if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6)
		tune_tcp(fd);
	return fd;
}

static int
conn_init(struct ft_conn *c, int fd, const uint8_t *key, uint32_t self)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->key = key;
	c->self = self;
	c->peer = FT_WIRE_LAUNCHER;
	ft_wbuf_init(&c->hsout);
	c->isize = FT_CONN_IBUF;
	if ((c->ibuf = malloc(c->isize)) == NULL)
		return -1;
	ft_random(c->nonce_self, sizeof(c->nonce_self));
	return 0;
}

int
ft_conn_set_ibuf(struct ft_conn *c, size_t size)
{
	uint8_t *nb;

	if (size < FT_WIRE_HDRLEN + FT_WIRE_HS_MAX || c->iend != c->ibeg) {
		errno = EINVAL;
		return -1;
	}
	if ((nb = realloc(c->ibuf, size)) == NULL)
		return -1;
	c->ibuf = nb;
	c->isize = size;
	c->ibeg = c->iend = 0;
	return 0;
}

int
ft_conn_connecting(struct ft_conn *c, int fd, const uint8_t *key,
    uint32_t self, uint8_t role)
{
	struct ft_msg_hello h;

	if (conn_init(c, fd, key, self) != 0)
		return -1;
	c->hs = FT_HS_CONNECTING;
	c->role = role;
	h.minver = FT_WIRE_VERSION_MIN;
	h.maxver = FT_WIRE_VERSION;
	h.role = role;
	h.id = self;
	memcpy(h.nonce, c->nonce_self, sizeof(h.nonce));
	return ft_msg_hello_encode(&c->hsout, self, &h);
}

int
ft_conn_accepted(struct ft_conn *c, int fd, const uint8_t *key,
    uint32_t self)
{
	if (conn_init(c, fd, key, self) != 0)
		return -1;
	c->hs = FT_HS_WAIT_HELLO;
	c->accepted = ft_now_ns();
	return 0;
}

/* Should a be closed before b to make room? */
static int
hs_before(const struct ft_conn *a, const struct ft_conn *b)
{
	int sa = a->hs == FT_HS_WAIT_HELLO, sb = b->hs == FT_HS_WAIT_HELLO;

	return sa != sb ? sa : a->accepted < b->accepted;
}

uint64_t
ft_hs_guard(const struct ft_conn *(*at)(void *, size_t),
    void (*drop)(void *, size_t, const char *), void *arg, size_t n,
    size_t max, uint64_t now, uint64_t hello_ns)
{
	const struct ft_conn *c, *v;
	uint64_t next, deadline;
	size_t i, count, victim;

	for (;;) {
		count = 0;
		victim = n;
		v = NULL;
		next = 0;
		for (i = 0; i < n; i++) {
			if ((c = at(arg, i)) == NULL || c->accepted == 0 ||
			    c->hs == FT_HS_READY || c->hs == FT_HS_FAILED)
				continue;
			if (c->hs == FT_HS_WAIT_HELLO) {
				deadline = c->accepted + hello_ns;
				if (now >= deadline) {
					drop(arg, i, "sent no HELLO in time");
					continue;
				}
				if (next == 0 || deadline < next)
					next = deadline;
			}
			count++;
			if (v == NULL || hs_before(c, v)) {
				victim = i;
				v = c;
			}
		}
		if (count <= max)
			return next;
		drop(arg, victim, "too many connections in the handshake");
	}
}

static void
oseg_free(struct ft_oseg *s)
{
	ft_buf_put(s->owned, s->pooled);
	free(s);
}

void
ft_conn_release(struct ft_conn *c)
{
	struct ft_oseg *s, *next;

	for (s = c->oq_head; s != NULL; s = next) {
		next = s->next;
		oseg_free(s);
	}
	c->oq_head = c->oq_tail = NULL;
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	free(c->ibuf);
	c->ibuf = NULL;
	ft_wbuf_release(&c->hsout);
}

int
ft_conn_unsent(const struct ft_conn *c)
{
	return c->oq_head != NULL || c->hsout.len > 0;
}

int
ft_conn_want_write(const struct ft_conn *c)
{
	if (c->hs == FT_HS_CONNECTING || c->hsout.len > 0)
		return 1;
	return c->hs == FT_HS_READY && c->oq_head != NULL;
}

/* Write what we can of the handshake bytes; 0, or -1 on a hard error. */
static int
flush_hs(struct ft_conn *c)
{
	ssize_t n;

	while (c->hsout.len > 0) {
		n = send(c->fd, c->hsout.p, c->hsout.len,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		memmove(c->hsout.p, c->hsout.p + n, c->hsout.len - (size_t)n);
		c->hsout.len -= (size_t)n;
	}
	return 0;
}

int
ft_conn_flush(struct ft_conn *c)
{
	struct iovec iov[32];
	struct ft_oseg *s;
	ssize_t n;
	size_t left;
	int cnt;

	if (c->hs == FT_HS_FAILED) {
		errno = EPIPE;
		return -1;
	}
	if (c->hs == FT_HS_CONNECTING) {
		if (ft_net_connect_done(c->fd) != 0)
			return -1;
		c->hs = FT_HS_WAIT_CHALLENGE;
	}
	if (flush_hs(c) != 0)
		return -1;
	if (c->hs != FT_HS_READY || c->hsout.len > 0)
		return 0;
	while (c->oq_head != NULL) {
		cnt = 0;
		for (s = c->oq_head; s != NULL && cnt < 32; s = s->next) {
			iov[cnt].iov_base = (void *)(uintptr_t)s->p;
			iov[cnt].iov_len = s->len;
			cnt++;
		}
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)cnt };
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		left = (size_t)n;
		c->oq_bytes -= left;
		while ((s = c->oq_head) != NULL && left >= s->len) {
			left -= s->len;
			c->oq_head = s->next;
			if (c->oq_head == NULL)
				c->oq_tail = NULL;
			if (s->done != NULL)
				s->done(s->arg);
			oseg_free(s);
		}
		if (s != NULL && left > 0) {
			s->p += left;
			s->len -= left;
			return 0;	/* the socket is full */
		}
	}
	return 0;
}

static int
enqueue(struct ft_conn *c, const void *p, size_t len, void *owned,
    void (*done)(void *), void *arg)
{
	struct ft_oseg *s;

	if ((s = malloc(sizeof(*s))) == NULL)
		return -1;
	s->next = NULL;
	s->p = p;
	s->len = len;
	s->owned = owned;
	s->pooled = 0;
	s->done = done;
	s->arg = arg;
	if (c->oq_tail != NULL)
		c->oq_tail->next = s;
	else
		c->oq_head = s;
	c->oq_tail = s;
	c->oq_bytes += len;
	return 0;
}

/*
 * Write two pieces now if the queue is empty and the connection ready;
 * returns how many bytes went out, or -1 on a hard error.
 */
static ssize_t
write_now(struct ft_conn *c, const void *a, size_t alen, const void *b,
    size_t blen)
{
	struct iovec iov[2];
	struct msghdr mh;
	ssize_t n;

	if (c->hs != FT_HS_READY || c->oq_head != NULL || c->hsout.len > 0)
		return 0;
	iov[0].iov_base = (void *)(uintptr_t)a;
	iov[0].iov_len = alen;
	iov[1].iov_base = (void *)(uintptr_t)b;
	iov[1].iov_len = blen;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = blen > 0 ? 2 : 1;
	do
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	return n;
}

int
ft_conn_send2(struct ft_conn *c, const void *a, size_t alen, const void *b,
    size_t blen)
{
	ssize_t n = write_now(c, a, alen, b, blen);
	size_t done, rest;
	uint8_t *copy;
	int pooled;

	if (n < 0)
		return -1;
	c->qtotal += alen + blen;
	done = (size_t)n;
	if (done == alen + blen)
		return 0;
	rest = alen + blen - done;
	if ((copy = ft_buf_get(rest, &pooled)) == NULL)
		return -1;
	if (done < alen) {
		memcpy(copy, (const uint8_t *)a + done, alen - done);
		if (blen > 0)
			memcpy(copy + alen - done, b, blen);
	} else
		memcpy(copy, (const uint8_t *)b + (done - alen), rest);
	if (enqueue(c, copy, rest, copy, NULL, NULL) != 0) {
		ft_buf_put(copy, pooled);
		return -1;
	}
	c->oq_tail->pooled = pooled;
	return 0;
}

int
ft_conn_queue_copy(struct ft_conn *c, const void *p, size_t len)
{
	return ft_conn_send2(c, p, len, NULL, 0);
}

void
ft_conn_ref_min(const struct ft_conn *c, const void *arg, const void *base,
    size_t len, size_t *min)
{
	const uint8_t *b = base;
	const struct ft_oseg *s;

	for (s = c->oq_head; s != NULL; s = s->next)
		if (s->owned == NULL && s->arg == arg && s->p >= b &&
		    s->p < b + len && (size_t)(s->p - b) < *min)
			*min = (size_t)(s->p - b);
}

void
ft_conn_rebase(struct ft_conn *c, const void *arg, const void *base,
    size_t len, const void *nbase)
{
	const uint8_t *b = base;
	struct ft_oseg *s;

	for (s = c->oq_head; s != NULL; s = s->next)
		if (s->owned == NULL && s->arg == arg && s->p >= b &&
		    s->p < b + len)
			s->p = (const uint8_t *)nbase + (s->p - b);
}

int
ft_conn_queue_ref(struct ft_conn *c, const void *p, size_t len,
    void (*done)(void *), void *arg)
{
	ssize_t n = write_now(c, p, len, NULL, 0);

	if (n < 0)
		return -1;
	c->qtotal += len;
	if ((size_t)n == len) {
		if (done != NULL)
			done(arg);
		return 0;
	}
	return enqueue(c, (const uint8_t *)p + n, len - (size_t)n, NULL, done,
	    arg);
}

ssize_t
ft_conn_fill(struct ft_conn *c)
{
	ssize_t n;

	if (c->ibeg == c->iend)
		c->ibeg = c->iend = 0;
	if (c->iend == c->isize && c->ibeg > 0) {
		memmove(c->ibuf, c->ibuf + c->ibeg, c->iend - c->ibeg);
		c->iend -= c->ibeg;
		c->ibeg = 0;
	}
	if (c->iend == c->isize)
		return 0;
	do
		n = recv(c->fd, c->ibuf + c->iend, c->isize - c->iend,
		    MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		c->eof = 1;
		errno = ECONNRESET;
		return -1;
	}
	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	c->iend += (size_t)n;
	return n;
}

int
ft_conn_frame(struct ft_conn *c, struct ft_hdr *h, const uint8_t **body)
{
	size_t avail = c->iend - c->ibeg;
	uint8_t *nb;

	if (avail < FT_WIRE_HDRLEN)
		return 0;
	if (ft_hdr_decode(c->ibuf + c->ibeg, h) != 0)
		return -1;
	/* Nothing large is owed to a peer that has not proved the key. */
	if (c->hs != FT_HS_READY && h->len > FT_WIRE_HS_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	if (avail < h->len) {
		/* Make room for the whole frame: compact, then grow. */
		if (c->ibeg > 0) {
			memmove(c->ibuf, c->ibuf + c->ibeg, avail);
			c->ibeg = 0;
			c->iend = avail;
		}
		if (h->len > c->isize) {
			if ((nb = realloc(c->ibuf, h->len)) == NULL)
				return -1;
			c->ibuf = nb;
			c->isize = h->len;
		}
		return 0;
	}
	*body = c->ibuf + c->ibeg + FT_WIRE_HDRLEN;
	c->ibeg += h->len;
	return 1;
}

/* HMAC over a label, the version, both ids and both nonces. */
static void
hs_mac(const struct ft_conn *c, const char *label, uint8_t version,
    uint8_t role, uint32_t connector, uint32_t acceptor,
    const uint8_t *nonce_c, const uint8_t *nonce_a, uint8_t out[FT_WIRE_MAC])
{
	crypto_auth_hmacsha256_state st;
	uint8_t ids[10];

	ids[0] = version;
	ids[1] = role;
	ft_be32(ids + 2, connector);
	ft_be32(ids + 6, acceptor);
	crypto_auth_hmacsha256_init(&st, c->key, FT_WIRE_KEYLEN);
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)label,
	    strlen(label) + 1);
	crypto_auth_hmacsha256_update(&st, ids, sizeof(ids));
	crypto_auth_hmacsha256_update(&st, nonce_c, FT_WIRE_NONCE);
	crypto_auth_hmacsha256_update(&st, nonce_a, FT_WIRE_NONCE);
	crypto_auth_hmacsha256_final(&st, out);
}

static int
hs_fail(struct ft_conn *c, int err)
{
	c->hs = FT_HS_FAILED;
	errno = err;
	return -1;
}

int
ft_conn_handshake(struct ft_conn *c, const struct ft_hdr *h,
    const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_msg_hello hello;
	struct ft_msg_challenge ch;
	struct ft_msg_auth au;
	uint8_t mac[FT_WIRE_MAC];
	uint8_t lo, hi;

	switch (c->hs) {
	case FT_HS_WAIT_HELLO:
		if (h->type != FT_MSG_HELLO ||
		    ft_msg_hello_decode(body, blen, &hello) != 0)
			return hs_fail(c, EPROTO);
		lo = hello.minver > FT_WIRE_VERSION_MIN ? hello.minver :
		    FT_WIRE_VERSION_MIN;
		hi = hello.maxver < FT_WIRE_VERSION ? hello.maxver :
		    FT_WIRE_VERSION;
		if (lo > hi)
			return hs_fail(c, EPROTO);
		c->version = hi;
		c->peer = hello.id;
		c->peer_role = hello.role;
		memcpy(c->nonce_peer, hello.nonce, FT_WIRE_NONCE);
		ch.version = c->version;
		ch.id = c->self;
		memcpy(ch.nonce, c->nonce_self, FT_WIRE_NONCE);
		hs_mac(c, "ft challenge", c->version, c->peer_role, c->peer,
		    c->self, c->nonce_peer, c->nonce_self, ch.mac);
		if (ft_msg_challenge_encode(&c->hsout, c->self, &ch) != 0)
			return hs_fail(c, ENOMEM);
		c->hs = FT_HS_WAIT_AUTH;
		return 0;
	case FT_HS_WAIT_CHALLENGE:
		if (h->type != FT_MSG_CHALLENGE ||
		    ft_msg_challenge_decode(body, blen, &ch) != 0 ||
		    ch.version < FT_WIRE_VERSION_MIN ||
		    ch.version > FT_WIRE_VERSION)
			return hs_fail(c, EPROTO);
		hs_mac(c, "ft challenge", ch.version, c->role, c->self, ch.id,
		    c->nonce_self, ch.nonce, mac);
		if (sodium_memcmp(mac, ch.mac, FT_WIRE_MAC) != 0)
			return hs_fail(c, EACCES);
		c->version = ch.version;
		c->peer = ch.id;
		memcpy(c->nonce_peer, ch.nonce, FT_WIRE_NONCE);
		hs_mac(c, "ft auth", c->version, c->role, c->self, c->peer,
		    c->nonce_self, c->nonce_peer, au.mac);
		if (ft_msg_auth_encode(&c->hsout, c->self, &au) != 0)
			return hs_fail(c, ENOMEM);
		c->hs = FT_HS_READY;
		return 1;
	case FT_HS_WAIT_AUTH:
		if (h->type != FT_MSG_AUTH ||
		    ft_msg_auth_decode(body, blen, &au) != 0)
			return hs_fail(c, EPROTO);
		hs_mac(c, "ft auth", c->version, c->peer_role, c->peer, c->self,
		    c->nonce_peer, c->nonce_self, mac);
		if (sodium_memcmp(mac, au.mac, FT_WIRE_MAC) != 0)
			return hs_fail(c, EACCES);
		c->hs = FT_HS_READY;
		return 1;
	default:
		return hs_fail(c, EPROTO);
	}
}

int
ft_conn_wait(struct ft_conn *c, uint64_t deadline)
{
	struct pollfd p = { c->fd, POLLIN, 0 };
	uint64_t now;
	int rc;

	if (ft_conn_want_write(c))
		p.events |= POLLOUT;
	for (;;) {
		now = ft_now_ns();
		if (now >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		rc = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

int
ft_conn_await(struct ft_conn *c, unsigned int want, unsigned int alt,
    struct ft_hdr *h, const uint8_t **body, uint64_t deadline)
{
	int rc;

	for (;;) {
		if (ft_conn_flush(c) != 0)
			return -1;
		while ((rc = ft_conn_frame(c, h, body)) == 1) {
			if (c->hs != FT_HS_READY) {
				if (ft_conn_handshake(c, h, *body) < 0)
					return -1;
				if (ft_conn_flush(c) != 0)
					return -1;
				if (c->hs == FT_HS_READY && want == 0)
					return 0;
				continue;
			}
			if (want != 0 && (h->type == want ||
			    (alt != 0 && h->type == alt)))
				return 1;
			errno = EPROTO;
			return -1;
		}
		if (rc < 0)
			return -1;
		if (c->hs == FT_HS_READY && want == 0)
			return 0;
		if (ft_conn_wait(c, deadline) != 0)
			return -1;
		if (ft_conn_fill(c) < 0)
			return -1;
	}
}
