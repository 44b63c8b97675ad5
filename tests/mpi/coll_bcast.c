/* SPDX-License-Identifier: ISC */
/*
 * coll_bcast: MPI_Bcast from every root of messages from 0 bytes to
 * 4 MiB, short ones (binomial tree) and long ones (scatter and ring
 * allgather, including lengths that do not divide by the number of
 * ranks), in MPI_BYTE, MPI_INT and MPI_DOUBLE and in a strided derived
 * type, which must leave the gaps of the receive buffer alone.  Every
 * rank checks every element, and that nothing past the message moved.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_bcast"
#define TAG_ERRS	32000

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

static int
val(size_t i, int seed)
{
	return (int)(i * 2654435761u + (size_t)seed * 40503u) & 0x7fffffff;
}

static void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n > 0 ? n : 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static void
bytes_case(size_t len, int root, int seed)
{
	unsigned char	*b;
	size_t		 i;

	b = xmalloc(len + 8);
	for (i = 0; i < len + 8; i++)
		b[i] = myrank == root && i < len ? (unsigned char)val(i, seed) :
		    0xa5;
	MPI_Bcast(b, (int)len, MPI_BYTE, root, MPI_COMM_WORLD);
	for (i = 0; i < len; i++)
		if (b[i] != (unsigned char)val(i, seed)) {
			fail("bytes %zu root %d: byte %zu is %d", len, root, i,
			    b[i]);
			break;
		}
	for (i = len; i < len + 8; i++)
		if (b[i] != 0xa5) {
			fail("bytes %zu root %d: byte %zu past the end moved",
			    len, root, i);
			break;
		}
	free(b);
}

static void
int_case(int count, int root, int seed)
{
	int	*b, i;
	double	*d;

	b = xmalloc(((size_t)count + 1) * sizeof(*b));
	for (i = 0; i <= count; i++)
		b[i] = myrank == root && i < count ? val((size_t)i, seed) : -1;
	MPI_Bcast(b, count, MPI_INT, root, MPI_COMM_WORLD);
	for (i = 0; i < count; i++)
		if (b[i] != val((size_t)i, seed)) {
			fail("int %d root %d: element %d is %d", count, root,
			    i, b[i]);
			break;
		}
	if (b[count] != -1)
		fail("int %d root %d: element past the end moved", count,
		    root);
	free(b);

	d = xmalloc(((size_t)count + 1) * sizeof(*d));
	for (i = 0; i < count; i++)
		d[i] = myrank == root ? val((size_t)i, seed) / 7.0 : 0.0;
	MPI_Bcast(d, count, MPI_DOUBLE, root, MPI_COMM_WORLD);
	for (i = 0; i < count; i++)
		if (d[i] != val((size_t)i, seed) / 7.0) {
			fail("double %d root %d: element %d is %g", count,
			    root, i, d[i]);
			break;
		}
	free(d);
}

/* Every other int of a buffer, as one vector type. */
static void
strided_case(int count, int root, int seed)
{
	MPI_Datatype	 vec;
	int		*b, i;

	b = xmalloc((size_t)count * 2 * sizeof(*b));
	for (i = 0; i < 2 * count; i++)
		b[i] = myrank == root && i % 2 == 0 ?
		    val((size_t)i / 2, seed) : -7;
	MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	MPI_Bcast(b, 1, vec, root, MPI_COMM_WORLD);
	MPI_Type_free(&vec);
	for (i = 0; i < 2 * count; i++) {
		int want = i % 2 == 0 ? val((size_t)i / 2, seed) : -7;

		if (b[i] != want) {
			fail("strided %d root %d: int %d is %d, expected %d",
			    count, root, i, b[i], want);
			break;
		}
	}
	free(b);
}

int
main(int argc, char *argv[])
{
	static const size_t lens[] = {
		0, 1, 3, 100, 4097, 65536, 65537, 131072, 131075,
		1 << 20, (1 << 20) + 13, 4 << 20
	};
	static const int counts[] = { 1, 10, 1000, 40000, 100001 };
	int	i, root, seed = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	for (i = 0; i < (int)(sizeof(lens) / sizeof(lens[0])); i++)
		for (root = 0; root < nprocs; root++) {
			/* Long messages: a few roots are enough. */
			if (lens[i] > 65536 && root != 0 &&
			    root != nprocs - 1 && root != nprocs / 2)
				continue;
			bytes_case(lens[i], root, seed++);
		}
	for (i = 0; i < (int)(sizeof(counts) / sizeof(counts[0])); i++) {
		root = (i * 3) % nprocs;
		int_case(counts[i], root, seed++);
		strided_case(counts[i], nprocs - 1 - root, seed++);
	}
	/* count 0 with a NULL buffer is fine. */
	if (MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		fail("count 0 with a NULL buffer failed");
	/* MPI_COMM_SELF */
	int_case(5, 0, seed++);
	{
		int x = myrank;

		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_SELF);
		if (x != myrank)
			fail("MPI_COMM_SELF changed the value");
	}
	return finish();
}
