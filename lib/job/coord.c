/* SPDX-License-Identifier: ISC */
/* The launcher's side of --ft coord (coord.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

void
ft__coord_cut_put(struct ft__coord_cut *ring, uint64_t epoch, uint64_t out,
    uint64_t err)
{
	struct ft__coord_cut *c = &ring[epoch % FT__COORD_CUTS];

	c->epoch = epoch;
	c->out = out;
	c->err = err;
}

int
ft__coord_cut_get(const struct ft__coord_cut *ring, uint64_t epoch,
    uint64_t *out, uint64_t *err)
{
	const struct ft__coord_cut *c = &ring[epoch % FT__COORD_CUTS];

	if (epoch == 0) {
		*out = *err = 0;
		return 0;
	}
	if (c->epoch != epoch)
		return -1;
	*out = c->out;
	*err = c->err;
	return 0;
}
