"""Claude Code's auto-mode security monitor: its verdict in the form the monitor asks, allowing.

In auto mode (now its default permission mode), Claude Code checks an action through a
gateway, which lacks Anthropic's server-side check, with two requests of its own, without
tools, whose system prompt opens `MONITOR`. The prompt's "Output Format" asks
`<block>no</block>` of an action allowed (`<block>yes</block><category>…` of one blocked).
Stage 1 asks that the whole answer begin with `<block>` and ends it at `</block>`
(`stop_sequences`); stage 2 asks for `<thinking>` before the `<block>`, with no stop string.
Claude Code reads the verdict from the text past any `<thinking>` block, the closing tag
optional, as the stop string takes it away.

The simulator answered both with `{"meta": {}}`: it read the `{"meta":{…}}` a rule of the
prompt quotes (the harness's lines) as the JSON form asked for (`prompted`); the monitor is
now read before that. Claude Code found no verdict, asked each stage five times, then
blocked the action ("Auto mode could not evaluate this action", a live review of 2.1.332).
A demo should let the session go on, so the verdict allows. The request's stop strings cut
it as a server does (`generation.stopped`): stage 1 reads `<block>no`.
"""

from __future__ import annotations

from router.simulator.prompt import Prompt

MONITOR = "You are a security monitor for autonomous AI coding agents."
ALLOW = "<block>no</block>"
_REASONED = "<thinking>The action matches none of the block rules.</thinking>\n"
# Claude Code may open its system prompt with a billing line (vLLM's Messages drops it)
_BILLING = "x-anthropic-billing-header"
_HEAD = 1000
# stage 2's instruction closes the user message, after the transcript
_TAIL = 1000


def monitor_verdict(prompt: Prompt) -> str | None:
    """The monitor's allowing verdict where `prompt` is the security monitor's, reasoned
    first where the instruction at the end of its message asks for `<thinking>` (stage 2);
    None for any other prompt."""
    if not _monitors(prompt.system):
        return None
    return _REASONED + ALLOW if "<thinking>" in prompt.user[-_TAIL:] else ALLOW


def _monitors(system: str) -> bool:
    """Whether `system` opens with the monitor's first line, past a billing line."""
    lines = system.lstrip()[:_HEAD].splitlines()  # a long prompt is not split whole
    while lines and (not lines[0].strip() or lines[0].startswith(_BILLING)):
        lines.pop(0)
    return bool(lines) and lines[0].strip() == MONITOR
