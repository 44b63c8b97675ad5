/* SPDX-License-Identifier: ISC */
/*
 * The rank's side of a job: read what the launcher put in the
 * environment, then join the job: connect, authenticate, register our
 * addresses and receive the table of everyone's.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "job.h"

static int
get_u32(const char *(*get)(const char *), const char *name, uint32_t max,
    uint32_t *out)
{
	const char *s = get(name);
	char *end;
	unsigned long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int
ft_job_env_read(struct ft_job_env *e, const char *(*get)(const char *),
    const char **why)
{
	const char *s;
	uint32_t fd;

	memset(e, 0, sizeof(*e));
	*why = NULL;
	e->nrep = 1;
	if (get(FT_ENV_LAUNCHER) == NULL) {
		e->rank = 0;
		e->size = 1;
		return 0;
	}
	if (get_u32(get, FT_ENV_SIZE, FT_WIRE_MAX_RANKS, &e->size) != 0 ||
	    e->size == 0)
		*why = FT_ENV_SIZE;
	else if (get_u32(get, FT_ENV_RANK, e->size - 1, &e->rank) != 0)
		*why = FT_ENV_RANK;
	else if (get_u32(get, FT_ENV_NODE, UINT32_MAX, &e->node) != 0)
		*why = FT_ENV_NODE;
	else if (get_u32(get, FT_ENV_KEYFD, 65535, &fd) != 0)
		*why = FT_ENV_KEYFD;
	else if (get(FT_ENV_REPLICAS) != NULL &&
	    (get_u32(get, FT_ENV_REPLICAS, FT_REPLICAS_MAX, &e->nrep) != 0 ||
	    e->nrep == 0 || (uint64_t)e->nrep * e->size > FT_WIRE_MAX_RANKS))
		*why = FT_ENV_REPLICAS;
	else if (e->nrep > 1 &&
	    get_u32(get, FT_ENV_REPLICA, e->nrep - 1, &e->replica) != 0)
		*why = FT_ENV_REPLICA;
	if (*why != NULL)
		goto bad;
	/* Dynamic processes: absent for a job that never spawns. */
	e->universe = e->size * e->nrep;
	if (get(FT_ENV_WORLD_BASE) != NULL &&
	    (get_u32(get, FT_ENV_WORLD_BASE, FT_WIRE_MAX_RANKS - e->size,
	    &e->base) != 0 || (e->base > 0 && e->nrep > 1)))
		*why = FT_ENV_WORLD_BASE;
	else if (get(FT_ENV_WORLD) != NULL &&
	    get_u32(get, FT_ENV_WORLD, FT_WIRE_MAX_RANKS, &e->world) != 0)
		*why = FT_ENV_WORLD;
	else if (get(FT_ENV_UNIVERSE) != NULL &&
	    (get_u32(get, FT_ENV_UNIVERSE, FT_WIRE_MAX_RANKS,
	    &e->universe) != 0 || e->universe < e->size * e->nrep))
		*why = FT_ENV_UNIVERSE;
	else if (get(FT_ENV_APPNUM) != NULL &&
	    get_u32(get, FT_ENV_APPNUM, INT32_MAX, &e->appnum) != 0)
		*why = FT_ENV_APPNUM;
	if (*why != NULL)
		goto bad;
	s = get(FT_ENV_PARENT);
	e->spawned = s != NULL && strcmp(s, "1") == 0;
	snprintf(e->launcher, sizeof(e->launcher), "%s", get(FT_ENV_LAUNCHER));
	if ((s = get(FT_ENV_JOBDIR)) != NULL)
		snprintf(e->dir, sizeof(e->dir), "%s", s);
	if ((s = get(FT_ENV_PROTO)) != NULL)
		snprintf(e->proto, sizeof(e->proto), "%s", s);
	else
		snprintf(e->proto, sizeof(e->proto), "none");
	if ((s = get(FT_ENV_TCP_HOST)) != NULL)
		snprintf(e->tcp_host, sizeof(e->tcp_host), "%s", s);
	s = get(FT_ENV_TCP);
	e->force_tcp = s != NULL && strcmp(s, "1") == 0;
	s = get(FT_ENV_DIVERGE);
	e->check_divergence = s != NULL && strcmp(s, "1") == 0;
	if (ft_job_key_read((int)fd, e->key) != 0) {
		*why = "the job key";
		goto bad;
	}
	return 1;
bad:
	errno = EINVAL;
	return -1;
}

int
ft_job_key_read(int fd, uint8_t key[FT_WIRE_KEYLEN])
{
	size_t got = 0;
	ssize_t n;

	while (got < FT_WIRE_KEYLEN) {
		n = read(fd, key + got, FT_WIRE_KEYLEN - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != FT_WIRE_KEYLEN) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
ft_job_join(const struct ft_job_env *e, const struct ft_rank_addr *self,
    struct ft_conn *ctl, struct ft_msg_table *table, int timeout_ms)
{
	uint64_t deadline = ft_now_ns() + (uint64_t)timeout_ms * 1000000;
	struct ft_msg_register reg;
	const uint8_t *body;
	struct ft_wbuf wb;
	struct ft_hdr h;
	uint32_t self_id = ft_job_self(e);
	int fd, saved;

	/* A full accept queue (many ranks at once) is worth waiting out. */
	while ((fd = ft_net_connect(e->launcher)) == -1) {
		if (errno != EAGAIN || ft_now_ns() >= deadline)
			return -1;
		(void)poll(NULL, 0, 1);
	}
	if (ft_conn_connecting(ctl, fd, e->key, self_id, FT_ROLE_RANK) != 0) {
		close(fd);
		return -1;
	}
	if (ft_conn_await(ctl, 0, 0, &h, &body, deadline) < 0)
		goto fail;
	reg.rank = self_id;
	reg.addr = *self;
	ft_wbuf_init(&wb);
	if (ft_msg_register_encode(&wb, self_id, &reg) != 0 ||
	    ft_conn_queue_copy(ctl, wb.p, wb.len) != 0) {
		ft_wbuf_release(&wb);
		goto fail;
	}
	ft_wbuf_release(&wb);
	if (ft_conn_await(ctl, FT_MSG_TABLE, 0, &h, &body, deadline) < 0)
		goto fail;
	if (ft_msg_table_decode(body, h.len - FT_WIRE_HDRLEN, table) != 0)
		goto fail;
	/* The table holds every process that joined so far, ours too. */
	if (table->n < e->base + e->size * e->nrep) {
		ft_msg_table_free(table);
		errno = EPROTO;
		goto fail;
	}
	return 0;
fail:
	saved = errno;
	ft_conn_release(ctl);
	errno = saved;
	return -1;
}

uint32_t
ft_job_self(const struct ft_job_env *e)
{
	return e->base + e->rank * e->nrep + e->replica;
}

int
ft_job_await(struct ft_conn *ctl, unsigned int type, struct ft_hdr *h,
    const uint8_t **body, int timeout_ms)
{
	if (ft_conn_await(ctl, type, 0, h, body, ft_now_ns() +
	    (uint64_t)timeout_ms * 1000000) < 0)
		return -1;
	return 0;
}
