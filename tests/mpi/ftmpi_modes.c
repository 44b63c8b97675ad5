/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_modes: FT-MPI's communicator and message modes under ftrun --ft
 * ftmpi (SHRINK and CONT for the job), set per communicator with the
 * info keys ft_comm_mode and ft_msg_mode.  The last rank dies once
 * every rank has posted a receive on a CONT and on a NOP communicator;
 * then:
 *  - CONT: the pending receive from a live rank completes with its
 *    message, sends to live ranks work, naming the dead rank fails;
 *  - NOP: the pending receive fails, and so does every operation, even
 *    with a live rank, until MPI_Comm_dup recovers the communicator;
 *  - SHRINK recovers to the survivors, renumbered; BLANK to the same
 *    ranks with a hole: naming it is MPI_ERR_RANK, a hole as root is
 *    MPI_ERR_ROOT, collectives skip it;
 *  - MPI_COMM_WORLD (SHRINK) is recovered in place.
 * Then rank 1 dies during a loop of allreduces on the shrunk
 * communicator (at its third), and the survivors recover again.
 */
#define NAME "ftmpi_modes"
#include "ulfm.h"

/* NOP: an operation on a communicator in error fails with one of these. */
static void
expect_nop(int rc, const char *what)
{
	int cls = rc;

	if (rc != MPI_SUCCESS)
		MPI_Error_class(rc, &cls);
	if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_REVOKED)
		fail("%s returned class %d, expected a failure", what, cls);
}

static MPI_Comm
with_modes(const char *cm, const char *mm)
{
	MPI_Comm c;
	MPI_Info info;

	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Info_create(&info);
	MPI_Info_set(info, "ft_comm_mode", cm);
	MPI_Info_set(info, "ft_msg_mode", mm);
	if (MPI_Comm_set_info(c, info) != MPI_SUCCESS)
		fail("MPI_Comm_set_info %s/%s", cm, mm);
	MPI_Info_free(&info);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	return c;
}

static void
check_info(MPI_Comm c, const char *cm, const char *mm)
{
	MPI_Info info;
	char v[64];
	int flag;

	MPI_Comm_get_info(c, &info);
	if (MPI_Info_get(info, "ft_comm_mode", sizeof(v) - 1, v, &flag) !=
	    MPI_SUCCESS || !flag || strcmp(v, cm) != 0)
		fail("ft_comm_mode is not %s", cm);
	if (MPI_Info_get(info, "ft_msg_mode", sizeof(v) - 1, v, &flag) !=
	    MPI_SUCCESS || !flag || strcmp(v, mm) != 0)
		fail("ft_msg_mode is not %s", mm);
	MPI_Info_free(&info);
}

int
main(int argc, char **argv)
{
	MPI_Comm cont, nop, blank, c2, n2, b2, w2;
	MPI_Request rc_, rn;
	MPI_Info bad;
	int victim, x = -1, y = -1, v, sum, want, i, rc, size, rank;

	init(&argc, &argv);
	if (nprocs < 4) {
		fail("run at 4 ranks or more");
		return finish();
	}
	victim = nprocs - 1;
	cont = with_modes("shrink", "cont");
	nop = with_modes("shrink", "nop");
	blank = with_modes("BLANK", "FT_MODE_NOP");
	check_info(blank, "blank", "nop");
	check_info(cont, "shrink", "cont");
	/* A bad value is a clear error, and changes nothing. */
	MPI_Info_create(&bad);
	MPI_Info_set(bad, "ft_comm_mode", "sideways");
	expect(MPI_Comm_set_info(cont, bad), MPI_ERR_INFO_VALUE,
	    "ft_comm_mode sideways");
	MPI_Info_free(&bad);
	check_info(cont, "shrink", "cont");

	/* Before: receives from rank 0 pending on both. */
	if (myrank == 1) {
		MPI_Irecv(&x, 1, MPI_INT, 0, 1, cont, &rc_);
		MPI_Irecv(&y, 1, MPI_INT, 0, 1, nop, &rn);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	await_failures(MPI_COMM_WORLD, 1);

	/* During: CONT goes on with the living, NOP fails. */
	if (myrank == 0) {
		v = 42;
		if (MPI_Send(&v, 1, MPI_INT, 1, 1, cont) != MPI_SUCCESS)
			fail("CONT: a send to a live rank failed");
		expect_nop(MPI_Send(&v, 1, MPI_INT, 1, 1, nop),
		    "NOP: a send to a live rank");
	}
	if (myrank == 1) {
		if (MPI_Wait(&rc_, MPI_STATUS_IGNORE) != MPI_SUCCESS || x != 42)
			fail("CONT: the pending receive got %d", x);
		expect_nop(MPI_Wait(&rn, MPI_STATUS_IGNORE),
		    "NOP: the pending receive from a live rank");
	}
	/* After: naming the dead one fails in every mode. */
	expect(MPI_Send(&v, 1, MPI_INT, victim, 2, cont), MPIX_ERR_PROC_FAILED,
	    "CONT: a send to the dead rank");
	expect_nop(MPI_Barrier(nop), "NOP: a barrier");
	expect_nop(MPI_Barrier(blank), "BLANK/NOP: a barrier before recovery");

	/*
	 * NOP, recovered; then a barrier on it, so that no rank begins the
	 * CONT communicator's recovery (which revokes it) while another
	 * still checks that it goes on.
	 */
	if (MPI_Comm_dup(nop, &n2) != MPI_SUCCESS)
		fail("recovery of the NOP communicator");
	sum = -1;
	if (MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, n2) !=
	    MPI_SUCCESS || sum != (nprocs - 1) * (nprocs - 2) / 2)
		fail("NOP, recovered: allreduce gave %d", sum);
	check_info(n2, "shrink", "nop");
	if (MPI_Barrier(n2) != MPI_SUCCESS)
		fail("NOP, recovered: a barrier");

	/* SHRINK. */
	if (MPI_Comm_dup(cont, &c2) != MPI_SUCCESS)
		fail("recovery of the CONT communicator");
	MPI_Comm_size(c2, &size);
	MPI_Comm_rank(c2, &rank);
	if (size != nprocs - 1 || rank != myrank)
		fail("SHRINK: size %d rank %d", size, rank);
	check_info(c2, "shrink", "cont");

	/* BLANK: the same ranks, a hole. */
	if (MPI_Comm_dup(blank, &b2) != MPI_SUCCESS)
		fail("recovery of the BLANK communicator");
	MPI_Comm_size(b2, &size);
	MPI_Comm_rank(b2, &rank);
	if (size != nprocs || rank != myrank)
		fail("BLANK: size %d rank %d", size, rank);
	expect(MPI_Send(&v, 1, MPI_INT, victim, 3, b2), MPI_ERR_RANK,
	    "BLANK: a send to the hole");
	expect(MPI_Recv(&v, 1, MPI_INT, victim, 3, b2, MPI_STATUS_IGNORE),
	    MPI_ERR_RANK, "BLANK: a receive from the hole");
	if (MPI_Barrier(b2) != MPI_SUCCESS)
		fail("BLANK: a barrier");
	sum = -1;
	if (MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, b2) !=
	    MPI_SUCCESS || sum != (nprocs - 1) * (nprocs - 2) / 2)
		fail("BLANK: allreduce gave %d", sum);
	v = myrank == 2 ? 77 : 0;
	if (MPI_Bcast(&v, 1, MPI_INT, 2, b2) != MPI_SUCCESS || v != 77)
		fail("BLANK: bcast from rank 2 gave %d", v);
	sum = -1;
	if (MPI_Reduce(&myrank, &sum, 1, MPI_INT, MPI_MAX, 1, b2) !=
	    MPI_SUCCESS || (myrank == 1 && sum != nprocs - 2))
		fail("BLANK: reduce to rank 1 gave %d", sum);
	expect(MPI_Bcast(&v, 1, MPI_INT, victim, b2), MPI_ERR_ROOT,
	    "BLANK: bcast from the hole");
	if (myrank == 0) {
		v = 5;
		if (MPI_Send(&v, 1, MPI_INT, 1, 4, b2) != MPI_SUCCESS)
			fail("BLANK: a send to a live rank");
	} else if (myrank == 1 && (MPI_Recv(&v, 1, MPI_INT, 0, 4, b2,
	    MPI_STATUS_IGNORE) != MPI_SUCCESS || v != 5))
		fail("BLANK: a receive from a live rank");

	/* MPI_COMM_WORLD, SHRINK: recovered in place. */
	if (MPI_Comm_dup(MPI_COMM_WORLD, &w2) != MPI_SUCCESS)
		fail("recovery of MPI_COMM_WORLD");
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != nprocs - 1)
		fail("MPI_COMM_WORLD has %d ranks after recovery", size);
	MPI_Comm_free(&w2);
	nprocs--;

	/* A failure during collectives: rank 1 dies at the third. */
	for (i = 0; i < 6; i++) {
		if (myrank == 1 && i == 2)
			die();
		sum = -1;
		rc = MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, c2);
		if (rc == MPI_SUCCESS) {
			MPI_Comm_size(c2, &size);
			if (sum != i * size)
				fail("allreduce %d gave %d", i, sum);
			continue;
		}
		/* The one before the death may fail too: rank 1 may leave
		 * it before its last message is read. */
		if (i < 1)
			fail("allreduce %d failed before the death", i);
		/* The recovery of c2 revokes it: no member stays in it. */
		if (MPI_Comm_dup(c2, &w2) != MPI_SUCCESS)
			break;
		MPI_Comm_free(&c2);
		c2 = w2;
		/* Go on together from the earliest one that failed. */
		if (MPI_Allreduce(&i, &want, 1, MPI_INT, MPI_MIN, c2) !=
		    MPI_SUCCESS)
			fail("the allreduce after the recovery");
		i = want - 1;
	}
	MPI_Comm_size(c2, &size);
	want = nprocs - 1;
	if (size != want)
		fail("after the second death: size %d, want %d", size, want);
	MPI_Comm_free(&c2);
	MPI_Comm_free(&n2);
	MPI_Comm_free(&b2);
	return finish();
}
