"""A Responses answer kept for the turns that continue it, before its client can send one.

The router keeps, for each Responses answer, where it lives (`router.stored_responses`: a
backend that speaks Responses, for `previous_response_id`) and, when it made the answer
itself over a chat backend, its output items and the turn's own input (`router.stored_items`,
for `item_reference` and for `previous_response_id`).
A client continues an answer as soon as it has the end of it: the Vercel AI SDK's tool loop
starts its next step at `response.completed`, as does an `openai` SDK loop. Kept as the
record was finished, in the relay's `finally` after the terminal event went out, a next
turn that reached the router first was refused (400) or routed away from the backend that
stored the answer, whenever anything between the two let the event loop run (a send that
waits for the client, an upstream close that waits for the network). So the answer is kept
when the relay has its terminal event in hand, before sending it, and a whole reply before
it is sent (`Gateway.read_whole`); the record's finish keeps it then if nothing did before
(an answer that ended otherwise: cut, failed, cancelled), once per answer (`Tally.remembered`).

Which answers are kept is the same either way: every Responses answer a backend committed to,
whatever its end (a cut stream's id and the items it finished too). Nothing is read after
the terminal event (the relay stops there), so the answer kept early is the one finished.
"""

from __future__ import annotations

from router.call import Call
from router.config import Config
from router.relay import Tally
from router.stored_responses import StoredResponses
from router.translate.pairing import native


def remember(stored: StoredResponses, config: Config, call: Call, tally: Tally) -> None:
    """Keep the Responses answer `tally` saw in `stored`, once: its id where it lives (None:
    the router made it from a chat backend's answer, and keeps its output items and the
    turn's own input, `call.own`)."""
    record = call.record
    if tally.remembered or not record.backend or call.api != "responses":
        return
    tally.remembered = True
    home = record.backend if native(call.api, config.backend(record.backend)) else None
    made = (tally.response_id, home, record.conversation or "", call.plan.intent)
    stored.made(call.api, call.body, record.caller, *made, tally.output_items(), call.own)
