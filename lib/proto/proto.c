/* SPDX-License-Identifier: ISC */
/*
 * The protocol registry: a fixed array searched by name, no plugins,
 * and the calls that run a hook or its core default.
 */
#include <bsd/string.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto.h"

static const struct ft_proto_ops *const registry[] = {
	&ft__proto_none,
	&ft__proto_replicate,
	&ft__proto_ulfm,
	&ft__proto_ftmpi,
	&ft__proto_vlog,
	&ft__proto_coord,
};

const struct ft_proto_ops *
ft_proto_find(const char *name)
{
	size_t i;

	for (i = 0; i < FT_NELEM(registry); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	errno = ENOENT;
	return NULL;
}

const char *
ft_proto_names(void)
{
	static char names[256];
	size_t i;

	/* Made from the registry, so the two never disagree. */
	if (names[0] != '\0')
		return names;
	for (i = 0; i < FT_NELEM(registry); i++) {
		if (i > 0)
			(void)strlcat(names, ", ", sizeof(names));
		(void)strlcat(names, registry[i]->name, sizeof(names));
	}
	return names;
}

int
ft_proto_init(struct ft_proto *p, const struct ft_proto_ops *ops,
    const struct ft_conf *conf, const struct ft_core_ops *core, void *arg)
{
	int saved;

	memset(p, 0, sizeof(*p));
	if (ops->abi != FT_PROTO_ABI) {
		errno = ENOTSUP;
		return -1;
	}
	p->ops = ops;
	p->conf = *conf;
	p->core = core;
	p->cookie = arg;
	if (ops->privsize > 0 && (p->priv = calloc(1, ops->privsize)) == NULL)
		return -1;
	if (ops->init != NULL && ops->init(p, conf) != 0) {
		/* fini releases whatever a failed init allocated. */
		saved = errno;
		if (ops->fini != NULL)
			ops->fini(p);
		free(p->priv);
		p->priv = NULL;
		p->ops = NULL;
		errno = saved;
		return -1;
	}
	/* ftrun --record: no tap, and no cost, without it. */
	if (conf->record_dir != NULL && ops != &ft__proto_replay &&
	    ft__tap_init(p) != 0) {
		saved = errno;
		ft_proto_release(p);
		errno = saved;
		return -1;
	}
	return 0;
}

void
ft_proto_release(struct ft_proto *p)
{
	if (p->tap != NULL)
		ft__tap_fini(p);
	if (p->ops != NULL && p->ops->fini != NULL)
		p->ops->fini(p);
	free(p->priv);
	p->priv = NULL;
	p->ops = NULL;
}

void
ft__proto_note(struct ft_proto *p, int *diverged, uint32_t kind,
    const char *fmt, ...)
{
	char text[512];
	va_list ap;

	if (kind == FT_NOTE_DIVERGE && (*diverged)++ > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	p->core->notify(p->cookie, kind, text);
}

int
ft_proto_send(struct ft_proto *p, struct ft_msg *m)
{
	p->sent++;
	if (p->ops->send == NULL)
		return 0;
	return p->ops->send(p, m);
}

int
ft_proto_deliver(struct ft_proto *p, const struct ft_msg *m)
{
	p->delivered++;
	if (p->ops->deliver == NULL)
		return 0;
	return p->ops->deliver(p, m);
}
