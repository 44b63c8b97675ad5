/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the wire layer.  For every message type: an encode and
 * decode round trip, a decode of the body cut at every offset (each cut
 * copied into a buffer of exactly that size, so that ASan sees any read
 * past it), and a trailing byte.  Then the header checks, the table's
 * count bounds, string fields at their limits, and the data frames'
 * size limit.  Last, the replication frames (VIEW, NOTE, COMMIT, DECIDE
 * and NDSYNC): their layout, counts against the caller's room and the
 * body, kinds, reply flags and pad words.
 */
#include <stdint.h>
#include <stdlib.h>

#include "wire/wire.h"
#include "tap.h"

/* Sample messages, with high bits set to catch sign and width slips. */
static struct ft_msg_hello	 s_hello;
static struct ft_msg_challenge	 s_challenge;
static struct ft_msg_auth	 s_auth;
static struct ft_msg_register	 s_register;
static struct ft_rank_addr	 s_ranks[3];
static struct ft_msg_table	 s_table = { 3, s_ranks };
static struct ft_msg_abort	 s_abort;
static struct ft_msg_rts	 s_rts;
static struct ft_msg_cts	 s_cts;
static struct ft_msg_credit	 s_credit;
static struct ft_msg_ack	 s_ack;
static uint64_t			 s_hb[5] = { 7, 0, 1ull << 63, 42, UINT64_MAX };
static struct ft_msg_gossip	 s_gossip = { 0x0102030405060708ull, 5, s_hb };
static struct ft_msg_ping	 s_ping = { 0xfedcba9876543210ull, 9 };
static uint32_t			 s_live[3] = { 2, 5, 0xfffffffeu };
static uint32_t			 s_fail[2] = { 1, 3 };
static uint32_t			 s_by[2] = { 2, FT_MB_JOINED };
static uint64_t			 s_ep[2] = { 7, 1ull << 40 };
static struct ft_msg_member	 s_member = { FT_MB_FAILED_NODE, 11, 12, 2,
    3, s_live, 2, s_fail, s_by, s_ep };
static struct ft_msg_eager	 s_eager;
static struct ft_msg_rdata	 s_rdata;
/* Replication frames: VIEW, NOTE, COMMIT, and DECIDE and NDSYNC. */
static uint32_t			 s_dead[3] = { 0, 7, 0xffffffffu };
static struct ft_msg_view	 s_view = { 0x8000000000000001ull, 3, s_dead };
static struct ft_msg_note	 s_note = { FT_NOTE_DIVERGE,
    "rank 2: replicas 0 and 1 sent different bytes to rank 5" };
static struct ft_commit		 s_commits[3] = {
	{ 0xfffffffeu, 0xdeadbeefu, UINT64_MAX },
	{ 0, 0, 0 },
	{ 5, 0x80000000u, 1ull << 63 },
};
static struct ft_msg_commit	 s_commit = { 3, s_commits };
static struct ft_decision	 s_decs[2] = {
	{ UINT64_MAX, 0xffffffffu, 0x8000000000000000ull, UINT64_MAX, 0,
	    0x0102030405060708ull },
	{ 0, 0, UINT64_MAX - 1, 1, 0x8000000000000001ull, UINT64_MAX },
};
static struct ft_msg_decide	 s_decide = { 0, 0, 2, s_decs };
static struct ft_msg_decide	 s_ndsync = { 1, UINT64_MAX, 2, s_decs };

/* Dynamic processes: SPAWN, REPLY, PROCS and PORT. */
static char			*s_argv0[] = { "-x", "", "\xff long arg", NULL };
static char			*s_keys0[] = { "wdir", "path" };
static char			*s_vals0[] = { "/tmp", "" };
static char			*s_argv1[] = { NULL };
static struct ft_spawn_cmd	 s_cmds[2] = {
	{ 3, "./worker", 3, s_argv0, 2, s_keys0, s_vals0 },
	{ FT_WIRE_MAX_RANKS, "/bin/other", 0, s_argv1, 0, NULL, NULL },
};
static uint32_t			 s_parents[3] = { 0, 0xfffff, 7 };
static struct ft_msg_spawn	 s_spawn = { 0xfffffffeu, 3, s_parents, 2,
    s_cmds };
static uint32_t			 s_codes[2] = { FT_REPLY_OK,
    FT_REPLY_ERR_MAX };
static struct ft_msg_reply	 s_reply = { 0x80000001u, FT_REPLY_NOPROG,
    0x70000004u, "no such program './nope'", 3, s_parents, 2, s_codes };
static struct ft_msg_procs	 s_procs = { 5, { 3, s_ranks } };
static struct ft_msg_port	 s_port = { FT_PORT_CONNECT, 0xffffffffu,
    0x80000000u, "ft-port:3:1", "", 3, s_parents };

#define SENDER	0x01020304u

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 13);
}

static void
samples_init(void)
{
	s_hello.minver = 1;
	s_hello.maxver = 1;
	s_hello.role = FT_ROLE_LAUNCHER;
	s_hello.id = 0xfffffffeu;
	fill(s_hello.nonce, sizeof(s_hello.nonce), 1);
	s_challenge.version = 1;
	s_challenge.id = 0x80000001u;
	fill(s_challenge.nonce, sizeof(s_challenge.nonce), 2);
	fill(s_challenge.mac, sizeof(s_challenge.mac), 3);
	fill(s_auth.mac, sizeof(s_auth.mac), 4);
	s_register.rank = 0x7fffffffu;
	s_register.addr.node = 0xffffffffu;
	s_register.addr.pid = 4242;
	snprintf(s_register.addr.unix_addr, FT_WIRE_ADDR_MAX,
	    "unix:/tmp/ft.x/r7.sock");
	snprintf(s_register.addr.tcp_addr, FT_WIRE_ADDR_MAX,
	    "tcp:[::1]:65535");
	s_ranks[0] = s_register.addr;
	s_ranks[1].node = 1;
	s_ranks[1].pid = 0x80000000u;
	snprintf(s_ranks[1].tcp_addr, FT_WIRE_ADDR_MAX, "tcp:10.0.0.1:1");
	s_ranks[2].node = 2;
	s_ranks[2].pid = 3;
	s_abort.code = -2;
	snprintf(s_abort.reason, sizeof(s_abort.reason),
	    "rank 3 exited with status 1");
	s_rts.ctx = 0xfffffff0u;
	s_rts.src = 0x80000000u;
	s_rts.tag = INT32_MAX;
	s_rts.seq = UINT64_MAX - 1;
	s_rts.size = (uint64_t)1 << 40;
	s_rts.sreq = 0x8000000100000002ull;
	s_cts.sreq = 0x8000000100000002ull;
	s_cts.rreq = 0xffffffff00000001ull;
	s_credit.bytes = 0x0000000100400040ull;
	s_ack.bytes = 0x0000002000300010ull;
	s_eager.ctx = 0x80000001u;
	s_eager.src = 0xfffffffeu;
	s_eager.tag = 0x7ffffffe;
	s_eager.seq = 0x8000000000000001ull;
	s_rdata.rreq = 0xfedcba9876543210ull;
	s_rdata.offset = 0x8000000000000000ull;
}

static int
addr_eq(const struct ft_rank_addr *a, const struct ft_rank_addr *b)
{
	return a->node == b->node && a->pid == b->pid &&
	    strcmp(a->unix_addr, b->unix_addr) == 0 &&
	    strcmp(a->tcp_addr, b->tcp_addr) == 0;
}

/*
 * Decode a body and compare it with the sample: 0 when equal, -1 when
 * the decoder failed (errno set), 1 when it succeeded with other values.
 */
static int
chk_hello(const uint8_t *p, size_t n)
{
	struct ft_msg_hello m;

	if (ft_msg_hello_decode(p, n, &m) != 0)
		return -1;
	return m.minver == s_hello.minver && m.maxver == s_hello.maxver &&
	    m.role == s_hello.role && m.id == s_hello.id &&
	    memcmp(m.nonce, s_hello.nonce, sizeof(m.nonce)) == 0 ? 0 : 1;
}

static int
chk_challenge(const uint8_t *p, size_t n)
{
	struct ft_msg_challenge m;

	if (ft_msg_challenge_decode(p, n, &m) != 0)
		return -1;
	return m.version == s_challenge.version && m.id == s_challenge.id &&
	    memcmp(m.nonce, s_challenge.nonce, sizeof(m.nonce)) == 0 &&
	    memcmp(m.mac, s_challenge.mac, sizeof(m.mac)) == 0 ? 0 : 1;
}

static int
chk_auth(const uint8_t *p, size_t n)
{
	struct ft_msg_auth m;

	if (ft_msg_auth_decode(p, n, &m) != 0)
		return -1;
	return memcmp(m.mac, s_auth.mac, sizeof(m.mac)) == 0 ? 0 : 1;
}

static int
chk_register(const uint8_t *p, size_t n)
{
	struct ft_msg_register m;

	if (ft_msg_register_decode(p, n, &m) != 0)
		return -1;
	return m.rank == s_register.rank &&
	    addr_eq(&m.addr, &s_register.addr) ? 0 : 1;
}

static int
chk_table(const uint8_t *p, size_t n)
{
	struct ft_msg_table m;
	uint32_t i;
	int rc = 0;

	if (ft_msg_table_decode(p, n, &m) != 0) {
		if (m.ranks != NULL || m.n != 0)
			return 1;	/* a failed decode leaves nothing */
		return -1;
	}
	if (m.n != s_table.n)
		rc = 1;
	for (i = 0; rc == 0 && i < m.n; i++)
		if (!addr_eq(&m.ranks[i], &s_table.ranks[i]))
			rc = 1;
	ft_msg_table_free(&m);
	return rc;
}

static int
chk_abort(const uint8_t *p, size_t n)
{
	struct ft_msg_abort m;

	if (ft_msg_abort_decode(p, n, &m) != 0)
		return -1;
	return m.code == s_abort.code &&
	    strcmp(m.reason, s_abort.reason) == 0 ? 0 : 1;
}

static int
chk_empty(const uint8_t *p, size_t n)
{
	return ft_msg_empty_decode(p, n) != 0 ? -1 : 0;
}

static int
chk_rts(const uint8_t *p, size_t n)
{
	struct ft_msg_rts m;

	if (ft_msg_rts_decode(p, n, &m) != 0)
		return -1;
	return m.ctx == s_rts.ctx && m.src == s_rts.src &&
	    m.tag == s_rts.tag && m.seq == s_rts.seq &&
	    m.size == s_rts.size && m.sreq == s_rts.sreq ? 0 : 1;
}

static int
chk_cts(const uint8_t *p, size_t n)
{
	struct ft_msg_cts m;

	if (ft_msg_cts_decode(p, n, &m) != 0)
		return -1;
	return m.sreq == s_cts.sreq && m.rreq == s_cts.rreq ? 0 : 1;
}

static int
chk_eager(const uint8_t *p, size_t n)
{
	struct ft_msg_eager m;

	if (ft_msg_eager_decode(p, n, &m) != 0)
		return -1;
	return m.ctx == s_eager.ctx && m.src == s_eager.src &&
	    m.tag == s_eager.tag && m.seq == s_eager.seq ? 0 : 1;
}

static int
chk_rdata(const uint8_t *p, size_t n)
{
	struct ft_msg_rdata m;

	if (ft_msg_rdata_decode(p, n, &m) != 0)
		return -1;
	return m.rreq == s_rdata.rreq && m.offset == s_rdata.offset ? 0 : 1;
}

static int
enc_hello(struct ft_wbuf *b)
{
	return ft_msg_hello_encode(b, SENDER, &s_hello);
}

static int
enc_challenge(struct ft_wbuf *b)
{
	return ft_msg_challenge_encode(b, SENDER, &s_challenge);
}

static int
enc_auth(struct ft_wbuf *b)
{
	return ft_msg_auth_encode(b, SENDER, &s_auth);
}

static int
enc_register(struct ft_wbuf *b)
{
	return ft_msg_register_encode(b, SENDER, &s_register);
}

static int
enc_table(struct ft_wbuf *b)
{
	return ft_msg_table_encode(b, SENDER, &s_table);
}

static int
enc_abort(struct ft_wbuf *b)
{
	return ft_msg_abort_encode(b, SENDER, &s_abort);
}

static int
enc_finalize(struct ft_wbuf *b)
{
	return ft_msg_empty_encode(b, SENDER, FT_MSG_FINALIZE);
}

static int
enc_finalize_ok(struct ft_wbuf *b)
{
	return ft_msg_empty_encode(b, SENDER, FT_MSG_FINALIZE_OK);
}

static int
chk_credit(const uint8_t *p, size_t n)
{
	struct ft_msg_credit m;

	if (ft_msg_credit_decode(p, n, &m) != 0)
		return -1;
	return m.bytes == s_credit.bytes ? 0 : 1;
}

static int
enc_credit(struct ft_wbuf *b)
{
	return ft_msg_credit_encode(b, SENDER, &s_credit);
}

static int
chk_ack(const uint8_t *p, size_t n)
{
	struct ft_msg_ack m;

	if (ft_msg_ack_decode(p, n, &m) != 0)
		return -1;
	return m.bytes == s_ack.bytes ? 0 : 1;
}

static int
enc_ack(struct ft_wbuf *b)
{
	return ft_msg_ack_encode(b, SENDER, &s_ack);
}

static int
chk_gossip(const uint8_t *p, size_t n)
{
	struct ft_msg_gossip m;
	uint64_t hb[8];

	m.hb = hb;
	if (ft_msg_gossip_decode(p, n, &m, 8) != 0)
		return -1;
	return m.epoch == s_gossip.epoch && m.n == 5 &&
	    memcmp(hb, s_hb, sizeof(s_hb)) == 0 ? 0 : 1;
}

static int
enc_gossip(struct ft_wbuf *b)
{
	return ft_msg_gossip_encode(b, SENDER, &s_gossip);
}

static int
chk_member(const uint8_t *p, size_t n)
{
	struct ft_msg_member m;
	uint32_t live[4], fail[4], by[4];
	uint64_t ep[4];

	m.live = live;
	m.fail = fail;
	m.by = by;
	m.ep = ep;
	if (ft_msg_member_decode(p, n, &m, 4) != 0)
		return -1;
	return m.kind == s_member.kind && m.epoch == 11 && m.seen == 12 &&
	    m.root == 2 && m.nlive == 3 && m.nfail == 2 &&
	    memcmp(live, s_live, sizeof(s_live)) == 0 &&
	    memcmp(fail, s_fail, sizeof(s_fail)) == 0 &&
	    memcmp(by, s_by, sizeof(s_by)) == 0 &&
	    memcmp(ep, s_ep, sizeof(s_ep)) == 0 ? 0 : 1;
}

static int
enc_member(struct ft_wbuf *b)
{
	return ft_msg_member_encode(b, SENDER, &s_member);
}

static int
chk_ping(const uint8_t *p, size_t n)
{
	struct ft_msg_ping m;

	if (ft_msg_ping_decode(p, n, &m) != 0)
		return -1;
	return m.nonce == s_ping.nonce && m.epoch == s_ping.epoch ? 0 : 1;
}

static int
enc_ping(struct ft_wbuf *b)
{
	return ft_msg_ping_encode(b, SENDER, FT_MSG_PING, &s_ping);
}

static int
enc_pong(struct ft_wbuf *b)
{
	return ft_msg_ping_encode(b, SENDER, FT_MSG_PONG, &s_ping);
}

static int
enc_rts(struct ft_wbuf *b)
{
	return ft_msg_rts_encode(b, SENDER, FT_FLAG_SYNC, &s_rts);
}

static int
enc_cts(struct ft_wbuf *b)
{
	return ft_msg_cts_encode(b, SENDER, &s_cts);
}

/* Data frames: the prefix, then 5 payload bytes appended by hand. */
static int
enc_eager(struct ft_wbuf *b)
{
	uint8_t pre[FT_WIRE_HDRLEN + FT_EAGER_FIXED];

	if (ft_msg_eager_prefix(pre, SENDER, &s_eager, 5) != 0)
		return -1;
	ft_putbytes(b, pre, sizeof(pre));
	ft_putbytes(b, "hello", 5);
	return b->err != 0 ? -1 : 0;
}

static int
enc_rdata(struct ft_wbuf *b)
{
	uint8_t pre[FT_WIRE_HDRLEN + FT_RDATA_FIXED];

	if (ft_msg_rdata_prefix(pre, SENDER, &s_rdata, 5) != 0)
		return -1;
	ft_putbytes(b, pre, sizeof(pre));
	ft_putbytes(b, "world", 5);
	return b->err != 0 ? -1 : 0;
}

static int
chk_view(const uint8_t *p, size_t n)
{
	struct ft_msg_view m;
	uint32_t dead[8];

	m.dead = dead;
	if (ft_msg_view_decode(p, n, &m, 8) != 0)
		return -1;
	return m.epoch == s_view.epoch && m.ndead == 3 &&
	    memcmp(dead, s_dead, sizeof(s_dead)) == 0 ? 0 : 1;
}

static int
enc_view(struct ft_wbuf *b)
{
	return ft_msg_view_encode(b, SENDER, &s_view);
}

static const uint32_t s_members[3] = { 7, 0, 0x000fffff };

static int
chk_revoke(const uint8_t *p, size_t n)
{
	struct ft_msg_revoke m;
	uint32_t i;

	if (ft_msg_revoke_decode(p, n, &m) != 0)
		return -1;
	if (m.ctx != 40 || m.nctx != 4 || m.n != 3)
		return 1;
	for (i = 0; i < 3; i++)
		if (ft_msg_revoke_member(&m, i) != s_members[i])
			return 1;
	return 0;
}

static int
enc_revoke(struct ft_wbuf *b)
{
	struct ft_msg_revoke m = { 40, 4, 3, s_members, NULL };

	return ft_msg_revoke_encode(b, SENDER, &m);
}

/* 11 members: bitmaps of 2 bytes, bits past 11 zero. */
static const uint8_t s_bm1[2] = { 0x81, 0x04 }, s_bm2[2] = { 0x00, 0x07 };

static int
chk_agree(const uint8_t *p, size_t n)
{
	struct ft_msg_agree m;

	if (ft_msg_agree_decode(p, n, &m) != 0)
		return -1;
	return m.kind == FT_AGREE_UP && m.ctx == 40 && m.seq == 9 &&
	    m.round == 2 && m.from == 10 && m.n == 11 &&
	    m.v.flag == 0xfffffffe && m.v.ctxv == 66 &&
	    memcmp(m.v.failed, s_bm1, 2) == 0 &&
	    memcmp(m.v.acked, s_bm2, 2) == 0 &&
	    memcmp(m.covered, s_bm2, 2) == 0 &&
	    memcmp(m.acks, s_bm1, 2) == 0 ? 0 : 1;
}

static int
enc_agree(struct ft_wbuf *b)
{
	struct ft_msg_agree m = { FT_AGREE_UP, 40, 9, 2, 10, 11,
	    { 0xfffffffe, 66, s_bm1, s_bm2, UINT32_MAX }, s_bm2, s_bm1, 0 };

	return ft_msg_agree_encode(b, SENDER, &m);
}

/* IAGREE: an AGREE with the second group's flag after ctxv. */
static int
chk_iagree(const uint8_t *p, size_t n)
{
	struct ft_msg_agree m;

	if (ft_msg_iagree_decode(p, n, &m) != 0)
		return -1;
	return m.inter && m.kind == FT_AGREE_COMMIT && m.ctx == 40 &&
	    m.seq == 9 && m.round == 0 && m.from == 10 && m.n == 11 &&
	    m.v.flag == 0xfffffffe && m.v.ctxv == 66 &&
	    m.v.flag2 == 0x7ffffff0 && memcmp(m.v.failed, s_bm1, 2) == 0 &&
	    memcmp(m.v.acked, s_bm2, 2) == 0 && m.covered == NULL &&
	    m.acks == NULL ? 0 : 1;
}

static int
enc_iagree(struct ft_wbuf *b)
{
	struct ft_msg_agree m = { FT_AGREE_COMMIT, 40, 9, 0, 10, 11,
	    { 0xfffffffe, 66, s_bm1, s_bm2, 0x7ffffff0 }, NULL, NULL, 1 };

	return ft_msg_agree_encode(b, SENDER, &m);
}

static int
chk_join(const uint8_t *p, size_t n)
{
	struct ft_msg_ftmpi_join m;

	if (ft_msg_ftmpi_join_decode(p, n, &m) != 0)
		return -1;
	return m.wctx == 0x80000010u && m.dctx == 0x80000020u &&
	    m.own == 77 && m.n == 3 && ft_msg_ftmpi_join_failed(&m, 0) ==
	    s_members[0] && ft_msg_ftmpi_join_failed(&m, 2) ==
	    s_members[2] ? 0 : 1;
}

static int
enc_join(struct ft_wbuf *b)
{
	struct ft_msg_ftmpi_join m = { 0x80000010u, 0x80000020u, 77, 3,
	    s_members, NULL, 0, NULL, NULL };

	return ft_msg_ftmpi_join_encode(b, SENDER, &m);
}

static int
chk_note(const uint8_t *p, size_t n)
{
	struct ft_msg_note m;

	if (ft_msg_note_decode(p, n, &m) != 0)
		return -1;
	return m.kind == s_note.kind &&
	    strcmp(m.text, s_note.text) == 0 ? 0 : 1;
}

static int
enc_note(struct ft_wbuf *b)
{
	return ft_msg_note_encode(b, SENDER, &s_note);
}

static int
commit_eq(const struct ft_commit *a, const struct ft_commit *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (a[i].dst != b[i].dst || a[i].crc != b[i].crc ||
		    a[i].seq != b[i].seq)
			return 0;
	return 1;
}

static int
chk_commit(const uint8_t *p, size_t n)
{
	struct ft_msg_commit m;
	struct ft_commit e[4];

	m.e = e;
	if (ft_msg_commit_decode(p, n, &m, 4) != 0)
		return -1;
	return m.n == 3 && commit_eq(e, s_commits, 3) ? 0 : 1;
}

static int
enc_commit(struct ft_wbuf *b)
{
	return ft_msg_commit_encode(b, SENDER, &s_commit);
}

static int
decision_eq(const struct ft_decision *a, const struct ft_decision *b,
    uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (a[i].index != b[i].index || a[i].kind != b[i].kind ||
		    a[i].site != b[i].site || a[i].a != b[i].a ||
		    a[i].b != b[i].b || a[i].c != b[i].c)
			return 0;
	return 1;
}

/* Decode a DECIDE or NDSYNC body and compare it with sample s. */
static int
chk_decide_as(const uint8_t *p, size_t n, const struct ft_msg_decide *s)
{
	struct ft_msg_decide m;
	struct ft_decision d[4];

	m.d = d;
	if (ft_msg_decide_decode(p, n, &m, 4) != 0)
		return -1;
	return m.reply == s->reply && m.have == s->have && m.n == s->n &&
	    decision_eq(d, s->d, s->n) ? 0 : 1;
}

static int
chk_decide(const uint8_t *p, size_t n)
{
	return chk_decide_as(p, n, &s_decide);
}

static int
enc_decide(struct ft_wbuf *b)
{
	return ft_msg_decide_encode(b, SENDER, FT_MSG_DECIDE, &s_decide);
}

static int
chk_ndsync(const uint8_t *p, size_t n)
{
	return chk_decide_as(p, n, &s_ndsync);
}

static int
enc_ndsync(struct ft_wbuf *b)
{
	return ft_msg_decide_encode(b, SENDER, FT_MSG_NDSYNC, &s_ndsync);
}

static int
chk_spawn(const uint8_t *p, size_t n)
{
	struct ft_msg_spawn m;
	uint32_t i, k;
	int bad = 0;

	if (ft_msg_spawn_decode(p, n, &m) != 0) {
		if (m.cmds != NULL || m.parents != NULL || m.ncmds != 0)
			abort();
		return -1;
	}
	if (m.reqid != s_spawn.reqid || m.nparents != 3 ||
	    memcmp(m.parents, s_parents, sizeof(s_parents)) != 0 ||
	    m.ncmds != 2)
		bad = 1;
	for (i = 0; !bad && i < 2; i++) {
		const struct ft_spawn_cmd *a = &m.cmds[i], *e = &s_cmds[i];

		if (a->maxprocs != e->maxprocs ||
		    strcmp(a->command, e->command) != 0 ||
		    a->argc != e->argc || a->argv[a->argc] != NULL ||
		    a->ninfo != e->ninfo)
			bad = 1;
		for (k = 0; !bad && k < a->argc; k++)
			bad = strcmp(a->argv[k], e->argv[k]) != 0;
		for (k = 0; !bad && k < a->ninfo; k++)
			bad = strcmp(a->keys[k], e->keys[k]) != 0 ||
			    strcmp(a->vals[k], e->vals[k]) != 0;
	}
	ft_msg_spawn_free(&m);
	return bad;
}

static int
enc_spawn(struct ft_wbuf *b)
{
	return ft_msg_spawn_encode(b, SENDER, &s_spawn);
}

static int
chk_reply(const uint8_t *p, size_t n)
{
	struct ft_msg_reply m;
	int bad;

	if (ft_msg_reply_decode(p, n, &m) != 0) {
		if (m.ids != NULL || m.codes != NULL)
			abort();
		return -1;
	}
	bad = m.reqid != s_reply.reqid || m.err != s_reply.err ||
	    m.ctx != s_reply.ctx || strcmp(m.text, s_reply.text) != 0 ||
	    m.nids != 3 || memcmp(m.ids, s_parents, sizeof(s_parents)) != 0 ||
	    m.ncodes != 2 || memcmp(m.codes, s_codes, sizeof(s_codes)) != 0;
	ft_msg_reply_free(&m);
	return bad;
}

static int
enc_reply(struct ft_wbuf *b)
{
	return ft_msg_reply_encode(b, SENDER, &s_reply);
}

static int
chk_procs(const uint8_t *p, size_t n)
{
	struct ft_msg_procs m;
	uint32_t i;
	int bad;

	if (ft_msg_procs_decode(p, n, &m) != 0) {
		if (m.t.ranks != NULL)
			abort();
		return -1;
	}
	bad = m.first != 5 || m.t.n != 3;
	for (i = 0; !bad && i < 3; i++)
		bad = m.t.ranks[i].node != s_ranks[i].node ||
		    m.t.ranks[i].pid != s_ranks[i].pid ||
		    strcmp(m.t.ranks[i].unix_addr, s_ranks[i].unix_addr) != 0 ||
		    strcmp(m.t.ranks[i].tcp_addr, s_ranks[i].tcp_addr) != 0;
	ft_msg_table_free(&m.t);
	return bad;
}

static int
enc_procs(struct ft_wbuf *b)
{
	return ft_msg_procs_encode(b, SENDER, &s_procs);
}

static int
chk_port(const uint8_t *p, size_t n)
{
	struct ft_msg_port m;
	int bad;

	if (ft_msg_port_decode(p, n, &m) != 0) {
		if (m.ids != NULL)
			abort();
		return -1;
	}
	bad = m.op != s_port.op || m.reqid != s_port.reqid ||
	    m.ctx != s_port.ctx || strcmp(m.name, s_port.name) != 0 ||
	    strcmp(m.value, s_port.value) != 0 || m.nids != 3 ||
	    memcmp(m.ids, s_parents, sizeof(s_parents)) != 0;
	ft_msg_port_free(&m);
	return bad;
}

static int
enc_port(struct ft_wbuf *b)
{
	return ft_msg_port_encode(b, SENDER, &s_port);
}

static int
chk_vseq(const uint8_t *p, size_t n)
{
	struct ft_msg_vlog_seq m;

	if (ft_msg_vlog_seq_decode(p, n, &m) != 0)
		return -1;
	return m.inc == 3 && m.seq == 0x0102030405060708ull ? 0 : 1;
}

static int
enc_vrestart(struct ft_wbuf *b)
{
	struct ft_msg_vlog_seq m = { 3, 0x0102030405060708ull };

	return ft_msg_vlog_seq_encode(b, SENDER, FT_MSG_VLOG_RESTART, &m);
}

static int
enc_vresume(struct ft_wbuf *b)
{
	struct ft_msg_vlog_seq m = { 3, 0x0102030405060708ull };

	return ft_msg_vlog_seq_encode(b, SENDER, FT_MSG_VLOG_RESUME, &m);
}

static const struct ft_vlog_digest s_dig[3] = { { 0, 1 }, { 7, 0xdeadbeef },
    { UINT64_MAX, 0 } };

static int
chk_vdigest(const uint8_t *p, size_t n)
{
	struct ft_vlog_digest d[4];
	struct ft_msg_vlog_digest m = { 0, d };
	uint32_t i;

	if (ft_msg_vlog_digest_decode(p, n, &m, 4) != 0)
		return -1;
	if (m.n != 3)
		return 1;
	for (i = 0; i < 3; i++)
		if (d[i].seq != s_dig[i].seq || d[i].crc != s_dig[i].crc)
			return 1;
	return 0;
}

static int
enc_vdigest(struct ft_wbuf *b)
{
	struct ft_msg_vlog_digest m = { 3, (struct ft_vlog_digest *)s_dig };

	return ft_msg_vlog_digest_encode(b, SENDER, &m);
}

static int
chk_revive(const uint8_t *p, size_t n)
{
	struct ft_msg_revive m;

	if (ft_msg_revive_decode(p, n, &m) != 0)
		return -1;
	return m.proc == 5 && m.inc == 2 && m.addr.node == 1 &&
	    m.addr.pid == 4242 && strcmp(m.addr.unix_addr, "unix:/t/r5.sock") ==
	    0 && m.addr.tcp_addr[0] == '\0' ? 0 : 1;
}

static int
enc_revive(struct ft_wbuf *b)
{
	struct ft_msg_revive m = { 5, 2, { 1, 4242, "unix:/t/r5.sock", "" } };

	return ft_msg_revive_encode(b, SENDER, &m);
}

static int
chk_vgc(const uint8_t *p, size_t n)
{
	struct ft_msg_vlog_gc m;

	if (ft_msg_vlog_gc_decode(p, n, &m) != 0)
		return -1;
	return m.inc == 3 && m.epoch == 7 && m.seq == UINT64_MAX - 1 ? 0 : 1;
}

static int
enc_vgc(struct ft_wbuf *b)
{
	struct ft_msg_vlog_gc m = { 3, 7, UINT64_MAX - 1 };

	return ft_msg_vlog_gc_encode(b, SENDER, &m);
}

static const struct codec {
	const char	*name;
	unsigned int	 type;
	uint32_t	 flags;
	size_t		 fixed;	/* data frames: what the decoder reads */
	int		(*enc)(struct ft_wbuf *);
	int		(*chk)(const uint8_t *, size_t);
} codecs[] = {
	{ "HELLO", FT_MSG_HELLO, 0, 0, enc_hello, chk_hello },
	{ "CHALLENGE", FT_MSG_CHALLENGE, 0, 0, enc_challenge, chk_challenge },
	{ "AUTH", FT_MSG_AUTH, 0, 0, enc_auth, chk_auth },
	{ "REGISTER", FT_MSG_REGISTER, 0, 0, enc_register, chk_register },
	{ "TABLE", FT_MSG_TABLE, 0, 0, enc_table, chk_table },
	{ "ABORT", FT_MSG_ABORT, 0, 0, enc_abort, chk_abort },
	{ "FINALIZE", FT_MSG_FINALIZE, 0, 0, enc_finalize, chk_empty },
	{ "FINALIZE_OK", FT_MSG_FINALIZE_OK, 0, 0, enc_finalize_ok,
	    chk_empty },
	{ "RTS", FT_MSG_RTS, FT_FLAG_SYNC, 0, enc_rts, chk_rts },
	{ "CTS", FT_MSG_CTS, 0, 0, enc_cts, chk_cts },
	{ "CREDIT", FT_MSG_CREDIT, 0, 0, enc_credit, chk_credit },
	{ "ACK", FT_MSG_ACK, 0, 0, enc_ack, chk_ack },
	{ "GOSSIP", FT_MSG_GOSSIP, 0, 0, enc_gossip, chk_gossip },
	{ "PING", FT_MSG_PING, 0, 0, enc_ping, chk_ping },
	{ "PONG", FT_MSG_PONG, 0, 0, enc_pong, chk_ping },
	{ "MEMBER", FT_MSG_MEMBER, 0, 0, enc_member, chk_member },
	{ "EAGER", FT_MSG_EAGER, 0, FT_EAGER_FIXED, enc_eager, chk_eager },
	{ "RDATA", FT_MSG_RDATA, 0, FT_RDATA_FIXED, enc_rdata, chk_rdata },
	{ "VIEW", FT_MSG_VIEW, 0, 0, enc_view, chk_view },
	{ "NOTE", FT_MSG_NOTE, 0, 0, enc_note, chk_note },
	{ "COMMIT", FT_MSG_COMMIT, 0, 0, enc_commit, chk_commit },
	{ "DECIDE", FT_MSG_DECIDE, 0, 0, enc_decide, chk_decide },
	{ "NDSYNC", FT_MSG_NDSYNC, 0, 0, enc_ndsync, chk_ndsync },
	{ "SPAWN", FT_MSG_SPAWN, 0, 0, enc_spawn, chk_spawn },
	{ "REPLY", FT_MSG_REPLY, 0, 0, enc_reply, chk_reply },
	{ "PROCS", FT_MSG_PROCS, 0, 0, enc_procs, chk_procs },
	{ "PORT", FT_MSG_PORT, 0, 0, enc_port, chk_port },
	{ "ULFM_REVOKE", FT_MSG_ULFM_REVOKE, 0, 0, enc_revoke, chk_revoke },
	{ "ULFM_AGREE", FT_MSG_ULFM_AGREE, 0, 0, enc_agree, chk_agree },
	{ "FTMPI_JOIN", FT_MSG_FTMPI_JOIN, 0, 0, enc_join, chk_join },
	{ "ULFM_IAGREE", FT_MSG_ULFM_IAGREE, 0, 0, enc_iagree, chk_iagree },
	{ "VLOG_RESTART", FT_MSG_VLOG_RESTART, 0, 0, enc_vrestart, chk_vseq },
	{ "VLOG_RESUME", FT_MSG_VLOG_RESUME, 0, 0, enc_vresume, chk_vseq },
	{ "VLOG_DIGEST", FT_MSG_VLOG_DIGEST, 0, 0, enc_vdigest, chk_vdigest },
	{ "REVIVE", FT_MSG_REVIVE, 0, 0, enc_revive, chk_revive },
	{ "VLOG_GC", FT_MSG_VLOG_GC, 0, 0, enc_vgc, chk_vgc },
};

/* Run chk on a copy of n bytes in a buffer of exactly n bytes. */
static int
chk_exact(const struct codec *c, const uint8_t *p, size_t n)
{
	uint8_t *q;
	int rc;

	if ((q = malloc(n > 0 ? n : 1)) == NULL)
		abort();
	if (n > 0)
		memcpy(q, p, n);
	rc = c->chk(q, n);
	free(q);
	return rc;
}

static void
test_codec(const struct codec *c)
{
	struct ft_wbuf b;
	struct ft_hdr h;
	const uint8_t *body;
	uint8_t *longer;
	size_t blen, cut, need, bad;
	int rc;

	ft_wbuf_init(&b);
	if (!T_OK(c->enc(&b) == 0 && b.len >= FT_WIRE_HDRLEN,
	    "%s: encodes", c->name)) {
		ft_wbuf_release(&b);
		return;
	}
	rc = ft_hdr_decode(b.p, &h);
	T_OK(rc == 0 && h.version == FT_WIRE_VERSION && h.type == c->type &&
	    h.len == b.len && h.sender == SENDER && h.flags == c->flags,
	    "%s: header has version, type, length, sender and flags",
	    c->name);
	T_OK(strcmp(ft_msg_name(c->type), c->name) == 0,
	    "%s: ft_msg_name names it", c->name);
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	T_OK(chk_exact(c, body, blen) == 0,
	    "%s: round trip, decode(encode(m)) == m", c->name);

	/* Cut the body at every offset: each must fail with EPROTO. */
	need = c->fixed > 0 ? c->fixed : blen;
	bad = 0;
	for (cut = 0; cut < need; cut++) {
		errno = 0;
		rc = chk_exact(c, body, cut);
		if (rc != -1 || errno != EPROTO) {
			if (bad++ == 0)
				t_diag("cut at %zu: rc %d, errno %d", cut, rc,
				    errno);
		}
	}
	T_OK(bad == 0, "%s: all %zu truncations fail with EPROTO", c->name,
	    need);

	if ((longer = malloc(blen + 1)) == NULL)
		abort();
	memcpy(longer, body, blen);
	longer[blen] = 0;
	errno = 0;
	rc = chk_exact(c, longer, blen + 1);
	if (c->fixed > 0)
		T_OK(rc == 0, "%s: a byte more of payload is still valid",
		    c->name);
	else
		T_OK(rc == -1 && errno == EPROTO,
		    "%s: a trailing byte fails with EPROTO", c->name);
	free(longer);
	ft_wbuf_release(&b);
}

static void
put_hdr(uint8_t *p, uint16_t magic, uint8_t version, uint32_t len,
    uint32_t flags)
{
	p[0] = (uint8_t)(magic >> 8);
	p[1] = (uint8_t)magic;
	p[2] = version;
	p[3] = FT_MSG_CTS;
	ft_be32(p + 4, len);
	ft_be32(p + 8, 7);
	ft_be32(p + 12, flags);
}

/* ft_hdr_decode on exactly 16 bytes of heap. */
static int
hdr_decode16(const uint8_t *src, struct ft_hdr *h)
{
	uint8_t *p;
	int rc, saved;

	if ((p = malloc(FT_WIRE_HDRLEN)) == NULL)
		abort();
	memcpy(p, src, FT_WIRE_HDRLEN);
	rc = ft_hdr_decode(p, h);
	saved = errno;
	free(p);
	errno = saved;
	return rc;
}

static void
test_header(void)
{
	struct ft_hdr h, h2;
	uint8_t p[FT_WIRE_HDRLEN];
	uint32_t bit;
	int bad;

	put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION, 16, 0);
	T_OK(hdr_decode16(p, &h) == 0 && h.type == FT_MSG_CTS &&
	    h.len == 16 && h.sender == 7 && h.flags == 0,
	    "header: the smallest frame (16 bytes) decodes");
	put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION, FT_FRAME_MAX,
	    FT_FLAG_SYNC);
	T_OK(hdr_decode16(p, &h) == 0 && h.len == FT_FRAME_MAX &&
	    h.flags == FT_FLAG_SYNC,
	    "header: FT_FRAME_MAX and the SYNC flag decode");
	memset(&h2, 0, sizeof(h2));
	ft_hdr_encode(p, &h);
	T_OK(hdr_decode16(p, &h2) == 0 && h2.version == h.version &&
	    h2.type == h.type && h2.len == h.len &&
	    h2.sender == h.sender && h2.flags == h.flags,
	    "header: encode and decode round trip");

	put_hdr(p, 0x4655, FT_WIRE_VERSION, 16, 0);
	T_FAILS(hdr_decode16(p, &h), EPROTO, "header: bad magic");
	put_hdr(p, 0x5446, FT_WIRE_VERSION, 16, 0);
	T_FAILS(hdr_decode16(p, &h), EPROTO, "header: byte-swapped magic");
	put_hdr(p, FT_WIRE_MAGIC, 0, 16, 0);
	T_FAILS(hdr_decode16(p, &h), EPROTO, "header: version 0");
	put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION + 1, 16, 0);
	T_FAILS(hdr_decode16(p, &h), EPROTO,
	    "header: version FT_WIRE_VERSION + 1");
	put_hdr(p, FT_WIRE_MAGIC, 0xff, 16, 0);
	T_FAILS(hdr_decode16(p, &h), EPROTO, "header: version 255");
	bad = 0;
	for (bit = 1; bit != 0; bit <<= 1) {
		if (bit & FT_FLAG_KNOWN)
			continue;
		put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION, 16, bit);
		errno = 0;
		if (hdr_decode16(p, &h) != -1 || errno != EPROTO)
			bad++;
	}
	T_EQ_INT(bad, 0, "header: every unknown flag bit fails with EPROTO");
	put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION, 15, 0);
	T_FAILS(hdr_decode16(p, &h), EMSGSIZE, "header: length 15");
	put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION, 0, 0);
	T_FAILS(hdr_decode16(p, &h), EMSGSIZE, "header: length 0");
	put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION, FT_FRAME_MAX + 1, 0);
	T_FAILS(hdr_decode16(p, &h), EMSGSIZE,
	    "header: length FT_FRAME_MAX + 1");
	put_hdr(p, FT_WIRE_MAGIC, FT_WIRE_VERSION, UINT32_MAX, 0);
	T_FAILS(hdr_decode16(p, &h), EMSGSIZE, "header: length 2^32 - 1");
	T_EQ_STR(ft_msg_name(0), "unknown", "ft_msg_name(0)");
	T_EQ_STR(ft_msg_name(255), "unknown", "ft_msg_name(255)");
}

/* Append one address with strings of the given lengths, filled 'a'. */
static void
put_raw_addr(struct ft_wbuf *b, size_t ulen, size_t tlen)
{
	char s[FT_WIRE_TEXT_MAX + 2];

	ft_put32(b, 1);
	ft_put32(b, 2);
	memset(s, 'a', ulen);
	s[ulen] = '\0';
	ft_putstr(b, s);
	memset(s, 'b', tlen);
	s[tlen] = '\0';
	ft_putstr(b, s);
}

static int
table_decode(const struct ft_wbuf *b, struct ft_msg_table *m)
{
	uint8_t *q;
	int rc, saved;

	if ((q = malloc(b->len)) == NULL)
		abort();
	memcpy(q, b->p, b->len);
	rc = ft_msg_table_decode(q, b->len, m);
	saved = errno;
	free(q);
	errno = saved;
	return rc;
}

static void
test_table(void)
{
	struct ft_msg_table m;
	struct ft_rank_addr *many;
	struct ft_wbuf b, b2;
	uint32_t i, n;
	size_t before;

	ft_wbuf_init(&b);
	ft_put32(&b, 0);
	T_FAILS(table_decode(&b, &m), EPROTO, "table: n = 0 fails");
	T_OK(m.n == 0 && m.ranks == NULL, "and leaves an empty table");

	ft_wbuf_reset(&b);
	ft_put32(&b, UINT32_MAX);
	put_raw_addr(&b, 0, 0);
	/* Under ASan, an attempt to allocate 2^32 entries would abort. */
	T_FAILS(table_decode(&b, &m), EPROTO,
	    "table: n = 2^32 - 1 with one address fails before allocating");
	ft_wbuf_reset(&b);
	ft_put32(&b, 2);
	put_raw_addr(&b, 0, 0);
	T_FAILS(table_decode(&b, &m), EPROTO,
	    "table: n = 2 with one address fails");
	ft_wbuf_reset(&b);
	ft_put32(&b, 1);
	put_raw_addr(&b, 0, 0);
	T_OK(table_decode(&b, &m) == 0 && m.n == 1 && m.ranks != NULL &&
	    m.ranks[0].node == 1 && m.ranks[0].pid == 2 &&
	    m.ranks[0].unix_addr[0] == '\0', "table: n = 1, empty strings");
	ft_msg_table_free(&m);
	T_OK(m.n == 0 && m.ranks == NULL, "table_free empties");
	ft_msg_table_free(&m);

	/* Counts bounded by FT_WIRE_MAX_RANKS even when the body is big. */
	n = FT_WIRE_MAX_RANKS + 1;
	ft_wbuf_reset(&b);
	ft_put32(&b, n);
	for (i = 0; i < n; i++)
		put_raw_addr(&b, 0, 0);
	T_FAILS(table_decode(&b, &m), EPROTO,
	    "table: n = FT_WIRE_MAX_RANKS + 1 with a body that holds them");

	/* Strings at their longest, and one byte longer. */
	ft_wbuf_reset(&b);
	ft_put32(&b, 2);
	put_raw_addr(&b, FT_WIRE_ADDR_MAX - 1, FT_WIRE_ADDR_MAX - 1);
	put_raw_addr(&b, 0, FT_WIRE_ADDR_MAX - 1);
	T_OK(table_decode(&b, &m) == 0 && m.n == 2 &&
	    strlen(m.ranks[0].unix_addr) == FT_WIRE_ADDR_MAX - 1 &&
	    strlen(m.ranks[1].tcp_addr) == FT_WIRE_ADDR_MAX - 1,
	    "table: addresses of FT_WIRE_ADDR_MAX - 1 bytes decode");
	ft_msg_table_free(&m);
	ft_wbuf_reset(&b);
	ft_put32(&b, 2);
	put_raw_addr(&b, 0, 0);
	put_raw_addr(&b, FT_WIRE_ADDR_MAX, 0);
	T_FAILS(table_decode(&b, &m), EPROTO,
	    "table: a unix address of FT_WIRE_ADDR_MAX bytes fails");
	T_OK(m.n == 0 && m.ranks == NULL, "and frees what it allocated");
	ft_wbuf_reset(&b);
	ft_put32(&b, 1);
	put_raw_addr(&b, 0, FT_WIRE_ADDR_MAX);
	T_FAILS(table_decode(&b, &m), EPROTO,
	    "table: a tcp address of FT_WIRE_ADDR_MAX bytes fails");

	/* An encoder that would pass FT_FRAME_MAX fails and undoes. */
	n = 70000;
	if ((many = calloc(n, sizeof(*many))) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		memset(many[i].unix_addr, 'u', FT_WIRE_ADDR_MAX - 1);
		memset(many[i].tcp_addr, 't', FT_WIRE_ADDR_MAX - 1);
	}
	ft_wbuf_init(&b2);
	T_EQ_INT(enc_auth(&b2), 0, "an AUTH frame first in the buffer");
	before = b2.len;
	m.n = n;
	m.ranks = many;
	T_FAILS(ft_msg_table_encode(&b2, 0, &m), EMSGSIZE,
	    "table: an encoding past FT_FRAME_MAX fails with EMSGSIZE");
	T_OK(b2.len == before && b2.err == 0 && chk_auth(b2.p +
	    FT_WIRE_HDRLEN, before - FT_WIRE_HDRLEN) == 0,
	    "and leaves the buffer as it was");
	free(many);
	ft_wbuf_release(&b2);
	ft_wbuf_release(&b);
}

static void
test_strings(void)
{
	struct ft_msg_register reg;
	struct ft_msg_abort ab, ab2;
	struct ft_wbuf b;
	uint8_t *q;

	ft_wbuf_init(&b);
	memset(&reg, 0, sizeof(reg));
	memset(reg.addr.unix_addr, 'u', FT_WIRE_ADDR_MAX - 1);
	memset(reg.addr.tcp_addr, 't', FT_WIRE_ADDR_MAX - 1);
	s_register = reg;
	T_OK(enc_register(&b) == 0 && chk_register(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN) == 0,
	    "register: addresses of FT_WIRE_ADDR_MAX - 1 bytes round-trip");

	ft_wbuf_reset(&b);
	ft_put32(&b, 5);
	put_raw_addr(&b, FT_WIRE_ADDR_MAX, 1);
	T_FAILS(ft_msg_register_decode(b.p, b.len, &reg), EPROTO,
	    "register: a unix address of FT_WIRE_ADDR_MAX bytes fails");
	ft_wbuf_reset(&b);
	ft_put32(&b, 5);
	put_raw_addr(&b, 1, FT_WIRE_ADDR_MAX);
	T_FAILS(ft_msg_register_decode(b.p, b.len, &reg), EPROTO,
	    "register: a tcp address of FT_WIRE_ADDR_MAX bytes fails");
	ft_wbuf_reset(&b);
	ft_put32(&b, 5);
	put_raw_addr(&b, 3, 3);
	b.p[4 + 8 + 2 + 1] = '\0';
	T_FAILS(ft_msg_register_decode(b.p, b.len, &reg), EPROTO,
	    "register: an address with a NUL byte fails");

	memset(&ab, 0, sizeof(ab));
	ab.code = INT32_MIN;
	memset(ab.reason, 'r', FT_WIRE_TEXT_MAX - 1);
	ft_wbuf_reset(&b);
	T_OK(ft_msg_abort_encode(&b, 0, &ab) == 0 &&
	    ft_msg_abort_decode(b.p + FT_WIRE_HDRLEN, b.len - FT_WIRE_HDRLEN,
	    &ab2) == 0 && ab2.code == INT32_MIN &&
	    strcmp(ab.reason, ab2.reason) == 0,
	    "abort: a reason of FT_WIRE_TEXT_MAX - 1 bytes round-trips");
	/* Make the reason one byte longer on the wire. */
	if ((q = malloc(b.len + 1 - FT_WIRE_HDRLEN)) == NULL)
		abort();
	memcpy(q, b.p + FT_WIRE_HDRLEN, b.len - FT_WIRE_HDRLEN);
	q[4] = FT_WIRE_TEXT_MAX >> 8;
	q[5] = FT_WIRE_TEXT_MAX & 0xff;
	q[b.len - FT_WIRE_HDRLEN] = 'r';
	T_FAILS(ft_msg_abort_decode(q, b.len + 1 - FT_WIRE_HDRLEN, &ab2),
	    EPROTO, "abort: a reason of FT_WIRE_TEXT_MAX bytes fails");
	free(q);
	ft_wbuf_release(&b);
}

static void
test_fields(void)
{
	struct ft_msg_hello he;
	struct ft_msg_challenge ch;
	struct ft_msg_rts rts;
	struct ft_msg_eager eg;
	struct ft_wbuf b;
	uint8_t pre[FT_WIRE_HDRLEN + FT_EAGER_FIXED];
	uint8_t rpre[FT_WIRE_HDRLEN + FT_RDATA_FIXED];
	struct ft_hdr h;

	ft_wbuf_init(&b);
	T_EQ_INT(enc_hello(&b), 0, "hello encodes");
	b.p[FT_WIRE_HDRLEN] = 2;
	b.p[FT_WIRE_HDRLEN + 1] = 1;
	T_FAILS(ft_msg_hello_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &he), EPROTO,
	    "hello: min version > max version fails");
	b.p[FT_WIRE_HDRLEN] = 1;
	b.p[FT_WIRE_HDRLEN + 1] = 1;
	b.p[FT_WIRE_HDRLEN + 3] = 1;
	T_FAILS(ft_msg_hello_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &he), EPROTO,
	    "hello: a nonzero reserved byte fails");

	ft_wbuf_reset(&b);
	T_EQ_INT(enc_challenge(&b), 0, "challenge encodes");
	b.p[FT_WIRE_HDRLEN + 1] = 1;
	T_FAILS(ft_msg_challenge_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &ch), EPROTO,
	    "challenge: a nonzero reserved byte fails");
	b.p[FT_WIRE_HDRLEN + 1] = 0;
	b.p[FT_WIRE_HDRLEN + 3] = 1;
	T_FAILS(ft_msg_challenge_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &ch), EPROTO,
	    "challenge: a nonzero reserved word fails");

	/* Membership: counts bounded by the caller's arrays and exactly
	 * what the body holds; a known kind; zero padding. */
	{
		struct ft_msg_member mm;
		uint32_t l[4], f[4], y[4];
		uint64_t e[4];
		uint8_t *body0;
		size_t blen0;

		mm.live = l;
		mm.fail = f;
		mm.by = y;
		mm.ep = e;
		ft_wbuf_reset(&b);
		T_EQ_INT(enc_member(&b), 0, "member encodes");
		body0 = b.p + FT_WIRE_HDRLEN;
		blen0 = b.len - FT_WIRE_HDRLEN;
		T_FAILS(ft_msg_member_decode(body0, blen0, &mm, 2), EPROTO,
		    "member: more ids than the caller has room for fails");
		ft_be32(body0 + 24, 2);
		T_FAILS(ft_msg_member_decode(body0, blen0, &mm, 4), EPROTO,
		    "member: a live count short of the body fails");
		ft_be32(body0 + 24, UINT32_MAX);
		T_FAILS(ft_msg_member_decode(body0, blen0, &mm, UINT32_MAX),
		    EPROTO, "member: a huge count fails before anything is "
		    "read");
		ft_be32(body0 + 24, 3);
		body0[0] = FT_MB_KIND_MAX + 1;
		T_FAILS(ft_msg_member_decode(body0, blen0, &mm, 4), EPROTO,
		    "member: an unknown kind fails");
		body0[0] = FT_MB_FAILED_NODE;
		body0[2] = 1;
		T_FAILS(ft_msg_member_decode(body0, blen0, &mm, 4), EPROTO,
		    "member: nonzero padding fails");
		body0[2] = 0;
		T_EQ_INT(ft_msg_member_decode(body0, blen0, &mm, 4), 0,
		    "member: restored, it decodes");
		s_member.kind = 0;
		ft_wbuf_reset(&b);
		T_FAILS(enc_member(&b), EINVAL,
		    "member: kind 0 does not encode");
		s_member.kind = FT_MB_FAILED_NODE;
	}

	/* Gossip: the count is bounded by the caller's array and must be
	 * exactly what the body holds. */
	{
		struct ft_msg_gossip g;
		uint64_t hb[8];

		g.hb = hb;
		ft_wbuf_reset(&b);
		T_EQ_INT(enc_gossip(&b), 0, "gossip encodes");
		T_FAILS(ft_msg_gossip_decode(b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &g, 4), EPROTO,
		    "gossip: more counters than the caller has room for fails");
		ft_be32(b.p + FT_WIRE_HDRLEN + 8, 4);
		T_FAILS(ft_msg_gossip_decode(b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &g, 8), EPROTO,
		    "gossip: a count short of the body fails");
		ft_be32(b.p + FT_WIRE_HDRLEN + 8, 0);
		T_FAILS(ft_msg_gossip_decode(b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &g, 8), EPROTO,
		    "gossip: a count of 0 fails");
		ft_be32(b.p + FT_WIRE_HDRLEN + 8, UINT32_MAX);
		T_FAILS(ft_msg_gossip_decode(b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &g, UINT32_MAX), EPROTO,
		    "gossip: a huge count fails before anything is read");
		ft_wbuf_reset(&b);
		g.n = 0;
		T_OK(ft_msg_gossip_encode(&b, 0, &g) == -1 && errno == EINVAL &&
		    b.len == 0 && b.err == 0,
		    "gossip: encoding no counters is refused, buffer intact");
		T_OK(ft_msg_ping_encode(&b, 0, FT_MSG_CTS, &s_ping) == -1 &&
		    errno == EINVAL && b.len == 0 && b.err == 0,
		    "ping: only PING and PONG");
	}

	/* A credit or an ack of nothing is never sent: refuse it. */
	{
		struct ft_msg_credit cr;
		struct ft_msg_ack ack;

		ft_wbuf_reset(&b);
		T_EQ_INT(enc_credit(&b), 0, "credit encodes");
		memset(b.p + FT_WIRE_HDRLEN, 0, 8);
		T_FAILS(ft_msg_credit_decode(b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &cr), EPROTO,
		    "credit: 0 bytes fails");
		ft_wbuf_reset(&b);
		T_EQ_INT(enc_ack(&b), 0, "ack encodes");
		memset(b.p + FT_WIRE_HDRLEN, 0, 8);
		T_FAILS(ft_msg_ack_decode(b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &ack), EPROTO,
		    "ack: 0 bytes fails");
	}

	/* Negative tags are for wildcards, never on the wire. */
	ft_wbuf_reset(&b);
	T_EQ_INT(enc_rts(&b), 0, "rts encodes");
	ft_be32(b.p + FT_WIRE_HDRLEN + 8, UINT32_MAX);
	T_FAILS(ft_msg_rts_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &rts), EPROTO, "rts: tag -1 fails");
	ft_be32(b.p + FT_WIRE_HDRLEN + 8, 0x80000000u);
	T_FAILS(ft_msg_rts_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &rts), EPROTO, "rts: tag INT32_MIN fails");
	ft_be32(b.p + FT_WIRE_HDRLEN + 8, 0);
	T_OK(ft_msg_rts_decode(b.p + FT_WIRE_HDRLEN, b.len - FT_WIRE_HDRLEN,
	    &rts) == 0 && rts.tag == 0, "rts: tag 0 is fine");
	ft_wbuf_reset(&b);
	T_OK(ft_msg_rts_encode(&b, 0, 0, &s_rts) == 0 &&
	    ft_hdr_decode(b.p, &h) == 0 && h.flags == 0,
	    "rts: a standard-mode RTS has no flag");
	T_EQ_INT(ft_msg_eager_prefix(pre, 0, &s_eager, 0), 0,
	    "eager: prefix");
	ft_be32(pre + FT_WIRE_HDRLEN + 8, UINT32_MAX);
	T_FAILS(ft_msg_eager_decode(pre + FT_WIRE_HDRLEN, FT_EAGER_FIXED, &eg),
	    EPROTO, "eager: tag -1 fails");
	ft_be32(pre + FT_WIRE_HDRLEN + 8, 0x80000000u);
	T_FAILS(ft_msg_eager_decode(pre + FT_WIRE_HDRLEN, FT_EAGER_FIXED, &eg),
	    EPROTO, "eager: tag INT32_MIN fails");

	/* Data frame size limits. */
	T_OK(ft_msg_eager_prefix(pre, 0, &s_eager, FT_FRAME_MAX -
	    FT_WIRE_HDRLEN - FT_EAGER_FIXED) == 0 &&
	    ft_hdr_decode(pre, &h) == 0 && h.len == FT_FRAME_MAX &&
	    h.type == FT_MSG_EAGER,
	    "eager: the largest payload makes a FT_FRAME_MAX frame");
	T_FAILS(ft_msg_eager_prefix(pre, 0, &s_eager, FT_FRAME_MAX -
	    FT_WIRE_HDRLEN - FT_EAGER_FIXED + 1), EMSGSIZE,
	    "eager: one byte more fails with EMSGSIZE");
	T_FAILS(ft_msg_eager_prefix(pre, 0, &s_eager, SIZE_MAX), EMSGSIZE,
	    "eager: SIZE_MAX fails with EMSGSIZE");
	T_OK(ft_msg_eager_prefix(pre, 0, &s_eager, 0) == 0 &&
	    ft_hdr_decode(pre, &h) == 0 &&
	    h.len == FT_WIRE_HDRLEN + FT_EAGER_FIXED,
	    "eager: an empty payload");
	T_OK(ft_msg_rdata_prefix(rpre, 0, &s_rdata, FT_FRAME_MAX -
	    FT_WIRE_HDRLEN - FT_RDATA_FIXED) == 0 &&
	    ft_hdr_decode(rpre, &h) == 0 && h.len == FT_FRAME_MAX &&
	    h.type == FT_MSG_RDATA,
	    "rdata: the largest payload makes a FT_FRAME_MAX frame");
	T_FAILS(ft_msg_rdata_prefix(rpre, 0, &s_rdata, FT_FRAME_MAX -
	    FT_WIRE_HDRLEN - FT_RDATA_FIXED + 1), EMSGSIZE,
	    "rdata: one byte more fails with EMSGSIZE");
	T_FAILS(ft_msg_rdata_prefix(rpre, 0, &s_rdata, SIZE_MAX), EMSGSIZE,
	    "rdata: SIZE_MAX fails with EMSGSIZE");
	T_OK(ft_msg_rdata_prefix(rpre, 0, &s_rdata, FT_WIRE_CHUNK) == 0,
	    "rdata: a FT_WIRE_CHUNK payload fits");
	ft_wbuf_release(&b);
}

/*
 * The replication frames.  Their decoders run on a copy of the body in a
 * heap buffer of exactly n bytes, and write into arrays of exactly the
 * cap they are given, so that ASan sees any access past either.
 */
static int
rep_decode(unsigned int type, const uint8_t *p, size_t n, void *m,
    uint32_t cap)
{
	uint8_t *q;
	int rc, saved;

	if ((q = malloc(n > 0 ? n : 1)) == NULL)
		abort();
	if (n > 0)
		memcpy(q, p, n);
	errno = 0;
	switch (type) {
	case FT_MSG_VIEW:
		rc = ft_msg_view_decode(q, n, m, cap);
		break;
	case FT_MSG_NOTE:
		rc = ft_msg_note_decode(q, n, m);
		break;
	case FT_MSG_COMMIT:
		rc = ft_msg_commit_decode(q, n, m, cap);
		break;
	case FT_MSG_DECIDE:
		rc = ft_msg_decide_decode(q, n, m, cap);
		break;
	default:
		abort();
	}
	saved = errno;
	free(q);
	errno = saved;
	return rc;
}

static void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n > 0 ? n : 1, size)) == NULL)
		abort();
	return p;
}

/* b holds exactly one frame: check its header. */
static int
hdr_is(const struct ft_wbuf *b, unsigned int type, uint32_t sender)
{
	struct ft_hdr h;

	return b->err == 0 && b->len >= FT_WIRE_HDRLEN &&
	    ft_hdr_decode(b->p, &h) == 0 && h.version == FT_WIRE_VERSION &&
	    h.type == type && h.sender == sender && h.len == b->len &&
	    h.flags == 0;
}

/*
 * An encoder's result when it must refuse its arguments: -1 with
 * EINVAL, the buffer as it was (before bytes, no sticky error).  The
 * caller clears errno before the call.
 */
static int
refused(int rc, const struct ft_wbuf *b, size_t before)
{
	return rc == -1 && errno == EINVAL && b->len == before && b->err == 0;
}

/* Cut the body at every offset below n: the count of cuts not EPROTO. */
static size_t
rep_cuts(unsigned int type, const uint8_t *body, size_t n, void *m,
    uint32_t cap)
{
	size_t cut, bad = 0;

	for (cut = 0; cut < n; cut++)
		if (rep_decode(type, body, cut, m, cap) != -1 ||
		    errno != EPROTO) {
			if (bad++ == 0)
				t_diag("cut at %zu: errno %d", cut, errno);
		}
	return bad;
}

static void
test_view(void)
{
	static const uint8_t golden[] = {
		0x80, 0, 0, 0, 0, 0, 0, 0x01,		/* epoch */
		0, 0, 0, 3,				/* ndead */
		0, 0, 0, 0, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff,
	};
	struct ft_msg_view v, v2;
	struct ft_wbuf b;
	uint32_t *dead, *dead2, few[4], i, n;
	uint8_t *body;
	size_t blen, before;
	int rc;

	ft_wbuf_init(&b);
	T_OK(enc_view(&b) == 0 && hdr_is(&b, FT_MSG_VIEW, SENDER) &&
	    b.len == FT_WIRE_HDRLEN + sizeof(golden) &&
	    memcmp(b.p + FT_WIRE_HDRLEN, golden, sizeof(golden)) == 0,
	    "view: the body is the epoch, the count and the ids, big-endian");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;

	/* The count against the caller's room. */
	dead = xcalloc(3, sizeof(*dead));
	v2.dead = dead;
	T_OK(rep_decode(FT_MSG_VIEW, body, blen, &v2, 3) == 0 &&
	    v2.ndead == 3 && v2.epoch == s_view.epoch &&
	    memcmp(dead, s_dead, sizeof(s_dead)) == 0,
	    "view: three dead decode into room for exactly three");
	free(dead);
	dead = xcalloc(2, sizeof(*dead));
	v2.dead = dead;
	T_FAILS(rep_decode(FT_MSG_VIEW, body, blen, &v2, 2), EPROTO,
	    "view: three dead with room for two fails");
	free(dead);

	/* The count must be exactly what the body holds. */
	v2.dead = few;
	ft_be32(body + 8, 2);
	T_FAILS(rep_decode(FT_MSG_VIEW, body, blen, &v2, 4), EPROTO,
	    "view: a count of 2 over 3 ids fails");
	ft_be32(body + 8, 4);
	T_FAILS(rep_decode(FT_MSG_VIEW, body, blen, &v2, 4), EPROTO,
	    "view: a count of 4 over 3 ids fails");
	ft_be32(body + 8, UINT32_MAX);
	T_FAILS(rep_decode(FT_MSG_VIEW, body, blen, &v2, UINT32_MAX), EPROTO,
	    "view: a count of 2^32 - 1 fails before anything is stored");
	ft_be32(body + 8, 3);
	T_EQ_INT(rep_decode(FT_MSG_VIEW, body, blen, &v2, 4), 0,
	    "view: the count restored, it decodes");
	ft_put32(&b, 9);
	T_FAILS(rep_decode(FT_MSG_VIEW, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &v2, 4), EPROTO,
	    "view: an uncounted id after the list fails");

	/* No one dead. */
	ft_wbuf_reset(&b);
	v.epoch = 0;
	v.ndead = 0;
	v.dead = NULL;
	T_OK(ft_msg_view_encode(&b, FT_WIRE_LAUNCHER, &v) == 0 &&
	    hdr_is(&b, FT_MSG_VIEW, FT_WIRE_LAUNCHER) &&
	    b.len == FT_WIRE_HDRLEN + 12,
	    "view: no one dead makes a 12-byte body, sent by the launcher");
	v2.epoch = 1;
	v2.ndead = 5;
	v2.dead = few;
	T_OK(rep_decode(FT_MSG_VIEW, b.p + FT_WIRE_HDRLEN, 12, &v2, 0) == 0 &&
	    v2.epoch == 0 && v2.ndead == 0,
	    "view: no one dead decodes, even with room for none");
	T_EQ_UINT(rep_cuts(FT_MSG_VIEW, b.p + FT_WIRE_HDRLEN, 12, &v2, 4), 0,
	    "view: every cut of the 12-byte body fails with EPROTO");

	/* The most a view holds, and one more. */
	n = FT_WIRE_MAX_RANKS;
	dead = xcalloc((size_t)n + 1, sizeof(*dead));
	dead2 = xcalloc((size_t)n + 1, sizeof(*dead2));
	for (i = 0; i <= n; i++)
		dead[i] = i * 2654435761u;
	ft_wbuf_reset(&b);
	v.epoch = 42;
	v.ndead = n;
	v.dead = dead;
	T_OK(ft_msg_view_encode(&b, 3, &v) == 0 && hdr_is(&b, FT_MSG_VIEW, 3) &&
	    b.len == FT_WIRE_HDRLEN + 12 + (size_t)n * 4,
	    "view: FT_WIRE_MAX_RANKS dead encode");
	v2.dead = dead2;
	T_OK(rep_decode(FT_MSG_VIEW, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &v2, n) == 0 && v2.ndead == n &&
	    v2.epoch == 42 && memcmp(dead, dead2, (size_t)n * 4) == 0,
	    "view: and decode with room for them");
	before = b.len;
	v.ndead = n + 1;
	errno = 0;
	T_OK(refused(ft_msg_view_encode(&b, 3, &v), &b, before),
	    "view: FT_WIRE_MAX_RANKS + 1 dead do not encode (EINVAL), "
	    "the buffer as it was");
	v.ndead = UINT32_MAX;
	errno = 0;
	T_OK(refused(ft_msg_view_encode(&b, 3, &v), &b, before),
	    "view: 2^32 - 1 dead do not encode");
	/* What the encoder refuses, the decoder must refuse too. */
	ft_wbuf_reset(&b);
	ft_put64(&b, 42);
	ft_put32(&b, n + 1);
	for (i = 0; i <= n; i++)
		ft_put32(&b, dead[i]);
	v2.dead = dead2;
	rc = rep_decode(FT_MSG_VIEW, b.p, b.len, &v2, n + 1);
	T_OK(rc == -1 && errno == EPROTO,
	    "view: FT_WIRE_MAX_RANKS + 1 dead fail to decode, even with room");
	if (rc == 0)
		t_diag("decoded ndead %" PRIu32 ", which ft_msg_view_encode "
		    "refuses", v2.ndead);
	free(dead);
	free(dead2);
	ft_wbuf_release(&b);
}

static void
test_note(void)
{
	static const uint32_t kinds[] = { FT_NOTE_WARNING, FT_NOTE_DIVERGE,
	    FT_NOTE_REPLAYED };
	static const uint32_t badkinds[] = { 0, FT_NOTE_KIND_MAX + 1,
	    0x80000001u, UINT32_MAX };
	struct ft_msg_note no, no2;
	struct ft_wbuf b;
	char desc[64];
	uint8_t *body, *q;
	size_t blen, before, i;

	ft_wbuf_init(&b);
	for (i = 0; i < FT_NELEM(kinds); i++) {
		memset(&no, 0, sizeof(no));
		no.kind = kinds[i];
		snprintf(no.text, sizeof(no.text), "note of kind %" PRIu32,
		    kinds[i]);
		ft_wbuf_reset(&b);
		memset(&no2, 0xa5, sizeof(no2));
		T_OK(ft_msg_note_encode(&b, 9, &no) == 0 &&
		    hdr_is(&b, FT_MSG_NOTE, 9) &&
		    rep_decode(FT_MSG_NOTE, b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &no2, 0) == 0 &&
		    no2.kind == kinds[i] && strcmp(no2.text, no.text) == 0,
		    "note: kind %" PRIu32 " round-trips", kinds[i]);
	}
	memset(&no, 0, sizeof(no));
	no.kind = FT_NOTE_WARNING;
	ft_wbuf_reset(&b);
	memset(&no2, 0xa5, sizeof(no2));
	T_OK(ft_msg_note_encode(&b, 9, &no) == 0 &&
	    b.len == FT_WIRE_HDRLEN + 6 &&
	    rep_decode(FT_MSG_NOTE, b.p + FT_WIRE_HDRLEN, 6, &no2, 0) == 0 &&
	    no2.kind == FT_NOTE_WARNING && no2.text[0] == '\0',
	    "note: an empty text round-trips in 6 bytes");

	/* Unknown kinds, both ways. */
	ft_wbuf_reset(&b);
	T_EQ_INT(enc_note(&b), 0, "note encodes");
	before = b.len;
	for (i = 0; i < FT_NELEM(badkinds); i++) {
		no = s_note;
		no.kind = badkinds[i];
		errno = 0;
		T_OK(refused(ft_msg_note_encode(&b, 9, &no), &b, before),
		    "note: kind %#" PRIx32 " does not encode", badkinds[i]);
	}
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	for (i = 0; i < FT_NELEM(badkinds); i++) {
		ft_be32(body, badkinds[i]);
		snprintf(desc, sizeof(desc), "note: kind %#" PRIx32
		    " on the wire fails", badkinds[i]);
		T_FAILS(rep_decode(FT_MSG_NOTE, body, blen, &no2, 0), EPROTO,
		    desc);
	}
	ft_be32(body, FT_NOTE_KIND_MAX);
	T_EQ_INT(rep_decode(FT_MSG_NOTE, body, blen, &no2, 0), 0,
	    "note: kind FT_NOTE_KIND_MAX decodes");
	body[6 + 3] = '\0';
	T_FAILS(rep_decode(FT_MSG_NOTE, body, blen, &no2, 0), EPROTO,
	    "note: a text with a NUL byte fails");

	/* The text at its longest, then one byte longer on the wire. */
	memset(&no, 0, sizeof(no));
	no.kind = FT_NOTE_DIVERGE;
	memset(no.text, 't', FT_WIRE_TEXT_MAX - 1);
	ft_wbuf_reset(&b);
	T_OK(ft_msg_note_encode(&b, 0, &no) == 0 &&
	    rep_decode(FT_MSG_NOTE, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &no2, 0) == 0 &&
	    no2.kind == FT_NOTE_DIVERGE && strcmp(no.text, no2.text) == 0,
	    "note: a text of FT_WIRE_TEXT_MAX - 1 bytes round-trips");
	blen = b.len - FT_WIRE_HDRLEN;
	q = xcalloc(blen + 1, 1);
	memcpy(q, b.p + FT_WIRE_HDRLEN, blen);
	q[4] = FT_WIRE_TEXT_MAX >> 8;
	q[5] = FT_WIRE_TEXT_MAX & 0xff;
	q[blen] = 't';
	T_FAILS(rep_decode(FT_MSG_NOTE, q, blen + 1, &no2, 0), EPROTO,
	    "note: a text of FT_WIRE_TEXT_MAX bytes fails");
	q[4] = 0xff;
	q[5] = 0xff;
	T_FAILS(rep_decode(FT_MSG_NOTE, q, blen + 1, &no2, 0), EPROTO,
	    "note: a text length of 65535 fails");
	free(q);
	ft_wbuf_release(&b);
}

static void
test_commit(void)
{
	static const uint8_t golden[] = {
		0, 0, 0, 3,
		0xff, 0xff, 0xff, 0xfe, 0xde, 0xad, 0xbe, 0xef,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 5, 0x80, 0, 0, 0,
		0x80, 0, 0, 0, 0, 0, 0, 0,
	};
	struct ft_msg_commit c, c2;
	struct ft_commit *e, *e2, few[4];
	struct ft_wbuf b;
	uint8_t *body;
	size_t blen, before;
	uint32_t i, n;

	ft_wbuf_init(&b);
	T_OK(enc_commit(&b) == 0 && hdr_is(&b, FT_MSG_COMMIT, SENDER) &&
	    b.len == FT_WIRE_HDRLEN + sizeof(golden) &&
	    memcmp(b.p + FT_WIRE_HDRLEN, golden, sizeof(golden)) == 0,
	    "commit: the count, then dst, crc and seq, big-endian");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	e = xcalloc(3, sizeof(*e));
	c2.e = e;
	T_OK(rep_decode(FT_MSG_COMMIT, body, blen, &c2, 3) == 0 && c2.n == 3 &&
	    commit_eq(e, s_commits, 3),
	    "commit: three entries decode into room for exactly three");
	free(e);
	e = xcalloc(2, sizeof(*e));
	c2.e = e;
	T_FAILS(rep_decode(FT_MSG_COMMIT, body, blen, &c2, 2), EPROTO,
	    "commit: three entries with room for two fail");
	free(e);
	c2.e = few;
	ft_be32(body, 2);
	T_FAILS(rep_decode(FT_MSG_COMMIT, body, blen, &c2, 4), EPROTO,
	    "commit: a count of 2 over 3 entries fails");
	ft_be32(body, 4);
	T_FAILS(rep_decode(FT_MSG_COMMIT, body, blen, &c2, 4), EPROTO,
	    "commit: a count of 4 over 3 entries fails");
	ft_be32(body, UINT32_MAX);
	T_FAILS(rep_decode(FT_MSG_COMMIT, body, blen, &c2, UINT32_MAX),
	    EPROTO, "commit: a count of 2^32 - 1 fails");
	ft_be32(body, 3);
	ft_put32(&b, 1);
	ft_put32(&b, 2);
	ft_put64(&b, 3);
	T_FAILS(rep_decode(FT_MSG_COMMIT, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &c2, 4), EPROTO,
	    "commit: an uncounted entry after the list fails");

	/* None, as many as a batch holds, and one more. */
	ft_wbuf_reset(&b);
	c.n = 0;
	c.e = NULL;
	c2.n = 9;
	T_OK(ft_msg_commit_encode(&b, 4, &c) == 0 &&
	    hdr_is(&b, FT_MSG_COMMIT, 4) && b.len == FT_WIRE_HDRLEN + 4 &&
	    rep_decode(FT_MSG_COMMIT, b.p + FT_WIRE_HDRLEN, 4, &c2, 0) == 0 &&
	    c2.n == 0, "commit: an empty batch round-trips in 4 bytes");
	n = FT_WIRE_BATCH_MAX;
	e = xcalloc((size_t)n + 1, sizeof(*e));
	e2 = xcalloc(n, sizeof(*e2));
	for (i = 0; i <= n; i++) {
		e[i].dst = ~i;
		e[i].crc = i * 2654435761u;
		e[i].seq = (uint64_t)i << 40 | i;
	}
	ft_wbuf_reset(&b);
	c.n = n;
	c.e = e;
	c2.e = e2;
	T_OK(ft_msg_commit_encode(&b, 4, &c) == 0 &&
	    hdr_is(&b, FT_MSG_COMMIT, 4) &&
	    b.len == FT_WIRE_HDRLEN + 4 + (size_t)n * 16 &&
	    rep_decode(FT_MSG_COMMIT, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &c2, n) == 0 && c2.n == n &&
	    commit_eq(e, e2, n),
	    "commit: FT_WIRE_BATCH_MAX entries round-trip");
	before = b.len;
	c.n = n + 1;
	errno = 0;
	T_OK(refused(ft_msg_commit_encode(&b, 4, &c), &b, before),
	    "commit: FT_WIRE_BATCH_MAX + 1 entries do not encode");
	free(e2);
	ft_wbuf_reset(&b);
	ft_put32(&b, n + 1);
	for (i = 0; i <= n; i++) {
		ft_put32(&b, e[i].dst);
		ft_put32(&b, e[i].crc);
		ft_put64(&b, e[i].seq);
	}
	e2 = xcalloc((size_t)n + 1, sizeof(*e2));
	c2.e = e2;
	T_FAILS(rep_decode(FT_MSG_COMMIT, b.p, b.len, &c2, n + 1), EPROTO,
	    "commit: FT_WIRE_BATCH_MAX + 1 entries fail, even with room");
	free(e);
	free(e2);
	ft_wbuf_release(&b);
}

/* Encode a DECIDE or NDSYNC that must be refused. */
static int
decide_refused(struct ft_wbuf *b, unsigned int type, uint32_t reply,
    uint64_t have, uint32_t n, struct ft_decision *d)
{
	struct ft_msg_decide m = { reply, have, n, d };
	size_t before = b->len;

	errno = 0;
	return refused(ft_msg_decide_encode(b, 5, type, &m), b, before);
}

static void
test_decide(void)
{
	struct ft_msg_decide m, m2;
	struct ft_decision *d, *d2, few[4];
	struct ft_wbuf b;
	const struct ft_decision *s = s_decs;
	uint8_t *body;
	size_t blen, bad, k;
	uint32_t i, n;

	ft_wbuf_init(&b);
	T_OK(enc_ndsync(&b) == 0 && hdr_is(&b, FT_MSG_NDSYNC, SENDER) &&
	    b.len == FT_WIRE_HDRLEN + 16 + 2 * 48, "ndsync: 16 + 2 * 48 bytes");
	body = b.p + FT_WIRE_HDRLEN;
	T_OK(ft_rd32(body) == 1 && ft_rd64(body + 4) == UINT64_MAX &&
	    ft_rd32(body + 12) == 2 && ft_rd64(body + 16) == s[0].index &&
	    ft_rd32(body + 24) == s[0].kind && ft_rd32(body + 28) == 0 &&
	    ft_rd64(body + 32) == s[0].site && ft_rd64(body + 40) == s[0].a &&
	    ft_rd64(body + 48) == s[0].b && ft_rd64(body + 56) == s[0].c &&
	    ft_rd64(body + 64) == s[1].index && ft_rd32(body + 72) == 0 &&
	    ft_rd32(body + 76) == 0 && ft_rd64(body + 104) == s[1].c,
	    "ndsync: reply, have, n, then index, kind, a zero pad word, "
	    "site, a, b, c per decision, big-endian");

	/* A decision round trip with each field at either extreme. */
	d = xcalloc(1, sizeof(*d));
	d[0].index = UINT64_MAX;
	d[0].kind = UINT32_MAX;
	d[0].site = UINT64_MAX;
	d[0].a = UINT64_MAX;
	d[0].b = UINT64_MAX;
	d[0].c = UINT64_MAX;
	m.reply = 0;
	m.have = 0;
	m.n = 1;
	m.d = d;
	m2.d = few;
	ft_wbuf_reset(&b);
	T_OK(ft_msg_decide_encode(&b, 0, FT_MSG_DECIDE, &m) == 0 &&
	    hdr_is(&b, FT_MSG_DECIDE, 0) &&
	    rep_decode(FT_MSG_DECIDE, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &m2, 1) == 0 && m2.reply == 0 &&
	    m2.have == 0 && m2.n == 1 && decision_eq(d, few, 1),
	    "decide: every field all ones round-trips");
	memset(d, 0, sizeof(*d));
	memset(few, 0xff, sizeof(few));
	ft_wbuf_reset(&b);
	T_OK(ft_msg_decide_encode(&b, 0, FT_MSG_DECIDE, &m) == 0 &&
	    rep_decode(FT_MSG_DECIDE, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &m2, 1) == 0 && m2.n == 1 &&
	    decision_eq(d, few, 1),
	    "decide: every field zero round-trips");
	free(d);

	/* An NDSYNC question: have, no decisions. */
	m.reply = 0;
	m.have = 0x8000000000000000ull;
	m.n = 0;
	m.d = NULL;
	ft_wbuf_reset(&b);
	m2.reply = 7;
	m2.n = 7;
	T_OK(ft_msg_decide_encode(&b, 6, FT_MSG_NDSYNC, &m) == 0 &&
	    hdr_is(&b, FT_MSG_NDSYNC, 6) && b.len == FT_WIRE_HDRLEN + 16 &&
	    rep_decode(FT_MSG_DECIDE, b.p + FT_WIRE_HDRLEN, 16, &m2, 0) == 0 &&
	    m2.reply == 0 && m2.have == m.have && m2.n == 0,
	    "ndsync: a question (reply 0, have, no decisions) round-trips");
	T_EQ_UINT(rep_cuts(FT_MSG_DECIDE, b.p + FT_WIRE_HDRLEN, 16, &m2, 4),
	    0, "ndsync: every cut of the question fails with EPROTO");

	/* Arguments the encoder refuses. */
	n = FT_WIRE_BATCH_MAX;
	d = xcalloc((size_t)n + 1, sizeof(*d));
	for (i = 0; i <= n; i++) {
		d[i].index = i;
		d[i].kind = ~i;
		d[i].site = (uint64_t)i << 32;
		d[i].a = UINT64_MAX - i;
		d[i].b = (uint64_t)i * 0x9e3779b97f4a7c15ull;
		d[i].c = i & 1 ? UINT64_MAX : 0;
	}
	ft_wbuf_reset(&b);
	T_EQ_INT(enc_auth(&b), 0, "an AUTH frame first in the buffer");
	T_OK(decide_refused(&b, FT_MSG_DECIDE, 1, 0, 1, d),
	    "decide: a DECIDE with reply 1 does not encode");
	T_OK(decide_refused(&b, FT_MSG_DECIDE, 0, 1, 1, d),
	    "decide: a DECIDE with have 1 does not encode");
	T_OK(decide_refused(&b, FT_MSG_DECIDE, 0, UINT64_MAX, 1, d),
	    "decide: a DECIDE with have 2^64 - 1 does not encode");
	T_OK(decide_refused(&b, FT_MSG_NDSYNC, 2, 0, 1, d),
	    "decide: an NDSYNC with reply 2 does not encode");
	T_OK(decide_refused(&b, FT_MSG_NDSYNC, UINT32_MAX, 0, 1, d),
	    "decide: an NDSYNC with reply 2^32 - 1 does not encode");
	T_OK(decide_refused(&b, FT_MSG_DECIDE, 0, 0, n + 1, d),
	    "decide: a DECIDE of FT_WIRE_BATCH_MAX + 1 does not encode");
	T_OK(decide_refused(&b, FT_MSG_NDSYNC, 1, 0, n + 1, d),
	    "decide: an NDSYNC of FT_WIRE_BATCH_MAX + 1 does not encode");
	T_OK(decide_refused(&b, FT_MSG_COMMIT, 0, 0, 1, d),
	    "decide: type COMMIT does not encode");
	T_OK(decide_refused(&b, 0, 0, 0, 1, d),
	    "decide: type 0 does not encode");
	T_OK(decide_refused(&b, FT_MSG_DECIDE | 0x100, 0, 0, 1, d),
	    "decide: type DECIDE + 256 does not encode");
	T_OK(b.len == FT_WIRE_HDRLEN + FT_WIRE_MAC &&
	    chk_auth(b.p + FT_WIRE_HDRLEN, FT_WIRE_MAC) == 0,
	    "decide: the refusals left the AUTH frame alone");

	/* A full batch round-trips as NDSYNC; one more never decodes. */
	d2 = xcalloc(n, sizeof(*d2));
	m.reply = 1;
	m.have = (uint64_t)n + 7;
	m.n = n;
	m.d = d;
	m2.d = d2;
	ft_wbuf_reset(&b);
	T_OK(ft_msg_decide_encode(&b, 8, FT_MSG_NDSYNC, &m) == 0 &&
	    hdr_is(&b, FT_MSG_NDSYNC, 8) &&
	    b.len == FT_WIRE_HDRLEN + 16 + (size_t)n * 48 &&
	    rep_decode(FT_MSG_DECIDE, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &m2, n) == 0 && m2.reply == 1 &&
	    m2.have == m.have && m2.n == n && decision_eq(d, d2, n),
	    "ndsync: FT_WIRE_BATCH_MAX decisions round-trip");
	free(d2);
	ft_wbuf_reset(&b);
	ft_put32(&b, 1);
	ft_put64(&b, 0);
	ft_put32(&b, n + 1);
	for (i = 0; i <= n; i++) {
		ft_put64(&b, d[i].index);
		ft_put32(&b, d[i].kind);
		ft_put32(&b, 0);
		ft_put64(&b, d[i].site);
		ft_put64(&b, d[i].a);
		ft_put64(&b, d[i].b);
		ft_put64(&b, d[i].c);
	}
	d2 = xcalloc((size_t)n + 1, sizeof(*d2));
	m2.d = d2;
	T_FAILS(rep_decode(FT_MSG_DECIDE, b.p, b.len, &m2, n + 1), EPROTO,
	    "decide: FT_WIRE_BATCH_MAX + 1 decisions fail, even with room");
	free(d2);
	free(d);

	/* Malformed bodies, from the two-decision DECIDE sample. */
	ft_wbuf_reset(&b);
	T_EQ_INT(enc_decide(&b), 0, "decide encodes");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	m2.d = few;
	bad = 0;
	for (k = 0; k < 8; k++) {
		/* Byte k % 4 of the pad word of decision k / 4. */
		uint8_t *pad = body + 16 + (k / 4) * 48 + 12 + k % 4;

		*pad = k % 2 ? 0x80 : 0x01;
		if (rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4) != -1 ||
		    errno != EPROTO)
			bad++;
		*pad = 0;
	}
	T_EQ_UINT(bad, 0, "decide: a nonzero byte in either decision's pad "
	    "word fails with EPROTO");
	ft_be32(body, 2);
	T_FAILS(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4), EPROTO,
	    "decide: reply 2 fails");
	ft_be32(body, 0x100);
	T_FAILS(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4), EPROTO,
	    "decide: reply 256 fails");
	ft_be32(body, UINT32_MAX);
	T_FAILS(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4), EPROTO,
	    "decide: reply 2^32 - 1 fails");
	ft_be32(body, 1);
	T_EQ_INT(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4), 0,
	    "decide: reply 1 (an NDSYNC answer) decodes");
	ft_be32(body, 0);
	d = xcalloc(1, sizeof(*d));
	m2.d = d;
	T_FAILS(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 1), EPROTO,
	    "decide: two decisions with room for one fail");
	free(d);
	m2.d = few;
	ft_be32(body + 12, 1);
	T_FAILS(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4), EPROTO,
	    "decide: a count of 1 over 2 decisions fails");
	ft_be32(body + 12, 3);
	T_FAILS(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4), EPROTO,
	    "decide: a count of 3 over 2 decisions fails");
	ft_be32(body + 12, UINT32_MAX);
	T_FAILS(rep_decode(FT_MSG_DECIDE, body, blen, &m2, UINT32_MAX),
	    EPROTO, "decide: a count of 2^32 - 1 fails");
	ft_be32(body + 12, 2);
	T_EQ_INT(rep_decode(FT_MSG_DECIDE, body, blen, &m2, 4), 0,
	    "decide: the count restored, it decodes");
	for (k = 0; k < 48; k++)
		ft_put8(&b, 0);
	T_FAILS(rep_decode(FT_MSG_DECIDE, b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &m2, 4), EPROTO,
	    "decide: an uncounted decision after the list fails");
	ft_wbuf_release(&b);
}

/*
 * The frames of dynamic processes: the bounds their encoders refuse and
 * their decoders check against the body before allocating.
 */
static void
test_dynamic(void)
{
	struct ft_msg_spawn sp = s_spawn;
	struct ft_spawn_cmd cmd = s_cmds[0];
	struct ft_msg_reply rp = s_reply;
	struct ft_msg_procs pr = s_procs;
	struct ft_msg_port po = s_port, pm;
	struct ft_msg_reply rm;
	struct ft_wbuf b;
	uint32_t bigcode[1] = { FT_REPLY_ERR_MAX + 1 };
	uint8_t *body;
	size_t blen;

	ft_wbuf_init(&b);
	sp.ncmds = 0;
	T_FAILS(ft_msg_spawn_encode(&b, SENDER, &sp), EINVAL,
	    "spawn: no command is refused");
	sp.ncmds = FT_SPAWN_CMDS_MAX + 1;
	T_FAILS(ft_msg_spawn_encode(&b, SENDER, &sp), EINVAL,
	    "spawn: FT_SPAWN_CMDS_MAX + 1 commands are refused");
	sp = s_spawn;
	sp.nparents = 0;
	T_FAILS(ft_msg_spawn_encode(&b, SENDER, &sp), EINVAL,
	    "spawn: no parent is refused");
	sp = s_spawn;
	sp.ncmds = 1;
	sp.cmds = &cmd;
	cmd.maxprocs = 0;
	T_FAILS(ft_msg_spawn_encode(&b, SENDER, &sp), EINVAL,
	    "spawn: maxprocs 0 is refused");
	cmd = s_cmds[0];
	cmd.command = "";
	T_FAILS(ft_msg_spawn_encode(&b, SENDER, &sp), EINVAL,
	    "spawn: an empty command is refused");
	cmd = s_cmds[0];
	cmd.keys = (char *[]){ "", "path" };
	T_FAILS(ft_msg_spawn_encode(&b, SENDER, &sp), EINVAL,
	    "spawn: an empty info key is refused");
	T_OK(b.len == 0, "spawn: refusals leave the buffer empty");

	/* A count larger than the body fails before allocating. */
	sp = s_spawn;
	T_OK(ft_msg_spawn_encode(&b, SENDER, &sp) == 0, "spawn: encodes");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	ft_be32(body + 4, UINT32_MAX);
	T_FAILS(chk_spawn(body, blen), EPROTO,
	    "spawn: a parent count of 2^32 - 1 fails");
	ft_be32(body + 4, 3);
	ft_be32(body + 20, 0);
	T_FAILS(chk_spawn(body, blen), EPROTO,
	    "spawn: a command count of 0 fails");
	ft_be32(body + 20, FT_SPAWN_CMDS_MAX + 1);
	T_FAILS(chk_spawn(body, blen), EPROTO,
	    "spawn: FT_SPAWN_CMDS_MAX + 1 commands fail");
	ft_be32(body + 20, 2);
	ft_be32(body + 24, 0);
	T_FAILS(chk_spawn(body, blen), EPROTO,
	    "spawn: maxprocs 0 fails");
	ft_be32(body + 24, 3);
	T_OK(chk_spawn(body, blen) == 0, "spawn: restored, it decodes");
	ft_wbuf_release(&b);

	rp.err = FT_REPLY_ERR_MAX + 1;
	T_FAILS(ft_msg_reply_encode(&b, SENDER, &rp), EINVAL,
	    "reply: an unknown error is refused");
	rp = s_reply;
	rp.ncodes = 1;
	rp.codes = bigcode;
	T_FAILS(ft_msg_reply_encode(&b, SENDER, &rp), EINVAL,
	    "reply: an unknown per-process code is refused");
	T_OK(ft_msg_reply_encode(&b, SENDER, &s_reply) == 0,
	    "reply: encodes");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	ft_be32(body + 4, FT_REPLY_ERR_MAX + 1);
	T_FAILS(ft_msg_reply_decode(body, blen, &rm), EPROTO,
	    "reply: an unknown error fails");
	ft_be32(body + 4, s_reply.err);
	/* The last code, the last word of the body. */
	ft_be32(body + blen - 4, FT_REPLY_ERR_MAX + 1);
	T_FAILS(ft_msg_reply_decode(body, blen, &rm), EPROTO,
	    "reply: an unknown per-process code fails");
	T_OK(rm.ids == NULL && rm.codes == NULL,
	    "reply: a failed decode leaves nothing allocated");
	ft_be32(body + blen - 4, FT_REPLY_ERR_MAX);
	T_OK(chk_reply(body, blen) == 0, "reply: restored, it decodes");
	ft_wbuf_release(&b);

	pr.first = FT_WIRE_MAX_RANKS - 2;
	T_FAILS(ft_msg_procs_encode(&b, SENDER, &pr), EINVAL,
	    "procs: ids past FT_WIRE_MAX_RANKS are refused");
	pr = s_procs;
	pr.t.n = 0;
	T_FAILS(ft_msg_procs_encode(&b, SENDER, &pr), EINVAL,
	    "procs: an empty list is refused");
	T_OK(ft_msg_procs_encode(&b, SENDER, &s_procs) == 0, "procs: encodes");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	ft_be32(body, FT_WIRE_MAX_RANKS - 2);
	T_FAILS(chk_procs(body, blen), EPROTO,
	    "procs: a first id leaving no room for 3 fails");
	ft_be32(body, FT_WIRE_MAX_RANKS - 3);
	T_OK(chk_procs(body, blen) == 1,
	    "procs: the last 3 ids decode (and differ from the sample)");
	ft_wbuf_release(&b);

	po.op = 0;
	T_FAILS(ft_msg_port_encode(&b, SENDER, &po), EINVAL,
	    "port: op 0 is refused");
	po.op = FT_PORT_OP_MAX + 1;
	T_FAILS(ft_msg_port_encode(&b, SENDER, &po), EINVAL,
	    "port: an unknown op is refused");
	T_OK(ft_msg_port_encode(&b, SENDER, &s_port) == 0, "port: encodes");
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	ft_be32(body, FT_PORT_OP_MAX + 1);
	T_FAILS(ft_msg_port_decode(body, blen, &pm), EPROTO,
	    "port: an unknown op fails");
	ft_be32(body, s_port.op);
	ft_be32(body + blen - 16, 4);
	T_FAILS(ft_msg_port_decode(body, blen, &pm), EPROTO,
	    "port: a count of 4 over 3 ids fails");
	ft_be32(body + blen - 16, 3);
	T_OK(chk_port(body, blen) == 0, "port: restored, it decodes");
	ft_wbuf_release(&b);
}

/* DIGEST: counts bounded by the cap and the body, before use. */
static void
test_vlog_digest(void)
{
	struct ft_vlog_digest d[4];
	struct ft_msg_vlog_digest m = { 3, (struct ft_vlog_digest *)s_dig };
	struct ft_wbuf b;
	uint8_t zero[4] = { 0, 0, 0, 0 }, big[4] = { 0xff, 0xff, 0xff, 0xff };

	ft_wbuf_init(&b);
	T_OK(ft_msg_vlog_digest_encode(&b, SENDER, &m) == 0, "DIGEST: encodes");
	m.d = d;
	errno = 0;
	T_OK(ft_msg_vlog_digest_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &m, 2) == -1 && errno == EPROTO &&
	    m.n == 0, "DIGEST: more entries than the cap is EPROTO");
	errno = 0;
	T_OK(ft_msg_vlog_digest_decode(zero, 4, &m, 4) == -1 &&
	    errno == EPROTO, "DIGEST: no entry is EPROTO");
	errno = 0;
	T_OK(ft_msg_vlog_digest_decode(big, 4, &m, 4) == -1 &&
	    errno == EPROTO, "DIGEST: a count the body cannot hold is EPROTO");
	m.n = 0;
	errno = 0;
	T_OK(ft_msg_vlog_digest_encode(&b, SENDER, &m) == -1 &&
	    errno == EINVAL, "DIGEST: encoding no entry is EINVAL");
	errno = 0;
	T_OK(ft_msg_vlog_seq_encode(&b, SENDER, FT_MSG_VIEW,
	    &(struct ft_msg_vlog_seq){ 0, 0 }) == -1 && errno == EINVAL,
	    "VLOG_RESTART/RESUME: another type is EINVAL");
	ft_wbuf_release(&b);
}

/* EAGER and RTS with the sender's clock (vlog, issue 13). */
static void
test_clock(void)
{
	uint8_t pre[FT_WIRE_HDRLEN + FT_EAGER_FIXED + FT_EAGER_CLOCK];
	struct ft_msg_eager e = { 3, 1, 7, 42, 0x0102030405060708ull }, e2;
	struct ft_msg_rts rts = { 3, 1, 7, 42, 1 << 20, 99, 12345 }, r2;
	struct ft_hdr h;
	struct ft_wbuf b;
	size_t n, bad;

	T_EQ_UINT(ft_msg_eager_fixed(&e), FT_EAGER_FIXED + FT_EAGER_CLOCK,
	    "eager: the clock takes 8 bytes");
	T_OK(ft_msg_eager_cprefix(pre, SENDER, &e, 100) == 0 &&
	    ft_hdr_decode(pre, &h) == 0 && h.flags == FT_FLAG_CLOCK &&
	    h.len == sizeof(pre) + 100, "eager: a clock sets FT_FLAG_CLOCK");
	T_OK(ft_msg_eager_cdecode(pre + FT_WIRE_HDRLEN, sizeof(pre) -
	    FT_WIRE_HDRLEN, h.flags, &e2) == 0 && e2.clock == e.clock &&
	    e2.seq == e.seq && e2.tag == e.tag && e2.ctx == e.ctx &&
	    e2.src == e.src, "eager: the clock round-trips");
	for (bad = 0, n = 0; n < FT_EAGER_FIXED + FT_EAGER_CLOCK; n++) {
		errno = 0;
		if (ft_msg_eager_cdecode(pre + FT_WIRE_HDRLEN, n,
		    FT_FLAG_CLOCK, &e2) != -1 || errno != EPROTO)
			bad++;
	}
	T_OK(bad == 0, "eager: a clock cut anywhere fails");
	T_OK(ft_msg_eager_cdecode(pre + FT_WIRE_HDRLEN, FT_EAGER_FIXED, 0,
	    &e2) == 0 && e2.clock == 0,
	    "eager: without the flag, no clock is read");
	memset(pre + FT_WIRE_HDRLEN + FT_EAGER_FIXED, 0, FT_EAGER_CLOCK);
	T_FAILS(ft_msg_eager_cdecode(pre + FT_WIRE_HDRLEN, sizeof(pre) -
	    FT_WIRE_HDRLEN, FT_FLAG_CLOCK, &e2), EPROTO,
	    "eager: a clock of 0 with the flag fails");
	e.clock = 0;
	T_OK(ft_msg_eager_cprefix(pre, SENDER, &e, 0) == 0 &&
	    ft_hdr_decode(pre, &h) == 0 && h.flags == 0 &&
	    h.len == FT_WIRE_HDRLEN + FT_EAGER_FIXED,
	    "eager: no clock, the frame of old");

	ft_wbuf_init(&b);
	T_OK(ft_msg_rts_encode(&b, SENDER, 0, &rts) == 0 &&
	    b.len == FT_WIRE_HDRLEN + 44, "rts: a clock adds 8 bytes");
	T_OK(ft_msg_rts_decode(b.p + FT_WIRE_HDRLEN, b.len - FT_WIRE_HDRLEN,
	    &r2) == 0 && r2.clock == 12345 && r2.sreq == 99 &&
	    r2.size == 1 << 20, "rts: the clock round-trips");
	T_OK(ft_msg_rts_decode(b.p + FT_WIRE_HDRLEN, 36, &r2) == 0 &&
	    r2.clock == 0, "rts: the 36 bytes of old have no clock");
	for (bad = 0, n = 37; n < 44; n++) {
		errno = 0;
		if (ft_msg_rts_decode(b.p + FT_WIRE_HDRLEN, n, &r2) != -1 ||
		    errno != EPROTO)
			bad++;
	}
	T_OK(bad == 0, "rts: 37 to 43 bytes fail");
	memset(b.p + FT_WIRE_HDRLEN + 36, 0, 8);
	T_FAILS(ft_msg_rts_decode(b.p + FT_WIRE_HDRLEN, 44, &r2), EPROTO,
	    "rts: a trailing clock of 0 fails (it is left out)");
	ft_wbuf_release(&b);
}

/* The coordinated checkpoint's MARKER (--ft coord). */
static void
test_marker(void)
{
	struct ft_msg_marker m = { 7, 12345 }, d;
	struct ft_wbuf b;
	struct ft_hdr h;
	uint8_t zero[16] = { 0 };

	ft_wbuf_init(&b);
	T_OK(ft_msg_marker_encode(&b, SENDER, &m) == 0 &&
	    ft_hdr_decode(b.p, &h) == 0 && h.type == FT_MSG_COORD_MARKER &&
	    h.len == FT_WIRE_HDRLEN + 16 && h.sender == SENDER,
	    "MARKER: encoded with its header");
	T_OK(ft_msg_marker_decode(b.p + FT_WIRE_HDRLEN, 16, &d) == 0 &&
	    d.epoch == 7 && d.count == 12345, "MARKER: round trip");
	errno = 0;
	T_OK(ft_msg_marker_decode(b.p + FT_WIRE_HDRLEN, 15, &d) == -1 &&
	    errno == EPROTO, "MARKER: a short body is EPROTO");
	errno = 0;
	T_OK(ft_msg_marker_decode(zero, 16, &d) == -1 && errno == EPROTO,
	    "MARKER: epoch 0 is EPROTO");
	errno = 0;
	T_OK(ft_msg_marker_decode(zero, 17, &d) == -1 && errno == EPROTO,
	    "MARKER: a byte too many is EPROTO");
	m.epoch = 0;
	errno = 0;
	T_OK(ft_msg_marker_encode(&b, SENDER, &m) == -1 && errno == EINVAL,
	    "MARKER: encoding epoch 0 is EINVAL");
	T_EQ_STR(ft_msg_name(FT_MSG_COORD_MARKER), "COORD_MARKER",
	    "MARKER: its name");
	ft_wbuf_reset(&b);
	T_OK(ft_msg_complete_encode(&b, FT_WIRE_LAUNCHER, 9) == 0 &&
	    ft_hdr_decode(b.p, &h) == 0 && h.type == FT_MSG_COORD_COMPLETE &&
	    h.len == FT_WIRE_HDRLEN + 8 && ft_msg_complete_decode(b.p +
	    FT_WIRE_HDRLEN, 8, &d.epoch) == 0 && d.epoch == 9,
	    "COMPLETE: round trip");
	errno = 0;
	T_OK(ft_msg_complete_decode(zero, 8, &d.epoch) == -1 &&
	    errno == EPROTO, "COMPLETE: epoch 0 is EPROTO");
	errno = 0;
	T_OK(ft_msg_complete_decode(b.p + FT_WIRE_HDRLEN, 7, &d.epoch) ==
	    -1 && errno == EPROTO, "COMPLETE: a short body is EPROTO");
	errno = 0;
	T_OK(ft_msg_complete_encode(&b, FT_WIRE_LAUNCHER, 0) == -1 &&
	    errno == EINVAL, "COMPLETE: encoding epoch 0 is EINVAL");
	/* coordsrv: PUSH, the epoch every rank pushes. */
	ft_wbuf_reset(&b);
	T_OK(ft_msg_push_encode(&b, FT_WIRE_LAUNCHER, 12) == 0 &&
	    ft_hdr_decode(b.p, &h) == 0 && h.type == FT_MSG_COORD_PUSH &&
	    h.len == FT_WIRE_HDRLEN + 8 && ft_msg_push_decode(b.p +
	    FT_WIRE_HDRLEN, 8, &d.epoch) == 0 && d.epoch == 12,
	    "PUSH: round trip");
	errno = 0;
	T_OK(ft_msg_push_decode(zero, 8, &d.epoch) == -1 &&
	    errno == EPROTO, "PUSH: epoch 0 is EPROTO");
	errno = 0;
	T_OK(ft_msg_push_decode(b.p + FT_WIRE_HDRLEN, 7, &d.epoch) ==
	    -1 && errno == EPROTO, "PUSH: a short body is EPROTO");
	errno = 0;
	{
		uint8_t nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };

		T_OK(ft_msg_push_decode(nine, 9, &d.epoch) == -1 &&
		    errno == EPROTO, "PUSH: a byte too many is EPROTO");
	}
	errno = 0;
	T_OK(ft_msg_push_encode(&b, FT_WIRE_LAUNCHER, 0) == -1 &&
	    errno == EINVAL, "PUSH: encoding epoch 0 is EINVAL");
	T_EQ_STR(ft_msg_name(FT_MSG_COORD_PUSH), "COORD_PUSH",
	    "PUSH: its name");
	{
		struct ft_msg_due u = { 4, FT_DUE_OFF }, v;

		ft_wbuf_reset(&b);
		T_OK(ft_msg_due_encode(&b, FT_WIRE_LAUNCHER, &u) == 0 &&
		    ft_hdr_decode(b.p, &h) == 0 && h.type == FT_MSG_COORD_DUE &&
		    ft_msg_due_decode(b.p + FT_WIRE_HDRLEN, 16, &v) == 0 &&
		    v.epoch == 4 && v.call == FT_DUE_OFF, "DUE: round trip");
		errno = 0;
		T_OK(ft_msg_due_decode(zero, 16, &v) == -1 && errno == EPROTO,
		    "DUE: epoch 0 is EPROTO");
		errno = 0;
		T_OK(ft_msg_due_decode(b.p + FT_WIRE_HDRLEN, 12, &v) == -1 &&
		    errno == EPROTO, "DUE: a short body is EPROTO");
		u.epoch = 0;
		errno = 0;
		T_OK(ft_msg_due_encode(&b, FT_WIRE_LAUNCHER, &u) == -1 &&
		    errno == EINVAL, "DUE: encoding epoch 0 is EINVAL");
	}
	ft_wbuf_release(&b);
}

/* FTMPI_JOIN: context ids that are not pairs, or one pair twice. */
/*
 * AGREE and IAGREE are told apart by type only: each decoder refuses
 * the other's body (one word more or less), and AGREE's decoder says
 * its frame is no IAGREE, with the second flag all ones.
 */
static void
test_iagree(void)
{
	struct ft_msg_agree m = { FT_AGREE_UP, 40, 9, 2, 10, 11,
	    { 0xfffffffe, 66, s_bm1, s_bm2, 5 }, s_bm2, s_bm1, 0 }, d;
	struct ft_wbuf b;

	ft_wbuf_init(&b);
	T_OK(ft_msg_agree_encode(&b, SENDER, &m) == 0 &&
	    b.p[3] == FT_MSG_ULFM_AGREE, "AGREE: inter 0 encodes an AGREE");
	T_OK(ft_msg_agree_decode(b.p + FT_WIRE_HDRLEN, b.len - FT_WIRE_HDRLEN,
	    &d) == 0 && !d.inter && d.v.flag2 == UINT32_MAX,
	    "AGREE: decoded, no IAGREE, the second flag all ones");
	errno = 0;
	T_OK(ft_msg_iagree_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &d) == -1 && errno == EPROTO,
	    "IAGREE: an AGREE's body is EPROTO");
	ft_wbuf_release(&b);
	ft_wbuf_init(&b);
	m.inter = 1;
	T_OK(ft_msg_agree_encode(&b, SENDER, &m) == 0 &&
	    b.p[3] == FT_MSG_ULFM_IAGREE &&
	    b.len == FT_WIRE_HDRLEN + 36 + 4 * 2,
	    "IAGREE: inter 1 encodes an IAGREE of 36 bytes and 4 bitmaps");
	T_OK(ft_msg_iagree_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &d) == 0 && d.inter && d.v.flag2 == 5 &&
	    d.v.flag == 0xfffffffe, "IAGREE: both flags back");
	errno = 0;
	T_OK(ft_msg_agree_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &d) == -1 && errno == EPROTO,
	    "AGREE: an IAGREE's body is EPROTO");
	ft_wbuf_release(&b);
}

static void
test_ftmpi_join(void)
{
	static const uint8_t odd[16] = { 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0,
	    0, 0, 0, 0 }, same[16] = { 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 0,
	    0, 0, 0, 0 }, many[20] = { 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 0,
	    0, 0, 0, 2, 0, 0, 0, 1 };
	struct ft_msg_ftmpi_join m = { 4, 5, 0, 0, NULL, NULL, 0, NULL, NULL };
	struct ft_wbuf b;

	ft_wbuf_init(&b);
	errno = 0;
	T_OK(ft_msg_ftmpi_join_encode(&b, SENDER, &m) == -1 &&
	    errno == EINVAL, "FTMPI_JOIN: an odd context is EINVAL");
	m.dctx = 4;
	errno = 0;
	T_OK(ft_msg_ftmpi_join_encode(&b, SENDER, &m) == -1 &&
	    errno == EINVAL, "FTMPI_JOIN: one context twice is EINVAL");
	errno = 0;
	T_OK(ft_msg_ftmpi_join_decode(odd, sizeof(odd), &m) == -1 &&
	    errno == EPROTO, "FTMPI_JOIN: decoding an odd context is EPROTO");
	errno = 0;
	T_OK(ft_msg_ftmpi_join_decode(same, sizeof(same), &m) == -1 &&
	    errno == EPROTO, "FTMPI_JOIN: decoding one context twice is "
	    "EPROTO");
	errno = 0;
	T_OK(ft_msg_ftmpi_join_decode(many, sizeof(many), &m) == -1 &&
	    errno == EPROTO, "FTMPI_JOIN: more ids than the body holds is "
	    "EPROTO");
	m.wctx = 2;
	m.dctx = 4;
	m.n = FT_WIRE_MAX_RANKS + 1;
	errno = 0;
	T_OK(ft_msg_ftmpi_join_encode(&b, SENDER, &m) == -1 &&
	    errno == EINVAL, "FTMPI_JOIN: too many ids is EINVAL");
	ft_wbuf_release(&b);
}

/*
 * FTMPI_JOIN's trailing list of processes (REBUILD's ledger): a round
 * trip; a body cut anywhere fails, except at the end of the failed ids,
 * which is a JOIN without the list; a list of none, or of a length the
 * body does not hold, is refused.
 */
static void
test_ftmpi_join_members(void)
{
	static const uint32_t failed[2] = { 5, 9 };
	static const uint32_t mem[3 * FT_JOIN_MEMBER_WORDS] = { 0, 0, 0, 100,
	    2, 2, 0, 0x7fffffffu, 1, 0, 3, 102 };
	struct ft_msg_ftmpi_join m = { 2, 4, 9, 2, failed, NULL, 3, mem,
	    NULL }, d;
	struct ft_join_member jm;
	struct ft_wbuf b;
	const uint8_t *body;
	size_t blen, cut, base, bad = 0;
	uint8_t *p;
	int ok;

	ft_wbuf_init(&b);
	if (!T_OK(ft_msg_ftmpi_join_encode(&b, SENDER, &m) == 0,
	    "FTMPI_JOIN with members: encodes")) {
		ft_wbuf_release(&b);
		return;
	}
	body = b.p + FT_WIRE_HDRLEN;
	blen = b.len - FT_WIRE_HDRLEN;
	base = 16 + 2 * 4;
	T_OK(blen == base + 4 + 3 * FT_JOIN_MEMBER_WORDS * 4,
	    "FTMPI_JOIN with members: 16 + 4 n + 4 + 16 nm bytes");
	ok = ft_msg_ftmpi_join_decode(body, blen, &d) == 0 && d.n == 2 &&
	    d.nm == 3 && ft_msg_ftmpi_join_failed(&d, 1) == 9;
	if (ok) {
		ft_msg_ftmpi_join_member(&d, 1, &jm);
		ok = jm.inc == 2 && jm.covered == 2 && jm.node == 0 &&
		    jm.pid == 0x7fffffffu;
		ft_msg_ftmpi_join_member(&d, 2, &jm);
		ok = ok && jm.inc == 1 && jm.covered == 0 && jm.node == 3 &&
		    jm.pid == 102;
	}
	T_OK(ok, "FTMPI_JOIN with members: round trip");
	for (cut = 0; cut < blen; cut++) {
		errno = 0;
		if (cut == base) {
			if (ft_msg_ftmpi_join_decode(body, cut, &d) != 0 ||
			    d.nm != 0 || d.n != 2)
				bad++;
		} else if (ft_msg_ftmpi_join_decode(body, cut, &d) != -1 ||
		    errno != EPROTO)
			bad++;
	}
	T_OK(bad == 0, "FTMPI_JOIN with members: every cut fails with "
	    "EPROTO but the one at the end of the failed ids (%zu bad)", bad);
	if ((p = malloc(blen + 4)) == NULL)
		abort();
	memcpy(p, body, blen);
	memset(p + blen, 0, 4);
	errno = 0;
	T_OK(ft_msg_ftmpi_join_decode(p, blen + 4, &d) == -1 &&
	    errno == EPROTO, "FTMPI_JOIN with members: 4 bytes more is "
	    "EPROTO");
	ft_be32(p + base, 0);
	errno = 0;
	T_OK(ft_msg_ftmpi_join_decode(p, base + 4, &d) == -1 &&
	    errno == EPROTO, "FTMPI_JOIN: a list of no members is EPROTO");
	ft_be32(p + base, FT_WIRE_MAX_RANKS + 1);
	errno = 0;
	T_OK(ft_msg_ftmpi_join_decode(p, blen, &d) == -1 &&
	    errno == EPROTO, "FTMPI_JOIN: more members than allowed is "
	    "EPROTO");
	free(p);
	m.nm = FT_WIRE_MAX_RANKS + 1;
	errno = 0;
	T_OK(ft_msg_ftmpi_join_encode(&b, SENDER, &m) == -1 &&
	    errno == EINVAL, "FTMPI_JOIN: encoding too many members is "
	    "EINVAL");
	ft_wbuf_release(&b);
}

int
main(void)
{
	size_t i;

	samples_init();
	for (i = 0; i < FT_NELEM(codecs); i++)
		test_codec(&codecs[i]);
	test_header();
	test_table();
	test_strings();
	test_fields();
	test_view();
	test_note();
	test_commit();
	test_decide();
	test_dynamic();
	test_vlog_digest();
	test_clock();
	test_marker();
	test_ftmpi_join();
	test_ftmpi_join_members();
	test_iagree();
	return t_done();
}
