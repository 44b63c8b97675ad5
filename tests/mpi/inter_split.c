/* SPDX-License-Identifier: ISC */
/*
 * inter_split: MPI_Comm_split, MPI_Comm_split_type and MPI_Comm_create
 * on intercommunicators, for every layout of tests/mpi/inter.h.  A
 * split makes an intercommunicator of each color found in both groups,
 * ranked by key (here the reverse of the old ranks), ties by old rank,
 * on both sides; a color found in one group only, and MPI_UNDEFINED,
 * give MPI_COMM_NULL.  Each new intercommunicator is checked by its
 * sizes, ranks and remote group, and used: an allreduce gives each
 * side the other's world ranks, and ranks trade messages on it.
 * MPI_Comm_create keeps the members of each group's
 * subgroup, in the subgroup's order, and gives MPI_COMM_NULL outside
 * it, or everywhere when one side's subgroup is empty.
 * MPI_Comm_split_type with MPI_COMM_TYPE_SHARED on a one-host job
 * gives an intercommunicator of both whole groups.
 */

#define NAME	"inter_split"
#include "inter.h"

/* The color of rank i of group g, or MPI_UNDEFINED. */
static int
color_of(int g, int i)
{
	if (g == 0)
		return i % 2;
	return i % 3 == 2 ? MPI_UNDEFINED : i % 3;
}

/* How many ranks of group g have color c, and how many come after i. */
static int
count_color(int g, int c, int i, int *after)
{
	int	j, n = 0;

	*after = 0;
	for (j = 0; j < group_size(l, g); j++)
		if (color_of(g, j) == c) {
			n++;
			*after += j > i;
		}
	return n;
}

/* The world ranks of comm's groups must be want[] and rwant[]. */
static void
check_groups(MPI_Comm comm, const int *want, int n, const int *rwant,
    int rn, const char *what)
{
	MPI_Group	g, world;
	int		i, k, m, in[8], out[8];

	MPI_Comm_group(MPI_COMM_WORLD, &world);
	for (k = 0; k < 2; k++) {
		if (k == 0)
			MPI_Comm_group(comm, &g);
		else
			MPI_Comm_remote_group(comm, &g);
		MPI_Group_size(g, &m);
		if (m != (k == 0 ? n : rn)) {
			fail("layout %d: %s: group %d has size %d, expected "
			    "%d", l, what, k, m, k == 0 ? n : rn);
			MPI_Group_free(&g);
			continue;
		}
		for (i = 0; i < m; i++)
			in[i] = i;
		MPI_Group_translate_ranks(g, m, in, world, out);
		for (i = 0; i < m; i++)
			if (out[i] != (k == 0 ? want : rwant)[i])
				fail("layout %d: %s: group %d rank %d is %d, "
				    "expected %d", l, what, k, i, out[i],
				    (k == 0 ? want : rwant)[i]);
		MPI_Group_free(&g);
	}
	MPI_Group_free(&world);
}

/* Each side gets the sum of the other's world ranks. */
static void
use(MPI_Comm comm, const int *rwant, int rn, const char *what)
{
	int	i, sum = -1, want = 0;

	for (i = 0; i < rn; i++)
		want += rwant[i];
	ok(MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, comm), what);
	if (sum != want)
		fail("layout %d: %s: the other side's sum is %d, expected %d",
		    l, what, sum, want);
}

static void
split(MPI_Comm inter)
{
	MPI_Comm	sub;
	MPI_Request	req;
	int		c = color_of(grp, me), n, rn, after, i, j, r, x = -1;
	int		want[8], rwant[8], y = 5;

	ok(MPI_Comm_split(inter, c, -me, &sub), "Comm_split");
	n = c == MPI_UNDEFINED ? 0 : count_color(grp, c, me, &after);
	rn = c == MPI_UNDEFINED ? 0 : count_color(1 - grp, c, -1, &i);
	if (n == 0 || rn == 0) {
		if (sub != MPI_COMM_NULL)
			fail("layout %d: color %d: not MPI_COMM_NULL", l, c);
		return;
	}
	if (sub == MPI_COMM_NULL) {
		fail("layout %d: color %d: MPI_COMM_NULL", l, c);
		return;
	}
	MPI_Comm_rank(sub, &r);
	if (r != after)
		fail("layout %d: color %d: rank %d, expected %d", l, c, r,
		    after);
	/* Keys -i: the ranks of a color in reverse order. */
	for (i = group_size(l, grp) - 1, j = 0; i >= 0; i--)
		if (color_of(grp, i) == c)
			want[j++] = world_of(l, grp, i);
	for (i = group_size(l, 1 - grp) - 1, j = 0; i >= 0; i--)
		if (color_of(1 - grp, i) == c)
			rwant[j++] = world_of(l, 1 - grp, i);
	check_groups(sub, want, n, rwant, rn, "Comm_split");
	use(sub, rwant, rn, "Allreduce on a split");
	/* Point-to-point with the remote rank of the same rank. */
	if (r < rn) {
		MPI_Irecv(&x, 1, MPI_INT, r, 0, sub, &req);
		MPI_Send(&y, 1, MPI_INT, r, 0, sub);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (x != y)
			fail("layout %d: split p2p got %d", l, x);
	}
	MPI_Comm_free(&sub);
}

static void
create(MPI_Comm inter, int odd, int empty)
{
	MPI_Group	g, sg;
	MPI_Comm	sub;
	int		in[8], n = 0, rn, i, j, want[8], rwant[8], r;

	/* Group 0 keeps its even (or odd) ranks, group 1 its first half. */
	MPI_Comm_group(inter, &g);
	for (i = 0; i < ls; i++)
		if (grp == 0 ? i % 2 == odd : i < (ls + 1) / 2)
			in[n++] = grp == 0 ? i : (ls + 1) / 2 - 1 - i;
	if (empty && grp == 1)
		n = 0;
	MPI_Group_incl(g, n, in, &sg);
	ok(MPI_Comm_create(inter, sg, &sub), "Comm_create");
	rn = 0;
	for (i = 0; i < rs; i++)
		if (grp == 1 ? i % 2 == odd : i < (rs + 1) / 2)
			rn++;
	if (empty)
		rn = grp == 0 ? 0 : rn;
	MPI_Group_rank(sg, &r);
	if (n == 0 || rn == 0 || r == MPI_UNDEFINED) {
		if (sub != MPI_COMM_NULL)
			fail("layout %d: Comm_create: not MPI_COMM_NULL", l);
	} else if (sub == MPI_COMM_NULL)
		fail("layout %d: Comm_create: MPI_COMM_NULL", l);
	else {
		for (i = 0; i < n; i++)
			want[i] = world_of(l, grp, in[i]);
		for (i = j = 0; i < rs; i++)
			if (grp == 1 ? i % 2 == odd : i < (rs + 1) / 2)
				rwant[grp == 1 ? j++ : (rs + 1) / 2 - 1 - i] =
				    world_of(l, 1 - grp, i);
		check_groups(sub, want, n, rwant, rn, "Comm_create");
		use(sub, rwant, rn, "Allreduce on a created one");
		MPI_Comm_free(&sub);
	}
	MPI_Group_free(&sg);
	MPI_Group_free(&g);
}

static void
split_type(MPI_Comm inter)
{
	MPI_Comm	sub;
	int		flag = 0, n = -1, rn = -1, r = -1, *rwant, i;

	ok(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
	    &sub), "Comm_split_type");
	if (sub == MPI_COMM_NULL) {
		fail("layout %d: Comm_split_type gave MPI_COMM_NULL", l);
		return;
	}
	MPI_Comm_test_inter(sub, &flag);
	MPI_Comm_size(sub, &n);
	MPI_Comm_remote_size(sub, &rn);
	MPI_Comm_rank(sub, &r);
	if (!flag || n != ls || rn != rs || r != me)
		fail("layout %d: Comm_split_type: inter %d, %d of %d, remote "
		    "%d", l, flag, r, n, rn);
	rwant = xzalloc(rs * sizeof(int));
	for (i = 0; i < rs; i++)
		rwant[i] = world_of(l, 1 - grp, i);
	use(sub, rwant, rs, "Allreduce on a split_type");
	free(rwant);
	MPI_Comm_free(&sub);
	ok(MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &sub),
	    "Comm_split_type");
	if (sub != MPI_COMM_NULL)
		fail("layout %d: split_type MPI_UNDEFINED is not null", l);
}

static void
all(MPI_Comm inter)
{
	split(inter);
	create(inter, 0, 0);
	create(inter, 1, 0);
	create(inter, 0, 1);
	split_type(inter);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	each_layout(-1, all);
	return finish();
}
