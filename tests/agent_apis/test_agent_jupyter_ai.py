"""jupyter-ai's `%%ai` cells are served where their prompts go, not where the magic's format
sentence sent them (`classifier.jupyter_ai`).

Found running jupyter-ai-magics 2.31.7 against the router: each default cell ends "Produce
output in markdown format only.", and a story, a mean and an explanation were all
instruction, served locally. The bodies are the magic's
(`tests/fixtures/jupyter-ai-magics-2.31.7.md`); real sockets, the official SDK not streaming
as langchain-openai sends them, the simulators as backends.
"""

from __future__ import annotations

from tests.agent_apis.served import served, served_as_read
from tests.classifier.test_classifier_jupyter_ai import STORY, recorded
from tests.harness import RunningRouter


def test_a_default_cells_story_goes_to_the_cloud(default_proxy: RunningRouter) -> None:
    """Read with the sentence, instruction 0.918 on the local backend."""
    served_as_read(default_proxy, recorded("story.json"), STORY, ("prose", "cloud"))


def test_cells_of_each_format_go_where_their_prompts_go(default_proxy: RunningRouter) -> None:
    """A later cell's request, two cells resent before it (each opens another conversation:
    no pin of one holds the next): a mean in the default format is math, on the cloud; a
    `-f code` cell is coding, local (it was instruction 0.54)."""
    assert served(default_proxy, recorded("session-3.json")) == ("math", "cloud")
    assert served(default_proxy, recorded("session-6.json")) == ("coding", "local")
