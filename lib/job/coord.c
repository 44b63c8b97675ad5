/* SPDX-License-Identifier: ISC */
/* The launcher's side of --ft coord (coord.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

#include "coord.h"

int
ft__coord_note_parse(const char *text, uint64_t *epoch, int *cut,
    int *durable)
{
	char word[16];
	uint64_t e;
	int v, len = 0;

	if (strncmp(text, "epoch=", 6) != 0 || text[6] < '0' || text[6] > '9')
		return -1;
	if (sscanf(text, "epoch=%" SCNu64 " %15[a-z]=%d%n", &e, word, &v,
	    &len) != 3 || text[len] != '\0' || e == 0 || (v != 0 && v != 1))
		return -1;
	if (strcmp(word, "cut") == 0 && v == 1) {
		*cut = 1;
		*durable = 0;
	} else if (strcmp(word, "durable") == 0) {
		*cut = 0;
		*durable = v;
	} else
		return -1;
	*epoch = e;
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
	c->v[c->n++] = (struct ft__coord_cut){ epoch, out, err, 0 };
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

static int
has_durable(const struct ft__coord_cuts *c, uint64_t epoch)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].epoch == epoch)
			return c->v[i].durable;
	return 0;
}

uint64_t
ft__coord_complete(struct ft__coord_cuts *const *ranks, size_t n,
    uint64_t floor)
{
	const struct ft__coord_cuts *c0;
	size_t i, k;

	if (n == 0)
		return floor;
	c0 = ranks[0];
	for (i = c0->n; i > 0; i--) {
		if (c0->v[i - 1].epoch <= floor)
			break;
		if (!c0->v[i - 1].durable)
			continue;
		for (k = 1; k < n; k++)
			if (!has_durable(ranks[k], c0->v[i - 1].epoch))
				break;
		if (k == n)
			return c0->v[i - 1].epoch;
	}
	return floor;
}
