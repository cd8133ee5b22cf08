"""The session a request names, by a header or a body field, for its conversation key.

A named session is one conversation whatever its messages say (`router.conversation`
hashes it in place of the opening). The names are many and each an app's own: the router's
`x-smf-session-id`, Claude Code's and pi's headers, Open WebUI's chat id, the body's
`prompt_cache_key`; which comes first, and which is no session at all (Open WebUI's
temporary chats), is decided here, apart from how a conversation is keyed by its opening.
"""

from __future__ import annotations

from typing import Any

from router.routing_headers import session_header

# Open WebUI's chat id header (its `FORWARD_SESSION_INFO_HEADER_CHAT_ID`, by default), and the
# prefixes of a temporary chat's (`session_id`)
OPEN_WEBUI_CHAT = "x-openwebui-chat-id"
_TEMPORARY_CHATS = ("temporary:", "local:")
# pi's session affinity headers, in the order read (`affinity`)
AFFINITY = ("x-session-affinity", "session_id")


def session_id(body: dict[str, Any], headers: Any) -> tuple[str | None, str | None]:
    """The session id a request names, and else the browser tab an Open WebUI temporary chat
    names (None for each it does not). The router's own `x-smf-session-id`
    (`router.routing_headers.session_header`), Claude Code's `x-claude-code-session-id`
    header, pi's session affinity headers (`affinity`), Open WebUI's chat id
    (`OPEN_WEBUI_CHAT`), else the body's `prompt_cache_key`.

    `x-smf-session-id` comes first: it is the caller's explicit word to the router, set for
    it alone, where each of the others is an app's own id the router borrows (and a proxy in
    front of Open WebUI or Claude Code may set it to override theirs). Flowise's ChatOpenAI
    node sends no session id and no field of the caller's, only headers: its chats that open
    alike (its conversation starters make that common) were one conversation, four sessions
    sharing one pin (found in a live review of Flowise 3.1.4).

    pi's headers come after Claude Code's, each an agent's own session, which no request
    sends both of, and before the chat id and `prompt_cache_key`: like Claude Code's they
    name one agent session, set by the agent for each of its requests, where the chat id is
    only forwarded by an Open WebUI in front, and `prompt_cache_key` is a body field a
    caller's config may fix for every session (Open WebUI's custom parameter, below). In its
    chat mode pi sends no `prompt_cache_key`: seven pi sessions that opened with one ask were
    one conversation sharing one pin (found in a live review of pi 0.73.1).

    Open WebUI sends no `user`, no session id and no `prompt_cache_key`: keyed by its
    opening, twelve chats that began with one question were one conversation, and a cloud
    refusal's local pin in one held the later ones; two users of one key who open alike share
    a pin (found in review). With `ENABLE_FORWARD_USER_INFO_HEADERS=true` it sends the chat's
    id on each turn and on the chat's title, tag and follow-up requests. The chat id comes
    before `prompt_cache_key`: set as a model's custom parameter in Open WebUI, that is one
    fixed value for every chat of the model. A temporary chat's id is `temporary:` and the
    tab's socket id, the same for each temporary chat the tab opens (`local:` before): no
    session, it keys with the opening, as `user` does, so that two tabs (two users) opening
    alike are two conversations, whatever `prompt_cache_key` the model sets."""
    if (own := session_header(headers)) is not None:
        return own, None
    chat = headers.get(OPEN_WEBUI_CHAT)
    chat = chat if isinstance(chat, str) and chat else None
    agent = headers.get("x-claude-code-session-id") or affinity(headers)
    if chat and chat.startswith(_TEMPORARY_CHATS):
        # nor the model's fixed `prompt_cache_key`: every tab's temporary chats would be one
        # conversation (found in review)
        return agent, chat
    return agent or chat or body.get("prompt_cache_key") or None, None


def affinity(headers: Any) -> str | None:
    """The session pi names in its session affinity headers (`AFFINITY`), the first sent.

    pi (its `openai-completions` API with `compat.sendSessionAffinityHeaders`, off for a
    provider of one's own unless set, docs/agents/pi.md) sends its session's id as
    `x-session-affinity` and `session_id` on every request of the session;
    in its Responses mode `session_id` alone, beside `prompt_cache_key`. `x-session-affinity`
    comes first: a proxy such as nginx drops a header whose name has an underscore by
    default (`underscores_in_headers off`). `session_id` is not pi's alone: the Codex CLI
    sends its conversation id in it, the same id as its `prompt_cache_key`, so Codex's key is
    the one it was. Never `x-client-request-id`, which pi fills with the session's id too:
    by its name and in OpenAI's API it is one request's id, which a client may make anew for
    each request, and read as a session each such request would be a conversation alone."""
    for name in AFFINITY:
        value = headers.get(name)
        if isinstance(value, str) and value:
            return value
    return None
