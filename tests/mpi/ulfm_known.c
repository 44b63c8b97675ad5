/* SPDX-License-Identifier: ISC */
/*
 * ulfm_known: the process failure a call reports is one the process
 * knows of.  The last rank dies; rank 0 sends to it until a send
 * fails (a broken connection, usually before the launcher's view of
 * the death has come), then at once asks MPIX_Comm_get_failed and
 * MPIX_Comm_failure_get_acked after MPIX_Comm_failure_ack: the dead
 * rank must be in both.  The ULFM project's stress/pingpairs, whose
 * error handler acknowledges and lists the failed, found none.  Eager
 * sends (one int) and rendezvous sends (1 MiB) both.
 */
#define NAME "ulfm_known"
#include "ulfm.h"

#define BIG	(1 << 20)

/* Is world rank w in the group of the failed g? */
static int
lists(MPI_Group g, int w)
{
	MPI_Group world;
	int n, i, *in, *out, hit = 0;

	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_size(g, &n);
	in = calloc((size_t)n + 1, sizeof(*in));
	out = calloc((size_t)n + 1, sizeof(*out));
	for (i = 0; i < n; i++)
		in[i] = i;
	MPI_Group_translate_ranks(g, n, in, world, out);
	for (i = 0; i < n; i++)
		hit |= out[i] == w;
	free(in);
	free(out);
	MPI_Group_free(&world);
	return hit;
}

/* Send to victim until a send fails; then it must be known failed. */
static void
send_until_failed(MPI_Comm comm, int victim, char *buf, int len,
    const char *what)
{
	MPI_Group g;
	int rc, i;

	for (i = 0; i < 100000; i++)
		if ((rc = MPI_Send(buf, len, MPI_BYTE, victim, 1, comm)) !=
		    MPI_SUCCESS)
			break;
	expect(rc, MPIX_ERR_PROC_FAILED, what);
	MPIX_Comm_get_failed(comm, &g);
	if (!lists(g, victim))
		fail("%s failed, but MPIX_Comm_get_failed does not list "
		    "rank %d", what, victim);
	MPI_Group_free(&g);
	MPIX_Comm_failure_ack(comm);
	MPIX_Comm_failure_get_acked(comm, &g);
	if (!lists(g, victim))
		fail("%s failed, but MPIX_Comm_failure_get_acked does not "
		    "list rank %d", what, victim);
	MPI_Group_free(&g);
}

int
main(int argc, char **argv)
{
	static char buf[BIG];
	MPI_Comm eager, rdv;
	int victim;

	init(&argc, &argv);
	victim = nprocs - 1;
	MPI_Comm_dup(MPI_COMM_WORLD, &eager);
	MPI_Comm_dup(MPI_COMM_WORLD, &rdv);
	/* The connections are up, both ways. */
	if (myrank == 0)
		MPI_Send(buf, 1, MPI_BYTE, victim, 0, MPI_COMM_WORLD);
	if (myrank == victim)
		MPI_Recv(buf, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	if (myrank == 0) {
		send_until_failed(eager, victim, buf, 1, "an eager send");
		send_until_failed(rdv, victim, buf, BIG,
		    "a rendezvous send");
	}
	MPI_Comm_free(&eager);
	MPI_Comm_free(&rdv);
	await_failures(MPI_COMM_WORLD, 1);
	return finish();
}
