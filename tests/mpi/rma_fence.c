/* SPDX-License-Identifier: ISC */
/*
 * rma_fence: active-target one-sided communication with MPI_Win_fence
 * (MPI-3.1 11.3, 11.5.1).  Each rank puts into its right neighbour,
 * gets from its left one, accumulates into rank 0 with every
 * predefined operation on a fitting type, and moves strided data with
 * a vector type on the origin side, on the target side and on both;
 * MPI_Get_accumulate and MPI_Fetch_and_op fetch what was there.  Every
 * value is checked after the closing fence.  Windows of
 * MPI_Win_create and MPI_Win_allocate both; operations of no data.
 */
#define NAME	"rma_fence"
#include "mtest.h"

#define N	16

static int
flavor_run(int allocate)
{
	MPI_Datatype vec;
	MPI_Win win;
	int *buf, src[N], got[N], i, right, left, k;
	long lres, *lw;
	double dv;

	right = (myrank + 1) % nprocs;
	left = (myrank + nprocs - 1) % nprocs;
	if (allocate)
		ok(MPI_Win_allocate(4 * N * sizeof(int), sizeof(int),
		    MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win), "Win_allocate");
	else {
		buf = xzalloc(4 * N * sizeof(int));
		ok(MPI_Win_create(buf, 4 * N * sizeof(int), sizeof(int),
		    MPI_INFO_NULL, MPI_COMM_WORLD, &win), "Win_create");
	}
	for (i = 0; i < 4 * N; i++)
		buf[i] = -1;
	for (i = 0; i < N; i++)
		src[i] = myrank * 1000 + i;
	MPI_Type_vector(N / 2, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);

	ok(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), "fence (open)");
	/* Contiguous put at 0; target-strided put at [N, 2N) evens. */
	ok(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win), "Put");
	ok(MPI_Put(src, N / 2, MPI_INT, right, N, 1, vec, win),
	    "Put, vector target");
	/* Nothing at all: no data, and nothing to divide by. */
	ok(MPI_Put(src, 0, MPI_INT, right, 0, 0, MPI_INT, win), "Put of 0");
	ok(MPI_Accumulate(src, 0, MPI_INT, right, 0, 0, MPI_INT, MPI_SUM,
	    win), "Accumulate of 0");
	ok(MPI_Get_accumulate(src, 0, MPI_INT, got, 0, MPI_INT, right, 0, 0,
	    MPI_INT, MPI_SUM, win), "Get_accumulate of 0");
	ok(MPI_Win_fence(0, win), "fence (puts)");
	for (i = 0; i < N; i++)
		if (buf[i] != left * 1000 + i)
			fail("%s: buf[%d] = %d after Put, want %d",
			    allocate ? "allocate" : "create", i, buf[i],
			    left * 1000 + i);
	for (i = 0; i < N; i++) {
		int want = i % 2 == 0 ? left * 1000 + i / 2 : -1;

		if (buf[N + i] != want)
			fail("buf[%d] = %d after vector Put, want %d", N + i,
			    buf[N + i], want);
	}
	/* Origin-strided get of the right neighbour's first N/2 ints. */
	for (i = 0; i < N; i++)
		got[i] = -7;
	ok(MPI_Get(got, 1, vec, right, 0, N / 2, MPI_INT, win),
	    "Get, vector origin");
	/* Vector on both sides: the odd slots of [2N, 3N). */
	ok(MPI_Put(src + 1, 1, vec, right, 2 * N + 1, 1, vec, win),
	    "Put, vector both");
	ok(MPI_Win_fence(0, win), "fence (get)");
	for (i = 0; i < N; i++) {
		int want = i % 2 == 0 ? myrank * 1000 + i / 2 : -7;

		if (got[i] != want)
			fail("got[%d] = %d after vector Get, want %d", i,
			    got[i], want);
	}
	for (i = 0; i < N; i++) {
		int want = i % 2 == 1 ? left * 1000 + i : -1;

		if (buf[2 * N + i] != want)
			fail("buf[%d] = %d after both-vector Put, want %d",
			    2 * N + i, buf[2 * N + i], want);
	}
	/* Accumulates into rank 0: SUM, MAX, MIN, PROD, bitwise, logical. */
	for (i = 0; i < 4 * N; i++)
		buf[i] = 0;
	buf[3] = 1;			/* PROD */
	buf[4] = ~0;			/* BAND */
	buf[7] = 1;			/* LAND */
	ok(MPI_Win_fence(0, win), "fence (reset)");
	{
		int v[12] = { myrank + 1, myrank, -myrank, 2, 1 << myrank,
		    1 << myrank, 1 << myrank, 1, 0, 1, 5, 0 };
		MPI_Op ops[12] = { MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_BAND,
		    MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR,
		    MPI_REPLACE, MPI_NO_OP };

		for (k = 0; k < 12; k++)
			ok(MPI_Accumulate(&v[k], 1, MPI_INT, 0, k, 1, MPI_INT,
			    ops[k], win), "Accumulate");
		/* A vector accumulate: SUM into the odd slots of [N, 2N). */
		ok(MPI_Accumulate(src, N / 2, MPI_INT, 0, N + 1, 1, vec,
		    MPI_SUM, win), "Accumulate, vector target");
	}
	ok(MPI_Win_fence(0, win), "fence (accumulates)");
	if (myrank == 0) {
		int sum = 0, xr = 0, bor = 0, band = ~0;

		for (k = 0; k < nprocs; k++) {
			sum += k + 1;
			xr ^= 1 << k;
			bor |= 1 << k;
			band &= 1 << k;
		}
		if (buf[0] != sum)
			fail("SUM: %d, want %d", buf[0], sum);
		if (buf[1] != nprocs - 1)
			fail("MAX: %d, want %d", buf[1], nprocs - 1);
		if (buf[2] != -(nprocs - 1))
			fail("MIN: %d, want %d", buf[2], -(nprocs - 1));
		if (buf[3] != 1 << nprocs)
			fail("PROD: %d, want %d", buf[3], 1 << nprocs);
		if (buf[4] != band)
			fail("BAND: %d, want %d", buf[4], band);
		if (buf[5] != bor)
			fail("BOR: %d, want %d", buf[5], bor);
		if (buf[6] != xr)
			fail("BXOR: %d, want %d", buf[6], xr);
		if (buf[7] != 1)
			fail("LAND: %d, want 1", buf[7]);
		if (buf[8] != 0)
			fail("LOR: %d, want 0", buf[8]);
		if (buf[9] != nprocs % 2)
			fail("LXOR: %d, want %d", buf[9], nprocs % 2);
		if (buf[10] != 5)
			fail("REPLACE: %d, want 5", buf[10]);
		if (buf[11] != 0)
			fail("NO_OP: %d, want 0", buf[11]);
		for (i = 0; i < N; i++) {
			int want = 0;

			if (i % 2 == 1)
				for (k = 0; k < nprocs; k++)
					want += k * 1000 + i / 2;
			if (buf[N + i] != want)
				fail("vector SUM: buf[%d] = %d, want %d",
				    N + i, buf[N + i], want);
		}
	}
	/* Fetches: every rank adds 1 at rank 0's slot 0 and reads it. */
	ok(MPI_Win_fence(0, win), "fence (before fetch)");
	{
		int one = 1, old = -1, res[2] = { -1, -1 }, two[2] = { 10, 20 };

		ok(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win),
		    "Fetch_and_op");
		ok(MPI_Get_accumulate(two, 2, MPI_INT, res, 2, MPI_INT, right,
		    12, 2, MPI_INT, MPI_REPLACE, win), "Get_accumulate");
		ok(MPI_Win_fence(0, win), "fence (fetch)");
		for (k = 0, i = 0; k < nprocs; k++)
			i += k + 1;
		if (old < i || old >= i + nprocs)
			fail("Fetch_and_op read %d, want %d to %d", old, i,
			    i + nprocs - 1);
		if (res[0] != 0 || res[1] != 0)
			fail("Get_accumulate read %d %d, want 0 0", res[0],
			    res[1]);
		if (buf[12] != 10 || buf[13] != 20)
			fail("Get_accumulate left %d %d, want 10 20", buf[12],
			    buf[13]);
	}
	if (myrank == 0) {
		int sum = 0;

		for (k = 0; k < nprocs; k++)
			sum += k + 1;
		if (buf[0] != sum + nprocs)
			fail("after Fetch_and_op: %d, want %d", buf[0],
			    sum + nprocs);
	}
	ok(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), "fence (close)");
	MPI_Type_free(&vec);
	ok(MPI_Win_free(&win), "Win_free");
	if (win != MPI_WIN_NULL)
		fail("Win_free left the handle");
	if (!allocate)
		free(buf);

	/* Long and double on a window of other units: MAXLOC-free ops. */
	ok(MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL,
	    MPI_COMM_WORLD, &lw, &win), "Win_allocate (long)");
	{
		void *base;
		int flag;

		ok(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag),
		    "Win_get_attr BASE");
		if (!flag || base != lw)
			fail("MPI_WIN_BASE is %p, want %p", base, (void *)lw);
		lw[0] = 0;
		lw[1] = 0;
		memcpy(&lw[2], &(double){ 1.0 }, sizeof(double));
		ok(MPI_Win_fence(0, win), "fence (long)");
		lres = myrank;
		ok(MPI_Accumulate(&lres, 1, MPI_LONG, 0, 0, 1, MPI_LONG,
		    MPI_SUM, win), "Accumulate long");
		dv = 2.0;
		ok(MPI_Accumulate(&dv, 1, MPI_DOUBLE, 0, 2, 1, MPI_DOUBLE,
		    MPI_PROD, win), "Accumulate double");
		ok(MPI_Win_fence(0, win), "fence (long done)");
		if (myrank == 0) {
			double d;

			memcpy(&d, &lw[2], sizeof(d));
			if (lw[0] != (long)nprocs * (nprocs - 1) / 2)
				fail("long SUM: %ld", lw[0]);
			if (d != (double)(1 << nprocs))
				fail("double PROD: %g", d);
		}
	}
	ok(MPI_Win_free(&win), "Win_free (long)");
	return 0;
}

/*
 * Puts of 64 KiB and more travel as a request and its data: into the
 * window at once when the target data is one block, else through a
 * buffer; a dynamic window's target out of its memory is refused.
 */
#define BIG	(40 * 1024)

static void
big_run(void)
{
	MPI_Datatype vec;
	MPI_Win win;
	int *mem, *src, i, right, left;

	right = (myrank + 1) % nprocs;
	left = (myrank + nprocs - 1) % nprocs;
	src = xzalloc(BIG * sizeof(int));
	for (i = 0; i < BIG; i++)
		src[i] = myrank * 100000 + i;
	ok(MPI_Win_allocate(3 * BIG * sizeof(int), sizeof(int), MPI_INFO_NULL,
	    MPI_COMM_WORLD, &mem, &win), "Win_allocate (big)");
	memset(mem, 0xff, 3 * BIG * sizeof(int));
	MPI_Type_vector(BIG, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	ok(MPI_Win_fence(0, win), "fence (big)");
	ok(MPI_Put(src, BIG, MPI_INT, right, 0, BIG, MPI_INT, win),
	    "Put of 160 KiB");
	ok(MPI_Put(src, BIG, MPI_INT, right, BIG, 1, vec, win),
	    "Put of 160 KiB, vector target");
	ok(MPI_Win_fence(0, win), "fence (big done)");
	for (i = 0; i < BIG; i++)
		if (mem[i] != left * 100000 + i) {
			fail("big put: mem[%d] = %d, want %d", i, mem[i],
			    left * 100000 + i);
			break;
		}
	for (i = 0; i < 2 * BIG; i++) {
		int want = i % 2 == 0 ? left * 100000 + i / 2 : -1;

		if (mem[BIG + i] != want) {
			fail("big vector put: mem[%d] = %d, want %d", BIG + i,
			    mem[BIG + i], want);
			break;
		}
	}
	MPI_Type_free(&vec);
	ok(MPI_Win_free(&win), "Win_free (big)");
	free(src);
}

int
main(int argc, char **argv)
{
	init(&argc, &argv);
	flavor_run(0);
	flavor_run(1);
	big_run();
	return finish();
}
