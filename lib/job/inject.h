/* SPDX-License-Identifier: ISC */
/*
 * Fault-injection specs, as given to ftrun --inject: which process to
 * kill, when, and with what signal.  This is only the language; the
 * launcher keeps the clocks and counters and picks the victims.  Pure
 * code: nothing here does I/O, reads the clock or the environment.
 *
 *	spec     = "kill:" item *("," item)
 *	item     = "random" | key "=" value
 *
 *	rank=N         logical rank, 0 <= N < 2^20
 *	replica=N      that replica of the rank, 0 <= N < 64
 *	role=master    whichever replica is the rank's master at that moment
 *	role=replica   the lowest-numbered live replica that is not master
 *	random         one random live replica of a rank that still has two
 *	               or more live replicas, chosen at each kill
 *	at=DURATION    once, that long after all of the job's ranks started
 *	every=DURATION repeatedly, with that period (more than 0)
 *	after-sends=N  once, when the target has sent N >= 1 point-to-point
 *	               messages
 *	seed=N         random only: seed of the launcher's choice (uint64);
 *	               0, the default, is the same as no seed= at all
 *	count=N        every only: at most N kills; 0, the default, is no
 *	               limit
 *	signal=S       KILL (the default), TERM, SEGV or a number 1..64
 *
 * Exactly one of at, every and after-sends; rank unless random, and
 * random only with every and without rank, replica or role; replica and
 * role are exclusive, and with neither the target is replica 0.  A key
 * may appear once, in any order.
 *
 * DURATION is what ft_parse_duration reads: digits, an optional "."
 * and more digits, then a unit: ns, us, ms, s, m or min, h, or none for
 * seconds ("2.5s", "100ms", "1m"), read exactly, so that a formatted
 * spec parses back to the same nanoseconds.  No sign, exponent, blank
 * or fraction of a nanosecond.  Numbers are plain decimal digits.
 */
#ifndef FT_INJECT_H
#define FT_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"

#define FT_INJECT_SPEC_MAX	256	/* longest spec, in bytes */
#define FT_INJECT_RANK_LIMIT	(1u << 20)	/* rank < this */
#define FT_INJECT_REPLICA_LIMIT	64		/* replica < this */
#define FT_INJECT_SIGNO_MAX	64

enum ft_inject_trigger {
	FT_INJECT_AT = 1,
	FT_INJECT_EVERY,
	FT_INJECT_AFTER_SENDS
};

enum ft_inject_target {
	FT_INJECT_REPLICA = 1,	/* replica of rank */
	FT_INJECT_MASTER,	/* rank's master at the time of the kill */
	FT_INJECT_NONMASTER,	/* rank's lowest live non-master replica */
	FT_INJECT_RANDOM	/* launcher's choice; rank is unused */
};

/*
 * One parsed spec.  Fields that the trigger or target does not use are
 * 0: rank and replica for random, replica for master and non-master,
 * the two durations or the send count that are not the trigger, seed
 * unless random, count unless every.
 */
struct ft_inject {
	enum ft_inject_trigger	 trigger;
	enum ft_inject_target	 target;
	uint32_t		 rank, replica;
	uint64_t		 at_ns, every_ns, after_sends, seed, count;
	int			 signo;	/* SIGKILL unless signal= */
};

/*
 * Parse one spec (a NUL-terminated string of at most
 * FT_INJECT_SPEC_MAX bytes) into *inj.  Returns 0, or -1 with errno
 * EINVAL and *inj untouched; then, unless why is NULL or whysize 0, why
 * holds a one-line reason naming the offending item, such as "unknown
 * key 'foo'" or "'at' and 'every' are exclusive", truncated to whysize
 * bytes with a NUL.  Text quoted from the spec is cut short and has its
 * unprintable bytes replaced by '?', so why is safe to print.
 */
int	 ft_inject_parse(const char *spec, struct ft_inject *inj,
		    char *why, size_t whysize);

/*
 * Write the canonical spec of inj to out, like snprintf: at most
 * outsize bytes with a NUL unless outsize is 0, and out may be NULL when
 * outsize is 0.  The canonical spec has the target, then the trigger,
 * seed and count unless 0 and signal unless KILL, e.g.
 * "kill:rank=3,replica=0,at=2.5s" or "kill:random,every=3s,seed=7";
 * durations are in seconds with no trailing zeros.  Whatever
 * ft_inject_parse filled in formats to a spec that parses back to the
 * same struct.  Returns the length of the whole spec, not counting the
 * NUL (it was truncated if that is outsize or more), or -1 with errno
 * EINVAL when trigger or target is not one of the enum values.
 */
int	 ft_inject_format(const struct ft_inject *inj, char *out,
		    size_t outsize);

#endif
