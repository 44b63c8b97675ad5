/* SPDX-License-Identifier: ISC */
/*
 * Point-to-point latency and bandwidth between two MPI ranks.  The same
 * source is built with ftcc and with Open MPI's mpicc so that bench/run.sh
 * can compare them.  It uses only Init, Comm_rank/size, Send, Recv, Isend,
 * Irecv, Waitall, Wtime and Finalize: no collectives, so the two ranks
 * synchronize with small point-to-point messages.
 *
 * Rank 0 prints one line per size and measurement:
 *
 *	lat <bytes> <usec>	mean half round trip of one ping-pong block
 *	bw <bytes> <MB/s>	mean streaming bandwidth, MB = 10^6 bytes
 *
 * Each figure is the mean over one block of iterations, not a minimum:
 * bench/run.sh repeats whole runs and takes the minimum and the median.
 *
 * With -l only the ping-pong runs, exactly iters round trips (and warmup
 * more) at every size, whatever the size: a job then sends a known number
 * of messages, 2 * (iters + warmup) + 2 per size (the last 2 are the
 * zero-byte synchronization), and bench/cpu.sh divides the CPU time of the
 * whole job by it.
 */

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define TAG_SYNC	1
#define TAG_LAT		2
#define TAG_BW		3
#define TAG_ACK		4

#define MAXSIZES	32
#define MAXSIZE		(64LL << 20)	/* largest message accepted by -s */

/*
 * Large messages get fewer iterations so that a whole run takes a few
 * seconds: a latency block moves about LAT_BUDGET bytes each way and a
 * bandwidth block about BW_BUDGET bytes, but never fewer than MINITERS
 * iterations.  Warm-up gets a quarter of those budgets and at least one
 * iteration.  A bandwidth iteration moves a whole window, so it gets a
 * tenth of the iterations of a ping-pong for the same precision.
 */
#define LAT_BUDGET	(64LL << 20)
#define BW_BUDGET	(256LL << 20)
#define MINITERS	20

/*
 * The bandwidth window: up to WINDOW_MAX messages in flight, and no more
 * than WINDOW_BYTES bytes in flight for big messages.  Each message in the
 * window has its own buffer, as overlapping receive buffers are erroneous.
 */
#define WINDOW_MAX	64
#define WINDOW_MIN	4
#define WINDOW_BYTES	(16LL << 20)

static const long long	 default_sizes[] = {
	0, 8, 1024, 64 << 10, 1 << 20, 4 << 20
};

struct opts {
	long long	 iters;
	long long	 warmup;
	long long	 sizes[MAXSIZES];
	int		 nsizes;
	int		 latonly;	/* -l: exact ping-pong counts, no bw */
};

static void
usage(int rank)
{
	if (rank == 0)
		fprintf(stderr, "usage: pingpong [-l] [-i iters] [-w warmup] "
		    "[-s size[,size...]]\n");
}

/*
 * Parse a non-negative decimal number with an optional k or m suffix
 * (KiB, MiB).  Return 0, or -1 if the text is not such a number or is
 * outside [min, max].
 */
static int
parse_num(const char *s, long long min, long long max, long long *res,
    char **endp)
{
	unsigned long long	 v;
	char			*end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || v > (unsigned long long)max)
		return -1;
	if (*end == 'k' || *end == 'K') {
		if (v > (unsigned long long)max >> 10)
			return -1;
		v <<= 10;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		if (v > (unsigned long long)max >> 20)
			return -1;
		v <<= 20;
		end++;
	}
	if ((long long)v < min)
		return -1;
	if (endp != NULL)
		*endp = end;
	else if (*end != '\0')
		return -1;
	*res = (long long)v;
	return 0;
}

static int
parse_sizes(const char *s, struct opts *o)
{
	char	*end;

	o->nsizes = 0;
	for (;;) {
		if (o->nsizes == MAXSIZES)
			return -1;
		if (parse_num(s, 0, MAXSIZE, &o->sizes[o->nsizes], &end) == -1)
			return -1;
		o->nsizes++;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

static int
parse_opts(int argc, char *argv[], int rank, struct opts *o)
{
	size_t	 i;
	int	 ch;

	o->iters = 2000;
	o->warmup = 200;
	o->nsizes = 0;
	o->latonly = 0;
	for (i = 0; i < sizeof(default_sizes) / sizeof(default_sizes[0]); i++)
		o->sizes[o->nsizes++] = default_sizes[i];

	/* Every rank parses the same argv; only rank 0 complains. */
	opterr = 0;
	while ((ch = getopt(argc, argv, "i:ls:w:")) != -1) {
		switch (ch) {
		case 'i':
			if (parse_num(optarg, 1, 100000000, &o->iters,
			    NULL) == -1) {
				if (rank == 0)
					fprintf(stderr, "pingpong: iters "
					    "'%s' is invalid\n", optarg);
				return -1;
			}
			break;
		case 'l':
			o->latonly = 1;
			break;
		case 's':
			if (parse_sizes(optarg, o) == -1) {
				if (rank == 0)
					fprintf(stderr, "pingpong: sizes "
					    "'%s' are invalid (at most %d, "
					    "each at most 64m)\n", optarg,
					    MAXSIZES);
				return -1;
			}
			break;
		case 'w':
			if (parse_num(optarg, 0, 100000000, &o->warmup,
			    NULL) == -1) {
				if (rank == 0)
					fprintf(stderr, "pingpong: warmup "
					    "'%s' is invalid\n", optarg);
				return -1;
			}
			break;
		default:
			usage(rank);
			return -1;
		}
	}
	if (optind != argc) {
		usage(rank);
		return -1;
	}
	return 0;
}

/*
 * Scale a count n given for small messages down to budget bytes of size
 * each, but not below floor (nor above n), and to at least one.
 */
static long long
scaled(long long n, long long budget, long long size, long long floor)
{
	long long	 cap;

	if (n < 1)
		n = 1;
	if (size == 0)
		return n;
	cap = budget / size;
	if (cap < floor)
		cap = floor;
	return n < cap ? n : cap;
}

static long long
window(long long size)
{
	long long	 w;

	if (size == 0)
		return WINDOW_MAX;
	w = WINDOW_BYTES / size;
	if (w > WINDOW_MAX)
		w = WINDOW_MAX;
	if (w < WINDOW_MIN)
		w = WINDOW_MIN;
	return w;
}

/*
 * A barrier made of two zero-byte messages, so that rank 0 starts its clock
 * only once rank 1 is ready to answer.
 */
static void
sync_peer(int rank)
{
	char	 c = 0;

	if (rank == 0) {
		MPI_Send(&c, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD);
		MPI_Recv(&c, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(&c, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		MPI_Send(&c, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD);
	}
}

static void
pingpong(int rank, char *buf, int size, long long n)
{
	long long	 i;

	for (i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(buf, size, MPI_BYTE, 1, TAG_LAT,
			    MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_BYTE, 1, TAG_LAT,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_BYTE, 0, TAG_LAT,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_BYTE, 0, TAG_LAT,
			    MPI_COMM_WORLD);
		}
	}
}

static void
stream(int rank, char *buf, int size, int w, long long n, MPI_Request *req)
{
	long long	 i;
	int		 j;
	char		 ack = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < w; j++) {
			if (rank == 0)
				MPI_Isend(buf + (size_t)j * size, size,
				    MPI_BYTE, 1, TAG_BW, MPI_COMM_WORLD,
				    &req[j]);
			else
				MPI_Irecv(buf + (size_t)j * size, size,
				    MPI_BYTE, 0, TAG_BW, MPI_COMM_WORLD,
				    &req[j]);
		}
		MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
		/* The ack closes the window: the data has arrived. */
		if (rank == 0)
			MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_ACK,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else
			MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_ACK,
			    MPI_COMM_WORLD);
	}
}

static void
measure(int rank, const struct opts *o, long long si, char *buf,
    MPI_Request *req)
{
	double		 t0, t;
	long long	 size = o->sizes[si], n, warm;
	int		 w;

	if (o->latonly) {
		n = o->iters;
		warm = o->warmup;
	} else {
		n = scaled(o->iters, LAT_BUDGET, size, MINITERS);
		warm = o->warmup == 0 ? 0 :
		    scaled(o->warmup, LAT_BUDGET / 4, size, 1);
	}
	pingpong(rank, buf, (int)size, warm);
	sync_peer(rank);
	t0 = MPI_Wtime();
	pingpong(rank, buf, (int)size, n);
	t = MPI_Wtime() - t0;
	if (rank == 0) {
		printf("lat %lld %.3f\n", size, t * 1e6 / (2.0 * n));
		fflush(stdout);
	}
	if (o->latonly)
		return;

	w = (int)window(size);
	n = scaled(o->iters / 10, BW_BUDGET, size * w, MINITERS);
	warm = o->warmup == 0 ? 0 :
	    scaled(o->warmup / 10, BW_BUDGET / 4, size * w, 1);
	stream(rank, buf, (int)size, w, warm, req);
	sync_peer(rank);
	t0 = MPI_Wtime();
	stream(rank, buf, (int)size, w, n, req);
	t = MPI_Wtime() - t0;
	if (rank == 0) {
		printf("bw %lld %.3f\n", size,
		    (double)size * w * n / t / 1e6);
		fflush(stdout);
	}
}

int
main(int argc, char *argv[])
{
	struct opts	 o;
	MPI_Request	 req[WINDOW_MAX];
	long long	 bytes = 1, b;
	char		*buf;
	int		 i, rank, nranks, rc = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);

	if (parse_opts(argc, argv, rank, &o) == -1) {
		rc = 100;
		goto out;
	}
	if (nranks != 2) {
		if (rank == 0)
			fprintf(stderr, "pingpong: needs exactly 2 ranks, "
			    "not %d\n", nranks);
		rc = 100;
		goto out;
	}

	/*
	 * One buffer holds a whole window of the largest message, or with -l
	 * the largest message.
	 */
	for (i = 0; i < o.nsizes; i++) {
		b = o.sizes[i] * (o.latonly ? 1 : window(o.sizes[i]));
		if (b > bytes)
			bytes = b;
	}
	if ((buf = malloc((size_t)bytes)) == NULL) {
		fprintf(stderr, "pingpong: rank %d: malloc %lld bytes "
		    "failed\n", rank, bytes);
		rc = 111;
		goto out;
	}
	/* Touch every page now rather than inside the first timing. */
	memset(buf, rank + 'a', (size_t)bytes);

	for (i = 0; i < o.nsizes; i++)
		measure(rank, &o, i, buf, req);
	free(buf);
 out:
	MPI_Finalize();
	return rc;
}
