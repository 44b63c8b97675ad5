/* SPDX-License-Identifier: ISC */
/*
 * The "ftmpi" protocol's own parts (lib/proto/ulfm.c) without sockets,
 * and the mode names (lib/job/ftmpi.c).  A small simulated engine
 * carries frames between the processes' protocol copies in order.
 * Checked: a process said dead, then run again (the revive hook), then
 * dead again, is alive or dead as the last news says, and appears in
 * the failure list each time it died; JOIN reaches a replacement with
 * its contexts and the list of processes still failed, the first one
 * only counts, and nothing is sent to a process dead again; "ulfm"
 * refuses JOIN; an agreement whose callers count a live process failed
 * (a replacement, which takes no part) decides without it.
 */
#include <stdlib.h>

#include "job/job.h"
#include "proto/proto.h"
#include "tap.h"

#define NP	4
#define CTX	40

struct item {
	struct item	*next;
	uint32_t	 from, to;
	uint8_t		*frame;
	size_t		 len;
};

static struct ft_proto	 P[NP];
static int		 dead[NP];
static struct item	*qhead, *qtail;
static int		 nsent;
static uint32_t		 ids[NP] = { 0, 1, 2, 3 };

static int
c_send_frame(void *core, uint32_t proc, const struct ft_wbuf *wb)
{
	struct item *it;

	if (proc >= NP) {
		errno = EINVAL;
		return -1;
	}
	if (dead[proc]) {
		errno = ECONNRESET;
		return -1;
	}
	if ((it = calloc(1, sizeof(*it))) == NULL ||
	    (it->frame = malloc(wb->len)) == NULL)
		abort();
	memcpy(it->frame, wb->p, wb->len);
	it->len = wb->len;
	it->from = *(uint32_t *)core;
	it->to = proc;
	if (qtail != NULL)
		qtail->next = it;
	else
		qhead = it;
	qtail = it;
	nsent++;
	return 0;
}

static void
c_fail_ctx(void *core, uint32_t ctx, uint32_t n, int err)
{
	(void)core;
	(void)ctx;
	(void)n;
	(void)err;
}

static const struct ft_core_ops core = {
	.send_frame = c_send_frame,
	.fail_ctx = c_fail_ctx,
};

/* Deliver every frame in order (to the living); 0, or -1 on a refusal. */
static int
pump(void)
{
	struct item *it;
	struct ft_hdr h;
	int rc = 0;

	while ((it = qhead) != NULL) {
		if ((qhead = it->next) == NULL)
			qtail = NULL;
		if (!dead[it->to] && (ft_hdr_decode(it->frame, &h) != 0 ||
		    P[it->to].ops->frame(&P[it->to], it->from, &h,
		    it->frame + FT_WIRE_HDRLEN) != 0))
			rc = -1;
		free(it->frame);
		free(it);
	}
	return rc;
}

static void
setup(const struct ft_proto_ops *ops)
{
	struct ft_conf conf;
	uint32_t i;

	for (i = 0; i < NP; i++) {
		memset(&conf, 0, sizeof(conf));
		conf.rank = conf.proc = i;
		conf.size = NP;
		conf.ppr = 1;
		dead[i] = 0;
		if (ft_proto_init(&P[i], ops, &conf, &core, &ids[i]) != 0)
			abort();
	}
}

static void
teardown(void)
{
	uint32_t i;

	(void)pump();
	for (i = 0; i < NP; i++)
		ft_proto_release(&P[i]);
}

static int
ext(uint32_t i, struct ft_ext *x)
{
	return P[i].ops->ext(&P[i], x);
}

static int
alive(uint32_t at, uint32_t q)
{
	struct ft_ext x = { .op = FT_EXT_ALIVE };

	x.me = q;
	return ext(at, &x) == 0 && x.result;
}

static void
test_revive(void)
{
	struct ft_ext x = { .op = FT_EXT_FAILED };
	uint32_t d2[1] = { 2 };

	setup(&ft__proto_ftmpi);
	T_OK(alive(0, 2), "revive: alive before any view");
	T_OK(P[0].ops->view(&P[0], d2, 1) == 0 && !alive(0, 2),
	    "revive: dead after a view names it");
	P[0].ops->revive(&P[0], 2);
	T_OK(alive(0, 2), "revive: alive again once revived");
	/* The launcher's next view no longer names it; a later one does. */
	T_OK(P[0].ops->view(&P[0], NULL, 0) == 0 && alive(0, 2),
	    "revive: a view without it leaves it alive");
	T_OK(P[0].ops->view(&P[0], d2, 1) == 0 && !alive(0, 2),
	    "revive: dead again when a view names it again");
	T_OK(ext(0, &x) == 0 && x.ndead == 2 && x.dead[0] == 2 &&
	    x.dead[1] == 2, "revive: the failure list has both deaths");
	teardown();
}

static void
test_join(void)
{
	struct ft_ext x = { .op = FT_EXT_JOIN_SEND };
	uint32_t to[2] = { 2, 3 }, still[1] = { 3 };

	setup(&ft__proto_ftmpi);
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_JOIN_TEST;
	T_OK(ext(2, &x) == 0 && x.result == 0, "join: none yet");
	/* Process 3 is dead again: nothing goes to it. */
	dead[3] = 1;
	(void)P[0].ops->view(&P[0], &to[1], 1);
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_JOIN_SEND;
	x.members = to;
	x.n = 2;
	x.ctx = 0x80000010u;
	x.ctxv = 0x80000020u;
	x.seq = 99;
	x.dead = still;
	x.ndead = 1;
	nsent = 0;
	T_OK(ext(0, &x) == 0 && nsent == 1, "join: sent to the one alive");
	T_OK(pump() == 0, "join: the replacement takes it");
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_JOIN_TEST;
	T_OK(ext(2, &x) == 0 && x.result == 1 && x.ctx == 0x80000010u &&
	    x.ctxv == 0x80000020u && x.seq == 99 && x.ndead == 1 &&
	    x.dead[0] == 3, "join: contexts, floor and the still failed");
	/* A second one (another survivor's, say) changes nothing. */
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_JOIN_SEND;
	x.members = to;
	x.n = 1;
	x.ctx = 0x80000040u;
	x.ctxv = 0x80000050u;
	T_OK(ext(1, &x) == 0 && pump() == 0, "join: a second one is taken");
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_JOIN_TEST;
	T_OK(ext(2, &x) == 0 && x.ctx == 0x80000010u && x.ndead == 1,
	    "join: the first one counts");
	teardown();

	/* Under "ulfm" there is no JOIN. */
	setup(&ft__proto_ulfm);
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_JOIN_SEND;
	x.members = to;
	x.n = 1;
	x.ctx = 2;
	x.ctxv = 4;
	errno = 0;
	T_OK(ext(0, &x) == -1 && errno == ENOTSUP,
	    "join: ulfm refuses to send one (ENOTSUP)");
	teardown();
	setup(&ft__proto_ftmpi);
	x.members = to;
	T_OK(ext(0, &x) == 0, "join: ftmpi sends one");
	{
		struct item *it = qhead;
		struct ft_hdr h;
		struct ft_proto u;
		struct ft_conf conf;

		memset(&conf, 0, sizeof(conf));
		conf.rank = conf.proc = 2;
		conf.size = NP;
		conf.ppr = 1;
		if (ft_proto_init(&u, &ft__proto_ulfm, &conf, &core,
		    &ids[2]) != 0)
			abort();
		errno = 0;
		T_OK(it != NULL && ft_hdr_decode(it->frame, &h) == 0 &&
		    u.ops->frame(&u, 0, &h, it->frame + FT_WIRE_HDRLEN) ==
		    -1 && errno == EPROTO, "join: ulfm refuses the frame "
		    "(EPROTO)");
		ft_proto_release(&u);
	}
	teardown();
}

/*
 * Members 0, 1 and 3 agree, each counting member 2 failed though it
 * runs (a replacement, which joins no agreement): they decide, with 2
 * in the failed set.
 */
static void
test_agree_without_replacement(void)
{
	struct ft_ext x;
	uint8_t failed[1] = { 1u << 2 }, acked[1] = { 0 }, got[1];
	void *h[NP];
	uint32_t i;
	int ok = 1;

	setup(&ft__proto_ftmpi);
	for (i = 0; i < NP; i++) {
		if (i == 2)
			continue;
		memset(&x, 0, sizeof(x));
		x.op = FT_EXT_AGREE;
		x.ctx = CTX;
		x.members = ids;
		x.n = NP;
		x.me = i;
		x.flag = ~0u;
		x.failed = failed;
		x.acked = acked;
		if (ext(i, &x) != 0)
			ok = 0;
		h[i] = x.handle;
	}
	T_OK(ok, "agree: 0, 1 and 3 join");
	/* Member 2 is alive: frames to it pile up unread. */
	T_OK(pump() == 0, "agree: frames carried");
	for (i = 0; i < NP; i++) {
		if (i == 2)
			continue;
		memset(&x, 0, sizeof(x));
		x.op = FT_EXT_AGREE_TEST;
		x.handle = h[i];
		x.failed = got;
		got[0] = 0;
		if (ext(i, &x) != 0 || !x.result || got[0] != (1u << 2))
			ok = 0;
		x.op = FT_EXT_AGREE_FREE;
		(void)ext(i, &x);
	}
	T_OK(ok, "agree: each decides, member 2 failed");
	teardown();
}

static void
test_names(void)
{
	T_OK(ft_ftmpi_comm_parse("shrink") == FT_FTMPI_SHRINK &&
	    ft_ftmpi_comm_parse("BLANK") == FT_FTMPI_BLANK &&
	    ft_ftmpi_comm_parse("FTMPI_COMM_MODE_REBUILD") ==
	    FT_FTMPI_REBUILD && ft_ftmpi_comm_parse("ft_mode_abort") ==
	    FT_FTMPI_ABORT, "names: the communicator modes, both spellings");
	T_OK(ft_ftmpi_msg_parse("cont") == FT_FTMPI_CONT &&
	    ft_ftmpi_msg_parse("Continue") == FT_FTMPI_CONT &&
	    ft_ftmpi_msg_parse("FT_MODE_NOP") == FT_FTMPI_NOP &&
	    ft_ftmpi_msg_parse("FTMPI_MSG_MODE_NOP") == FT_FTMPI_NOP,
	    "names: the message modes, both spellings");
	T_OK(ft_ftmpi_comm_parse("sideways") == -1 &&
	    ft_ftmpi_comm_parse("") == -1 && ft_ftmpi_comm_parse(NULL) ==
	    -1 && ft_ftmpi_comm_parse("nop") == -1 &&
	    ft_ftmpi_msg_parse("shrink") == -1 &&
	    ft_ftmpi_comm_parse("ft_mode_") == -1,
	    "names: others are -1");
	T_OK(strcmp(ft_ftmpi_comm_name(FT_FTMPI_REBUILD), "rebuild") == 0 &&
	    strcmp(ft_ftmpi_msg_name(FT_FTMPI_NOP), "nop") == 0,
	    "names: the names given back");
}

int
main(void)
{
	test_names();
	test_revive();
	test_join();
	test_agree_without_replacement();
	return t_done();
}
