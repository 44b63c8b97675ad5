/* SPDX-License-Identifier: ISC */
/*
 * inter_create: MPI_Intercomm_create and what an intercommunicator
 * answers.  For every layout of tests/mpi/inter.h (equal and unequal
 * groups, groups in reverse order), led by the first or the last rank
 * of each group, over MPI_COMM_WORLD or a duplicate of it:
 * MPI_Comm_test_inter, MPI_Comm_size, _rank and _group give the local
 * group, MPI_Comm_remote_size and _remote_group the remote one;
 * MPI_Comm_compare says IDENT, CONGRUENT (a duplicate) and UNEQUAL (an
 * intracommunicator); attributes are copied by MPI_Comm_dup and deleted
 * by MPI_Comm_free; names and error handlers stay with each
 * communicator, and a duplicate inherits the handler.  MPI_Intercomm_merge
 * puts the low group first, whichever group that is, and keeps the
 * order within each group; with the same high everywhere, one group
 * comes whole before the other and every rank agrees which.  Groups of
 * one, from MPI_COMM_SELF, and a chain of intercommunicators made back
 * to back work too.
 */

#define NAME	"inter_create"
#include "inter.h"

static int	deleted;	/* attribute delete calls */

static int
count_delete(MPI_Comm comm, int key, void *val, void *extra)
{
	(void)comm;
	(void)key;
	(void)val;
	(void)extra;
	deleted++;
	return MPI_SUCCESS;
}

/* The world ranks of group g must be those of group g of layout l. */
static void
check_group(MPI_Group gr, int g, const char *what)
{
	MPI_Group	world;
	int		n, i, *in, *out;

	MPI_Group_size(gr, &n);
	if (n != group_size(l, g)) {
		fail("%s: size %d, expected %d", what, n, group_size(l, g));
		return;
	}
	in = xzalloc(n * sizeof(int));
	out = xzalloc(n * sizeof(int));
	for (i = 0; i < n; i++)
		in[i] = i;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_translate_ranks(gr, n, in, world, out);
	for (i = 0; i < n; i++)
		if (out[i] != world_of(l, g, i))
			fail("%s: rank %d is world rank %d, expected %d", what,
			    i, out[i], world_of(l, g, i));
	MPI_Group_free(&world);
	free(in);
	free(out);
}

/*
 * The merged communicator: the world ranks of its members, in order,
 * must be those of group first then the other, and every rank must
 * see the same.
 */
static void
check_merged(MPI_Comm m, int first, const char *what)
{
	int	n, i, mine, *w, g, want;

	MPI_Comm_size(m, &n);
	MPI_Comm_rank(m, &mine);
	if (n != nprocs) {
		fail("%s: size %d, expected %d", what, n, nprocs);
		return;
	}
	w = xzalloc(n * sizeof(int));
	MPI_Allgather(&myrank, 1, MPI_INT, w, 1, MPI_INT, m);
	for (i = 0; i < n; i++) {
		g = i < group_size(l, first) ? first : 1 - first;
		want = world_of(l, g, g == first ? i : i -
		    group_size(l, first));
		if (w[i] != want)
			fail("%s: rank %d is world rank %d, expected %d", what,
			    i, w[i], want);
	}
	if (w[mine] != myrank)
		fail("%s: my rank %d holds world rank %d", what, mine,
		    w[mine]);
	free(w);
}

static void
one(int last_leads, MPI_Comm peer)
{
	MPI_Comm	local, inter, dup, merged;
	MPI_Group	gr;
	MPI_Errhandler	eh;
	char		name[MPI_MAX_OBJECT_NAME];
	int		g, flag, n, r, res, key, len, first, val = 7, *got;

	g = make_inter(l, last_leads, peer, &local, &inter);
	ok(MPI_Comm_test_inter(inter, &flag), "Comm_test_inter");
	if (!flag)
		fail("layout %d: Comm_test_inter says false", l);
	MPI_Comm_test_inter(local, &flag);
	if (flag)
		fail("layout %d: the local group is an intercommunicator", l);
	MPI_Comm_size(inter, &n);
	MPI_Comm_rank(inter, &r);
	if (n != group_size(l, g) || r != index_of(l))
		fail("layout %d: rank %d of %d, expected %d of %d", l, r, n,
		    index_of(l), group_size(l, g));
	ok(MPI_Comm_remote_size(inter, &n), "Comm_remote_size");
	if (n != group_size(l, 1 - g))
		fail("layout %d: remote size %d, expected %d", l, n,
		    group_size(l, 1 - g));
	ok(MPI_Comm_group(inter, &gr), "Comm_group");
	check_group(gr, g, "Comm_group");
	MPI_Group_free(&gr);
	ok(MPI_Comm_remote_group(inter, &gr), "Comm_remote_group");
	check_group(gr, 1 - g, "Comm_remote_group");
	MPI_Group_free(&gr);

	/* Attributes, names, handlers; a duplicate. */
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, NULL);
	ok(MPI_Comm_set_attr(inter, key, &val), "Comm_set_attr");
	MPI_Comm_set_name(inter, "inter");
	MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
	ok(MPI_Comm_dup(inter, &dup), "Comm_dup of an intercommunicator");
	MPI_Comm_test_inter(dup, &flag);
	if (!flag)
		fail("layout %d: a duplicate is not an intercommunicator", l);
	MPI_Comm_get_errhandler(dup, &eh);
	if (eh != MPI_ERRORS_RETURN)
		fail("layout %d: the duplicate's handler is not inherited", l);
	MPI_Comm_get_attr(dup, key, &got, &flag);
	if (!flag || got != &val)
		fail("layout %d: the attribute was not copied", l);
	MPI_Comm_get_name(dup, name, &len);
	if (len != 0)
		fail("layout %d: the duplicate is named '%s'", l, name);
	MPI_Comm_get_name(inter, name, &len);
	if (strcmp(name, "inter") != 0)
		fail("layout %d: named '%s', expected 'inter'", l, name);
	MPI_Comm_compare(inter, inter, &res);
	if (res != MPI_IDENT)
		fail("layout %d: compare with itself gives %d", l, res);
	MPI_Comm_compare(inter, dup, &res);
	if (res != MPI_CONGRUENT)
		fail("layout %d: compare with a duplicate gives %d", l, res);
	MPI_Comm_compare(inter, local, &res);
	if (res != MPI_UNEQUAL)
		fail("layout %d: compare with the local group gives %d", l,
		    res);
	deleted = 0;
	ok(MPI_Comm_free(&dup), "Comm_free of a duplicate");
	if (deleted != 1 || dup != MPI_COMM_NULL)
		fail("layout %d: %d delete calls, handle %p", l, deleted,
		    (void *)dup);

	/* Merge: the low group first, either way round. */
	ok(MPI_Intercomm_merge(inter, g, &merged), "Intercomm_merge");
	check_merged(merged, 0, "merge, group 0 low");
	MPI_Comm_free(&merged);
	ok(MPI_Intercomm_merge(inter, !g, &merged), "Intercomm_merge");
	check_merged(merged, 1, "merge, group 1 low");
	MPI_Comm_free(&merged);
	ok(MPI_Intercomm_merge(inter, 1, &merged), "Intercomm_merge");
	/* Same high: some order; find it from merged rank 0. */
	MPI_Comm_rank(merged, &r);
	first = r == 0 ? g : -1;
	MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MAX, merged);
	check_merged(merged, first, "merge, same high");
	MPI_Comm_free(&merged);

	deleted = 0;
	ok(MPI_Comm_free(&inter), "Comm_free of an intercommunicator");
	if (deleted != 1)
		fail("layout %d: %d delete calls on free", l, deleted);
	MPI_Comm_free_keyval(&key);
	MPI_Comm_free(&local);
}

/* Pairs of ranks, each a group of one, made from MPI_COMM_SELF. */
static void
pairs(void)
{
	MPI_Comm	inter;
	int		peer = myrank ^ 1, got = -1, n;

	if (peer >= nprocs)
		return;
	ok(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, peer, 5,
	    &inter), "Intercomm_create from MPI_COMM_SELF");
	MPI_Comm_size(inter, &n);
	if (n != 1)
		fail("a group of one has size %d", n);
	MPI_Comm_remote_size(inter, &n);
	if (n != 1)
		fail("a remote group of one has size %d", n);
	MPI_Sendrecv(&myrank, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, inter,
	    MPI_STATUS_IGNORE);
	if (got != peer)
		fail("the pair sent %d, expected %d", got, peer);
	MPI_Comm_free(&inter);
}

/*
 * Back to back: an intercommunicator between the halves, then one
 * made over it as the peer communicator, whose remote leader is a
 * rank of the remote group.
 */
static void
chain(void)
{
	MPI_Comm	local, inter, inter2;
	int		g, lrank, sum, want;

	g = make_inter(EVEN_ODD, 0, MPI_COMM_WORLD, &local, &inter);
	MPI_Comm_rank(local, &lrank);
	ok(MPI_Intercomm_create(local, 0, lrank == 0 ? inter :
	    MPI_COMM_NULL, 0, 9, &inter2),
	    "Intercomm_create over an intercommunicator");
	/* Each group gets the sum of the other's world ranks. */
	MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, inter2);
	want = g == 0 ? (nprocs / 2) * (nprocs / 2) :
	    (nprocs / 2 + nprocs % 2) * (nprocs / 2 + nprocs % 2 - 1);
	if (sum != want)
		fail("chain: the other group's sum is %d, expected %d", sum,
		    want);
	MPI_Comm_free(&inter2);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&local);
}

int
main(int argc, char *argv[])
{
	MPI_Comm	dup;
	int		flag;

	init(&argc, &argv);
	MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
	if (flag)
		fail("MPI_COMM_WORLD is an intercommunicator");
	if (nprocs >= 2) {
		MPI_Comm_dup(MPI_COMM_WORLD, &dup);
		for (l = 0; l < NLAYOUTS; l++) {
			one(0, MPI_COMM_WORLD);
			one(1, dup);
		}
		MPI_Comm_free(&dup);
		pairs();
		chain();
	}
	return finish();
}
