/* SPDX-License-Identifier: ISC */
/*
 * ftgossip: the gossip failure detector's offline tools.  Options and
 * wiring only; schedules and simulation live in lib/detect.
 *
 *	ftgossip simulate --protocol P -n N --fail-prob P --trials T
 *	    [--exact] [--threads K] [--seed S]
 *	ftgossip predict --protocol P -n N [--period D]
 *
 * Both print one line of key=value fields on standard output.
 */
#include <bsd/stdlib.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/detect/detect.h"

#define MAXTHREADS	64

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftgossip simulate --protocol brr|dbrr|rr|random -n N "
	    "--fail-prob P --trials T\n"
	    "                [--exact] [--threads K] [--seed S]\n"
	    "       ftgossip predict --protocol P -n N [--period D]\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_PROTOCOL = 256,
	OPT_FAILPROB,
	OPT_TRIALS,
	OPT_EXACT,
	OPT_THREADS,
	OPT_SEED,
	OPT_PERIOD,
};

static const struct option longopts[] = {
	{ "protocol", required_argument, NULL, OPT_PROTOCOL },
	{ "fail-prob", required_argument, NULL, OPT_FAILPROB },
	{ "trials", required_argument, NULL, OPT_TRIALS },
	{ "exact", no_argument, NULL, OPT_EXACT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	enum ft_gossip_proto	 proto;
	int			 have_proto;
	uint32_t		 n;
	double			 pfail;
	int			 have_pfail;
	uint64_t		 trials;
	int			 exact;
	int			 threads;
	uint64_t		 seed;
	uint64_t		 period_ns;
};

/* One thread's share of a simulation. */
struct work {
	const struct opts	*o;
	uint64_t		 first, last;	/* exact: sets; mc: trials */
	uint64_t		 rng;
	struct ft_gossip_simres	 res;
	int			 err;
};

static void *
run_work(void *arg)
{
	struct work *w = arg;

	if (w->o->exact)
		w->err = ft_gossip_sim_exact(w->o->proto, w->o->n, w->first,
		    w->last, &w->res) != 0 ? errno : 0;
	else
		w->err = ft_gossip_sim_mc(w->o->proto, w->o->n, w->o->pfail,
		    w->last - w->first, &w->rng, &w->res) != 0 ? errno : 0;
	return NULL;
}

static int
simulate(const struct opts *o)
{
	struct work w[MAXTHREADS];
	pthread_t th[MAXTHREADS];
	uint64_t total, per, *fail_by_f, *sets_by_f, trials = 0, failures = 0;
	uint64_t seed = o->seed;
	double t0, secs, prob;
	int i, k, nt = o->threads;

	if (o->exact && o->proto == FT_GOSSIP_RANDOM)
		ft_diex(FT_EXIT_USAGE, "--exact needs a deterministic "
		    "schedule (brr, dbrr or rr), not random");
	if (o->exact && o->n > FT_GOSSIP_EXACT_MAX)
		ft_diex(FT_EXIT_USAGE, "--exact enumerates 2^n failure sets: "
		    "-n %u is above %d", o->n, FT_GOSSIP_EXACT_MAX);
	total = o->exact ? 1ull << o->n : o->trials;
	if ((uint64_t)nt > total)
		nt = total > 0 ? (int)total : 1;
	fail_by_f = calloc((size_t)nt * (o->n + 1), sizeof(*fail_by_f));
	sets_by_f = calloc((size_t)nt * (o->n + 1), sizeof(*sets_by_f));
	if (fail_by_f == NULL || sets_by_f == NULL)
		ft_die(FT_EXIT_TEMP, "calloc");
	/* Whole blocks of 64 per thread, so no trial is split. */
	per = (total / (uint64_t)nt + 63) & ~63ull;
	t0 = ft_now();
	for (i = 0; i < nt; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].o = o;
		w[i].first = per * (uint64_t)i < total ? per * (uint64_t)i :
		    total;
		w[i].last = per * (uint64_t)(i + 1) < total ?
		    per * (uint64_t)(i + 1) : total;
		w[i].res.fail_by_f = fail_by_f + (size_t)i * (o->n + 1);
		w[i].res.sets_by_f = sets_by_f + (size_t)i * (o->n + 1);
		/* splitmix64 of the seed: distinct, nonzero streams. */
		seed += 0x9e3779b97f4a7c15ull;
		w[i].rng = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ull;
		w[i].rng ^= w[i].rng >> 31;
		if (w[i].rng == 0)
			w[i].rng = 1;
		if (pthread_create(&th[i], NULL, run_work, &w[i]) != 0)
			ft_diex(FT_EXIT_TEMP, "unable to start thread %d", i);
	}
	for (i = 0; i < nt; i++) {
		(void)pthread_join(th[i], NULL);
		if (w[i].err != 0) {
			errno = w[i].err;
			ft_die(w[i].err == EINVAL ? FT_EXIT_USAGE :
			    FT_EXIT_TEMP, "simulation failed");
		}
		trials += w[i].res.trials;
		failures += w[i].res.failures;
		if (i > 0)
			for (k = 0; k <= (int)o->n; k++) {
				fail_by_f[k] += w[i].res.fail_by_f[k];
				sets_by_f[k] += w[i].res.sets_by_f[k];
			}
	}
	secs = ft_now() - t0;
	printf("protocol=%s n=%u fail_prob=%g", ft_gossip_proto_name(o->proto),
	    o->n, o->pfail);
	if (o->exact) {
		w[0].res.fail_by_f = fail_by_f;
		prob = ft_gossip_exact_prob(&w[0].res, o->n, o->pfail);
		printf(" exact=1 sets=%llu failing_sets=%llu",
		    (unsigned long long)trials, (unsigned long long)failures);
	} else {
		prob = trials > 0 ? (double)failures / (double)trials : 0;
		printf(" trials=%llu failures=%llu",
		    (unsigned long long)trials, (unsigned long long)failures);
	}
	printf(" probability=%.6g threads=%d seconds=%.3f "
	    "trials_per_s=%.0f\n", prob, nt, secs,
	    secs > 0 ? (double)trials / secs : 0);
	free(fail_by_f);
	free(sets_by_f);
	return ft_exit(FT_EXIT_OK);
}

static int
predict(const struct opts *o)
{
	uint32_t minr = ft_gossip_min_rounds(o->proto, o->n);
	uint32_t cleanr = ft_gossip_cleanup_rounds(o->proto, o->n);
	double period = (double)o->period_ns / 1e9;

	printf("protocol=%s n=%u period=%gs cycle_rounds=%u min_rounds=%u "
	    "tcleanup_min=%gs cleanup_rounds=%u tcleanup=%gs\n",
	    ft_gossip_proto_name(o->proto), o->n, period,
	    ft_gossip_cycle(o->proto, o->n), minr, minr * period, cleanr,
	    cleanr * period);
	return ft_exit(FT_EXIT_OK);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *cmd, *errstr;
	char *end;
	long ncpu;
	int ch;

	ft_diag_init(argv[0]);
	if (argc < 2)
		usage();
	cmd = argv[1];
	if (strcmp(cmd, "simulate") != 0 && strcmp(cmd, "predict") != 0)
		usage();
	memset(&o, 0, sizeof(o));
	o.period_ns = 100000000u;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.threads = ncpu > 0 && ncpu <= MAXTHREADS ? (int)ncpu : 1;
	o.seed = (uint64_t)ft_now_ns() ^ (uint64_t)getpid() << 32;
	optind = 2;
	while ((ch = getopt_long(argc, argv, "n:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			o.n = (uint32_t)strtonum(optarg, 1, FT_GOSSIP_NMAX,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "-n '%s' is %s", optarg,
				    errstr);
			break;
		case OPT_PROTOCOL:
			if (ft_gossip_proto_parse(optarg, &o.proto) != 0)
				ft_diex(FT_EXIT_USAGE, "unknown protocol '%s' "
				    "(valid: random, rr, brr, dbrr)", optarg);
			o.have_proto = 1;
			break;
		case OPT_FAILPROB:
			errno = 0;
			o.pfail = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o.pfail >= 0 && o.pfail <= 1))
				ft_diex(FT_EXIT_USAGE, "--fail-prob '%s' is "
				    "not a probability between 0 and 1",
				    optarg);
			o.have_pfail = 1;
			break;
		case OPT_TRIALS:
			o.trials = (uint64_t)strtonum(optarg, 1,
			    1000000000000000ll, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--trials '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_EXACT:
			o.exact = 1;
			break;
		case OPT_THREADS:
			o.threads = (int)strtonum(optarg, 1, MAXTHREADS,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--threads '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_SEED:
			o.seed = (uint64_t)strtonum(optarg, 0, LLONG_MAX,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--seed '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_PERIOD:
			if (ft_parse_duration(optarg, &o.period_ns) != 0 ||
			    o.period_ns == 0)
				ft_diex(FT_EXIT_USAGE, "--period '%s' is not a "
				    "positive duration", optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!o.have_proto)
		ft_diex(FT_EXIT_USAGE, "--protocol is missing");
	if (o.n == 0)
		ft_diex(FT_EXIT_USAGE, "-n is missing");
	if (strcmp(cmd, "predict") == 0)
		return predict(&o);
	if (!o.have_pfail)
		ft_diex(FT_EXIT_USAGE, "--fail-prob is missing");
	if (!o.exact && o.trials == 0)
		ft_diex(FT_EXIT_USAGE, "--trials is missing");
	return simulate(&o);
}
