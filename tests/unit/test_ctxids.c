/* SPDX-License-Identifier: ISC */
/*
 * The context ids that processes draw from their own counts
 * (lib/mpi/misc.c: MPI_Comm_idup, MPIX_Comm_shrink and ishrink,
 * FT-MPI's recoveries), now that process ids go past the universe size
 * (a job that replaces its dead): for universes of 1 to 4096, the
 * indices of the first processes (v U + q) and of those past the
 * universe (a block each) are all distinct, below the limit, and what
 * ft__mpi_ctx_after says a process draws next; a block and the first
 * processes' range run out with FT_MPI_CTX_OWN_NONE, never into
 * another's; the id past the last block has none.  Then this process's
 * own draws, and ft__mpi_ctx_own_above, which another process's block
 * does not move.  No MPI_Init: only the counts are used.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"
#include "tap.h"

#define NV	6

static const uint32_t	 vs[NV] = { 0, 1, 2, 3, 100, 1000 };

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The documented first index of process q (comm.h). */
static uint32_t
first(uint32_t q, uint32_t U)
{
	return q < U ? q : FT_MPI_CTX_OWN_SPLIT + (q - U) *
	    FT_MPI_CTX_OWN_BLOCK;
}

static void
test_layout(uint32_t U)
{
	uint32_t *all, q, qs[200], nq = 0, i, j, n = 0, idx;
	int bad = 0, dup = 0, out = 0;

	ft__mpi.env.universe = U;
	for (q = 0; q < U && q < 64; q++)
		qs[nq++] = q;
	if (U > 64)
		qs[nq++] = U - 1;
	for (q = U; q < U + 64; q++)
		qs[nq++] = q;
	qs[nq++] = U + FT_JOB_IDS_PAST_UNIVERSE - 1;
	all = calloc((size_t)nq * NV, sizeof(*all));
	for (i = 0; i < nq; i++)
		for (j = 0; j < NV; j++) {
			idx = ft__mpi_ctx_after(first(qs[i], U), vs[j]);
			if (idx == FT_MPI_CTX_OWN_NONE ||
			    idx >= FT_MPI_CTX_OWN_LIMIT)
				out++;
			else
				all[n++] = idx;
			if (qs[i] < U && idx != vs[j] * U + qs[i])
				bad++;
			if (qs[i] >= U && idx != first(qs[i], U) + vs[j])
				bad++;
		}
	qsort(all, n, sizeof(*all), cmp_u32);
	for (i = 1; i < n; i++)
		dup += all[i] == all[i - 1];
	T_OK(out == 0 && bad == 0 && dup == 0, "universe %u: %u indices of "
	    "%u processes are in range (%d not), as drawn (%d not), distinct "
	    "(%d not)", U, n, nq, out, bad, dup);
	free(all);

	/* Each block ends in NONE, not in the next block. */
	q = U + 5;
	T_OK(ft__mpi_ctx_after(first(q, U), FT_MPI_CTX_OWN_BLOCK - 1) ==
	    first(q, U) + FT_MPI_CTX_OWN_BLOCK - 1 &&
	    ft__mpi_ctx_after(first(q, U), FT_MPI_CTX_OWN_BLOCK) ==
	    FT_MPI_CTX_OWN_NONE, "universe %u: process %u's block has %u "
	    "indices, then none", U, q, FT_MPI_CTX_OWN_BLOCK);
	/* The first processes' range ends below the split. */
	q = U - 1;
	j = (FT_MPI_CTX_OWN_SPLIT - 1 - q) / U;
	idx = ft__mpi_ctx_after(q, j);
	T_OK(idx == j * U + q && idx < FT_MPI_CTX_OWN_SPLIT &&
	    ft__mpi_ctx_after(idx, 1) == FT_MPI_CTX_OWN_NONE &&
	    ft__mpi_ctx_after(q, j + 1) == FT_MPI_CTX_OWN_NONE,
	    "universe %u: process %u's range ends below the split, at "
	    "count %u", U, q, j);
	/* No process has a block past the last. */
	T_OK(ft__mpi_ctx_after(first(U + FT_JOB_IDS_PAST_UNIVERSE, U), 0) ==
	    FT_MPI_CTX_OWN_NONE, "universe %u: process %u has no block", U,
	    U + FT_JOB_IDS_PAST_UNIVERSE);
}

static void
test_own(void)
{
	uint32_t a, b, c;

	ft__mpi.env.universe = 8;
	ft__mpi.env.base = 20;
	ft__mpi.env.rank = 0;
	a = ft__mpi_ctx_own();
	b = ft__mpi_ctx_own();
	T_OK(a == FT_MPI_CTX_OWN_SPLIT + 12 * FT_MPI_CTX_OWN_BLOCK &&
	    b == ft__mpi_ctx_after(a, 1), "process 20 of a universe of 8 "
	    "draws %#x then %#x from block 12", a, b);
	ft__mpi_ctx_own_above(FT_MPI_CTX_OWN_SPLIT + 3 *
	    FT_MPI_CTX_OWN_BLOCK + 500);
	ft__mpi_ctx_own_above(8 * 1000 + 3);
	c = ft__mpi_ctx_own();
	T_OK(c == ft__mpi_ctx_after(a, 2), "another process's indices move "
	    "nothing: %#x", c);
	ft__mpi_ctx_own_above(a + 100);
	c = ft__mpi_ctx_own();
	T_OK(c == a + 101, "an index of its own block moves the count past "
	    "it: %#x", c);
	ft__mpi.env.base = 8 + FT_JOB_IDS_PAST_UNIVERSE;
	T_OK(ft__mpi_ctx_own() == FT_MPI_CTX_OWN_NONE, "process %u has none "
	    "to draw", 8 + FT_JOB_IDS_PAST_UNIVERSE);
}

int
main(void)
{
	static const uint32_t us[] = { 1, 2, 3, 8, 200, 4096 };
	size_t i;

	for (i = 0; i < sizeof(us) / sizeof(us[0]); i++)
		test_layout(us[i]);
	test_own();
	return t_done();
}
