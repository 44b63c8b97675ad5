/* SPDX-License-Identifier: ISC */
/* Fuzz the ftboot configuration parser: accepted or refused with why. */
#include "fuzz.h"
#include "peer/peer.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_boot_conf c;
	char why[FT_WIRE_TEXT_MAX];

	why[0] = '\0';
	if (ft_boot_conf_parse((const char *)data, size, &c, why,
	    sizeof(why)) != 0) {
		if (errno != EINVAL && errno != ENOMEM)
			abort();
		if (why[0] == '\0')
			abort();
		return 0;
	}
	if (c.allow.n > FT_ACL_MAX || c.deny.n > FT_ACL_MAX ||
	    ((c.has & FT_CONF_SLOTS) && (c.slots == 0 ||
	    c.slots > FT_PEER_SLOTS_MAX)) ||
	    ((c.has & FT_CONF_LISTEN) && !ft_boot_addr_ok(c.listen)))
		abort();
	return 0;
}
