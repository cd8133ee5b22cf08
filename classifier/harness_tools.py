"""The built-in tools of the coding agents the router serves: an agent's harness, not tools a
request was written for (`classifier.harness` holds what agents put in user turns)."""

from __future__ import annotations

# The built-in tools of the coding agents the router serves, as they name them: an agent's
# harness, sent on every turn whatever the task, not tools a request was written for. Their
# names are everyday words of coding, so naming one is no ask: "Add a plan mode to our CLI"
# named ExitPlanMode, "Store the todo write timestamp" TodoWrite, "Add a slash command
# /deploy" SlashCommand, all tool_calling 0.90 (found in review). So the classifier's view
# leaves them out of the names the name rule compares (`classifier.request`); they still
# count as tools offered, for the tools prior. Exact names: a chat app's own `web_search` or
# `getTodo` can still be named, and so can an agent's MCP tools (`mcp__server__tool`), which
# Claude Code offers after some twenty of its own (`classifier.request.scanned_tools` reads
# past these). Single words (Bash, Read) have no pair of words to name, and are listed so
# the set reads as the agents' whole harness.
_CLAUDE_CODE_TOOLS = (  # tests/agent_shapes/claude_code.py, with older and newer names
    "Task Agent Bash BashOutput KillShell KillBash Glob Grep LS Read Edit MultiEdit Write "
    "NotebookEdit NotebookRead WebFetch WebSearch TodoWrite TodoRead ExitPlanMode "
    "EnterPlanMode SlashCommand Skill AskUserQuestion TaskOutput TaskStop LSP "
    "ListMcpResourcesTool ReadMcpResourceTool TaskCreate TaskGet TaskList TaskUpdate "
    # ...and those its tools reference lists since: agent teams and messages, scheduling,
    # worktrees, tool search, PowerShell, Monitor, workflows, artifacts
    "SendMessage ListAgents TeamCreate TeamDelete CronCreate CronDelete CronList "
    "ScheduleWakeup RemoteTrigger PushNotification EnterWorktree ExitWorktree ToolSearch "
    "WaitForMcpServers PowerShell Monitor Workflow Artifact ShareOnboardingGuide"
)
# Codex's function and freeform tools, with the experimental file tools and the multi-agent
# ones (both versions'; its `local_shell` and `web_search` are typed tools, without a name,
# and the router drops hosted tools before the classifier reads a Responses request)
_CODEX_TOOLS = (
    "shell shell_command exec_command write_stdin update_plan apply_patch view_image "
    "read_file list_dir grep_files list_mcp_resources list_mcp_resource_templates "
    "read_mcp_resource request_user_input spawn_agent send_input resume_agent wait_agent "
    "close_agent send_message followup_task list_agents interrupt_agent"
)
HARNESS_TOOLS = frozenset(_CLAUDE_CODE_TOOLS.split() + _CODEX_TOOLS.split())
# How many of them make a request's tools an agent's harness. Some are common names of
# their own (`read_file` of the MCP filesystem server, as Cline or the Agents SDK offer it
# unprefixed; a chat app's `send_message`; `view_image`, `WebFetch`): offered alone or by
# twos they can still be named ("Read the file notes.txt" names `read_file`, found in review
# of the first version).
HARNESS_SEEN = 3
