/* SPDX-License-Identifier: ISC */
/*
 * The replication plan: the probability that a job fails for each
 * replication degree R, and the R to run with.  The probabilities that
 * matter are the small ones, so every step is computed in the log
 * domain or through expm1 and log1p: the naive 1 - (1 - f^R)^N rounds
 * anything below about 1e-16 to 0, and a plan that shows p_fail=0 for
 * R=3 and R=4 cannot tell them apart.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "plan.h"

static int
plan_valid(const struct ft_plan *pl)
{
	return pl->nranks > 0 &&
	    isfinite(pl->mtbf_s) && pl->mtbf_s > 0 &&
	    isfinite(pl->shape) && pl->shape > 0 &&
	    isfinite(pl->runtime_s) && pl->runtime_s >= 0 &&
	    isfinite(pl->overhead) && pl->overhead >= 0;
}

/* The run time with r replicas per rank. */
static double
plan_runtime(const struct ft_plan *pl, int r)
{
	return pl->runtime_s * (1 + pl->overhead * (r - 1));
}

/*
 * log(1 - exp(a)) for a <= 0, accurate at both ends: near a = 0 the
 * difference 1 - exp(a) is small and comes from expm1; further out
 * exp(a) is small and log1p keeps it (Maechler, "Accurately computing
 * log(1 - exp(-|a|))", 2012).
 */
static double
log1mexp(double a)
{
	return a > -M_LN2 ? log(-expm1(a)) : log1p(-exp(a));
}

/*
 * log f(t), the log of the probability that one process fails within
 * t seconds.  (lambda t)^delta is formed as exp(delta * log(lambda t))
 * with log Gamma, so that a small shape, whose Gamma(1 + 1/delta)
 * overflows, still gives a finite scale.
 */
static double
plan_log_fail(const struct ft_plan *pl, double t)
{
	double lg, x;
	int sign;

	/* log(0) is -inf, and -inf plus an infinite log Gamma is NaN. */
	if (t == 0)
		return -INFINITY;
	/* lgamma_r: plain lgamma writes the global signgam. */
	lg = lgamma_r(1 + 1 / pl->shape, &sign);
	x = exp(pl->shape * (lg + log(t) - log(pl->mtbf_s)));
	return log1mexp(-x);
}

int
ft_plan_compute(const struct ft_plan *pl, double p[FT_PLAN_RMAX])
{
	double lf, lsurv, best = -INFINITY;
	int r, bestr = 1;

	if (!plan_valid(pl)) {
		errno = EINVAL;
		return -1;
	}
	for (r = 1; r <= FT_PLAN_RMAX; r++) {
		lf = plan_log_fail(pl, plan_runtime(pl, r));
		/* log(1 - f^R): a rank survives if one replica does. */
		lsurv = log1mexp(r * lf);
		p[r - 1] = -expm1((double)pl->nranks * lsurv);
		/*
		 * The least P is the greatest chance that a rank survives,
		 * and that log stays exact where P rounds to 1 for every R.
		 * Strictly greater only: on a tie fewer replicas cost less.
		 */
		if (lsurv > best) {
			best = lsurv;
			bestr = r;
		}
	}
	return bestr;
}

int
ft_plan_print(FILE *f, const struct ft_plan *pl)
{
	double p[FT_PLAN_RMAX];
	int r, best;

	if ((best = ft_plan_compute(pl, p)) == -1)
		return -1;
	/* %.10g keeps whole seconds whole without an exponent up to
	 * 1e10 s, and the rounding noise of the overhead product out. */
	if (fprintf(f, "# plan: n=%u mtbf=%.10gs shape=%g runtime=%.10gs "
	    "overhead=%g per extra replica\n", (unsigned)pl->nranks,
	    pl->mtbf_s, pl->shape, pl->runtime_s, pl->overhead) < 0)
		return -1;
	for (r = 1; r <= FT_PLAN_RMAX; r++)
		if (fprintf(f, "r=%d runtime=%.10gs p_fail=%.3g\n", r,
		    plan_runtime(pl, r), p[r - 1]) < 0)
			return -1;
	if (fprintf(f, "best r=%d p_fail=%.3g\n", best, p[best - 1]) < 0)
		return -1;
	return 0;
}
