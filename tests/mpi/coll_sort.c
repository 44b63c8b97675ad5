/* SPDX-License-Identifier: ISC */
/*
 * coll_sort: a parallel sample sort, as an application would write it.
 * Each rank draws keys from its own seeded generator, sorts them,
 * picks samples; MPI_Allgather spreads the samples, every rank picks
 * the same splitters; MPI_Alltoall exchanges bucket sizes and
 * MPI_Alltoallv the keys; each rank sorts what it got.  The result is
 * checked as a whole: no key lost or made up (MPI_Allreduce of a count
 * and of a checksum), each rank's keys in order, each rank's first key
 * not below the previous rank's last (MPI_Sendrecv), and the ranks'
 * positions agree with MPI_Exscan of their counts and MPI_Scan.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_sort"
#define TAG_ERRS	32000
#define NKEYS		50000

static int	errs;
static int	myrank, nprocs;

static void
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 20)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
finish(void)
{
	int	i, e, total = errs;

	if (myrank == 0) {
		for (i = 1; i < nprocs; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, TAG_ERRS, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			total += e;
		}
		if (total == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, TAG_ERRS, MPI_COMM_WORLD);
	MPI_Finalize();
	return total != 0;
}

static void *xmalloc(size_t) __attribute__((unused));

static void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = calloc(1, n > 0 ? n : 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static uint64_t
next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	uint64_t	*keys, *samples, *all, *split, *out, seed, sum, tot;
	uint64_t	 gsum, gsum2, prevlast, mylast, mine;
	int		*scnt, *sdsp, *rcnt, *rdsp, nkeys, s, i, j, n, total;
	long long	 before, upto, nout, gkeys, gout;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	n = nprocs;

	/* Uneven input: rank r has NKEYS + 1000 r keys. */
	nkeys = NKEYS + 1000 * myrank;
	keys = xmalloc((size_t)nkeys * sizeof(*keys));
	seed = 0x9e3779b97f4a7c15ull * (uint64_t)(myrank + 1);
	for (i = 0, sum = 0; i < nkeys; i++) {
		keys[i] = next(&seed) % 1000000007ull;
		sum += keys[i];
	}
	qsort(keys, (size_t)nkeys, sizeof(*keys), cmp);

	/* n - 1 samples per rank, evenly spaced. */
	s = n - 1;
	samples = xmalloc((size_t)(s > 0 ? s : 1) * sizeof(*samples));
	for (i = 0; i < s; i++)
		samples[i] = keys[(size_t)(i + 1) * (size_t)nkeys / (size_t)n];
	all = xmalloc((size_t)(n * s + 1) * sizeof(*all));
	MPI_Allgather(samples, s, MPI_UINT64_T, all, s, MPI_UINT64_T,
	    MPI_COMM_WORLD);
	qsort(all, (size_t)(n * s), sizeof(*all), cmp);
	split = xmalloc((size_t)n * sizeof(*split));
	for (i = 0; i < s; i++)
		split[i] = all[(i + 1) * s];

	/* Buckets: keys below split[j] (and not below split[j-1]) go to j. */
	scnt = xmalloc((size_t)n * sizeof(int));
	sdsp = xmalloc((size_t)n * sizeof(int));
	rcnt = xmalloc((size_t)n * sizeof(int));
	rdsp = xmalloc((size_t)n * sizeof(int));
	for (i = 0, j = 0; j < n; j++) {
		sdsp[j] = i;
		while (i < nkeys && (j == n - 1 || keys[i] < split[j]))
			i++;
		scnt[j] = i - sdsp[j];
	}
	MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD);
	for (j = 0, total = 0; j < n; j++) {
		rdsp[j] = total;
		total += rcnt[j];
	}
	out = xmalloc((size_t)total * sizeof(*out));
	MPI_Alltoallv(keys, scnt, sdsp, MPI_UINT64_T, out, rcnt, rdsp,
	    MPI_UINT64_T, MPI_COMM_WORLD);
	qsort(out, (size_t)total, sizeof(*out), cmp);

	/* Nothing lost, nothing made up. */
	for (i = 0, tot = 0; i < total; i++)
		tot += out[i];
	MPI_Allreduce(&sum, &gsum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&tot, &gsum2, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (gsum != gsum2)
		fail("checksums differ: %llu before, %llu after",
		    (unsigned long long)gsum, (unsigned long long)gsum2);
	before = nkeys;
	nout = total;
	MPI_Allreduce(&before, &gkeys, 1, MPI_LONG_LONG, MPI_SUM,
	    MPI_COMM_WORLD);
	MPI_Allreduce(&nout, &gout, 1, MPI_LONG_LONG, MPI_SUM,
	    MPI_COMM_WORLD);
	if (gkeys != gout)
		fail("%lld keys went in, %lld came out", gkeys, gout);

	/* In order here, and after the previous rank's keys. */
	for (i = 1; i < total; i++)
		if (out[i - 1] > out[i]) {
			fail("keys %d and %d are out of order", i - 1, i);
			break;
		}
	mylast = total > 0 ? out[total - 1] : 0;
	mine = total > 0 ? out[0] : UINT64_MAX;
	prevlast = 0;
	MPI_Sendrecv(&mylast, 1, MPI_UINT64_T,
	    myrank + 1 < n ? myrank + 1 : MPI_PROC_NULL, 1, &prevlast, 1,
	    MPI_UINT64_T, myrank > 0 ? myrank - 1 : MPI_PROC_NULL, 1,
	    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (myrank > 0 && total > 0 && prevlast > mine)
		fail("my first key %llu is below rank %d's last %llu",
		    (unsigned long long)mine, myrank - 1,
		    (unsigned long long)prevlast);

	/* Positions: Exscan and Scan of the counts agree. */
	before = 0;
	MPI_Exscan(&nout, &before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (myrank == 0)
		before = 0;
	MPI_Scan(&nout, &upto, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (before + nout != upto)
		fail("exscan %lld + %lld is not scan %lld", before, nout,
		    upto);
	if (myrank == n - 1 && upto != gkeys)
		fail("the last rank ends at %lld of %lld", upto, gkeys);

	free(keys);
	free(samples);
	free(all);
	free(split);
	free(out);
	free(scnt);
	free(sdsp);
	free(rcnt);
	free(rdsp);
	return finish();
}
