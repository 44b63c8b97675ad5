/* SPDX-License-Identifier: ISC */
/*
 * The supernode (ftboot supernode, P2P-MPI 3.1): daemons REGISTER
 * (address, host name, capacity, refresh period) and get the list of
 * the others; a daemon not heard from for FT_PEER_FORGET of its own
 * refresh periods is forgotten.  It only ever talks to daemons.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../net/serve.h"
#include "peer.h"

struct entry {
	struct ft_msg_boot_register	r;
	uint64_t			last;	/* ft_now_ns of the last REGISTER */
};

struct super {
	struct ft__srv	 srv;
	struct entry	*e;
	size_t		 n, cap;
	struct ft_wbuf	 wb;
	struct ft_boot_peer *list;
	size_t		 lcap;
};

static uint64_t
forget_after(const struct entry *e)
{
	return FT_PEER_FORGET * e->r.refresh_ms * 1000000u;
}

static int
on_register(struct super *sn, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft_msg_boot_register r;
	struct ft_msg_boot_peers out;
	struct ft_boot_peer *nl;
	struct entry *ne;
	uint64_t now = ft_now_ns();
	char vis[FT_WIRE_NODE_MAX];
	size_t i, k = 0;

	if (ft_msg_boot_register_decode(body, len, &r) != 0 ||
	    !ft_boot_addr_ok(r.addr))
		return -1;
	/* A period of at most a day: forgetting must come one day. */
	if (r.refresh_ms > 86400000u)
		r.refresh_ms = 86400000u;
	for (i = 0; i < sn->n; i++)
		if (strcmp(sn->e[i].r.addr, r.addr) == 0)
			break;
	if (i == sn->n) {
		if (sn->n == FT_WIRE_PEERS_MAX) {
			ft__srv_refuse(sc, "the supernode knows too many "
			    "peers");
			return 0;
		}
		if ((ne = ft_grow(sn->e, &sn->cap, sn->n, sizeof(*sn->e))) ==
		    NULL)
			return -1;
		sn->e = ne;
		sn->n++;
		ft_info("registered %s (%s, %u slots, %u jobs) from %s",
		    r.addr, ft_vis(vis, sizeof(vis), r.host), r.slots, r.jobs,
		    sc->ip);
	}
	sn->e[i].r = r;
	sn->e[i].last = now;
	if (sn->n > sn->lcap) {
		if ((nl = reallocarray(sn->list, sn->n, sizeof(*nl))) == NULL)
			return -1;
		sn->list = nl;
		sn->lcap = sn->n;
	}
	for (i = 0; i < sn->n; i++) {
		if (strcmp(sn->e[i].r.addr, r.addr) == 0)
			continue;
		memset(&sn->list[k], 0, sizeof(sn->list[k]));
		snprintf(sn->list[k].addr, sizeof(sn->list[k].addr), "%s",
		    sn->e[i].r.addr);
		snprintf(sn->list[k].host, sizeof(sn->list[k].host), "%s",
		    sn->e[i].r.host);
		sn->list[k].slots = sn->e[i].r.slots;
		sn->list[k].jobs = sn->e[i].r.jobs;
		sn->list[k].age_ms = (now - sn->e[i].last) / 1000000u;
		k++;
	}
	out.n = (uint32_t)k;
	out.p = sn->list;
	if (ft_msg_boot_peers_encode(&sn->wb, 0, &out) != 0)
		return -1;
	return ft__srv_send(sc, &sn->wb);
}

static int
on_frame(struct ft__srv *s, struct ft__srv_conn *sc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct super *sn = s->arg;
	struct ft_msg_ping ping;
	size_t len = h->len - FT_WIRE_HDRLEN;

	switch (h->type) {
	case FT_MSG_BOOT_REGISTER:
		return on_register(sn, sc, body, len);
	case FT_MSG_PING:
		if (ft_msg_ping_decode(body, len, &ping) != 0 ||
		    ft_msg_ping_encode(&sn->wb, 0, FT_MSG_PONG, &ping) != 0)
			return -1;
		return ft__srv_send(sc, &sn->wb);
	default:
		ft_warnx_limited(&s->rl, "supernode: unexpected %s frame from "
		    "%s; connection closed", ft_msg_name(h->type), sc->ip);
		return -1;
	}
}

static int
role_ok(uint8_t role)
{
	return role == FT_ROLE_DAEMON;
}

static uint64_t
tick(struct ft__srv *s)
{
	struct super *sn = s->arg;
	uint64_t now = ft_now_ns(), next = 0, dl;
	char vis[FT_WIRE_NODE_MAX];
	size_t i;

	for (i = 0; i < sn->n;) {
		dl = sn->e[i].last + forget_after(&sn->e[i]);
		if (now >= dl) {
			ft_info("forgot %s (%s): not seen for %u refresh "
			    "periods", sn->e[i].r.addr, ft_vis(vis, sizeof(vis),
			    sn->e[i].r.host), FT_PEER_FORGET);
			sn->e[i] = sn->e[--sn->n];
			continue;
		}
		if (next == 0 || dl < next)
			next = dl;
		i++;
	}
	return next;
}

int
ft_supernode_serve(const struct ft_supernode_cfg *cfg)
{
	struct super sn;
	int rc, saved;

	memset(&sn, 0, sizeof(sn));
	ft_wbuf_init(&sn.wb);
	sn.srv.lfd = cfg->lfd;
	sn.srv.key = cfg->key;
	sn.srv.who = "supernode";
	sn.srv.max_conns = 4096;
	sn.srv.role_ok = role_ok;
	sn.srv.frame = on_frame;
	sn.srv.tick = tick;
	sn.srv.arg = &sn;
	sn.srv.stop = cfg->stop;
	rc = ft__srv_run(&sn.srv);
	saved = errno;
	ft__srv_release(&sn.srv);
	ft_wbuf_release(&sn.wb);
	free(sn.e);
	free(sn.list);
	errno = saved;
	return rc;
}
