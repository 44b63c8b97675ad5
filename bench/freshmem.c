/* SPDX-License-Identifier: ISC */
/*
 * What keeping a copy of every payload costs on this machine, apart
 * from MPI: bench/vlog.sh prints it beside the 1 MiB bandwidth.  A
 * sender log that keeps every payload for the whole job (vlog without
 * checkpoints) copies each into memory it has never touched; with
 * checkpoints, GC gives memory back and the log copies into pages it
 * touched before.  One line each, microseconds a MiB, the minimum
 * over the rounds:
 *
 *	fresh <us>	memcpy into anonymous pages never touched
 *	memfd <us>	write(2) into a memory file, fresh pages
 *	reused <us>	memcpy into pages touched before
 *
 * usage: freshmem [MiB]	(default 256 a round, 5 rounds)
 */
#define _GNU_SOURCE

#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB	(1u << 20)
#define ROUNDS	5

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double
lower(double a, double b)
{
	return a < b ? a : b;
}

int
main(int argc, char *argv[])
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 256, i;
	double fresh = 1e30, memfd = 1e30, reused = 1e30, t;
	char *src, *dst;
	int r, fd;

	if (n == 0 || n > 4096) {
		fprintf(stderr, "usage: freshmem [MiB, 1 to 4096]\n");
		return 100;
	}
	if ((src = malloc(MIB)) == NULL)
		return 1;
	memset(src, 0x5a, MIB);
	for (r = 0; r < ROUNDS; r++) {
		dst = mmap(NULL, n * MIB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (dst == MAP_FAILED) {
			perror("freshmem: mmap");
			return 1;
		}
		t = now_us();
		for (i = 0; i < n; i++)
			memcpy(dst + i * MIB, src, MIB);
		fresh = lower(fresh, (now_us() - t) / (double)n);
		t = now_us();
		for (i = 0; i < n; i++)
			memcpy(dst + i * MIB, src, MIB);
		reused = lower(reused, (now_us() - t) / (double)n);
		munmap(dst, n * MIB);
		if ((fd = memfd_create("freshmem", MFD_CLOEXEC)) == -1) {
			perror("freshmem: memfd_create");
			return 1;
		}
		t = now_us();
		for (i = 0; i < n; i++)
			if (write(fd, src, MIB) != (ssize_t)MIB) {
				perror("freshmem: write");
				return 1;
			}
		memfd = lower(memfd, (now_us() - t) / (double)n);
		close(fd);
	}
	printf("fresh %.1f\nmemfd %.1f\nreused %.1f\n", fresh, memfd, reused);
	free(src);
	return 0;
}
