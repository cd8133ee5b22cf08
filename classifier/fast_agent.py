"""fast-agent's workflow calls that pick among its agents: its router's choice of an agent
and its orchestrator's plan, each a given form over the agents it lists, whatever the user
asked.

fast-agent (pip `fast-agent-mcp` 0.2.36, `mcp_agent/agents/workflow/router_agent.py`,
`orchestrator_prompts.py`, `core/direct_decorators.py`) sends, for a `@fast.router`, its
router's instruction as the system prompt and the user's message with `ROUTING` appended as
the last text part (the agents' cards as JSON in `<fastagent:agents>`), asking for a
`RoutingResponse` (`json_schema`: an agent's name, a confidence, a reason); for a
`@fast.orchestrator`, one user message of its planning template (`FULL_PLAN` or
`ITERATIVE_PLAN`: the objective, the agents in `<fastagent:available-agents>`, the progress
so far), asking for a `Plan` or `NextStep` whose tasks each name one of those agents. Read by
their words, the router's call went where the query's topic or the agents' descriptions led:
"What is 3 plus 4?" instruction 0.35, "What is the weather in Paris?" coding 0.36, a proof
below `classifier.min_confidence` (the default route), a haiku prose 0.62 (cloud); the
planner was instruction for most objectives but prose for a haiku (cloud) and coding for a
Python function (found running fast-agent against the router).

Yet each asks the same work of any query: a name out of a given list, or a plan of given
keys over given agents, in JSON. The router's is a label from given categories, what n8n's
Text Classifier asks (`classifier.n8n`); the plan a record in the app's form whatever the
ask, as Taskmaster's planning prompts are (`classifier.taskmaster`). Both are instruction as
the labelling policy defines it ("formats such as JSON with given keys ... classify into
given labels"): instruction by rule (`classifier.fixed.AGENT_CHOICE`), on the local model.
Not the query's topic: the agent the router picks does that work, in a request of its own.
Nor the run's backend: each is a side request (`classifier.side_request`), pinning nothing of
a run sent under one session id; the router's call, the run's first, pinned the run to the
local model, and the poem its agent then wrote was served there (found in review).

Told narrowly: the router's call by its system prompt's opening (`ROUTER_OPENINGS`: the
decorator's default instruction, or the router's own when it has none) and `ROUTING` filled
as its last message's last part; the planner's by its template filled as its last message
(`PLAN_PARTS`). A router given an instruction of its own, or a routing or planning prompt of
one's own, is read as written. fast-agent's other workflow calls are the work itself or read
evenly by the model: its evaluator-optimizer's evaluation (instruction for every answer
but code, which is coding: local either way), its refinement and its orchestrator's
synthesis (the answer asked for).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, part_text
from classifier.templates import fills, fixed_parts, text_of

# The router's system prompt as fast-agent sends it, up to its first line's end: the
# `@fast.router` decorator's default instruction (`direct_decorators.py`, indented as in its
# source), or `ROUTING_SYSTEM_INSTRUCTION` (`router_agent.py`) for a router given none
ROUTER_OPENINGS = (
    "\n    You are a router that determines which specialized agent should handle a given query.\n",
    "\nYou are a highly accurate request router that directs incoming requests to the most"
    " appropriate agent.\n",
)
# `DEFAULT_ROUTING_INSTRUCTION`, appended to the user's message as a text part of its own
ROUTING = (
    "\nSelect from the following agents to handle the request:\n"
    "<fastagent:agents>\n"
    "[\n"
    "{context}\n"
    "]\n"
    "</fastagent:agents>\n"
    "\n"
    "You must respond with the 'name' of one of the agents listed above.\n"
    "\n"
)
ROUTING_PARTS = fixed_parts(ROUTING, re.compile(r"\{context\}"))

# The planning templates' data block (`FULL_PLAN_PROMPT_TEMPLATE`, `ITERATIVE_PLAN_...`),
# the same in both, and their last lines
_DATA = (
    "<fastagent:data>\n"
    "<fastagent:objective>\n"
    "{objective}\n"
    "</fastagent:objective>\n"
    "\n"
    "<fastagent:available-agents>\n"
    "{agents}\n"
    "</fastagent:available-agents>\n"
    "\n"
    "<fastagent:progress>\n"
    "{plan_result}\n"
    "</fastagent:progress>\n"
    "\n"
    "<fastagent:status>\n"
    "{plan_status}\n"
    "{iterations_info}\n"
    "</fastagent:status>\n"
    "</fastagent:data>\n"
)
_PLAN_END = (
    "{instructions}"
    "You must respond with valid JSON only, with no triple backticks. No markdown formatting.\n"
    "No extra text. Do not wrap in ```json code fences.\n"
    "</fastagent:instruction>\n"
)
# Each template's opening lines, then the data block, its instructions (the `{instructions}`
# slot: the mode's lines and its JSON example, told by the opening already) and last lines
FULL_PLAN = (
    "You are tasked with orchestrating a plan to complete an objective.\n"
    "You can analyze results from the previous steps already executed to decide if the"
    " objective is complete.\n\n" + _DATA + _PLAN_END
)
ITERATIVE_PLAN = (
    "You are tasked with determining only the next step in a plan\n"
    "needed to complete an objective. You must analyze the current state and progress from"
    " previous steps \nto decide what to do next.\n\n" + _DATA + _PLAN_END
)
PLAN_PARTS = tuple(
    fixed_parts(plan, re.compile(r"\{\w+\}")) for plan in (FULL_PLAN, ITERATIVE_PLAN)
)


def picks_agents(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are fast-agent's router's call (`routes`) or its orchestrator's
    planning call (`plans`): an agent's name, or a plan of its agents, in its given form.
    `system`: the system prompt of `messages`."""
    last = messages[-1] if messages else None
    if not isinstance(last, dict) or last.get("role") != "user":
        return False
    return routes(last, system) or plans(last)


def routes(message: dict[str, Any], system: System) -> bool:
    """Whether `message`, a request's last, is the router's: its parts end with `ROUTING`
    filled, under one of `ROUTER_OPENINGS`."""
    opening = system.opening
    if opening is None or not opening.startswith(ROUTER_OPENINGS):
        return False
    content = message.get("content")
    if not isinstance(content, list) or len(content) < 2:  # the query, then the agents
        return False
    text = part_text(content[-1])
    return text is not None and fills(text, ROUTING_PARTS)


def plans(message: dict[str, Any]) -> bool:
    """Whether `message`, a request's last, is the planner's: one text, a planning template
    filled (`PLAN_PARTS`)."""
    text = text_of(message.get("content"))
    return text is not None and any(fills(text, parts) for parts in PLAN_PARTS)
