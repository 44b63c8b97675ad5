/* SPDX-License-Identifier: ISC */
/*
 * lib/job/inject: the fault-injection specs of ftrun --inject.  Every
 * documented example parses to the fields it promises and formats back
 * to its canonical spec; every rule refuses what it forbids with a
 * reason naming the culprit; numbers and durations stop exactly at
 * their bounds; and random well-formed structs survive format + parse.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "job/inject.h"

static int
same(const struct ft_inject *a, const struct ft_inject *b)
{
	return a->trigger == b->trigger && a->target == b->target &&
	    a->rank == b->rank && a->replica == b->replica &&
	    a->at_ns == b->at_ns && a->every_ns == b->every_ns &&
	    a->after_sends == b->after_sends && a->seed == b->seed &&
	    a->count == b->count && a->signo == b->signo;
}

/* Format x and parse the result: 1 if that gives x back. */
static int
round_trip(const struct ft_inject *x)
{
	struct ft_inject y;
	char spec[FT_INJECT_SPEC_MAX + 1], why[128];
	int n;

	n = ft_inject_format(x, spec, sizeof(spec));
	if (n < 0 || (size_t)n >= sizeof(spec))
		return 0;
	if (ft_inject_parse(spec, &y, why, sizeof(why)) != 0) {
		t_diag("'%s' does not parse: %s", spec, why);
		return 0;
	}
	return same(x, &y);
}

static const struct example {
	const char		*spec;
	const char		*canonical;
	struct ft_inject	 want;
} examples[] = {
	{ "kill:rank=3,replica=0,at=2.5s", "kill:rank=3,replica=0,at=2.5s",
	    { .trigger = FT_INJECT_AT, .target = FT_INJECT_REPLICA,
	    .rank = 3, .replica = 0, .at_ns = 2500000000u,
	    .signo = SIGKILL } },
	{ "kill:rank=2,role=master,at=1s", "kill:rank=2,role=master,at=1s",
	    { .trigger = FT_INJECT_AT, .target = FT_INJECT_MASTER,
	    .rank = 2, .at_ns = 1000000000u, .signo = SIGKILL } },
	{ "kill:random,every=3s", "kill:random,every=3s",
	    { .trigger = FT_INJECT_EVERY, .target = FT_INJECT_RANDOM,
	    .every_ns = 3000000000u, .signo = SIGKILL } },
	{ "kill:random,every=100ms,seed=42,count=5",
	    "kill:random,every=0.1s,seed=42,count=5",
	    { .trigger = FT_INJECT_EVERY, .target = FT_INJECT_RANDOM,
	    .every_ns = 100000000u, .seed = 42, .count = 5,
	    .signo = SIGKILL } },
	{ "kill:rank=1,after-sends=100",
	    "kill:rank=1,replica=0,after-sends=100",
	    { .trigger = FT_INJECT_AFTER_SENDS, .target = FT_INJECT_REPLICA,
	    .rank = 1, .after_sends = 100, .signo = SIGKILL } },
	{ "kill:rank=1,replica=2,after-sends=100",
	    "kill:rank=1,replica=2,after-sends=100",
	    { .trigger = FT_INJECT_AFTER_SENDS, .target = FT_INJECT_REPLICA,
	    .rank = 1, .replica = 2, .after_sends = 100,
	    .signo = SIGKILL } },
	{ "kill:after-sends=7,role=replica,rank=5",
	    "kill:rank=5,role=replica,after-sends=7",
	    { .trigger = FT_INJECT_AFTER_SENDS,
	    .target = FT_INJECT_NONMASTER, .rank = 5, .after_sends = 7,
	    .signo = SIGKILL } },
	{ "kill:rank=0,role=master,every=1m,count=3,signal=TERM",
	    "kill:rank=0,role=master,every=60s,count=3,signal=TERM",
	    { .trigger = FT_INJECT_EVERY, .target = FT_INJECT_MASTER,
	    .every_ns = 60000000000u, .count = 3, .signo = SIGTERM } },
	{ "kill:rank=1048575,replica=63,at=0,signal=SEGV",
	    "kill:rank=1048575,replica=63,at=0s,signal=SEGV",
	    { .trigger = FT_INJECT_AT, .target = FT_INJECT_REPLICA,
	    .rank = 1048575, .replica = 63, .signo = SIGSEGV } },
	{ "kill:rank=4,at=1.25h,signal=9", "kill:rank=4,replica=0,at=4500s",
	    { .trigger = FT_INJECT_AT, .target = FT_INJECT_REPLICA,
	    .rank = 4, .at_ns = 4500000000000u, .signo = SIGKILL } },
	{ "kill:rank=4,at=500us,signal=64",
	    "kill:rank=4,replica=0,at=0.0005s,signal=64",
	    { .trigger = FT_INJECT_AT, .target = FT_INJECT_REPLICA,
	    .rank = 4, .at_ns = 500000, .signo = 64 } },
};

static void
test_examples(void)
{
	const struct example *e;
	struct ft_inject got;
	char out[FT_INJECT_SPEC_MAX + 1], why[128];
	size_t i;
	int n;

	for (i = 0; i < FT_NELEM(examples); i++) {
		e = &examples[i];
		memset(&got, 0xa5, sizeof(got));
		why[0] = '\0';
		if (!T_OK(ft_inject_parse(e->spec, &got, why, sizeof(why)) ==
		    0, "'%s' parses", e->spec)) {
			t_diag("why: %s", why);
			continue;
		}
		if (!T_OK(same(&got, &e->want), "'%s': every field as "
		    "documented", e->spec))
			t_diag("trigger %d target %d rank %u replica %u at %ju "
			    "every %ju after %ju seed %ju count %ju signo %d",
			    got.trigger, got.target, got.rank, got.replica,
			    (uintmax_t)got.at_ns, (uintmax_t)got.every_ns,
			    (uintmax_t)got.after_sends, (uintmax_t)got.seed,
			    (uintmax_t)got.count, got.signo);
		n = ft_inject_format(&got, out, sizeof(out));
		T_EQ_STR(out, e->canonical, "its canonical form");
		T_EQ_INT(n, strlen(e->canonical), "format returns the length");
		T_OK(round_trip(&got), "parse(format(x)) == x");
	}
}

static void
test_defaults(void)
{
	struct ft_inject x;

	T_OK(ft_inject_parse("kill:rank=7,at=1s", &x, NULL, 0) == 0,
	    "a spec with rank and trigger only parses");
	T_EQ_INT(x.signo, 9, "the default signal is KILL, 9");
	T_EQ_INT(x.target, FT_INJECT_REPLICA, "the default target is a "
	    "replica");
	T_EQ_UINT(x.replica, 0, "... replica 0");
	T_EQ_UINT(x.seed, 0, "seed defaults to 0");
	T_EQ_UINT(x.count, 0, "count defaults to 0, no limit");
	T_EQ_UINT(x.every_ns | x.after_sends, 0, "unused triggers are 0");
	T_OK(ft_inject_parse("kill:rank=7,at=1s,signal=KILL", &x, NULL, 0) ==
	    0 && x.signo == SIGKILL, "signal=KILL is the default, spelled out");
	T_OK(ft_inject_parse("kill:random,every=2s", &x, NULL, 0) == 0 &&
	    x.rank == 0 && x.replica == 0, "random leaves rank and replica 0");
}

/* Durations: units, exactness and bounds. */
static void
test_durations(void)
{
	static const struct {
		const char	*d;
		uint64_t	 ns;
	} good[] = {
		{ "0", 0 }, { "0s", 0 }, { "7ns", 7 }, { "1.0ns", 1 },
		{ "500us", 500000 }, { "100ms", 100000000 },
		{ "0.1s", 100000000 }, { "2.5", 2500000000u },
		{ "0.000000001s", 1 }, { "1.000000000000s", 1000000000 },
		{ "1m", 60000000000u }, { "1.5min", 90000000000u },
		{ "0.0000000001m", 6 }, { "2h", 7200000000000u },
		{ "007s", 7000000000u },
		{ "18446744073.709551615s", UINT64_MAX },
		{ "18446744073709551615ns", UINT64_MAX },
		{ "5124095h", 18446742000000000000u },
	};
	static const char *const bad[] = {
		"", "s", ".5s", "2.s", "2.5.1s", "+1s", "-1s", "-0", " 1s",
		"1s ", "1e3", "0x10", "1S", "1sec", "1d", "inf", "nan",
		"1,5s", "0.5ns", "0.0000000001s", "1.00000000001ms",
		"18446744073.709551616s", "18446744073709551616ns",
		"99999999999999999999999h", "5124096h",
	};
	static const char *const agree[] = {
		"0", "1", "2.5s", "100ms", "500us", "250ns", "1m", "2min",
		"1.5h", "0.001s", "86400",
	};
	struct ft_inject x;
	char spec[128];
	uint64_t ns;
	size_t i;
	int ok;

	for (i = 0; i < FT_NELEM(good); i++) {
		snprintf(spec, sizeof(spec), "kill:rank=0,at=%s", good[i].d);
		ok = ft_inject_parse(spec, &x, NULL, 0) == 0;
		T_OK(ok && x.at_ns == good[i].ns && round_trip(&x),
		    "at=%s is %ju ns, and formats back", good[i].d,
		    (uintmax_t)good[i].ns);
	}
	ok = 1;
	for (i = 0; i < FT_NELEM(bad); i++) {
		snprintf(spec, sizeof(spec), "kill:rank=0,at=%s", bad[i]);
		if (ft_inject_parse(spec, &x, NULL, 0) != -1 ||
		    errno != EINVAL) {
			t_diag("at=%s was taken", bad[i]);
			ok = 0;
		}
	}
	T_OK(ok, "%zu malformed, overflowing or sub-nanosecond durations "
	    "refused", FT_NELEM(bad));
	ok = 1;
	for (i = 0; i < FT_NELEM(agree); i++) {
		snprintf(spec, sizeof(spec), "kill:rank=0,at=%s", agree[i]);
		if (ft_inject_parse(spec, &x, NULL, 0) != 0 ||
		    ft_parse_duration(agree[i], &ns) != 0 || ns != x.at_ns) {
			t_diag("at=%s disagrees", agree[i]);
			ok = 0;
		}
	}
	T_OK(ok, "ordinary durations mean what ft_parse_duration says");
	T_OK(ft_inject_parse("kill:random,every=1ns", &x, NULL, 0) == 0 &&
	    x.every_ns == 1, "every=1ns is the shortest period");
}

/* Each number stops exactly at its bound. */
static void
test_bounds(void)
{
	static const struct {
		const char	*spec;
		int		 ok;
	} cases[] = {
		{ "kill:rank=1048575,at=1s", 1 },
		{ "kill:rank=1048576,at=1s", 0 },
		{ "kill:rank=4294967296,at=1s", 0 },
		{ "kill:rank=1,replica=63,at=1s", 1 },
		{ "kill:rank=1,replica=64,at=1s", 0 },
		{ "kill:rank=1,after-sends=1", 1 },
		{ "kill:rank=1,after-sends=0", 0 },
		{ "kill:rank=1,after-sends=18446744073709551615", 1 },
		{ "kill:rank=1,after-sends=18446744073709551616", 0 },
		{ "kill:random,every=1s,seed=18446744073709551615", 1 },
		{ "kill:random,every=1s,seed=18446744073709551616", 0 },
		{ "kill:random,every=1s,seed=0", 1 },
		{ "kill:random,every=1s,count=18446744073709551615", 1 },
		{ "kill:random,every=1s,count=99999999999999999999", 0 },
		{ "kill:rank=1,at=1s,signal=1", 1 },
		{ "kill:rank=1,at=1s,signal=64", 1 },
		{ "kill:rank=1,at=1s,signal=0", 0 },
		{ "kill:rank=1,at=1s,signal=65", 0 },
		{ "kill:rank=1,at=1s,signal=-9", 0 },
		{ "kill:rank=1,at=1s,signal=+9", 0 },
		{ "kill:rank=1,at=1s,signal=kill", 0 },
		{ "kill:rank=1,at=1s,signal=SIGKILL", 0 },
		{ "kill:rank=-1,at=1s", 0 },
		{ "kill:rank=+1,at=1s", 0 },
		{ "kill:rank= 1,at=1s", 0 },
		{ "kill:rank=0x1,at=1s", 0 },
		{ "kill:rank=01,at=1s", 1 },
	};
	struct ft_inject x;
	size_t i;

	for (i = 0; i < FT_NELEM(cases); i++) {
		if (cases[i].ok)
			T_OK(ft_inject_parse(cases[i].spec, &x, NULL, 0) == 0,
			    "'%s' parses", cases[i].spec);
		else
			T_FAILS(ft_inject_parse(cases[i].spec, &x, NULL, 0),
			    EINVAL, cases[i].spec);
	}
}

/* Each rule, and the reason that names what broke it. */
static void
test_errors(void)
{
	static const struct {
		const char	*spec;
		const char	*why;
	} cases[] = {
		{ "", "does not start with 'kill:'" },
		{ "kill", "'kill' does not start with 'kill:'" },
		{ "stop:rank=1,at=1s", "'stop:rank=1,at=1s' does not start" },
		{ "kill:", "nothing after 'kill:'" },
		{ "kill:,rank=1,at=1s", "empty item after 'kill:'" },
		{ "kill:rank=1,,at=1s", "empty item after 'rank=1'" },
		{ "kill:rank=1,at=1s,", "empty item after 'at=1s'" },
		{ "kill:rank=1,foo=2,at=1s", "unknown key 'foo'" },
		{ "kill:rank=1,at=1s,Rank=2", "unknown key 'Rank'" },
		{ "kill:rank=1,at=1s,bogus", "unknown item 'bogus'" },
		{ "kill:rank=1,=2,at=1s", "no key before '=2'" },
		{ "kill:rank,at=1s", "missing '=' after 'rank'" },
		{ "kill:rank=1,at", "missing '=' after 'at'" },
		{ "kill:rank=,at=1s", "empty value for 'rank'" },
		{ "kill:rank=1,at=1s,signal=", "empty value for 'signal'" },
		{ "kill:rank=1,rank=2,at=1s", "duplicate 'rank'" },
		{ "kill:random,random,every=1s", "duplicate 'random'" },
		{ "kill:random=1,every=1s", "'random' takes no value" },
		{ "kill:rank=3x,at=1s", "rank '3x' is not a decimal number" },
		{ "kill:rank=1=2,at=1s", "rank '1=2' is not a decimal number" },
		{ "kill:rank=1048576,at=1s",
		    "rank '1048576' is out of range 0..1048575" },
		{ "kill:rank=1,replica=64,at=1s",
		    "replica '64' is out of range 0..63" },
		{ "kill:rank=1,after-sends=0",
		    "after-sends '0' is out of range 1.." },
		{ "kill:rank=1,at=2.5sx", "at '2.5sx' is not a duration" },
		{ "kill:rank=1,at=0.5ns", "at '0.5ns' is finer than a "
		    "nanosecond" },
		{ "kill:rank=1,at=99999999999h", "at '99999999999h' is too "
		    "long" },
		{ "kill:random,every=0s", "every '0s' is not more than 0" },
		{ "kill:rank=1,role=boss,at=1s",
		    "role 'boss' is not 'master' or 'replica'" },
		{ "kill:rank=1,at=1s,signal=HUP",
		    "signal 'HUP' is not KILL, TERM, SEGV or a number 1..64" },
		{ "kill:rank=1", "no trigger" },
		{ "kill:rank=1,at=1s,every=2s", "'at' and 'every' are "
		    "exclusive" },
		{ "kill:rank=1,after-sends=3,every=2s",
		    "'every' and 'after-sends' are exclusive" },
		{ "kill:rank=1,after-sends=3,at=2s",
		    "'at' and 'after-sends' are exclusive" },
		{ "kill:random,at=1s", "'random' needs 'every', not 'at'" },
		{ "kill:random,after-sends=1",
		    "'random' needs 'every', not 'after-sends'" },
		{ "kill:random,rank=1,every=1s", "'random' and 'rank' are "
		    "exclusive" },
		{ "kill:random,replica=1,every=1s", "'random' and 'replica' "
		    "are exclusive" },
		{ "kill:random,role=master,every=1s", "'random' and 'role' "
		    "are exclusive" },
		{ "kill:at=1s", "'rank' is needed unless 'random'" },
		{ "kill:replica=1,at=1s", "'rank' is needed" },
		{ "kill:rank=1,replica=1,role=master,at=1s",
		    "'replica' and 'role' are exclusive" },
		{ "kill:rank=1,at=1s,seed=3", "'seed' needs 'random'" },
		{ "kill:rank=1,at=1s,count=3", "'count' needs 'every', not "
		    "'at'" },
		{ "kill:rank=1\x01,at=1s", "rank '1?' is not a decimal" },
		{ "kill:rank=1,at=1s,"
		    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1",
		    "unknown key 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'" },
	};
	struct ft_inject x, untouched;
	char why[128];
	size_t i;
	int rc;

	for (i = 0; i < FT_NELEM(cases); i++) {
		memset(&x, 0x5a, sizeof(x));
		memcpy(&untouched, &x, sizeof(x));
		snprintf(why, sizeof(why), "(unset)");
		errno = 0;
		rc = ft_inject_parse(cases[i].spec, &x, why, sizeof(why));
		if (!T_OK(rc == -1 && errno == EINVAL &&
		    strstr(why, cases[i].why) != NULL &&
		    memcmp(&x, &untouched, sizeof(x)) == 0,
		    "'%s' refused: %s", cases[i].spec, cases[i].why))
			t_diag("rc %d errno %d why \"%s\"", rc, errno, why);
	}
}

/* The length limit, and the why buffer at its edges. */
static void
test_limits(void)
{
	struct ft_inject x;
	char spec[FT_INJECT_SPEC_MAX + 2], why[16];
	size_t head;

	/* Zeros in front of the duration stretch a valid spec to any
	 * length without changing what it means. */
	head = strlen("kill:rank=1,at=");
	memcpy(spec, "kill:rank=1,at=", head);
	memset(spec + head, '0', FT_INJECT_SPEC_MAX - head - 2);
	memcpy(spec + FT_INJECT_SPEC_MAX - 2, "1s", 3);
	T_EQ_INT(strlen(spec), FT_INJECT_SPEC_MAX, "a spec of the longest "
	    "length...");
	T_OK(ft_inject_parse(spec, &x, NULL, 0) == 0 &&
	    x.at_ns == 1000000000, "... parses");
	memmove(spec + head + 1, spec + head, FT_INJECT_SPEC_MAX - head + 1);
	T_EQ_INT(strlen(spec), FT_INJECT_SPEC_MAX + 1, "one byte more...");
	memset(why, 'x', sizeof(why));
	T_FAILS(ft_inject_parse(spec, &x, why, sizeof(why)), EINVAL,
	    "... is refused");
	T_EQ_STR(why, "spec is longer ", "why is cut to its buffer, with "
	    "a NUL");
	T_FAILS(ft_inject_parse(NULL, &x, NULL, 0), EINVAL, "a NULL spec is "
	    "refused");
	why[0] = 'x';
	T_FAILS(ft_inject_parse("kill:", &x, why, 0), EINVAL,
	    "why may have no room...");
	T_EQ_INT(why[0], 'x', "... and is then left alone");
}

static void
test_format(void)
{
	struct ft_inject x = {
		.trigger = FT_INJECT_AT, .target = FT_INJECT_REPLICA,
		.rank = 3, .at_ns = 2500000000u, .signo = SIGKILL,
	};
	char out[64];
	int n;

	T_EQ_INT(ft_inject_format(&x, NULL, 0), 29, "NULL, 0: the length "
	    "of 'kill:rank=3,replica=0,at=2.5s'");
	memset(out, 'x', sizeof(out));
	n = ft_inject_format(&x, out, 10);
	T_EQ_INT(n, 29, "a short buffer: still the whole length...");
	T_EQ_STR(out, "kill:rank", "... and a truncated, terminated spec");
	T_EQ_INT(out[10], 'x', "... nothing written past the buffer");
	n = ft_inject_format(&x, out, 30);
	T_OK(n == 29 && strcmp(out, "kill:rank=3,replica=0,at=2.5s") == 0,
	    "a buffer of exactly length + 1 holds it all");
	x.at_ns = UINT64_MAX;
	n = ft_inject_format(&x, out, sizeof(out));
	T_EQ_STR(out, "kill:rank=3,replica=0,at=18446744073.709551615s",
	    "the longest duration in seconds, every digit kept");
	T_OK(round_trip(&x), "... and it parses back exactly");
	x.trigger = 0;
	T_FAILS(ft_inject_format(&x, out, sizeof(out)), EINVAL,
	    "a trigger out of the enum is refused");
	T_EQ_STR(out, "", "... with an empty string");
	x.trigger = FT_INJECT_AT;
	x.target = FT_INJECT_RANDOM + 1;
	T_FAILS(ft_inject_format(&x, out, sizeof(out)), EINVAL,
	    "a target out of the enum is refused");
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A number of any magnitude: small ones are as likely as huge ones. */
static uint64_t
spread(uint64_t *s)
{
	uint64_t v = xorshift(s);

	return v >> (xorshift(s) % 64);
}

/* A random struct of the kind ft_inject_parse fills. */
static void
random_inject(uint64_t *s, struct ft_inject *x)
{
	static const int signos[] = { SIGKILL, SIGTERM, SIGSEGV, 1, 64 };
	uint64_t r = xorshift(s);

	memset(x, 0, sizeof(*x));
	x->target = FT_INJECT_REPLICA + (int)(r % 4);
	x->trigger = x->target == FT_INJECT_RANDOM ? FT_INJECT_EVERY :
	    FT_INJECT_AT + (int)(r / 4 % 3);
	if (x->target != FT_INJECT_RANDOM)
		x->rank = (uint32_t)(xorshift(s) % FT_INJECT_RANK_LIMIT);
	if (x->target == FT_INJECT_REPLICA)
		x->replica = (uint32_t)(xorshift(s) %
		    FT_INJECT_REPLICA_LIMIT);
	switch (x->trigger) {
	case FT_INJECT_AT:
		x->at_ns = spread(s);
		break;
	case FT_INJECT_EVERY:
		x->every_ns = spread(s) | 1;
		if (x->target == FT_INJECT_RANDOM && r & 64)
			x->seed = xorshift(s);
		if (r & 128)
			x->count = spread(s);
		break;
	case FT_INJECT_AFTER_SENDS:
		x->after_sends = spread(s) | 1;
		break;
	}
	x->signo = signos[r / 256 % FT_NELEM(signos)];
}

static void
test_random_round_trip(void)
{
	struct ft_inject x;
	uint64_t s = 0x9e3779b97f4a7c15u;
	int i, ok = 1;

	for (i = 0; i < 100000 && ok; i++) {
		random_inject(&s, &x);
		ok = round_trip(&x);
	}
	T_OK(ok, "100000 random specs: parse(format(x)) == x");
}

int
main(void)
{
	test_examples();
	test_defaults();
	test_durations();
	test_bounds();
	test_errors();
	test_limits();
	test_format();
	test_random_round_trip();
	return t_done();
}
