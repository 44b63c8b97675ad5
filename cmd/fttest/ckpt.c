/* SPDX-License-Identifier: ISC */
/*
 * fttest ckpt: checkpoint images for the tests and the benchmark.
 *
 * fttest ckpt make DIR --job J --rank R --nranks N --epoch E
 *     [--size BYTES] [--seed S]
 *	Write an image of one region of BYTES (default 4096) made from
 *	seed S into the store DIR, as a rank would.
 *
 * fttest ckpt cut ADDR --key-file F --file IMAGE --cut K
 *	Upload IMAGE to "ftckpt serve" at ADDR but stop after K bytes of
 *	it, and close the connection: exits 0 once it is closed.
 *
 * fttest ckpt bench DIR --size BYTES --kind jacobi|random --level L
 *     --repeat N
 *	Write an image of BYTES N times (level 0: the same bytes written
 *	uncompressed, as a plain file) and print, per write, the seconds
 *	it took to be durable, and the ratio.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/peer/peer.h"
#include "../../lib/store/store.h"
#include "fttest.h"

struct cargs {
	uint64_t	 job, epoch, size, seed, cut;
	uint32_t	 rank, nranks, repeat;
	int		 level;
	const char	*keyfile, *file, *kind;
};

static void
ckpt_usage(void)
{
	fprintf(stderr, "usage: fttest ckpt make DIR --job J --rank R "
	    "--nranks N --epoch E [--size B] [--seed S]\n"
	    "       fttest ckpt cut ADDR --key-file F --file IMAGE --cut K\n"
	    "       fttest ckpt bench DIR --size B --kind jacobi|random "
	    "--level L --repeat N\n");
	exit(FT_EXIT_USAGE);
}

static uint64_t
num(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-')
		ckpt_usage();
	return v;
}

static void
fill(uint8_t *p, uint64_t size, const char *kind, uint64_t seed)
{
	uint64_t i, x = seed * 0x9e3779b97f4a7c15ull + 1;
	double *g = (double *)(void *)p;
	uint64_t n = size / sizeof(double), side = (uint64_t)sqrt((double)n);

	if (strcmp(kind, "random") == 0) {
		for (i = 0; i < size; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p[i] = (uint8_t)x;
		}
		return;
	}
	/* A Jacobi grid 100 sweeps from the start: a hot top edge, heat
	 * spreading down from it, zeros beyond the front. */
	memset(p, 0, size);
	if (side < 3)
		return;
	for (i = 0; i < side; i++)
		g[i] = 100.0;
	for (x = 0; x < 100; x++)
		for (i = side; i < side * (side - 1); i++)
			if (i % side != 0 && i % side != side - 1)
				g[i] = 0.25 * (g[i - side] + g[i + side] +
				    g[i - 1] + g[i + 1]);
}

static int
make(const char *dir, const struct cargs *a)
{
	struct ft_ckpt_hdr *h = calloc(1, sizeof(*h));
	const void *src[1];
	char why[FT_LOG_WHY], name[FT_CKPT_NAME_MAX];
	uint8_t *p = malloc(a->size > 0 ? a->size : 1);
	int dfd;

	if (h == NULL || p == NULL)
		ft_die(FT_EXIT_TEMP, "malloc");
	fill(p, a->size, "random", a->seed);
	h->job = a->job;
	h->rank = a->rank;
	h->nranks = a->nranks;
	h->epoch = a->epoch;
	snprintf(h->proto, sizeof(h->proto), "none");
	h->level = FT_CKPT_LEVEL_DEFAULT;
	h->nregions = 1;
	h->reg[0].id = 0;
	h->reg[0].size = a->size;
	src[0] = p;
	(void)ft_ckpt_name(name, sizeof(name), a->job, a->rank, a->epoch);
	(void)mkdir(dir, 0700);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0)
		ft_die(FT_EXIT_USAGE, "'%s'", dir);
	if (ft_ckpt_write(dfd, name, h, src, NULL, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_TEMP, "%s", why);
	printf("%s/%s\n", dir, name);
	close(dfd);
	free(p);
	free(h);
	return 0;
}

static int
cut(const char *addr, const struct cargs *a)
{
	struct ft_ckptc k;
	struct ft_msg_ckpt_put m;
	struct ft_msg_ckpt_data d;
	struct ft_ckpt_hdr *h = malloc(sizeof(*h));
	struct ft_wbuf b;
	uint8_t key[FT_WIRE_KEYLEN], *p;
	char why[FT_LOG_WHY];
	ssize_t n;
	int fd;

	if (h == NULL || (p = malloc(FT_CKPT_CHUNK)) == NULL)
		ft_die(FT_EXIT_TEMP, "malloc");
	if (ft_cluster_key_load(a->keyfile, key, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
	if (ft_ckpt_verify(AT_FDCWD, a->file, h, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
	if ((fd = open(a->file, O_RDONLY)) < 0 ||
	    (n = read(fd, p, a->cut < FT_CKPT_CHUNK ? a->cut :
	    FT_CKPT_CHUNK)) != (ssize_t)a->cut || a->cut == 0)
		ft_diex(FT_EXIT_USAGE, "--cut %" PRIu64 ": 1 to a chunk, "
		    "within the file", a->cut);
	if (ft_ckptc_open(&k, addr, key, 10000000000ull) != 0)
		ft_diex(FT_EXIT_TEMP, "%s", k.why);
	ft_wbuf_init(&b);
	m.reqid = 1;
	m.job = h->job;
	m.rank = h->rank;
	m.epoch = h->epoch;
	m.size = h->hdrlen + h->stored;
	d.reqid = 1;
	d.data = p;
	d.len = (size_t)n;
	if (ft_msg_ckpt_put_encode(&b, 1, &m) != 0 ||
	    ft_msg_ckpt_data_encode(&b, 1, &d) != 0 ||
	    ft_conn_queue_copy(&k.c, b.p, b.len) != 0)
		ft_die(FT_EXIT_TEMP, "sending");
	while (ft_conn_unsent(&k.c))
		if (ft_conn_wait(&k.c, ft_now_ns() + 10000000000ull) != 0 ||
		    ft_conn_flush(&k.c) != 0)
			ft_die(FT_EXIT_TEMP, "sending");
	ft_ckptc_close(&k);
	ft_wbuf_release(&b);
	free(p);
	free(h);
	close(fd);
	return 0;
}

static int
bench(const char *dir, const struct cargs *a)
{
	struct ft_ckpt_hdr *h = calloc(1, sizeof(*h));
	const void *src[1];
	char why[FT_LOG_WHY], name[FT_CKPT_NAME_MAX];
	uint8_t *p = malloc(a->size);
	uint64_t t0, stored;
	uint32_t i;
	int dfd, fd;

	if (h == NULL || p == NULL)
		ft_die(FT_EXIT_TEMP, "malloc");
	fill(p, a->size, a->kind, 1);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0)
		ft_die(FT_EXIT_USAGE, "'%s'", dir);
	for (i = 0; i < a->repeat; i++) {
		snprintf(name, sizeof(name), "bench-%u", i);
		t0 = ft_now_ns();
		if (a->level == 0) {
			/* The baseline: the same bytes, uncompressed. */
			if ((fd = ft_store_create(dfd, name, p, a->size)) < 0)
				ft_die(FT_EXIT_TEMP, "'%s/%s'", dir, name);
			close(fd);
			stored = a->size;
		} else {
			memset(h, 0, sizeof(*h));
			h->job = 1;
			h->nranks = 1;
			h->epoch = i + 1;
			snprintf(h->proto, sizeof(h->proto), "none");
			h->level = (uint8_t)a->level;
			h->nregions = 1;
			h->reg[0].size = a->size;
			src[0] = p;
			if (ft_ckpt_write(dfd, name, h, src, NULL, why,
			    sizeof(why)) != 0)
				ft_diex(FT_EXIT_TEMP, "%s", why);
			stored = h->hdrlen + h->stored;
		}
		printf("seconds=%.6f bytes=%" PRIu64 " stored=%" PRIu64
		    " ratio=%.2f\n", (double)(ft_now_ns() - t0) / 1e9, a->size,
		    stored, (double)a->size / (double)stored);
		(void)unlinkat(dfd, name, 0);
	}
	close(dfd);
	free(p);
	free(h);
	return 0;
}

int
ckpt_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "rank", required_argument, NULL, 'r' },
		{ "nranks", required_argument, NULL, 'n' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "size", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "file", required_argument, NULL, 'f' },
		{ "cut", required_argument, NULL, 'c' },
		{ "kind", required_argument, NULL, 'K' },
		{ "level", required_argument, NULL, 'l' },
		{ "repeat", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct cargs a;
	const char *sub;
	int ch;

	if (argc < 3)
		ckpt_usage();
	sub = argv[1];
	argc--;
	argv++;
	memset(&a, 0, sizeof(a));
	a.size = 4096;
	a.nranks = 1;
	a.epoch = 1;
	a.repeat = 1;
	a.kind = "jacobi";
	a.level = FT_CKPT_LEVEL_DEFAULT;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			a.job = strtoull(optarg, NULL, 16);
			break;
		case 'r':
			a.rank = (uint32_t)num(optarg);
			break;
		case 'n':
			a.nranks = (uint32_t)num(optarg);
			break;
		case 'e':
			a.epoch = num(optarg);
			break;
		case 's':
			a.size = num(optarg);
			break;
		case 'S':
			a.seed = num(optarg);
			break;
		case 'k':
			a.keyfile = optarg;
			break;
		case 'f':
			a.file = optarg;
			break;
		case 'c':
			a.cut = num(optarg);
			break;
		case 'K':
			a.kind = optarg;
			break;
		case 'l':
			a.level = (int)num(optarg);
			break;
		case 'R':
			a.repeat = (uint32_t)num(optarg);
			break;
		default:
			ckpt_usage();
		}
	}
	if (optind != argc - 1)
		ckpt_usage();
	if (strcmp(sub, "make") == 0)
		return make(argv[optind], &a);
	if (strcmp(sub, "cut") == 0 && a.keyfile != NULL && a.file != NULL)
		return cut(argv[optind], &a);
	if (strcmp(sub, "bench") == 0)
		return bench(argv[optind], &a);
	ckpt_usage();
	return FT_EXIT_USAGE;
}
