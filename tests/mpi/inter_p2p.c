/* SPDX-License-Identifier: ISC */
/*
 * inter_p2p: point-to-point on intercommunicators, for every layout of
 * tests/mpi/inter.h and in both directions.  Ranks name the remote
 * group: every rank sends to every remote rank, and the receiver's
 * MPI_ANY_SOURCE and MPI_ANY_TAG match them all, with MPI_SOURCE the
 * sender's rank in its own group; named sources, nonblocking calls,
 * MPI_Sendrecv between partners, MPI_Ssend, probes, persistent
 * requests, MPI_PROC_NULL, a message long enough for a rendezvous, and
 * messages on the intercommunicator, on a duplicate of it and on
 * MPI_COMM_WORLD with the same source numbers and tags, which never
 * match each other's receives.  A rank that exists in the local group
 * but not in the remote one is MPI_ERR_RANK.
 */

#define NAME	"inter_p2p"
#include "inter.h"

#define LONG	(200 * 1024)	/* ints: past the eager limit */

/*
 * Both groups send to every remote rank; each receives them all, with
 * wildcards, on a duplicate that nothing else uses.
 */
static void
all_to_all(MPI_Comm parent)
{
	MPI_Comm	inter;
	MPI_Request	*req;
	MPI_Status	st;
	int		i, got, *seen, cnt;

	MPI_Comm_dup(parent, &inter);
	req = xzalloc(rs * sizeof(*req));
	seen = xzalloc(rs * sizeof(int));
	for (i = 0; i < rs; i++)
		MPI_Isend(&me, 1, MPI_INT, i, 10 + me, inter, &req[i]);
	for (i = 0; i < rs; i++) {
		MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter,
		    &st);
		MPI_Get_count(&st, MPI_INT, &cnt);
		if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= rs ||
		    got != st.MPI_SOURCE || st.MPI_TAG != 10 + got ||
		    cnt != 1) {
			fail("layout %d: got %d from %d, tag %d, count %d", l,
			    got, st.MPI_SOURCE, st.MPI_TAG, cnt);
			continue;
		}
		if (seen[got]++)
			fail("layout %d: remote rank %d twice", l, got);
	}
	MPI_Waitall(rs, req, MPI_STATUSES_IGNORE);
	MPI_Comm_free(&inter);
	free(req);
	free(seen);
}

/* Named sources, in reverse order of sending. */
static void
named(MPI_Comm inter)
{
	MPI_Request	*req;
	MPI_Status	*st;
	int		i, *got, v[2];

	req = xzalloc(2 * rs * sizeof(*req));
	st = xzalloc(2 * rs * sizeof(*st));
	got = xzalloc(2 * rs * sizeof(int));
	for (i = rs - 1; i >= 0; i--)
		MPI_Irecv(&got[2 * i], 2, MPI_INT, i, 3, inter, &req[i]);
	v[0] = me;
	v[1] = myrank;
	for (i = 0; i < rs; i++)
		MPI_Isend(v, 2, MPI_INT, i, 3, inter, &req[rs + i]);
	MPI_Waitall(2 * rs, req, st);
	for (i = 0; i < rs; i++)
		if (got[2 * i] != i || st[i].MPI_SOURCE != i)
			fail("layout %d: from remote %d got rank %d, source %d",
			    l, i, got[2 * i], st[i].MPI_SOURCE);
	free(req);
	free(st);
	free(got);
}

/* Partners: rank i of each group, where both groups have one. */
static void
partners(MPI_Comm inter)
{
	MPI_Status	st;
	MPI_Request	req[2];
	int		got = -1, flag = 0, *big, i;

	if (me >= rs)
		return;
	MPI_Sendrecv(&myrank, 1, MPI_INT, me, 4, &got, 1, MPI_INT, me, 4,
	    inter, &st);
	if (st.MPI_SOURCE != me || got == myrank)
		fail("layout %d: Sendrecv source %d, got %d", l, st.MPI_SOURCE,
		    got);
	/* Synchronous, both ways at once. */
	MPI_Issend(&me, 1, MPI_INT, me, 5, inter, &req[0]);
	MPI_Irecv(&got, 1, MPI_INT, me, 5, inter, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	if (got != me)
		fail("layout %d: Issend brought %d", l, got);
	/* A probe finds the partner's message by its remote rank. */
	MPI_Send(&me, 1, MPI_INT, me, 6, inter);
	MPI_Probe(MPI_ANY_SOURCE, 6, inter, &st);
	if (st.MPI_SOURCE != me)
		fail("layout %d: Probe says source %d", l, st.MPI_SOURCE);
	while (!flag)
		MPI_Iprobe(me, 6, inter, &flag, &st);
	MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 6, inter,
	    MPI_STATUS_IGNORE);
	/* Persistent requests, started twice. */
	MPI_Send_init(&me, 1, MPI_INT, me, 7, inter, &req[0]);
	MPI_Recv_init(&got, 1, MPI_INT, me, 7, inter, &req[1]);
	for (i = 0; i < 2; i++) {
		got = -1;
		MPI_Startall(2, req);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		if (got != me)
			fail("layout %d: persistent receive got %d", l, got);
	}
	MPI_Request_free(&req[0]);
	MPI_Request_free(&req[1]);
	/* A rendezvous. */
	big = xzalloc(LONG * sizeof(int));
	for (i = 0; i < LONG; i++)
		big[i] = myrank * 7 + i;
	MPI_Sendrecv_replace(big, LONG, MPI_INT, me, 8, me, 8, inter, &st);
	for (i = 0; i < LONG; i++)
		if (big[i] != big[0] + i || big[0] == myrank * 7) {
			fail("layout %d: long message wrong at %d", l, i);
			break;
		}
	free(big);
}

/*
 * The same source numbers and tags on MPI_COMM_WORLD, on the
 * intercommunicator and on a duplicate: each receive takes its own
 * communicator's message, posted in the other order.
 */
static void
contexts(MPI_Comm inter)
{
	MPI_Comm	dup;
	MPI_Request	req[3];
	int		v[3], got[3] = { -1, -1, -1 };

	MPI_Comm_dup(inter, &dup);
	if (me < rs) {
		v[0] = 100;
		v[1] = 200;
		v[2] = 300;
		/*
		 * Partners trade on both intercommunicators, and each
		 * rank sends itself one on MPI_COMM_WORLD, whose source
		 * is its world rank (me, for some).
		 */
		MPI_Send(&v[0], 1, MPI_INT, me, 1, inter);
		MPI_Send(&v[1], 1, MPI_INT, me, 1, dup);
		MPI_Isend(&v[2], 1, MPI_INT, myrank, 1, MPI_COMM_WORLD,
		    &req[2]);
		MPI_Irecv(&got[1], 1, MPI_INT, me, 1, dup, &req[1]);
		MPI_Irecv(&got[0], 1, MPI_INT, me, 1, inter, &req[0]);
		MPI_Wait(&req[1], MPI_STATUS_IGNORE);
		MPI_Wait(&req[0], MPI_STATUS_IGNORE);
		MPI_Recv(&got[2], 1, MPI_INT, myrank, 1, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		MPI_Wait(&req[2], MPI_STATUS_IGNORE);
		if (got[0] != 100 || got[1] != 200 || got[2] != 300)
			fail("layout %d: contexts mixed: %d %d %d", l, got[0],
			    got[1], got[2]);
	}
	MPI_Comm_free(&dup);
}

static void
errors(MPI_Comm inter)
{
	MPI_Status	st;
	int		rc, buf = 0;

	MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
	rc = MPI_Send(&buf, 1, MPI_INT, rs, 0, inter);
	expect(rc, MPI_ERR_RANK, "Send to the remote size");
	rc = MPI_Recv(&buf, 1, MPI_INT, rs, 0, inter, &st);
	expect(rc, MPI_ERR_RANK, "Recv from the remote size");
	if (ls > rs) {
		/* A rank of the local group only. */
		rc = MPI_Send(&buf, 1, MPI_INT, ls - 1, 0, inter);
		expect(rc, MPI_ERR_RANK, "Send to a local-only rank");
	}
	ok(MPI_Send(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, inter),
	    "Send to MPI_PROC_NULL");
	ok(MPI_Recv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, inter, &st),
	    "Recv from MPI_PROC_NULL");
	if (st.MPI_SOURCE != MPI_PROC_NULL)
		fail("layout %d: MPI_PROC_NULL status has source %d", l,
		    st.MPI_SOURCE);
}

static void
p2p(MPI_Comm inter)
{
	all_to_all(inter);
	named(inter);
	partners(inter);
	contexts(inter);
	errors(inter);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	each_layout(ONE_REST, p2p);
	return finish();
}
