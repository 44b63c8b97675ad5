/* SPDX-License-Identifier: ISC */
/*
 * The peer daemon (ftboot start): the gatekeeper's service, pings,
 * status, allocation for the submitters of this host (one child process
 * per ALLOC, which may take seconds), jobs (one child each, through the
 * job_frame hook), and a refresher child every period that registers
 * with the supernode, pings the peers of the cache and rewrites it.
 * The parent never blocks on a peer, so it stays responsive while any
 * of that runs.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../net/serve.h"
#include "peer.h"

enum kid_kind { KID_REFRESH, KID_ALLOC, KID_JOB };

struct kid {
	pid_t		pid;
	enum kid_kind	kind;
	int		job;
};

/* What the refresher's exit status says about the supernode. */
enum { SN_NONE = 0, SN_OK = 10, SN_DOWN = 11 };

struct daemon {
	const struct ft_boot_cfg	*cfg;
	struct ft_gate			*gate;
	struct ft__srv			 srv;
	struct kid			*kids;
	size_t				 nkids, kcap;
	uint64_t			 next_refresh;
	uint64_t			 started;
	int				 refreshing;
	int				 sn_state;	/* SN_* last seen */
	uint32_t			 npeers;
	struct ft_msg_boot_register	 reg;
	struct ft_wbuf			 wb;
};

void
ft_boot_child_init(const struct ft_boot_cfg *cfg, struct ft_conn *keep)
{
	struct sigaction sa;
	sigset_t none;
	int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGPIPE };
	size_t i;

	(void)cfg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < FT_NELEM(sigs); i++)
		(void)sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (keep != NULL && keep->fd != 3) {
		if (dup3(keep->fd, 3, O_CLOEXEC) != 3)
			_exit(FT_EXIT_TEMP);
		keep->fd = 3;
	}
	closefrom(keep != NULL ? 4 : 3);
}

static int
kid_add(struct daemon *d, pid_t pid, enum kid_kind kind, int job)
{
	struct kid *nk;

	if ((nk = ft_grow(d->kids, &d->kcap, d->nkids, sizeof(*d->kids))) ==
	    NULL)
		return -1;
	d->kids = nk;
	nk[d->nkids++] = (struct kid){ pid, kind, job };
	return 0;
}

static void
token_hex(const uint8_t *token, char out[9])
{
	/* The first 4 bytes name a reservation in the log, no more. */
	ft_hex_encode(token, 4, out);
}

static uint32_t
count_peers(const struct daemon *d)
{
	struct ft_peer *p;
	char why[FT_WIRE_TEXT_MAX];
	size_t n;

	if (ft_peer_cache_load(d->cfg->cache_path, &p, &n, why,
	    sizeof(why)) != 0) {
		ft_warnx("%s", why);
		return 0;
	}
	free(p);
	return (uint32_t)n;
}

/*
 * Wait until everything queued on c is sent (a child's last answer):
 * 0, or -1 if it could not be.
 */
static int
drain(struct ft_conn *c, uint64_t timeout_ns)
{
	uint64_t deadline = ft_now_ns() + timeout_ns, now;
	struct pollfd p;

	while (ft_conn_unsent(c) && (now = ft_now_ns()) < deadline) {
		if (ft_conn_flush(c) != 0)
			return -1;
		if (!ft_conn_unsent(c))
			return 0;
		p.fd = c->fd;
		p.events = POLLOUT;
		(void)poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
	}
	return ft_conn_unsent(c) ? -1 : 0;
}

/*
 * Has the peer of c closed its end?  A submitter sends nothing after
 * ALLOC, so anything readable is its end of file (or a protocol error).
 */
static int
peer_gone(const struct ft_conn *c)
{
	struct pollfd p = { c->fd, POLLIN, 0 };
	char b;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) <= 0 ||
	    (p.revents & (POLLHUP | POLLERR)) != 0;
}

/* ---- the refresher ---- */

static int
find_peer(const struct ft_peer *p, size_t n, const char *addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(p[i].addr, addr) == 0)
			return (int)i;
	return -1;
}

/* In the refresher child: returns its exit status (SN_*). */
static int
refresh(struct daemon *d)
{
	const struct ft_boot_cfg *cfg = d->cfg;
	struct ft_msg_boot_peers sp;
	struct ft_peer *old = NULL, *cur = NULL;
	char why[FT_WIRE_TEXT_MAX], host[FT_WIRE_NODE_MAX];
	size_t nold = 0, ncur = 0, i, ok = 0;
	uint64_t rtt;
	int j, state = SN_NONE;

	if (ft_peer_cache_load(cfg->cache_path, &old, &nold, why,
	    sizeof(why)) != 0) {
		ft_warnx("%s; starting a new cache", why);
		nold = 0;
	}
	if (cfg->supernode != NULL) {
		if (ft_peer_register(cfg->supernode, cfg->key, &d->reg, &sp,
		    why, sizeof(why)) == 0) {
			state = SN_OK;
			if ((cur = calloc(sp.n + 1, sizeof(*cur))) == NULL) {
				ft_msg_boot_peers_free(&sp);
				free(old);
				return SN_DOWN;
			}
			for (i = 0; i < sp.n; i++) {
				if (strcmp(sp.p[i].addr, cfg->addr) == 0 ||
				    !ft_boot_addr_ok(sp.p[i].addr))
					continue;
				struct ft_peer *p = &cur[ncur++];

				snprintf(p->addr, sizeof(p->addr), "%s",
				    sp.p[i].addr);
				/* Cache lines are words: no blank in a name. */
				ft_vis(host, sizeof(host), sp.p[i].host);
				host[strcspn(host, " \t#")] = '\0';
				snprintf(p->host, sizeof(p->host), "%s",
				    host[0] != '\0' ? host : "?");
				p->slots = sp.p[i].slots > FT_PEER_SLOTS_MAX ?
				    FT_PEER_SLOTS_MAX : sp.p[i].slots;
				p->jobs = sp.p[i].jobs > FT_PEER_JOBS_MAX ?
				    FT_PEER_JOBS_MAX : sp.p[i].jobs;
				if ((j = find_peer(old, nold, p->addr)) >= 0) {
					p->rtt_us = old[j].rtt_us;
					p->seen = old[j].seen;
				}
			}
			if (d->sn_state != SN_OK)
				ft_info("registered with the supernode %s "
				    "(%zu peers)", cfg->supernode, ncur);
			ft_msg_boot_peers_free(&sp);
			free(old);
		} else {
			state = SN_DOWN;
			if (d->sn_state != SN_DOWN)
				ft_warnx("supernode unreachable (%s): working "
				    "from the cache (%zu peers)", why, nold);
		}
	}
	if (state != SN_OK) {
		cur = old;
		ncur = nold;
	}
	for (i = 0; i < ncur; i++) {
		if (ft_peer_ping(cur[i].addr, cfg->key, &rtt, why,
		    sizeof(why)) == 0) {
			cur[i].rtt_us = rtt;
			cur[i].seen = (int64_t)time(NULL);
			ok++;
		} else
			ft_debug("ping %s", why);
	}
	ft_peer_sort(cur, ncur);
	if (ft_peer_cache_save(cfg->cache_path, cur, ncur) != 0)
		ft_warn("writing the peer cache '%s'", cfg->cache_path);
	ft_debug("refreshed: %zu peers, %zu answered", ncur, ok);
	free(cur);
	return state;
}

static void
start_refresh(struct daemon *d)
{
	pid_t pid;

	if ((pid = fork()) < 0) {
		ft_warn("fork (refresher)");
		return;
	}
	if (pid == 0) {
		ft_boot_child_init(d->cfg, NULL);
		ft_diag_setrole("refresh");
		_exit(refresh(d));
	}
	if (kid_add(d, pid, KID_REFRESH, -1) == 0)
		d->refreshing = 1;
}

/* ---- frames ---- */

static int
on_reserve(struct daemon *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft_msg_boot_reserve rq;
	struct ft_msg_boot_reserved rs;
	char tok[9];

	if (ft_msg_boot_reserve_decode(body, len, &rq) != 0)
		return -1;
	memset(&rs, 0, sizeof(rs));
	rs.status = (uint32_t)ft_gate_reserve(d->gate, rq.want, sc->ip,
	    rs.token, &rs.slots, rs.reason, sizeof(rs.reason));
	snprintf(rs.host, sizeof(rs.host), "%s", d->cfg->host);
	if (rs.status == FT_BOOT_OK) {
		rs.ttl_ms = ft_gate_ttl(d->gate) / 1000000u;
		token_hex(rs.token, tok);
		ft_info("reserved %u slots for %s (token %s..., expires in "
		    "%llums unless claimed)", rs.slots, sc->ip, tok,
		    (unsigned long long)rs.ttl_ms);
	} else
		ft_info("refused a reservation from %s: %s", sc->ip,
		    rs.reason);
	if (ft_msg_boot_reserved_encode(&d->wb, 0, &rs) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

static int
on_cancel(struct daemon *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft_msg_boot_cancel m;
	char tok[9];

	if (ft_msg_boot_cancel_decode(body, len, &m) != 0)
		return -1;
	token_hex(m.token, tok);
	if (ft_gate_cancel(d->gate, m.token) == 0)
		ft_info("cancelled reservation %s... for %s", tok, sc->ip);
	if (ft_msg_empty_encode(&d->wb, 0, FT_MSG_BOOT_DONE) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

static int
on_status(struct daemon *d, struct ft__srv_conn *sc)
{
	struct ft_msg_boot_state st;

	memset(&st, 0, sizeof(st));
	snprintf(st.addr, sizeof(st.addr), "%s", d->cfg->addr);
	snprintf(st.host, sizeof(st.host), "%s", d->cfg->host);
	st.slots = d->cfg->slots;
	st.jobs = d->cfg->jobs;
	ft_gate_counts(d->gate, &st.reserved, &st.running);
	st.peers = d->npeers;
	st.uptime_ms = (ft_now_ns() - d->started) / 1000000u;
	if (ft_msg_boot_state_encode(&d->wb, 0, &st) != 0)
		return -1;
	return ft__srv_send(sc, &d->wb);
}

/* ALLOC: served by a child, which owns the connection from now on. */
static int
on_alloc(struct daemon *d, struct ft__srv_conn *sc, const uint8_t *body,
    size_t len)
{
	struct ft__alloc_ctx ctx;
	struct ft_msg_boot_alloc rq;
	struct ft_msg_boot_grants gr;
	pid_t pid;

	if (ft_msg_boot_alloc_decode(body, len, &rq) != 0)
		return -1;
	memset(&gr, 0, sizeof(gr));
	if (!ft_gate_allowed(d->gate, sc->ip, gr.why, sizeof(gr.why))) {
		ft_info("refused an allocation for %s: %s", sc->ip, gr.why);
		gr.status = FT_BOOT_DENIED;
		if (ft_msg_boot_grants_encode(&d->wb, 0, &gr) != 0)
			return -1;
		return ft__srv_send(sc, &d->wb);
	}
	ft_info("allocating %u x %u processes (%s) for %s", rq.nranks,
	    rq.nrep, rq.mode ? "concentrate" : "spread", sc->ip);
	if ((pid = fork()) < 0) {
		ft__srv_refuse(sc, "the daemon cannot fork");
		return 0;
	}
	if (pid > 0) {
		(void)kid_add(d, pid, KID_ALLOC, -1);
		return -1;	/* the parent's copy of the connection goes */
	}
	ft_boot_child_init(d->cfg, &sc->c);
	ft_diag_setrole("alloc");
	ctx.key = d->cfg->key;
	ctx.self_addr = d->cfg->addr;
	ctx.cache_path = d->cfg->cache_path;
	ctx.supernode = d->cfg->supernode;
	ctx.reg = &d->reg;
	if (ft__peer_alloc_serve(&ctx, &rq, &gr) != 0) {
		gr.status = FT_BOOT_FAILED;
		snprintf(gr.why, sizeof(gr.why), "out of memory");
	}
	if (gr.status != FT_BOOT_OK)
		ft_info("allocation failed: %s", gr.why);
	else
		ft_info("allocated %u x %u processes on %u daemons",
		    rq.nranks, rq.nrep, gr.n);
	if (peer_gone(&sc->c) ||
	    ft_msg_boot_grants_encode(&d->wb, 0, &gr) != 0 ||
	    ft_conn_queue_copy(&sc->c, d->wb.p, d->wb.len) != 0 ||
	    drain(&sc->c, FT_PEER_CALL_NS) != 0) {
		/* Nobody will use them: give the places back now. */
		char why[FT_WIRE_TEXT_MAX];
		uint32_t i;

		for (i = 0; i < gr.n; i++)
			(void)ft_peer_cancel(gr.g[i].addr, d->cfg->key,
			    FT_ROLE_DAEMON, gr.g[i].token, why, sizeof(why));
		if (gr.n > 0)
			ft_info("the submitter went away: cancelled its %u "
			    "reservations", gr.n);
	}
	_exit(0);
}

static int
on_frame(struct ft__srv *s, struct ft__srv_conn *sc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct daemon *d = s->arg;
	struct ft_msg_ping ping;
	size_t len = h->len - FT_WIRE_HDRLEN;
	char why[FT_WIRE_TEXT_MAX];
	pid_t child = -1;
	int job = -1, submitter = sc->c.peer_role == FT_ROLE_SUBMITTER;

	switch (h->type) {
	case FT_MSG_PING:
		if (ft_msg_ping_decode(body, len, &ping) != 0 ||
		    ft_msg_ping_encode(&d->wb, 0, FT_MSG_PONG, &ping) != 0)
			return -1;
		return ft__srv_send(sc, &d->wb);
	case FT_MSG_BOOT_STATUS:
		if (ft_msg_empty_decode(body, len) != 0)
			return -1;
		return on_status(d, sc);
	case FT_MSG_BOOT_RESERVE:
		return on_reserve(d, sc, body, len);
	case FT_MSG_BOOT_CANCEL:
		return on_cancel(d, sc, body, len);
	case FT_MSG_BOOT_ALLOC:
		if (!submitter)
			break;
		return on_alloc(d, sc, body, len);
	case FT_MSG_JOB_START_TYPE:
		if (!submitter || sc->frames != 0)
			break;
		if (d->cfg->job_frame == NULL ||
		    d->cfg->job_frame(d->cfg->job_arg, d->gate, &sc->c, h, body,
		    sc->ip, &child, &job, why, sizeof(why)) != 0) {
			if (d->cfg->job_frame == NULL)
				snprintf(why, sizeof(why), "this daemon runs "
				    "no jobs");
			ft_info("refused a job from %s: %s", sc->ip, why);
			ft__srv_refuse(sc, why);
			return 0;
		}
		if (kid_add(d, child, KID_JOB, job) != 0) {
			/* Untracked, its slots would never come back. */
			kill(child, SIGKILL);
			ft_gate_job_done(d->gate, job);
		} else
			ft_info("job %d started for %s (pid %ld)", job,
			    sc->ip, (long)child);
		return -1;	/* the job's child owns the connection */
	default:
		break;
	}
	ft_warnx_limited(&s->rl, "daemon: unexpected %s frame from %s (role "
	    "%u); connection closed", ft_msg_name(h->type), sc->ip,
	    sc->c.peer_role);
	return -1;
}

static int
role_ok(uint8_t role)
{
	return role == FT_ROLE_DAEMON || role == FT_ROLE_SUBMITTER;
}

static void
reap(struct daemon *d)
{
	size_t i;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; i < d->nkids; i++)
			if (d->kids[i].pid == pid)
				break;
		if (i == d->nkids)
			continue;
		switch (d->kids[i].kind) {
		case KID_REFRESH:
			d->refreshing = 0;
			if (WIFEXITED(st) && (WEXITSTATUS(st) == SN_OK ||
			    WEXITSTATUS(st) == SN_DOWN))
				d->sn_state = WEXITSTATUS(st);
			d->npeers = count_peers(d);
			break;
		case KID_JOB:
			ft_gate_job_done(d->gate, d->kids[i].job);
			if (WIFSIGNALED(st))
				ft_info("job %d ended by signal %d",
				    d->kids[i].job, WTERMSIG(st));
			else
				ft_info("job %d ended with status %d",
				    d->kids[i].job, WEXITSTATUS(st));
			break;
		case KID_ALLOC:
			break;
		}
		d->kids[i] = d->kids[--d->nkids];
	}
}

static uint64_t
tick(struct ft__srv *s)
{
	struct daemon *d = s->arg;
	uint64_t now, next;
	size_t n;

	reap(d);
	if ((n = ft_gate_expire(d->gate, &next)) > 0)
		ft_info("%zu reservation%s expired unclaimed", n,
		    n == 1 ? "" : "s");
	now = ft_now_ns();
	if (!d->refreshing && now >= d->next_refresh) {
		start_refresh(d);
		d->next_refresh = now + d->cfg->refresh_ns;
	}
	if (next == 0 || d->next_refresh < next)
		next = d->next_refresh;
	return next;
}

int
ft_boot_serve(const struct ft_boot_cfg *cfg)
{
	struct ft_gate_cfg gc;
	struct daemon d;
	size_t i;
	int rc, saved;

	memset(&d, 0, sizeof(d));
	d.cfg = cfg;
	d.started = ft_now_ns();
	d.sn_state = SN_NONE;
	memset(&gc, 0, sizeof(gc));
	gc.slots = cfg->slots;
	gc.jobs = cfg->jobs;
	gc.ttl_ns = cfg->ttl_ns;
	gc.allow = cfg->allow;
	gc.deny = cfg->deny;
	if ((d.gate = ft_gate_new(&gc)) == NULL)
		return -1;
	snprintf(d.reg.addr, sizeof(d.reg.addr), "%s", cfg->addr);
	snprintf(d.reg.host, sizeof(d.reg.host), "%s", cfg->host);
	d.reg.slots = cfg->slots;
	d.reg.jobs = cfg->jobs;
	d.reg.refresh_ms = cfg->refresh_ns / 1000000u > 0 ?
	    cfg->refresh_ns / 1000000u : 1;
	ft_wbuf_init(&d.wb);
	d.npeers = count_peers(&d);
	d.srv.lfd = cfg->lfd;
	d.srv.key = cfg->key;
	d.srv.who = "daemon";
	d.srv.max_conns = 1024;
	d.srv.role_ok = role_ok;
	d.srv.frame = on_frame;
	d.srv.tick = tick;
	d.srv.arg = &d;
	d.srv.stop = cfg->stop;
	rc = ft__srv_run(&d.srv);
	saved = errno;
	ft__srv_release(&d.srv);
	/* Stopping ends what runs here: jobs, allocations, the refresher. */
	for (i = 0; i < d.nkids; i++)
		kill(d.kids[i].pid, SIGTERM);
	for (i = 0; i < d.nkids; i++)
		(void)waitpid(d.kids[i].pid, NULL, 0);
	free(d.kids);
	ft_wbuf_release(&d.wb);
	ft_gate_free(d.gate);
	errno = saved;
	return rc;
}
