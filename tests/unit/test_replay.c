/* SPDX-License-Identifier: ISC */
/*
 * lib/replay: the parser of ftlog dump lines (every field, every kind
 * of refusal, the round trip through ft_det_format), the reading of a
 * stream (line numbers, ranks given twice), each rule of the verifier
 * on a small log that breaks it and on one that holds, the memory cap,
 * the summary and the diagram.
 */
#include <stdlib.h>

#include "tap.h"
#include "replay/replay.h"

#define D(r, s, c, snd, sc, p) \
	"rank=" #r " seq=" #s " clock=" #c " kind=deliver sender=" #snd \
	" sclock=" #sc " probes=" #p "\n"

static char why[FT_REPLAY_WHY];

static int
parse(const char *s, struct ft_rrec *r)
{
	return ft_replay_parse(s, strlen(s), r, why, sizeof(why));
}

static void
test_parse(void)
{
	struct ft_rrec r;

	T_OK(parse("job=000000000000002a rank=3 seq=7 clock=14 kind=deliver "
	    "sender=1 sclock=9 probes=2", &r) == 0, "a delivery parses");
	T_OK(r.job == 0x2a && r.rank == 3 && r.d.seq == 7 &&
	    r.d.clock == 14 && r.d.kind == FT_DET_DELIVERY &&
	    r.d.sender == 1 && r.d.sclock == 9 && r.d.probes == 2,
	    "every field of it");
	T_OK(parse("rank=0 seq=1 clock=1 kind=probe sender=none sclock=0 "
	    "probes=0 a=1 b=18446744073709551615 c=3", &r) == 0 &&
	    r.job == 0 && r.d.sender == FT_DET_NOSENDER &&
	    r.d.v[1] == UINT64_MAX && r.d.v[2] == 3,
	    "a probe without a job, the largest value");
	T_OK(parse(" {\"job\":\"2a\", \"rank\":1,\"seq\":2,\"clock\":3,"
	    "\"kind\":\"anysrc\",\"sender\":null,\"sclock\":4,\"probes\":0,"
	    "\"a\":1,\"b\":2,\"c\":3} ", &r) == 0 && r.job == 0x2a &&
	    r.d.kind == 1 && r.d.sender == FT_DET_NOSENDER,
	    "JSON, spaces, a null sender");
	T_FAILS(parse("rank=0 seq=1 clock=1 kind=deliver sender=0 probes=0",
	    &r), EPROTO, "a key missing");
	T_EQ_STR(why, "'sclock' is missing", "says which");
	T_FAILS(parse("rank=0 seq=1 seq=1 clock=1", &r), EPROTO,
	    "a key twice");
	T_EQ_STR(why, "'seq' is given twice", "says which");
	T_FAILS(parse("rank=0 seq=0 clock=1", &r), EPROTO, "seq 0");
	T_FAILS(parse("rank=0 seq=18446744073709551616", &r), EPROTO,
	    "a number above 2^64 - 1");
	T_FAILS(parse("rank=1048576 seq=1", &r), EPROTO, "a rank too high");
	T_FAILS(parse("rank=-1 seq=1", &r), EPROTO, "a negative rank");
	T_FAILS(parse("rank=0 seq=1 clock=1 kind=deliver sender=0 sclock=1 "
	    "probes=0 a=1 b=0 c=0", &r), EPROTO, "a delivery with a, b, c");
	T_FAILS(parse("rank=0 seq=1 clock=1 kind=flag sender=none sclock=0 "
	    "probes=0 a=1", &r), EPROTO, "a flag without b, c");
	T_FAILS(parse("rank=0 seq=1 clock=1 kind=deliver sender=none "
	    "sclock=1 probes=0", &r), EPROTO, "a delivery without a sender");
	T_FAILS(parse("rank=0 seq=1 clock=1 kind=send sender=0", &r),
	    EPROTO, "an unknown kind");
	T_FAILS(parse("rank=0 seq=1 hello", &r), EPROTO, "not key=value");
	T_FAILS(parse("job=12345678901234567 rank=0", &r), EPROTO,
	    "a job of 17 digits");
	T_FAILS(ft_replay_parse("rank=0\0 seq=1", 13, &r, why, sizeof(why)),
	    EPROTO, "a NUL byte");
	T_FAILS(parse("{\"rank\":0,\"seq\":1", &r), EPROTO,
	    "JSON cut short");
	T_FAILS(parse("{\"rank\":\"0\"}", &r), EPROTO, "a rank as a string");
	T_FAILS(parse("{\"ra\\nk\":0}", &r), EPROTO, "an escape in a key");
	T_FAILS(parse("{}", &r), EPROTO, "an empty object");
	T_FAILS(parse("{\"rank\":0} x", &r), EPROTO, "text after JSON");
}

static void
test_roundtrip(void)
{
	struct ft_rrec r;
	struct ft_det d;
	char line[FT_DET_TEXT_MAX];
	uint32_t k;
	int json, n, ok = 1;

	for (json = 0; json < 2; json++)
		for (k = 0; k <= FT_DET_KIND_MAX; k++) {
			memset(&d, 0, sizeof(d));
			d.seq = 5 + k;
			d.clock = UINT64_MAX - k;
			d.kind = k;
			d.sender = k <= 1 ? 7 : FT_DET_NOSENDER;
			d.sclock = 11;
			d.probes = UINT32_MAX;
			if (k != 0) {
				d.v[0] = k;
				d.v[1] = UINT64_MAX;
				d.v[2] = 0;
			}
			n = ft_det_format(line, sizeof(line), 0xfeedull << 40,
			    FT_WIRE_MAX_RANKS - 1, &d, json);
			if (n <= 0 || ft_replay_parse(line, (size_t)n - 1, &r,
			    why, sizeof(why)) != 0 || r.job != 0xfeedull << 40 ||
			    r.rank != FT_WIRE_MAX_RANKS - 1 ||
			    memcmp(&r.d.v, &d.v, sizeof(d.v)) != 0 ||
			    r.d.seq != d.seq || r.d.clock != d.clock ||
			    r.d.kind != k || r.d.sender != d.sender ||
			    r.d.sclock != d.sclock || r.d.probes != d.probes) {
				t_diag("%s: %s", line, why);
				ok = 0;
			}
		}
	T_OK(ok, "every kind, key=value and JSON, prints and parses back");
}

/* Read text as a stream: the log, or NULL with why. */
static struct ft_replay *
load(const char *text)
{
	struct ft_replay *l;
	FILE *f;

	if ((l = ft_replay_new("/tmp", why, sizeof(why))) == NULL)
		return NULL;
	if ((f = fmemopen((void *)text, strlen(text), "r")) == NULL ||
	    ft_replay_read_stream(l, f, "t", why, sizeof(why)) != 0) {
		if (f != NULL)
			fclose(f);
		ft_replay_free(l);
		return NULL;
	}
	fclose(f);
	return l;
}

static struct ft_replay_violation v;

/* Verify text's first job: 0, 1 (v says what), -1. */
static int
check(const char *text, const struct ft_replay_opts *o)
{
	struct ft_replay_opts def;
	struct ft_replay_stats st;
	struct ft_replay *l;
	int rc;

	memset(&def, 0, sizeof(def));
	if ((l = load(text)) == NULL)
		return -2;
	memset(&v, 0, sizeof(v));
	rc = ft_replay_verify(l, ft_replay_job(l, 0), o != NULL ? o : &def,
	    &st, &v, why, sizeof(why));
	ft_replay_free(l);
	return rc;
}

static int
fails(const char *text, const struct ft_replay_opts *o, const char *rule,
    uint32_t rank, uint64_t clock)
{
	int rc = check(text, o);

	if (rc != 1 || strcmp(v.rule, rule) != 0 || v.rank != rank ||
	    v.clock != clock) {
		t_diag("got %d, rule %s rank %u clock %ju: %s", rc,
		    v.rule != NULL ? v.rule : "-", v.rank, (uintmax_t)v.clock,
		    rc == 1 ? v.what : why);
		return 0;
	}
	return 1;
}

/* Two ranks exchanging: sends at odd clocks, deliveries at even ones. */
#define GOOD \
	D(0, 1, 2, 1, 1, 0) \
	"rank=0 seq=2 clock=3 kind=probe sender=none sclock=0 probes=0 " \
	"a=0 b=1 c=0\n" \
	"rank=0 seq=3 clock=3 kind=anysrc sender=1 sclock=3 probes=1 " \
	"a=1 b=1 c=1\n" \
	D(0, 4, 4, 1, 3, 1) \
	D(1, 1, 2, 0, 1, 0) \
	D(1, 2, 4, 0, 3, 0)

static void
test_rules(void)
{
	struct ft_replay_opts o;

	memset(&o, 0, sizeof(o));
	T_EQ_INT(check(GOOD, NULL), 0, "a consistent log holds");
	T_OK(fails(D(0, 1, 2, 1, 1, 0) D(0, 3, 4, 1, 3, 0), NULL, "seq", 0,
	    4), "a gap in seqs: seq");
	T_OK(v.nrec == 2 && v.rec[0].d.seq == 1 && v.rec[1].d.seq == 3 &&
	    v.rec[1].line == 2, "names both records and the line");
	T_OK(fails(D(0, 1, 4, 1, 1, 0) D(0, 2, 4, 1, 3, 0), NULL, "clock", 0,
	    4), "two deliveries at one clock: clock");
	T_OK(fails(D(0, 1, 0, 1, 1, 0), NULL, "clock", 0, 0),
	    "a delivery at clock 0: clock");
	T_OK(fails(D(0, 1, 2, 1, 1, 0) "rank=0 seq=2 clock=1 kind=flag "
	    "sender=none sclock=0 probes=0 a=1 b=0 c=0\n", NULL, "clock", 0,
	    1), "an event whose clock goes down: clock");
	T_OK(fails(D(0, 1, 2, 1, 1, 1), NULL, "probes", 0, 2),
	    "a probe counted that the log lacks: probes");
	T_OK(fails("rank=0 seq=1 clock=1 kind=flag sender=none sclock=0 "
	    "probes=0 a=2 b=0 c=0\n", NULL, "outcome", 0, 1),
	    "a flag of 2: outcome");
	T_OK(fails("rank=0 seq=1 clock=1 kind=index sender=3 sclock=0 "
	    "probes=0 a=2 b=0 c=0\n", NULL, "outcome", 0, 1),
	    "an index with a sender: outcome");
	T_OK(fails(D(0, 1, 2, 1, 1, 0) D(0, 2, 4, 1, 1, 0), NULL,
	    "duplicate", 0, 4), "a message delivered twice: duplicate");
	T_OK(v.nrec == 2 && v.rec[0].d.seq == 1 && v.rec[1].d.seq == 2,
	    "names the first delivery and the second");
	T_OK(fails(D(0, 1, 2, 2, 1, 0) D(1, 1, 2, 2, 1, 0), NULL,
	    "duplicate", 1, 2), "one send delivered to two ranks: duplicate");
	o.sclock = FT_REPLAY_SCLOCK_SEQ;
	T_EQ_INT(check(D(0, 1, 2, 2, 1, 0) D(1, 1, 2, 2, 1, 0), &o), 0,
	    "with --sclock seq, channels number their messages apart");
	o.sclock = FT_REPLAY_SCLOCK_CLOCK;
	T_OK(fails(D(0, 1, 2, 1, 3, 0) D(0, 2, 4, 1, 1, 0), NULL,
	    "channel-order", 0, 4), "a channel out of order: channel-order");
	o.no_channel_order = 1;
	T_EQ_INT(check(D(0, 1, 2, 1, 3, 0) D(0, 2, 4, 1, 1, 0), &o), 0,
	    "which --no-channel-order lets pass");
	o.no_channel_order = 0;
	T_OK(fails(D(0, 1, 2, 1, 1, 0) "rank=0 seq=2 clock=2 kind=anysrc "
	    "sender=1 sclock=1 probes=0 a=1 b=0 c=1\n", NULL, "anysrc", 0, 2),
	    "an ANY_SOURCE match of a message delivered before: anysrc");
	T_OK(fails("rank=0 seq=1 clock=0 kind=anysrc sender=1 sclock=1 "
	    "probes=0 a=1 b=0 c=1\n" D(0, 2, 2, 1, 3, 0), NULL, "anysrc", 0,
	    2), "a later message of the channel delivered first: anysrc");
	T_EQ_INT(check("rank=0 seq=1 clock=0 kind=anysrc sender=1 sclock=1 "
	    "probes=0 a=1 b=0 c=1\n", NULL), 0,
	    "a match whose delivery the log has not yet holds");
	T_OK(fails(D(0, 1, 2, 1, 0, 0), NULL, "send-clock", 0, 2),
	    "a send at clock 0: send-clock");
	T_OK(fails(D(0, 1, 2, 1, 2, 0) D(1, 1, 2, 0, 1, 0), NULL,
	    "send-clock", 0, 2), "a send at a clock of a delivery: "
	    "send-clock");
	T_OK(v.nrec == 2 && v.rec[1].rank == 1 && v.rec[1].d.clock == 2,
	    "names the sender's delivery");
	T_OK(fails(D(0, 1, 2, 1, 5, 0) D(1, 1, 4, 0, 3, 0), NULL,
	    "causality", 0, 2), "two ranks receiving what the other sent "
	    "later: causality");
	T_OK(v.nrec == 2 && strstr(v.what, "cycle") != NULL,
	    "names both records");
	T_OK(fails(D(0, 1, 2, 0, 3, 0), NULL, "causality", 0, 2),
	    "a rank receiving its own message before sending it: causality");
	T_EQ_INT(check(D(0, 1, 2, 5, 1, 0), NULL), 0,
	    "a sender without a log holds back nothing");
	o.max_mem = 4096;
	T_EQ_INT(check(D(0, 1, 2, 1, 1, 0) D(0, 2, 100000, 1, 50001, 0)
	    D(0, 3, 200000, 1, 150001, 0), &o), -1,
	    "a log whose clocks need more than max_mem is refused");
	T_OK(errno == ENOMEM && strstr(why, "MiB") != NULL, "with ENOMEM");
}

static void
test_stream(void)
{
	struct ft_replay *l;

	T_OK(load("\n" D(0, 1, 2, 1, 1, 0) "rank=0 seq=x\n") == NULL &&
	    errno == EPROTO, "a bad line is refused");
	T_EQ_STR(why, "t line 3: seq 'x' is not a decimal number (0 to "
	    "18446744073709551615)", "with its line number");
	T_OK(load(D(0, 1, 2, 1, 1, 0) D(1, 1, 2, 0, 1, 0)
	    D(0, 2, 4, 1, 3, 0)) == NULL && errno == EINVAL,
	    "a rank met again after another is refused");
	T_OK(strstr(why, "line 3: job 0000000000000000 rank 0 comes again") !=
	    NULL, "says where");
	l = load("job=2 " D(0, 1, 2, 1, 1, 0) "job=1 " D(0, 1, 2, 1, 1, 0));
	T_OK(l != NULL && ft_replay_njobs(l) == 2 &&
	    ft_replay_job(l, 0) == 1 && ft_replay_job(l, 1) == 2,
	    "jobs come out in order");
	ft_replay_free(l);
}

static void
test_inspect(void)
{
	struct ft_replay_opts o;
	struct ft_replay_summary s;
	struct ft_replay_svg so;
	struct ft_replay *l;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if ((l = load(GOOD D(1, 3, 6, 2, 1, 0))) == NULL) {
		T_OK(0, "load: %s", why);
		return;
	}
	T_OK(ft_replay_summarize(l, 0, &s, why, sizeof(why)) == 0 &&
	    s.nranks == 3 && s.ncells == 3, "three ranks, three channels");
	T_OK(s.ranks[0].dets == 4 && s.ranks[0].recv == 2 &&
	    s.ranks[0].sent == 2 && s.ranks[0].probes == 1 &&
	    s.ranks[0].kinds[1] == 1 && s.ranks[0].last_clock == 4,
	    "rank 0's figures");
	T_OK(s.ranks[2].dets == 0 && s.ranks[2].sent == 1,
	    "a sender without a log is counted");
	T_OK(s.cells[0].from == 0 && s.cells[0].to == 1 &&
	    s.cells[0].messages == 2 && s.cells[2].from == 2,
	    "the matrix, by sender then receiver");
	ft_replay_summary_release(&s);
	memset(&o, 0, sizeof(o));
	memset(&so, 0, sizeof(so));
	so.title = "a <test> & more";
	f = open_memstream(&buf, &len);
	T_OK(f != NULL && ft_replay_svg(l, 0, &o, &so, f, why,
	    sizeof(why)) == 0, "the diagram is written");
	if (f != NULL)
		fclose(f);
	T_OK(buf != NULL && strncmp(buf, "<?xml", 5) == 0 &&
	    strstr(buf, "</svg>\n") != NULL &&
	    strstr(buf, "a &lt;test&gt; &amp; more") != NULL &&
	    strstr(buf, "5 messages in") != NULL,
	    "an SVG document, its title escaped, every message drawn");
	free(buf);
	ft_replay_free(l);
}

int
main(void)
{
	test_parse();
	test_roundtrip();
	test_stream();
	test_rules();
	test_inspect();
	return t_done();
}
