"""Where each stored Responses reply lives: a turn that continues it goes back there.

A Responses turn with `previous_response_id` carries only its new input; the conversation
so far is stored on the server that answered the turn it names, and on no other. Routed by
its new input (another intent, a local backend full when turn 1 came), it reached a
backend that never saw turn 1 and the client got that backend's 404 (found in review). So
the gateway remembers, for each reply a backend that speaks Responses itself stored, which
backend made it, and the policy sends a turn that names it there only (`response_elsewhere`
skips the others). A pin of correctness, not preference: unlike a sticky conversation it
holds whatever the route, a gate, a saturation or an open circuit says, and stickiness
turned off (`sticky_ttl_s: 0`) does not turn it off. An id it does not know (made before a
restart, or by a backend reached around the router) is routed as before, to a backend that
speaks Responses itself (`policy._unfit`: a chat one holds no state to continue).

A reply the router made itself, translating a chat backend's answer, no backend holds:
the router keeps its items and the turn that made it (`router.stored_items`), and a turn
continuing it becomes the whole conversation, without the id, before it is classified or
routed (`whole`), for any backend (sent as it was, it reached the chat backend, whose
translation refused it as if the backend had, or a vLLM that answered its own 404: found
in review). Ids are kept per caller, as conversation keys are, and a private caller is
never told where one lives. Another caller's id is refused as OpenAI refuses an id it does
not hold (400, `previous_response_not_found`), naming no one: treated as unknown it was
routed as before, and a backend, which knows no callers, continued it with the first
caller's conversation (found in review). Callers are key names (an open router has one,
`anonymous`), so a reload that renames a key leaves its ids to the old name: its caller's
own turns continuing them are refused until they age out, and they start again with their
whole input; a name given to another key hands it the ids; keys added to an open router
refuse every id made before.

A turn that continues a stored response carries neither the first user message nor a
session id, so the conversation key read from it (`router.conversation.conversation_key`) was
one of the caller's `user` and instructions alone: every chained turn of every session
with the same instructions shared it, and a sticky pin from one session's cloud turn held
the others' (found in review). So each reply keeps, beside its backend, its turn's
conversation key, and a turn continuing it takes that key (`Turn`); and the intent of its
turn, for a turn whose own input the classifier reads nothing in (only a tool's output),
which the default route took while the backend came from the pin: a chat request's whole
history says what the conversation asks, a chained turn's new items do not.

The Conversations API's `conversation` names a conversation stored on one server too, and
every turn names it: it is pinned alike, to the backend that served its last turn, per
caller (`home`). A sticky pin would not do: it gives way to a detour (a backend down,
full, gated), and whichever backend the detour reached holds no such conversation. A
conversation the router has not seen served (its first turn here) is routed as before,
to a backend that speaks Responses itself. Unlike a response id, another caller's
conversation id is not refused: conversations are made at the provider, not through the
router, which cannot tell who made one. Nor can it tell that no other backend holds one:
a turn whose `model` names a backend is served there, and the home moves with it
(`router.policy`); its first turn went wherever its route led, and the pin kept it there,
refusing even the client who named the backend that holds it (found in review).

A conversation id is the client's, of any length (OpenAI documents none; its own are
`conv_` and 48 hex digits), so the table keeps a keyed hash of it (`conversation_slot`),
not the id: `sticky_max_entries` bounds entries, not bytes, and a 2 MB id was kept as
sent for 30 days (found in review). A long one is not refused: once hashed it costs
nothing past its request (`server.max_body_bytes`), and a limit of the router's own could
refuse an id some server that speaks Responses accepts; a backend that holds no such
conversation says so itself.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from classifier.intent import Intent
from router.errors import BadRequest
from router.record import Api
from router.sticky import StickyTable, Table
from router.stored_items import ChainBroken, Own, StoredItems, own_items, starts

# How long an id is kept: OpenAI stores a response for 30 days; vLLM until it restarts.
# `sticky_max_entries` bounds the table, least recently made first out.
KEPT_S = 30 * 86400.0
# Where an id the router made by translation lives: nowhere (no backend is named so).
MADE_OVER_CHAT = ""


class ResponseNotFound(BadRequest):
    """`previous_response_id` names another caller's response: answered as OpenAI answers
    an id it does not hold (a 400, not vLLM's 404), so the refusal says neither whose it is
    nor that it exists elsewhere."""

    code = "previous_response_not_found"

    def __init__(self, response_id: str) -> None:
        message = f"Previous response with id '{response_id}' not found."
        super().__init__(message, param="previous_response_id")


@dataclass(frozen=True, slots=True)
class Turn:
    """The turn that made a stored response, or last served a stored conversation: the
    backend that holds it (`MADE_OVER_CHAT`: none), the turn's conversation key ("": not
    known) and its intent (None: not known)."""

    backend: str
    conversation: str = ""
    intent: Intent | None = None


def key(caller: str, response_id: str) -> str:
    """The table's key: one caller's id (the NUL keeps `a`+`bc` apart from `ab`+`c`)."""
    return f"{caller}\0{response_id}"


def conversation_slot(caller: str, conversation: str, secret: bytes) -> str:
    """The conversation table's key: a hash of one caller's conversation id, each part length
    first (caller `a` with id `bc` is not caller `ab` with id `c`), keyed with the ledger's
    `secret` as conversation keys are (`router.conversation.conversation_key`): 32 hex digits,
    however long the id."""
    digest = hashlib.blake2b(digest_size=16, key=secret)
    for part in (caller, conversation):
        data = part.encode(errors="surrogatepass")  # a JSON string may hold a lone surrogate
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def conversation_of(body: dict[str, Any]) -> str | None:
    """The id of the stored conversation a Responses body names: `conversation` is its id,
    or an object holding it (`{"id": "conv_…"}`)."""
    named = body.get("conversation")
    if isinstance(named, dict):
        named = named.get("id")
    return named if isinstance(named, str) and named else None


def carried(intent: Intent, continued: Turn | None) -> Intent:
    """`intent`, or the intent of the turn a Responses turn continues (`continued`) when the
    classifier read nothing in the turn's own new items (only a tool's output)."""
    if intent.source == "default" and continued is not None and continued.intent is not None:
        return continued.intent
    return intent


class StoredResponses:
    """(caller, response id) → the turn that stored it, (caller, conversation id) → the
    turn that last served it (`conversation_slot`, keyed with `secret`), response id → its
    caller, and (caller, item id) → an item the router made (`items`), each LRU-bounded
    alike, with a TTL."""

    def __init__(
        self, max_entries: int, secret: bytes = b"", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.secret = secret
        self.table: Table[Turn] = Table(KEPT_S, max_entries, clock)
        self.conversations: Table[Turn] = Table(KEPT_S, max_entries, clock)
        self.owners = StickyTable(KEPT_S, max_entries, clock)
        self.items = StoredItems(KEPT_S, max_entries, clock)

    def __len__(self) -> int:
        return len(self.table)

    def home(
        self, api: Api, body: dict[str, Any], caller: str, configured: Collection[str]
    ) -> str | None:
        """The backend that stored the response `body` continues, or else the conversation it
        names (`lookup`)."""
        return self.lookup(api, body, caller, configured)[0]

    def lookup(
        self, api: Api, body: dict[str, Any], caller: str, configured: Collection[str]
    ) -> tuple[str | None, Turn | None]:
        """The turn `body` continues (`continued`), and its backend when `caller` made it and
        it is still configured (one a reload removed leaves the turn routed as before): one
        look in the tables per request, for the pin and for the key and intent it carries.
        Raises `ResponseNotFound` for another caller's response. One the router made over
        chat (`MADE_OVER_CHAT`) is in no backend: `whole` tells its conversation."""
        turn = self.continued(api, body, caller)
        backend = turn.backend if turn else None
        previous = body.get("previous_response_id") if api == "responses" else None
        if isinstance(previous, str) and previous:
            owner = self.owners.get(previous)
            if owner is not None and owner != caller:
                raise ResponseNotFound(previous)
        return (backend if backend in configured else None), turn

    def whole(
        self,
        api: Api,
        body: dict[str, Any],
        caller: str,
        continued: Turn | None,
        limit: int,
        reachable: bool = True,
    ) -> tuple[dict[str, Any], Own | None]:
        """`body` with what the router made for `caller` in place of what names it: each
        reference to an item as the item (`StoredItems.expanded`), and a response it made
        (`previous_response_id`) as the conversation up to it, before the turn's own input,
        without the id (`StoredItems.history`), at most `limit` bytes of each; and the turn's
        own input, to keep with its answer (None: it continues a backend's response, which
        that backend keeps; sent whole, without the id, the items after the response the
        router made that it begins with, `StoredItems.related`). `continued`: the turn
        `lookup` found. Raises `ChainBroken` for a response made over chat whose
        conversation the router no longer holds whole.

        `reachable`: some configured backend speaks Responses itself, and may hold a response
        the router does not know (made before a restart, or around the router). With none,
        an id the router does not hold is held nowhere it can reach (one asked not to be
        stored, one made elsewhere or never): refused as OpenAI refuses it
        (`ResponseNotFound`), the same answer as another caller's id, so neither tells the
        other apart. It was the plan's refusal of a chat backend, which told the client to
        send it to a model whose backends speak Responses, when there was none (found in a
        live run of the openai SDK). With one, they differ: an unknown id gets that refusal
        or the backend's own answer, another caller's id `ResponseNotFound`; an id is 64
        random bits (`responses_ids`), so the difference tells a guesser nothing usable."""
        if api != "responses":
            return body, None
        body = self.items.expanded(body, caller, limit)
        own = own_items(body.get("input"))
        previous = body.get("previous_response_id")
        if not isinstance(previous, str) or not previous:
            return body, Own(None, own) if starts(own) else self.items.related(caller, own, limit)
        history = self.items.history(caller, previous, limit)
        if history is None:
            if continued is not None and continued.backend == MADE_OVER_CHAT:
                raise ChainBroken(previous, previous)
            if continued is None and not reachable:
                raise ResponseNotFound(previous)
            return body, None  # a backend's: it goes there as sent
        told = {name: value for name, value in body.items() if name != "previous_response_id"}
        return {**told, "input": history + own}, Own(previous, own)

    def continued(self, api: Api, body: dict[str, Any], caller: str) -> Turn | None:
        """The turn that made the response `body` continues (`previous_response_id`), or else
        that last served the conversation it names, as `caller`'s; None when not known."""
        if api != "responses":
            return None
        previous = body.get("previous_response_id")
        if isinstance(previous, str) and previous:
            return self.table.get(key(caller, previous))
        conversation = conversation_of(body)
        if conversation is None:
            return None
        return self.conversations.get(conversation_slot(caller, conversation, self.secret))

    def made(
        self,
        api: Api,
        body: dict[str, Any],
        caller: str,
        response_id: str,
        backend: str | None,
        conversation: str = "",
        intent: Intent | None = None,
        output: Sequence[Any] = (),
        own: Own | None = None,
    ) -> None:
        """`backend`, which speaks Responses itself, answered `caller` with `response_id`
        (None: the router made it, translating a chat backend's answer, whose `output` items
        it keeps, and the turn's `own` input: `whole`), in the turn keyed `conversation` and
        read as `intent`. Not one asked not
        to store it (`store: false`): there is nothing to continue, as a backend would say.
        The conversation `body` names lives on `backend` from now on, whatever `store` says
        (the server adds the turn)."""
        if api != "responses":
            return
        turn = Turn(backend or MADE_OVER_CHAT, conversation, intent)
        named = conversation_of(body)
        if named and backend:  # only a backend that speaks Responses serves one (`policy`)
            self.conversations.remember(conversation_slot(caller, named, self.secret), turn)
        if not response_id or body.get("store") is False:
            return  # Codex sends store: false on every turn: such ids took slots from homes
        self.table.remember(key(caller, response_id), turn)
        self.owners.remember(response_id, caller)
        if not backend:
            self.items.keep(caller, output, response_id, own)

    def resize(self, max_entries: int) -> None:
        self.table.resize(KEPT_S, max_entries)
        self.conversations.resize(KEPT_S, max_entries)
        self.owners.resize(KEPT_S, max_entries)
        self.items.resize(KEPT_S, max_entries)
