/* SPDX-License-Identifier: ISC */
/* The launcher's side of --ft coord (coord.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "coord.h"

int
ft__coord_note_parse(const char *text, uint64_t *epoch, int *kind,
    uint64_t *value)
{
	const char *w, *eq;
	char word[16], *end;
	uint64_t e, v;

	if (strncmp(text, "epoch=", 6) != 0 || text[6] < '0' || text[6] > '9')
		return -1;
	errno = 0;
	e = strtoull(text + 6, &end, 10);
	if (errno != 0 || *end != ' ' || e == 0)
		return -1;
	w = end + 1;
	if ((eq = strchr(w, '=')) == NULL || eq == w ||
	    (size_t)(eq - w) >= sizeof(word) || eq[1] < '0' || eq[1] > '9')
		return -1;
	memcpy(word, w, (size_t)(eq - w));
	word[eq - w] = '\0';
	v = strtoull(eq + 1, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	if (strcmp(word, "cut") == 0 && v == 1)
		*kind = FT__COORD_CUT;
	else if (strcmp(word, "durable") == 0 && v <= 1)
		*kind = FT__COORD_DURABLE;
	else if (strcmp(word, "call") == 0 && v >= 1)
		*kind = FT__COORD_CALL;
	else if (strcmp(word, "missed") == 0 && v == 1)
		*kind = FT__COORD_MISSED;
	else if (strcmp(word, "restored") == 0 && v >= 1)
		*kind = FT__COORD_RESTORED;
	else if (strcmp(word, "from") == 0 && v == 1)
		*kind = FT__COORD_FROM;
	else if (strcmp(word, "recv") == 0)
		*kind = FT__COORD_RECV;
	else if (strcmp(word, "sent") == 0)
		*kind = FT__COORD_SENT;
	else if (strcmp(word, "server") == 0 && v <= 1)
		*kind = FT__COORD_SERVER;
	else
		return -1;
	*epoch = e;
	*value = v;
	return 0;
}

int
ft__coord_cut_put(struct ft__coord_cuts *c, uint64_t epoch, uint64_t out,
    uint64_t err)
{
	struct ft__coord_cut *nv;

	while (c->n > 0 && c->v[c->n - 1].epoch >= epoch)
		c->n--;
	if ((nv = ft_grow(c->v, &c->cap, c->n, sizeof(*nv))) == NULL)
		return -1;
	c->v = nv;
	c->v[c->n++] = (struct ft__coord_cut){ epoch, out, err, 0, 0 };
	return 0;
}

int
ft__coord_cut_get(const struct ft__coord_cuts *c, uint64_t epoch,
    uint64_t *out, uint64_t *err)
{
	size_t i;

	if (epoch == 0) {
		*out = *err = 0;
		return 0;
	}
	for (i = 0; i < c->n; i++)
		if (c->v[i].epoch == epoch) {
			*out = c->v[i].out;
			*err = c->v[i].err;
			return 0;
		}
	return -1;
}

void
ft__coord_cut_forget(struct ft__coord_cuts *c, uint64_t epoch)
{
	size_t i = 0;

	while (i < c->n && c->v[i].epoch < epoch)
		i++;
	memmove(c->v, c->v + i, (c->n - i) * sizeof(*c->v));
	c->n -= i;
}

void
ft__coord_cut_truncate(struct ft__coord_cuts *c, uint64_t epoch)
{
	while (c->n > 0 && c->v[c->n - 1].epoch > epoch)
		c->n--;
}

void
ft__coord_cuts_free(struct ft__coord_cuts *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

int
ft__coord_cut_durable(struct ft__coord_cuts *c, uint64_t epoch)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].epoch == epoch) {
			c->v[i].durable = 1;
			return 0;
		}
	return -1;
}

/* Is rank c's image of epoch durable (local: written locally)? */
static int
has_image(const struct ft__coord_cuts *c, uint64_t epoch, int local)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].epoch == epoch)
			return c->v[i].durable || (local && c->v[i].local);
	return 0;
}

/* The newest epoch above floor every rank has (local: locally). */
static uint64_t
newest(struct ft__coord_cuts *const *ranks, size_t n, uint64_t floor,
    int local)
{
	const struct ft__coord_cuts *c0;
	size_t i, k;

	if (n == 0)
		return floor;
	c0 = ranks[0];
	for (i = c0->n; i > 0; i--) {
		if (c0->v[i - 1].epoch <= floor)
			break;
		if (!has_image(c0, c0->v[i - 1].epoch, local))
			continue;
		for (k = 1; k < n; k++)
			if (!has_image(ranks[k], c0->v[i - 1].epoch, local))
				break;
		if (k == n)
			return c0->v[i - 1].epoch;
	}
	return floor;
}

uint64_t
ft__coord_complete(struct ft__coord_cuts *const *ranks, size_t n,
    uint64_t floor)
{
	return newest(ranks, n, floor, 0);
}

/*
 * What is complete now, locally and in the store (from the local
 * copies once ftrun's server is down), and which push to ask for.
 */
static void
image_news(struct ft__coord *c, struct ft__coord_cuts *const *ranks,
    size_t n, uint64_t now, struct ft__coord_news *news)
{
	struct ft__coord_lc *nv;
	uint64_t e;
	size_t i;

	e = newest(ranks, n, c->local > c->complete ? c->local : c->complete,
	    1);
	if (e > c->local && e > c->complete) {
		c->local = e;
		news->local = e;
		if ((nv = ft_grow(c->lc, &c->caplc, c->nlc,
		    sizeof(*nv))) != NULL) {
			c->lc = nv;
			c->lc[c->nlc++] = (struct ft__coord_lc){ e, now };
		}
	}
	e = newest(ranks, n, c->complete, c->srvdown);
	if (e > c->complete) {
		c->complete = e;
		news->complete = e;
		news->lag_ms = -1.0;
		news->behind = c->local > e ? c->local - e : 0;
		/* From when it, or the first one after it, was local. */
		for (i = 0; i < c->nlc && c->lc[i].epoch < e; i++)
			;
		if (i < c->nlc)
			news->lag_ms = (double)(now - c->lc[i].ns) / 1e6;
		if (i < c->nlc && c->lc[i].epoch == e)
			i++;
		memmove(c->lc, c->lc + i, (c->nlc - i) * sizeof(*c->lc));
		c->nlc -= i;
		for (i = 0; i < n; i++)
			ft__coord_cut_forget(ranks[i], e);
	}
	if (c->pushing != 0 && (c->complete >= c->pushing || c->srvdown))
		c->pushing = 0;
	if (c->push && !c->srvdown && c->pushing == 0 &&
	    c->local > c->complete) {
		c->pushing = c->local;
		news->push = c->local;
	}
}

int
ft__coord_image(struct ft__coord *c, struct ft__coord_cuts *const *ranks,
    size_t n, uint32_t rank, uint64_t epoch, int durable, uint64_t now,
    struct ft__coord_news *news)
{
	struct ft__coord_cuts *r;
	size_t i;

	memset(news, 0, sizeof(*news));
	if (rank >= n)
		return -1;
	r = ranks[rank];
	for (i = 0; i < r->n; i++)
		if (r->v[i].epoch == epoch)
			break;
	if (i == r->n)
		return -1;
	r->v[i].local = 1;
	if (durable)
		r->v[i].durable = 1;
	image_news(c, ranks, n, now, news);
	return 0;
}

void
ft__coord_srv_down(struct ft__coord *c, struct ft__coord_cuts *const *ranks,
    size_t n, uint64_t now, struct ft__coord_news *news, int down)
{
	memset(news, 0, sizeof(*news));
	c->srvdown = down;
	image_news(c, ranks, n, now, news);
}

void
ft__coord_lc_free(struct ft__coord *c)
{
	free(c->lc);
	c->lc = NULL;
	c->nlc = c->caplc = 0;
}

int
ft__coord_sched_init(struct ft__coord *c, uint32_t nranks)
{
	if ((c->ans = calloc(nranks, sizeof(*c->ans))) == NULL)
		return -1;
	c->nranks = nranks;
	c->margin = 2;
	return 0;
}

void
ft__coord_sched_free(struct ft__coord *c)
{
	free(c->ans);
	c->ans = NULL;
	c->nranks = 0;
}

int
ft__coord_sched_tick(struct ft__coord *c, uint64_t now, int ok,
    uint64_t *epoch)
{
	uint32_t k;

	if (c->interval_ns == 0 || c->asking || c->rolling || c->ans == NULL)
		return 0;
	if (c->next_ns == 0)
		c->next_ns = now + c->interval_ns;
	if (!ok || now < c->next_ns)
		return 0;
	/* The last round went well: a narrower margin. */
	if (!c->lastmiss && c->margin > 2)
		c->margin /= 2;
	c->lastmiss = 0;
	c->asking = 1;
	c->nreplied = 0;
	for (k = 0; k < c->nranks; k++)
		c->ans[k].fresh = 0;
	*epoch = ++c->epoch;
	return 1;
}

int
ft__coord_sched_called(struct ft__coord *c, uint32_t rank, uint64_t epoch,
    uint64_t call, uint64_t now, uint64_t *at)
{
	struct ft__coord_ans *a;
	uint64_t max = 0, proj;
	double rate;
	uint32_t k;

	if (!c->asking || epoch != c->epoch || rank >= c->nranks ||
	    c->ans[rank].fresh)
		return 0;
	a = &c->ans[rank];
	a->pcall = a->call;
	a->pt = a->t;
	a->call = call;
	a->t = now;
	a->fresh = 1;
	if (++c->nreplied < c->nranks)
		return 0;
	c->asking = 0;
	c->next_ns = now + c->interval_ns;
	for (k = 0; k < c->nranks; k++) {
		a = &c->ans[k];
		proj = a->call;
		/* Its pace between the last two rounds, calls per ns, for
		 * twice the time since it answered (DUE must reach it). */
		if (a->pt != 0 && a->t > a->pt && a->call > a->pcall) {
			rate = (double)(a->call - a->pcall) /
			    (double)(a->t - a->pt);
			proj += (uint64_t)(rate * 2.0 * (double)(now - a->t +
			    1000000)) + 1;
		}
		if (proj > max)
			max = proj;
	}
	*at = max + c->margin;
	return 1;
}

int
ft__coord_sched_missed(struct ft__coord *c, uint64_t epoch, uint64_t now)
{
	if (epoch != c->epoch || c->asking)
		return 0;
	c->missed++;
	c->lastmiss = 1;
	if (c->margin < (UINT64_C(1) << 30))
		c->margin *= 2;
	c->next_ns = now;
	return 1;
}

int
ft__coord_sched_off(struct ft__coord *c)
{
	if (!c->asking)
		return 0;
	c->asking = 0;
	return 1;
}

uint64_t
ft__coord_sched_next(const struct ft__coord *c)
{
	uint64_t next = 0;

	if (c->interval_ns != 0 && !c->asking && !c->rolling &&
	    c->ans != NULL)
		next = c->next_ns;
	if (c->err_at != 0 && (next == 0 || c->err_at < next))
		next = c->err_at;
	return next;
}

void
ft__coord_sched_reset(struct ft__coord *c, uint64_t epoch)
{
	c->asking = 0;
	c->epoch = epoch;
	c->next_ns = 0;
	/* coordsrv: what was being pushed is gone with the generation. */
	c->pushing = 0;
	c->local = epoch;
	c->nlc = 0;
	/* A new generation: its pace is not known yet. */
	if (c->ans != NULL)
		memset(c->ans, 0, c->nranks * sizeof(*c->ans));
}

uint64_t
ft__coord_young(uint64_t cost_ns, uint64_t mtbf_ns)
{
	double t = sqrt(2.0 * (double)cost_ns * (double)mtbf_ns);

	if (t < (double)FT__COORD_AUTO_MIN_NS)
		return FT__COORD_AUTO_MIN_NS;
	if (t > (double)FT__COORD_AUTO_MAX_NS)
		return FT__COORD_AUTO_MAX_NS;
	return (uint64_t)t;
}

/* The interval for what is known at now. */
static void
auto_set(struct ft__coord *c, uint64_t now)
{
	uint64_t run = now > c->start_ns ? now - c->start_ns : 0;
	uint64_t mtbf = c->failures > 0 ? run / c->failures : run;

	if (!c->autoi)
		return;
	if (c->cost_ns != 0)
		c->interval_ns = ft__coord_young(c->cost_ns, mtbf);
	else if (c->failures > 0 && mtbf / 2 < c->interval_ns)
		/* No epoch complete yet between failures: try twice as
		 * often as they come. */
		c->interval_ns = mtbf / 2 > FT__COORD_AUTO_MIN_NS ?
		    mtbf / 2 : FT__COORD_AUTO_MIN_NS;
}

void
ft__coord_auto_init(struct ft__coord *c, uint64_t now)
{
	c->autoi = 1;
	c->start_ns = now;
	c->interval_ns = FT__COORD_AUTO_FIRST_NS;
}

void
ft__coord_auto_cut(struct ft__coord *c, uint64_t epoch, uint64_t now)
{
	/* The last rank's cut: the epoch's cost runs from there. */
	if (epoch >= c->cut_epoch) {
		c->cut_epoch = epoch;
		c->cut_ns = now;
	}
}

void
ft__coord_auto_complete(struct ft__coord *c, uint64_t epoch, uint64_t now)
{
	uint64_t cost;

	if (epoch != c->cut_epoch || now < c->cut_ns)
		return;
	cost = now - c->cut_ns;
	if (cost == 0)
		cost = 1;
	/* A running mean, the newest a quarter. */
	c->cost_ns = c->cost_ns == 0 ? cost : (3 * c->cost_ns + cost) / 4;
	auto_set(c, now);
}

void
ft__coord_auto_failed(struct ft__coord *c, uint64_t now)
{
	c->failures++;
	auto_set(c, now);
}
