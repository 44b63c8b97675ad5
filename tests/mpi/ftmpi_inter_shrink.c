/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_inter_shrink: FT-MPI's SHRINK mode on an intercommunicator,
 * under ftrun --ft ftmpi (SHRINK for the job), 4 or more ranks.  The
 * intercommunicator joins the lower and the upper half of
 * MPI_COMM_WORLD.  It refuses ft_comm_mode blank and rebuild and
 * ft_msg_mode nop (MPI_ERR_INFO_VALUE), takes shrink, and says so.
 * MPI_Comm_dup of it with no failure gives both groups whole.  Then the
 * last rank dies, once every rank has posted a receive on the
 * intercommunicator that no one will match and told it so; once the
 * survivors know, MPI_Comm_dup recovers it: the pending receive fails
 * (MPIX_ERR_REVOKED: the recovery revokes it), and the new
 * intercommunicator has the survivors of both groups, in order (an
 * allreduce across it sums the other group's world ranks), its
 * attribute copied, its mode shrink.  A second MPI_Comm_dup, with no new
 * failure, gives the same groups.
 */
#define NAME "ftmpi_inter_shrink"
#include "ulfm.h"

static int	 key;

/* Set key=value on c; the error class. */
static int
set(MPI_Comm c, const char *k, const char *value)
{
	MPI_Info info;
	int rc, cls;

	MPI_Info_create(&info);
	MPI_Info_set(info, k, value);
	rc = MPI_Comm_set_info(c, info);
	MPI_Info_free(&info);
	MPI_Error_class(rc, &cls);
	return cls;
}

static void
check_mode(MPI_Comm c, const char *what)
{
	MPI_Info info;
	char v[MPI_MAX_INFO_VAL + 1];
	int flag = 0;

	MPI_Comm_get_info(c, &info);
	MPI_Info_get(info, "ft_comm_mode", MPI_MAX_INFO_VAL, v, &flag);
	if (!flag || strcmp(v, "shrink") != 0)
		fail("%s: ft_comm_mode is %s, not shrink", what, flag ? v :
		    "unset");
	MPI_Info_free(&info);
}

/*
 * c has local and remote groups of nl and nr, the remote one with world
 * ranks summing to rsum, and the attribute.
 */
static void
check(MPI_Comm c, int nl, int nr, int rsum, const char *what)
{
	int n, sum = -1, rc, flag = 0, *val = NULL;

	MPI_Comm_size(c, &n);
	if (n != nl)
		fail("%s: local size %d, not %d", what, n, nl);
	MPI_Comm_remote_size(c, &n);
	if (n != nr)
		fail("%s: remote size %d, not %d", what, n, nr);
	if ((rc = MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, c)) !=
	    MPI_SUCCESS)
		fail("%s: allreduce returned %d", what, rc);
	else if (sum != rsum)
		fail("%s: the other group's ranks sum to %d, not %d", what,
		    sum, rsum);
	MPI_Comm_get_attr(c, key, &val, &flag);
	if (!flag || val == NULL || *val != 42)
		fail("%s: the attribute was not copied", what);
	check_mode(c, what);
}

/* The sum of world ranks lo..hi-1. */
static int
ranksum(int lo, int hi)
{
	int s = 0;

	for (; lo < hi; lo++)
		s += lo;
	return s;
}

int
main(int argc, char **argv)
{
	static int answer = 42;
	MPI_Comm half, ic, d, rec, again;
	MPI_Request req;
	int h, low, x, i, rc, cls, n, nl, nr, rsum;

	init(&argc, &argv);
	if (nprocs < 4) {
		if (myrank == 0)
			printf("ftmpi_inter_shrink needs 4 or more ranks\n");
		MPI_Finalize();
		return 1;
	}
	h = nprocs / 2;
	low = myrank < h;
	MPI_Comm_split(MPI_COMM_WORLD, low, myrank, &half);
	if (MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? h : 0, 1,
	    &ic) != MPI_SUCCESS) {
		fail("MPI_Intercomm_create");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	if (set(ic, "ft_comm_mode", "blank") != MPI_ERR_INFO_VALUE)
		fail("ft_comm_mode blank on an intercommunicator was taken");
	if (set(ic, "ft_comm_mode", "rebuild") != MPI_ERR_INFO_VALUE)
		fail("ft_comm_mode rebuild on an intercommunicator was taken");
	if (set(ic, "ft_msg_mode", "nop") != MPI_ERR_INFO_VALUE)
		fail("ft_msg_mode nop on an intercommunicator was taken");
	if (set(ic, "ft_comm_mode", "shrink") != MPI_SUCCESS)
		fail("ft_comm_mode shrink on an intercommunicator was refused");
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key,
	    NULL);
	MPI_Comm_set_attr(ic, key, &answer);

	/* No failure: the duplicate has both groups whole. */
	if ((rc = MPI_Comm_dup(ic, &d)) != MPI_SUCCESS) {
		fail("MPI_Comm_dup with no failure returned %d", rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	check(d, low ? h : nprocs - h, low ? nprocs - h : h, low ?
	    ranksum(h, nprocs) : ranksum(0, h), "the duplicate");
	MPI_Comm_free(&d);

	/* A receive no one will match, then the last rank dies. */
	MPI_Irecv(&x, 1, MPI_INT, 0, 99, ic, &req);
	if (myrank == nprocs - 1) {
		for (i = 0; i < nprocs - 1; i++)
			MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 1,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		die();
	}
	MPI_Send(NULL, 0, MPI_INT, nprocs - 1, 1, MPI_COMM_WORLD);
	await_failures(MPI_COMM_WORLD, 1);
	if ((rc = MPI_Comm_dup(ic, &rec)) != MPI_SUCCESS) {
		fail("the recovery returned %d", rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Error_class(rc, &cls);
	if (cls != MPIX_ERR_REVOKED)
		fail("the pending receive ended with class %d, not "
		    "MPIX_ERR_REVOKED", cls);
	nl = low ? h : nprocs - h - 1;
	nr = low ? nprocs - h - 1 : h;
	rsum = low ? ranksum(h, nprocs - 1) : ranksum(0, h);
	check(rec, nl, nr, rsum, "the recovered intercommunicator");
	MPI_Comm_rank(rec, &n);
	if (n != (low ? myrank : myrank - h))
		fail("rank %d in the recovered intercommunicator", n);
	/* No new failure: the same groups. */
	if ((rc = MPI_Comm_dup(rec, &again)) != MPI_SUCCESS)
		fail("the second MPI_Comm_dup returned %d", rc);
	else {
		check(again, nl, nr, rsum, "the second duplicate");
		MPI_Comm_free(&again);
	}
	MPI_Comm_free(&rec);
	MPI_Comm_free(&ic);
	MPI_Comm_free(&half);
	return finish();
}
