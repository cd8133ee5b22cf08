"""Claude Code's own system turns: its texts in a turn of the conversation, no one's ask.

Claude Code (2.1.197, its `mid-conversation-system` beta) sends a system turn after the
first user message on every request, the list of its agents and skills; 2.1.332 its
environment. The router's translation to chat makes a system turn a user message, as the
backend gets it (a chat template may refuse a system message after the first), and read
so, it was the latest ask: the router's view leaves such a turn out
(`router.translate.view`), and the demo's simulator passes over the user message a chat
backend gets of it (`router.simulator.latest_ask`). Told by Claude Code's fixed wording, not
by the role alone: another client's system turn holds its own words. A message the user
typed while a reply ran, which newer Claude Code sends as a system turn too, is an ask
(`typed`, `classifier.queued`). Kept here, beside the classifier's other readers of agents'
texts, so that both readers share it: the simulator imports nothing of the router's
translation (it stands for the servers the router is tested against).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from classifier.queued import queued_after

# How Claude Code's own system turns start (`mid-conversation-system` beta; recorded of
# 2.1.197: tests/fixtures/claude-code-2.1.197): the list of its agents (the list of its
# skills after it), the list of its skills alone, and its note that the date changed; of
# 2.1.332 (tests/fixtures/claude-code-2.1.332), its environment (working directory, model,
# date) on every request, the changes to it, and the list of its deferred tools before it
CLAUDE_CODE_SYSTEM_TURNS = (
    "Available agent types for the Agent tool:",
    "The following skills are available for use with the Skill tool:",
    "The date has changed. Today's date is now ",
    "# Environment\nYou have been invoked in the following environment: ",
    "# Environment update\n",
    "The following deferred tools are now available via ",
)
_CLAUDE_CODE_TURN = re.compile(
    r"\s{0,64}(?:<system-reminder>\s{0,64})?(?:"
    + "|".join(map(re.escape, CLAUDE_CODE_SYSTEM_TURNS))
    + ")"
)


def typed(texts: Sequence[str]) -> bool:
    """Whether a turn's texts hold a message the user typed while a reply ran, with words
    (`classifier.queued`)."""
    return any((q := queued_after(t, 0, len(t))) is not None and q.words for t in texts)


def own_turn(texts: Sequence[str]) -> bool:
    """Whether a turn of these texts is one of Claude Code's own system turns: each text
    starts with one of `CLAUDE_CODE_SYSTEM_TURNS` (past white space and a
    `<system-reminder>` opening), and none holds a message the user typed (`typed`)."""
    own = bool(texts) and all(_CLAUDE_CODE_TURN.match(text) for text in texts)
    return own and not typed(texts)
