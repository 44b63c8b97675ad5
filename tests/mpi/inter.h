/* SPDX-License-Identifier: ISC */
/*
 * What the inter_*.c tests share on top of mtest.h: the ways they cut
 * MPI_COMM_WORLD into the two groups of an intercommunicator.  A test
 * defines NAME, then includes this.
 *
 * Layouts (every one leaves both groups non-empty from 2 ranks up):
 *   EVEN_ODD	group 0 the even world ranks, group 1 the odd ones
 *   ONE_REST	group 0 the last world rank alone, group 1 the rest
 *   THIRD_REV	group 0 the first third, group 1 the rest, each in the
 *		reverse order of world ranks
 */

#ifndef INTER_H
#define INTER_H

#include "mtest.h"

enum {
	EVEN_ODD,
	ONE_REST,
	THIRD_REV,
	NLAYOUTS,
};

/* Set by each_layout: the layout, this rank's group, rank and sizes. */
static int	l, grp, me, ls, rs;

/* The group of world rank r in layout lay, and its key there. */
static void
layout(int lay, int r, int *group, int *key)
{
	*key = r;
	switch (lay) {
	case EVEN_ODD:
		*group = r % 2;
		break;
	case ONE_REST:
		*group = r != nprocs - 1;
		break;
	default:
		*group = r >= (nprocs + 2) / 3;
		*key = -r;
	}
}

/* The size of group g in layout lay. */
static int
group_size(int lay, int g)
{
	int	r, gr, key, n = 0;

	for (r = 0; r < nprocs; r++) {
		layout(lay, r, &gr, &key);
		n += gr == g;
	}
	return n;
}

/* The world rank of rank i of group g in layout lay, or -1. */
static int
world_of(int lay, int g, int i)
{
	int	r, q, gr, key, kq, n;

	for (r = 0; r < nprocs; r++) {
		layout(lay, r, &gr, &key);
		if (gr != g)
			continue;
		/* Its rank: the members with a lower key come first. */
		for (q = n = 0; q < nprocs; q++) {
			layout(lay, q, &gr, &kq);
			n += gr == g && kq < key;
		}
		if (n == i)
			return r;
	}
	return -1;
}

/* This rank's rank in its group of layout lay. */
static int __attribute__((unused))
index_of(int lay)
{
	int	g, key, i;

	layout(lay, myrank, &g, &key);
	for (i = 0; world_of(lay, g, i) != myrank; i++)
		continue;
	return i;
}

/*
 * Make an intercommunicator of layout lay from MPI_COMM_WORLD: *local is
 * the caller's group, led by its first rank (or its last, when
 * last_leads), and the leaders meet on peer, which only they pass.
 * Returns the caller's group.
 */
static int __attribute__((unused))
make_inter(int lay, int last_leads, MPI_Comm peer, MPI_Comm *local,
    MPI_Comm *inter)
{
	int	g, key, lsize, rsize, leader, rleader, lrank;

	layout(lay, myrank, &g, &key);
	MPI_Comm_split(MPI_COMM_WORLD, g, key, local);
	MPI_Comm_rank(*local, &lrank);
	lsize = group_size(lay, g);
	rsize = group_size(lay, 1 - g);
	leader = last_leads ? lsize - 1 : 0;
	rleader = world_of(lay, 1 - g, last_leads ? rsize - 1 : 0);
	ok(MPI_Intercomm_create(*local, leader, lrank == leader ? peer :
	    MPI_COMM_NULL, rleader, 100 + lay, inter), "Intercomm_create");
	return g;
}

/*
 * Call fn with an intercommunicator of each layout in turn, made over
 * MPI_COMM_WORLD and led by the first rank of each group, or by the
 * last one in layout last (-1: none); l, grp, me, ls and rs say where
 * this rank is.  Nothing with fewer than 2 ranks.
 */
static void __attribute__((unused))
each_layout(int last, void (*fn)(MPI_Comm))
{
	MPI_Comm	local, inter;

	for (l = 0; l < NLAYOUTS && nprocs >= 2; l++) {
		grp = make_inter(l, l == last, MPI_COMM_WORLD, &local, &inter);
		me = index_of(l);
		ls = group_size(l, grp);
		rs = group_size(l, 1 - grp);
		fn(inter);
		MPI_Comm_free(&inter);
		MPI_Comm_free(&local);
	}
}

#endif
