"""What Codex sends: its tools and instructions, the user items it puts before the task
(AGENTS.md, the environment), and its bodies.

The tool names are Codex's own; each description is the opening of its own, or close to it.
"""

from __future__ import annotations

from typing import Any

CODEX_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": "shell",
        "description": "Runs a shell command and returns its output.\n- Always set the "
        "`workdir` param when using the shell function.",
        "strict": False,
        "parameters": {"type": "object", "properties": {"command": {"type": "array"}}},
    },
    {
        "type": "function",
        "name": "update_plan",
        "description": "Updates the task plan.\nProvide an optional explanation and a list of "
        "plan items, each with a step and status.",
        "strict": False,
        "parameters": {"type": "object", "properties": {"plan": {"type": "array"}}},
    },
    {
        "type": "custom",
        "name": "apply_patch",
        "description": "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so "
        "do not wrap the patch in JSON.",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: begin_patch"},
    },
    {
        "type": "function",
        "name": "view_image",
        "description": "Attach a local image (by filesystem path) to the conversation context "
        "for this turn.",
        "strict": False,
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    *(
        # with multi-agent on: its sub-agents' tools; and its question to the user
        {
            "type": "function",
            "name": name,
            "description": text,
            "strict": False,
            "parameters": {"type": "object", "properties": {}},
        }
        for name, text in (
            ("spawn_agent", "Spawn a sub-agent for a well-scoped task. Returns the agent id."),
            ("send_message", "Send a message to an existing agent without starting a turn."),
            ("wait_agent", "Wait for agents to reach a final status and return it."),
            ("request_user_input", "Ask the user one to three short questions and wait."),
        )
    ),
]
CODEX_INSTRUCTIONS = (
    "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a "
    "user's computer."
)

# Codex's two user items before the task: AGENTS.md (older versions wrap it in
# <user_instructions>, newer ones head it "# AGENTS.md instructions for <dir>") and the
# environment
AGENTS_MD = (
    "<user_instructions>\n\n# AGENTS.md\nAlways run `make check` before finishing. Prefer "
    "small functions, type hints everywhere, and a pytest unit test for every change.\n\n"
    "</user_instructions>"
)
AGENTS_MD_NEW = (
    "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nAlways run `make check` before "
    "finishing. Prefer small functions, type hints everywhere, and a pytest unit test for "
    "every change.\n</INSTRUCTIONS>"
)
ENVIRONMENT = (
    "<environment_context>\n  <cwd>/repo</cwd>\n  <approval_policy>on-request</approval_policy>"
    "\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted"
    "</network_access>\n  <shell>bash</shell>\n</environment_context>"
)


def codex_body(items: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A Responses body as Codex sends it: its instructions, tools and settings."""
    return {
        "model": "auto",
        "instructions": CODEX_INSTRUCTIONS,
        "input": items,
        "tools": CODEX_TOOLS,
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "store": False,
        **extra,
    }


def user_item(text: str) -> dict[str, Any]:
    """A Codex user item."""
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
