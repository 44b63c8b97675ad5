/* SPDX-License-Identifier: ISC */
/*
 * ring: pass a message around MPI_COMM_WORLD for sizes that straddle
 * the usual eager and rendezvous limits (0 B, 1 B, 1 KiB, 64 KiB - 1,
 * 64 KiB + 1 and 4 MiB), checking content and status at every hop.
 * Every rank posts its receive before the token is injected, so the
 * test is correct without any buffering, including at one rank where
 * rank 0 sends to itself.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"ring"
#define MINPROCS	1
#define TAG_ERRS	32000

static int	errs;	/* failures seen by this rank */
static int	myrank;

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

static unsigned char
pattern(size_t i, int seed)
{
	return (unsigned char)(i * 7 + (i >> 8) * 13 + (size_t)seed * 31 + 1);
}

static void
fill(unsigned char *p, size_t n, int seed)
{
	size_t	i;

	for (i = 0; i < n; i++)
		p[i] = pattern(i, seed);
}

static void
verify(const unsigned char *p, size_t n, int seed, const char *what)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (p[i] != pattern(i, seed)) {
			fail("%s: byte %zu of %zu is 0x%02x, expected 0x%02x",
			    what, i, n, p[i], pattern(i, seed));
			return;
		}
	}
}

int
main(int argc, char *argv[])
{
	static const int sizes[] = {
		0, 1, 1024, 65535, 65537, 4 * 1024 * 1024
	};
	MPI_Request	 req;
	MPI_Status	 st;
	unsigned char	*buf;
	char		 what[64];
	int		 size, left, right, i, count, tag, len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < MINPROCS) {
		if (myrank == 0)
			fprintf(stderr, "%s: needs at least %d ranks\n",
			    NAME, MINPROCS);
		MPI_Finalize();
		return 1;
	}
	right = (myrank + 1) % size;
	left = (myrank + size - 1) % size;

	buf = malloc(4 * 1024 * 1024 + 16);
	if (buf == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		len = sizes[i];
		tag = 10 + i;
		snprintf(what, sizeof(what), "%d-byte message from %d",
		    len, left);

		/*
		 * Poison the buffer, including a byte beyond the message,
		 * so that both a missing write and an overrun are seen.
		 */
		memset(buf, 0xa5, (size_t)len + 16);
		MPI_Irecv(buf, len + 16, MPI_BYTE, left, tag, MPI_COMM_WORLD,
		    &req);
		if (myrank == 0) {
			unsigned char	*out;

			/* A separate send buffer: at one rank we talk to us. */
			out = malloc((size_t)len + 1);
			if (out == NULL) {
				fprintf(stderr, "%s: out of memory\n", NAME);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			fill(out, (size_t)len, i);
			MPI_Send(out, len, MPI_BYTE, right, tag,
			    MPI_COMM_WORLD);
			MPI_Wait(&req, &st);
			free(out);
		} else {
			MPI_Wait(&req, &st);
		}
		verify(buf, (size_t)len, i, what);
		if (buf[len] != 0xa5)
			fail("%s: byte past the end was overwritten", what);
		if (st.MPI_SOURCE != left)
			fail("%s: status source %d", what, st.MPI_SOURCE);
		if (st.MPI_TAG != tag)
			fail("%s: status tag %d, expected %d", what,
			    st.MPI_TAG, tag);
		MPI_Get_count(&st, MPI_BYTE, &count);
		if (count != len)
			fail("%s: count %d, expected %d", what, count, len);
		if (myrank != 0)
			MPI_Send(buf, len, MPI_BYTE, right, tag,
			    MPI_COMM_WORLD);
	}

	/*
	 * A second lap in the other direction with the receive posted
	 * only when the token is due (blocking Recv), so large messages
	 * also travel while the receiver is not yet waiting.
	 */
	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		len = sizes[i];
		tag = 100 + i;
		snprintf(what, sizeof(what), "lap 2: %d-byte message from %d",
		    len, right);
		if (size == 1) {
			/* Nothing to add: lap 1 covered sending to self. */
			break;
		}
		if (myrank == 0) {
			fill(buf, (size_t)len, i + 50);
			MPI_Send(buf, len, MPI_BYTE, left, tag,
			    MPI_COMM_WORLD);
			memset(buf, 0, (size_t)len);
			MPI_Recv(buf, len, MPI_BYTE, right, tag,
			    MPI_COMM_WORLD, &st);
		} else {
			memset(buf, 0, (size_t)len);
			MPI_Recv(buf, len, MPI_BYTE, right, tag,
			    MPI_COMM_WORLD, &st);
		}
		verify(buf, (size_t)len, i + 50, what);
		MPI_Get_count(&st, MPI_BYTE, &count);
		if (count != len)
			fail("%s: count %d, expected %d", what, count, len);
		if (st.MPI_SOURCE != right || st.MPI_TAG != tag)
			fail("%s: status source %d tag %d", what,
			    st.MPI_SOURCE, st.MPI_TAG);
		if (myrank != 0)
			MPI_Send(buf, len, MPI_BYTE, left, tag,
			    MPI_COMM_WORLD);
	}

	free(buf);
	return finish();
}
