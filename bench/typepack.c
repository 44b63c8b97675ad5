/* SPDX-License-Identifier: ISC */
/*
 * The speed of MPI_Pack and MPI_Unpack on strided datatypes, run with
 * one rank.  The headline case is MPI_Type_vector(1 << 20, 1, 2,
 * MPI_DOUBLE): every other double of a 16 MB array, 8 MB packed.  Other
 * cases show the other block lengths of the compacted description (4
 * and 16 bytes, an odd 12), a vector of structs (a loop over two
 * blocks), and a plain memcpy of the packed size as the ceiling.  The
 * same source builds with ftcc and with Open MPI's mpicc.
 *
 * usage: typepack [-r repeats] [-n elements]
 *
 * Each case is packed and unpacked repeats times after one warm-up;
 * one line per case and direction gives GB/s of packed data (GB = 10^9
 * bytes): the minimum, the median and the maximum over the repeats.
 * Unpacked data is checked once against the original; a mismatch exits
 * 1.  Benchmarks measure; nothing here asserts a timing.
 */

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define MAXREPEATS	1000

struct result {
	double	 min, median, max;
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct result
summarize(double *gbs, int n)
{
	struct result r;

	qsort(gbs, (size_t)n, sizeof(*gbs), cmp_double);
	r.min = gbs[0];
	r.median = n % 2 ? gbs[n / 2] : (gbs[n / 2 - 1] + gbs[n / 2]) / 2;
	r.max = gbs[n - 1];
	return r;
}

static void
report(const char *what, const char *name, int bytes, struct result r)
{
	printf("%-6s %-36s %9d bytes  GB/s min %6.2f  median %6.2f  "
	    "max %6.2f\n", what, name, bytes, r.min, r.median, r.max);
	fflush(stdout);
}

/*
 * Pack and unpack one element of type (whose data lies in a buffer of
 * span bytes from its lb) repeats times; check the round trip.
 */
static int
run_case(const char *name, MPI_Datatype type, int repeats)
{
	MPI_Aint lb, extent, tlb, textent;
	double *gbs, t0;
	unsigned char *src, *dst, *packed;
	int size, pos, i, bad = 0;
	size_t j;

	MPI_Type_commit(&type);
	MPI_Type_size(type, &size);
	MPI_Type_get_extent(type, &lb, &extent);
	MPI_Type_get_true_extent(type, &tlb, &textent);
	src = malloc((size_t)textent);
	dst = malloc((size_t)textent);
	packed = malloc((size_t)size);
	gbs = calloc((size_t)repeats, sizeof(*gbs));
	if (src == NULL || dst == NULL || packed == NULL || gbs == NULL) {
		fprintf(stderr, "typepack: out of memory\n");
		exit(111);
	}
	for (j = 0; j < (size_t)textent; j++)
		src[j] = (unsigned char)(j * 7 + 1);
	memset(dst, 0, (size_t)textent);

	/* Warm-up, which also faults in every page. */
	pos = 0;
	MPI_Pack(src - tlb, 1, type, packed, size, &pos, MPI_COMM_WORLD);
	pos = 0;
	MPI_Unpack(packed, size, &pos, dst - tlb, 1, type, MPI_COMM_WORLD);

	for (i = 0; i < repeats; i++) {
		pos = 0;
		t0 = MPI_Wtime();
		MPI_Pack(src - tlb, 1, type, packed, size, &pos,
		    MPI_COMM_WORLD);
		gbs[i] = size / (MPI_Wtime() - t0) / 1e9;
	}
	report("pack", name, size, summarize(gbs, repeats));
	for (i = 0; i < repeats; i++) {
		pos = 0;
		t0 = MPI_Wtime();
		MPI_Unpack(packed, size, &pos, dst - tlb, 1, type,
		    MPI_COMM_WORLD);
		gbs[i] = size / (MPI_Wtime() - t0) / 1e9;
	}
	report("unpack", name, size, summarize(gbs, repeats));

	/* The bytes the type covers came back; compare them by packing. */
	pos = 0;
	memset(packed, 0, (size_t)size);
	MPI_Pack(dst - tlb, 1, type, packed, size, &pos, MPI_COMM_WORLD);
	{
		unsigned char *want = malloc((size_t)size);

		if (want == NULL)
			exit(111);
		pos = 0;
		MPI_Pack(src - tlb, 1, type, want, size, &pos, MPI_COMM_WORLD);
		if (memcmp(want, packed, (size_t)size) != 0) {
			fprintf(stderr, "typepack: %s: round trip differs\n",
			    name);
			bad = 1;
		}
		free(want);
	}
	MPI_Type_free(&type);
	free(src);
	free(dst);
	free(packed);
	free(gbs);
	return bad;
}

/* The ceiling: memcpy of as many bytes as the headline case packs. */
static void
run_memcpy(int bytes, int repeats)
{
	unsigned char *a, *b;
	double *gbs, t0;
	int i;

	a = malloc((size_t)bytes);
	b = malloc((size_t)bytes);
	gbs = calloc((size_t)repeats, sizeof(*gbs));
	if (a == NULL || b == NULL || gbs == NULL)
		exit(111);
	memset(a, 1, (size_t)bytes);
	memcpy(b, a, (size_t)bytes);
	for (i = 0; i < repeats; i++) {
		t0 = MPI_Wtime();
		memcpy(b, a, (size_t)bytes);
		gbs[i] = bytes / (MPI_Wtime() - t0) / 1e9;
		/* Keep the copy from being optimized away. */
		a[i % bytes] = b[(i + 1) % bytes];
	}
	report("memcpy", "(packed size, dense)", bytes,
	    summarize(gbs, repeats));
	free(a);
	free(b);
	free(gbs);
}

static void
usage(void)
{
	fprintf(stderr, "usage: typepack [-r repeats] [-n elements]\n");
	exit(100);
}

int
main(int argc, char *argv[])
{
	struct { int i; double d; } s;
	MPI_Datatype t, st, ts[2] = { MPI_INT, MPI_DOUBLE };
	MPI_Aint disps[2];
	char name[64];
	long v;
	char *end;
	int ch, repeats = 20, n = 1 << 20, bad = 0, bl[2] = { 1, 1 };

	MPI_Init(&argc, &argv);
	while ((ch = getopt(argc, argv, "n:r:")) != -1) {
		switch (ch) {
		case 'n':
		case 'r':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || v < 1 ||
			    v > (ch == 'r' ? MAXREPEATS : 1L << 26))
				usage();
			if (ch == 'n')
				n = (int)v;
			else
				repeats = (int)v;
			break;
		default:
			usage();
		}
	}

	snprintf(name, sizeof(name), "vector(%d,1,2,MPI_DOUBLE)", n);
	MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t);
	bad |= run_case(name, t, repeats);

	snprintf(name, sizeof(name), "vector(%d,1,2,MPI_INT)", 2 * n);
	MPI_Type_vector(2 * n, 1, 2, MPI_INT, &t);
	bad |= run_case(name, t, repeats);

	snprintf(name, sizeof(name), "vector(%d,2,4,MPI_DOUBLE)", n / 2);
	MPI_Type_vector(n / 2, 2, 4, MPI_DOUBLE, &t);
	bad |= run_case(name, t, repeats);

	snprintf(name, sizeof(name), "vector(%d,3,4,MPI_INT)", 2 * n / 3);
	MPI_Type_vector(2 * n / 3, 3, 4, MPI_INT, &t);
	bad |= run_case(name, t, repeats);

	MPI_Get_address(&s.i, &disps[0]);
	MPI_Get_address(&s.d, &disps[1]);
	disps[1] -= disps[0];
	disps[0] = 0;
	MPI_Type_create_struct(2, bl, disps, ts, &st);
	snprintf(name, sizeof(name), "contiguous(%d,struct{int;double})",
	    n / 2);
	MPI_Type_contiguous(n / 2, st, &t);
	MPI_Type_free(&st);
	bad |= run_case(name, t, repeats);

	run_memcpy(n * 8, repeats);
	MPI_Finalize();
	return bad;
}
