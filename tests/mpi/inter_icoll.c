/* SPDX-License-Identifier: ISC */
/*
 * inter_icoll: the nonblocking collectives on intercommunicators, for
 * every layout of tests/mpi/inter.h.  Every MPI_I* form is started
 * before any completes, on one intercommunicator, with the rooted ones
 * rooted in each group in turn, then completed with MPI_Waitall in
 * reverse order; the results are those of the blocking forms.  Then
 * collectives on two intercommunicators over the same processes run
 * side by side, tested to completion one way and waited for the other,
 * and a blocking collective follows nonblocking ones still in flight.
 */

#define NAME	"inter_icoll"
#include "inter.h"

#define N	32		/* requests at most */

static int
wsum_other(void)
{
	int	i, s = 0;

	for (i = 0; i < rs; i++)
		s += world_of(l, 1 - grp, i);
	return s;
}

/* Waitall in reverse order. */
static void
wait_reverse(MPI_Request *req, int n)
{
	MPI_Request	rev[N];
	int		i;

	for (i = 0; i < n; i++)
		rev[i] = req[n - 1 - i];
	ok(MPI_Waitall(n, rev, MPI_STATUSES_IGNORE), "Waitall");
}

struct bufs {
	int	 bc[2], gat[2][8], gatv[2][8], sca[2], scv[2], red[2];
	int	*ag, *agv, *a2a, *a2av, *a2aw, *rsb, *rsv;
	int	 ar;
};

static void
all_at_once(MPI_Comm inter)
{
	MPI_Request	req[N];
	MPI_Datatype	types[8];
	struct bufs	b;
	int		n = 0, i, k, rg, root, want, one = 1;
	int		*cnt, *dsp, *wdsp, *lcnt, *s2a, *vec;

	memset(&b, 0xff, sizeof(b));
	b.ag = xzalloc(rs * sizeof(int));
	b.agv = xzalloc(rs * sizeof(int));
	b.a2a = xzalloc(rs * sizeof(int));
	b.a2av = xzalloc(rs * sizeof(int));
	b.a2aw = xzalloc(rs * sizeof(int));
	b.rsb = xzalloc(rs * sizeof(int));
	b.rsv = xzalloc(rs * sizeof(int));
	cnt = xzalloc(rs * sizeof(int));
	dsp = xzalloc(rs * sizeof(int));
	wdsp = xzalloc(rs * sizeof(int));
	s2a = xzalloc(rs * sizeof(int));
	lcnt = xzalloc(ls * sizeof(int));
	vec = xzalloc(ls * rs * sizeof(int));
	/* One int for each remote rank, block i at rs - 1 - i. */
	for (i = 0; i < rs; i++) {
		cnt[i] = 1;
		dsp[i] = rs - 1 - i;
		wdsp[i] = i * sizeof(int);
		types[i] = MPI_INT;
		s2a[i] = myrank * 100 + i;
	}
	for (i = 0; i < ls; i++)
		lcnt[i] = rs;
	for (k = 0; k < ls * rs; k++)
		vec[k] = k;
	/* The rooted ones, rooted at rank 0 of group 0, then of group 1. */
	for (rg = 0; rg < 2; rg++) {
		root = grp != rg ? 0 : me == 0 ? MPI_ROOT : MPI_PROC_NULL;
		b.bc[rg] = root == MPI_ROOT ? 4242 + rg : -1;
		MPI_Ibcast(&b.bc[rg], 1, MPI_INT, root, inter, &req[n++]);
		MPI_Igather(&myrank, 1, MPI_INT, b.gat[rg], 1, MPI_INT, root,
		    inter, &req[n++]);
		MPI_Igatherv(&myrank, 1, MPI_INT, b.gatv[rg], cnt, dsp, MPI_INT,
		    root, inter, &req[n++]);
		MPI_Iscatter(s2a, 1, MPI_INT, &b.sca[rg], 1, MPI_INT, root,
		    inter, &req[n++]);
		MPI_Iscatterv(s2a, cnt, dsp, MPI_INT, &b.scv[rg], 1, MPI_INT,
		    root, inter, &req[n++]);
		MPI_Ireduce(&one, &b.red[rg], 1, MPI_INT, MPI_SUM, root, inter,
		    &req[n++]);
	}
	MPI_Ibarrier(inter, &req[n++]);
	MPI_Iallgather(&myrank, 1, MPI_INT, b.ag, 1, MPI_INT, inter,
	    &req[n++]);
	MPI_Iallgatherv(&myrank, 1, MPI_INT, b.agv, cnt, dsp, MPI_INT, inter,
	    &req[n++]);
	MPI_Ialltoall(s2a, 1, MPI_INT, b.a2a, 1, MPI_INT, inter, &req[n++]);
	MPI_Ialltoallv(s2a, cnt, dsp, MPI_INT, b.a2av, cnt, dsp, MPI_INT,
	    inter, &req[n++]);
	MPI_Ialltoallw(s2a, cnt, wdsp, types, b.a2aw, cnt, wdsp, types, inter,
	    &req[n++]);
	MPI_Iallreduce(&myrank, &b.ar, 1, MPI_INT, MPI_SUM, inter, &req[n++]);
	MPI_Ireduce_scatter_block(vec, b.rsb, rs, MPI_INT, MPI_SUM, inter,
	    &req[n++]);
	MPI_Ireduce_scatter(vec, b.rsv, lcnt, MPI_INT, MPI_SUM, inter,
	    &req[n++]);
	wait_reverse(req, n);

	for (rg = 0; rg < 2; rg++) {
		if (grp == rg && me == 0) {
			for (i = 0; i < rs; i++)
				if (b.gat[rg][i] != world_of(l, 1 - grp, i) ||
				    b.gatv[rg][rs - 1 - i] !=
				    world_of(l, 1 - grp, i))
					fail("layout %d: Igather(v) from %d: "
					    "%d, %d", l, i, b.gat[rg][i],
					    b.gatv[rg][rs - 1 - i]);
			if (b.red[rg] != rs)
				fail("layout %d: Ireduce gave %d, expected %d",
				    l, b.red[rg], rs);
		}
		if (grp == rg)
			continue;
		/* Rank 0 of group rg sent its s2a[me] and s2a[ls-1-me]. */
		want = world_of(l, rg, 0) * 100;
		if (b.bc[rg] != 4242 + rg || b.sca[rg] != want + me ||
		    b.scv[rg] != want + ls - 1 - me)
			fail("layout %d: from group %d: Ibcast %d, Iscatter "
			    "%d, Iscatterv %d", l, rg, b.bc[rg], b.sca[rg],
			    b.scv[rg]);
	}
	for (i = 0; i < rs; i++) {
		want = world_of(l, 1 - grp, i);
		if (b.ag[i] != want || b.agv[rs - 1 - i] != want)
			fail("layout %d: Iallgather(v) from %d: %d, %d", l, i,
			    b.ag[i], b.agv[rs - 1 - i]);
		/* Remote rank i sent its s2a[me], and s2a[ls - 1 - me]. */
		if (b.a2a[i] != want * 100 + me ||
		    b.a2aw[i] != want * 100 + me ||
		    b.a2av[rs - 1 - i] != want * 100 + ls - 1 - me)
			fail("layout %d: Ialltoall(v, w) from %d: %d %d %d", l,
			    i, b.a2a[i], b.a2av[rs - 1 - i], b.a2aw[i]);
		/* rs remote ranks each gave k at k. */
		if (b.rsb[i] != rs * (me * rs + i) ||
		    b.rsv[i] != rs * (me * rs + i))
			fail("layout %d: Ireduce_scatter(_block) [%d]: %d %d",
			    l, i, b.rsb[i], b.rsv[i]);
	}
	if (b.ar != wsum_other())
		fail("layout %d: Iallreduce gave %d, expected %d", l, b.ar,
		    wsum_other());
	free(b.ag);
	free(b.agv);
	free(b.a2a);
	free(b.a2av);
	free(b.a2aw);
	free(b.rsb);
	free(b.rsv);
	free(cnt);
	free(dsp);
	free(wdsp);
	free(s2a);
	free(lcnt);
	free(vec);
}

/* Two intercommunicators over the same processes, side by side. */
static void
side_by_side(MPI_Comm a)
{
	MPI_Comm	b;
	MPI_Request	req[4];
	int		x[2] = { -1, -1 }, y = -1, flag = 0, v2 = myrank * 2;

	MPI_Comm_dup(a, &b);
	MPI_Iallreduce(&myrank, &x[0], 1, MPI_INT, MPI_SUM, a, &req[0]);
	MPI_Iallreduce(&v2, &x[1], 1, MPI_INT, MPI_SUM, b, &req[1]);
	MPI_Ibarrier(b, &req[2]);
	MPI_Iallreduce(&myrank, &y, 1, MPI_INT, MPI_MAX, a, &req[3]);
	if (grp == 0) {
		while (!flag)
			MPI_Testall(4, req, &flag, MPI_STATUSES_IGNORE);
	} else
		wait_reverse(req, 4);
	if (x[0] != wsum_other() || x[1] != 2 * wsum_other())
		fail("layout %d: side by side: %d %d, expected %d %d", l, x[0],
		    x[1], wsum_other(), 2 * wsum_other());
	/* A blocking one after nonblocking ones still in flight. */
	MPI_Ibarrier(a, &req[0]);
	MPI_Iallreduce(&myrank, &x[0], 1, MPI_INT, MPI_SUM, a, &req[1]);
	MPI_Allreduce(&v2, &x[1], 1, MPI_INT, MPI_SUM, a);
	ok(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "Waitall");
	if (x[0] != wsum_other() || x[1] != 2 * wsum_other())
		fail("layout %d: after in-flight ones: %d %d", l, x[0], x[1]);
	MPI_Comm_free(&b);
}

static void
all(MPI_Comm inter)
{
	all_at_once(inter);
	side_by_side(inter);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	each_layout(THIRD_REV, all);
	return finish();
}
