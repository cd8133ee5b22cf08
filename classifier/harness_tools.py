"""The built-in tools of the coding agents the router serves: an agent's harness, not tools a
request was written for (`classifier.harness` holds what agents put in user turns)."""

from __future__ import annotations

# The built-in tools of the coding agents the router serves, as they name them, sent on every
# turn whatever the task. Naming one is no ask ("Add a plan mode to our CLI" named
# ExitPlanMode, tool_calling 0.90, found in review): with `HARNESS_SEEN` of them offered,
# the name rule leaves them out (`classifier.toolset`); they still count as tools offered.
# Exact names: an app's `web_search`, an agent's MCP tools (`mcp__server__tool`) can be named.
_CLAUDE_CODE_TOOLS = (  # tests/agent_shapes/claude_code.py, with older names and those
    # its tools reference lists since: teams, scheduling, worktrees, tool search, workflows
    "Task Agent Bash BashOutput KillShell KillBash Glob Grep LS Read Edit MultiEdit Write "
    "NotebookEdit NotebookRead WebFetch WebSearch TodoWrite TodoRead ExitPlanMode "
    "EnterPlanMode SlashCommand Skill AskUserQuestion TaskOutput TaskStop LSP "
    "ListMcpResourcesTool ReadMcpResourceTool TaskCreate TaskGet TaskList TaskUpdate "
    "SendMessage ListAgents TeamCreate TeamDelete CronCreate CronDelete CronList "
    "ScheduleWakeup RemoteTrigger PushNotification EnterWorktree ExitWorktree ToolSearch "
    "WaitForMcpServers PowerShell Monitor Workflow Artifact ShareOnboardingGuide"
)
# Codex's function and freeform tools, its experimental file tools and multi-agent ones
# (its `local_shell` and `web_search` are typed tools, without a name; the router drops
# hosted tools before the classifier reads a Responses request)
_CODEX_TOOLS = (
    "shell shell_command exec_command write_stdin update_plan apply_patch view_image "
    "read_file list_dir grep_files list_mcp_resources list_mcp_resource_templates "
    "read_mcp_resource request_user_input spawn_agent send_input resume_agent wait_agent "
    "close_agent send_message followup_task list_agents interrupt_agent"
)
# The other agents' (bare words no other agent's list holds are left out, as any app's:
# crush's agent, edit, fetch, view and write, cn's List, Fetch, Search and Exit, OpenHands'
# finish and think, the Cline CLI's editor and team_status): opencode's
# (packages/opencode/src/tool); Continue's agent mode (core/tools/builtIn.ts) and its CLI's,
# `cn` (with Claude Code's Read, Write, Edit, MultiEdit and Bash; `cn -p` and `--readonly`
# offer Read, Bash, CheckBackgroundJob and AskQuestion); Goose's developer extension;
# OpenHands' CodeAct tools and its Software Agent SDK's (1.x: the default agent's terminal,
# file_editor and task_tracker; its planning agent's glob, grep and planning_file_editor;
# its gpt5 and gemini presets' terminal and task_tracker with apply_patch or read_file;
# the OpenHands CLI 1.16.0's sub-agents' `task`, beside terminal, file_editor, task_tracker,
# finish and think: "Use the task tool to delegate a review of stats.py to a sub-agent." was
# tool_calling 0.9 by its name, found in a live review);
# Cursor's; the Cline CLI's (npm `cline` 3.x, @cline/core's `DefaultToolNames` and team
# tools); crush's (internal/config/config.go `allToolNames`); nanocoder's (npm
# `@nanocollective/nanocoder` 1.25.2: of its 29, the ones no everyday app names, a source
# edit, code search and LSP; "Now fix the bug in average() in calc.py" after a math turn was
# math 0.41, on the cloud, with only its execute_bash known. Not its git tools: git_status,
# git_diff and git_commit are the git MCP server's too, which a chat app offers, and made
# "What is the capital of Australia?" coding by `agent_session`, found in review). Each
# was found missing in a review: an agent's ask ("explain what sync_dir does") was read as
# reasoning and sent to the cloud.
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
    "terminal file_editor planning_file_editor task "
    "run_terminal_cmd codebase_search grep_search file_search "
    "read_files search_codebase run_commands fetch_web_content submit_and_exit "
    "team_spawn_teammate team_shutdown_teammate team_run_task team_cancel_run team_list_runs "
    "team_await_runs team_read_mailbox team_mission_log team_create_outcome "
    "team_attach_outcome_fragment team_review_outcome_fragment team_finalize_outcome "
    "team_list_outcomes "
    "sourcegraph multiedit agentic_fetch job_output job_kill lsp_diagnostics lsp_references "
    "string_replace search_file_contents lsp_get_diagnostics"
)
# Kimi CLI's (PyPI `kimi-cli` 1.51.0: each tool's `name` in `kimi_cli/tools`, the toolsets
# in `kimi_cli/agents/default/*.yaml`): its main agent's, its `okabe` agent's SendDMail; its
# subagents offer a few (`coder` Shell, ReadFile, Glob, Grep, WriteFile, StrReplaceFile,
# FetchURL; `explore` and `plan` no edits). Not its `Think`, which no agent of its offers.
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
# The agents' names that an app of another kind (notes, documents, tasks, a CMS, chat,
# research, scheduling) may give tools of its own: everyday words for what any app does
# (read, write, edit; tasks (`task`), agents, messages, teams, schedules, the web, files, images, a
# question to the user; a skill, monitor, workflow, artifact; a shell by its common word).
# They count toward `HARNESS_SEEN` only beside an agent's name that is none of them, or
# its identity (`AGENT_IDENTITIES`; `classifier.toolset`): a notes app's Read, Write and
# Edit made "Summarise the main causes of World War I." coding 0.93 by `agent_session`,
# served locally (writing 0.56 with read_note, write_note, edit_note), and so did a
# research app's SearchWeb, FetchURL and ReadFile (found in review).
# The rest name a coding agent's own machinery: a shell by name or jargon (Bash,
# PowerShell, shell_command, write_stdin), code search (Glob, Grep, LS, codebase_search),
# source edits (MultiEdit, StrReplaceFile, apply_patch, file_editor), notebooks, LSP, plan
# mode, plans and todo lists (update_plan, TodoWrite, SetTodoList, task_tracker),
# worktrees, MCP, sub-agents' lifecycle (spawn_agent), an agent's prefixed names. Every
# toolset recorded offers one: Claude Code's Bash (its subagents' Glob and Grep too), Codex's
# update_plan and apply_patch, Kimi CLI's StrReplaceFile or Glob, OpenHands' task_tracker,
# `cn`'s Bash, the Cline CLI's search_codebase or submit_and_exit, Qwen Code's glob.
_PLAIN = (
    "Task Agent Read Edit Write WebFetch WebSearch Skill AskUserQuestion TaskOutput "
    "TaskStop TaskCreate TaskGet TaskList TaskUpdate SendMessage ListAgents TeamCreate "
    "TeamDelete CronCreate CronDelete CronList ScheduleWakeup RemoteTrigger "
    "PushNotification ToolSearch Monitor Workflow Artifact ShareOnboardingGuide "
    "shell view_image read_file list_dir request_user_input send_message followup_task "
    "list_agents webfetch websearch AskQuestion Subagent ReportFailure UploadArtifact "
    "terminal task file_search read_files run_commands fetch_web_content "
    "Shell ReadFile ReadMediaFile WriteFile SearchWeb FetchURL"
)
PLAIN_NAMES = frozenset(_PLAIN.split())
# How a coding agent's system prompt opens, its identity: beside it, plain names count too
# (`classifier.toolset.tool_names`). A Claude Code custom subagent may be given only plain
# ones (`tools: Read, Write, Edit`, or Read, WebSearch and WebFetch): without this, "explain
# what sync_dir does in utils.py" was reasoning 0.73, on the cloud, where it was coding 0.90
# (found in review). Claude Code's main agent's, its subagents', its Agent SDK's
# (tests/agent_shapes/claude_code.py, tests/fixtures/claude-code-*); Kimi CLI's too, whose
# subagents offer a few of its tools (`classifier.kimi.IDENTITY`, read beside these by
# `classifier.toolset`). Not opencode's or
# Codex's: opencode's read, write and edit are no agent's names here, and Codex always offers
# update_plan.
AGENT_IDENTITIES = (
    "You are Claude Code, Anthropic's official CLI for Claude",
    "You are an agent for Claude Code, Anthropic's official CLI for Claude",
    "You are a Claude agent, built on Anthropic's Claude Agent SDK",
)
# A general-purpose agent harness's built-in tools, not a coding agent's: LangChain's
# deepagents (pypi `deepagents` 0.7.32, `create_deep_agent`; middleware/filesystem.py
# `_FS_TOOL_ORDER`, its sub-agents' `task`, `write_todos`), for research and writing as much
# as for code. Its read_file, glob and grep made "Why did the Roman Empire fall? Compare the
# main scholarly theories." coding 0.557 by `agent_session`, served locally (found in
# review). Offered all together (`GENERAL_HARNESS_SIGN`: no coding agent offers `ls`,
# `edit_file` and `grep` beside `read_file`), they are a harness's, which an ask cannot
# name, but count for no coding agent's: its sessions are read by the ask.
_DEEPAGENTS_FILE_TOOLS = "ls read_file write_file edit_file glob grep"
GENERAL_HARNESS_SIGN = frozenset(_DEEPAGENTS_FILE_TOOLS.split())
GENERAL_HARNESS_TOOLS = GENERAL_HARNESS_SIGN | {"delete", "execute", "task", "write_todos"}
# How many of them make a request's tools an agent's harness: offered alone or by twos, an
# app's own (the MCP filesystem server's `read_file`, a chat app's `send_message`) can still
# be named ("Read the file notes.txt" names `read_file`, found in review).
HARNESS_SEEN = 3
