/* SPDX-License-Identifier: ISC */
/*
 * pmpi: the profiling interface (MPI-3.1 14.2).  The test defines its
 * own MPI_Send and MPI_Barrier, which count their calls and forward to
 * PMPI_Send and PMPI_Barrier, as a tool would.  Every rank passes a
 * message around a ring and enters a barrier, a few rounds over, and
 * checks that its wrappers ran exactly once per call, that a direct
 * PMPI_Send bypasses them, and that the messages arrived intact.  Each
 * receive is posted before the matching send, so the test is correct
 * without buffering, including at one rank.  A tool's MPI_Pcontrol
 * (variadic) replaces ft's in the same way, and PMPI_Pcontrol is there.
 */

#define NAME	"pmpi"
#include "mtest.h"

#define ROUNDS	5
#define LEN	64
#define TAG	7

static int	nsend, nbarrier, npcontrol, lastlevel;

int
MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
    MPI_Comm comm)
{
	nsend++;
	return PMPI_Send(buf, count, type, dest, tag, comm);
}

int
MPI_Barrier(MPI_Comm comm)
{
	nbarrier++;
	return PMPI_Barrier(comm);
}

int
MPI_Pcontrol(const int level, ...)
{
	npcontrol++;
	lastlevel = level;
	return PMPI_Pcontrol(level);
}

/* Pass one message to the right, via MPI_Send or PMPI_Send. */
static void
ring(int round, int direct)
{
	int		sbuf[LEN], rbuf[LEN], i, right, left;
	MPI_Request	req;

	right = (myrank + 1) % nprocs;
	left = (myrank + nprocs - 1) % nprocs;
	for (i = 0; i < LEN; i++) {
		sbuf[i] = myrank * 1000 + round * 100 + i;
		rbuf[i] = -1;
	}
	ok(MPI_Irecv(rbuf, LEN, MPI_INT, left, TAG, MPI_COMM_WORLD, &req),
	    "MPI_Irecv");
	if (direct)
		ok(PMPI_Send(sbuf, LEN, MPI_INT, right, TAG, MPI_COMM_WORLD),
		    "PMPI_Send");
	else
		ok(MPI_Send(sbuf, LEN, MPI_INT, right, TAG, MPI_COMM_WORLD),
		    "MPI_Send");
	ok(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
	for (i = 0; i < LEN; i++)
		if (rbuf[i] != left * 1000 + round * 100 + i) {
			fail("round %d: rbuf[%d] = %d, expected %d", round, i,
			    rbuf[i], left * 1000 + round * 100 + i);
			break;
		}
}

int
main(int argc, char **argv)
{
	int	r;

	init(&argc, &argv);
	if ((void *)MPI_Send == (void *)PMPI_Send)
		fail("MPI_Send is PMPI_Send: the wrapper was not linked");
	if ((void *)MPI_Barrier == (void *)PMPI_Barrier)
		fail("MPI_Barrier is PMPI_Barrier: the wrapper was not linked");

	nsend = nbarrier = 0;
	for (r = 0; r < ROUNDS; r++) {
		ring(r, 0);
		ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	}
	if (nsend != ROUNDS)
		fail("MPI_Send wrapper ran %d times, expected %d", nsend,
		    ROUNDS);
	if (nbarrier != ROUNDS)
		fail("MPI_Barrier wrapper ran %d times, expected %d",
		    nbarrier, ROUNDS);

	/* The PMPI_ entry points bypass the wrappers. */
	nsend = nbarrier = 0;
	ring(ROUNDS, 1);
	ok(PMPI_Barrier(MPI_COMM_WORLD), "PMPI_Barrier");
	if (nsend != 0 || nbarrier != 0)
		fail("PMPI_ calls ran the wrappers (%d sends, %d barriers)",
		    nsend, nbarrier);

	ok(MPI_Pcontrol(2, "detail"), "MPI_Pcontrol");
	ok(MPI_Pcontrol(0), "MPI_Pcontrol");
	if (npcontrol != 2 || lastlevel != 0)
		fail("MPI_Pcontrol wrapper ran %d times, last level %d",
		    npcontrol, lastlevel);
	ok(PMPI_Pcontrol(1), "PMPI_Pcontrol");
	if (npcontrol != 2)
		fail("PMPI_Pcontrol ran the wrapper");
	return finish();
}
