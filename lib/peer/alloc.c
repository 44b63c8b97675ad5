/* SPDX-License-Identifier: ISC */
/*
 * Allocation (P2P-MPI 3.2): reserve slots on candidate daemons, nearest
 * first, until the job fits, plus FT_PEER_OVERBOOK more hosts; place
 * the processes; cancel the reservations that placement leaves unused.
 * A submitter's daemon does it for ALLOC (ft__peer_alloc_serve, the
 * candidates being itself and its peer cache, then the supernode's
 * peers); ftrun --host does it on the hosts named
 * (ft_peer_reserve_hosts).
 */
#include <stdio.h>
#include <stdlib.h>

#include "peer.h"

struct cand {
	char		addr[FT_WIRE_ADDR_MAX];
	uint64_t	rtt_us;		/* from the cache, 0 unknown */
	uint32_t	want;		/* 0: the whole job */
};

struct pool {
	struct cand	*c;
	size_t		 n, cap;
};

/* What the reservations gave so far. */
struct got {
	struct ft_grant	*g;
	size_t		 n, cap;
	uint64_t	 sum;
	size_t		 sat;		/* grants held when it first fit */
	size_t		 refused, failed;
	char		 notes[FT_WIRE_TEXT_MAX];
	size_t		 notes_off;
};

static int
pool_add(struct pool *p, const char *addr, uint64_t rtt_us, uint32_t want)
{
	struct cand *nc;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->c[i].addr, addr) == 0)
			return 0;
	if ((nc = ft_grow(p->c, &p->cap, p->n, sizeof(*p->c))) == NULL)
		return -1;
	p->c = nc;
	memset(&nc[p->n], 0, sizeof(nc[p->n]));
	snprintf(nc[p->n].addr, sizeof(nc[p->n].addr), "%s", addr);
	nc[p->n].rtt_us = rtt_us;
	nc[p->n].want = want;
	p->n++;
	return 0;
}

static size_t
distinct_hosts(const struct got *got)
{
	size_t i, j, n = 0;

	for (i = 0; i < got->n; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(got->g[i].host, got->g[j].host) == 0)
				break;
		n += j == i;
	}
	return n;
}

/* Has the job enough, overbooking included? */
static int
enough(struct got *got, uint64_t need, uint32_t nrep, enum ft_alloc mode)
{
	if (got->sat == 0 && got->sum >= need &&
	    (mode == FT_ALLOC_SPREAD ? got->n >= need :
	    distinct_hosts(got) >= nrep))
		got->sat = got->n;
	return got->sat != 0 && got->n >= got->sat + FT_PEER_OVERBOOK;
}

/* Reserve on the candidates from *next on until the job fits. */
static int
reserve_loop(const struct pool *p, size_t *next, struct got *got,
    const uint8_t *key, uint8_t role, uint64_t need, uint32_t nrep,
    enum ft_alloc mode)
{
	char why[FT_WIRE_TEXT_MAX];
	struct ft_grant g, *ng;
	uint32_t want;
	int rc;

	for (; *next < p->n && !enough(got, need, nrep, mode); (*next)++) {
		const struct cand *c = &p->c[*next];

		want = c->want != 0 ? c->want : need > FT_PEER_SLOTS_MAX ?
		    FT_PEER_SLOTS_MAX : (uint32_t)need;
		rc = ft_peer_reserve(c->addr, key, role, want, &g, why,
		    sizeof(why));
		if (rc == FT_BOOT_OK) {
			if ((ng = ft_grow(got->g, &got->cap, got->n,
			    sizeof(*got->g))) == NULL) {
				ft_peer_release(key, &g, 1);
				return -1;
			}
			got->g = ng;
			if (c->rtt_us != 0)
				g.rtt_us = c->rtt_us;
			got->g[got->n++] = g;
			got->sum += g.slots;
			continue;
		}
		if (rc < 0)
			got->failed++;
		else
			got->refused++;
		ft_appendf(got->notes, sizeof(got->notes), &got->notes_off,
		    "%s%s", got->notes_off > 0 ? "; " : "", why);
	}
	return 0;
}

static void
cancel_all(const uint8_t *key, uint8_t role, const struct ft_grant *g,
    size_t n)
{
	char why[FT_WIRE_TEXT_MAX];
	size_t i;

	for (i = 0; i < n; i++)
		if (ft_peer_cancel(g[i].addr, key, role, g[i].token, why,
		    sizeof(why)) != 0)
			ft_warnx("cancelling a reservation: %s", why);
}

/*
 * The job fits or not: place it, cancel what placement does not use
 * and hand the rest over in *out (heap); or cancel everything and say
 * what was missing.  Returns FT_BOOT_OK or FT_BOOT_SHORT, -1 ENOMEM.
 */
static int
conclude(struct got *got, const uint8_t *key, uint8_t role, uint32_t nranks,
    uint32_t nrep, enum ft_alloc mode, struct ft_grant **out, size_t *nout,
    char *why, size_t whysize)
{
	uint64_t need = (uint64_t)nranks * nrep;
	uint32_t *of = NULL, *count = NULL;
	struct ft_grant *keep = NULL;
	char warn[FT_WIRE_TEXT_MAX];
	size_t i, n = 0, off = 0;

	*out = NULL;
	*nout = 0;
	if (got->sum < need) {
		ft_appendf(why, whysize, &off, "asked for %llu slots, found "
		    "%llu on %zu peer%s", (unsigned long long)need,
		    (unsigned long long)got->sum, got->n, got->n == 1 ? "" :
		    "s");
		if (got->refused > 0 || got->failed > 0)
			ft_appendf(why, whysize, &off, "; %zu refused, %zu "
			    "unreachable: %s", got->refused, got->failed,
			    got->notes);
		cancel_all(key, role, got->g, got->n);
		return FT_BOOT_SHORT;
	}
	of = calloc((size_t)need, sizeof(*of));
	count = calloc(got->n, sizeof(*count));
	keep = calloc(got->n, sizeof(*keep));
	if (of == NULL || count == NULL || keep == NULL ||
	    ft_alloc_place(got->g, got->n, nranks, nrep, mode, of, warn,
	    sizeof(warn)) < 0) {
		free(of);
		free(count);
		free(keep);
		cancel_all(key, role, got->g, got->n);
		snprintf(why, whysize, "placement failed: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < need; i++)
		count[of[i]]++;
	for (i = 0; i < got->n; i++) {
		if (count[i] == 0) {
			cancel_all(key, role, &got->g[i], 1);
			continue;
		}
		keep[n] = got->g[i];
		keep[n++].slots = count[i];
	}
	free(of);
	free(count);
	*out = keep;
	*nout = n;
	return FT_BOOT_OK;
}

int
ft__peer_alloc_serve(const struct ft__alloc_ctx *ctx,
    const struct ft_msg_boot_alloc *rq, struct ft_msg_boot_grants *out)
{
	struct ft_msg_boot_peers sp;
	struct ft_peer *cache = NULL;
	struct ft_grant *g = NULL;
	struct pool pool;
	struct got got;
	enum ft_alloc mode = rq->mode ? FT_ALLOC_CONCENTRATE : FT_ALLOC_SPREAD;
	uint64_t need = (uint64_t)rq->nranks * rq->nrep;
	char why[FT_WIRE_TEXT_MAX];
	size_t i, ncache = 0, next = 0, ng = 0;
	int rc = -1, asked = 0;

	memset(out, 0, sizeof(*out));
	memset(&pool, 0, sizeof(pool));
	memset(&got, 0, sizeof(got));
	if (ft_peer_cache_load(ctx->cache_path, &cache, &ncache, why,
	    sizeof(why)) != 0) {
		ft_warnx("%s; allocating without it", why);
		ncache = 0;
	}
	ft_peer_sort(cache, ncache);
	if (pool_add(&pool, ctx->self_addr, 0, 0) != 0)
		goto out;
	for (i = 0; i < ncache; i++)
		if (pool_add(&pool, cache[i].addr, cache[i].rtt_us, 0) != 0)
			goto out;
	for (;;) {
		if (reserve_loop(&pool, &next, &got, ctx->key, FT_ROLE_DAEMON,
		    need, rq->nrep, mode) != 0)
			goto out;
		if (got.sum >= need && distinct_hosts(&got) >= rq->nrep)
			break;
		if (asked || ctx->supernode == NULL)
			break;
		/* The cache is short: ask the supernode for more peers. */
		asked = 1;
		if (ft_peer_register(ctx->supernode, ctx->key, ctx->reg, &sp,
		    why, sizeof(why)) != 0) {
			ft_warnx("allocation: asking the supernode: %s", why);
			break;
		}
		for (i = 0; i < sp.n; i++)
			if (strcmp(sp.p[i].addr, ctx->self_addr) != 0 &&
			    pool_add(&pool, sp.p[i].addr, 0, 0) != 0) {
				ft_msg_boot_peers_free(&sp);
				goto out;
			}
		ft_msg_boot_peers_free(&sp);
	}
	rc = conclude(&got, ctx->key, FT_ROLE_DAEMON, rq->nranks, rq->nrep,
	    mode, &g, &ng, out->why, sizeof(out->why));
	if (rc < 0) {
		out->status = FT_BOOT_FAILED;
		rc = 0;
		goto out;
	}
	out->status = (uint32_t)rc;
	rc = 0;
	if (out->status != FT_BOOT_OK)
		goto out;
	if ((out->g = calloc(ng, sizeof(*out->g))) == NULL) {
		cancel_all(ctx->key, FT_ROLE_DAEMON, g, ng);
		out->status = FT_BOOT_FAILED;
		snprintf(out->why, sizeof(out->why), "out of memory");
		goto out;
	}
	for (i = 0; i < ng; i++) {
		snprintf(out->g[i].addr, sizeof(out->g[i].addr), "%s",
		    g[i].addr);
		snprintf(out->g[i].host, sizeof(out->g[i].host), "%s",
		    g[i].host);
		out->g[i].slots = g[i].slots;
		out->g[i].rtt_us = g[i].rtt_us;
		memcpy(out->g[i].token, g[i].token, FT_PEER_TOKEN);
	}
	out->n = (uint32_t)ng;
out:
	free(g);
	free(got.g);
	free(pool.c);
	free(cache);
	return rc;
}

static int
take_grants(void *arg, const uint8_t *p, size_t len)
{
	return ft_msg_boot_grants_decode(p, len, arg);
}

int
ft_peer_allocate(const char *boot_addr, const uint8_t *key, uint32_t nranks,
    uint32_t nrep, enum ft_alloc mode, struct ft_grant **out, size_t *nout,
    char *why, size_t whysize)
{
	struct ft_msg_boot_alloc rq;
	struct ft_msg_boot_grants gr;
	struct ft_grant *g;
	struct ft_wbuf b;
	char vis[FT_WIRE_TEXT_MAX];
	uint32_t i;
	int rc;

	*out = NULL;
	*nout = 0;
	if (nranks == 0 || nrep == 0 ||
	    (uint64_t)nranks * nrep > FT_WIRE_MAX_RANKS) {
		snprintf(why, whysize, "%u ranks of %u replicas: not a job "
		    "size", nranks, nrep);
		errno = EINVAL;
		return -1;
	}
	rq.nranks = nranks;
	rq.nrep = nrep;
	rq.mode = mode == FT_ALLOC_CONCENTRATE;
	ft_wbuf_init(&b);
	rc = ft__peer_request(boot_addr, key, FT_ROLE_SUBMITTER, &b,
	    ft_msg_boot_alloc_encode(&b, 0, &rq), FT_MSG_BOOT_GRANTS,
	    FT_PEER_ALLOC_NS, take_grants, &gr, NULL, why, whysize);
	if (rc != 0)
		return -1;
	if (gr.status != FT_BOOT_OK) {
		snprintf(why, whysize, "%s", ft_vis(vis, sizeof(vis), gr.why));
		ft_msg_boot_grants_free(&gr);
		errno = gr.status == FT_BOOT_DENIED ? EACCES : ENOSPC;
		return -1;
	}
	if ((g = calloc(gr.n, sizeof(*g))) == NULL) {
		snprintf(why, whysize, "out of memory");
		ft_msg_boot_grants_free(&gr);
		return -1;
	}
	for (i = 0; i < gr.n; i++) {
		snprintf(g[i].addr, sizeof(g[i].addr), "%s", gr.g[i].addr);
		ft_vis(g[i].host, sizeof(g[i].host), gr.g[i].host);
		g[i].slots = gr.g[i].slots;
		g[i].rtt_us = gr.g[i].rtt_us;
		memcpy(g[i].token, gr.g[i].token, FT_PEER_TOKEN);
	}
	*out = g;
	*nout = gr.n;
	ft_msg_boot_grants_free(&gr);
	return 0;
}

int
ft_peer_reserve_hosts(const struct ft_hostspec *hs, size_t nhs,
    const uint8_t *key, uint32_t nranks, uint32_t nrep, enum ft_alloc mode,
    struct ft_grant **out, size_t *nout, char *why, size_t whysize)
{
	struct pool pool;
	struct got got;
	uint64_t need = (uint64_t)nranks * nrep;
	size_t i, next = 0;
	int rc = -1;

	*out = NULL;
	*nout = 0;
	if (nhs == 0 || nranks == 0 || nrep == 0 ||
	    need > FT_WIRE_MAX_RANKS) {
		snprintf(why, whysize, "no host, or not a job size");
		errno = EINVAL;
		return -1;
	}
	memset(&pool, 0, sizeof(pool));
	memset(&got, 0, sizeof(got));
	for (i = 0; i < nhs; i++)
		if (pool_add(&pool, hs[i].addr, 0, hs[i].slots) != 0)
			goto out;
	if (reserve_loop(&pool, &next, &got, key, FT_ROLE_SUBMITTER, need,
	    nrep, mode) != 0)
		goto out;
	rc = conclude(&got, key, FT_ROLE_SUBMITTER, nranks, nrep, mode, out,
	    nout, why, whysize);
	if (rc == FT_BOOT_SHORT) {
		errno = ENOSPC;
		rc = -1;
	}
out:
	free(got.g);
	free(pool.c);
	return rc;
}
