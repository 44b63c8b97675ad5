/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_msg_spawn_decode, which allocates: a failed decode leaves
 * nothing allocated, a successful one is freed with ft_msg_spawn_free
 * (LeakSanitizer checks both), with the encode round trip.
 */
#include "fuzz.h"

static int
cmd_eq(const struct ft_spawn_cmd *a, const struct ft_spawn_cmd *b)
{
	uint32_t k;

	if (a->maxprocs != b->maxprocs || strcmp(a->command, b->command) != 0 ||
	    a->argc != b->argc || a->ninfo != b->ninfo ||
	    a->argv[a->argc] != NULL)
		return 0;
	for (k = 0; k < a->argc; k++)
		if (strcmp(a->argv[k], b->argv[k]) != 0)
			return 0;
	for (k = 0; k < a->ninfo; k++)
		if (strcmp(a->keys[k], b->keys[k]) != 0 ||
		    strcmp(a->vals[k], b->vals[k]) != 0)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_spawn m, m2;
	struct ft_wbuf b;
	const uint8_t *body;
	uint32_t i;

	if (ft_msg_spawn_decode(data, size, &m) != 0) {
		if (m.cmds != NULL || m.parents != NULL || m.ncmds != 0)
			abort();
		return errno == ENOMEM ? 0 : fuzz_refused();
	}
	if (m.nparents == 0 || m.ncmds == 0 || m.ncmds > FT_SPAWN_CMDS_MAX)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_spawn_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_SPAWN, data, size);
	if (ft_msg_spawn_decode(body, size, &m2) != 0 ||
	    m2.reqid != m.reqid || m2.nparents != m.nparents ||
	    memcmp(m.parents, m2.parents, m.nparents * sizeof(*m.parents)) !=
	    0 || m2.ncmds != m.ncmds)
		abort();
	for (i = 0; i < m.ncmds; i++)
		if (!cmd_eq(&m.cmds[i], &m2.cmds[i]))
			abort();
	ft_msg_spawn_free(&m);
	ft_msg_spawn_free(&m2);
	ft_wbuf_release(&b);
	return 0;
}
