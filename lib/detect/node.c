/* SPDX-License-Identifier: ISC */
/*
 * One detector module on the network: the heartbeat table, the gossip
 * schedule, the direct ping of suspects and the membership state
 * machine, over authenticated connections (lib/net), with events
 * written one per line.  A single-threaded epoll loop (a poll over every
 * connection of a full mesh cost more than the protocol itself);
 * everything it does is driven by the clock and by what arrives.
 */
#include <sys/epoll.h>
#include <sys/stat.h>

#include <bsd/stdlib.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../net/net.h"
#include "detect.h"
#include "node.h"

#define NEVENTS		64
#define DETECT_IBUF	8192	/* grows for a larger table */
#define WARM_PER_ROUND	8	/* connections warm_links opens a round */
#define WARN_EVERY_NS	(60 * 1000000000ull)	/* peer_warn's rate */

/* Warnings that peers cause, rate-limited by kind (peer_warn). */
enum warn_kind { W_AUTH, W_STRANGER, W_GOSSIP, W_MEMBER, W_AHEAD, W_NKINDS };

/* What an epoll event is about. */
enum tag_kind { TAG_LISTEN, TAG_INPUT, TAG_OUT, TAG_PING, TAG_IN };

struct tag {
	enum tag_kind	 kind;
	uint32_t	 id;		/* TAG_OUT, TAG_PING: the peer */
	uint32_t	 mask;		/* events registered */
	struct link	*link;
	struct inconn	*in;
};

/* One outgoing connection: gossip and membership, or a ping. */
struct link {
	struct ft_conn	 c;
	int		 open;
	struct tag	 tag;
};

/* An accepted connection. */
struct inconn {
	struct ft_conn	 c;
	struct tag	 tag;
};

struct peer {
	struct link	 out;
	uint64_t	 out_retry_at;	/* no reconnect before this */
	struct link	 ping;
	uint64_t	 ping_nonce;
	uint64_t	 ping_deadline;	/* 0: not pinging */
	uint64_t	 ping_retry_at;
};

struct node {
	const struct ft_gnode_cfg *cfg;
	struct ft_hbtable hb;
	struct ft_member mb;
	struct peer	*peers;
	struct inconn	**in;		/* accepted connections */
	size_t		 nin, inmax;
	int		 lfd;
	uint64_t	 now, round, rng;
	uint64_t	*scratch_hb;
	struct ft_msg_member scratch;
	uint32_t	*suspects;
	uint32_t	*positions;	/* 0 .. n-1, to compute trees by position */
	uint32_t	*nbrs;		/* 2 * n scratch positions */
	struct ft_wbuf	 wb;
	struct tag	 tag_listen, tag_input;
	char		 inbuf[256];
	size_t		 inlen;
	int		 in_fd;
	int		 excluded;
	int		 epfd;
	struct ft_ratelim warned[W_NKINDS];
};

/* The wall clock in microseconds: what heartbeat counters count. */
static uint64_t
wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * A warning caused by a peer: one line of each kind a minute at most,
 * which says how many were held back since the last, so that a peer
 * that retries every period does not flood the log.
 */
static void
peer_warn(struct node *nd, enum warn_kind kind, const char *fmt, ...)
    FT_PRINTF(3, 4);

static void
peer_warn(struct node *nd, enum warn_kind kind, const char *fmt, ...)
{
	uint64_t held;
	char msg[512];
	va_list ap;

	if (!ft_ratelim_allow(&nd->warned[kind], nd->now, &held))
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (held > 0)
		ft_warnx("%s (%llu more since the last such warning)", msg,
		    (unsigned long long)held);
	else
		ft_warnx("%s", msg);
}

/* Events: key=value words, or a JSON object, one line each. */
static void
ev_begin(struct node *nd, const char *event)
{
	struct timespec ts;
	FILE *f = nd->cfg->events;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (nd->cfg->json)
		fprintf(f, "{\"t\":%lld.%06ld,\"self\":%u,\"event\":\"%s\"",
		    (long long)ts.tv_sec, ts.tv_nsec / 1000, nd->cfg->self,
		    event);
	else
		fprintf(f, "t=%lld.%06ld self=%u event=%s",
		    (long long)ts.tv_sec, ts.tv_nsec / 1000, nd->cfg->self,
		    event);
}

static void
ev_u(struct node *nd, const char *key, uint64_t v)
{
	fprintf(nd->cfg->events, nd->cfg->json ? ",\"%s\":%llu" : " %s=%llu",
	    key, (unsigned long long)v);
}

static void
ev_ms(struct node *nd, const char *key, uint64_t ns)
{
	fprintf(nd->cfg->events, nd->cfg->json ? ",\"%s\":%.3f" : " %s=%.3f",
	    key, (double)ns / 1e6);
}

static void
ev_s(struct node *nd, const char *key, const char *v)
{
	fprintf(nd->cfg->events, nd->cfg->json ? ",\"%s\":\"%s\"" :
	    " %s=%s", key, v);
}

static void
ev_list(struct node *nd, const char *key, const uint32_t *ids, uint32_t n)
{
	FILE *f = nd->cfg->events;
	uint32_t i;

	fprintf(f, nd->cfg->json ? ",\"%s\":[" : " %s=", key);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u", i > 0 ? "," : "", ids[i]);
	if (nd->cfg->json)
		fputc(']', f);
}

static void
ev_end(struct node *nd)
{
	/* Flushed once a loop pass: the protocol's messages go first. */
	fputs(nd->cfg->json ? "}\n" : "\n", nd->cfg->events);
}

/* Register what c waits for: input always, output when queued. */
static void
ep_sync(struct node *nd, const struct ft_conn *c, struct tag *t)
{
	struct epoll_event ev;
	uint32_t want = EPOLLIN | (ft_conn_want_write(c) ? EPOLLOUT : 0);

	if (want == t->mask)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = want;
	ev.data.ptr = t;
	if (epoll_ctl(nd->epfd, t->mask == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD,
	    c->fd, &ev) == 0)
		t->mask = want;
}

static void
link_close(struct link *l)
{
	if (l->open)
		ft_conn_release(&l->c);
	l->open = 0;
}

/* Open a link to id; -1 when the connect fails at once. */
static int
link_open(struct node *nd, struct link *l, uint32_t id)
{
	int fd;

	if ((fd = ft_net_connect(nd->cfg->addrs[id])) < 0)
		return -1;
	if (ft_conn_connecting(&l->c, fd, nd->cfg->key, nd->cfg->self,
	    FT_ROLE_DETECTOR) != 0) {
		close(fd);
		return -1;
	}
	(void)ft_conn_set_ibuf(&l->c, DETECT_IBUF);
	l->c.peer = id;
	l->open = 1;
	l->tag.mask = 0;
	ep_sync(nd, &l->c, &l->tag);
	return 0;
}

/*
 * Open id's gossip link unless it is open, or a failed one waits to be
 * tried again; a connect that fails waits a period.  1 if one was tried.
 */
static int
out_open(struct node *nd, uint32_t id)
{
	struct peer *p = &nd->peers[id];

	if (p->out.open || (int64_t)(nd->now - p->out_retry_at) < 0)
		return 0;
	if (link_open(nd, &p->out, id) != 0)
		p->out_retry_at = nd->now + nd->cfg->period_ns;
	return 1;
}

/* Queue the frame in nd->wb on id's gossip link, opening it if need be. */
static void
send_frame(struct node *nd, uint32_t id)
{
	struct peer *p = &nd->peers[id];

	(void)out_open(nd, id);
	if (!p->out.open)
		return;		/* dropped; the protocols resend */
	if (ft_conn_queue_copy(&p->out.c, nd->wb.p, nd->wb.len) != 0) {
		link_close(&p->out);
		p->out_retry_at = nd->now + nd->cfg->period_ns;
	}
}

static void
mb_send(void *arg, uint32_t to, const struct ft_msg_member *msg)
{
	struct node *nd = arg;

	ft_wbuf_reset(&nd->wb);
	if (ft_msg_member_encode(&nd->wb, nd->cfg->self, msg) == 0)
		send_frame(nd, to);
}

/* Stop watching id: it is out of the view, or confirmed dead. */
static void
forget(struct node *nd, uint32_t id)
{
	if (id == nd->cfg->self)
		return;
	(void)ft_hbtable_fail(&nd->hb, id);
	link_close(&nd->peers[id].ping);
	link_close(&nd->peers[id].out);
	nd->peers[id].ping_deadline = 0;
}

/* view: epoch root n members; stable: epoch ms n members. */
static void
ev_view(struct node *nd, const char *name, const struct ft_mb_event *ev)
{
	ev_begin(nd, name);
	ev_u(nd, "epoch", ev->epoch);
	if (ev->type == FT_MEV_STABLE)
		ev_ms(nd, "ms", ev->ns);
	else
		ev_u(nd, "root", ev->root);
	ev_u(nd, "n", ev->nlive);
	ev_list(nd, "members", ev->live, ev->nlive);
	ev_end(nd);
}

static void
mb_event(void *arg, const struct ft_mb_event *ev)
{
	struct node *nd = arg;
	uint32_t i, j;

	switch (ev->type) {
	case FT_MEV_FAILED:
		forget(nd, ev->id);
		ev_begin(nd, "failed");
		ev_u(nd, "id", ev->id);
		if (ev->by == nd->cfg->self)
			ev_s(nd, "by", "self");
		else
			ev_u(nd, "by", ev->by);
		ev_u(nd, "epoch", ev->epoch);
		ev_end(nd);
		break;
	case FT_MEV_VIEW:
		/* Out of the view: not watched.  Back in it (a join):
		 * watched again, from now. */
		for (i = 0, j = 0; i < nd->cfg->n; i++) {
			if (j < ev->nlive && ev->live[j] == i) {
				j++;
				if (nd->hb.state[i] == FT_HB_FAILED)
					ft_hbtable_alive(&nd->hb, i, nd->now +
					    nd->cfg->startup_ns);
			} else if (nd->hb.state[i] != FT_HB_FAILED)
				forget(nd, i);
		}
		ev_view(nd, "view", ev);
		break;
	case FT_MEV_STABLE:
		ev_view(nd, "stable", ev);
		break;
	case FT_MEV_EXCLUDED:
		nd->excluded = 1;
		ev_begin(nd, "excluded");
		ev_u(nd, "epoch", ev->epoch);
		ev_end(nd);
		break;
	case FT_MEV_JOINED:
		ev_begin(nd, "join");
		ev_u(nd, "id", ev->id);
		ev_end(nd);
		break;
	}
}

static const struct ft_mb_ops node_ops = { mb_send, mb_event };

/* A suspect is confirmed dead: the ping found nobody. */
static void
confirm_dead(struct node *nd, uint32_t id, const char *how)
{
	if (nd->hb.state[id] == FT_HB_FAILED)
		return;
	if (ft_diag_level() > 0)
		ft_warnx("member %u: %s", id, how);
	forget(nd, id);
	ft_member_failed(&nd->mb, id, nd->cfg->self, nd->now);
}

/*
 * Try to ping suspect id.  Only a refusal (no listener at the address:
 * the process is gone, its host answers) proves it dead at once; any
 * other failure (a full accept queue, no fd to spare) is tried again
 * a period later, until the ping deadline says no answer came.
 */
static void
ping_try(struct node *nd, uint32_t id)
{
	struct peer *p = &nd->peers[id];
	struct ft_msg_ping m;

	link_close(&p->ping);
	p->ping_retry_at = nd->now + nd->cfg->period_ns;
	if (link_open(nd, &p->ping, id) != 0) {
		if (errno == ECONNREFUSED || errno == ENOENT)
			confirm_dead(nd, id, "connection refused");
		return;
	}
	ft_random(&p->ping_nonce, sizeof(p->ping_nonce));
	m.nonce = p->ping_nonce;
	m.epoch = nd->mb.epoch;
	ft_wbuf_reset(&nd->wb);
	if (ft_msg_ping_encode(&nd->wb, nd->cfg->self, FT_MSG_PING, &m) != 0 ||
	    ft_conn_queue_copy(&p->ping.c, nd->wb.p, nd->wb.len) != 0)
		link_close(&p->ping);
}

static void
ping(struct node *nd, uint32_t id)
{
	nd->peers[id].ping_deadline = nd->now + nd->cfg->ping_ns;
	ping_try(nd, id);
}

static void
unsuspect(struct node *nd, uint32_t id, const char *how)
{
	link_close(&nd->peers[id].ping);
	nd->peers[id].ping_deadline = 0;
	ev_begin(nd, "unsuspect");
	ev_u(nd, "id", id);
	ev_s(nd, "how", how);
	ev_end(nd);
}

/* Open a gossip link to live member id; 1 if one was tried. */
static int
warm_one(struct node *nd, uint32_t id)
{
	if (id == nd->cfg->self || nd->hb.state[id] != FT_HB_ALIVE)
		return 0;
	return out_open(nd, id);
}

/*
 * The tree neighbours (parent and children) of position pos in a view
 * of nlive positions, as positions, into out; their number.
 */
static uint32_t
tree_neighbours(struct node *nd, uint32_t nlive, uint32_t pos,
    uint32_t *out)
{
	uint32_t k, par;

	k = ft_rtree_children(nd->positions, nlive, nd->cfg->fanout, pos,
	    out);
	if (ft_rtree_parent(nd->positions, nlive, nd->cfg->fanout, pos,
	    &par) == 0)
		out[k++] = par;
	return k;
}

/*
 * Keep connections that the next view will use, so that it spreads
 * down the tree, and its acks come up, without a connect and a
 * handshake at each hop.  Up to FT_GNODE_MESH_MAX members: to every
 * member.  Above: to the tree neighbours this member has in the view,
 * and would have in the view less any one member.  Such a view shifts
 * the positions after the one removed down by one, so neighbour
 * position q is held now by the member at q or at q + 1.
 */
static void
warm_links(struct node *nd)
{
	const struct ft_member *mb = &nd->mb;
	uint32_t i, j, k, pos = 0, opened = 0;

	if (mb->joining_self)
		return;
	/* A few a round: all members start at once, and a storm of
	 * connects would starve the gossip it is meant to speed up. */
	if (nd->cfg->n <= FT_GNODE_MESH_MAX) {
		for (i = 0; i < mb->nlive && opened < WARM_PER_ROUND; i++)
			opened += warm_one(nd, mb->live[i]);
		return;
	}
	for (i = 0; i < mb->nlive; i++)
		if (mb->live[i] == nd->cfg->self)
			pos = i;
	k = tree_neighbours(nd, mb->nlive, pos, nd->nbrs);
	if (pos > 0 && mb->nlive > 1)
		k += tree_neighbours(nd, mb->nlive - 1, pos - 1, nd->nbrs + k);
	for (i = 0; i < k && opened < WARM_PER_ROUND; i++)
		for (j = nd->nbrs[i]; j <= nd->nbrs[i] + 1 && j < mb->nlive;
		    j++)
			opened += warm_one(nd, mb->live[j]);
}

/* One gossip period: tick, send the table, look for suspects. */
static void
gossip_round(struct node *nd)
{
	struct ft_msg_gossip g;
	const struct ft_member *mb = &nd->mb;
	uint32_t i, k, pos = 0, d;

	ft_hbtable_tick(&nd->hb, nd->now, wall_us());
	nd->round++;
	if (!mb->joining_self && mb->nlive >= 2) {
		for (i = 0; i < mb->nlive; i++)
			if (mb->live[i] == nd->cfg->self)
				pos = i;
		d = ft_gossip_dest(nd->cfg->proto, mb->nlive, pos, nd->round,
		    &nd->rng);
		g.epoch = mb->epoch;
		g.n = nd->cfg->n;
		g.hb = nd->hb.hb;
		ft_wbuf_reset(&nd->wb);
		if (ft_msg_gossip_encode(&nd->wb, nd->cfg->self, &g) == 0)
			send_frame(nd, mb->live[d]);
	}
	if (mb->joining_self)
		return;
	warm_links(nd);
	k = ft_hbtable_check(&nd->hb, nd->now, nd->cfg->cleanup_ns,
	    nd->suspects);
	for (i = 0; i < k; i++) {
		ev_begin(nd, "suspect");
		ev_u(nd, "id", nd->suspects[i]);
		ev_end(nd);
		ping(nd, nd->suspects[i]);
	}
}

/*
 * A GOSSIP frame.  One that does not decode, or is not of our size,
 * closes the connection (-1): frames carry no MAC, so the stream it
 * came on may be out of step, and a peer with another members file
 * means nothing it says about ids.  The sender opens a new one.
 */
static int
on_gossip(struct node *nd, uint32_t from, const uint8_t *body, size_t len)
{
	struct ft_msg_gossip g;
	uint64_t now_us = wall_us(), limit = now_us + FT_HB_AHEAD_US;
	uint32_t i, k;
	int refused;

	g.hb = nd->scratch_hb;
	if (ft_msg_gossip_decode(body, len, &g, nd->cfg->n) != 0 ||
	    g.n != nd->cfg->n) {
		peer_warn(nd, W_GOSSIP, "member %u: malformed gossip", from);
		errno = EPROTO;
		return -1;
	}
	ft_member_heard(&nd->mb, from, g.epoch, nd->now);
	if ((refused = ft_hbtable_merge(&nd->hb, g.hb, g.n, nd->now, limit,
	    nd->suspects, &k)) < 0)
		return -1;
	for (i = 0; i < k; i++)
		unsuspect(nd, nd->suspects[i], "gossip");
	for (i = 0; refused > 0 && i < g.n; i++)
		if (i != nd->cfg->self && g.hb[i] > limit) {
			peer_warn(nd, W_AHEAD, "member %u: the heartbeat of "
			    "member %u is %.3g s ahead of this host's clock; "
			    "ignored", from, i,
			    (double)(g.hb[i] - now_us) / 1e6);
			break;
		}
	return 0;
}

/* A frame from an authenticated peer on conn c. */
static int
on_frame(struct node *nd, struct ft_conn *c, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct ft_msg_ping pm;
	struct peer *p;
	uint32_t from = c->peer;

	if (from >= nd->cfg->n || from == nd->cfg->self) {
		errno = EPROTO;
		return -1;
	}
	switch (h->type) {
	case FT_MSG_GOSSIP:
		return on_gossip(nd, from, body, h->len - FT_WIRE_HDRLEN);
	case FT_MSG_PING:
		if (ft_msg_ping_decode(body, h->len - FT_WIRE_HDRLEN, &pm) != 0)
			return -1;
		pm.epoch = nd->mb.epoch;
		ft_wbuf_reset(&nd->wb);
		if (ft_msg_ping_encode(&nd->wb, nd->cfg->self, FT_MSG_PONG,
		    &pm) != 0)
			return -1;
		return ft_conn_queue_copy(c, nd->wb.p, nd->wb.len);
	case FT_MSG_PONG:
		p = &nd->peers[from];
		if (ft_msg_ping_decode(body, h->len - FT_WIRE_HDRLEN, &pm) != 0)
			return -1;
		if (c == &p->ping.c && p->ping_deadline != 0 &&
		    pm.nonce == p->ping_nonce &&
		    nd->hb.state[from] == FT_HB_SUSPECT) {
			ft_hbtable_alive(&nd->hb, from, nd->now);
			unsuspect(nd, from, "pong");
			return 1;	/* the ping link is closed */
		}
		return 0;
	case FT_MSG_MEMBER:
		if (ft_msg_member_decode(body, h->len - FT_WIRE_HDRLEN,
		    &nd->scratch, nd->cfg->n) != 0) {
			peer_warn(nd, W_MEMBER, "member %u: malformed "
			    "membership message", from);
			return -1;
		}
		ft_member_recv(&nd->mb, from, &nd->scratch, nd->now);
		return 0;
	default:
		errno = EPROTO;
		return -1;
	}
}

/*
 * A frame of c's handshake: 0 to go on, -1 (errno set) when it failed
 * or the peer is no member, or not the one dialled (FT_MB_NONE on an
 * accepted connection).
 */
static int
handshake(struct node *nd, struct ft_conn *c, const struct ft_hdr *h,
    const uint8_t *body, uint32_t dialled)
{
	if (ft_conn_handshake(c, h, body) < 0) {
		/* Only the side that dialled knows whom it wanted: the
		 * other sees the connection closed. */
		if (errno == EACCES && dialled != FT_MB_NONE)
			peer_warn(nd, W_AUTH, "member %u at '%s' failed "
			    "authentication: not the same key?", dialled,
			    nd->cfg->addrs[dialled]);
		return -1;
	}
	/* Only detectors, and on a link we dialled, only the member we
	 * dialled. */
	if (c->hs == FT_HS_READY &&
	    ((dialled == FT_MB_NONE && c->peer_role != FT_ROLE_DETECTOR) ||
	    (dialled != FT_MB_NONE && c->peer != dialled) ||
	    c->peer >= nd->cfg->n || c->peer == nd->cfg->self)) {
		peer_warn(nd, W_STRANGER, "a connection that is not a "
		    "member's was refused");
		errno = EPROTO;
		return -1;
	}
	(void)ft_conn_flush(c);
	return 0;
}

/*
 * Read and handle what c has: 0 to keep it, 1 when a handler closed
 * it, -1 on an error or end of file (the caller closes it).
 */
static int
service(struct node *nd, struct ft_conn *c, uint32_t dialled)
{
	struct ft_hdr h;
	const uint8_t *body;
	ssize_t got;
	int rc, drained = 0;

	for (;;) {
		while ((rc = ft_conn_frame(c, &h, &body)) == 1) {
			if (c->hs != FT_HS_READY) {
				if (handshake(nd, c, &h, body, dialled) != 0)
					return -1;
				continue;
			}
			if ((rc = on_frame(nd, c, &h, body)) != 0)
				return rc;
			if (nd->excluded)
				return 0;
		}
		if (rc < 0 || drained)
			return rc < 0 ? -1 : 0;
		if ((got = ft_conn_fill(c)) < 0)
			return -1;
		if (got == 0)
			return 0;
		/* A short read took all there was: the epoll loop is level
		 * triggered, so no second recv is needed to see EAGAIN. */
		drained = c->iend < c->isize;
	}
}

/* Death reports on the input: "dead ID" lines. */
static void
read_input(struct node *nd)
{
	const char *errstr;
	char *nl, *line;
	ssize_t got;
	long long id;

	got = read(nd->in_fd, nd->inbuf + nd->inlen,
	    sizeof(nd->inbuf) - 1 - nd->inlen);
	if (got <= 0) {
		if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
			/* End of input: keep running without it. */
			(void)epoll_ctl(nd->epfd, EPOLL_CTL_DEL, nd->in_fd,
			    NULL);
			nd->in_fd = -1;
		}
		return;
	}
	nd->inlen += (size_t)got;
	nd->inbuf[nd->inlen] = '\0';
	while ((nl = strchr(nd->inbuf, '\n')) != NULL ||
	    nd->inlen == sizeof(nd->inbuf) - 1) {
		if (nl == NULL)
			nl = nd->inbuf + nd->inlen - 1;	/* too long */
		*nl = '\0';
		line = nd->inbuf;
		if (strncmp(line, "dead ", 5) == 0) {
			id = strtonum(line + 5, 0, nd->cfg->n - 1, &errstr);
			if (errstr != NULL)
				ft_warnx("input: member '%s' is %s", line + 5,
				    errstr);
			else if ((uint32_t)id != nd->cfg->self)
				confirm_dead(nd, (uint32_t)id,
				    "reported dead on input");
		} else if (line[0] != '\0')
			ft_warnx("input: '%s' is not \"dead ID\"", line);
		nd->inlen -= (size_t)(nl + 1 - nd->inbuf);
		memmove(nd->inbuf, nl + 1, nd->inlen);
		nd->inbuf[nd->inlen] = '\0';
	}
}

static void
accept_all(struct node *nd)
{
	struct inconn *c, **grown;
	int fd;

	while ((fd = ft_net_accept(nd->lfd)) >= 0) {
		if (nd->nin == nd->inmax) {
			grown = reallocarray(nd->in, nd->inmax * 2 + 8,
			    sizeof(*nd->in));
			if (grown == NULL) {
				close(fd);
				return;
			}
			nd->in = grown;
			nd->inmax = nd->inmax * 2 + 8;
		}
		if ((c = calloc(1, sizeof(*c))) == NULL ||
		    ft_conn_accepted(&c->c, fd, nd->cfg->key,
		    nd->cfg->self) != 0) {
			free(c);
			close(fd);
			return;
		}
		(void)ft_conn_set_ibuf(&c->c, DETECT_IBUF);
		c->tag.kind = TAG_IN;
		c->tag.in = c;
		ep_sync(nd, &c->c, &c->tag);
		nd->in[nd->nin++] = c;
	}
}

static void
in_close(struct node *nd, struct inconn *c)
{
	size_t j;

	for (j = 0; j < nd->nin; j++)
		if (nd->in[j] == c) {
			nd->in[j] = nd->in[--nd->nin];
			break;
		}
	ft_conn_release(&c->c);
	free(c);
}

/* Register fd for input; a file or /dev/null cannot be: read it all. */
static int
ep_add_input(struct node *nd, int fd, struct tag *t)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = t;
	return epoll_ctl(nd->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Drive an outgoing link after epoll: its frames, its errors. */
static void
drive_link(struct node *nd, uint32_t id, struct link *l, uint32_t revents,
    int is_ping)
{
	int rc = 0;

	if (!l->open || revents == 0)
		return;
	if (revents & EPOLLOUT)
		rc = ft_conn_flush(&l->c);
	if (rc == 0 && (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		rc = service(nd, &l->c, id);
	if (rc == 1)
		return;
	if (rc < 0 || l->c.eof) {
		/* A lost ping is tried again (ping_try) until its deadline;
		 * a lost gossip link is reopened a period later. */
		link_close(l);
		if (!is_ping)
			nd->peers[id].out_retry_at = nd->now +
			    nd->cfg->period_ns;
	}
}

/* An accepted connection's events; 1 when it is to be closed. */
static int
in_service(struct node *nd, struct inconn *c, uint32_t revents)
{
	int r = 0;

	if (revents & EPOLLOUT)
		r = ft_conn_flush(&c->c);
	if (r == 0 && (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		r = service(nd, &c->c, FT_MB_NONE);
	return r != 0 || c->c.eof;
}

/*
 * Listen on addr.  A Unix socket file left by a member that died is
 * removed first; one that a live process answers on is an error.
 */
static int
listen_on(const char *addr, char *bound, size_t boundsize)
{
	struct stat st;
	struct pollfd pf;
	int fd;

	if (strncmp(addr, "unix:", 5) == 0 &&
	    (fd = ft_net_connect(addr)) >= 0) {
		pf.fd = fd;
		pf.events = POLLOUT;
		if (poll(&pf, 1, 1000) == 1 && ft_net_connect_done(fd) == 0) {
			close(fd);
			errno = EADDRINUSE;
			return -1;
		}
		close(fd);
	}
	/* Only a socket file is ours to remove, never a file that
	 * happens to sit at the path. */
	if (strncmp(addr, "unix:", 5) == 0 && errno == ECONNREFUSED &&
	    lstat(addr + 5, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(addr + 5);
	return ft_net_listen(addr, bound, boundsize);
}

int
ft_gnode_run(const struct ft_gnode_cfg *cfg)
{
	struct epoll_event ev, evs[NEVENTS];
	struct node nd;
	char bound[FT_WIRE_ADDR_MAX];
	uint64_t next_round, next_tick, wake, retry;
	uint32_t i, n = cfg->n;
	size_t j;
	int rc = FT_EXIT_TEMP, timeout, nev, e;

	memset(&nd, 0, sizeof(nd));
	for (i = 0; i < W_NKINDS; i++)
		ft_ratelim_init(&nd.warned[i], "warnings", 1, WARN_EVERY_NS);
	nd.cfg = cfg;
	nd.in_fd = cfg->in_fd;
	nd.now = ft_now_ns();
	ft_wbuf_init(&nd.wb);
	errno = 0;
	nd.lfd = cfg->listen_fd >= 0 ? cfg->listen_fd :
	    listen_on(cfg->addrs[cfg->self], bound, sizeof(bound));
	nd.epfd = -1;
	if (nd.lfd < 0) {
		ft_warn("listen on %s", cfg->addrs[cfg->self]);
		return FT_EXIT_TEMP;
	}
	retry = cfg->period_ns > 20000000u ? cfg->period_ns : 20000000u;
	nd.peers = calloc(n, sizeof(*nd.peers));
	nd.scratch_hb = calloc(n, sizeof(*nd.scratch_hb));
	nd.suspects = calloc(n, sizeof(*nd.suspects));
	nd.positions = calloc(n, sizeof(*nd.positions));
	nd.nbrs = calloc(2 * (size_t)n, sizeof(*nd.nbrs));
	nd.scratch.live = calloc(n, sizeof(uint32_t));
	nd.scratch.fail = calloc(n, sizeof(uint32_t));
	nd.scratch.by = calloc(n, sizeof(uint32_t));
	nd.scratch.ep = calloc(n, sizeof(uint64_t));
	if (nd.peers == NULL || nd.scratch_hb == NULL || nd.suspects == NULL ||
	    nd.positions == NULL || nd.nbrs == NULL ||
	    nd.scratch.live == NULL || nd.scratch.fail == NULL ||
	    nd.scratch.by == NULL || nd.scratch.ep == NULL ||
	    ft_hbtable_init(&nd.hb, n, cfg->self, nd.now) != 0 ||
	    ft_member_init(&nd.mb, n, cfg->self, cfg->fanout, retry,
	    cfg->join, &node_ops, &nd, nd.now) != 0 ||
	    (nd.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		ft_warn("detector set-up");
		goto out;
	}
	for (i = 0; i < n; i++) {
		nd.positions[i] = i;
		nd.peers[i].out.tag = (struct tag){ TAG_OUT, i, 0,
		    &nd.peers[i].out, NULL };
		nd.peers[i].ping.tag = (struct tag){ TAG_PING, i, 0,
		    &nd.peers[i].ping, NULL };
	}
	/*
	 * Our heartbeat is the wall clock in microseconds (each tick sets
	 * it again), so that a member restarted under its old id counts
	 * above its old self, and no counter runs ahead of the clocks.
	 * A member never heard from gets startup_ns to appear.
	 */
	nd.hb.hb[cfg->self] = wall_us();
	for (i = 0; i < n; i++)
		if (i != cfg->self)
			nd.hb.grew_at[i] = nd.now + cfg->startup_ns;
	nd.rng = ((uint64_t)cfg->self + 1) * 0x9e3779b97f4a7c15ull ^
	    nd.now;
	if (nd.rng == 0)
		nd.rng = 1;

	ev_begin(&nd, "start");
	ev_u(&nd, "n", n);
	ev_s(&nd, "protocol", ft_gossip_proto_name(cfg->proto));
	ev_ms(&nd, "period_ms", cfg->period_ns);
	ev_ms(&nd, "cleanup_ms", cfg->cleanup_ns);
	ev_ms(&nd, "ping_ms", cfg->ping_ns);
	ev_s(&nd, "addr", bound);
	ev_end(&nd);

	nd.tag_listen.kind = TAG_LISTEN;
	nd.tag_input.kind = TAG_INPUT;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = &nd.tag_listen;
	if (epoll_ctl(nd.epfd, EPOLL_CTL_ADD, nd.lfd, &ev) != 0) {
		ft_warn("epoll");
		goto out;
	}
	if (nd.in_fd >= 0 && ep_add_input(&nd, nd.in_fd, &nd.tag_input) != 0) {
		/* A file, or /dev/null: its reports are all there now. */
		while (nd.in_fd >= 0)
			read_input(&nd);
	}

	next_round = nd.now + cfg->period_ns;
	next_tick = nd.now + retry / 2;
	while (!*cfg->stop && !nd.excluded) {
		wake = next_round < next_tick ? next_round : next_tick;
		for (i = 0; i < n; i++) {
			struct peer *p = &nd.peers[i];

			if (p->ping_deadline == 0)
				continue;
			if (p->ping_deadline < wake)
				wake = p->ping_deadline;
			if (!p->ping.open && p->ping_retry_at < wake)
				wake = p->ping_retry_at;
		}
		nd.now = ft_now_ns();
		timeout = wake <= nd.now ? 0 :
		    (int)((wake - nd.now + 999999) / 1000000);
		nev = epoll_wait(nd.epfd, evs, NEVENTS, timeout);
		if (nev < 0 && errno != EINTR) {
			ft_warn("epoll_wait");
			goto out;
		}
		for (e = 0; e < nev && !nd.excluded; e++) {
			struct tag *t = evs[e].data.ptr;

			/* Times of the events are exact. */
			nd.now = ft_now_ns();
			switch (t->kind) {
			case TAG_LISTEN:
				accept_all(&nd);
				break;
			case TAG_INPUT:
				if (nd.in_fd >= 0)
					read_input(&nd);
				break;
			case TAG_OUT:
			case TAG_PING:
				drive_link(&nd, t->id, t->link, evs[e].events,
				    t->kind == TAG_PING);
				break;
			case TAG_IN:
				if (in_service(&nd, t->in, evs[e].events))
					in_close(&nd, t->in);
				break;
			}
		}
		nd.now = ft_now_ns();
		fflush(cfg->events);
		for (i = 0; i < n; i++) {
			struct peer *p = &nd.peers[i];

			if (p->ping_deadline == 0)
				continue;
			if (nd.now >= p->ping_deadline)
				confirm_dead(&nd, i, "no answer to ping");
			else if (!p->ping.open && nd.now >= p->ping_retry_at)
				ping_try(&nd, i);
		}
		if (nd.now >= next_round) {
			gossip_round(&nd);
			next_round += cfg->period_ns;
			if (next_round <= nd.now)
				next_round = nd.now + cfg->period_ns;
		}
		if (nd.now >= next_tick) {
			ft_member_tick(&nd.mb, nd.now);
			next_tick = nd.now + retry / 2;
		}
		/* Output queued while handling: wait for writability. */
		for (i = 0; i < n; i++) {
			if (nd.peers[i].out.open)
				ep_sync(&nd, &nd.peers[i].out.c,
				    &nd.peers[i].out.tag);
			if (nd.peers[i].ping.open)
				ep_sync(&nd, &nd.peers[i].ping.c,
				    &nd.peers[i].ping.tag);
		}
		for (j = 0; j < nd.nin; j++)
			ep_sync(&nd, &nd.in[j]->c, &nd.in[j]->tag);
	}
	fflush(cfg->events);
	rc = nd.excluded ? FT_EXIT_NO : FT_EXIT_OK;
out:
	for (i = 0; nd.peers != NULL && i < n; i++) {
		link_close(&nd.peers[i].out);
		link_close(&nd.peers[i].ping);
	}
	for (j = 0; j < nd.nin; j++) {
		ft_conn_release(&nd.in[j]->c);
		free(nd.in[j]);
	}
	free(nd.in);
	if (nd.epfd >= 0)
		close(nd.epfd);
	free(nd.peers);
	free(nd.scratch_hb);
	free(nd.suspects);
	free(nd.positions);
	free(nd.nbrs);
	free(nd.scratch.live);
	free(nd.scratch.fail);
	free(nd.scratch.by);
	free(nd.scratch.ep);
	ft_hbtable_release(&nd.hb);
	ft_member_release(&nd.mb);
	ft_wbuf_release(&nd.wb);
	close(nd.lfd);
	if (strncmp(cfg->addrs[cfg->self], "unix:", 5) == 0)
		(void)unlink(cfg->addrs[cfg->self] + 5);
	return rc;
}
