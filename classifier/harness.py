"""What coding agents add to a request that is not the user's: texts in user turns and
built-in tools.

Claude Code, Codex, Cline and Roo Code put their own texts in user turns (reminders,
AGENTS.md, the editor's state, a slash command's echo) and offer the same tools on every
turn. The classifier reads the user's words and the request's own tools; these it leaves
out (`classifier.request`, `classifier.rules`), and the router's view of other APIs asks
the same of a turn (`router.translate.view`).
"""

from __future__ import annotations

import re

# Texts an agent adds to a user turn, each an opening and a closing: not the user's words,
# yet the classifier read them as the ask (found in review: a todo reminder beside a tool
# result made a coding task tool_calling, Codex's AGENTS.md made a sonnet coding). Blocks at
# the start or the end of a text (a part, or a string content) are cut from what is read;
# a text of nothing else is no text, and a user message with no text left is no ask.
HARNESS_BLOCKS = {
    # Claude Code: the claudeMd context before the first ask, and reminders beside tool
    # results (the todo list, a file changed on disk, a read file's malware note)
    "<system-reminder>": "</system-reminder>",
    # Codex: AGENTS.md, a user item before the task; older versions wrap it in a tag...
    "<user_instructions>": "</user_instructions>",
    # ...newer ones head it "# AGENTS.md instructions for <directory>"
    "# AGENTS.md instructions": "</INSTRUCTIONS>",
    # Codex: the working directory, sandbox and shell, a user item before the task
    "<environment_context>": "</environment_context>",
    # Codex: plugin and environment notes it puts beside the above (litellm's complexity
    # router strips the same Codex blocks)
    "<recommended_plugins>": "</recommended_plugins>",
    "<environments_instructions>": "</environments_instructions>",
    # Claude Code: the caveat it puts before the echo of a local command (`!ls`, `/model`)...
    "<local-command-caveat>": "</local-command-caveat>",
    # ...a slash command's name and its "/x is running…" message (its arguments are the
    # user's words: `HARNESS_WRAPPERS`)...
    "<command-name>": "</command-name>",
    "<command-message>": "</command-message>",
    # ...a local command's output...
    "<local-command-stdout>": "</local-command-stdout>",
    "<local-command-stderr>": "</local-command-stderr>",
    # ...and a `!` shell command, run by the user, not asked of the model, with its output
    "<bash-input>": "</bash-input>",
    "<bash-stdout>": "</bash-stdout>",
    "<bash-stderr>": "</bash-stderr>",
    # Cline and Roo Code: the editor's state after every user turn's texts (visible files,
    # open tabs, the time, the working directory's files, the mode), beside a tool result too
    "<environment_details>": "</environment_details>",
}
# Tags an agent wraps the user's own words in: the tags are cut, their inside is read (a
# tag's "</" reads as code: a question on a bike chain in Cline's `<task>` tags was reasoning
# 0.58, in a slash command's `<command-args>` 0.43, the question alone 0.92). A wrapper is
# unwrapped where a block could be cut, at the start of a text past its blocks; what follows
# its closing is read too, without the blocks it starts with.
HARNESS_WRAPPERS = {
    # Cline (and Roo Code before it renamed the tag): the first ask of a task
    "<task>": "</task>",
    # Roo Code: the first ask of a task
    "<user_message>": "</user_message>",
    # Claude Code: a slash command's arguments, after its name and message
    "<command-args>": "</command-args>",
}
# How far a block's or a wrapper's closing is looked for, in characters (a CLAUDE.md of tens
# of KB): one closed further on is read as words, as before. `str.find` over it is ~10 µs.
HARNESS_CHARS = 100_000
_HARNESS_EACH_END = 8  # blocks cut from each end of a text, at most
_OPENING = re.compile(r"\s{0,64}(" + "|".join(map(re.escape, HARNESS_BLOCKS)) + ")")
_CLOSING = re.compile("(" + "|".join(map(re.escape, HARNESS_BLOCKS.values())) + r")\s{0,64}\Z")
_OPENING_OF = {closing: opening for opening, closing in HARNESS_BLOCKS.items()}
_WRAPPER = re.compile(r"\s{0,64}(" + "|".join(map(re.escape, HARNESS_WRAPPERS)) + ")")

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
_CLAUDE_CODE_TOOLS = (  # tests/agent_shapes.py, with older and newer names
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


def own_words(text: str) -> str:
    """`text` without the harness blocks (`HARNESS_BLOCKS`) at its start and its end, and
    the white space around them, and without the tags of a wrapper (`HARNESS_WRAPPERS`)
    after its first blocks: `text` itself when it has none. Bounded: an opening is looked
    for after at most 64 white spaces, a closing before them, and each block's or
    wrapper's other end within `HARNESS_CHARS`."""
    size = len(text)
    start = _past_blocks(text, 0, size) if _OPENING.match(text) else 0
    end = size
    if start < size and text[max(start, size - 100) :].rstrip().endswith(">"):
        end = _before_blocks(text, start, size)
    wrapped = _WRAPPER.match(text, start, end)
    if wrapped and (words := _unwrapped(text, wrapped, end)) is not None:
        return words
    if start == 0 and end == size:
        return text
    return text[start:end].strip()


def _past_blocks(text: str, start: int, end: int) -> int:
    """Where the harness blocks that `text[start:end]` starts with end."""
    for _ in range(_HARNESS_EACH_END):
        opened = _OPENING.match(text, start, end)
        if not opened:
            break
        closing = HARNESS_BLOCKS[opened.group(1)]
        at = text.find(closing, opened.end(), min(end, opened.end() + HARNESS_CHARS))
        if at < 0:
            break
        start = at + len(closing)
    return start


def _before_blocks(text: str, start: int, end: int) -> int:
    """Where the harness blocks that `text[start:end]` ends with begin."""
    for _ in range(_HARNESS_EACH_END):
        closed = _CLOSING.search(text, max(start, end - 100), end)
        if not closed:
            break
        opening = _OPENING_OF[closed.group(1)]
        at = text.rfind(opening, max(start, closed.start() - HARNESS_CHARS), closed.start())
        if at < 0:
            break
        end = at
    return end


def _unwrapped(text: str, wrapped: re.Match[str], end: int) -> str | None:
    """The words inside the wrapper `wrapped` opens, then what follows its closing up to
    `end`, past the blocks that starts with; None when it is not closed before `end`
    (within `HARNESS_CHARS`): the text is read as written."""
    inside = wrapped.end()
    closing = HARNESS_WRAPPERS[wrapped.group(1)]
    at = text.find(closing, inside, min(end, inside + HARNESS_CHARS))
    if at < 0:
        return None
    after = at + len(closing)
    if _OPENING.match(text, after, end):
        after = _past_blocks(text, after, end)
    words, rest = text[inside:at].strip(), text[after:end].strip()
    return f"{words}\n{rest}" if words and rest else words or rest


def has_words(text: str) -> bool:
    """Whether `text` holds words of the user's: more than white space and harness blocks.
    What makes a user message an ask, in the classifier's view (`classifier.request`) and
    in the router's view of other APIs (`router.translate.view`)."""
    rest = own_words(text)
    return bool(rest) and not rest.isspace()
