/* SPDX-License-Identifier: ISC */
/*
 * The "none" protocol: no fault tolerance.  It keeps no state and every
 * hook is the core default; the loss of a process aborts the job.  It is
 * the reference protocol and the test double for the seam.
 */
#include "proto.h"

static int
none_init(struct ft_proto *p, const struct ft_conf *conf)
{
	(void)p;
	(void)conf;
	return 0;
}

const struct ft_proto_ops ft__proto_none = {
	.abi = FT_PROTO_ABI,
	.name = "none",
	.privsize = 0,
	.init = none_init,
};
