/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the peer layer: ftboot's frames (round trip, a cut at
 * every offset, a trailing byte, field checks), the cluster key file,
 * the peer cache, configuration, hostfile and host list parsers, the
 * allow and deny lists, the gatekeeper under a clock the test moves,
 * and placement (spread, concentrate, replicas kept apart, fewer hosts
 * than replicas), with a randomised check of its invariants.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "peer/peer.h"
#include "tap.h"

#define SENDER	0x01020304u

/* ---- frames ---- */

typedef int (*enc_fn)(struct ft_wbuf *, const void *);
typedef int (*dec_fn)(const uint8_t *, size_t, void *);
typedef int (*eq_fn)(const void *, const void *);
typedef void (*free_fn)(void *);

struct codec {
	const char	*name;
	unsigned int	 type;
	const void	*sample;
	size_t		 size;
	enc_fn		 enc;
	dec_fn		 dec;
	eq_fn		 eq;
	free_fn		 fr;
};

static struct ft_msg_boot_register s_reg = { "tcp:10.0.0.1:7707", "node-1",
    0xfffffu, 3, 30000 };
static struct ft_boot_peer s_peers[2] = {
	{ "tcp:10.0.0.2:7707", "node-2", 4, 1, UINT64_MAX },
	{ "tcp:[::1]:1", "h", 1, 1024, 0 },
};
static struct ft_msg_boot_peers s_peerlist = { 2, s_peers };
static struct ft_msg_boot_reserve s_reserve = { 64 };
static struct ft_msg_boot_reserved s_reserved = { FT_BOOT_OK, 8,
    60000, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0xff },
    "node-3", "" };
static struct ft_msg_boot_reserved s_refused = { FT_BOOT_BUSY, 0, 0, { 0 },
    "node-3", "busy: 1 of J=1 jobs running" };
static struct ft_msg_boot_cancel s_cancel = { { 0xff, 0, 0x80, 1, 2, 3, 4, 5,
    6, 7, 8, 9, 10, 11, 12, 13 } };
static struct ft_msg_boot_alloc s_alloc = { 64, 2, 1 };
static struct ft_boot_grant s_grant[2] = {
	{ "tcp:10.0.0.2:7707", "node-2", 3, 250, { 9 } },
	{ "tcp:10.0.0.3:7707", "node-3", 1, 0, { 0xfe, 1 } },
};
static struct ft_msg_boot_grants s_grants = { FT_BOOT_OK, "", 2, s_grant };
static struct ft_msg_boot_grants s_short = { FT_BOOT_SHORT,
    "asked for 64 slots, found 40 on 5 peers", 0, NULL };
static struct ft_msg_boot_state s_state = { "tcp:127.0.0.1:7707", "me", 4, 2,
    1, 1, 17, UINT64_MAX };

#define ENC(fn, T) static int e_##fn(struct ft_wbuf *b, const void *m) \
	{ return ft_msg_boot_##fn##_encode(b, SENDER, (const T *)m); } \
	static int d_##fn(const uint8_t *p, size_t n, void *m) \
	{ return ft_msg_boot_##fn##_decode(p, n, (T *)m); }
ENC(register, struct ft_msg_boot_register)
ENC(peers, struct ft_msg_boot_peers)
ENC(reserve, struct ft_msg_boot_reserve)
ENC(reserved, struct ft_msg_boot_reserved)
ENC(cancel, struct ft_msg_boot_cancel)
ENC(alloc, struct ft_msg_boot_alloc)
ENC(grants, struct ft_msg_boot_grants)
ENC(state, struct ft_msg_boot_state)

static int
eq_reg(const void *a, const void *b)
{
	const struct ft_msg_boot_register *x = a, *y = b;

	return strcmp(x->addr, y->addr) == 0 && strcmp(x->host, y->host) == 0 &&
	    x->slots == y->slots && x->jobs == y->jobs &&
	    x->refresh_ms == y->refresh_ms;
}

static int
eq_peers(const void *a, const void *b)
{
	const struct ft_msg_boot_peers *x = a, *y = b;
	uint32_t i;

	if (x->n != y->n)
		return 0;
	for (i = 0; i < x->n; i++)
		if (strcmp(x->p[i].addr, y->p[i].addr) != 0 ||
		    strcmp(x->p[i].host, y->p[i].host) != 0 ||
		    x->p[i].slots != y->p[i].slots ||
		    x->p[i].jobs != y->p[i].jobs ||
		    x->p[i].age_ms != y->p[i].age_ms)
			return 0;
	return 1;
}

static int
eq_reserve(const void *a, const void *b)
{
	return ((const struct ft_msg_boot_reserve *)a)->want ==
	    ((const struct ft_msg_boot_reserve *)b)->want;
}

static int
eq_reserved(const void *a, const void *b)
{
	const struct ft_msg_boot_reserved *x = a, *y = b;

	return x->status == y->status && x->slots == y->slots &&
	    x->ttl_ms == y->ttl_ms && memcmp(x->token, y->token, 16) == 0 &&
	    strcmp(x->host, y->host) == 0 && strcmp(x->reason, y->reason) == 0;
}

static int
eq_cancel(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct ft_msg_boot_cancel)) == 0;
}

static int
eq_alloc(const void *a, const void *b)
{
	const struct ft_msg_boot_alloc *x = a, *y = b;

	return x->nranks == y->nranks && x->nrep == y->nrep &&
	    x->mode == y->mode;
}

static int
eq_grants(const void *a, const void *b)
{
	const struct ft_msg_boot_grants *x = a, *y = b;
	uint32_t i;

	if (x->status != y->status || strcmp(x->why, y->why) != 0 ||
	    x->n != y->n)
		return 0;
	for (i = 0; i < x->n; i++)
		if (strcmp(x->g[i].addr, y->g[i].addr) != 0 ||
		    strcmp(x->g[i].host, y->g[i].host) != 0 ||
		    x->g[i].slots != y->g[i].slots ||
		    x->g[i].rtt_us != y->g[i].rtt_us ||
		    memcmp(x->g[i].token, y->g[i].token, 16) != 0)
			return 0;
	return 1;
}

static int
eq_state(const void *a, const void *b)
{
	const struct ft_msg_boot_state *x = a, *y = b;

	return strcmp(x->addr, y->addr) == 0 && strcmp(x->host, y->host) == 0 &&
	    x->slots == y->slots && x->jobs == y->jobs &&
	    x->reserved == y->reserved && x->running == y->running &&
	    x->peers == y->peers && x->uptime_ms == y->uptime_ms;
}

static void
fr_peers(void *m)
{
	ft_msg_boot_peers_free(m);
}

static void
fr_grants(void *m)
{
	ft_msg_boot_grants_free(m);
}

static const struct codec codecs[] = {
	{ "REGISTER", FT_MSG_BOOT_REGISTER, &s_reg, sizeof(s_reg), e_register,
	    d_register, eq_reg, NULL },
	{ "PEERS", FT_MSG_BOOT_PEERS, &s_peerlist, sizeof(s_peerlist),
	    e_peers, d_peers, eq_peers, fr_peers },
	{ "RESERVE", FT_MSG_BOOT_RESERVE, &s_reserve, sizeof(s_reserve),
	    e_reserve, d_reserve, eq_reserve, NULL },
	{ "RESERVED ok", FT_MSG_BOOT_RESERVED, &s_reserved, sizeof(s_reserved),
	    e_reserved, d_reserved, eq_reserved, NULL },
	{ "RESERVED refused", FT_MSG_BOOT_RESERVED, &s_refused,
	    sizeof(s_refused), e_reserved, d_reserved, eq_reserved, NULL },
	{ "CANCEL", FT_MSG_BOOT_CANCEL, &s_cancel, sizeof(s_cancel), e_cancel,
	    d_cancel, eq_cancel, NULL },
	{ "ALLOC", FT_MSG_BOOT_ALLOC, &s_alloc, sizeof(s_alloc), e_alloc,
	    d_alloc, eq_alloc, NULL },
	{ "GRANTS ok", FT_MSG_BOOT_GRANTS, &s_grants, sizeof(s_grants),
	    e_grants, d_grants, eq_grants, fr_grants },
	{ "GRANTS short", FT_MSG_BOOT_GRANTS, &s_short, sizeof(s_short),
	    e_grants, d_grants, eq_grants, fr_grants },
	{ "STATE", FT_MSG_BOOT_STATE, &s_state, sizeof(s_state), e_state,
	    d_state, eq_state, NULL },
};

static void
test_codec(const struct codec *c)
{
	struct ft_wbuf b;
	struct ft_hdr h;
	uint8_t *cut, *longer;
	size_t blen, i, bad = 0;
	void *m = calloc(1, c->size);

	ft_wbuf_init(&b);
	T_OK(c->enc(&b, c->sample) == 0, "%s: encodes", c->name);
	T_OK(ft_hdr_decode(b.p, &h) == 0 && h.type == c->type &&
	    h.len == b.len && h.sender == SENDER, "%s: header", c->name);
	blen = b.len - FT_WIRE_HDRLEN;
	T_OK(c->dec(b.p + FT_WIRE_HDRLEN, blen, m) == 0 && c->eq(m, c->sample),
	    "%s: round trip", c->name);
	if (c->fr != NULL)
		c->fr(m);
	for (i = 0; i < blen; i++) {
		cut = malloc(i > 0 ? i : 1);
		memcpy(cut, b.p + FT_WIRE_HDRLEN, i);
		errno = 0;
		if (c->dec(cut, i, m) != -1 || errno != EPROTO)
			bad++;
		free(cut);
	}
	T_EQ_UINT(bad, 0, "every cut body is refused with EPROTO");
	longer = malloc(blen + 1);
	memcpy(longer, b.p + FT_WIRE_HDRLEN, blen);
	longer[blen] = 0;
	T_FAILS(c->dec(longer, blen + 1, m), EPROTO, "a trailing byte is "
	    "refused");
	free(longer);
	free(m);
	ft_wbuf_release(&b);
}

/* Field checks the decoders make. */
static void
test_fields(void)
{
	struct ft_msg_boot_reserved rs = s_reserved;
	struct ft_msg_boot_alloc al = s_alloc;
	struct ft_msg_boot_reserve rq = { 0 };
	struct ft_msg_boot_register rg = s_reg;
	struct ft_msg_boot_grants gr = s_grants, gd;
	struct ft_wbuf b;

	ft_wbuf_init(&b);
	ft_msg_boot_reserve_encode(&b, 0, &rq);
	T_FAILS(ft_msg_boot_reserve_decode(b.p + 16, b.len - 16, &rq), EPROTO,
	    "RESERVE of 0 slots is refused");
	ft_wbuf_reset(&b);
	rs.slots = 0;
	ft_msg_boot_reserved_encode(&b, 0, &rs);
	T_FAILS(ft_msg_boot_reserved_decode(b.p + 16, b.len - 16, &rs), EPROTO,
	    "RESERVED ok with 0 slots is refused");
	ft_wbuf_reset(&b);
	rs = s_refused;
	rs.reason[0] = '\0';
	ft_msg_boot_reserved_encode(&b, 0, &rs);
	T_FAILS(ft_msg_boot_reserved_decode(b.p + 16, b.len - 16, &rs), EPROTO,
	    "a refusal without a reason is refused");
	ft_wbuf_reset(&b);
	rs = s_refused;
	rs.status = FT_BOOT_STATUS_MAX + 1;
	ft_msg_boot_reserved_encode(&b, 0, &rs);
	T_FAILS(ft_msg_boot_reserved_decode(b.p + 16, b.len - 16, &rs), EPROTO,
	    "an unknown status is refused");
	ft_wbuf_reset(&b);
	al.mode = 2;
	ft_msg_boot_alloc_encode(&b, 0, &al);
	T_FAILS(ft_msg_boot_alloc_decode(b.p + 16, b.len - 16, &al), EPROTO,
	    "ALLOC with an unknown mode is refused");
	ft_wbuf_reset(&b);
	al = s_alloc;
	al.nranks = FT_WIRE_MAX_RANKS;
	al.nrep = 2;
	ft_msg_boot_alloc_encode(&b, 0, &al);
	T_FAILS(ft_msg_boot_alloc_decode(b.p + 16, b.len - 16, &al), EPROTO,
	    "ALLOC beyond FT_WIRE_MAX_RANKS processes is refused");
	ft_wbuf_reset(&b);
	rg.addr[0] = '\0';
	ft_msg_boot_register_encode(&b, 0, &rg);
	T_FAILS(ft_msg_boot_register_decode(b.p + 16, b.len - 16, &rg), EPROTO,
	    "REGISTER without an address is refused");
	ft_wbuf_reset(&b);
	gr.status = FT_BOOT_SHORT;
	snprintf(gr.why, sizeof(gr.why), "x");
	ft_msg_boot_grants_encode(&b, 0, &gr);
	T_FAILS(ft_msg_boot_grants_decode(b.p + 16, b.len - 16, &gd), EPROTO,
	    "GRANTS that fail yet hold grants are refused");
	ft_wbuf_reset(&b);
	/* A count the body cannot hold is refused before any allocation. */
	{
		uint8_t body[8] = { 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
		struct ft_msg_boot_peers pp;

		T_FAILS(ft_msg_boot_peers_decode(body, 3, &pp), EPROTO,
		    "PEERS: a short count is refused");
		T_OK(ft_msg_boot_peers_decode(body, 4, &pp) == 0 && pp.n == 0,
		    "PEERS: an empty list decodes");
		T_FAILS(ft_msg_boot_peers_decode(body + 4, 4, &pp), EPROTO,
		    "PEERS: a huge count is refused");
	}
	ft_wbuf_release(&b);
}

/* ---- files ---- */

static char tmpdir[256];

static void
path_in(char *buf, size_t size, const char *name)
{
	if ((size_t)snprintf(buf, size, "%.200s/%s", tmpdir, name) >= size)
		abort();
}

static void
put_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void
test_key(void)
{
	uint8_t k1[FT_WIRE_KEYLEN], k2[FT_WIRE_KEYLEN];
	char path[PATH_MAX], why[FT_WIRE_TEXT_MAX];
	struct stat st;
	char *home, *xdg;

	path_in(path, sizeof(path), "cfg/ft/cluster.key");
	T_OK(ft_cluster_key_write(path, 0, why, sizeof(why)) == 0,
	    "keygen writes a key, making the directory");
	T_OK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600 &&
	    st.st_size == 65, "the key file is mode 0600, 65 bytes");
	T_OK(ft_cluster_key_load(path, k1, why, sizeof(why)) == 0,
	    "the key loads");
	T_FAILS(ft_cluster_key_write(path, 0, why, sizeof(why)), EEXIST,
	    "keygen refuses to overwrite");
	T_OK(strstr(why, "--force") != NULL, "and says --force: %s", why);
	T_OK(ft_cluster_key_write(path, 1, why, sizeof(why)) == 0 &&
	    ft_cluster_key_load(path, k2, why, sizeof(why)) == 0 &&
	    memcmp(k1, k2, sizeof(k1)) != 0, "--force writes a new key");
	chmod(path, 0640);
	T_FAILS(ft_cluster_key_load(path, k1, why, sizeof(why)), EPERM,
	    "a key readable by the group is refused");
	T_OK(strstr(why, "open to others") != NULL && strstr(why, "0640") !=
	    NULL, "naming the mode: %s", why);
	chmod(path, 0602);
	T_FAILS(ft_cluster_key_load(path, k1, why, sizeof(why)), EPERM,
	    "a key writable by others is refused");
	path_in(path, sizeof(path), "bad.key");
	put_file(path, "0123\n", 0600);
	T_FAILS(ft_cluster_key_load(path, k1, why, sizeof(why)), EINVAL,
	    "a short key is refused");
	put_file(path, "0123456789ABCDEF0123456789abcdef0123456789abcdef"
	    "0123456789abcdef\n", 0600);
	T_FAILS(ft_cluster_key_load(path, k1, why, sizeof(why)), EINVAL,
	    "upper-case hex is refused");
	put_file(path, "0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef", 0600);
	T_FAILS(ft_cluster_key_load(path, k1, why, sizeof(why)), EINVAL,
	    "a key without its newline is refused");
	path_in(path, sizeof(path), "none.key");
	T_FAILS(ft_cluster_key_load(path, k1, why, sizeof(why)), ENOENT,
	    "a missing key fails");
	T_OK(strstr(why, "ftboot keygen") != NULL, "and says how to make one");
	home = getenv("HOME");
	xdg = getenv("XDG_CONFIG_HOME");
	setenv("XDG_CONFIG_HOME", "/x/y", 1);
	T_OK(ft_cluster_key_path(path, sizeof(path)) == 0 &&
	    strcmp(path, "/x/y/ft/cluster.key") == 0,
	    "default key path under XDG_CONFIG_HOME");
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", "/h", 1);
	T_OK(ft_cluster_key_path(path, sizeof(path)) == 0 &&
	    strcmp(path, "/h/.config/ft/cluster.key") == 0,
	    "default key path under HOME");
	setenv("XDG_STATE_HOME", "/s", 1);
	T_OK(ft_boot_statedir(NULL, path, sizeof(path)) == 0 &&
	    strcmp(path, "/s/ft") == 0, "default state dir");
	unsetenv("XDG_STATE_HOME");
	T_OK(ft_boot_statedir(NULL, path, sizeof(path)) == 0 &&
	    strcmp(path, "/h/.local/state/ft") == 0,
	    "default state dir under HOME");
	if (home != NULL)
		setenv("HOME", home, 1);
	if (xdg != NULL)
		setenv("XDG_CONFIG_HOME", xdg, 1);
}

static void
test_lock(void)
{
	char dir[PATH_MAX], addr[FT_WIRE_ADDR_MAX], why[FT_WIRE_TEXT_MAX];
	pid_t holder, pid;
	int fd, fd2;

	path_in(dir, sizeof(dir), "state/a/b");
	T_EQ_INT(ft_boot_running(dir, &pid, addr, sizeof(addr)), 0,
	    "no daemon: not running");
	T_FAILS(ft_boot_local_addr(dir, addr, sizeof(addr)), ENOENT,
	    "no daemon: no local address");
	fd = ft_boot_lock(dir, &holder, why, sizeof(why));
	T_OK(fd >= 0 && ft_boot_write_pid(fd, 4242) == 0, "the lock is taken "
	    "and the pid written");
	fd2 = ft_boot_lock(dir, &holder, why, sizeof(why));
	T_OK(fd2 == -1 && errno == EWOULDBLOCK && holder == 4242,
	    "a second lock fails, naming the holder");
	/* The lock is ours, so ft_boot_running must see it from another
	 * open file description: flock locks are per description. */
	T_EQ_INT(ft_boot_running(dir, &pid, addr, sizeof(addr)), 1,
	    "locked: running");
	T_EQ_INT(pid, 4242, "with its pid");
	close(fd);
	T_EQ_INT(ft_boot_running(dir, &pid, addr, sizeof(addr)), 0,
	    "unlocked: not running");
}

static const char cache_text[] =
    "# ft-peers 1\n"
    "tcp:10.0.0.2:7707 host=b slots=4 jobs=1 rtt_us=300 seen=1700000000\n"
    "\n"
    "# a comment\n"
    "tcp:10.0.0.3:7707 host=c slots=2 jobs=2 rtt_us=0 seen=0\n"
    "tcp:[::1]:7000 host=d slots=1 jobs=1 rtt_us=120 seen=5\n";

static void
cache_bad(const char *text, const char *want, const char *desc)
{
	struct ft_peer *p;
	char why[FT_WIRE_TEXT_MAX];
	size_t n;
	int rc;

	rc = ft_peer_cache_parse(text, strlen(text), &p, &n, why, sizeof(why));
	if (!T_OK(rc == -1 && errno == EINVAL && strstr(why, want) != NULL,
	    "cache: %s", desc))
		t_diag("rc %d, why \"%s\", want \"%s\"", rc, why, want);
}

static void
test_cache(void)
{
	struct ft_peer *p, *q;
	struct ft_wbuf b;
	char why[FT_WIRE_TEXT_MAX], path[PATH_MAX];
	size_t n, m;
	int ok;

	T_OK(ft_peer_cache_parse(cache_text, strlen(cache_text), &p, &n, why,
	    sizeof(why)) == 0 && n == 3, "cache: three peers parse");
	T_OK(strcmp(p[0].host, "b") == 0 && p[0].slots == 4 &&
	    p[0].rtt_us == 300 && p[0].seen == 1700000000 &&
	    strcmp(p[2].addr, "tcp:[::1]:7000") == 0, "cache: fields");
	ft_peer_sort(p, n);
	T_OK(strcmp(p[0].host, "d") == 0 && strcmp(p[1].host, "b") == 0 &&
	    strcmp(p[2].host, "c") == 0, "cache: sorted nearest first, "
	    "unmeasured last");
	ft_wbuf_init(&b);
	T_OK(ft_peer_cache_format(&b, p, n) == 0, "cache: formats");
	ok = ft_peer_cache_parse((const char *)b.p, b.len, &q, &m, why,
	    sizeof(why)) == 0 && m == n;
	for (size_t i = 0; ok && i < n; i++)
		ok = strcmp(p[i].addr, q[i].addr) == 0 &&
		    strcmp(p[i].host, q[i].host) == 0 &&
		    p[i].slots == q[i].slots && p[i].jobs == q[i].jobs &&
		    p[i].rtt_us == q[i].rtt_us && p[i].seen == q[i].seen;
	T_OK(ok, "cache: format and parse round trip");
	free(q);
	path_in(path, sizeof(path), "peers");
	T_OK(ft_peer_cache_save(path, p, n) == 0 &&
	    ft_peer_cache_load(path, &q, &m, why, sizeof(why)) == 0 && m == n,
	    "cache: save and load");
	free(q);
	path_in(path, sizeof(path), "no-peers");
	T_OK(ft_peer_cache_load(path, &q, &m, why, sizeof(why)) == 0 &&
	    m == 0, "cache: a missing file is an empty cache");
	free(p);
	ft_wbuf_release(&b);
	T_OK(ft_peer_cache_parse("# ft-peers 1\n", 13, &p, &n, why,
	    sizeof(why)) == 0 && n == 0, "cache: no peer");
	free(p);
	cache_bad("", "line 1", "empty text has no header");
	cache_bad("# ft-peers 2\n", "unknown format or version",
	    "another version");
	cache_bad("# ft-peers 1\ntcp:a:1 host=a slots=1\n", "line 2: host, "
	    "slots and jobs", "jobs missing");
	cache_bad("# ft-peers 1\ntcp:a:1 host=a slots=1 jobs=1 color=red\n",
	    "unknown key 'color'", "an unknown key");
	cache_bad("# ft-peers 1\ntcp:a:1 host=a slots=0 jobs=1\n",
	    "slots '0' is too small", "0 slots");
	cache_bad("# ft-peers 1\ntcp:a:1 host=a slots=x jobs=1\n",
	    "slots 'x' is invalid", "slots not a number");
	cache_bad("# ft-peers 1\nudp:a:1 host=a slots=1 jobs=1\n",
	    "not tcp:HOST:PORT", "not a tcp address");
	cache_bad("# ft-peers 1\ntcp:a:99999 host=a slots=1 jobs=1\n",
	    "not tcp:HOST:PORT", "a port out of range");
	cache_bad("# ft-peers 1\ntcp:a:1 host=a slots=1 jobs=1\n"
	    "tcp:a:1 host=b slots=1 jobs=1\n", "appears twice",
	    "an address twice");
	cache_bad("# ft-peers 1\ntcp:a:1 host slots=1 jobs=1\n",
	    "not key=value", "a word without =");
	{
		char text[] = "# ft-peers 1\ntcp:a:1 host=a\0 slots=1 jobs=1\n";
		struct ft_peer *pp;

		T_OK(ft_peer_cache_parse(text, sizeof(text) - 1, &pp, &n, why,
		    sizeof(why)) == -1 && strstr(why, "NUL") != NULL,
		    "cache: a NUL byte is refused");
	}
	{
		size_t len = 8000;
		char *text = malloc(len + 20);
		struct ft_peer *pp;

		memcpy(text, "# ft-peers 1\n", 13);
		memset(text + 13, 'a', len);
		T_OK(ft_peer_cache_parse(text, len + 13, &pp, &n, why,
		    sizeof(why)) == -1 && strstr(why, "longer than") != NULL,
		    "cache: an overlong line is refused");
		free(text);
	}
}

static void
test_conf(void)
{
	static const char text[] =
	    "# ftboot.conf\n"
	    "supernode tcp:sn.example:7700\n"
	    "listen tcp:0.0.0.0:7707\n"
	    "advertise tcp:node1.example:7707\n"
	    "name node1\n"
	    "slots 8\n"
	    "jobs 2\n"
	    "key-file /etc/ft/key\n"
	    "state-dir /var/lib/ft\n"
	    "refresh 10s\n"
	    "reserve-ttl 500ms\n"
	    "allow 10.0.0.0/8\n"
	    "allow ::1\n"
	    "deny 10.9.9.9\n"
	    "log-level 2\n";
	struct ft_boot_conf c;
	char why[FT_WIRE_TEXT_MAX];

	T_OK(ft_boot_conf_parse(text, strlen(text), &c, why, sizeof(why)) == 0,
	    "conf: every key parses");
	T_OK(strcmp(c.supernode, "tcp:sn.example:7700") == 0 &&
	    strcmp(c.listen, "tcp:0.0.0.0:7707") == 0 &&
	    strcmp(c.advertise, "tcp:node1.example:7707") == 0 &&
	    strcmp(c.name, "node1") == 0 && c.slots == 8 && c.jobs == 2 &&
	    strcmp(c.key_file, "/etc/ft/key") == 0 &&
	    strcmp(c.state_dir, "/var/lib/ft") == 0 &&
	    c.refresh_ns == 10000000000ull && c.ttl_ns == 500000000ull &&
	    c.allow.n == 2 && c.deny.n == 1 && c.verbose == 2,
	    "conf: values");
	T_OK((c.has & (FT_CONF_SUPERNODE | FT_CONF_SLOTS | FT_CONF_TTL)) ==
	    (FT_CONF_SUPERNODE | FT_CONF_SLOTS | FT_CONF_TTL) &&
	    !(ft_boot_conf_parse("", 0, &c, why, sizeof(why)) == 0 &&
	    c.has != 0), "conf: has says what was given");
	T_OK(ft_boot_conf_parse("color red\n", 10, &c, why, sizeof(why)) ==
	    -1 && strstr(why, "line 1: unknown key 'color'") != NULL,
	    "conf: an unknown key is refused: %s", why);
	T_OK(ft_boot_conf_parse("\nslots 0\n", 9, &c, why, sizeof(why)) ==
	    -1 && strstr(why, "line 2") != NULL, "conf: slots 0 is refused");
	T_OK(ft_boot_conf_parse("jobs 1 2\n", 9, &c, why, sizeof(why)) == -1 &&
	    strstr(why, "KEY VALUE") != NULL, "conf: two values are refused");
	T_OK(ft_boot_conf_parse("listen 1.2.3.4\n", 15, &c, why,
	    sizeof(why)) == 0 && strcmp(c.listen, "tcp:1.2.3.4:7707") == 0,
	    "conf: HOST alone is HOST:7707");
	T_OK(ft_boot_conf_parse("supernode sn:99999\n", 19, &c, why,
	    sizeof(why)) == -1 && strstr(why, "tcp:HOST:PORT") != NULL,
	    "conf: a port out of range is refused: %s", why);
	T_OK(ft_boot_conf_parse("refresh 0s\n", 11, &c, why, sizeof(why)) ==
	    -1, "conf: a zero refresh is refused");
	T_OK(ft_boot_conf_parse("allow 10.0.0.0/33\n", 18, &c, why,
	    sizeof(why)) == -1, "conf: a /33 IPv4 prefix is refused");
}

static void
test_acl(void)
{
	struct ft_acl a;
	char why[FT_WIRE_TEXT_MAX];

	memset(&a, 0, sizeof(a));
	T_OK(ft_acl_add(&a, "10.1.0.0/16, 192.168.1.7 fe80::/10", why,
	    sizeof(why)) == 0 && a.n == 3, "acl: three entries");
	T_OK(ft_acl_match(&a, "10.1.200.3"), "acl: in a /16");
	T_OK(!ft_acl_match(&a, "10.2.0.1"), "acl: outside the /16");
	T_OK(ft_acl_match(&a, "192.168.1.7") && !ft_acl_match(&a,
	    "192.168.1.8"), "acl: a single address");
	T_OK(ft_acl_match(&a, "fe80::1") && !ft_acl_match(&a, "fec0::1"),
	    "acl: an IPv6 prefix");
	T_OK(ft_acl_match(&a, "::ffff:10.1.2.3"), "acl: IPv4 mapped in IPv6");
	T_OK(!ft_acl_match(&a, "local") && !ft_acl_match(&a, ""),
	    "acl: not an address never matches");
	T_FAILS(ft_acl_add(&a, "10.0.0.300", why, sizeof(why)), EINVAL,
	    "acl: a bad address is refused");
	T_FAILS(ft_acl_add(&a, "host.example", why, sizeof(why)), EINVAL,
	    "acl: a name is refused");
	memset(&a, 0, sizeof(a));
	T_OK(ft_acl_add(&a, "0.0.0.0/0", why, sizeof(why)) == 0 &&
	    ft_acl_match(&a, "8.8.8.8"), "acl: /0 matches every IPv4");
}

static void
test_hosts(void)
{
	struct ft_hostspec *h;
	char why[FT_WIRE_TEXT_MAX], addr[FT_WIRE_ADDR_MAX];
	static const char file[] = "# hosts\nnode1 slots=4\nnode2:7800\n"
	    "10.0.0.3 slots=2\n[::1]:9000 slots=1\nfe80::2\n"
	    "tcp:node6:1\n";
	size_t n;

	T_OK(ft_host_addr("node", addr, sizeof(addr)) == 0 &&
	    strcmp(addr, "tcp:node:7707") == 0, "host: default port 7707");
	T_OK(ft_host_addr("node:80", addr, sizeof(addr)) == 0 &&
	    strcmp(addr, "tcp:node:80") == 0, "host: a port");
	T_OK(ft_host_addr("[::1]", addr, sizeof(addr)) == 0 &&
	    strcmp(addr, "tcp:[::1]:7707") == 0, "host: [v6]");
	T_FAILS(ft_host_addr("node:99999", addr, sizeof(addr)), EINVAL,
	    "host: a port out of range");
	T_FAILS(ft_host_addr("node:x", addr, sizeof(addr)), EINVAL,
	    "host: a port not a number");
	T_OK(ft_hostfile_parse_text(file, strlen(file), &h, &n, why,
	    sizeof(why)) == 0 && n == 6, "hostfile: six hosts");
	T_OK(strcmp(h[0].addr, "tcp:node1:7707") == 0 && h[0].slots == 4 &&
	    strcmp(h[1].addr, "tcp:node2:7800") == 0 && h[1].slots == 0 &&
	    strcmp(h[3].addr, "tcp:[::1]:9000") == 0 &&
	    strcmp(h[4].addr, "tcp:[fe80::2]:7707") == 0 &&
	    strcmp(h[5].addr, "tcp:node6:1") == 0, "hostfile: fields");
	free(h);
	T_OK(ft_hostfile_parse_text("a slots=0\n", 10, &h, &n, why,
	    sizeof(why)) == -1 && strstr(why, "line 1") != NULL,
	    "hostfile: slots=0 is refused");
	T_OK(ft_hostfile_parse_text("a max=2\n", 8, &h, &n, why,
	    sizeof(why)) == -1 && strstr(why, "slots=N") != NULL,
	    "hostfile: another key is refused");
	T_OK(ft_hostfile_parse_text("# none\n", 7, &h, &n, why,
	    sizeof(why)) == -1 && strstr(why, "no host") != NULL,
	    "hostfile: no host is refused");
	T_OK(ft_hostlist_parse("a,b:8000,[::1]:1", &h, &n, why,
	    sizeof(why)) == 0 && n == 3 && strcmp(h[1].addr,
	    "tcp:b:8000") == 0, "hostlist: three hosts");
	free(h);
	T_OK(ft_hostlist_parse("a,,b", &h, &n, why, sizeof(why)) == -1,
	    "hostlist: an empty entry is refused");
	T_OK(ft_hostlist_parse("", &h, &n, why, sizeof(why)) == -1,
	    "hostlist: an empty list is refused");
}

/* ---- the gatekeeper ---- */

static uint64_t fake_now = 1000;

static uint64_t
clock_fn(void *arg)
{
	(void)arg;
	return fake_now;
}

static void
test_gate(void)
{
	struct ft_acl allow, deny;
	struct ft_gate_cfg cfg;
	struct ft_gate *g;
	uint8_t t1[16], t2[16], t3[16], junk[16] = { 0 };
	char why[FT_WIRE_TEXT_MAX];
	uint32_t slots, res, run;
	uint64_t next;
	int job;

	memset(&allow, 0, sizeof(allow));
	memset(&deny, 0, sizeof(deny));
	memset(&cfg, 0, sizeof(cfg));
	cfg.slots = 4;
	cfg.jobs = 2;
	cfg.ttl_ns = 60;
	cfg.allow = &allow;
	cfg.deny = &deny;
	cfg.now = clock_fn;
	T_OK(ft_gate_new(&(struct ft_gate_cfg){ 0, 1, 1, NULL, NULL, NULL,
	    NULL }) == NULL && errno == EINVAL, "gate: P=0 is refused");
	g = ft_gate_new(&cfg);
	T_OK(g != NULL, "gate: made");
	T_EQ_INT(ft_gate_reserve(g, 10, "10.0.0.1", t1, &slots, why,
	    sizeof(why)), FT_BOOT_OK, "gate: a reservation");
	T_EQ_UINT(slots, 4, "gate: P caps the slots");
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.0.1", t2, &slots, why,
	    sizeof(why)), FT_BOOT_OK, "gate: a second (J=2)");
	T_EQ_UINT(slots, 1, "gate: fewer slots than P when asked");
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.0.1", t3, &slots, why,
	    sizeof(why)), FT_BOOT_BUSY, "gate: a third is refused (J=2)");
	T_OK(strstr(why, "J=2") != NULL, "gate: naming J: %s", why);
	T_EQ_INT(ft_gate_cancel(g, t2), 0, "gate: cancel");
	T_FAILS(ft_gate_cancel(g, t2), ENOENT, "gate: cancel twice fails");
	T_EQ_INT(ft_gate_reserve(g, 2, "10.0.0.1", t2, &slots, why,
	    sizeof(why)), FT_BOOT_OK, "gate: the cancelled place is free");
	T_FAILS(ft_gate_claim(g, junk, 1, "10.0.0.1", why, sizeof(why)),
	    ENOENT, "gate: an unknown token is refused");
	T_FAILS(ft_gate_claim(g, t2, 3, "10.0.0.1", why, sizeof(why)), EINVAL,
	    "gate: more processes than reserved are refused");
	T_OK(strstr(why, "3 processes asked, 2 slots") != NULL,
	    "gate: saying so: %s", why);
	job = ft_gate_claim(g, t1, 4, "10.0.0.1", why, sizeof(why));
	T_OK(job >= 0, "gate: a claim makes a job");
	T_FAILS(ft_gate_claim(g, t1, 1, "10.0.0.1", why, sizeof(why)), EBUSY,
	    "gate: a token is claimed once");
	ft_gate_counts(g, &res, &run);
	T_OK(res == 1 && run == 1, "gate: 1 reserved, 1 running");
	/* Time passes: the unclaimed reservation expires, the job stays. */
	fake_now += 60;
	T_EQ_UINT(ft_gate_expire(g, &next), 1, "gate: the reservation expires");
	T_FAILS(ft_gate_claim(g, t2, 1, "10.0.0.1", why, sizeof(why)), ENOENT,
	    "gate: an expired token is refused");
	T_OK(strstr(why, "expired") != NULL, "gate: saying why: %s", why);
	ft_gate_counts(g, &res, &run);
	T_OK(res == 0 && run == 1, "gate: the running job outlives the ttl");
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.0.1", t2, &slots, why,
	    sizeof(why)), FT_BOOT_OK, "gate: room again after expiry");
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.0.1", t3, &slots, why,
	    sizeof(why)), FT_BOOT_BUSY, "gate: full: a job and a reservation");
	ft_gate_job_done(g, job);
	ft_gate_job_done(g, job);
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.0.1", t3, &slots, why,
	    sizeof(why)), FT_BOOT_OK, "gate: job done frees its place (once)");
	fake_now += 59;
	T_EQ_UINT(ft_gate_expire(g, &next), 0, "gate: nothing expires early");
	T_EQ_UINT(next, fake_now + 1, "gate: the next expiry is known");
	/* Lists. */
	ft_acl_add(&deny, "10.0.0.66", why, sizeof(why));
	ft_gate_cancel(g, t3);
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.0.66", t3, &slots, why,
	    sizeof(why)), FT_BOOT_DENIED, "gate: a denied submitter");
	T_OK(strstr(why, "deny list") != NULL, "gate: saying so: %s", why);
	ft_acl_add(&allow, "10.0.0.0/24", why, sizeof(why));
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.1.1", t3, &slots, why,
	    sizeof(why)), FT_BOOT_DENIED, "gate: a submitter not allowed");
	T_OK(strstr(why, "not on the allow list") != NULL, "gate: saying so");
	T_EQ_INT(ft_gate_reserve(g, 1, "10.0.0.2", t3, &slots, why,
	    sizeof(why)), FT_BOOT_OK, "gate: an allowed submitter");
	T_FAILS(ft_gate_claim(g, t3, 1, "10.0.0.66", why, sizeof(why)), EACCES,
	    "gate: a claim from a denied address is refused");
	T_OK(ft_gate_claim(g, t3, 1, "10.0.0.2", why, sizeof(why)) >= 0,
	    "gate: the allowed one claims");
	ft_gate_free(g);
}

/* ---- placement ---- */

static struct ft_grant
grant(const char *host, uint32_t slots, uint64_t rtt)
{
	struct ft_grant g;

	memset(&g, 0, sizeof(g));
	snprintf(g.addr, sizeof(g.addr), "tcp:%s:7707", host);
	snprintf(g.host, sizeof(g.host), "%s", host);
	g.slots = slots;
	g.rtt_us = rtt;
	return g;
}

/* Do the replicas of every rank sit on distinct hosts? */
static int
apart(const struct ft_grant *g, const uint32_t *of, uint32_t nranks,
    uint32_t nrep)
{
	uint32_t r, i, j;

	for (r = 0; r < nranks; r++)
		for (i = 0; i < nrep; i++)
			for (j = i + 1; j < nrep; j++)
				if (strcmp(g[of[r * nrep + i]].host,
				    g[of[r * nrep + j]].host) == 0)
					return 0;
	return 1;
}

static int
within(const struct ft_grant *g, size_t ng, const uint32_t *of, size_t n)
{
	uint32_t used[64] = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		if (of[i] >= ng || ++used[of[i]] > g[of[i]].slots)
			return 0;
	}
	return 1;
}

static void
test_place(void)
{
	struct ft_grant g[8];
	uint32_t of[64];
	char warn[FT_WIRE_TEXT_MAX];
	int rc;

	g[0] = grant("far", 4, 400);
	g[1] = grant("near", 4, 100);
	g[2] = grant("mid", 4, 200);
	g[3] = grant("unknown", 4, 0);
	rc = ft_alloc_place(g, 4, 4, 1, FT_ALLOC_SPREAD, of, warn, sizeof(warn));
	T_OK(rc == 0 && of[0] == 1 && of[1] == 2 && of[2] == 0 && of[3] == 3,
	    "spread: round robin, nearest first, unknown RTT last");
	rc = ft_alloc_place(g, 4, 6, 1, FT_ALLOC_SPREAD, of, warn, sizeof(warn));
	T_OK(rc == 0 && of[4] == 1 && of[5] == 2, "spread: round robin wraps");
	rc = ft_alloc_place(g, 4, 4, 1, FT_ALLOC_CONCENTRATE, of, warn,
	    sizeof(warn));
	T_OK(rc == 0 && of[0] == 1 && of[1] == 1 && of[2] == 1 && of[3] == 1,
	    "concentrate: all on the nearest");
	rc = ft_alloc_place(g, 4, 6, 1, FT_ALLOC_CONCENTRATE, of, warn,
	    sizeof(warn));
	T_OK(rc == 0 && of[3] == 1 && of[4] == 2 && of[5] == 2,
	    "concentrate: the nearest full, then the next");
	rc = ft_alloc_place(g, 4, 2, 2, FT_ALLOC_CONCENTRATE, of, warn,
	    sizeof(warn));
	T_OK(rc == 0 && apart(g, of, 2, 2) && of[0] == 1 && of[1] == 2 &&
	    of[2] == 1 && of[3] == 2, "concentrate -r 2: the two nearest");
	rc = ft_alloc_place(g, 4, 8, 2, FT_ALLOC_SPREAD, of, warn, sizeof(warn));
	T_OK(rc == 0 && apart(g, of, 8, 2) && within(g, 4, of, 16),
	    "spread -r 2: replicas apart, within the slots");
	/* Three hosts of 2: nearest first would put rank 2's replicas on
	 * one host; the balanced order keeps them apart. */
	g[0] = grant("a", 2, 1);
	g[1] = grant("b", 2, 2);
	g[2] = grant("c", 2, 3);
	rc = ft_alloc_place(g, 3, 3, 2, FT_ALLOC_CONCENTRATE, of, warn,
	    sizeof(warn));
	T_OK(rc == 0 && apart(g, of, 3, 2) && within(g, 3, of, 6),
	    "concentrate -r 2 on tight hosts: still apart");
	/* One host: replicas must share, and placement says so. */
	g[0] = grant("solo", 8, 1);
	rc = ft_alloc_place(g, 1, 4, 2, FT_ALLOC_SPREAD, of, warn, sizeof(warn));
	T_EQ_INT(rc, 1, "one host, -r 2: a warning");
	T_OK(strstr(warn, "4 of 4 ranks") != NULL && strstr(warn, "only 1") !=
	    NULL, "naming the shortfall: %s", warn);
	T_OK(within(g, 1, of, 8), "one host: still within its slots");
	/* Two daemons on one host are one host. */
	g[0] = grant("h1", 2, 1);
	g[1] = grant("h1", 2, 2);
	snprintf(g[1].addr, sizeof(g[1].addr), "tcp:h1:7708");
	g[2] = grant("h2", 2, 3);
	rc = ft_alloc_place(g, 3, 2, 2, FT_ALLOC_CONCENTRATE, of, warn,
	    sizeof(warn));
	T_OK(rc == 0 && apart(g, of, 2, 2), "two daemons of one host count as "
	    "one host");
	rc = ft_alloc_place(g, 2, 2, 2, FT_ALLOC_CONCENTRATE, of, warn,
	    sizeof(warn));
	T_EQ_INT(rc, 1, "two daemons of one host: -r 2 warns");
	/* Capacity the hosts have but cannot use apart. */
	g[0] = grant("big", 10, 1);
	g[1] = grant("small", 1, 2);
	rc = ft_alloc_place(g, 2, 5, 2, FT_ALLOC_SPREAD, of, warn, sizeof(warn));
	T_OK(rc == 1 && strstr(warn, "4 of 5 ranks") != NULL &&
	    strstr(warn, "too few slots") != NULL, "too few slots to keep "
	    "replicas apart: %s", warn);
	rc = ft_alloc_place(g, 2, 12, 1, FT_ALLOC_SPREAD, of, warn,
	    sizeof(warn));
	T_OK(rc == -1 && errno == ENOSPC && strstr(warn, "12 processes, only "
	    "11 slots") != NULL, "more processes than slots: %s", warn);
	T_FAILS(ft_alloc_place(g, 0, 1, 1, FT_ALLOC_SPREAD, of, warn,
	    sizeof(warn)), EINVAL, "no grant");
	T_FAILS(ft_alloc_place(g, 2, 1, 0, FT_ALLOC_SPREAD, of, warn,
	    sizeof(warn)), EINVAL, "0 replicas");
}

static uint32_t
rnd(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

/* Random grants: every process placed within the slots, and replicas
 * apart whenever the hosts are many and roomy enough. */
static void
test_place_random(void)
{
	struct ft_grant g[8];
	uint32_t of[512], nranks, nrep, seed = 12345;
	char warn[FT_WIRE_TEXT_MAX], name[8];
	size_t ng, i, bad = 0, trials = 2000, roomy_bad = 0;
	uint64_t total, minhost;
	int rc, mode;

#define RND(n) (rnd(&seed) % (n))
	for (; trials > 0; trials--) {
		ng = 1 + RND(8);
		for (i = 0; i < ng; i++) {
			snprintf(name, sizeof(name), "h%u", RND(5));
			g[i] = grant(name, 1 + RND(8), RND(4) * 100);
		}
		nrep = 1 + RND(3);
		nranks = 1 + RND(16);
		mode = (int)RND(2);
		rc = ft_alloc_place(g, ng, nranks, nrep, (enum ft_alloc)mode,
		    of, warn, sizeof(warn));
		for (i = 0, total = 0; i < ng; i++)
			total += g[i].slots;
		if (total < (uint64_t)nranks * nrep) {
			bad += rc != -1;
			continue;
		}
		if (rc < 0 || !within(g, ng, of, (size_t)nranks * nrep) ||
		    (rc == 0) != apart(g, of, nranks, nrep)) {
			bad++;
			continue;
		}
		/* nrep distinct hosts each with room for every rank. */
		{
			const char *seen[8];
			size_t ns = 0, j;

			minhost = 0;
			for (i = 0; i < ng; i++) {
				uint64_t cap = 0;

				for (j = 0; j < ns; j++)
					if (strcmp(seen[j], g[i].host) == 0)
						break;
				if (j < ns)
					continue;
				seen[ns++] = g[i].host;
				for (j = 0; j < ng; j++)
					if (strcmp(g[j].host, g[i].host) == 0)
						cap += g[j].slots;
				minhost += cap >= nranks;
			}
			if (minhost >= nrep && rc != 0)
				roomy_bad++;
		}
	}
#undef RND
	T_EQ_UINT(bad, 0, "random: placed within the slots, result agrees "
	    "with the replicas' hosts");
	T_EQ_UINT(roomy_bad, 0, "random: replicas apart whenever nrep hosts "
	    "have room for every rank");
}

int
main(void)
{
	size_t i;
	char cmd[300];

	snprintf(tmpdir, sizeof(tmpdir), "%s/ft-test-peer.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	for (i = 0; i < FT_NELEM(codecs); i++)
		test_codec(&codecs[i]);
	test_fields();
	test_key();
	test_lock();
	test_cache();
	test_conf();
	test_acl();
	test_hosts();
	test_gate();
	test_place();
	test_place_random();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		t_diag("could not remove %s", tmpdir);
	return t_done();
}
