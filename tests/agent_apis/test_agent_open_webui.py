"""Open WebUI's background tasks are served where the chat they serve goes
(`classifier.open_webui`).

Found in a live review of Open WebUI 0.12.4 through the router: its title task for a coding
chat was instruction (the template's "Your entire response must consist solely of the JSON
object"), and the emoji of a coding reply reasoning, sent to the cloud. The bodies are built
from its templates (`tests/fixtures/open-webui-0.12.4.md`); real sockets, the official SDK,
the simulators as backends.
"""

from __future__ import annotations

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served, served_as_read
from tests.harness import RunningRouter
from tests.open_webui_tasks import task_body

CODE = "Write a Python function that parses an ISO-8601 date string, handling a trailing Z."
POEM = "Write a haiku about autumn rain on a tin roof."


def test_a_coding_chats_title_task_is_coding_served_locally(default_proxy: RunningRouter) -> None:
    body = task_body("title", [("user", CODE), ("assistant", "")])
    served_as_read(default_proxy, body, CODE, ("coding", "local"))


def test_a_poems_follow_ups_go_where_the_poem_goes(default_proxy: RunningRouter) -> None:
    body = task_body("follow_ups", [("user", POEM), ("assistant", "Rain drums the tin roof...")])
    served_as_read(default_proxy, body, POEM, ("prose", "cloud"))


def test_a_coding_chats_later_follow_ups_stay_local(default_proxy: RunningRouter) -> None:
    """Read by its latest ask alone, a coding chat's follow-ups on its second turn were
    reasoning, the code sent to the cloud; read as the chat's turn is, with its first ask,
    they are coding (found in review)."""
    why = "Why does it need the replace call?"
    reply = "```python\nreturn datetime.fromisoformat(s.replace('Z', '+00:00'))\n```"
    history = [("user", CODE), ("assistant", reply), ("user", why), ("assistant", "Before 3.11.")]
    body = task_body("follow_ups", history)
    read = explained(default_proxy, body, None)["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (len(why), len(CODE))
    assert served(default_proxy, body) == ("coding", "local")
