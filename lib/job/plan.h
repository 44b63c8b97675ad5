/* SPDX-License-Identifier: ISC */
/*
 * Choosing the replication degree R of a job (ftrun --plan), after the
 * model of P2P-MPI.  A job of N logical ranks runs each rank as R
 * replicas; it fails when every replica of some rank fails before the
 * job completes.  Processes fail independently, with Weibull lifetimes
 * whose mean is the given MTBF, and every extra replica lengthens the
 * run by a fixed fraction of the fault-free run time:
 *
 *	t_R  = runtime * (1 + overhead * (R - 1))
 *	f(t) = 1 - exp(-(lambda t)^delta)
 *	lambda = Gamma(1 + 1/delta) / MTBF
 *	P(R) = 1 - (1 - f(t_R)^R)^N
 *
 * Pure computation: nothing here reads the clock or the environment.
 */
#ifndef FT_PLAN_H
#define FT_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "../base/base.h"

#define FT_PLAN_RMAX	10	/* R is chosen among 1..FT_PLAN_RMAX */

struct ft_plan {
	uint32_t	 nranks;	/* N, the logical ranks */
	double		 mtbf_s;	/* mean time between failures of a
					 * process, seconds */
	double		 shape;		/* Weibull shape delta (ftrun: 0.7) */
	double		 runtime_s;	/* fault-free run time, seconds */
	double		 overhead;	/* extra run time per extra replica,
					 * a fraction such as 0.05 */
};

/*
 * Fill p[0..FT_PLAN_RMAX-1] with the probability that the job fails
 * when run with R = 1..FT_PLAN_RMAX replicas per rank.  Probabilities
 * far below the double epsilon keep their magnitude (1e-90 stays
 * 1e-90, not 0).  Returns the R with the lowest probability, the
 * smallest such R on a tie, or -1 with errno EINVAL when nranks is 0,
 * mtbf_s or shape is not positive, runtime_s or overhead is negative,
 * or any of them is not finite; p is then left untouched.  The R are
 * compared by the chance that a rank survives, which stays exact where
 * every probability rounds to 1.  Reentrant; never blocks.
 */
int	 ft_plan_compute(const struct ft_plan *,
		    double p[FT_PLAN_RMAX]);

/*
 * Print the plan to f: a "# plan:" line with the parameters, one
 * "r=R runtime=Ts p_fail=P" line for each R, and "best r=R p_fail=P".
 * Returns 0, or -1 with errno: EINVAL as for ft_plan_compute (nothing
 * is printed), or the errno of a failed write.  Does not flush f, and
 * blocks only as writing to f does.
 */
int	 ft_plan_print(FILE *f, const struct ft_plan *);

#endif
