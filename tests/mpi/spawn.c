/* SPDX-License-Identifier: ISC */
/*
 * spawn: MPI_Comm_spawn from every rank of MPI_COMM_WORLD (1 to 4
 * parents) of 1 + nprocs % 4 children running this program: errcodes,
 * the children's own MPI_COMM_WORLD, MPI_Comm_get_parent, point-to-
 * point both ways over the intercommunicator, rooted and all-to-all
 * collectives over it in both directions, and MPI_Intercomm_merge of
 * parents and children (parents low).  The children report their
 * failures to the parents.
 */

#define NAME	"spawn"
#include "dyn.h"

static void
parent(char *prog)
{
	char		*args[] = { "child", "two words", NULL };
	MPI_Comm	 kids, merged;
	int		 nkids = 1 + nprocs % 4, *codes, i, v, flag, rs, sum;
	int		 mrank, msize, want;

	codes = xzalloc(nkids * sizeof(int));
	for (i = 0; i < nkids; i++)
		codes[i] = -1;
	ok(MPI_Comm_spawn(prog, args, nkids, MPI_INFO_NULL, nprocs - 1,
	    MPI_COMM_WORLD, &kids, codes), "Comm_spawn");
	for (i = 0; i < nkids; i++)
		if (codes[i] != MPI_SUCCESS)
			fail("errcodes[%d] is %d", i, codes[i]);
	MPI_Comm_test_inter(kids, &flag);
	MPI_Comm_remote_size(kids, &rs);
	if (!flag || rs != nkids)
		fail("intercomm: inter %d, remote size %d, want %d", flag, rs,
		    nkids);
	/* Parents to children, then back. */
	for (i = 0; i < nkids; i++)
		MPI_Send(&myrank, 1, MPI_INT, i, 1, kids);
	for (i = 0; i < nkids; i++) {
		MPI_Recv(&v, 1, MPI_INT, i, 2, kids, MPI_STATUS_IGNORE);
		if (v != 1000 * i + myrank)
			fail("child %d answered %d, want %d", i, v,
			    1000 * i + myrank);
	}
	/* A broadcast from parent 0 to the children. */
	v = 4242;
	MPI_Bcast(&v, 1, MPI_INT, myrank == 0 ? MPI_ROOT : MPI_PROC_NULL,
	    kids);
	/* And one from child 0 to the parents. */
	v = 0;
	MPI_Bcast(&v, 1, MPI_INT, 0, kids);
	if (v != 777)
		fail("bcast from child 0: got %d", v);
	/* Allreduce: each side gets the other side's sum. */
	v = myrank + 1;
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, kids);
	want = 100 * nkids * (nkids + 1) / 2;
	if (sum != want)
		fail("allreduce over the intercomm: %d, want %d", sum, want);
	MPI_Barrier(kids);
	ok(MPI_Intercomm_merge(kids, 0, &merged), "Intercomm_merge");
	MPI_Comm_rank(merged, &mrank);
	MPI_Comm_size(merged, &msize);
	if (msize != nprocs + nkids || mrank != myrank)
		fail("merged: rank %d of %d, want %d of %d", mrank, msize,
		    myrank, nprocs + nkids);
	v = mrank;
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, merged);
	if (sum != msize * (msize - 1) / 2)
		fail("allreduce over the merged comm: %d", sum);
	MPI_Comm_free(&merged);
	parent_collect(kids);
	MPI_Comm_free(&kids);
	free(codes);
}

static void
child(MPI_Comm par, char **argv)
{
	MPI_Comm	 merged;
	int		*app, flag, i, v, sum, want, mrank, msize, nparents;
	if (argv[1] == NULL || strcmp(argv[1], "child") != 0 ||
	    argv[2] == NULL || strcmp(argv[2], "two words") != 0 ||
	    argv[3] != NULL)
		fail("the arguments did not come through");
	MPI_Comm_remote_size(par, &nparents);
	if (nprocs != 1 + nparents % 4)
		fail("%d children of %d parents", nprocs, nparents);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
	if (!flag || *app != 0)
		fail("MPI_APPNUM %d (flag %d)", flag ? *app : -1, flag);
	for (i = 0; i < nparents; i++) {
		MPI_Recv(&v, 1, MPI_INT, i, 1, par, MPI_STATUS_IGNORE);
		if (v != i)
			fail("parent %d sent %d", i, v);
	}
	for (i = 0; i < nparents; i++) {
		v = 1000 * myrank + i;
		MPI_Send(&v, 1, MPI_INT, i, 2, par);
	}
	MPI_Bcast(&v, 1, MPI_INT, 0, par);
	if (v != 4242)
		fail("bcast from parent 0: got %d", v);
	v = 777;
	MPI_Bcast(&v, 1, MPI_INT, myrank == 0 ? MPI_ROOT : MPI_PROC_NULL,
	    par);
	v = 100 * (myrank + 1);
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, par);
	want = nparents * (nparents + 1) / 2;
	if (sum != want)
		fail("allreduce over the intercomm: %d, want %d", sum, want);
	MPI_Barrier(par);
	ok(MPI_Intercomm_merge(par, 1, &merged), "Intercomm_merge");
	MPI_Comm_rank(merged, &mrank);
	MPI_Comm_size(merged, &msize);
	if (msize != nparents + nprocs || mrank != nparents + myrank)
		fail("merged: rank %d of %d, want %d of %d", mrank, msize,
		    nparents + myrank, nparents + nprocs);
	v = mrank;
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, merged);
	if (sum != msize * (msize - 1) / 2)
		fail("allreduce over the merged comm: %d", sum);
	MPI_Comm_free(&merged);
	child_report(par);
	MPI_Comm_free(&par);
}

int
main(int argc, char **argv)
{
	return dyn_main(argc, argv, parent, child);
}
