/* SPDX-License-Identifier: ISC */
/*
 * bench/replay-rss.sh's program: rank 0 sends -m MiB to rank 1 in
 * messages of -s KiB (half of each message random, so that the record
 * does not shrink to nothing); rank 1 sums what it receives and prints
 * the sum, so that a replay of rank 1 can be checked against the job.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	long mib = 64, kib = 4096, n, i;
	size_t len, j;
	uint64_t x = 88172645463325252ULL, sum = 0;
	unsigned char *buf;
	int rank, ch;

	MPI_Init(&argc, &argv);
	while ((ch = getopt(argc, argv, "m:s:")) != -1)
		if (ch == 'm')
			mib = atol(optarg);
		else if (ch == 's')
			kib = atol(optarg);
	if (mib <= 0 || kib <= 0)
		MPI_Abort(MPI_COMM_WORLD, 100);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	len = (size_t)kib << 10;
	n = (mib << 10) / kib;
	if ((buf = calloc(1, len)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < n; i++) {
		if (rank == 0) {
			for (j = 0; j < len / 2; j++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				buf[j] = (unsigned char)x;
			}
			MPI_Send(buf, (int)len, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
		} else if (rank == 1) {
			MPI_Recv(buf, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			for (j = 0; j < len; j += 64)
				sum += buf[j];
		}
	}
	if (rank == 1)
		printf("received %ld MiB, sum %llu\n", mib,
		    (unsigned long long)sum);
	free(buf);
	MPI_Finalize();
	return 0;
}
