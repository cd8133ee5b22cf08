"""The user's words inside Cline's and Roo Code's own texts: a reply in their tags, what they
append to the user's words, and a turn they resume after a tool ran.

Without native tool calls, Cline and Roo Code send a tool's result as user text ("[read_file
for 'x'] Result:" and the output), with the user's feedback on it in their tags after a
lead-in of theirs, and append a file's content to words that mention it. `classifier.harness`
reads a text's own words; this module finds the user's in an agent's. The bounded scanning
both use (a closing that ends a text, the blocks it ends with) is here, so the harness
imports this module and not the reverse.
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence

# How far a block's or a wrapper's closing, or a reply's opening, is looked for, in
# characters (a CLAUDE.md of tens of KB): one further on is read as words, as before.
# `str.find` over it is ~10 µs.
HARNESS_CHARS = 100_000
HARNESS_EACH_END = 8  # blocks cut from each end of a text, at most

# Tags Cline and Roo Code wrap the user's reply in at the end of a text of their own: the
# follow-up on a tool's result or on a completion (`<feedback>`), the answer to the agent's
# question (`<answer>`). What comes before is theirs: a lead-in ("The user has provided
# feedback on the results. Consider their input ... and then attempt completion again."),
# the tool's header ("[attempt_completion] Result:"), its output. When the opening starts
# the text or follows one of `_LEAD_INS`, only the words inside are read (a question on a
# bike chain as feedback read reasoning 0.51 with the lead-in and tags, 0.92 alone); a
# user's own text ending in such tags after other words is read as written.
# A reply need not end the text: followed by the agent's own markup (`_MARKUP`: Roo Code
# puts a file it read after the feedback on approving the read, `<file><path>...`, Cline a
# file the reply mentions, `HARNESS_MENTIONS`, and both the editor's state in a turn's texts
# joined), it is read alone too, when its opening follows a lead-in within `_REPLY_WITHIN`
# characters of the text's start (past its blocks), or when only mentions follow it;
# followed by anything else, the text is read as written. Mid-text, the lead-in is
# required: a user's own text may start with such a tag and go on with another tag or a
# bracket ("<answer>B</answer>\n[Explain why B is right]", a sonnet asked for on
# `<feedback>` in `<instructions>` tags), and was read as the tag's inside alone (found in
# review: prose 0.92 became tool_calling 0.63). And the lead-in is no proof: a user's own
# prompt uses its words too ("Improve my essay based on the following feedback:\n<feedback>
# ...</feedback>\n<essay>...</essay>"), and was read as the feedback alone while any tag or
# bracket could follow it (writing 0.81 became tool_calling 0.59, found in review). Cline
# and Roo Code put the message a user sends on resuming a task in `<user_message>`, after a
# lead-in of theirs.
HARNESS_REPLIES = {
    "<feedback>": "</feedback>",
    "<answer>": "</answer>",
    "<user_message>": "</user_message>",
}
_LEAD_INS = (
    "and then attempt completion again.",  # after a completion
    "the following feedback:",  # with a tool's result, or on denying it
    "the following feedback to help guide you:",  # after too many mistakes
    "the following context:",  # on approving a tool (Roo Code)
    "] Result:",  # a tool's header: "[ask_followup_question for '...'] Result:"
    "New instructions for task continuation:",  # on resuming a task
    "in the <response> parameter):",  # ...in plan mode ("...with plan_mode_respond tool")
)
_REPLY_WITHIN = 2_000
# What Cline (and Roo Code, after it) append to the user's words for each @-mention in them,
# after a blank line, each with its closing (`parseMentions`: the mention itself becomes
# "'notes/ride.md' (see below for file content)"): a file's content, a folder's listing and
# its files' content, a web page, the editor's problems, the terminal's output, git's
# working state or a commit. Not the user's words, yet read as the ask: a task's or a reply's
# words are read without those that follow their closing (a wrapper's, `HARNESS_WRAPPERS` in
# `classifier.harness`, or a reply's). Openings with attributes are matched by how they start.
# Past a wrapper's closing, only when its words hold a mention's note (`MENTIONED`: each of
# the seven has it, "Terminal Output (see below for output)", "Git commit 'a1b2c3d' (see below
# for commit info)"...): a user's own "<task>Explain this</task>\n<terminal_output>...
# </terminal_output>\nand propose a fix" was read without the output (found in review).
MENTIONED = "(see below for"
HARNESS_MENTIONS = {
    "<file_content path=": "</file_content>",
    "<folder_content path=": "</folder_content>",
    "<url_content url=": "</url_content>",
    "<workspace_diagnostics>": "</workspace_diagnostics>",
    "<terminal_output>": "</terminal_output>",
    "<git_working_state>": "</git_working_state>",
    "<git_commit hash=": "</git_commit>",
}
# Cline's and Roo Code's text on reopening an interrupted task. A task stopped after a tool
# ran is resumed in the turn that carries the tool's result: its texts, then this one, then
# the user's message, if any. The result was for the reply the task lost, and asks nothing
# now; only a reply before or after it is read. After a task's closing, the text is the
# agent's by where it is, and its first words name it (`RESUMED`).
TASK_RESUMPTION = "[TASK RESUMPTION] This task was interrupted"
RESUMED = re.compile(r"\s{0,64}" + re.escape(TASK_RESUMPTION))
# Where a text starts with it, or a tool's result comes before it (a bracketed "Result:" line
# is a log's too), a user may be quoting it ("[TASK RESUMPTION] This task was interrupted 3
# minutes ago: what does Cline mean?" was no ask, found in review), so it is matched
# through the end of its fixed template (Cline's `formatResponse.taskResumption`, and
# Roo Code's before it dropped the text, which has no working directory): the last sentence
# in act mode or in plan mode, then, when the task stopped under 30 seconds before, a note
# on an edit reverted, then in plan mode, when the user sent no message, the note saying so
# (`_NO_MESSAGE`). What follows it in its text is read: the user's message in
# `<user_message>` after its lead-in, or the words a user typed after pasting it.
_RESUMPTION_ENDS = (
    "the browser has been closed and you must launch a new browser if needed.",  # act mode
    "so rather than continuing the task, you must respond to the user's message.",  # plan mode
)
# Cline's plan-mode note in place of the user's message, whole: appended to the resumption
# (older versions, with no space before it) or a part of its own after it (newer ones, which
# added "suggest to them"). Matched by its start alone, it made a user's text that starts
# with its words no ask.
_NO_MESSAGE = (
    re.escape(
        "(The user did not provide a new message. Consider asking them how they'd like you "
        "to proceed, or "
    )
    + "(?:suggest to them )?"
    + re.escape("to switch to Act mode to continue with the task.)")
)
# Roo Code's text on reopening a task since it dropped the template, whole: sent only when
# the turn would be empty (no tool's result to resume after, no message: a message comes in
# `<user_message>` instead, with no resumption), so it is matched only where it starts a text
# (Roo Code's `resumeTaskFromHistory`, "add a minimal resumption message"). Read as the
# user's ask, it made a resumed task's latest ask "[TASK RESUMPTION] Resuming task...".
_MINIMAL = "[TASK RESUMPTION] Resuming task..."
_TEMPLATE = re.compile(
    r"\s{0,64}(?:"
    + re.escape(TASK_RESUMPTION)
    + r"\b.{0,2000}?(?:"
    + "|".join(map(re.escape, _RESUMPTION_ENDS))
    + r")(?:\s{0,64}IMPORTANT: If the last tool use was a .{0,300}?"
    + re.escape("you do NOT need to re-read the file as you already have its up-to-date contents.")
    + r")?(?:\s{0,64}"
    + _NO_MESSAGE
    + ")?|"
    + re.escape(_MINIMAL)
    + "|"
    + _NO_MESSAGE
    + ")",
    re.DOTALL,
)
_REPLY_OF = {closing: opening for opening, closing in HARNESS_REPLIES.items()}
_REPLY_OPENING = re.compile("|".join(map(re.escape, HARNESS_REPLIES)))
_MENTIONS_OF = {closing: (opening,) for opening, closing in HARNESS_MENTIONS.items()}
# What may follow a reply mid-text: a mention's block, Roo Code's file, the editor's state,
# or nothing more
_MARKUP = re.compile(
    r"\s{0,64}(?:"
    + "|".join(map(re.escape, [*HARNESS_MENTIONS, "<file>", "<environment_details>"]))
    + r"|\Z)"
)
# A tool's header ("[read_file for 'x'] Result:") that starts a text, and one that is all
# of it: a text part of its own in Cline's turns, which, with a reply in the part after it,
# has no words either (in the reply's own text, the header is a lead-in)
_RESULT = re.compile(r"\s{0,64}\[.{0,500}?\] Result:", re.DOTALL)
HEADER = re.compile(r"\s{0,64}\[.{0,500}\] Result:\s{0,64}\Z", re.DOTALL)


def closing_at(
    text: str, start: int, end: int, closings: Container[str], prose: Sequence[str] = ()
) -> tuple[int, str] | None:
    """Where the closing among `closings` that `text[start:end]` ends with (before at most
    64 white spaces) starts, and which it is; None if it ends with none. No regex: a tag's
    closing is the text from its last "</", an agent's prose closing one of `prose`."""
    base = max(start, end - 100)
    stop = base + len(text[base:end].rstrip())
    if end - stop > 64:
        return None
    if text.endswith(">", base, stop):
        at = text.rfind("</", base, stop)
        closing = text[at:stop] if at >= 0 else ""
        return (at, closing) if closing in closings else None
    for closing in prose:
        if closing in closings and text.endswith(closing, base, stop):
            return stop - len(closing), closing
    return None


def blocks_before(
    text: str,
    start: int,
    end: int,
    openings_of: Mapping[str, Sequence[str]],
    prose: Sequence[str] = (),
) -> int:
    """Where the blocks that `text[start:end]` ends with begin, each a closing of
    `openings_of` and the last of its openings before it (or the closing itself, for a note
    that is its own: "[Request interrupted by user]"): of an agent's prose (`prose`), a
    block whose first closing ends the text (a tag's closing is checked no further, as
    before)."""
    for _ in range(HARNESS_EACH_END):
        closed = closing_at(text, start, end, openings_of, prose)
        if closed is None:
            break
        at, closing = closed
        bound = max(start, at - HARNESS_CHARS)
        stop = at + len(closing)  # an opening starts before its closing ends: a note's at it
        opened = max(text.rfind(opening, bound, stop) for opening in openings_of[closing])
        if opened < 0 or (closing in prose and text.find(closing, opened, at) >= 0):
            break  # no opening, or one whose own closing is an earlier one
        end = opened
    return end


def reply(text: str, start: int, end: int, closed: bool = True) -> str | None:
    """The words of the reply that `text[start:end]` ends with, before the mentions after it
    (looked for when `closed`: it ends like a closing), when it starts the text or follows
    an agent's lead-in (`_LEAD_INS`); or else of the first within `_REPLY_WITHIN`
    characters when it follows a lead-in and the agent's markup follows it (`_MARKUP`);
    None otherwise."""
    if closed:
        words = blocks_before(text, start, end, _MENTIONS_OF)
        ending = closing_at(text, start, words, _REPLY_OF)
        if ending is not None:
            close, closing = ending
            opening = _REPLY_OF[closing]
            at = text.rfind(opening, max(start, close - HARNESS_CHARS), close)
            if at >= 0 and _led(text, start, at):
                return text[at + len(opening) : close].strip()
    found = _REPLY_OPENING.search(text, start, min(end, start + _REPLY_WITHIN))
    if found is None or not _led(text, start, found.start(), alone=False):
        return None
    inside, closing = found.end(), HARNESS_REPLIES[found.group()]
    close = text.find(closing, inside, min(end, inside + HARNESS_CHARS))
    if close < 0 or not _MARKUP.match(text, close + len(closing), end):
        return None
    return text[inside:close].strip()


def _led(text: str, start: int, at: int, alone: bool = True) -> bool:
    """Whether a reply's opening at `at` follows a lead-in, or (when `alone`) starts
    `text[start:]`."""
    lead = text[max(start, at - 100) : at].rstrip()
    if not lead and at - 100 <= start:
        return alone
    return lead.endswith(_LEAD_INS)


def resumed_at(text: str, start: int, end: int) -> int:
    """Where the resumption starts in `text[start:end]` when a tool's result starts it (a
    turn's texts joined): the last `TASK_RESUMPTION` at a line's start within
    `HARNESS_CHARS` of the end, when the whole of its template follows (`resumption_end`);
    -1 when none. By its first words alone, a user's text that pastes a tool's output and
    quotes them was no ask ("[execute_command for 'npm test'] Result:\nFAIL ...\n[TASK
    RESUMPTION] This task was interrupted — why does Cline show this after my tests
    fail?", found in review)."""
    if not _RESULT.match(text, start, end):
        return -1
    at = text.rfind("\n" + TASK_RESUMPTION, max(start, end - HARNESS_CHARS), end)
    return at + 1 if at >= 0 and resumption_end(text, at + 1, end) >= 0 else -1


def resumed_part(texts: Sequence[str]) -> int:
    """Which of a turn's texts starts with the whole resumption (`resumption_end`) when the
    first is a tool's result; 0 when none does."""
    if not texts or not _RESULT.match(texts[0]):
        return 0
    return next((i for i, t in enumerate(texts) if resumption_end(t, 0, len(t)) >= 0), 0)


def resumption_end(text: str, start: int, end: int) -> int:
    """Where the resumption that starts `text[start:end]` (past at most 64 white spaces)
    ends, through its template's last sentence (`_TEMPLATE`, within 2,000 characters of its
    start) and the notes after it, or through Roo Code's whole text (`_MINIMAL`) or Cline's
    note that no message came (`_NO_MESSAGE`), each a text of its own too; -1 when the text
    does not start with the whole of one."""
    found = _TEMPLATE.match(text, start, end)
    return found.end() if found else -1
