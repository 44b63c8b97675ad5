/* SPDX-License-Identifier: ISC */
/*
 * The fault-injection spec language of ftrun --inject (see inject.h):
 * a strict parser that names what it refuses, and the canonical
 * formatter that ftrun's 'inject' event carries.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "inject.h"

#define PREFIX		"kill:"
#define NS_PER_S	1000000000u
#define SHOWN_MAX	32	/* bytes of spec text quoted in a reason */

enum key {
	K_RANDOM,
	K_RANK,
	K_REPLICA,
	K_ROLE,
	K_AT,
	K_EVERY,
	K_AFTER_SENDS,
	K_SEED,
	K_COUNT,
	K_SIGNAL,
	K_NKEYS
};

static const char *const key_names[K_NKEYS] = {
	[K_RANDOM] = "random",
	[K_RANK] = "rank",
	[K_REPLICA] = "replica",
	[K_ROLE] = "role",
	[K_AT] = "at",
	[K_EVERY] = "every",
	[K_AFTER_SENDS] = "after-sends",
	[K_SEED] = "seed",
	[K_COUNT] = "count",
	[K_SIGNAL] = "signal",
};

#define BIT(k)	(1u << (k))

static const struct signame {
	const char	*name;
	int		 signo;
} signames[] = {
	{ "KILL", SIGKILL },
	{ "TERM", SIGTERM },
	{ "SEGV", SIGSEGV },
};

struct parser {
	char	*why;
	size_t	 whysize;
	char	 shown[SHOWN_MAX + 4];
};

/* Where the output of ft_inject_format stands; len may pass size. */
struct out {
	char	*p;
	size_t	 size, len;
};

/*
 * The first len bytes of s made safe to quote: a reason goes to a
 * terminal, so bytes that are not printable ASCII become '?', and a
 * long item is cut.  The result lives in p until the next call.
 */
static const char *
shown_n(struct parser *p, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i] != '\0' && i < SHOWN_MAX; i++)
		p->shown[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (i < len && s[i] != '\0') {
		memcpy(p->shown + i, "...", 3);
		i += 3;
	}
	p->shown[i] = '\0';
	return p->shown;
}

static const char *
shown(struct parser *p, const char *s)
{
	return shown_n(p, s, SIZE_MAX);
}

static int FT_PRINTF(2, 3)
refuse(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->why != NULL && p->whysize > 0) {
		va_start(ap, fmt);
		vsnprintf(p->why, p->whysize, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

static int
mul_add(uint64_t *v, uint64_t mul, uint64_t add)
{
	if (*v > (UINT64_MAX - add) / mul)
		return -1;
	*v = *v * mul + add;
	return 0;
}

/*
 * Plain decimal digits, nothing else: strtonum and strtoull would take
 * blanks and signs (strtoull turns "-1" into 2^64-1), and strtonum
 * stops at LLONG_MAX.  Returns 0, EINVAL or ERANGE.
 */
static int
decimal(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	size_t n;

	n = strspn(s, "0123456789");
	if (n == 0 || s[n] != '\0')
		return EINVAL;
	for (*v = 0; *s != '\0'; s++)
		if (mul_add(v, 10, (uint64_t)(*s - '0')) == -1)
			return ERANGE;
	return *v < min || *v > max ? ERANGE : 0;
}

static int
number_item(struct parser *p, enum key k, const char *val, uint64_t min,
    uint64_t max, uint64_t *v)
{
	switch (decimal(val, min, max, v)) {
	case 0:
		return 0;
	case ERANGE:
		return refuse(p, "%s '%s' is out of range %" PRIu64 "..%"
		    PRIu64, key_names[k], shown(p, val), min, max);
	default:
		return refuse(p, "%s '%s' is not a decimal number",
		    key_names[k], shown(p, val));
	}
}

static int
duration_item(struct parser *p, enum key k, const char *val, uint64_t *ns)
{
	if (ft_parse_duration(val, ns) == 0)
		return 0;
	switch (errno) {
	case ERANGE:
		return refuse(p, "%s '%s' is too long", key_names[k],
		    shown(p, val));
	case EDOM:
		return refuse(p, "%s '%s' is finer than a nanosecond",
		    key_names[k], shown(p, val));
	default:
		return refuse(p, "%s '%s' is not a duration such as 2.5s or "
		    "100ms", key_names[k], shown(p, val));
	}
}

/* One key=value item, the key known and not seen before. */
static int
value_item(struct parser *p, enum key k, const char *val,
    struct ft_inject *v)
{
	uint64_t n;
	size_t i;

	switch (k) {
	case K_RANK:
		if (number_item(p, k, val, 0, FT_INJECT_RANK_LIMIT - 1,
		    &n) == -1)
			return -1;
		v->rank = (uint32_t)n;
		return 0;
	case K_REPLICA:
		if (number_item(p, k, val, 0, FT_INJECT_REPLICA_LIMIT - 1,
		    &n) == -1)
			return -1;
		v->replica = (uint32_t)n;
		v->target = FT_INJECT_REPLICA;
		return 0;
	case K_ROLE:
		if (strcmp(val, "master") == 0)
			v->target = FT_INJECT_MASTER;
		else if (strcmp(val, "replica") == 0)
			v->target = FT_INJECT_NONMASTER;
		else
			return refuse(p, "role '%s' is not 'master' or "
			    "'replica'", shown(p, val));
		return 0;
	case K_AT:
		v->trigger = FT_INJECT_AT;
		return duration_item(p, k, val, &v->at_ns);
	case K_EVERY:
		v->trigger = FT_INJECT_EVERY;
		if (duration_item(p, k, val, &v->every_ns) == -1)
			return -1;
		/* A period of 0 would kill everything it may at once. */
		if (v->every_ns == 0)
			return refuse(p, "every '%s' is not more than 0",
			    shown(p, val));
		return 0;
	case K_AFTER_SENDS:
		v->trigger = FT_INJECT_AFTER_SENDS;
		return number_item(p, k, val, 1, UINT64_MAX, &v->after_sends);
	case K_SEED:
		return number_item(p, k, val, 0, UINT64_MAX, &v->seed);
	case K_COUNT:
		return number_item(p, k, val, 0, UINT64_MAX, &v->count);
	case K_SIGNAL:
		for (i = 0; i < FT_NELEM(signames); i++)
			if (strcmp(val, signames[i].name) == 0) {
				v->signo = signames[i].signo;
				return 0;
			}
		if (decimal(val, 1, FT_INJECT_SIGNO_MAX, &n) != 0)
			return refuse(p, "signal '%s' is not KILL, TERM, SEGV "
			    "or a number 1..%d", shown(p, val),
			    FT_INJECT_SIGNO_MAX);
		v->signo = (int)n;
		return 0;
	default:
		FT_BUG();
	}
}

/* The rules between items, once all of them are known to be well formed. */
static int
check_combination(struct parser *p, unsigned int seen)
{
	static const enum key triggers[] = { K_AT, K_EVERY, K_AFTER_SENDS };
	static const enum key targets[] = { K_RANK, K_REPLICA, K_ROLE };
	const char *first = NULL;
	size_t i;

	for (i = 0; i < FT_NELEM(triggers); i++) {
		if ((seen & BIT(triggers[i])) == 0)
			continue;
		if (first != NULL)
			return refuse(p, "'%s' and '%s' are exclusive", first,
			    key_names[triggers[i]]);
		first = key_names[triggers[i]];
	}
	if (first == NULL)
		return refuse(p, "no trigger: one of 'at', 'every' or "
		    "'after-sends' is needed");
	if (seen & BIT(K_RANDOM)) {
		if ((seen & BIT(K_EVERY)) == 0)
			return refuse(p, "'random' needs 'every', not '%s'",
			    first);
		for (i = 0; i < FT_NELEM(targets); i++)
			if (seen & BIT(targets[i]))
				return refuse(p, "'random' and '%s' are "
				    "exclusive", key_names[targets[i]]);
	} else if ((seen & BIT(K_RANK)) == 0)
		return refuse(p, "'rank' is needed unless 'random'");
	if ((seen & BIT(K_REPLICA)) && (seen & BIT(K_ROLE)))
		return refuse(p, "'replica' and 'role' are exclusive");
	/* Keys that the trigger or target would ignore are refused, so
	 * that a spec never means less than it seems to say. */
	if ((seen & BIT(K_SEED)) && (seen & BIT(K_RANDOM)) == 0)
		return refuse(p, "'seed' needs 'random'");
	if ((seen & BIT(K_COUNT)) && (seen & BIT(K_EVERY)) == 0)
		return refuse(p, "'count' needs 'every', not '%s'", first);
	return 0;
}

int
ft_inject_parse(const char *spec, struct ft_inject *inj, char *why,
    size_t whysize)
{
	struct parser p = { .why = why, .whysize = whysize };
	struct ft_inject v;
	char buf[FT_INJECT_SPEC_MAX + 1], *item, *next, *val, *prev = NULL;
	unsigned int seen = 0;
	size_t len, keylen;
	enum key k;

	if (spec == NULL)
		return refuse(&p, "no spec");
	len = strnlen(spec, sizeof(buf));
	if (len == sizeof(buf))
		return refuse(&p, "spec is longer than %d bytes",
		    FT_INJECT_SPEC_MAX);
	if (strncmp(spec, PREFIX, strlen(PREFIX)) != 0)
		return refuse(&p, "spec '%s' does not start with '" PREFIX "'",
		    shown(&p, spec));
	if (spec[strlen(PREFIX)] == '\0')
		return refuse(&p, "nothing after '" PREFIX "'");
	/* Items are cut apart in a copy: the caller's spec is const. */
	memcpy(buf, spec, len + 1);
	memset(&v, 0, sizeof(v));
	v.target = FT_INJECT_REPLICA;
	v.signo = SIGKILL;
	for (item = buf + strlen(PREFIX); item != NULL; prev = item,
	    item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		if (*item == '\0') {
			if (prev == NULL)
				return refuse(&p, "empty item after '"
				    PREFIX "'");
			return refuse(&p, "empty item after '%s'",
			    shown(&p, prev));
		}
		/* The item stays whole, so that the reason for an empty
		 * item after it can quote it. */
		keylen = strcspn(item, "=");
		val = item[keylen] == '=' ? item + keylen + 1 : NULL;
		for (k = 0; k < K_NKEYS; k++)
			if (strlen(key_names[k]) == keylen &&
			    strncmp(item, key_names[k], keylen) == 0)
				break;
		if (k == K_NKEYS) {
			if (keylen == 0)
				return refuse(&p, "no key before '%s'",
				    shown(&p, item));
			return refuse(&p, "unknown %s '%s'", val != NULL ?
			    "key" : "item", shown_n(&p, item, keylen));
		}
		if (seen & BIT(k))
			return refuse(&p, "duplicate '%s'", key_names[k]);
		seen |= BIT(k);
		if (k == K_RANDOM) {
			if (val != NULL)
				return refuse(&p, "'random' takes no value");
			v.target = FT_INJECT_RANDOM;
			continue;
		}
		if (val == NULL)
			return refuse(&p, "missing '=' after '%s'",
			    key_names[k]);
		if (*val == '\0')
			return refuse(&p, "empty value for '%s'",
			    key_names[k]);
		if (value_item(&p, k, val, &v) == -1)
			return -1;
	}
	if (check_combination(&p, seen) == -1)
		return -1;
	memcpy(inj, &v, sizeof(v));
	return 0;
}

static void FT_PRINTF(2, 3)
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (o->len < o->size)
		n = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* Seconds with as many decimals as needed and no more: "2.5s", "3s". */
static void
put_duration(struct out *o, const char *key, uint64_t ns)
{
	uint64_t frac = ns % NS_PER_S;
	int digits = 9;

	if (frac == 0) {
		put(o, ",%s=%" PRIu64 "s", key, ns / NS_PER_S);
		return;
	}
	for (; frac % 10 == 0; frac /= 10)
		digits--;
	put(o, ",%s=%" PRIu64 ".%0*" PRIu64 "s", key, ns / NS_PER_S, digits,
	    frac);
}

int
ft_inject_format(const struct ft_inject *inj, char *out, size_t outsize)
{
	struct out o = { .p = out, .size = outsize };
	size_t i;

	if (inj->trigger < FT_INJECT_AT ||
	    inj->trigger > FT_INJECT_AFTER_SENDS ||
	    inj->target < FT_INJECT_REPLICA ||
	    inj->target > FT_INJECT_RANDOM) {
		if (outsize > 0)
			out[0] = '\0';
		errno = EINVAL;
		return -1;
	}
	put(&o, PREFIX);
	switch (inj->target) {
	case FT_INJECT_REPLICA:
		put(&o, "rank=%" PRIu32 ",replica=%" PRIu32, inj->rank,
		    inj->replica);
		break;
	case FT_INJECT_MASTER:
		put(&o, "rank=%" PRIu32 ",role=master", inj->rank);
		break;
	case FT_INJECT_NONMASTER:
		put(&o, "rank=%" PRIu32 ",role=replica", inj->rank);
		break;
	case FT_INJECT_RANDOM:
		put(&o, "random");
		break;
	}
	switch (inj->trigger) {
	case FT_INJECT_AT:
		put_duration(&o, "at", inj->at_ns);
		break;
	case FT_INJECT_EVERY:
		put_duration(&o, "every", inj->every_ns);
		break;
	case FT_INJECT_AFTER_SENDS:
		put(&o, ",after-sends=%" PRIu64, inj->after_sends);
		break;
	}
	if (inj->seed != 0)
		put(&o, ",seed=%" PRIu64, inj->seed);
	if (inj->count != 0)
		put(&o, ",count=%" PRIu64, inj->count);
	if (inj->signo != SIGKILL) {
		for (i = 0; i < FT_NELEM(signames); i++)
			if (inj->signo == signames[i].signo)
				break;
		if (i < FT_NELEM(signames))
			put(&o, ",signal=%s", signames[i].name);
		else
			put(&o, ",signal=%d", inj->signo);
	}
	/* The longest spec is a few hundred bytes: len fits an int. */
	return (int)o.len;
}
