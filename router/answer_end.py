"""Whether a stream that ended without its terminal event had finished its answer.

The relay completes such a stream (`[DONE]`, or the `message_stop` a Messages stream
missed) however it ended, closed or with its connection broken: the client has the whole
answer, and an in-band error then would have an agent retry and pay for it twice. One cut
mid-answer is a cut. The answer decides, never how the stream ended, nor what was left
half-read after it: a connection that dropped inside the usage chunk, after every choice had
said why it stopped, cut nothing the client reads (the ledger estimates the usage that never
came, as for a stream without one), and the translated paths (Messages and Responses over
chat, `router.translate.exchange`) already read it so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from router.record import CHAT_APIS, Api
from router.request_size import choices_asked

if TYPE_CHECKING:
    from router.relay import Tally


def finished(api: Api, body: dict[str, Any], tally: Tally) -> bool:
    """Whether the answer to `body` was whole when its stream ended without its terminal
    event. A Responses answer is whole only in its terminal event (`tally.done`); a Messages
    answer is finished at the message_delta with its stop_reason, so only message_stop is
    missing. A chat or completions answer is finished once as many choices as the request
    asked for (`choices_asked`: `n`) said why they stopped, and none seen is still open:
    counting the choices seen alone took `n: 2` with choice 0 done and choice 1 never begun
    for a whole reply (found in review)."""
    if api == "responses" or not tally.finish_reasons:
        return False
    if api not in CHAT_APIS:
        return True
    return not tally.open_choices and len(tally.ended_choices) >= choices_asked(api, body)
