/* SPDX-License-Identifier: ISC */
/*
 * The text formats of the peer layer (ft-boot(5)): the peer cache, the
 * configuration file, hostfiles and host lists, and the allow and deny
 * lists of submitters.  Parsers work on a buffer, never trust it
 * (a NUL byte, an overlong line or word, a bad number are errors that
 * name the line) and never print.
 */
#include <sys/stat.h>

#include <arpa/inet.h>
#include <bsd/stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "peer.h"

#define LINE_MAX_BYTES	4096
#define WORDS_MAX	16
#define TEXT_FILE_MAX	(64u << 20)

/* One line split into blank-separated words ('#' starts a comment). */
struct line {
	char	 buf[LINE_MAX_BYTES];
	char	*w[WORDS_MAX];
	size_t	 nw;
	size_t	 no;		/* line number, from 1 */
};

/*
 * The next line of text at *off into l.  Returns 1 with a line, 0 at
 * the end, -1 with why on a NUL byte, an overlong line or too many
 * words.
 */
static int
next_line(const char *text, size_t len, size_t *off, struct line *l,
    char *why, size_t whysize)
{
	const char *s, *nl;
	size_t n;
	char *p, *hash;

	if (*off >= len)
		return 0;
	s = text + *off;
	nl = memchr(s, '\n', len - *off);
	n = nl != NULL ? (size_t)(nl - s) : len - *off;
	*off += n + (nl != NULL);
	l->no++;
	l->nw = 0;
	if (n >= sizeof(l->buf)) {
		snprintf(why, whysize, "line %zu is longer than %d bytes",
		    l->no, LINE_MAX_BYTES - 1);
		return -1;
	}
	if (memchr(s, '\0', n) != NULL) {
		snprintf(why, whysize, "line %zu holds a NUL byte", l->no);
		return -1;
	}
	memcpy(l->buf, s, n);
	l->buf[n] = '\0';
	if ((hash = strchr(l->buf, '#')) != NULL)
		*hash = '\0';
	for (p = l->buf;;) {
		p += strspn(p, " \t\r");
		if (*p == '\0')
			break;
		if (l->nw == WORDS_MAX) {
			snprintf(why, whysize, "line %zu has more than %d "
			    "words", l->no, WORDS_MAX);
			return -1;
		}
		l->w[l->nw++] = p;
		p += strcspn(p, " \t\r");
		if (*p != '\0')
			*p++ = '\0';
	}
	return 1;
}

/* Copy word into dst, or fail naming what and the line. */
static int
word_copy(char *dst, size_t size, const char *w, const char *what,
    const struct line *l, char *why, size_t whysize)
{
	size_t n = strlen(w);
	size_t i;

	if (n == 0 || n >= size) {
		snprintf(why, whysize, "line %zu: %s is empty or longer than "
		    "%zu bytes", l->no, what, size - 1);
		return -1;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)w[i] < 0x21 || w[i] == 0x7f) {
			snprintf(why, whysize, "line %zu: %s holds a control "
			    "character", l->no, what);
			return -1;
		}
	memcpy(dst, w, n + 1);
	return 0;
}

static int
word_num(const char *w, long long min, long long max, long long *v,
    const char *what, const struct line *l, char *why, size_t whysize)
{
	const char *errstr;

	*v = strtonum(w, min, max, &errstr);
	if (errstr != NULL) {
		snprintf(why, whysize, "line %zu: %s '%.40s' is %s (%lld .. "
		    "%lld)", l->no, what, w, errstr, min, max);
		return -1;
	}
	return 0;
}

int
ft_boot_addr_ok(const char *addr)
{
	const char *colon, *host, *errstr;
	size_t hlen;

	if (strlen(addr) >= FT_WIRE_ADDR_MAX || strncmp(addr, "tcp:", 4) != 0)
		return 0;
	host = addr + 4;
	if ((colon = strrchr(host, ':')) == NULL)
		return 0;
	hlen = (size_t)(colon - host);
	if (hlen == 0 || (host[0] == '[' && (hlen < 3 ||
	    host[hlen - 1] != ']')))
		return 0;
	if (host[0] != '[' && memchr(host, ':', hlen) != NULL)
		return 0;
	if (strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return 0;
	(void)strtonum(colon + 1, 0, 65535, &errstr);
	return errstr == NULL;
}

int
ft_host_addr(const char *spec, char *addr, size_t size)
{
	const char *colon, *close;
	int n;

	if (strncmp(spec, "tcp:", 4) == 0)
		n = snprintf(addr, size, "%s", spec);
	else if (spec[0] == '[') {
		if ((close = strchr(spec, ']')) == NULL)
			goto bad;
		if (close[1] == '\0')
			n = snprintf(addr, size, "tcp:%s:%d", spec,
			    FT_BOOT_PORT);
		else
			n = snprintf(addr, size, "tcp:%s", spec);
	} else if ((colon = strchr(spec, ':')) == NULL)
		n = snprintf(addr, size, "tcp:%s:%d", spec, FT_BOOT_PORT);
	else if (strchr(colon + 1, ':') != NULL)
		/* A bare IPv6 address: no port. */
		n = snprintf(addr, size, "tcp:[%s]:%d", spec, FT_BOOT_PORT);
	else
		n = snprintf(addr, size, "tcp:%s", spec);
	if (n < 0 || (size_t)n >= size || !ft_boot_addr_ok(addr))
		goto bad;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* Read a whole file, at most TEXT_FILE_MAX bytes, into a heap buffer. */
static int
slurp(const char *path, char **out, size_t *len, char *why, size_t whysize)
{
	struct stat st;
	char *buf = NULL, *nb;
	size_t cap = 0, n = 0;
	ssize_t got;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		saved = errno;
		snprintf(why, whysize, "'%s': %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(why, whysize, "'%s' is a directory", path);
		close(fd);
		errno = EISDIR;
		return -1;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= TEXT_FILE_MAX) {
				snprintf(why, whysize, "'%s' is larger than "
				    "%u bytes", path, TEXT_FILE_MAX);
				errno = EFBIG;
				goto fail;
			}
			cap = cap == 0 ? 4096 : cap * 2;
			if ((nb = realloc(buf, cap)) == NULL)
				goto sysfail;
			buf = nb;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto sysfail;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	*out = buf;
	*len = n;
	return 0;
sysfail:
	saved = errno;
	snprintf(why, whysize, "'%s': %s", path, strerror(saved));
	errno = saved;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return -1;
}

/* Prefix why with the file name: "'path': line 3: ...". */
static void
why_in(const char *path, char *why, size_t whysize)
{
	char tmp[FT_WIRE_TEXT_MAX];

	snprintf(tmp, sizeof(tmp), "%s", why);
	snprintf(why, whysize, "%s: %s", path, tmp);
}

/* Read path and hand its text to parse; errors name the file. */
static int
load_file(const char *path, int (*parse)(const char *, size_t, void *,
    char *, size_t), void *arg, char *why, size_t whysize)
{
	char *text;
	size_t len;
	int rc, saved;

	if (slurp(path, &text, &len, why, whysize) != 0)
		return -1;
	rc = parse(text, len, arg, why, whysize);
	saved = errno;
	free(text);
	if (rc != 0)
		why_in(path, why, whysize);
	errno = saved;
	return rc;
}

/* ---- peer cache ---- */

#define CACHE_MAGIC	"# ft-peers 1"

int
ft_peer_cache_parse(const char *text, size_t len, struct ft_peer **out,
    size_t *np, char *why, size_t whysize)
{
	struct ft_peer *v = NULL, *nv, *p;
	struct line *l;
	size_t off = 0, n = 0, cap = 0, i, j, magic = strlen(CACHE_MAGIC);
	long long x;
	char *eq;
	int rc;

	*out = NULL;
	*np = 0;
	if (len < magic || memcmp(text, CACHE_MAGIC, magic) != 0 ||
	    (len > magic && text[magic] != '\n')) {
		snprintf(why, whysize, "line 1 is not \"%s\" (an unknown "
		    "format or version)", CACHE_MAGIC);
		errno = EINVAL;
		return -1;
	}
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return -1;
	while ((rc = next_line(text, len, &off, l, why, whysize)) == 1) {
		if (l->nw == 0)
			continue;
		if (n == FT_PEER_CACHE_MAX) {
			snprintf(why, whysize, "line %zu: more than %u peers",
			    l->no, FT_PEER_CACHE_MAX);
			goto bad;
		}
		if ((nv = ft_grow(v, &cap, n, sizeof(*v))) == NULL)
			goto fail;
		v = nv;
		p = &v[n];
		memset(p, 0, sizeof(*p));
		if (word_copy(p->addr, sizeof(p->addr), l->w[0], "the address",
		    l, why, whysize) != 0)
			goto bad;
		if (!ft_boot_addr_ok(p->addr)) {
			snprintf(why, whysize, "line %zu: '%.*s' is not "
			    "tcp:HOST:PORT", l->no, 128, p->addr);
			goto bad;
		}
		for (i = 1; i < l->nw; i++) {
			if ((eq = strchr(l->w[i], '=')) == NULL) {
				snprintf(why, whysize, "line %zu: '%.40s' is "
				    "not key=value", l->no, l->w[i]);
				goto bad;
			}
			*eq++ = '\0';
			if (strcmp(l->w[i], "host") == 0) {
				if (word_copy(p->host, sizeof(p->host), eq,
				    "host", l, why, whysize) != 0)
					goto bad;
			} else if (strcmp(l->w[i], "slots") == 0) {
				if (word_num(eq, 1, FT_PEER_SLOTS_MAX, &x,
				    "slots", l, why, whysize) != 0)
					goto bad;
				p->slots = (uint32_t)x;
			} else if (strcmp(l->w[i], "jobs") == 0) {
				if (word_num(eq, 1, FT_PEER_JOBS_MAX, &x,
				    "jobs", l, why, whysize) != 0)
					goto bad;
				p->jobs = (uint32_t)x;
			} else if (strcmp(l->w[i], "rtt_us") == 0) {
				if (word_num(eq, 0, 3600000000ll, &x, "rtt_us",
				    l, why, whysize) != 0)
					goto bad;
				p->rtt_us = (uint64_t)x;
			} else if (strcmp(l->w[i], "seen") == 0) {
				if (word_num(eq, 0, 1ll << 40, &x, "seen", l,
				    why, whysize) != 0)
					goto bad;
				p->seen = x;
			} else {
				snprintf(why, whysize, "line %zu: unknown key "
				    "'%.40s'", l->no, l->w[i]);
				goto bad;
			}
		}
		if (p->host[0] == '\0' || p->slots == 0 || p->jobs == 0) {
			snprintf(why, whysize, "line %zu: host, slots and jobs "
			    "are needed", l->no);
			goto bad;
		}
		for (j = 0; j < n; j++)
			if (strcmp(v[j].addr, p->addr) == 0) {
				snprintf(why, whysize, "line %zu: %s appears "
				    "twice", l->no, p->addr);
				goto bad;
			}
		n++;
	}
	if (rc < 0)
		goto bad;
	free(l);
	*out = v;
	*np = n;
	return 0;
bad:
	errno = EINVAL;
fail:
	rc = errno;
	free(l);
	free(v);
	errno = rc;
	return -1;
}

int
ft_peer_cache_format(struct ft_wbuf *b, const struct ft_peer *p, size_t n)
{
	char line[FT_WIRE_ADDR_MAX + FT_WIRE_NODE_MAX + 128];
	size_t i;
	int len;

	ft_putbytes(b, CACHE_MAGIC "\n", strlen(CACHE_MAGIC) + 1);
	for (i = 0; i < n; i++) {
		len = snprintf(line, sizeof(line), "%s host=%s slots=%u "
		    "jobs=%u rtt_us=%llu seen=%lld\n", p[i].addr, p[i].host,
		    p[i].slots, p[i].jobs, (unsigned long long)p[i].rtt_us,
		    (long long)p[i].seen);
		ft_putbytes(b, line, (size_t)len);
	}
	if (b->err != 0) {
		errno = b->err;
		return -1;
	}
	return 0;
}

struct cache_out {
	struct ft_peer	**out;
	size_t		 *n;
};

static int
parse_cache(const char *text, size_t len, void *arg, char *why,
    size_t whysize)
{
	struct cache_out *o = arg;

	return ft_peer_cache_parse(text, len, o->out, o->n, why, whysize);
}

int
ft_peer_cache_load(const char *path, struct ft_peer **out, size_t *n,
    char *why, size_t whysize)
{
	struct cache_out o = { out, n };

	*out = NULL;
	*n = 0;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	return load_file(path, parse_cache, &o, why, whysize);
}

int
ft_peer_cache_save(const char *path, const struct ft_peer *p, size_t n)
{
	struct ft_wbuf b;
	int rc;

	ft_wbuf_init(&b);
	rc = ft_peer_cache_format(&b, p, n);
	if (rc == 0)
		rc = ft_boot_write_file(path, b.p, b.len, 0600);
	ft_wbuf_release(&b);
	return rc;
}

static int
peer_cmp(const void *a, const void *b)
{
	const struct ft_peer *x = a, *y = b;

	if ((x->rtt_us == 0) != (y->rtt_us == 0))
		return x->rtt_us == 0 ? 1 : -1;
	if (x->rtt_us != y->rtt_us)
		return x->rtt_us < y->rtt_us ? -1 : 1;
	return strcmp(x->addr, y->addr);
}

void
ft_peer_sort(struct ft_peer *p, size_t n)
{
	if (n > 1)
		qsort(p, n, sizeof(*p), peer_cmp);
}

/* ---- allow and deny lists ---- */

int
ft_acl_add(struct ft_acl *acl, const char *list, char *why, size_t whysize)
{
	char item[INET6_ADDRSTRLEN + 8], *slash;
	struct ft_acl_entry e;
	const char *p = list, *errstr;
	size_t n;
	long long bits;

	for (;;) {
		p += strspn(p, ", \t");
		if (*p == '\0')
			return 0;
		n = strcspn(p, ", \t");
		if (n >= sizeof(item)) {
			snprintf(why, whysize, "'%.*s' is not an address or "
			    "address/prefix", 60, p);
			errno = EINVAL;
			return -1;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		p += n;
		memset(&e, 0, sizeof(e));
		bits = -1;
		if ((slash = strchr(item, '/')) != NULL) {
			*slash++ = '\0';
			bits = strtonum(slash, 0, 128, &errstr);
			if (errstr != NULL)
				goto bad;
		}
		if (inet_pton(AF_INET, item, e.addr) == 1) {
			e.v6 = 0;
			if (bits > 32)
				goto bad;
			e.bits = (uint8_t)(bits < 0 ? 32 : bits);
		} else if (inet_pton(AF_INET6, item, e.addr) == 1) {
			e.v6 = 1;
			e.bits = (uint8_t)(bits < 0 ? 128 : bits);
		} else
			goto bad;
		if (acl->n == FT_ACL_MAX) {
			snprintf(why, whysize, "more than %d entries in a list",
			    FT_ACL_MAX);
			errno = ENOSPC;
			return -1;
		}
		acl->e[acl->n++] = e;
	}
bad:
	snprintf(why, whysize, "'%s' is not an IP address or address/prefix",
	    item);
	errno = EINVAL;
	return -1;
}

static int
prefix_eq(const uint8_t *a, const uint8_t *b, unsigned int bits)
{
	unsigned int full = bits / 8, rest = bits % 8;
	uint8_t mask;

	if (memcmp(a, b, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	mask = (uint8_t)(0xff << (8 - rest));
	return (a[full] & mask) == (b[full] & mask);
}

int
ft_acl_match(const struct ft_acl *acl, const char *ip)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff };
	uint8_t a4[4], a6[16];
	int is4 = 0, is6 = 0;
	size_t i;

	if (inet_pton(AF_INET, ip, a4) == 1)
		is4 = 1;
	else if (inet_pton(AF_INET6, ip, a6) == 1) {
		is6 = 1;
		if (memcmp(a6, mapped, sizeof(mapped)) == 0) {
			memcpy(a4, a6 + 12, 4);
			is4 = 1;
		}
	} else
		return 0;
	for (i = 0; i < acl->n; i++) {
		if (!acl->e[i].v6 && is4 &&
		    prefix_eq(acl->e[i].addr, a4, acl->e[i].bits))
			return 1;
		if (acl->e[i].v6 && is6 &&
		    prefix_eq(acl->e[i].addr, a6, acl->e[i].bits))
			return 1;
	}
	return 0;
}

/* ---- configuration file ---- */

int
ft_boot_conf_parse(const char *text, size_t len, struct ft_boot_conf *c,
    char *why, size_t whysize)
{
	char sub[FT_WIRE_TEXT_MAX];
	struct line *l;
	const char *k, *v;
	size_t off = 0;
	long long x;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return -1;
	while ((rc = next_line(text, len, &off, l, why, whysize)) == 1) {
		if (l->nw == 0)
			continue;
		k = l->w[0];
		if (l->nw != 2) {
			snprintf(why, whysize, "line %zu: expected \"KEY "
			    "VALUE\"", l->no);
			goto bad;
		}
		v = l->w[1];
		if (strcmp(k, "supernode") == 0 || strcmp(k, "listen") == 0 ||
		    strcmp(k, "advertise") == 0) {
			char *dst = k[0] == 's' ? c->supernode :
			    k[0] == 'l' ? c->listen : c->advertise;

			if (ft_host_addr(v, dst, FT_WIRE_ADDR_MAX) != 0) {
				snprintf(why, whysize, "line %zu: %s '%.128s' "
				    "is not tcp:HOST:PORT or HOST[:PORT]",
				    l->no, k, v);
				goto bad;
			}
			c->has |= k[0] == 's' ? FT_CONF_SUPERNODE :
			    k[0] == 'l' ? FT_CONF_LISTEN : FT_CONF_ADVERTISE;
		} else if (strcmp(k, "name") == 0) {
			if (word_copy(c->name, sizeof(c->name), v, k, l, why,
			    whysize) != 0)
				goto bad;
			c->has |= FT_CONF_NAME;
		} else if (strcmp(k, "key-file") == 0 ||
		    strcmp(k, "state-dir") == 0) {
			if (word_copy(k[0] == 'k' ? c->key_file : c->state_dir,
			    PATH_MAX, v, k, l, why, whysize) != 0)
				goto bad;
			c->has |= k[0] == 'k' ? FT_CONF_KEYFILE :
			    FT_CONF_STATEDIR;
		} else if (strcmp(k, "slots") == 0) {
			if (word_num(v, 1, FT_PEER_SLOTS_MAX, &x, k, l, why,
			    whysize) != 0)
				goto bad;
			c->slots = (uint32_t)x;
			c->has |= FT_CONF_SLOTS;
		} else if (strcmp(k, "jobs") == 0) {
			if (word_num(v, 1, FT_PEER_JOBS_MAX, &x, k, l, why,
			    whysize) != 0)
				goto bad;
			c->jobs = (uint32_t)x;
			c->has |= FT_CONF_JOBS;
		} else if (strcmp(k, "log-level") == 0) {
			if (word_num(v, 0, 2, &x, k, l, why, whysize) != 0)
				goto bad;
			c->verbose = (int)x;
			c->has |= FT_CONF_VERBOSE;
		} else if (strcmp(k, "refresh") == 0 ||
		    strcmp(k, "reserve-ttl") == 0) {
			uint64_t *dst = k[0] == 'r' && k[2] == 'f' ?
			    &c->refresh_ns : &c->ttl_ns;

			if (ft_parse_duration(v, dst) != 0 || *dst == 0) {
				snprintf(why, whysize, "line %zu: %s '%.40s' is "
				    "not a positive duration", l->no, k, v);
				goto bad;
			}
			c->has |= dst == &c->refresh_ns ? FT_CONF_REFRESH :
			    FT_CONF_TTL;
		} else if (strcmp(k, "allow") == 0 || strcmp(k, "deny") == 0) {
			if (ft_acl_add(k[0] == 'a' ? &c->allow : &c->deny, v,
			    sub, sizeof(sub)) != 0) {
				snprintf(why, whysize, "line %zu: %s", l->no,
				    sub);
				goto bad;
			}
		} else {
			snprintf(why, whysize, "line %zu: unknown key '%.40s'",
			    l->no, k);
			goto bad;
		}
	}
	free(l);
	if (rc < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
bad:
	free(l);
	errno = EINVAL;
	return -1;
}

static int
parse_conf(const char *text, size_t len, void *arg, char *why, size_t whysize)
{
	return ft_boot_conf_parse(text, len, arg, why, whysize);
}

int
ft_boot_conf_load(const char *path, int must, struct ft_boot_conf *c,
    char *why, size_t whysize)
{
	memset(c, 0, sizeof(*c));
	if (!must && access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	return load_file(path, parse_conf, c, why, whysize);
}

/* ---- hostfiles and host lists ---- */

static int
host_push(struct ft_hostspec **v, size_t *n, size_t *cap, const char *spec,
    uint32_t slots)
{
	struct ft_hostspec *nv;

	if ((nv = ft_grow(*v, cap, *n, sizeof(**v))) == NULL)
		return -1;
	*v = nv;
	if (ft_host_addr(spec, nv[*n].addr, sizeof(nv[*n].addr)) != 0)
		return -1;
	nv[*n].slots = slots;
	(*n)++;
	return 0;
}

int
ft_hostfile_parse_text(const char *text, size_t len, struct ft_hostspec **out,
    size_t *np, char *why, size_t whysize)
{
	struct ft_hostspec *v = NULL;
	struct line *l;
	size_t off = 0, n = 0, cap = 0, i;
	long long x;
	uint32_t slots;
	int rc;

	*out = NULL;
	*np = 0;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return -1;
	while ((rc = next_line(text, len, &off, l, why, whysize)) == 1) {
		if (l->nw == 0)
			continue;
		slots = 0;
		for (i = 1; i < l->nw; i++) {
			if (strncmp(l->w[i], "slots=", 6) != 0) {
				snprintf(why, whysize, "line %zu: '%.40s' is "
				    "not slots=N", l->no, l->w[i]);
				goto bad;
			}
			if (word_num(l->w[i] + 6, 1, FT_PEER_SLOTS_MAX, &x,
			    "slots", l, why, whysize) != 0)
				goto bad;
			slots = (uint32_t)x;
		}
		if (n == FT_WIRE_PEERS_MAX) {
			snprintf(why, whysize, "line %zu: more than %u hosts",
			    l->no, FT_WIRE_PEERS_MAX);
			goto bad;
		}
		if (host_push(&v, &n, &cap, l->w[0], slots) != 0) {
			if (errno == ENOMEM)
				goto fail;
			snprintf(why, whysize, "line %zu: '%.128s' is not "
			    "host[:port]", l->no, l->w[0]);
			goto bad;
		}
	}
	if (rc < 0)
		goto bad;
	if (n == 0) {
		snprintf(why, whysize, "no host in it");
		goto bad;
	}
	free(l);
	*out = v;
	*np = n;
	return 0;
bad:
	errno = EINVAL;
fail:
	rc = errno;
	free(l);
	free(v);
	errno = rc;
	return -1;
}

struct hosts_out {
	struct ft_hostspec	**out;
	size_t			 *n;
};

static int
parse_hosts(const char *text, size_t len, void *arg, char *why,
    size_t whysize)
{
	struct hosts_out *o = arg;

	return ft_hostfile_parse_text(text, len, o->out, o->n, why, whysize);
}

int
ft_hostfile_parse(const char *path, struct ft_hostspec **out, size_t *n,
    char *why, size_t whysize)
{
	struct hosts_out o = { out, n };

	*out = NULL;
	*n = 0;
	return load_file(path, parse_hosts, &o, why, whysize);
}

int
ft_hostlist_parse(const char *list, struct ft_hostspec **out, size_t *np,
    char *why, size_t whysize)
{
	struct ft_hostspec *v = NULL;
	char item[FT_WIRE_ADDR_MAX];
	const char *p = list;
	size_t n = 0, cap = 0, len;
	int saved;

	*out = NULL;
	*np = 0;
	for (;;) {
		len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(item))
			goto bad;
		memcpy(item, p, len);
		item[len] = '\0';
		if (n == FT_WIRE_PEERS_MAX || host_push(&v, &n, &cap, item,
		    0) != 0) {
			if (errno == ENOMEM)
				goto fail;
			goto bad;
		}
		p += len;
		if (*p == '\0')
			break;
		p++;
	}
	*out = v;
	*np = n;
	return 0;
bad:
	snprintf(why, whysize, "'%.*s' in the host list is not host[:port]",
	    (int)(len < 128 ? len : 128), p);
	errno = EINVAL;
fail:
	saved = errno;
	free(v);
	errno = saved;
	return -1;
}
