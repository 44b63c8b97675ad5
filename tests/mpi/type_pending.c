/* SPDX-License-Identifier: ISC */
/*
 * type_pending: a derived type freed while a nonblocking receive that
 * uses it is still pending stays valid until the receive completes (the
 * standard: freeing a type does not affect communication using it).
 * Also a persistent-free case: the parts of a type freed before the
 * type itself.  Between two ranks the sender waits for a go-ahead, so
 * the receive is surely pending when the type is freed; a lone rank
 * sends to itself.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_pending"
#define TAG_ERRS	32000

static int	errs, myrank;

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
	int	i, size, e, total = errs;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (myrank == 0) {
		for (i = 1; i < size; i++) {
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

int
main(int argc, char *argv[])
{
	MPI_Datatype	t, v;
	MPI_Request	req;
	MPI_Status	st;
	double		src[64], dst[64];
	int		k, size, peer, go = 1, round, count;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	for (round = 0; round < 20; round++) {
		for (k = 0; k < 64; k++) {
			src[k] = myrank * 1000 + k + round;
			dst[k] = -1;
		}
		/* Doubles 0, 3, 6, ...: a type that travels packed. */
		MPI_Type_vector(16, 1, 3, MPI_DOUBLE, &v);
		MPI_Type_dup(v, &t);
		MPI_Type_free(&v);	/* a part freed first */
		MPI_Type_commit(&t);
		MPI_Irecv(dst, 1, t, peer, round, MPI_COMM_WORLD, &req);
		MPI_Type_free(&t);
		/* Reuse the freed memory, as a later allocation would. */
		MPI_Type_contiguous(7, MPI_CHAR, &v);
		if (peer != myrank) {
			MPI_Sendrecv(&go, 1, MPI_INT, peer, 30000 + round,
			    &k, 1, MPI_INT, peer, 30000 + round,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		MPI_Send(src, 16, MPI_DOUBLE, peer, round, MPI_COMM_WORLD);
		MPI_Wait(&req, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &count);
		if (count != 16)
			fail("round %d: %d doubles arrived", round, count);
		for (k = 0; k < 64; k++) {
			double want = k % 3 == 0 && k < 48 ?
			    peer * 1000 + k / 3 + round : -1;

			if (dst[k] != want) {
				fail("round %d: [%d] is %g, expected %g",
				    round, k, dst[k], want);
				break;
			}
		}
		MPI_Type_free(&v);
	}
	return finish();
}
