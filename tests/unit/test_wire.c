/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the wire layer.  For every message type: an encode and
 * decode round trip, a decode of the body cut at every offset (each cut
 * copied into a buffer of exactly that size, so that ASan sees any read
 * past it), and a trailing byte.  Then the header checks, the table's
 * count bounds, string fields at their limits, and the data frames'
 * size limit.
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
	{ "GOSSIP", FT_MSG_GOSSIP, 0, 0, enc_gossip, chk_gossip },
	{ "PING", FT_MSG_PING, 0, 0, enc_ping, chk_ping },
	{ "PONG", FT_MSG_PONG, 0, 0, enc_pong, chk_ping },
	{ "MEMBER", FT_MSG_MEMBER, 0, 0, enc_member, chk_member },
	{ "EAGER", FT_MSG_EAGER, 0, FT_EAGER_FIXED, enc_eager, chk_eager },
	{ "RDATA", FT_MSG_RDATA, 0, FT_RDATA_FIXED, enc_rdata, chk_rdata },
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

	/* A credit of nothing is never sent: refuse it. */
	{
		struct ft_msg_credit cr;

		ft_wbuf_reset(&b);
		T_EQ_INT(enc_credit(&b), 0, "credit encodes");
		memset(b.p + FT_WIRE_HDRLEN, 0, 8);
		T_FAILS(ft_msg_credit_decode(b.p + FT_WIRE_HDRLEN,
		    b.len - FT_WIRE_HDRLEN, &cr), EPROTO,
		    "credit: 0 bytes fails");
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
	return t_done();
}
