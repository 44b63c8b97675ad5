/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_note_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_note m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_note_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.kind == 0 || m.kind > FT_NOTE_KIND_MAX ||
	    strnlen(m.text, sizeof(m.text)) >= FT_WIRE_TEXT_MAX)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_note_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_NOTE, data, size);
	if (ft_msg_note_decode(body, size, &m2) != 0 || m.kind != m2.kind ||
	    strcmp(m.text, m2.text) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
