/* SPDX-License-Identifier: ISC */
/*
 * probe: MPI_Probe and MPI_Iprobe.  Rank 0 probes with wildcards, sizes
 * a buffer from MPI_Get_count, and receives exactly the probed message
 * by naming its source and tag; a probe does not consume the message,
 * so probing again finds the same one.  Messages range from 0 bytes to
 * 1 MiB (rendezvous size for most transports).  MPI_Iprobe must report
 * nothing while no matching message can exist, and must eventually see
 * one that was sent.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"probe"
#define MINPROCS	2
#define TAG_ERRS	32000
#define TAG_GO		31000
#define NMSG		5

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

	/* Not before every rank is done: a wildcard receive still
	 * running on another rank must not catch an error count. */
	MPI_Barrier(MPI_COMM_WORLD);
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

static void *
xmalloc(size_t n)
{
	void	*p;

	/* malloc(0) may return NULL; ask for at least a byte. */
	if ((p = malloc(n + 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/* Message k from rank r: msglen(r, k) bytes on tag 10 + k. */
static int
msglen(int r, int k)
{
	static const int len[NMSG] = { 12, 0, 1024 * 1024, 4000, 65536 };

	return len[k] + (k == 1 ? 0 : 4 * (r % 4));
}

static unsigned char
pattern(int r, int k, int i)
{
	return (unsigned char)(r * 37 + k * 11 + i + (i >> 8));
}

static void
go(int size)
{
	int	i, one = 1;

	for (i = 1; i < size; i++)
		MPI_Send(&one, 1, MPI_INT, i, TAG_GO, MPI_COMM_WORLD);
}

static void
waitgo(void)
{
	int	v;

	MPI_Recv(&v, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
}

static void
sender(void)
{
	unsigned char	*buf;
	int		 k, i, n, v;

	waitgo();
	for (k = 0; k < NMSG; k++) {
		n = msglen(myrank, k);
		buf = xmalloc((size_t)n);
		for (i = 0; i < n; i++)
			buf[i] = pattern(myrank, k, i);
		MPI_Send(buf, n, MPI_BYTE, 0, 10 + k, MPI_COMM_WORLD);
		free(buf);
	}
	waitgo();
	v = myrank;
	MPI_Send(&v, 1, MPI_INT, 0, 50, MPI_COMM_WORLD);
	/* Keep our error count away from rank 0's wildcard probes. */
	waitgo();
}

static void
root(int size)
{
	MPI_Status	 st, st2;
	unsigned char	*buf;
	int		*next;
	int		 i, j, k, n, n2, r, flag, tag, v;

	next = xmalloc((size_t)size * sizeof(int));
	memset(next, 0, (size_t)size * sizeof(int));

	/* Nobody sends before the go message. */
	flag = 1;
	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
	if (flag)
		fail("Iprobe found a message from %d tag %d before any was"
		    " sent", st.MPI_SOURCE, st.MPI_TAG);

	go(size);
	for (i = 0; i < (size - 1) * NMSG; i++) {
		MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		r = st.MPI_SOURCE;
		tag = st.MPI_TAG;
		if (r < 1 || r >= size || tag < 10 || tag >= 10 + NMSG) {
			fail("Probe: source %d tag %d out of range", r, tag);
			break;
		}
		k = tag - 10;
		if (k != next[r])
			fail("Probe: from %d saw message %d, expected %d", r,
			    k, next[r]);
		next[r] = k + 1;
		MPI_Get_count(&st, MPI_BYTE, &n);
		if (n != msglen(r, k))
			fail("Probe: from %d message %d count %d, expected"
			    " %d", r, k, n, msglen(r, k));
		if (k == 2) {
			MPI_Get_count(&st, MPI_INT, &n2);
			if (n2 != n / (int)sizeof(int))
				fail("Probe: MPI_INT count %d, expected %d",
				    n2, n / (int)sizeof(int));
		}

		/* The message is still there for a second look. */
		MPI_Probe(r, tag, MPI_COMM_WORLD, &st2);
		MPI_Get_count(&st2, MPI_BYTE, &n2);
		if (st2.MPI_SOURCE != r || st2.MPI_TAG != tag || n2 != n)
			fail("second Probe: source %d tag %d count %d,"
			    " expected %d %d %d", st2.MPI_SOURCE,
			    st2.MPI_TAG, n2, r, tag, n);
		flag = 0;
		MPI_Iprobe(r, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st2);
		MPI_Get_count(&st2, MPI_BYTE, &n2);
		if (!flag || st2.MPI_SOURCE != r || st2.MPI_TAG != tag ||
		    n2 != n)
			fail("Iprobe after Probe: flag %d source %d tag %d"
			    " count %d, expected 1 %d %d %d", flag,
			    st2.MPI_SOURCE, st2.MPI_TAG, n2, r, tag, n);

		buf = xmalloc((size_t)n);
		MPI_Recv(buf, n, MPI_BYTE, r, tag, MPI_COMM_WORLD, &st2);
		MPI_Get_count(&st2, MPI_BYTE, &n2);
		if (n2 != n)
			fail("Recv of probed message: count %d, expected %d",
			    n2, n);
		for (j = 0; j < n; j++)
			if (buf[j] != pattern(r, k, j)) {
				fail("from %d message %d byte %d is %d,"
				    " expected %d", r, k, j, buf[j],
				    pattern(r, k, j));
				break;
			}
		free(buf);
	}
	for (r = 1; r < size; r++)
		if (next[r] != NMSG)
			fail("probed %d messages from %d, expected %d",
			    next[r], r, NMSG);

	/* Nothing is left over. */
	flag = 1;
	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
	if (flag)
		fail("Iprobe found a stray message from %d tag %d",
		    st.MPI_SOURCE, st.MPI_TAG);

	/* Poll with Iprobe until each sender's message shows up. */
	go(size);
	for (i = 1; i < size; i++) {
		flag = 0;
		while (!flag)
			MPI_Iprobe(MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &flag,
			    &st);
		if (st.MPI_TAG != 50 || st.MPI_SOURCE < 1 ||
		    st.MPI_SOURCE >= size)
			fail("Iprobe poll: source %d tag %d", st.MPI_SOURCE,
			    st.MPI_TAG);
		v = -1;
		MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 50, MPI_COMM_WORLD,
		    &st2);
		if (v != st.MPI_SOURCE)
			fail("Iprobe poll: message from %d carries %d",
			    st.MPI_SOURCE, v);
	}
	go(size);
	free(next);
}

int
main(int argc, char *argv[])
{
	int	size;

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
	if (myrank == 0)
		root(size);
	else
		sender();
	return finish();
}
