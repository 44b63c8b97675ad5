/* SPDX-License-Identifier: ISC */
/*
 * completion: MPI_Wait, Test, Waitany, Testany, Waitsome, Testsome,
 * Waitall and Testall over arrays that mix active requests, requests
 * already completed and MPI_REQUEST_NULL, over arrays of nothing but
 * MPI_REQUEST_NULL (index and outcount MPI_UNDEFINED, empty statuses)
 * and over empty arrays.  A partner only sends the later messages
 * after a go message, so "nothing can have completed yet" is a
 * deterministic expectation.  Ranks pair up as (0,1), (2,3), ...; an
 * odd last rank, or a lone rank, is its own partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"completion"
#define MINPROCS	1
#define TAG_ERRS	32000
#define TAG_GO		9
#define N		6

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

static void
dirty(MPI_Status *st, int n)
{
	memset(st, 0x5a, (size_t)n * sizeof(*st));
}

/* An empty status has source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0. */
static void
isempty(const MPI_Status *st, const char *what)
{
	int	count;

	if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG)
		fail("%s: status source %d tag %d, expected the empty status"
		    " (%d, %d)", what, st->MPI_SOURCE, st->MPI_TAG,
		    MPI_ANY_SOURCE, MPI_ANY_TAG);
	MPI_Get_count(st, MPI_INT, &count);
	if (count != 0)
		fail("%s: count %d in an empty status", what, count);
}

static void
nullreqs(MPI_Request *r, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		r[i] = MPI_REQUEST_NULL;
}

static void
allnull(void)
{
	MPI_Request	r[N], one;
	MPI_Status	st[N];
	int		idx[N], i, index, outcount, flag;
	char		what[48];

	one = MPI_REQUEST_NULL;
	dirty(st, 1);
	MPI_Wait(&one, st);
	isempty(st, "Wait(MPI_REQUEST_NULL)");
	dirty(st, 1);
	flag = 0;
	MPI_Test(&one, &flag, st);
	if (!flag)
		fail("Test(MPI_REQUEST_NULL): flag false");
	isempty(st, "Test(MPI_REQUEST_NULL)");

	nullreqs(r, N);
	dirty(st, 1);
	index = 12345;
	MPI_Waitany(N, r, &index, st);
	if (index != MPI_UNDEFINED)
		fail("Waitany(all null): index %d, expected MPI_UNDEFINED",
		    index);
	isempty(st, "Waitany(all null)");

	index = 12345;
	flag = 0;
	dirty(st, 1);
	MPI_Testany(N, r, &index, &flag, st);
	if (!flag || index != MPI_UNDEFINED)
		fail("Testany(all null): flag %d index %d, expected 1 and"
		    " MPI_UNDEFINED", flag, index);
	isempty(st, "Testany(all null)");

	outcount = 12345;
	MPI_Waitsome(N, r, &outcount, idx, st);
	if (outcount != MPI_UNDEFINED)
		fail("Waitsome(all null): outcount %d, expected"
		    " MPI_UNDEFINED", outcount);
	outcount = 12345;
	MPI_Testsome(N, r, &outcount, idx, st);
	if (outcount != MPI_UNDEFINED)
		fail("Testsome(all null): outcount %d, expected"
		    " MPI_UNDEFINED", outcount);

	flag = 0;
	dirty(st, N);
	MPI_Testall(N, r, &flag, st);
	if (!flag)
		fail("Testall(all null): flag false");
	for (i = 0; i < N; i++) {
		snprintf(what, sizeof(what), "Testall(all null) status %d", i);
		isempty(&st[i], what);
	}
	dirty(st, N);
	MPI_Waitall(N, r, st);
	for (i = 0; i < N; i++) {
		snprintf(what, sizeof(what), "Waitall(all null) status %d", i);
		isempty(&st[i], what);
	}

	/* Empty arrays behave as arrays of null requests. */
	index = 12345;
	MPI_Waitany(0, r, &index, MPI_STATUS_IGNORE);
	if (index != MPI_UNDEFINED)
		fail("Waitany(0): index %d", index);
	index = 12345;
	flag = 0;
	MPI_Testany(0, r, &index, &flag, MPI_STATUS_IGNORE);
	if (!flag || index != MPI_UNDEFINED)
		fail("Testany(0): flag %d index %d", flag, index);
	outcount = 12345;
	MPI_Waitsome(0, r, &outcount, idx, MPI_STATUSES_IGNORE);
	if (outcount != MPI_UNDEFINED)
		fail("Waitsome(0): outcount %d", outcount);
	outcount = 12345;
	MPI_Testsome(0, r, &outcount, idx, MPI_STATUSES_IGNORE);
	if (outcount != MPI_UNDEFINED)
		fail("Testsome(0): outcount %d", outcount);
	flag = 0;
	MPI_Testall(0, r, &flag, MPI_STATUSES_IGNORE);
	if (!flag)
		fail("Testall(0): flag false");
	MPI_Waitall(0, r, MPI_STATUSES_IGNORE);
}

/*
 * Receives for tags 1, 2 and 3 sit at indices 1, 3 and 4 of an array
 * whose other entries are MPI_REQUEST_NULL.  The partner sends tag 2
 * at once and tags 1 and 3 only after our go message.
 */
static void
mixed(int peer)
{
	MPI_Request	r[N], s[3];
	MPI_Status	st[N];
	int		buf[N], idx[N], done[N];
	int		i, j, index, outcount, flag, ndone, v = 1, w, gin;

	nullreqs(r, N);
	for (i = 0; i < N; i++)
		buf[i] = -1;
	MPI_Irecv(&buf[1], 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]);
	MPI_Irecv(&buf[3], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[3]);
	MPI_Irecv(&buf[4], 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[4]);
	w = 20;
	MPI_Isend(&w, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &s[0]);

	index = -1;
	dirty(st, 1);
	MPI_Waitany(N, r, &index, st);
	if (index != 3)
		fail("Waitany: index %d, expected 3", index);
	else {
		if (r[3] != MPI_REQUEST_NULL)
			fail("Waitany: completed request not set to"
			    " MPI_REQUEST_NULL");
		if (st[0].MPI_SOURCE != peer || st[0].MPI_TAG != 2 ||
		    buf[3] != 20)
			fail("Waitany: source %d tag %d value %d, expected"
			    " %d 2 20", st[0].MPI_SOURCE, st[0].MPI_TAG,
			    buf[3], peer);
	}

	/* Tags 1 and 3 have not been sent: nothing can complete. */
	index = 12345;
	flag = 1;
	MPI_Testany(N, r, &index, &flag, MPI_STATUS_IGNORE);
	if (flag || index != MPI_UNDEFINED)
		fail("Testany with nothing ready: flag %d index %d, expected"
		    " 0 and MPI_UNDEFINED", flag, index);
	outcount = 12345;
	MPI_Testsome(N, r, &outcount, idx, st);
	if (outcount != 0)
		fail("Testsome with nothing ready: outcount %d, expected 0",
		    outcount);
	flag = 1;
	MPI_Testall(N, r, &flag, MPI_STATUSES_IGNORE);
	if (flag)
		fail("Testall with nothing ready: flag true");
	if (r[1] == MPI_REQUEST_NULL || r[4] == MPI_REQUEST_NULL)
		fail("failed Testall changed an active request");

	MPI_Isend(&v, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD, &s[1]);
	MPI_Recv(&gin, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
	w = 10;
	MPI_Isend(&w, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &s[0]);
	v = 30;
	MPI_Isend(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &s[1]);

	memset(done, 0, sizeof(done));
	for (ndone = 0; ndone < 2;) {
		outcount = -1;
		dirty(st, N);
		MPI_Waitsome(N, r, &outcount, idx, st);
		if (outcount < 1 || outcount > 2 - ndone) {
			fail("Waitsome: outcount %d with %d pending",
			    outcount, 2 - ndone);
			break;
		}
		for (j = 0; j < outcount; j++) {
			i = idx[j];
			if ((i != 1 && i != 4) || done[i]++) {
				fail("Waitsome: bad or repeated index %d", i);
				continue;
			}
			if (r[i] != MPI_REQUEST_NULL)
				fail("Waitsome: request %d not freed", i);
			if (st[j].MPI_TAG != (i == 1 ? 1 : 3) ||
			    st[j].MPI_SOURCE != peer ||
			    buf[i] != (i == 1 ? 10 : 30))
				fail("Waitsome: index %d tag %d source %d"
				    " value %d", i, st[j].MPI_TAG,
				    st[j].MPI_SOURCE, buf[i]);
		}
		ndone += outcount;
	}
	outcount = 12345;
	MPI_Waitsome(N, r, &outcount, idx, st);
	if (outcount != MPI_UNDEFINED)
		fail("Waitsome after all done: outcount %d", outcount);
	MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
}

/* Poll with Testall, Testany and Testsome until everything is done. */
static void
polling(int peer)
{
	MPI_Request	r[N], s[N];
	MPI_Status	st[N];
	int		buf[N], out[N], idx[N], seen[N];
	int		i, j, flag, index, outcount, ndone;

	for (i = 0; i < N; i++) {
		out[i] = 100 + i;
		buf[i] = -1;
		MPI_Irecv(&buf[i], 1, MPI_INT, peer, 40 + i, MPI_COMM_WORLD,
		    &r[i]);
	}
	for (i = N - 1; i >= 0; i--)
		MPI_Isend(&out[i], 1, MPI_INT, peer, 40 + i, MPI_COMM_WORLD,
		    &s[i]);
	flag = 0;
	while (!flag)
		MPI_Testall(N, r, &flag, st);
	for (i = 0; i < N; i++) {
		if (r[i] != MPI_REQUEST_NULL)
			fail("Testall: request %d not freed", i);
		if (buf[i] != 100 + i || st[i].MPI_TAG != 40 + i ||
		    st[i].MPI_SOURCE != peer)
			fail("Testall: entry %d value %d tag %d source %d",
			    i, buf[i], st[i].MPI_TAG, st[i].MPI_SOURCE);
	}
	flag = 0;
	while (!flag)
		MPI_Testall(N, s, &flag, MPI_STATUSES_IGNORE);

	/* Testany over a mix of receives and sends. */
	for (i = 0; i < N; i += 2) {
		buf[i] = -1;
		MPI_Irecv(&buf[i], 1, MPI_INT, peer, 50 + i, MPI_COMM_WORLD,
		    &r[i]);
		MPI_Isend(&out[i], 1, MPI_INT, peer, 50 + i, MPI_COMM_WORLD,
		    &r[i + 1]);
	}
	memset(seen, 0, sizeof(seen));
	for (ndone = 0; ndone < N;) {
		flag = 0;
		index = -1;
		MPI_Testany(N, r, &index, &flag, &st[0]);
		if (!flag)
			continue;
		if (index < 0 || index >= N || seen[index]++) {
			fail("Testany: bad or repeated index %d", index);
			break;
		}
		if (index % 2 == 0 && (buf[index] != 100 + index ||
		    st[0].MPI_TAG != 50 + index))
			fail("Testany: index %d value %d tag %d", index,
			    buf[index], st[0].MPI_TAG);
		ndone++;
	}
	index = 12345;
	flag = 0;
	MPI_Testany(N, r, &index, &flag, MPI_STATUS_IGNORE);
	if (!flag || index != MPI_UNDEFINED)
		fail("Testany after all done: flag %d index %d", flag, index);

	/* Testsome, with MPI_STATUSES_IGNORE. */
	for (i = 0; i < N; i++) {
		buf[i] = -1;
		MPI_Irecv(&buf[i], 1, MPI_INT, peer, 60, MPI_COMM_WORLD,
		    &r[i]);
	}
	for (i = 0; i < N; i++)
		MPI_Isend(&out[i], 1, MPI_INT, peer, 60, MPI_COMM_WORLD,
		    &s[i]);
	memset(seen, 0, sizeof(seen));
	for (ndone = 0; ndone < N;) {
		outcount = -1;
		MPI_Testsome(N, r, &outcount, idx, MPI_STATUSES_IGNORE);
		if (outcount < 0 || outcount > N - ndone) {
			fail("Testsome: outcount %d with %d pending",
			    outcount, N - ndone);
			break;
		}
		for (j = 0; j < outcount; j++) {
			if (idx[j] < 0 || idx[j] >= N || seen[idx[j]]++)
				fail("Testsome: bad or repeated index %d",
				    idx[j]);
		}
		ndone += outcount;
	}
	/* Same tag, so the order of the receives decides the values. */
	for (i = 0; i < N; i++)
		if (buf[i] != 100 + i)
			fail("Testsome: receive %d got %d, expected %d", i,
			    buf[i], 100 + i);
	MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
}

int
main(int argc, char *argv[])
{
	int	size, peer;

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
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	allnull();
	mixed(peer);
	polling(peer);
	return finish();
}
