/* SPDX-License-Identifier: ISC */
/*
 * A task farm: rank 0 hands out tasks to whichever worker asks first
 * (MPI_ANY_SOURCE), polls with MPI_Iprobe and MPI_Testany while it
 * works on tasks of its own, and times itself with MPI_Wtime.  Which
 * worker gets which task differs from run to run; the results, printed
 * in task order, do not.  Under replication every one of those choices
 * is the master's, so the replicas of rank 0 never disagree.
 * Usage: farm [TASKS]  (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

enum { TAG_ASK = 1, TAG_TASK, TAG_RESULT, TAG_STOP };

/* Some work whose answer depends only on the task. */
static unsigned long long
work(int task)
{
	unsigned long long x = (unsigned long long)task * 2654435761u + 1;
	int i;

	for (i = 0; i < 2000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x >> 11;
}

int
main(int argc, char *argv[])
{
	int rank, size, ntasks = 2000, next = 0, done = 0, flag, idx, task;
	unsigned long long *res, sum = 0, msg[2];
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		ntasks = atoi(argv[1]);
	if (rank != 0) {
		for (;;) {
			MPI_Send(NULL, 0, MPI_INT, 0, TAG_ASK, MPI_COMM_WORLD);
			MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG,
			    MPI_COMM_WORLD, &st);
			if (st.MPI_TAG == TAG_STOP)
				break;
			msg[0] = (unsigned long long)task;
			msg[1] = work(task);
			MPI_Send(msg, 2, MPI_UNSIGNED_LONG_LONG, 0,
			    TAG_RESULT, MPI_COMM_WORLD);
		}
		MPI_Finalize();
		return 0;
	}
	if ((res = calloc((size_t)ntasks, sizeof(*res))) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	double t0 = MPI_Wtime();
	int stopped = 0, polls = 0;
	MPI_Request rq[2];
	unsigned long long rbuf[2];

	/* One receive for results and one for requests, re-posted. */
	MPI_Irecv(rbuf, 2, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE,
	    TAG_RESULT, MPI_COMM_WORLD, &rq[0]);
	MPI_Irecv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD,
	    &rq[1]);
	while (done < ntasks || stopped < size - 1) {
		MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
		    MPI_STATUS_IGNORE);
		polls += flag;
		MPI_Testany(2, rq, &idx, &flag, &st);
		if (!flag) {
			/* Nothing came: do a task here, if one is left. */
			if (next < ntasks && size == 1) {
				res[next] = work(next);
				next++;
				done++;
			} else if (size > 1)
				MPI_Waitany(2, rq, &idx, &st);
			else
				continue;
			if (size == 1)
				continue;
		}
		if (idx == 0) {
			res[rbuf[0]] = rbuf[1];
			done++;
			MPI_Irecv(rbuf, 2, MPI_UNSIGNED_LONG_LONG,
			    MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
			    &rq[0]);
		} else if (idx == 1) {
			if (next < ntasks) {
				MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE,
				    TAG_TASK, MPI_COMM_WORLD);
				next++;
			} else {
				MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE,
				    TAG_STOP, MPI_COMM_WORLD);
				stopped++;
			}
			if (stopped < size - 1)
				MPI_Irecv(NULL, 0, MPI_INT, MPI_ANY_SOURCE,
				    TAG_ASK, MPI_COMM_WORLD, &rq[1]);
		}
		if (MPI_Wtime() - t0 > 600) {
			fprintf(stderr, "farm: gave up after 600 s\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	MPI_Cancel(&rq[0]);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	for (task = 0; task < ntasks; task++) {
		if (res[task] != work(task)) {
			printf("farm: task %d has a wrong result\n", task);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		sum += res[task];
		if (task % 500 == 0)
			printf("task %d result %llu\n", task, res[task]);
	}
	printf("farm: %d tasks on %d ranks, sum %llu\n", ntasks, size, sum);
	free(res);
	MPI_Finalize();
	return 0;
}
