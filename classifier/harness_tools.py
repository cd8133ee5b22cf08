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
# Claude Code offers after some twenty of its own (`classifier.toolset.scanned_tools` reads
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
# The other agents' that the router serves or that reach it in the same shape, their names
# that are no plain English word ("read", "write", "list", "task", "edit" an app of any kind
# may name its own tools so, and three of them would make it an agent's session:
# `classifier.rules.agent_session`): opencode's (sst/opencode packages/opencode/src/tool),
# Continue's agent mode (core/tools/builtIn.ts) and its CLI's, `cn` (extensions/cli
# src/tools: its Read, Write, Edit, MultiEdit and Bash are Claude Code's names, above, and
# List, Fetch, Search, Diff, Status, Exit, Checklist and Skills plain words; `cn -p` and
# `--readonly` offer Read, List, Bash, Fetch, Checklist, CheckBackgroundJob, AskQuestion,
# Exit and Skills, whose Read and Bash alone made no agent's session, found in review),
# Goose's developer extension (`<extension>__<tool>`), OpenHands' CodeAct tools,
# Cursor's (with Codex's read_file and list_dir above) and the Cline CLI's (npm `cline` 3.x,
# @cline/core's `DefaultToolNames` and team tools: without them "explain what sync_dir
# does" was reasoning 0.92, on the cloud, found in review; its act and plan modes offer four
# of them, `--yolo` three; its editor, skills and ask_question are a word or an app's own,
# spawn_agent and apply_patch Codex's, and team_status, team_task, team_send_message,
# team_broadcast and team_cleanup a team app's own names). Not the MCP filesystem server's
# `write_file` or `edit_file`: offered beside its `read_file`, three would make a file app
# an agent's harness, and `read_file` unnamable (found in review of the first version,
# below). crush's (charmbracelet/crush internal/config/config.go `allToolNames`): its
# search sub-agent offers glob, grep, ls, sourcegraph and view, of which only two were
# known, and "Find where sync_dir is defined and explain what it does" was reasoning 0.54,
# on the cloud (found in review); its agent, download, edit, fetch, todos, view and write
# are plain words. The OpenHands Software Agent SDK's (1.x, `openhands-tools` 1.58.2: a
# tool's name is its class's, snake-cased, without "Tool"): `get_default_agent` offers
# terminal, file_editor and task_tracker, with the SDK's finish and think (words an app
# may name a tool of its own); its planning agent (`tools/preset/planning.py`) glob, grep
# and planning_file_editor; its gpt5 and gemini presets terminal and task_tracker with
# apply_patch or read_file, known above. Knowing only the old CodeAct names,
# "Why does main() return 0 even when the upload fails?" was reasoning 0.64, on the cloud,
# where the same request with the old names was coding 0.87 (found in a live review).
# `terminal` is a word, but one of a shell's: an app offering it runs commands, and two
# more of these make a coding agent's harness.
_OTHER_AGENTS_TOOLS = (
    "bash glob grep todowrite todoread webfetch websearch "
    "builtin_read_file builtin_edit_existing_file builtin_create_new_file "
    "builtin_run_terminal_command builtin_grep_search builtin_file_glob_search "
    "builtin_view_diff builtin_read_currently_open_file builtin_ls builtin_search_web "
    "builtin_create_rule_block builtin_view_subdirectory builtin_view_repo_map "
    "builtin_exact_search builtin_fetch_url_content builtin_search_and_replace_in_file "
    "builtin_single_find_and_replace builtin_multi_edit builtin_read_file_range "
    "CheckBackgroundJob AskQuestion Subagent ReportFailure UploadArtifact "
    "developer__shell developer__text_editor developer__analyze developer__screen_capture "
    "developer__image_processor developer__list_windows "
    "execute_bash str_replace_editor execute_ipython_cell task_tracker "
    "terminal file_editor planning_file_editor "
    "run_terminal_cmd codebase_search grep_search file_search "
    "read_files search_codebase run_commands fetch_web_content submit_and_exit "
    "team_spawn_teammate team_shutdown_teammate team_run_task team_cancel_run team_list_runs "
    "team_await_runs team_read_mailbox team_mission_log team_create_outcome "
    "team_attach_outcome_fragment team_review_outcome_fragment team_finalize_outcome "
    "team_list_outcomes "
    "sourcegraph multiedit agentic_fetch job_output job_kill lsp_diagnostics lsp_references"
)
# Kimi CLI's (PyPI `kimi-cli` 1.51.0, kosong 0.56.0: each tool's `name` in `kimi_cli/tools`,
# the toolsets in `kimi_cli/agents/default/*.yaml`). Its main agent offers Agent,
# AskUserQuestion, SetTodoList, Shell, TaskList, TaskOutput, TaskStop, ReadFile,
# ReadMediaFile (for a model that reads images), Glob, Grep, WriteFile, StrReplaceFile,
# SearchWeb (with a search service), FetchURL, ExitPlanMode and EnterPlanMode (the `okabe`
# agent SendDMail too); its subagents a few: `coder` Shell, ReadFile, Glob, Grep,
# WriteFile, StrReplaceFile and FetchURL (ReadMediaFile and SearchWeb likewise), `explore`
# no edits, `plan` no Shell either. Of a subagent's, only Glob and Grep were known, and
# "explain what sync_dir does in utils.py" from its `coder` was reasoning 0.79, on the cloud
# (found in a live review). Its `Think` is left out: a word an app may name a tool, and no
# agent of its offers it (commented out in `agent.yaml`). Its Shell, ReadFile, WriteFile,
# SearchWeb and FetchURL are what any app may call its own tools (`PLAIN_NAMES`).
_KIMI_CLI_TOOLS = (
    "Agent AskUserQuestion SetTodoList Shell TaskList TaskOutput TaskStop ReadFile "
    "ReadMediaFile Glob Grep WriteFile StrReplaceFile SearchWeb FetchURL ExitPlanMode "
    "EnterPlanMode SendDMail"
)
HARNESS_TOOLS = frozenset(
    _CLAUDE_CODE_TOOLS.split()
    + _CODEX_TOOLS.split()
    + _OTHER_AGENTS_TOOLS.split()
    + _KIMI_CLI_TOOLS.split()
)
# Agents' built-in names that any app may give tools of its own: they count toward
# `HARNESS_SEEN` only beside a name of an agent's that is no such (`classifier.toolset`).
# Kimi CLI's: SearchWeb, FetchURL and ReadFile offered by a research app made "Summarise the
# main causes of World War I." coding 0.92, served locally, by the agent session's rule
# (found in review). Each of its toolsets offers another name of its: the main agent and
# `coder` StrReplaceFile, `explore` and `plan` (read-only) Glob and Grep, Claude Code's too.
PLAIN_NAMES = frozenset(("Shell", "ReadFile", "WriteFile", "SearchWeb", "FetchURL"))
# A general-purpose agent harness's built-in tools, not a coding agent's: LangChain's
# deepagents (pypi `deepagents` 0.7.32, `create_deep_agent`) offers a file system of its own
# (middleware/filesystem.py `_FS_TOOL_ORDER`: ls, read_file, write_file, edit_file, delete,
# glob, grep; `execute` too with a sandbox), sub-agents (`task`; a sub-agent's requests offer
# the file tools alone) and, in some profiles, `write_todos`, for research and writing as
# much as for code. Three of them are coding agents' names, and made its every session a
# coding agent's: "Why did the Roman Empire fall? Compare the main scholarly theories."
# under "You are an expert researcher..." was coding 0.557, served locally, where the model
# read reasoning 0.65 (found in review). Offered all together (`GENERAL_HARNESS_SIGN`: no
# coding agent offers `ls`, `edit_file` and `grep` beside `read_file`; Qwen Code's are
# list_directory, edit and grep_search), they are a harness's, which an ask cannot name,
# but count for no coding agent's (`classifier.request`): its sessions are read by the ask.
_DEEPAGENTS_FILE_TOOLS = "ls read_file write_file edit_file glob grep"
GENERAL_HARNESS_SIGN = frozenset(_DEEPAGENTS_FILE_TOOLS.split())
GENERAL_HARNESS_TOOLS = GENERAL_HARNESS_SIGN | {"delete", "execute", "task", "write_todos"}
# How many of them make a request's tools an agent's harness. Some are common names of
# their own (`read_file` of the MCP filesystem server, as Cline or the Agents SDK offer it
# unprefixed; a chat app's `send_message`; `view_image`, `WebFetch`): offered alone or by
# twos they can still be named ("Read the file notes.txt" names `read_file`, found in review
# of the first version).
HARNESS_SEEN = 3
