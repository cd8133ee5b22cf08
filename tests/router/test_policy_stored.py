"""A turn continuing a stored Responses reply (`Demand.response_home`) is planned onto the
backend that stored it and no other, whatever its route, a gate, saturation or a sticky
pin prefers; privacy still wins, and an impossible turn is the client's 400."""

from __future__ import annotations

import pytest

from classifier.intent import Intent
from router.config import Config, parse
from router.errors import BadRequest, NoBackendAvailable
from router.policy import BackendState, Demand, detoured, plan
from router.refusals import nothing_tried
from router.stored_responses import ResponseNotFound, StoredResponses, conversation_slot
from router.target import Target

CODING = Intent("coding", 0.9, "model")
AUTO = Target("auto")


def config() -> Config:
    backends = [
        {"name": n, "tier": t, "base_url": f"http://{n}/v1", "model": "m", "apis": ["responses"]}
        for n, t in (("local", "local"), ("cloud", "cloud"), ("spare", "cloud"))
    ]
    return parse({"backends": backends})  # the default routes: coding local, then cloud


CFG = config()


def test_the_home_alone_whatever_the_gate_the_saturation_and_the_sticky_pin() -> None:
    states = {"cloud": BackendState(saturated=True, gated_intents=frozenset({"coding"}))}
    demand = Demand(api="responses", response_home="cloud", sticky_backend="local")
    p = plan(CODING, AUTO, demand, states, CFG)
    assert p.backends == ("cloud",)
    assert [(s.backend, s.reason) for s in p.skipped] == [("local", "response_elsewhere")]
    assert not detoured(p, [], "cloud")  # a lasting reason: the conversation may pin


def test_a_home_outside_the_route_is_still_the_only_one() -> None:
    p = plan(CODING, AUTO, Demand(api="responses", response_home="spare"), {}, CFG)
    assert p.backends == ("spare",)
    assert {s.reason for s in p.skipped} == {"response_elsewhere"}


def test_a_home_down_is_a_503_not_another_backend() -> None:
    states = {"cloud": BackendState(circuit="open")}
    p = plan(CODING, AUTO, Demand(api="responses", response_home="cloud"), states, CFG)
    assert p.backends == ()
    assert isinstance(nothing_tried(p, "responses", None), NoBackendAvailable)


def test_a_private_turn_whose_home_is_cloud_is_a_400_naming_it() -> None:
    demand = Demand(api="responses", response_home="cloud", private=True)
    p = plan(CODING, AUTO, demand, {}, CFG)
    assert p.backends == ()
    error = nothing_tried(p, "responses", None)
    assert isinstance(error, BadRequest) and error.param == "previous_response_id"
    assert "'cloud', a cloud backend" in error.message


def test_a_forced_backend_other_than_the_home_is_a_400_naming_both() -> None:
    forced = Target("backend", "local")
    p = plan(CODING, forced, Demand(api="responses", response_home="cloud"), {}, CFG)
    assert p.backends == ()
    error = nothing_tried(p, "responses", None)
    assert isinstance(error, BadRequest) and error.param == "previous_response_id"
    assert "'cloud', which 'local' does not use" in error.message


def test_a_forced_backend_serves_a_conversation_homed_elsewhere() -> None:
    """A conversation's home is only where the router last saw it served: the backend the
    client names may hold it, and is planned alone, nothing skipped for the home."""
    forced = Target("backend", "local")
    demand = Demand(api="responses", response_home="cloud", server_state="conversation")
    p = plan(CODING, forced, demand, {}, CFG)
    assert p.backends == ("local",) and p.skipped == () and p.response_home is None


def test_a_route_keeps_a_conversation_on_its_home() -> None:
    demand = Demand(api="responses", response_home="spare", server_state="conversation")
    p = plan(CODING, Target("route", "coding"), demand, {}, CFG)
    assert p.backends == ("spare",)
    assert {s.reason for s in p.skipped} == {"response_elsewhere"}


def test_no_home_plans_as_before() -> None:
    p = plan(CODING, AUTO, Demand(api="responses"), {}, CFG)
    assert p.backends == ("local", "cloud") and p.response_home is None


def mixed() -> Config:
    """local speaks Responses itself; cloud and spare chat only (served by translation)."""
    apis = {"local": ["chat", "responses"], "cloud": ["chat"], "spare": ["chat"]}
    backends = [
        {"name": n, "tier": t, "base_url": f"http://{n}/v1", "model": "m", "apis": apis[n]}
        for n, t in (("local", "local"), ("cloud", "cloud"), ("spare", "cloud"))
    ]
    return parse({"backends": backends})


MATH = Intent("math", 0.9, "model")  # the default routes: math cloud first


@pytest.mark.parametrize("field", ["previous_response_id", "conversation"])
def test_server_state_skips_every_backend_that_would_translate_it(field: str) -> None:
    """Translation refused it after the attempt began (a 400 naming the chat backend,
    counted against it) or dropped it (`conversation`): found in review."""
    demand = Demand(api="responses", server_state=field)
    p = plan(MATH, AUTO, demand, {}, mixed())
    assert p.backends == ("local",)
    assert {(s.backend, s.reason) for s in p.skipped} == {("cloud", "api_unsupported")}
    assert plan(MATH, AUTO, Demand(api="responses"), {}, mixed()).backends[0] == "cloud"


def test_server_state_with_no_backend_speaking_responses_is_a_400_naming_the_field() -> None:
    forced = Target("backend", "cloud")
    demand = Demand(api="responses", server_state="conversation")
    p = plan(MATH, forced, demand, {}, mixed())
    assert p.backends == ()
    error = nothing_tried(p, "responses", None)
    assert isinstance(error, BadRequest) and error.param == "conversation"
    assert "a chat backend holds no stored state" in error.message


def test_a_response_made_over_chat_is_told_whole_and_ids_are_each_callers_own() -> None:
    """No backend holds one the router made: it pins nowhere, and its conversation is told
    whole (`whole`); kept without its turn's input (`own`), it cannot be, and is refused."""
    stored, names = StoredResponses(10), {"local", "cloud"}
    turn, made = {"previous_response_id": "resp_1"}, {"previous_response_id": "resp_chatcmpl-2"}
    stored.made("responses", {}, "alice", "resp_1", "cloud")
    stored.made("responses", {}, "alice", "resp_chatcmpl-2", None)  # translated: the router's
    assert stored.home("responses", turn, "alice", names) == "cloud"
    home, continued = stored.lookup("responses", made, "alice", names)
    assert home is None and continued is not None
    with pytest.raises(BadRequest) as refused:
        stored.whole("responses", made, "alice", continued, 1 << 20)
    assert refused.value.param == "previous_response_id"
    for body, response_id in ((turn, "resp_1"), (made, "resp_chatcmpl-2")):
        with pytest.raises(ResponseNotFound) as foreign:  # another caller's: refused, not sent
            stored.home("responses", body, "bob", names)
        assert foreign.value.message == f"Previous response with id '{response_id}' not found."
        assert "alice" not in foreign.value.json().decode()


def test_a_conversation_slot_is_a_keyed_hash_of_caller_and_id() -> None:
    """32 hex digits however long the id; the caller and id kept apart; the ledger's secret
    keys it, as it keys conversation keys."""
    secret = b"s" * 32
    slot = conversation_slot("alice", "conv_" + "x" * 100_000, secret)
    assert len(slot) == 32 and "x" not in slot
    assert conversation_slot("a", "bconv", secret) != conversation_slot("ab", "conv", secret)
    assert conversation_slot("alice", "conv_1", secret) != conversation_slot(
        "alice", "conv_1", b"t" * 32
    )
    assert len(conversation_slot("alice", "conv_\ud800", secret)) == 32  # a lone surrogate
    stored = StoredResponses(10, secret)
    stored.made("responses", {"conversation": "conv_1"}, "alice", "resp_1", "cloud")
    assert list(stored.conversations._entries) == [conversation_slot("alice", "conv_1", secret)]
    assert stored.home("responses", {"conversation": {"id": "conv_1"}}, "alice", {"cloud"}) == (
        "cloud"
    )


def test_who_made_an_id_is_bounded_as_where_it_lives() -> None:
    """Forgotten (pushed out by newer ids), an id is unknown to every caller alike."""
    stored, names = StoredResponses(2), {"local", "cloud"}
    stored.made("responses", {}, "alice", "resp_1", "local")
    stored.made("responses", {}, "alice", "resp_2", "local")
    stored.made("responses", {}, "bob", "resp_3", "local")
    assert len(stored.owners) == 2
    assert stored.home("responses", {"previous_response_id": "resp_1"}, "bob", names) is None
    with pytest.raises(ResponseNotFound):
        stored.home("responses", {"previous_response_id": "resp_2"}, "bob", names)


def test_a_store_false_reply_takes_no_slot_from_a_home() -> None:
    """Codex sends `store: false` on every turn; its translated replies were kept as "made
    over chat" and, the table full, pushed out other callers' homes (found in review)."""
    stored, names = StoredResponses(2), {"local", "cloud"}
    stored.made("responses", {}, "alice", "resp_1", "cloud")
    for n in range(5):
        stored.made("responses", {"store": False}, "codex", f"resp_chatcmpl-{n}", None)
        stored.made("responses", {"store": False}, "codex", f"resp_{n}", "local")
    assert stored.home("responses", {"previous_response_id": "resp_1"}, "alice", names) == "cloud"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"prompt": {"id": "pmpt_1", "variables": {"x": "y"}}, "input": "hi"}, "prompt"),
        (
            {
                "input": [
                    {"type": "item_reference", "id": "msg_1"},
                    {"role": "user", "content": "and what next?"},
                ]
            },
            "input",
        ),
        (  # `type` is optional in a reference (found in review)
            {"input": [{"id": "msg_1"}, {"role": "user", "content": "and what next?"}]},
            "input",
        ),
        (
            {"input": [{"id": "msg_1", "type": None}, {"role": "user", "content": "and?"}]},
            "input",
        ),
    ],
)
def test_a_stored_prompt_or_item_is_server_state(body: dict[str, object], field: str) -> None:
    """A stored prompt template and an input item that only references a stored one were
    dropped in translation: the chat backend answered without them (found in review). They
    go to backends speaking Responses; the classifier's view reads the rest of the turn."""
    from router.translate import responses_request
    from router.translate.view import chat_view

    assert responses_request.server_state(body) == field
    with pytest.raises(responses_request.Untranslatable):
        responses_request.to_chat(body)
    assert chat_view("responses", body)["messages"]  # the view still reads the turn
