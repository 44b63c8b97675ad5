/* SPDX-License-Identifier: ISC */
/*
 * A minimal --host / --hostfile reader and round-robin placement for
 * jobs across hosts.  The ftboot reservation and its spread and
 * concentrate placement (lib/peer) are meant to replace them.
 */
#include <bsd/stdlib.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "job.h"

int
ft_launch_host_parse(const char *item, int with_slots,
    struct ft_launch_host *h, uint32_t *slots, char *why, size_t whysize)
{
	char buf[FT_WIRE_ADDR_MAX], *port, *sl;
	const char *errstr;
	long long v;

	memset(h, 0, sizeof(*h));
	*slots = 0;
	if (strncmp(item, "tcp:", 4) == 0)
		item += 4;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", item) >= sizeof(buf) ||
	    strlen(item) + 1 >= FT_WIRE_NODE_MAX) {
		snprintf(why, whysize, "too long");
		goto bad;
	}
	if ((port = strrchr(buf, ']')) == NULL)
		port = buf;
	if ((port = strchr(port, ':')) == NULL) {
		snprintf(why, whysize, "no port: give the agent's HOST:PORT");
		goto bad;
	}
	*port++ = '\0';
	if ((sl = strchr(port, ':')) != NULL) {
		if (!with_slots) {
			snprintf(why, whysize, "malformed port");
			goto bad;
		}
		*sl++ = '\0';
		v = strtonum(sl, 1, 1 << 20, &errstr);
		if (errstr != NULL) {
			snprintf(why, whysize, "slots '%s' is %s", sl, errstr);
			goto bad;
		}
		*slots = (uint32_t)v;
	}
	v = strtonum(port, 1, 65535, &errstr);
	if (buf[0] == '\0' || errstr != NULL) {
		snprintf(why, whysize, "malformed HOST:PORT");
		goto bad;
	}
	if ((size_t)snprintf(h->addr, sizeof(h->addr), "tcp:%s:%lld", buf,
	    v) >= sizeof(h->addr) || (size_t)snprintf(h->name,
	    sizeof(h->name), "%s:%lld", buf, v) >= sizeof(h->name)) {
		snprintf(why, whysize, "too long");
		goto bad;
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int
ft_launch_hostfile(const char *path, struct ft_launch_host **hosts,
    uint32_t **slots, size_t *nhosts, char *why, size_t whysize)
{
	struct ft_launch_host h, *nh;
	char *line = NULL, *p, *addr, *opt, inner[160];
	const char *errstr;
	uint32_t s, *ns;
	size_t cap = 0, lineno = 0;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL) {
		snprintf(why, whysize, "%s", strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) != -1) {
		lineno++;
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		addr = strtok_r(line, " \t\r\n", &p);
		if (addr == NULL)
			continue;
		if (ft_launch_host_parse(addr, 0, &h, &s, inner,
		    sizeof(inner)) != 0)
			goto bad;
		while ((opt = strtok_r(NULL, " \t\r\n", &p)) != NULL) {
			if (strncmp(opt, "slots=", 6) != 0) {
				snprintf(inner, sizeof(inner), "unknown '%s'",
				    opt);
				goto bad;
			}
			s = (uint32_t)strtonum(opt + 6, 1, 1 << 20, &errstr);
			if (errstr != NULL) {
				snprintf(inner, sizeof(inner), "'%s' is %s",
				    opt, errstr);
				goto bad;
			}
		}
		if ((nh = reallocarray(*hosts, *nhosts + 1, sizeof(*nh))) ==
		    NULL || (*hosts = nh, (ns = reallocarray(*slots,
		    *nhosts + 1, sizeof(*ns))) == NULL)) {
			snprintf(why, whysize, "out of memory");
			goto fail;
		}
		*slots = ns;
		(*hosts)[*nhosts] = h;
		(*slots)[(*nhosts)++] = s;
	}
	free(line);
	fclose(f);
	return 0;
bad:
	snprintf(why, whysize, "line %zu: %s", lineno, inner);
	errno = EINVAL;
fail:
	free(line);
	fclose(f);
	return -1;
}

int
ft_launch_place(struct ft_launch_host *hosts, const uint32_t *slots,
    size_t nhosts, uint32_t nranks, uint32_t nrep, uint32_t *host_of_proc,
    int *shared)
{
	size_t cursor = 0, t, pick;
	uint32_t r, k, j;
	int pass, clash;

	*shared = 0;
	for (t = 0; t < nhosts; t++)
		hosts[t].nprocs = 0;
	for (r = 0; r < nranks; r++)
		for (k = 0; k < nrep; k++) {
			pick = nhosts;
			/* First a host without a replica of this rank. */
			for (pass = 0; pass < 2 && pick == nhosts; pass++)
				for (t = 0; t < nhosts && pick == nhosts;
				    t++) {
					size_t c = (cursor + t) % nhosts;

					if (slots[c] != 0 &&
					    hosts[c].nprocs >= slots[c])
						continue;
					for (clash = 0, j = 0; j < k; j++)
						if (host_of_proc[r * nrep + j] ==
						    c)
							clash = 1;
					if (pass == 0 && clash)
						continue;
					pick = c;
					if (clash)
						*shared = 1;
				}
			if (pick == nhosts) {
				errno = ENOSPC;
				return -1;
			}
			host_of_proc[r * nrep + k] = (uint32_t)pick;
			hosts[pick].nprocs++;
			cursor = pick + 1;
		}
	return 0;
}
