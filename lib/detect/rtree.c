/* SPDX-License-Identifier: ISC */
/*
 * The radix tree of the membership view: computed by every member from
 * the list of live ids alone, so a view change needs no messages to
 * rebuild it.  Position p in the sorted live list; the root is position
 * 0, and the parent of p > 0 is p with its lowest nonzero digit in base a
 * (the fanout, a power of two) cleared.  Depth is ceil(log_a n).
 */
#include "detect.h"

/* Position of id in the sorted list live, or -1. */
static int64_t
position(const uint32_t *live, uint32_t nlive, uint32_t id)
{
	uint32_t lo = 0, hi = nlive, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (live[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nlive && live[lo] == id ? (int64_t)lo : -1;
}

int
ft_rtree_fanout_ok(uint32_t a)
{
	return a >= 2 && a <= 256 && (a & (a - 1)) == 0;
}

int
ft_rtree_parent(const uint32_t *live, uint32_t nlive, uint32_t fanout,
    uint32_t id, uint32_t *parent)
{
	uint64_t p, unit;
	int64_t pos;

	if (!ft_rtree_fanout_ok(fanout) ||
	    (pos = position(live, nlive, id)) < 0) {
		errno = ft_rtree_fanout_ok(fanout) ? ENOENT : EINVAL;
		return -1;
	}
	if (pos == 0)
		return 1;
	p = (uint64_t)pos;
	for (unit = 1; (p / unit) % fanout == 0; unit *= fanout)
		continue;
	*parent = live[p - ((p / unit) % fanout) * unit];
	return 0;
}

uint32_t
ft_rtree_children(const uint32_t *live, uint32_t nlive, uint32_t fanout,
    uint32_t id, uint32_t *kids)
{
	uint64_t p, unit, top, c;
	uint32_t j, k = 0;
	int64_t pos;

	if (!ft_rtree_fanout_ok(fanout) ||
	    (pos = position(live, nlive, id)) < 0)
		return 0;
	p = (uint64_t)pos;
	/* Below p's lowest nonzero digit; every level for the root. */
	if (p == 0)
		for (top = 1; top < nlive; top *= fanout)
			continue;
	else
		for (top = 1; (p / top) % fanout == 0; top *= fanout)
			continue;
	/* Largest subtrees first: they take longest to reach. */
	for (unit = top / fanout; unit >= 1; unit /= fanout)
		for (j = 1; j < fanout; j++) {
			c = p + j * unit;
			if (c < nlive)
				kids[k++] = live[c];
		}
	return k;
}
