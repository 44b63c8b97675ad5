/* SPDX-License-Identifier: ISC */
/*
 * The recorder tap (lib/proto/tap.c) and the replay protocol
 * (lib/proto/replay.c) through the seam, with a fake engine: without a
 * record directory nothing is tapped; with one, what the engine's hook
 * calls carry lands in the record, and the protocol behind the tap
 * still sees them; the replay protocol feeds recorded messages one at a
 * time through core->inject, gives the recorded outcomes, takes and
 * completes sends, and reports the first that differs, a wrong kind of
 * outcome, and a program that ends early.
 */
#include <bsd/string.h>
#include <stdlib.h>

#include "tap.h"
#include "proto/proto.h"
#include "store/store.h"

static char why[640];

/* The fake engine. */
struct fake {
	struct ft_proto	*p;
	int		 posted;	/* receives waiting for a message */
	int		 held;		/* injected, not matched */
	struct ft_msg	 hold;
	uint8_t		 holdbuf[64];
	int		 injected, completed, notes;
	uint32_t	 kind;
	char		 text[512];
	uint8_t		 got[64];
};

static struct fake F;

static void
deliver_held(void)
{
	struct ft_msg m = F.hold;

	m.buf = F.holdbuf;
	F.held = 0;
	F.posted--;
	F.p->ops->match(F.p, &m, 0);
	memcpy(F.got, F.holdbuf, m.len);
	if (F.p->ops->deliver != NULL)
		(void)F.p->ops->deliver(F.p, &m);
}

static int
fk_inject(void *core, const struct ft_msg *m)
{
	(void)core;
	F.injected++;
	F.hold = *m;
	memcpy(F.holdbuf, m->buf, m->len);
	F.held = 1;
	if (F.posted > 0)
		deliver_held();
	return 0;
}

static void
fk_complete(void *core, struct ft_req *r, int err)
{
	(void)core;
	(void)r;
	if (err == 0)
		F.completed++;
}

static void
fk_notify(void *core, uint32_t kind, const char *text)
{
	(void)core;
	F.notes++;
	F.kind = kind;
	snprintf(F.text, sizeof(F.text), "%s", text);
}

static uint64_t
fk_now(void *core)
{
	(void)core;
	return 0;
}

static const struct ft_core_ops fake_core = {
	.complete = fk_complete,
	.notify = fk_notify,
	.now_ns = fk_now,
	.inject = fk_inject,
};

/* The program posts a receive. */
static void
post(void)
{
	F.posted++;
	if (F.held)
		deliver_held();
}

static const char *
tmpdir(void)
{
	static char path[256];
	const char *t = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/test_recplay.XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(path) == NULL)
		abort();
	return path;
}

static void
test_tap(const char *dir)
{
	struct ft_conf c = { .rank = 1, .size = 2, .ppr = 1, .proc = 1 };
	struct ft_proto p;
	struct ft_msg m = { .ctx = 3, .src = 0, .dst = 1, .tag = 5, .seq = 0,
	    .buf = "hello", .len = 5, .csrc = 0 };
	struct ft_nd ev;
	struct ft_rec r;
	uint32_t dead[1] = { 0 };
	char path[512];

	T_OK(ft_proto_init(&p, &ft__proto_none, &c, &fake_core, NULL) == 0 &&
	    p.tap == NULL && p.ops == &ft__proto_none && p.ops->send == NULL,
	    "without a record directory the protocol's own table is used");
	ft_proto_release(&p);
	c.record_dir = dir;
	T_OK(ft_proto_init(&p, &ft__proto_none, &c, &fake_core, NULL) == 0 &&
	    p.tap != NULL && p.ops == &p.tapops &&
	    p.inner == &ft__proto_none, "with one, the tap is in front");
	T_OK(p.ops->name == ft__proto_none.name && p.ops->flags ==
	    ft__proto_none.flags, "keeping the protocol's name and flags");
	T_EQ_INT(ft_proto_send(&p, &m), 0, "a send goes on as without");
	p.ops->match(&p, &m, 0);
	T_EQ_INT(ft_proto_deliver(&p, &m), 0, "a delivery");
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_ASK;
	T_OK(p.ops->nondet(&p, &ev) == 0 && ev.local == 1,
	    "an outcome is local without a protocol that settles it");
	ev.op = FT_ND_SETTLE;
	ev.kind = FT_ND_CLOCK;
	ev.v[0] = 42;
	T_OK(p.ops->nondet(&p, &ev) == 0 && ev.v[0] == 42, "and settled");
	T_EQ_INT(p.ops->view(&p, dead, 1), 0, "a view with a failure");
	T_EQ_INT(p.ops->view(&p, dead, 1), 0, "the same view again");
	p.ops->tick(&p);
	ft_proto_release(&p);
	T_OK(p.tap == NULL, "released");
	ft_rec_path(path, sizeof(path), dir, 1);
	T_OK(ft_rec_load(&r, path, why, sizeof(why)) == 0, "the record: %s",
	    why);
	T_OK(r.h.rank == 1 && r.h.size == 2 && strcmp(r.h.proto, "none") == 0,
	    "its header");
	T_OK(r.nm == 1 && r.m[0].ctx == 3 && r.m[0].tag == 5 &&
	    r.m[0].dlen == 5 && memcmp(r.m[0].data, "hello", 5) == 0,
	    "the message and its payload");
	T_OK(r.ns == 1 && r.s[0].len == 5 && r.s[0].dst == 1, "the send");
	T_OK(r.nnd == 1 && r.nd[0].kind == FT_ND_CLOCK && r.nd[0].v[0] == 42,
	    "the settled outcome only");
	T_OK(r.nfail == 1 && r.ended, "one failure, and the end");
	ft_rec_free(&r);
	/* Replica 1 of a rank records nothing. */
	c.ppr = 2;
	c.proc = 3;
	T_OK(ft_proto_init(&p, &ft__proto_none, &c, &fake_core, NULL) == 0 &&
	    p.tap == NULL, "a second replica records nothing");
	ft_proto_release(&p);
}

/* A record of rank 1 of 2: two messages, two sends, two outcomes. */
static void
make(const char *dir, struct ft_rec *r)
{
	struct ft_rec_writer w;
	struct ft_rec_hdr h = { .rank = 1, .size = 2 };
	uint64_t v1[3] = { 1, 0, 7 }, v2[3] = { 99, 0, 0 };
	char path[512];

	strlcpy(h.proto, "none", sizeof(h.proto));
	if (ft_rec_writer_open(&w, dir, &h) != 0)
		abort();
	ft_rec_wmatch(&w, 0, 0, 0, 7, 0, 3);
	ft_rec_wdata(&w, 0, 0, "one", 3);
	ft_rec_wsend(&w, 0, 0, 8, "ack", 3);
	ft_rec_wnd(&w, FT_ND_PROBE, v1);
	ft_rec_wmatch(&w, 0, 0, 0, 7, 1, 3);
	ft_rec_wdata(&w, 0, 1, "two", 3);
	ft_rec_wnd(&w, FT_ND_FLAG, v2);
	ft_rec_wsend(&w, 0, 0, 8, "bye", 3);
	if (ft_rec_writer_close(&w, 1) != 0)
		abort();
	ft_rec_path(path, sizeof(path), dir, 1);
	if (ft_rec_load(r, path, why, sizeof(why)) != 0)
		abort();
}

static void
start(struct ft_proto *p, struct ft_rec *r)
{
	struct ft_conf c = { .rank = 1, .size = 2, .ppr = 1, .proc = 1,
	    .record = r };

	memset(&F, 0, sizeof(F));
	F.p = p;
	if (ft_proto_init(p, &ft__proto_replay, &c, &fake_core, NULL) != 0)
		abort();
}

static void
test_replay(const char *dir)
{
	struct ft_proto p;
	struct ft_rec r;
	struct ft_msg s = { .ctx = 0, .src = 1, .dst = 0, .tag = 8,
	    .buf = "ack", .len = 3 };
	struct ft_nd ev;

	make(dir, &r);
	start(&p, &r);
	p.ops->tick(&p);
	T_OK(F.injected == 1 && F.held, "the first message is fed");
	p.ops->tick(&p);
	T_EQ_INT(F.injected, 1, "and only it while it is not matched");
	post();
	T_OK(memcmp(F.got, "one", 3) == 0 && F.injected == 1,
	    "a receive takes it");
	p.ops->tick(&p);
	T_EQ_INT(F.injected, 2, "then the second is fed");
	T_EQ_INT(p.ops->send(&p, &s), 1, "a send is taken");
	T_OK(F.completed == 1 && F.notes == 0, "completed, alike");
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_ASK;
	T_OK(p.ops->nondet(&p, &ev) == 0 && ev.local == 0,
	    "outcomes are not local");
	ev.op = FT_ND_SETTLE;
	ev.kind = FT_ND_PROBE;
	T_OK(p.ops->nondet(&p, &ev) == 0 && ev.v[0] == 1 && ev.v[2] == 7,
	    "the recorded probe");
	post();
	ev.kind = FT_ND_FLAG;
	ev.v[0] = 0;
	T_OK(p.ops->nondet(&p, &ev) == 0 && ev.v[0] == 99,
	    "the recorded flag");
	s.buf = "BYE";
	T_EQ_INT(p.ops->send(&p, &s), 1, "a different send is taken");
	T_OK(F.notes == 1 && F.kind == FT_NOTE_DIVERGE && strcmp(F.text,
	    "rank 1 diverged at send 1 (to rank 0, tag 8, 3 bytes): the "
	    "payload, first in bytes 0-2 differs") == 0,
	    "and reported: %s", F.text);
	ft_proto_release(&p);
	T_EQ_INT(F.notes, 1, "only the first divergence is told");

	start(&p, &r);
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_SETTLE;
	ev.kind = FT_ND_CLOCK;
	(void)p.ops->nondet(&p, &ev);
	T_OK(F.notes == 1 && strcmp(F.text, "rank 1 diverged at outcome 0: "
	    "a Wtime now, a probe in the record") == 0,
	    "an outcome of another kind: %s", F.text);
	ft_proto_release(&p);

	start(&p, &r);
	s.buf = "ack";
	s.tag = 9;
	(void)p.ops->send(&p, &s);
	T_OK(F.notes == 1 && strstr(F.text, "the tag (8 recorded, 9 now)") !=
	    NULL, "a send with another tag: %s", F.text);
	ft_proto_release(&p);

	start(&p, &r);
	p.ops->tick(&p);
	post();
	ft_proto_release(&p);
	T_OK(F.notes == 1 && strcmp(F.text, "rank 1 diverged: it finished "
	    "with 1 of 2 messages received, 0 of 2 sent and 0 of 2 outcomes "
	    "used") == 0, "a program that ends early: %s", F.text);
	ft_rec_free(&r);
}

/*
 * Two communicators, one source and tag: a probe of the second, found
 * in the record, is fed the second's message, not the first's still
 * waiting for its receive.
 */
static void
test_probe_ctx(const char *dir)
{
	struct ft_rec_writer w;
	struct ft_rec_hdr h = { .rank = 1, .size = 2 };
	uint64_t found[3] = { 1, 0, 7 };
	struct ft_proto p;
	struct ft_rec r;
	struct ft_nd ev;
	char path[512];

	strlcpy(h.proto, "none", sizeof(h.proto));
	if (ft_rec_writer_open(&w, dir, &h) != 0)
		abort();
	/* The probe on context 4 found its message; context 0's, of the
	 * same source and tag, was received first, then context 4's. */
	ft_rec_wnd(&w, FT_ND_PROBE, found);
	ft_rec_wmatch(&w, 0, 0, 0, 7, 0, 4);
	ft_rec_wdata(&w, 0, 0, "zero", 4);
	ft_rec_wmatch(&w, 4, 0, 0, 7, 1, 4);
	ft_rec_wdata(&w, 0, 1, "four", 4);
	if (ft_rec_writer_close(&w, 1) != 0)
		abort();
	ft_rec_path(path, sizeof(path), dir, 1);
	if (ft_rec_load(&r, path, why, sizeof(why)) != 0)
		abort();
	start(&p, &r);
	p.ops->tick(&p);
	T_OK(F.injected == 1 && F.hold.ctx == 0, "context 0's message fed");
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_SETTLE;
	ev.kind = FT_ND_PROBE;
	ev.ctx = 4;
	T_OK(p.ops->nondet(&p, &ev) == 0 && ev.v[0] == 1 && ev.v[1] == 0 &&
	    ev.v[2] == 7, "the probe of context 4 finds (0, 7)");
	T_OK(F.injected == 2 && F.hold.ctx == 4 && F.hold.tag == 7,
	    "and context 4's message is fed for it (%d fed, the last of "
	    "context %u)", F.injected, F.hold.ctx);
	ft_proto_release(&p);
	/* A probe of context 0 finds the message already there. */
	start(&p, &r);
	p.ops->tick(&p);
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_SETTLE;
	ev.kind = FT_ND_PROBE;
	ev.ctx = 0;
	T_OK(p.ops->nondet(&p, &ev) == 0 && F.injected == 1,
	    "a probe of context 0 is fed nothing more");
	ft_proto_release(&p);
	ft_rec_free(&r);
}

int
main(void)
{
	const char *dir = tmpdir();
	char cmd[600];

	test_tap(dir);
	test_replay(dir);
	test_probe_ctx(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		t_diag("unable to remove %s", dir);
	return t_done();
}
