/* SPDX-License-Identifier: ISC */
/*
 * inter_coll: every blocking collective on intercommunicators, with
 * the meaning MPI-2 gave them, for every layout of tests/mpi/inter.h
 * (equal and unequal groups, groups of one).  The rooted ones (bcast,
 * gather, gatherv, scatter, scatterv, reduce) run with the root in
 * either group, first or last there: the root passes MPI_ROOT, the
 * rest of its group MPI_PROC_NULL with NULL buffers (nothing of theirs
 * is touched), the other group the root's rank.  In the others each
 * group gets the other's data: allgather (each group sending a
 * different count), allgatherv, alltoall (also one way only),
 * alltoallv, alltoallw, allreduce and reduce with a commutative sum
 * and a non-commutative operation (the other group's contributions in
 * rank order), reduce_scatter_block and reduce_scatter with uneven
 * counts, some 0, and barriers in between.  Messages long enough for a
 * rendezvous, and a derived datatype at the root, are covered too.
 */

#define NAME	"inter_coll"
#include "inter.h"

#define C	3		/* elements a rank, where fixed */
#define SENT	(-1)		/* sentinel in buffers */

static MPI_Op	noncomm;	/* cat_op */

/* A value only rank i of group g sends to remote rank j, element k. */
static int
enc(int g, int i, int j, int k)
{
	return g * 1000000 + i * 10000 + j * 100 + k;
}

/*
 * Concatenate decimal numbers: inout = in then inout, so that ranks
 * 1, 2, 3 give 123 in rank order only.
 */
static void
cat_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
	long long	*a = in, *b = inout, p;
	int		 i;

	(void)type;
	for (i = 0; i < *len; i++) {
		for (p = 10; p <= b[i]; p *= 10)
			continue;
		b[i] = a[i] * p + b[i];
	}
}

/* 12...n */
static long long
digits(int n)
{
	long long	v = 0;
	int		i;

	for (i = 1; i <= n; i++)
		v = v * 10 + i;
	return v;
}

/* The root argument of group rg's rank ri, for this rank. */
static int
root_arg(int rg, int ri)
{
	if (grp != rg)
		return ri;
	return me == ri ? MPI_ROOT : MPI_PROC_NULL;
}

static int *
ints(int n, int v)
{
	int	*p = xzalloc(n * sizeof(int)), i;

	for (i = 0; i < n; i++)
		p[i] = v;
	return p;
}

static void
bcast(MPI_Comm inter, int rg, int ri, int count)
{
	int	root = root_arg(rg, ri), *buf = NULL, k;

	if (root == MPI_PROC_NULL) {
		ok(MPI_Bcast(NULL, count, MPI_INT, root, inter), "Bcast");
		return;
	}
	buf = ints(count, SENT);
	if (root == MPI_ROOT)
		for (k = 0; k < count; k++)
			buf[k] = enc(rg, ri, 0, k);
	ok(MPI_Bcast(buf, count, MPI_INT, root, inter), "Bcast");
	for (k = 0; k < count; k++)
		if (buf[k] != enc(rg, ri, 0, k)) {
			fail("layout %d: Bcast of %d from %d/%d: [%d] = %d", l,
			    count, rg, ri, k, buf[k]);
			break;
		}
	free(buf);
}

static void
gather(MPI_Comm inter, int rg, int ri)
{
	MPI_Datatype	blk;
	int		root = root_arg(rg, ri), *buf, i, k, cnt;

	if (root == MPI_PROC_NULL) {
		ok(MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, inter),
		    "Gather");
		ok(MPI_Gatherv(NULL, 0, MPI_INT, NULL, NULL, NULL, MPI_INT,
		    root, inter), "Gatherv");
		return;
	}
	if (root != MPI_ROOT) {
		buf = ints(C, 0);
		for (k = 0; k < C; k++)
			buf[k] = enc(grp, me, 0, k);
		ok(MPI_Gather(buf, C, MPI_INT, NULL, 0, MPI_INT, root, inter),
		    "Gather");
		ok(MPI_Gatherv(buf, me % 3, MPI_INT, NULL, NULL, NULL,
		    MPI_INT, root, inter), "Gatherv");
		free(buf);
		return;
	}
	/* At the root, each block received as one derived element. */
	MPI_Type_contiguous(C, MPI_INT, &blk);
	MPI_Type_commit(&blk);
	buf = ints(rs * C, SENT);
	ok(MPI_Gather(NULL, 0, MPI_INT, buf, 1, blk, root, inter), "Gather");
	for (i = 0; i < rs; i++)
		for (k = 0; k < C; k++)
			if (buf[i * C + k] != enc(1 - rg, i, 0, k))
				fail("layout %d: Gather from %d: [%d] = %d", l,
				    i, k, buf[i * C + k]);
	MPI_Type_free(&blk);
	free(buf);
	{
		int	*cnts = ints(rs, 0), *displs = ints(rs, 0), *g;

		/* Remote rank i's block, of i % 3, in reverse order. */
		g = ints(4 * rs, SENT);
		for (i = 0; i < rs; i++) {
			cnts[i] = i % 3;
			displs[i] = 4 * (rs - 1 - i);
		}
		ok(MPI_Gatherv(NULL, 0, MPI_INT, g, cnts, displs, MPI_INT,
		    root, inter), "Gatherv");
		for (i = 0; i < rs; i++)
			for (k = 0; k < 4; k++) {
				cnt = g[displs[i] + k];
				if (cnt != (k < i % 3 ? enc(1 - rg, i, 0, k) :
				    SENT))
					fail("layout %d: Gatherv from %d: [%d] "
					    "= %d", l, i, k, cnt);
			}
		free(cnts);
		free(displs);
		free(g);
	}
}

static void
scatter(MPI_Comm inter, int rg, int ri)
{
	int	root = root_arg(rg, ri), *buf, *cnts, *displs, i, k;

	if (root == MPI_PROC_NULL) {
		ok(MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root,
		    inter), "Scatter");
		ok(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, NULL, 0, MPI_INT,
		    root, inter), "Scatterv");
		return;
	}
	if (root != MPI_ROOT) {
		buf = ints(4, SENT);
		ok(MPI_Scatter(NULL, 0, MPI_INT, buf, C, MPI_INT, root, inter),
		    "Scatter");
		for (k = 0; k < C; k++)
			if (buf[k] != enc(rg, ri, me, k))
				fail("layout %d: Scatter: [%d] = %d", l, k,
				    buf[k]);
		if (buf[C] != SENT)
			fail("layout %d: Scatter wrote past the block", l);
		free(buf);
		buf = ints(4, SENT);
		ok(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, buf, me % 3, MPI_INT,
		    root, inter), "Scatterv");
		for (k = 0; k < 4; k++)
			if (buf[k] != (k < me % 3 ? enc(rg, ri, me, k) : SENT))
				fail("layout %d: Scatterv: [%d] = %d", l, k,
				    buf[k]);
		free(buf);
		return;
	}
	buf = ints(rs * C, 0);
	for (i = 0; i < rs; i++)
		for (k = 0; k < C; k++)
			buf[i * C + k] = enc(rg, ri, i, k);
	ok(MPI_Scatter(buf, C, MPI_INT, NULL, 0, MPI_INT, root, inter),
	    "Scatter");
	free(buf);
	buf = ints(4 * rs, SENT);
	cnts = ints(rs, 0);
	displs = ints(rs, 0);
	for (i = 0; i < rs; i++) {
		cnts[i] = i % 3;
		displs[i] = 4 * (rs - 1 - i);
		for (k = 0; k < cnts[i]; k++)
			buf[displs[i] + k] = enc(rg, ri, i, k);
	}
	ok(MPI_Scatterv(buf, cnts, displs, MPI_INT, NULL, 0, MPI_INT, root,
	    inter), "Scatterv");
	free(buf);
	free(cnts);
	free(displs);
}

static void
reduce(MPI_Comm inter, int rg, int ri, MPI_Op cat)
{
	int		root = root_arg(rg, ri), v[C], sum[C], k;
	long long	d = me + 1, r = -1;

	for (k = 0; k < C; k++) {
		v[k] = me * 10 + k + 1;
		sum[k] = SENT;
	}
	if (root == MPI_PROC_NULL) {
		ok(MPI_Reduce(NULL, NULL, C, MPI_INT, MPI_SUM, root, inter),
		    "Reduce");
		ok(MPI_Reduce(NULL, NULL, 1, MPI_LONG_LONG, cat, root, inter),
		    "Reduce");
		return;
	}
	ok(MPI_Reduce(v, root == MPI_ROOT ? sum : NULL, C, MPI_INT, MPI_SUM,
	    root, inter), "Reduce");
	ok(MPI_Reduce(&d, root == MPI_ROOT ? &r : NULL, 1, MPI_LONG_LONG, cat,
	    root, inter), "Reduce");
	if (root != MPI_ROOT)
		return;
	for (k = 0; k < C; k++)
		if (sum[k] != 10 * rs * (rs - 1) / 2 + rs * (k + 1))
			fail("layout %d: Reduce sum [%d] = %d", l, k, sum[k]);
	if (r != digits(rs))
		fail("layout %d: Reduce in rank order gives %lld", l, r);
}

static void
rooted(MPI_Comm inter, MPI_Op cat)
{
	int	rg, last, ri;

	for (rg = 0; rg < 2; rg++)
		for (last = 0; last < 2; last++) {
			ri = last ? group_size(l, rg) - 1 : 0;
			bcast(inter, rg, ri, 0);
			bcast(inter, rg, ri, C);
			bcast(inter, rg, ri, 70000);
			gather(inter, rg, ri);
			MPI_Barrier(inter);
			scatter(inter, rg, ri);
			reduce(inter, rg, ri, cat);
		}
}

static void
allgather(MPI_Comm inter)
{
	int	sc = grp + 1, rc = 2 - grp, *s = ints(2, 0), *r, i, k;
	int	*cnts, *displs;

	/* Group 0 sends one int a rank, group 1 two. */
	s[0] = myrank;
	s[1] = enc(grp, me, 0, 1);
	r = ints(rs * rc, SENT);
	ok(MPI_Allgather(s, sc, MPI_INT, r, rc, MPI_INT, inter), "Allgather");
	for (i = 0; i < rs; i++) {
		if (r[i * rc] != world_of(l, 1 - grp, i))
			fail("layout %d: Allgather from %d: %d", l, i,
			    r[i * rc]);
		if (rc == 2 && r[i * rc + 1] != enc(1 - grp, i, 0, 1))
			fail("layout %d: Allgather from %d: %d", l, i,
			    r[i * rc + 1]);
	}
	free(r);
	/* Remote rank i sends i % 3 + 1, in reverse order with gaps. */
	r = ints(4 * rs, SENT);
	cnts = ints(rs, 0);
	displs = ints(rs, 0);
	for (i = 0; i < rs; i++) {
		cnts[i] = i % 3 + 1;
		displs[i] = 4 * (rs - 1 - i);
	}
	{
		int	big[3] = { myrank, myrank, myrank };

		ok(MPI_Allgatherv(big, me % 3 + 1, MPI_INT, r, cnts, displs,
		    MPI_INT, inter), "Allgatherv");
	}
	for (i = 0; i < rs; i++)
		for (k = 0; k < 4; k++)
			if (r[displs[i] + k] != (k < cnts[i] ?
			    world_of(l, 1 - grp, i) : SENT))
				fail("layout %d: Allgatherv from %d: [%d] = %d",
				    l, i, k, r[displs[i] + k]);
	free(s);
	free(r);
	free(cnts);
	free(displs);
}

static void
alltoall(MPI_Comm inter)
{
	MPI_Datatype	*types;
	int		*s, *r, *sc, *sd, *rc, *rd, i, k, n;

	s = ints(rs * 2, 0);
	r = ints(ls * 2 + rs * 2, SENT);
	for (i = 0; i < rs; i++)
		for (k = 0; k < 2; k++)
			s[i * 2 + k] = enc(grp, me, i, k);
	ok(MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, inter), "Alltoall");
	for (i = 0; i < rs; i++)
		for (k = 0; k < 2; k++)
			if (r[i * 2 + k] != enc(1 - grp, i, me, k))
				fail("layout %d: Alltoall from %d: [%d] = %d",
				    l, i, k, r[i * 2 + k]);
	/* One way only: group 0 sends, group 1 receives. */
	for (i = 0; i < rs * 2; i++)
		r[i] = SENT;
	ok(MPI_Alltoall(s, grp == 0 ? 2 : 0, MPI_INT, r, grp == 0 ? 0 : 2,
	    MPI_INT, inter), "Alltoall one way");
	for (i = 0; i < rs; i++)
		for (k = 0; k < 2; k++)
			if (r[i * 2 + k] != (grp == 1 ?
			    enc(0, i, me, k) : SENT))
				fail("layout %d: one-way Alltoall from %d: "
				    "[%d] = %d", l, i, k, r[i * 2 + k]);
	free(s);
	free(r);

	/* Rank i to remote rank j: (i + j) % 3 ints, reverse with gaps. */
	sc = ints(rs, 0);
	sd = ints(rs, 0);
	rc = ints(rs, 0);
	rd = ints(rs, 0);
	types = xzalloc(rs * sizeof(*types));
	s = ints(rs * 3, 0);
	r = ints(rs * 4, SENT);
	for (i = n = 0; i < rs; i++) {
		sc[i] = rc[i] = (me + i) % 3;
		sd[i] = n;
		rd[i] = 4 * (rs - 1 - i);
		for (k = 0; k < sc[i]; k++)
			s[n++] = enc(grp, me, i, k);
		types[i] = MPI_INT;
	}
	ok(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, inter),
	    "Alltoallv");
	for (i = 0; i < rs; i++)
		for (k = 0; k < 4; k++)
			if (r[rd[i] + k] != (k < rc[i] ?
			    enc(1 - grp, i, me, k) : SENT))
				fail("layout %d: Alltoallv from %d: [%d] = %d",
				    l, i, k, r[rd[i] + k]);
	/* The same with byte displacements. */
	for (i = 0; i < rs * 4; i++)
		r[i] = SENT;
	for (i = 0; i < rs; i++) {
		sd[i] *= sizeof(int);
		rd[i] *= sizeof(int);
	}
	ok(MPI_Alltoallw(s, sc, sd, types, r, rc, rd, types, inter),
	    "Alltoallw");
	for (i = 0; i < rs; i++)
		for (k = 0; k < 4; k++)
			if (r[rd[i] / sizeof(int) + k] != (k < rc[i] ?
			    enc(1 - grp, i, me, k) : SENT))
				fail("layout %d: Alltoallw from %d: [%d] = %d",
				    l, i, k, r[rd[i] / sizeof(int) + k]);
	free(s);
	free(r);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(types);
}

static void
allreduce(MPI_Comm inter, MPI_Op cat)
{
	long long	d = me + 1, got = -1;
	int		v[C], r[C], want, i, k;

	for (k = 0; k < C; k++)
		v[k] = myrank * 3 + k;
	ok(MPI_Allreduce(v, r, C, MPI_INT, MPI_SUM, inter), "Allreduce");
	for (k = 0; k < C; k++) {
		for (i = want = 0; i < rs; i++)
			want += world_of(l, 1 - grp, i) * 3 + k;
		if (r[k] != want)
			fail("layout %d: Allreduce [%d] = %d, expected %d", l,
			    k, r[k], want);
	}
	ok(MPI_Allreduce(&d, &got, 1, MPI_LONG_LONG, cat, inter),
	    "Allreduce");
	if (got != digits(rs))
		fail("layout %d: Allreduce in rank order gives %lld", l, got);
	/* Long enough for a rendezvous between the leaders. */
	{
		int	*big = ints(50000, myrank), *res = ints(50000, 0);

		ok(MPI_Allreduce(big, res, 50000, MPI_INT, MPI_MAX, inter),
		    "Allreduce");
		for (i = want = 0; i < rs; i++)
			if (world_of(l, 1 - grp, i) > want)
				want = world_of(l, 1 - grp, i);
		if (res[0] != want || res[49999] != want)
			fail("layout %d: Allreduce max %d, expected %d", l,
			    res[0], want);
		free(big);
		free(res);
	}
}

static void
reduce_scatter(MPI_Comm inter)
{
	int	t = ls * rs, *v = ints(t, 0), *r = ints(t + 1, SENT);
	int	*cnts = ints(ls, 0), i, k, rem, off;

	/*
	 * Both groups reduce vectors of ls * rs; block of rs a rank here
	 * (the other group's of ls), element k is the sum of (i + 1) *
	 * (k + 1) over the other group's ranks i.
	 */
	for (k = 0; k < t; k++)
		v[k] = (me + 1) * (k + 1);
	ok(MPI_Reduce_scatter_block(v, r, rs, MPI_INT, MPI_SUM, inter),
	    "Reduce_scatter_block");
	for (k = 0; k < rs; k++)
		if (r[k] != (me * rs + k + 1) * rs * (rs + 1) / 2)
			fail("layout %d: Reduce_scatter_block [%d] = %d", l, k,
			    r[k]);
	if (r[rs] != SENT)
		fail("layout %d: Reduce_scatter_block wrote past its block",
		    l);
	/* Uneven: even ranks take 2 * rs, odd ones none, the last the rest. */
	for (i = 0, rem = t; i < ls; i++) {
		cnts[i] = i % 2 == 0 ? 2 * rs : 0;
		if (cnts[i] > rem || i == ls - 1)
			cnts[i] = rem;
		rem -= cnts[i];
	}
	for (k = 0; k <= t; k++)
		r[k] = SENT;
	ok(MPI_Reduce_scatter(v, r, cnts, MPI_INT, MPI_SUM, inter),
	    "Reduce_scatter");
	for (i = off = 0; i < me; i++)
		off += cnts[i];
	for (k = 0; k <= cnts[me]; k++)
		if (r[k] != (k < cnts[me] ? (off + k + 1) * rs * (rs + 1) / 2 :
		    SENT))
			fail("layout %d: Reduce_scatter [%d] = %d", l, k, r[k]);
	free(v);
	free(r);
	free(cnts);
}

static void
all(MPI_Comm inter)
{
	MPI_Barrier(inter);
	rooted(inter, noncomm);
	allgather(inter);
	MPI_Barrier(inter);
	alltoall(inter);
	allreduce(inter, noncomm);
	reduce_scatter(inter);
	MPI_Barrier(inter);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	MPI_Op_create(cat_op, 0, &noncomm);
	each_layout(-1, all);
	MPI_Op_free(&noncomm);
	return finish();
}
