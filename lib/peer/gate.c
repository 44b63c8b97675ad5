/* SPDX-License-Identifier: ISC */
/*
 * The gatekeeper of a daemon (P2P-MPI's reservation service): J places,
 * each free, reserved under a token until it expires, or a running job.
 * Tokens are compared in constant time.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "peer.h"

enum { E_FREE, E_RESERVED, E_RUNNING };

struct entry {
	int		state;
	uint8_t		token[FT_PEER_TOKEN];
	uint32_t	slots;
	uint64_t	expires;
};

struct ft_gate {
	struct ft_gate_cfg	 cfg;
	struct entry		*e;	/* cfg.jobs places */
};

static uint64_t
gate_now(const struct ft_gate *g)
{
	return g->cfg.now != NULL ? g->cfg.now(g->cfg.now_arg) : ft_now_ns();
}

struct ft_gate *
ft_gate_new(const struct ft_gate_cfg *cfg)
{
	struct ft_gate *g;

	if (cfg->slots == 0 || cfg->slots > FT_PEER_SLOTS_MAX ||
	    cfg->jobs == 0 || cfg->jobs > FT_PEER_JOBS_MAX || cfg->ttl_ns == 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->cfg = *cfg;
	if ((g->e = calloc(cfg->jobs, sizeof(*g->e))) == NULL) {
		free(g);
		return NULL;
	}
	return g;
}

void
ft_gate_free(struct ft_gate *g)
{
	if (g == NULL)
		return;
	sodium_memzero(g->e, g->cfg.jobs * sizeof(*g->e));
	free(g->e);
	free(g);
}

int
ft_gate_allowed(const struct ft_gate *g, const char *ip, char *why,
    size_t whysize)
{
	if (g->cfg.deny != NULL && ft_acl_match(g->cfg.deny, ip)) {
		snprintf(why, whysize, "submitter %s is on the deny list", ip);
		return 0;
	}
	if (g->cfg.allow != NULL && g->cfg.allow->n > 0 &&
	    !ft_acl_match(g->cfg.allow, ip)) {
		snprintf(why, whysize, "submitter %s is not on the allow list",
		    ip);
		return 0;
	}
	return 1;
}

size_t
ft_gate_expire(struct ft_gate *g, uint64_t *next)
{
	uint64_t now = gate_now(g);
	size_t i, n = 0;

	*next = 0;
	for (i = 0; i < g->cfg.jobs; i++) {
		if (g->e[i].state != E_RESERVED)
			continue;
		if (now >= g->e[i].expires) {
			sodium_memzero(&g->e[i], sizeof(g->e[i]));
			n++;
		} else if (*next == 0 || g->e[i].expires < *next)
			*next = g->e[i].expires;
	}
	return n;
}

int
ft_gate_reserve(struct ft_gate *g, uint32_t want, const char *ip,
    uint8_t token[FT_PEER_TOKEN], uint32_t *slots, char *why, size_t whysize)
{
	uint64_t next;
	uint32_t i, running = 0, reserved = 0;
	struct entry *free_e = NULL;

	*slots = 0;
	if (want == 0) {
		snprintf(why, whysize, "asked for 0 slots");
		return FT_BOOT_INVALID;
	}
	if (!ft_gate_allowed(g, ip, why, whysize))
		return FT_BOOT_DENIED;
	(void)ft_gate_expire(g, &next);
	for (i = 0; i < g->cfg.jobs; i++) {
		if (g->e[i].state == E_FREE && free_e == NULL)
			free_e = &g->e[i];
		running += g->e[i].state == E_RUNNING;
		reserved += g->e[i].state == E_RESERVED;
	}
	if (free_e == NULL) {
		snprintf(why, whysize, "busy: %u of J=%u jobs running, %u "
		    "reserved", running, g->cfg.jobs, reserved);
		return FT_BOOT_BUSY;
	}
	free_e->state = E_RESERVED;
	ft_random(free_e->token, FT_PEER_TOKEN);
	free_e->slots = want < g->cfg.slots ? want : g->cfg.slots;
	free_e->expires = gate_now(g) + g->cfg.ttl_ns;
	memcpy(token, free_e->token, FT_PEER_TOKEN);
	*slots = free_e->slots;
	return FT_BOOT_OK;
}

static struct entry *
find(struct ft_gate *g, const uint8_t token[FT_PEER_TOKEN])
{
	uint32_t i;

	for (i = 0; i < g->cfg.jobs; i++)
		if (g->e[i].state != E_FREE &&
		    sodium_memcmp(g->e[i].token, token, FT_PEER_TOKEN) == 0)
			return &g->e[i];
	return NULL;
}

int
ft_gate_cancel(struct ft_gate *g, const uint8_t token[FT_PEER_TOKEN])
{
	struct entry *e = find(g, token);

	if (e == NULL || e->state != E_RESERVED) {
		errno = ENOENT;
		return -1;
	}
	sodium_memzero(e, sizeof(*e));
	return 0;
}

int
ft_gate_claim(struct ft_gate *g, const uint8_t token[FT_PEER_TOKEN],
    uint32_t nprocs, const char *ip, char *why, size_t whysize)
{
	struct entry *e;
	uint64_t next;

	if (!ft_gate_allowed(g, ip, why, whysize)) {
		errno = EACCES;
		return -1;
	}
	(void)ft_gate_expire(g, &next);
	if ((e = find(g, token)) == NULL) {
		snprintf(why, whysize, "no such reservation (expired after "
		    "%llus, cancelled, or never made here)",
		    (unsigned long long)(g->cfg.ttl_ns / 1000000000u));
		errno = ENOENT;
		return -1;
	}
	if (e->state == E_RUNNING) {
		snprintf(why, whysize, "the reservation is already claimed by "
		    "a running job");
		errno = EBUSY;
		return -1;
	}
	if (nprocs == 0 || nprocs > e->slots) {
		snprintf(why, whysize, "%u processes asked, %u slots reserved",
		    nprocs, e->slots);
		errno = EINVAL;
		return -1;
	}
	e->state = E_RUNNING;
	e->expires = 0;
	return (int)(e - g->e);
}

void
ft_gate_job_done(struct ft_gate *g, int job)
{
	if (job < 0 || (uint32_t)job >= g->cfg.jobs ||
	    g->e[job].state != E_RUNNING)
		return;
	sodium_memzero(&g->e[job], sizeof(g->e[job]));
}

void
ft_gate_counts(const struct ft_gate *g, uint32_t *reserved, uint32_t *running)
{
	uint32_t i;

	*reserved = *running = 0;
	for (i = 0; i < g->cfg.jobs; i++) {
		*reserved += g->e[i].state == E_RESERVED;
		*running += g->e[i].state == E_RUNNING;
	}
}

uint64_t
ft_gate_ttl(const struct ft_gate *g)
{
	return g->cfg.ttl_ns;
}
