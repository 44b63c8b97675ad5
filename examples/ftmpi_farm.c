/* SPDX-License-Identifier: ISC */
/*
 * The master-worker program of the FT-MPI paper (Fagg and Dongarra,
 * EuroPVM/MPI 2000), in FT-MPI's style: run it with
 *
 *	ftrun --ft ftmpi --comm-mode shrink --msg-mode nop -n 8 ftmpi_farm
 *	ftrun --ft ftmpi --comm-mode rebuild --msg-mode nop -n 8 ftmpi_farm
 *
 * Rank 0 hands out tasks to the workers and collects their results.
 * When a worker dies, every operation on the communicator fails (NOP);
 * each survivor then calls MPI_Comm_dup on MPI_COMM_WORLD, which
 * recovers it (SHRINK: without the dead; REBUILD: with a new process
 * in its place, which starts this program over and joins in that same
 * call), and the master hands out again every task not done.  The
 * results do not depend on who computed them, so the job prints what a
 * run without failures prints.
 * Usage: ftmpi_farm [TASKS]  (default 400)
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

enum { TAG_TASK = 1, TAG_RESULT, TAG_STOP };

/* Some work whose answer depends only on the task. */
static unsigned long long
work(int task)
{
	unsigned long long x = (unsigned long long)task * 2654435761u + 1;
	int i;

	for (i = 0; i < 20000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x >> 11;
}

/*
 * FT-MPI's recovery: the duplicate of MPI_COMM_WORLD, at every
 * survivor (and, under REBUILD, at each new process, where it is how
 * it joins).  The old communicator goes.
 */
static void
recover(MPI_Comm *comm, int *recoveries)
{
	if (*comm != MPI_COMM_NULL)
		MPI_Comm_free(comm);
	if (MPI_Comm_dup(MPI_COMM_WORLD, comm) != MPI_SUCCESS) {
		fprintf(stderr, "ftmpi_farm: the recovery failed\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
	(*recoveries)++;
}

static void
worker(MPI_Comm comm, int *recoveries)
{
	unsigned long long out[2];
	MPI_Status st;
	int task;

	for (;;) {
		if (MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, comm, &st) !=
		    MPI_SUCCESS) {
			recover(&comm, recoveries);
			continue;
		}
		if (st.MPI_TAG == TAG_STOP)
			break;
		out[0] = (unsigned long long)task;
		out[1] = work(task);
		if (MPI_Send(out, 2, MPI_UNSIGNED_LONG_LONG, 0, TAG_RESULT,
		    comm) != MPI_SUCCESS)
			recover(&comm, recoveries);
	}
	MPI_Comm_free(&comm);
}

static void
master(MPI_Comm comm, int ntasks, int *recoveries)
{
	unsigned long long *res, out[2], sum = 0;
	MPI_Status st;
	int *state, *owner, size, ndone = 0, busy = 0, w, t, next = 0;

	/* state: 0 to do, 1 handed out, 2 done. */
	if ((res = calloc((size_t)ntasks, sizeof(*res))) == NULL ||
	    (state = calloc((size_t)ntasks, sizeof(*state))) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if ((owner = calloc((size_t)size, sizeof(*owner))) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	while (ndone < ntasks) {
		MPI_Comm_size(comm, &size);
		/* A task to every idle worker. */
		for (w = 1; w < size && next < ntasks; w++) {
			if (owner[w] != 0)
				continue;
			while (next < ntasks && state[next] != 0)
				next++;
			if (next == ntasks)
				break;
			if (MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, comm) !=
			    MPI_SUCCESS)
				goto failed;
			state[next] = 1;
			owner[w] = next + 1;
			busy++;
		}
		if (busy == 0)
			break;		/* no worker left: see below */
		if (MPI_Recv(out, 2, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE,
		    TAG_RESULT, comm, &st) != MPI_SUCCESS)
			goto failed;
		t = (int)out[0];
		if (t >= 0 && t < ntasks && state[t] != 2) {
			state[t] = 2;
			res[t] = out[1];
			ndone++;
		}
		owner[st.MPI_SOURCE] = 0;
		busy--;
		continue;
failed:
		/* Every task handed out and not done is to do again. */
		recover(&comm, recoveries);
		for (t = 0; t < ntasks; t++)
			if (state[t] == 1)
				state[t] = 0;
		for (w = 0; w < size; w++)
			owner[w] = 0;
		busy = 0;
		next = 0;
	}
	/* The master does what no worker is left to do. */
	for (t = 0; t < ntasks; t++)
		if (state[t] != 2) {
			res[t] = work(t);
			ndone++;
		}
	MPI_Comm_size(comm, &size);
	for (w = 1; w < size; w++)
		(void)MPI_Send(&w, 1, MPI_INT, w, TAG_STOP, comm);
	for (t = 0; t < ntasks; t++)
		sum += res[t] * (unsigned long long)(t + 1);
	printf("tasks %d\n", ntasks);
	printf("first %llu\nlast %llu\n", res[0], res[ntasks - 1]);
	printf("checksum %016llx\n", sum);
	free(res);
	free(state);
	free(owner);
	MPI_Comm_free(&comm);
}

int
main(int argc, char **argv)
{
	MPI_Comm comm = MPI_COMM_NULL;
	int rank, ntasks = 400, recoveries = -1;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (argc > 1 && (ntasks = atoi(argv[1])) < 1)
		ntasks = 1;
	/* A new process of REBUILD joins the rebuilt world here. */
	recover(&comm, &recoveries);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		master(comm, ntasks, &recoveries);
	else
		worker(comm, &recoveries);
	if (recoveries > 0)
		fprintf(stderr, "rank %d recovered %d times\n", rank,
		    recoveries);
	MPI_Finalize();
	return 0;
}
