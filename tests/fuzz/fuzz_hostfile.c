/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the hostfile parser (and the host list parser on the same
 * bytes): every accepted host is a valid tcp:HOST:PORT address.
 */
#include "fuzz.h"
#include "peer/peer.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_hostspec *h;
	char why[FT_WIRE_TEXT_MAX], *list;
	size_t n, i;

	if (ft_hostfile_parse_text((const char *)data, size, &h, &n, why,
	    sizeof(why)) == 0) {
		for (i = 0; i < n; i++)
			if (!ft_boot_addr_ok(h[i].addr) ||
			    h[i].slots > FT_PEER_SLOTS_MAX)
				abort();
		free(h);
	} else if (errno != EINVAL && errno != ENOMEM)
		abort();
	if ((list = malloc(size + 1)) == NULL)
		return 0;
	memcpy(list, data, size);
	list[size] = '\0';
	if (ft_hostlist_parse(list, &h, &n, why, sizeof(why)) == 0) {
		for (i = 0; i < n; i++)
			if (!ft_boot_addr_ok(h[i].addr))
				abort();
		free(h);
	}
	free(list);
	return 0;
}
