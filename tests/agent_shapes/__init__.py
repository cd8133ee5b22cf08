"""What Claude Code, Codex, Cline, Roo Code, Aider, Goose, OpenHands, opencode and Continue
send: their tools, the harness texts they put in user turns, and their turns' shapes, for
the tests of what the classifier reads of agent traffic. One module an agent
(`claude_code`, `codex`, `cline`, which holds Roo Code's too, `aider`, `goose`,
`openhands`, `opencode`, `continue_dev`); every name is importable from here.

The tool names are the agents' own; each description is the opening of the agent's, or
close to it: everyday words ("command", "file", "list", "returns") that the classifier
must not take for the user's words. The harness texts are shortened but keep their
wrappers, as the agents send them.
"""

from __future__ import annotations

from tests.agent_shapes.aider import REFLECTIONS, aider_body, aider_reflection
from tests.agent_shapes.claude_code import (
    AGENT_NOTIFICATION,
    CLAUDE_CODE_SYSTEM,
    CLAUDE_CODE_TOOLS,
    CLAUDE_MD_REMINDER,
    DATE_CHANGED,
    GITHUB_MCP_TOOLS,
    LOCAL_CAVEAT,
    LOCAL_STDOUT,
    OLD_CAVEAT,
    PEER,
    PEER_AFTER,
    PEER_MID_TURN,
    PROMPT_HOOK,
    QUEUED_NEWER,
    QUEUED_OLDER,
    SHELL_NOTIFICATION,
    TODO_REMINDER,
    TOOL_LOADED,
    TOOL_REFERENCE,
    claude_code_body,
    queued,
    slash_command,
    teammate_messages,
)
from tests.agent_shapes.cline import (
    CLINE_ENVIRONMENT,
    CLINE_NO_TOOL,
    PLAN_NO_MESSAGE,
    PLAN_RESUMPTION,
    RESUMPTION,
    cline_answer,
    cline_feedback,
    cline_task,
    resumed_with,
    roo_approved,
)
from tests.agent_shapes.codex import (
    AGENTS_MD,
    AGENTS_MD_NEW,
    CODEX_INSTRUCTIONS,
    CODEX_TOOLS,
    ENVIRONMENT,
    codex_body,
    user_item,
)
from tests.agent_shapes.continue_dev import (
    CONTINUE_AGENT_SYSTEM,
    CONTINUE_TOOLS,
    continue_agent_body,
)
from tests.agent_shapes.goose import GOOSE_NOTE, goose_body
from tests.agent_shapes.opencode import (
    OPENCODE_ENVIRONMENT,
    OPENCODE_SYSTEM,
    OPENCODE_TOOLS,
    opencode_body,
)
from tests.agent_shapes.openhands import (
    RECALLED,
    WORKSPACE,
    openhands_body,
    openhands_sdk_body,
    openhands_user,
)

__all__ = [
    "AGENTS_MD",
    "AGENTS_MD_NEW",
    "AGENT_NOTIFICATION",
    "CLAUDE_CODE_SYSTEM",
    "CLAUDE_CODE_TOOLS",
    "CLAUDE_MD_REMINDER",
    "CLINE_ENVIRONMENT",
    "CLINE_NO_TOOL",
    "CODEX_INSTRUCTIONS",
    "CODEX_TOOLS",
    "CONTINUE_AGENT_SYSTEM",
    "CONTINUE_TOOLS",
    "DATE_CHANGED",
    "ENVIRONMENT",
    "GITHUB_MCP_TOOLS",
    "GOOSE_NOTE",
    "LOCAL_CAVEAT",
    "LOCAL_STDOUT",
    "OLD_CAVEAT",
    "OPENCODE_ENVIRONMENT",
    "OPENCODE_SYSTEM",
    "OPENCODE_TOOLS",
    "PEER",
    "PEER_AFTER",
    "PEER_MID_TURN",
    "PLAN_NO_MESSAGE",
    "PLAN_RESUMPTION",
    "PROMPT_HOOK",
    "QUEUED_NEWER",
    "QUEUED_OLDER",
    "RECALLED",
    "REFLECTIONS",
    "RESUMPTION",
    "SHELL_NOTIFICATION",
    "TODO_REMINDER",
    "TOOL_LOADED",
    "TOOL_REFERENCE",
    "WORKSPACE",
    "aider_body",
    "aider_reflection",
    "claude_code_body",
    "cline_answer",
    "cline_feedback",
    "cline_task",
    "codex_body",
    "continue_agent_body",
    "goose_body",
    "opencode_body",
    "openhands_body",
    "openhands_sdk_body",
    "openhands_user",
    "queued",
    "resumed_with",
    "roo_approved",
    "slash_command",
    "teammate_messages",
    "user_item",
]
