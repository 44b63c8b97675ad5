/* SPDX-License-Identifier: ISC */
/*
 * Groups: ordered sets of processes, held as lists of world ranks.
 * They are local objects: nothing here talks to other ranks.  Errors
 * go to MPI_COMM_WORLD's handler, as a group has none of its own.  An
 * empty result is always MPI_GROUP_EMPTY, which MPI_Group_free accepts
 * (it only clears the handle).
 */
#include <stdlib.h>

#include "mpi_impl.h"

struct ft_mpi_group ft_mpi_group_empty = {
	.size = 0, .rank = MPI_UNDEFINED, .predefined = 1,
};

/* The live groups other than MPI_GROUP_EMPTY. */
static struct ft_mpi_hset groups;

int
ft__mpi_group_ok(MPI_Group g)
{
	if (g == MPI_GROUP_NULL)
		return 0;
	return g == MPI_GROUP_EMPTY || ft__mpi_hset_has(&groups, g);
}

MPI_Group
ft__mpi_group_new(const uint32_t *world, int n)
{
	struct ft_mpi_group *g;
	int i;

	if (n == 0)
		return MPI_GROUP_EMPTY;
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return MPI_GROUP_NULL;
	if ((g->world = calloc((size_t)n, sizeof(*g->world))) == NULL ||
	    ft__mpi_hset_add(&groups, g) != 0) {
		free(g->world);
		free(g);
		return MPI_GROUP_NULL;
	}
	memcpy(g->world, world, (size_t)n * sizeof(*world));
	g->size = n;
	g->rank = MPI_UNDEFINED;
	for (i = 0; i < n; i++)
		if (world[i] == ft__mpi_self_rank()) {
			g->rank = i;
			break;
		}
	return g;
}

void
ft__mpi_group_fini(void)
{
	size_t i;

	for (i = 0; i < groups.cap; i++)
		if (groups.slot[i] != NULL) {
			struct ft_mpi_group *g = (struct ft_mpi_group *)
			    (uintptr_t)groups.slot[i];

			free(g->world);
			free(g);
		}
	ft__mpi_hset_release(&groups);
}

static int
bad_group(const char *call)
{
	return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_GROUP, call,
	    "invalid group");
}

static int
null_arg(const char *call)
{
	return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call, "NULL argument");
}

static int
no_mem(const char *call)
{
	return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
	    "out of memory");
}

/*
 * A map from world rank to a mark, all zero: the caller frees it.
 * World ranks in groups are always below the processes known.
 */
static int *
world_marks(void)
{
	return calloc(ft__mpi_nprocs(), sizeof(int));
}

/* Hand back the group of n world ranks, or report running out. */
static int
result(const char *call, const uint32_t *world, int n, MPI_Group *out)
{
	if ((*out = ft__mpi_group_new(world, n)) == MPI_GROUP_NULL)
		return no_mem(call);
	return MPI_SUCCESS;
}

int
PMPI_Group_size(MPI_Group g, int *size)
{
	FT_MPI_CHECK_INIT("MPI_Group_size");
	if (!ft__mpi_group_ok(g))
		return bad_group("MPI_Group_size");
	if (size == NULL)
		return null_arg("MPI_Group_size");
	*size = g->size;
	return MPI_SUCCESS;
}

int
PMPI_Group_rank(MPI_Group g, int *rank)
{
	FT_MPI_CHECK_INIT("MPI_Group_rank");
	if (!ft__mpi_group_ok(g))
		return bad_group("MPI_Group_rank");
	if (rank == NULL)
		return null_arg("MPI_Group_rank");
	*rank = g->rank;
	return MPI_SUCCESS;
}

int
PMPI_Group_free(MPI_Group *g)
{
	FT_MPI_CHECK_INIT("MPI_Group_free");
	if (g == NULL)
		return null_arg("MPI_Group_free");
	if (!ft__mpi_group_ok(*g))
		return bad_group("MPI_Group_free");
	if (!(*g)->predefined) {
		ft__mpi_hset_del(&groups, *g);
		ft__mpi_fint_forget(FT_FINT_GROUP, *g);
		free((*g)->world);
		free(*g);
	}
	*g = MPI_GROUP_NULL;
	return MPI_SUCCESS;
}

int
PMPI_Group_translate_ranks(MPI_Group g1, int n, const int *ranks1,
    MPI_Group g2, int *ranks2)
{
	int *pos, i;

	FT_MPI_CHECK_INIT("MPI_Group_translate_ranks");
	if (!ft__mpi_group_ok(g1) || !ft__mpi_group_ok(g2))
		return bad_group("MPI_Group_translate_ranks");
	if (n < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Group_translate_ranks", "negative count %d", n);
	if (n > 0 && (ranks1 == NULL || ranks2 == NULL))
		return null_arg("MPI_Group_translate_ranks");
	for (i = 0; i < n; i++)
		if (ranks1[i] != MPI_PROC_NULL &&
		    (ranks1[i] < 0 || ranks1[i] >= g1->size))
			return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_RANK,
			    "MPI_Group_translate_ranks", "invalid rank %d in "
			    "a group of size %d", ranks1[i], g1->size);
	if ((pos = world_marks()) == NULL)
		return no_mem("MPI_Group_translate_ranks");
	/* pos[w] is 1 + the rank of world rank w in g2, or 0. */
	for (i = 0; i < g2->size; i++)
		pos[g2->world[i]] = i + 1;
	for (i = 0; i < n; i++) {
		if (ranks1[i] == MPI_PROC_NULL)
			ranks2[i] = MPI_PROC_NULL;
		else if (pos[g1->world[ranks1[i]]] == 0)
			ranks2[i] = MPI_UNDEFINED;
		else
			ranks2[i] = pos[g1->world[ranks1[i]]] - 1;
	}
	free(pos);
	return MPI_SUCCESS;
}

int
PMPI_Group_compare(MPI_Group g1, MPI_Group g2, int *res)
{
	FT_MPI_CHECK_INIT("MPI_Group_compare");
	if (!ft__mpi_group_ok(g1) || !ft__mpi_group_ok(g2))
		return bad_group("MPI_Group_compare");
	if (res == NULL)
		return null_arg("MPI_Group_compare");
	if (g1->size != g2->size)
		*res = MPI_UNEQUAL;
	else if ((*res = ft__mpi_ranks_compare(g1->world, g2->world,
	    g1->size)) < 0)
		return no_mem("MPI_Group_compare");
	return MPI_SUCCESS;
}

enum setop { UNION, INTERSECTION, DIFFERENCE };

static int
setop(const char *call, enum setop op, MPI_Group g1, MPI_Group g2,
    MPI_Group *out)
{
	uint32_t *w;
	int *in2, i, n = 0, rc;

	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_group_ok(g1) || !ft__mpi_group_ok(g2))
		return bad_group(call);
	if (out == NULL)
		return null_arg(call);
	if ((in2 = world_marks()) == NULL ||
	    (w = calloc((size_t)g1->size + (size_t)g2->size + 1,
	    sizeof(*w))) == NULL) {
		free(in2);
		return no_mem(call);
	}
	for (i = 0; i < g2->size; i++)
		in2[g2->world[i]] = 1;
	/* The members of g1 first, in g1's order, then g2's new ones. */
	for (i = 0; i < g1->size; i++) {
		int both = in2[g1->world[i]];

		if (op == UNION || (op == INTERSECTION) == both)
			w[n++] = g1->world[i];
		in2[g1->world[i]] = 2;
	}
	if (op == UNION)
		for (i = 0; i < g2->size; i++)
			if (in2[g2->world[i]] == 1)
				w[n++] = g2->world[i];
	free(in2);
	rc = result(call, w, n, out);
	free(w);
	return rc;
}

int
PMPI_Group_union(MPI_Group g1, MPI_Group g2, MPI_Group *out)
{
	return setop("MPI_Group_union", UNION, g1, g2, out);
}

int
PMPI_Group_intersection(MPI_Group g1, MPI_Group g2, MPI_Group *out)
{
	return setop("MPI_Group_intersection", INTERSECTION, g1, g2, out);
}

int
PMPI_Group_difference(MPI_Group g1, MPI_Group g2, MPI_Group *out)
{
	return setop("MPI_Group_difference", DIFFERENCE, g1, g2, out);
}

/*
 * Mark rank r of g as chosen in seen[] (g->size entries): it must be a
 * rank of g, chosen once.
 */
static int
choose(const char *call, MPI_Group g, long long r, int *seen)
{
	if (r < 0 || r >= g->size)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_RANK, call,
		    "invalid rank %lld in a group of size %d", r, g->size);
	if (seen[r])
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_RANK, call,
		    "rank %lld is listed twice", r);
	seen[r] = 1;
	return MPI_SUCCESS;
}

/*
 * The common part of the four subset calls: n ranks (ranks), or n
 * ranges (first, last, stride) when ranges is not NULL, choose members
 * of g; the new group holds them in the order given (incl) or the
 * others in g's order (excl).
 */
static int
subset(const char *call, MPI_Group g, int n, const int *ranks,
    int (*ranges)[3], int excl, MPI_Group *out)
{
	uint32_t *w;
	int *seen, *order, i, k = 0, rc = MPI_SUCCESS;
	long long r;

	FT_MPI_CHECK_INIT(call);
	if (!ft__mpi_group_ok(g))
		return bad_group(call);
	if (out == NULL || (n > 0 && ranks == NULL && ranges == NULL))
		return null_arg(call);
	if (n < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "negative count %d", n);
	seen = calloc((size_t)g->size + 1, sizeof(*seen));
	order = calloc((size_t)g->size + 1, sizeof(*order));
	w = calloc((size_t)g->size + 1, sizeof(*w));
	if (seen == NULL || order == NULL || w == NULL) {
		rc = no_mem(call);
		goto out;
	}
	for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
		if (ranges == NULL) {
			if ((rc = choose(call, g, ranks[i], seen)) ==
			    MPI_SUCCESS)
				order[k++] = ranks[i];
			continue;
		}
		if (ranges[i][2] == 0) {
			rc = ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
			    "range %d has stride 0", i);
			break;
		}
		/* Ranges that run the wrong way hold no rank. */
		for (r = ranges[i][0]; ranges[i][2] > 0 ? r <= ranges[i][1] :
		    r >= ranges[i][1]; r += ranges[i][2]) {
			if ((rc = choose(call, g, r, seen)) != MPI_SUCCESS)
				break;
			order[k++] = (int)r;
		}
	}
	if (rc != MPI_SUCCESS)
		goto out;
	if (excl) {
		for (i = k = 0; i < g->size; i++)
			if (!seen[i])
				w[k++] = g->world[i];
	} else
		for (i = 0; i < k; i++)
			w[i] = g->world[order[i]];
	rc = result(call, w, k, out);
out:
	free(seen);
	free(order);
	free(w);
	return rc;
}

int
PMPI_Group_incl(MPI_Group g, int n, const int *ranks, MPI_Group *out)
{
	return subset("MPI_Group_incl", g, n, ranks, NULL, 0, out);
}

int
PMPI_Group_excl(MPI_Group g, int n, const int *ranks, MPI_Group *out)
{
	return subset("MPI_Group_excl", g, n, ranks, NULL, 1, out);
}

int
PMPI_Group_range_incl(MPI_Group g, int n, int ranges[][3], MPI_Group *out)
{
	return subset("MPI_Group_range_incl", g, n, NULL, ranges, 0, out);
}

int
PMPI_Group_range_excl(MPI_Group g, int n, int ranges[][3], MPI_Group *out)
{
	return subset("MPI_Group_range_excl", g, n, NULL, ranges, 1, out);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Group_size = PMPI_Group_size
#pragma weak MPI_Group_rank = PMPI_Group_rank
#pragma weak MPI_Group_free = PMPI_Group_free
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
#pragma weak MPI_Group_compare = PMPI_Group_compare
#pragma weak MPI_Group_union = PMPI_Group_union
#pragma weak MPI_Group_intersection = PMPI_Group_intersection
#pragma weak MPI_Group_difference = PMPI_Group_difference
#pragma weak MPI_Group_incl = PMPI_Group_incl
#pragma weak MPI_Group_excl = PMPI_Group_excl
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
