/* SPDX-License-Identifier: ISC */
/*
 * fttest relay: a TCP relay that delays, for the multi-host tests.  This
 * machine's kernel has no netem qdisc, so a test that wants one link
 * slower than the others puts this relay on it: every accepted
 * connection is forwarded to one target, and every byte (and the end of
 * the stream) that comes in on either side goes out on the other no
 * sooner than the delay after it came in.  Order is kept: each direction
 * is one queue of chunks stamped with the time they may leave.
 *
 * One poll loop, non-blocking sockets.  A direction holds at most
 * RELAY_CAP bytes (each chunk also counts RELAY_CHUNK_COST bytes, so that
 * a sender of one-byte writes cannot make it hold millions of chunks);
 * when full, the relay stops reading that side, and TCP's flow control
 * holds the sender back.  At most RELAY_MAXPAIRS connections at once:
 * beyond, new ones wait in the listen backlog.  An error or a reset on
 * either side closes both.
 */
#include <sys/socket.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/net/net.h"
#include "fttest.h"

#define RELAY_READ		(64u << 10)	/* one read at most */
#define RELAY_CAP		(1u << 20)	/* held per direction */
#define RELAY_CHUNK_COST	64u
#define RELAY_MAXPAIRS		128

struct chunk {
	struct chunk	*next;
	uint64_t	 due;		/* ft_now_ns() when it may go out */
	size_t		 len, off;
	uint8_t		 data[];
};

/* One direction of a pair: from fd[i] to fd[1 - i], for d[i]. */
struct dir {
	struct chunk	*head, *tail;
	size_t		 held;		/* bytes charged against RELAY_CAP */
	uint64_t	 eof_due;	/* when the end of stream may go out */
	int		 eof;		/* the source sent its end */
	int		 shut;		/* passed on: shutdown(SHUT_WR) done */
};

struct pair {
	int		 fd[2];		/* 0: accepted, 1: to the target */
	int		 connecting;	/* fd[1]'s connect is under way */
	int		 pi[2];		/* their index in the poll set */
	struct dir	 d[2];
};

struct relay {
	const char	*to;
	uint64_t	 delay;
	struct pair	*pairs[RELAY_MAXPAIRS];
	size_t		 npairs;
};

static void
dir_release(struct dir *d)
{
	struct chunk *c;

	while ((c = d->head) != NULL) {
		d->head = c->next;
		free(c);
	}
	d->tail = NULL;
	d->held = 0;
}

/*
 * Close both sides of the pair at index i and forget it.  With reset,
 * each side is closed with a reset (SO_LINGER 0), as the other side's
 * own reset or error would reach it over a real link.
 */
static void
pair_close(struct relay *r, size_t i, int reset)
{
	struct linger lg = { 1, 0 };
	struct pair *p = r->pairs[i];
	int s;

	for (s = 0; s < 2; s++) {
		if (reset)
			(void)setsockopt(p->fd[s], SOL_SOCKET, SO_LINGER, &lg,
			    sizeof(lg));
		close(p->fd[s]);
		dir_release(&p->d[s]);
	}
	free(p);
	r->pairs[i] = r->pairs[--r->npairs];
}

/* Take every connection waiting on lfd, while there is room. */
static void
accept_all(struct relay *r, int lfd)
{
	struct pair *p;
	int fd, tfd;

	while (r->npairs < RELAY_MAXPAIRS) {
		if ((fd = ft_net_accept(lfd)) == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				ft_warn("accept");
			return;
		}
		if ((tfd = ft_net_connect(r->to)) == -1) {
			ft_warn("unable to connect to '%s'", r->to);
			close(fd);
			continue;
		}
		if ((p = calloc(1, sizeof(*p))) == NULL) {
			ft_warn("out of memory");
			close(fd);
			close(tfd);
			continue;
		}
		p->fd[0] = fd;
		p->fd[1] = tfd;
		p->connecting = 1;
		r->pairs[r->npairs++] = p;
	}
}

/*
 * Read what fd[s] has into d[s], stamped now + delay.  Returns 0, or -1
 * when the pair is to be closed with a reset.
 */
static int
pull(struct relay *r, struct pair *p, int s, uint64_t now)
{
	static uint8_t buf[RELAY_READ];
	struct dir *d = &p->d[s];
	struct chunk *c;
	size_t room;
	ssize_t n;

	while (!d->eof && d->held + RELAY_CHUNK_COST < RELAY_CAP) {
		room = RELAY_CAP - d->held - RELAY_CHUNK_COST;
		if (room > sizeof(buf))
			room = sizeof(buf);
		n = read(p->fd[s], buf, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -1;
		if (n == 0) {
			d->eof = 1;
			d->eof_due = now + r->delay;
			return 0;
		}
		if ((c = malloc(sizeof(*c) + (size_t)n)) == NULL) {
			ft_warn("out of memory");
			return -1;
		}
		c->next = NULL;
		c->due = now + r->delay;
		c->len = (size_t)n;
		c->off = 0;
		memcpy(c->data, buf, (size_t)n);
		if (d->tail != NULL)
			d->tail->next = c;
		else
			d->head = c;
		d->tail = c;
		d->held += (size_t)n + RELAY_CHUNK_COST;
	}
	return 0;
}

/*
 * Send what of d[s] is due to fd[1 - s], then its end of stream when
 * that is due.  Returns 0, or -1 when the pair is to be closed with a
 * reset.
 */
static int
push(struct pair *p, int s, uint64_t now)
{
	struct dir *d = &p->d[s];
	int fd = p->fd[1 - s];
	struct chunk *c;
	ssize_t n;

	while ((c = d->head) != NULL && c->due <= now) {
		n = send(fd, c->data + c->off, c->len - c->off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -1;
		c->off += (size_t)n;
		if (c->off < c->len)
			continue;
		d->head = c->next;
		if (d->head == NULL)
			d->tail = NULL;
		d->held -= c->len + RELAY_CHUNK_COST;
		free(c);
	}
	if (d->head == NULL && d->eof && !d->shut && d->eof_due <= now) {
		/* The target may be gone already: its reset then ends the
		 * pair on the next read. */
		(void)shutdown(fd, SHUT_WR);
		d->shut = 1;
	}
	return 0;
}

/* Lower *wait (ns) to the time until d's next chunk or end is due. */
static void
next_due(const struct dir *d, uint64_t now, uint64_t *wait)
{
	uint64_t due;

	if (d->head != NULL)
		due = d->head->due;
	else if (d->eof && !d->shut)
		due = d->eof_due;
	else
		return;
	if (due > now && due - now < *wait)
		*wait = due - now;
}

/* Does d have something to send now? */
static int
ready(const struct dir *d, uint64_t now)
{
	if (d->head != NULL)
		return d->head->due <= now;
	return d->eof && !d->shut && d->eof_due <= now;
}

/*
 * Handle the poll results of the pair at index i.  Returns 0, or -1 if
 * the pair was closed (and the slot now holds another).
 */
static int
service(struct relay *r, size_t i, const struct pollfd *pfd, uint64_t now)
{
	struct pair *p = r->pairs[i];
	int s;

	if (p->connecting && pfd[p->pi[1]].revents != 0) {
		if (ft_net_connect_done(p->fd[1]) != 0) {
			ft_warn("unable to connect to '%s'", r->to);
			pair_close(r, i, 1);
			return -1;
		}
		p->connecting = 0;
	}
	/* The client may talk while the connect is under way. */
	for (s = 0; s < 2; s++) {
		if (p->pi[s] < 0 || (s == 1 && p->connecting) ||
		    !(pfd[p->pi[s]].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (pull(r, p, s, now) != 0) {
			pair_close(r, i, 1);
			return -1;
		}
	}
	for (s = 0; s < 2 && !p->connecting; s++)
		if (push(p, s, now) != 0) {
			pair_close(r, i, 1);
			return -1;
		}
	if (p->d[0].shut && p->d[1].shut) {
		pair_close(r, i, 0);
		return -1;
	}
	return 0;
}

/*
 * What the pair wants of fd[s]: reading while d[s] has room, writing
 * while d[1 - s] has something due (or, for the target, the connect).
 */
static short
wants(const struct pair *p, int s, uint64_t now)
{
	short ev = 0;

	if (s == 1 && p->connecting)
		return POLLOUT;
	if (!p->d[s].eof && p->d[s].held + RELAY_CHUNK_COST < RELAY_CAP)
		ev |= POLLIN;
	if (!p->connecting && ready(&p->d[1 - s], now))
		ev |= POLLOUT;
	return ev;
}

int
relay_run(const char *listen, const char *to, uint64_t delay)
{
	struct pollfd pfd[1 + 2 * RELAY_MAXPAIRS];
	struct relay r;
	struct pair *p;
	char bound[256];
	uint64_t now, wait;
	size_t i, n;
	int lfd, s, rc, tmo;
	short ev;

	memset(&r, 0, sizeof(r));
	r.to = to;
	r.delay = delay;
	if ((lfd = ft_net_listen(listen, bound, sizeof(bound))) == -1) {
		if (errno == EINVAL)
			ft_diex(FT_EXIT_USAGE, "'%s' is not an address "
			    "(unix:/path, tcp:host:port or host:port)", listen);
		ft_die(FT_EXIT_TEMP, "unable to listen on '%s'", listen);
	}
	/* The bound address, one line: the caller's sign that we listen. */
	printf("%s\n", bound);
	if (fflush(stdout) != 0)
		ft_die(FT_EXIT_TEMP, "unable to write to stdout");
	for (;;) {
		now = ft_now_ns();
		wait = UINT64_MAX;
		pfd[0] = (struct pollfd){ lfd,
		    r.npairs < RELAY_MAXPAIRS ? POLLIN : 0, 0 };
		n = 1;
		for (i = 0; i < r.npairs; i++) {
			p = r.pairs[i];
			for (s = 0; s < 2; s++) {
				next_due(&p->d[s], now, &wait);
				p->pi[s] = -1;
				if ((ev = wants(p, s, now)) == 0)
					continue;
				p->pi[s] = (int)n;
				pfd[n++] = (struct pollfd){ p->fd[s], ev, 0 };
			}
		}
		/* Round up: waking early would only spin until due. */
		tmo = wait == UINT64_MAX ? -1 :
		    wait / 1000000 >= INT32_MAX ? INT32_MAX :
		    (int)((wait + 999999) / 1000000);
		rc = poll(pfd, n, tmo);
		if (rc < 0 && errno != EINTR)
			ft_die(FT_EXIT_TEMP, "poll");
		if (rc < 0)
			continue;
		now = ft_now_ns();
		for (i = 0; i < r.npairs; )
			if (service(&r, i, pfd, now) == 0)
				i++;
		if (pfd[0].revents & POLLIN)
			accept_all(&r, lfd);
	}
}
