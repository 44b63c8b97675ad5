/* SPDX-License-Identifier: ISC */
/*
 * What the simulated engines of the protocol tests share (test_seam.c,
 * test_vlog.c): a small generator, a hash to fold outcomes with, the
 * first failure of a run, and the FIFOs of a channel.  Include it after
 * defining struct item (with next and frame); fail() wants a struct sim
 * with err.
 */
#ifndef FT_TEST_SIM_H
#define FT_TEST_SIM_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct fifo {
	struct item	*head, *tail;
};

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The first failure of a run, in err: fail(S, fmt, ...). */
static void
sim_fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

#define fail(S, ...)	sim_fail((S)->err, sizeof((S)->err), __VA_ARGS__)

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static void
fifo_push(struct fifo *f, struct item *it)
{
	it->next = NULL;
	if (f->tail != NULL)
		f->tail->next = it;
	else
		f->head = it;
	f->tail = it;
}

static struct item *
fifo_pop(struct fifo *f)
{
	struct item *it = f->head;

	if (it != NULL && (f->head = it->next) == NULL)
		f->tail = NULL;
	return it;
}

static void
item_free(struct item *it)
{
	free(it->frame);
	free(it);
}

#endif
