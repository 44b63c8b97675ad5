/* SPDX-License-Identifier: ISC */
/*
 * lib/job/plan.c: the failure probability of a replicated job, checked
 * against values worked out by hand, against the textbook formula where
 * doubles can hold it, for its monotonicity in N and in the overhead,
 * for probabilities far below the double epsilon, and through the text
 * ft_plan_print writes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "base/base.h"
#include "job/plan.h"

static struct ft_plan
mkplan(uint32_t n, double mtbf, double shape, double runtime, double ovh)
{
	struct ft_plan pl;

	pl.nranks = n;
	pl.mtbf_s = mtbf;
	pl.shape = shape;
	pl.runtime_s = runtime;
	pl.overhead = ovh;
	return pl;
}

/* |got - want| <= rel |want|; says what it got when it is not. */
static int
close_rel(double got, double want, double rel)
{
	if (isfinite(got) && fabs(got - want) <= rel * fabs(want))
		return 1;
	t_diag("got %.17g, want %.17g (relative tolerance %g)", got, want,
	    rel);
	return 0;
}

/*
 * The model written out the obvious way, with tgamma and pow.  It
 * loses everything below about 1e-16, so it is only compared where
 * the probability is well above that.
 */
static double
naive_p(const struct ft_plan *pl, int r)
{
	double lambda, t, f;

	lambda = tgamma(1 + 1 / pl->shape) / pl->mtbf_s;
	t = pl->runtime_s * (1 + pl->overhead * (r - 1));
	f = 1 - exp(-pow(lambda * t, pl->shape));
	return 1 - pow(1 - pow(f, r), pl->nranks);
}

static void
test_by_hand(void)
{
	struct ft_plan pl;
	double p[FT_PLAN_RMAX];

	/* Exponential lifetimes (shape 1): lambda = 1 / MTBF, and a run
	 * as long as the MTBF fails with probability 1 - 1/e. */
	pl = mkplan(1, 3600, 1, 3600, 0);
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], 0.6321205588285577, 1e-12),
	    "shape 1, t = MTBF, N=1, R=1: 1 - 1/e");
	T_OK(close_rel(p[1], 0.39957640089372803, 1e-12),
	    "shape 1, t = MTBF, N=1, R=2: (1 - 1/e)^2");
	pl.nranks = 2;
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], 0.8646647167633873, 1e-12),
	    "shape 1, t = MTBF, N=2, R=1: 1 - (1/e)^2");
	pl = mkplan(1, 3600, 1, 3600, 0.5);
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[1], 0.6035267480710044, 1e-12),
	    "overhead 0.5, R=2 runs 1.5 t: (1 - e^-1.5)^2");

	/* The scale makes the mean the MTBF: lambda = Gamma(1 + 1/delta)
	 * / MTBF.  Shape 0.5: Gamma(3) = 2, so MTBF 7200 and t = 3600
	 * give lambda t = 1, and t = 14400 gives (lambda t)^0.5 = 2. */
	pl = mkplan(1, 7200, 0.5, 3600, 0);
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], 0.6321205588285577, 1e-12),
	    "shape 0.5, lambda t = 1: 1 - 1/e");
	pl.runtime_s = 14400;
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], 0.8646647167633873, 1e-12),
	    "shape 0.5, lambda t = 4: 1 - e^-(4^0.5)");
	/* Shape 2: Gamma(1.5) = sqrt(pi) / 2. */
	pl = mkplan(1, 3600 * sqrt(M_PI) / 2, 2, 3600, 0);
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], 0.6321205588285577, 1e-12),
	    "shape 2, lambda t = 1: 1 - 1/e");

	/* Overhead 1 makes R replicas run R t, and (1 - e^(-R/10))^R is
	 * least at R = 7 (0.00819) with R = 6 and 8 on either side
	 * (0.00844, 0.00846): a best R inside the range. */
	pl = mkplan(1, 36000, 1, 3600, 1);
	T_EQ_INT(ft_plan_compute(&pl, p), 7,
	    "lambda t = 0.1, overhead 1: the best R is 7");
	T_OK(close_rel(p[6], 0.008193722065862429, 1e-12),
	    "... with p_fail (1 - e^-0.7)^7");
	/* A million ranks: every p_fail is 1 in doubles, but the chance
	 * of success, (1 - p)^N, is still the greatest at R = 7. */
	pl.nranks = 1000000;
	T_EQ_INT(ft_plan_compute(&pl, p), 7,
	    "N=10^6: the best R is still 7");
	T_OK(p[0] == 1 && p[6] == 1 && p[9] == 1,
	    "... although p_fail is 1 to the last bit for R=1, 7, 10");
}

static void
test_vs_naive(void)
{
	static const uint32_t ns[] = { 1, 8, 64 };
	static const double shapes[] = { 0.5, 0.7, 1, 1.5 };
	static const double mtbfs[] = { 3600, 86400 };
	static const double runtimes[] = { 600, 3600, 36000 };
	static const double ovhs[] = { 0, 0.05, 0.3 };
	struct ft_plan pl;
	double p[FT_PLAN_RMAX], want, wbest;
	size_t i, k;
	int r, best, wr, checked = 0, bad = 0, compared = 0, badbest = 0;

	/* Every combination: i counts in a mixed radix, one digit each. */
	for (i = 0; i < FT_NELEM(ns) * FT_NELEM(shapes) * FT_NELEM(mtbfs) *
	    FT_NELEM(runtimes) * FT_NELEM(ovhs); i++) {
		k = i;
		pl.nranks = ns[k % FT_NELEM(ns)];
		k /= FT_NELEM(ns);
		pl.shape = shapes[k % FT_NELEM(shapes)];
		k /= FT_NELEM(shapes);
		pl.mtbf_s = mtbfs[k % FT_NELEM(mtbfs)];
		k /= FT_NELEM(mtbfs);
		pl.runtime_s = runtimes[k % FT_NELEM(runtimes)];
		k /= FT_NELEM(runtimes);
		pl.overhead = ovhs[k];
		best = ft_plan_compute(&pl, p);
		wbest = INFINITY;
		wr = 0;
		for (r = 1; r <= FT_PLAN_RMAX; r++) {
			want = naive_p(&pl, r);
			if (want < wbest) {
				wbest = want;
				wr = r;
			}
			if (want < 1e-6)
				continue;
			checked++;
			if (!close_rel(p[r - 1], want, 1e-8))
				bad++;
		}
		/* Near 0 and near 1 the naive minimum is rounding noise. */
		if (wbest < 1e-6 || wbest > 1 - 1e-6)
			continue;
		compared++;
		if (best != wr) {
			t_diag("n=%u shape=%g mtbf=%g runtime=%g ovh=%g: "
			    "best %d, want %d", (unsigned)pl.nranks, pl.shape,
			    pl.mtbf_s, pl.runtime_s, pl.overhead, best, wr);
			badbest++;
		}
	}
	T_OK(bad == 0 && checked > 500, "%d probabilities above 1e-6 agree "
	    "with the textbook formula to 1e-8", checked);
	T_OK(badbest == 0 && compared > 50, "in %d plans the best R is the "
	    "argmin of the textbook formula", compared);
}

static void
test_monotonic(void)
{
	static const double ovhs[] = { 0, 0.05, 0.1, 0.5 };
	struct ft_plan pl;
	double p[FT_PLAN_RMAX], prev[FT_PLAN_RMAX];
	uint32_t n;
	size_t i;
	int r, ok, rok, dbl;

	/* R = 1 runs no extra replica, so the overhead cannot matter;
	 * for R >= 2 more overhead is a longer run and a likelier end. */
	ok = rok = 1;
	for (i = 0; i < FT_NELEM(ovhs); i++) {
		pl = mkplan(16, 86400, 0.7, 3600, ovhs[i]);
		ft_plan_compute(&pl, p);
		if (i > 0) {
			rok &= p[0] == prev[0];
			for (r = 2; r <= FT_PLAN_RMAX; r++)
				ok &= p[r - 1] > prev[r - 1];
		}
		memcpy(prev, p, sizeof(p));
	}
	T_OK(rok, "R=1: the overhead does not change p_fail");
	T_OK(ok, "R>=2: more overhead, strictly higher p_fail");

	/* More ranks, more ways to lose one.  Doubling N squares the
	 * chance 1 - P that all ranks survive, so P(2N) = P(N) (2 - P(N)):
	 * the exponent is N, not R or 1. */
	ok = dbl = 1;
	for (n = 1; n <= 1024; n *= 2) {
		pl = mkplan(n, 86400, 0.7, 3600, 0.05);
		ft_plan_compute(&pl, p);
		if (n > 1)
			for (r = 1; r <= FT_PLAN_RMAX; r++) {
				ok &= p[r - 1] >= prev[r - 1];
				if (prev[r - 1] < 0.5)
					ok &= p[r - 1] > prev[r - 1];
				if (!close_rel(p[r - 1], prev[r - 1] *
				    (2 - prev[r - 1]), 1e-12))
					dbl = 0;
			}
		memcpy(prev, p, sizeof(p));
	}
	T_OK(ok, "N = 1..1024: p_fail grows with N for every R");
	T_OK(dbl, "P(2N) = P(N) (2 - P(N)) for every R");
}

static void
test_tiny(void)
{
	struct ft_plan pl;
	double p[FT_PLAN_RMAX], f;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	/* A one-second run against a 1e9-second MTBF: f is about 1e-9
	 * and ten replicas make it about 1e-90, where 1 - (1 - q)^N is
	 * exactly 0 in doubles. */
	pl = mkplan(1, 1e9, 1, 1, 0);
	ft_plan_compute(&pl, p);
	f = -expm1(-1e-9);
	T_OK(close_rel(p[9], pow(f, 10), 1e-9),
	    "mtbf 1e9 s, 1 s run, R=10: p_fail is f^10, about 1e-90");
	T_OK(close_rel(p[0], f, 1e-9), "... and R=1: p_fail is f, not 0");

	/* For tiny q = f^R, 1 - (1 - q)^N is N q to within N q. */
	pl.nranks = 1000;
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[2], 1000 * pow(f, 3), 1e-9),
	    "N=1000, R=3: about 1e-24, which is N f^3");

	/* 1 - exp(-x) rounds to 0 for x = 1e-17; f must not. */
	pl = mkplan(1, 1e9, 1, 1e-8, 0);
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], 1e-17, 1e-9), "a 1e-17 chance of one failure "
	    "is 1e-17, not 0");
	pl.shape = 0.7;
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], pow(tgamma(1 + 1 / 0.7) * 1e-17, 0.7), 1e-9),
	    "... and with shape 0.7, (lambda t)^0.7");

	/* And the printed table shows it too. */
	pl = mkplan(1, 1e9, 1, 1, 0);
	if ((m = open_memstream(&buf, &len)) == NULL)
		t_diag("open_memstream: %s", strerror(errno));
	T_OK(m != NULL && ft_plan_print(m, &pl) == 0 && fclose(m) == 0 &&
	    strstr(buf, "\nr=10 runtime=1s p_fail=1e-90\n") != NULL,
	    "the table prints p_fail=1e-90 for R=10");
	free(buf);
}

static void
test_ties(void)
{
	struct ft_plan pl;
	double p[FT_PLAN_RMAX];
	int r, zero = 1, one = 1;

	/* A run of no time never fails: every R ties at 0. */
	pl = mkplan(64, 3600, 0.7, 0, 0.05);
	T_EQ_INT(ft_plan_compute(&pl, p), 1, "runtime 0: all tie, R=1");
	for (r = 0; r < FT_PLAN_RMAX; r++)
		zero &= p[r] == 0 && !signbit(p[r]);
	T_OK(zero, "runtime 0: p_fail is +0 for every R");

	/* A run a billion MTBFs long always fails: every R ties at 1. */
	pl = mkplan(4, 1e-3, 1, 1e6, 0.05);
	T_EQ_INT(ft_plan_compute(&pl, p), 1, "certain failure: all tie, "
	    "R=1");
	for (r = 0; r < FT_PLAN_RMAX; r++)
		one &= p[r] == 1;
	T_OK(one, "certain failure: p_fail is 1 for every R");

	/* Shape 0.004: Gamma(251) is about 1e492 and overflows, yet
	 * MTBF = Gamma(251) 1e-200 and t = 1e-200 give lambda t = 1. */
	pl = mkplan(1, exp(lgamma(251) - 200 * M_LN10), 0.004, 1e-200, 0);
	ft_plan_compute(&pl, p);
	T_OK(close_rel(p[0], 0.6321205588285577, 1e-9),
	    "shape 0.004, lambda t = 1 through an overflowing Gamma: 1 - 1/e");
	/* A subnormal shape makes 1/delta, and log Gamma, infinite. */
	pl = mkplan(4, 3600, 1e-310, 0, 0.05);
	ft_plan_compute(&pl, p);
	zero = 1;
	for (r = 0; r < FT_PLAN_RMAX; r++)
		zero &= p[r] == 0;
	T_OK(zero, "shape 1e-310, runtime 0: p_fail is 0, not NaN");
}

static void
test_bad(void)
{
	struct ft_plan good = mkplan(8, 3600, 0.7, 600, 0.05), pl;
	double p[FT_PLAN_RMAX];
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int r, untouched = 1;

	pl = good;
	pl.nranks = 0;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "nranks 0: EINVAL");
	pl = good;
	pl.mtbf_s = 0;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "mtbf 0: EINVAL");
	pl.mtbf_s = -1;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "mtbf -1: EINVAL");
	pl.mtbf_s = INFINITY;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "mtbf inf: EINVAL");
	pl.mtbf_s = NAN;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "mtbf NaN: EINVAL");
	pl = good;
	pl.shape = 0;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "shape 0: EINVAL");
	pl.shape = -0.7;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "shape -0.7: EINVAL");
	pl.shape = NAN;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "shape NaN: EINVAL");
	pl = good;
	pl.runtime_s = -1;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "runtime -1: EINVAL");
	pl.runtime_s = INFINITY;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "runtime inf: EINVAL");
	pl = good;
	pl.overhead = -0.01;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "overhead -0.01: EINVAL");
	pl.overhead = NAN;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "overhead NaN: EINVAL");
	pl.overhead = INFINITY;
	for (r = 0; r < FT_PLAN_RMAX; r++)
		p[r] = -1;
	T_FAILS(ft_plan_compute(&pl, p), EINVAL, "overhead inf: EINVAL");
	for (r = 0; r < FT_PLAN_RMAX; r++)
		untouched &= p[r] == -1;
	T_OK(untouched, "a refused plan leaves p alone");

	if ((m = open_memstream(&buf, &len)) == NULL)
		t_diag("open_memstream: %s", strerror(errno));
	T_FAILS(ft_plan_print(m, &pl), EINVAL, "print: a bad plan is EINVAL");
	T_OK(m != NULL && fclose(m) == 0 && len == 0,
	    "print: ... and prints nothing");
	free(buf);

	/* glibc refuses to write to a stream opened for reading. */
	if ((m = fopen("/dev/null", "r")) == NULL)
		t_diag("/dev/null: %s", strerror(errno));
	T_FAILS(ft_plan_print(m, &good), EBADF, "print: a failed write is "
	    "-1 with the write's errno");
	if (m != NULL)
		fclose(m);
}

static void
test_print(void)
{
	struct ft_plan pl = mkplan(64, 86400, 0.7, 3600, 0.05);
	double p[FT_PLAN_RMAX], rt, pf;
	char *buf = NULL, *line, *next;
	size_t len = 0;
	FILE *m;
	int r, got, best, end, rows = 0, ok = 1, bestok = 0, extra = 0;

	best = ft_plan_compute(&pl, p);
	if ((m = open_memstream(&buf, &len)) == NULL) {
		t_diag("open_memstream: %s", strerror(errno));
		T_OK(0, "print: open_memstream");
		return;
	}
	T_EQ_INT(ft_plan_print(m, &pl), 0, "print: returns 0");
	T_OK(fclose(m) == 0 && len > 0 && buf[len - 1] == '\n',
	    "print: ends in a newline");
	line = buf;
	next = strchr(line, '\n');
	*next = '\0';
	T_EQ_STR(line, "# plan: n=64 mtbf=86400s shape=0.7 runtime=3600s "
	    "overhead=0.05 per extra replica", "print: the parameters line");
	for (line = next + 1; *line != '\0'; line = next + 1) {
		next = strchr(line, '\n');
		*next = '\0';
		end = 0;
		if (rows < FT_PLAN_RMAX) {
			r = rows + 1;
			if (sscanf(line, "r=%d runtime=%lfs p_fail=%lf%n", &got,
			    &rt, &pf, &end) != 3 || line[end] != '\0' ||
			    got != r ||
			    !close_rel(rt, 3600 * (1 + 0.05 * (r - 1)), 1e-9) ||
			    !close_rel(pf, p[r - 1], 5e-3)) {
				t_diag("bad row: \"%s\"", line);
				ok = 0;
			}
			rows++;
		} else if (!bestok && sscanf(line, "best r=%d p_fail=%lf%n",
		    &got, &pf, &end) == 2 && line[end] == '\0') {
			bestok = got == best && close_rel(pf, p[best - 1],
			    5e-3);
		} else {
			t_diag("extra line: \"%s\"", line);
			extra++;
		}
	}
	T_OK(ok && rows == FT_PLAN_RMAX, "print: rows r=1..r=10 with the "
	    "run time and p_fail of ft_plan_compute");
	T_OK(bestok && extra == 0, "print: then \"best r=%d\" and nothing "
	    "else", best);
	free(buf);

	pl = mkplan(1, 3600, 1, 3600, 0);
	buf = NULL;
	if ((m = open_memstream(&buf, &len)) == NULL)
		t_diag("open_memstream: %s", strerror(errno));
	T_OK(m != NULL && ft_plan_print(m, &pl) == 0 && fclose(m) == 0 &&
	    strstr(buf, "\nr=1 runtime=3600s p_fail=0.632\n"
	    "r=2 runtime=3600s p_fail=0.4\n") != NULL &&
	    strstr(buf, "\nbest r=10 p_fail=0.0102\n") != NULL,
	    "print: 1 - 1/e shows as 0.632, (1 - 1/e)^2 as 0.4, best R=10");
	free(buf);
}

int
main(void)
{
	test_by_hand();
	test_vs_naive();
	test_monotonic();
	test_tiny();
	test_ties();
	test_bad();
	test_print();
	return t_done();
}
