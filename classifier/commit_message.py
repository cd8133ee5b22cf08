"""Commit-message generators: opencommit's example pair, and their prompts asking for a commit
message for a git diff, whatever the diff changes.

opencommit (npm `opencommit`, 3.3.10, MIT: `src/prompts.ts`) opens every request with its
system prompt (`IDENTITY`, then its mission: the Conventional Commit or GitMoji convention, or
the user's @commitlint rules), then an example: a user message of a fixed diff of
`src/server.ts` (`INIT_DIFF_PROMPT`, `EXAMPLE_DIFF`) and an assistant message of its commit
message (`INIT_CONSISTENCY_PROMPT`, which differs by language, emoji and commitlint setup);
the staged diff comes after them. Read as the first ask, the example diff gave every
opencommit request of one caller, in any repository, one conversation key
(`router.conversation.conversation_key`): a LaTeX diff read as math and served by the cloud
pinned every later commit, Python fixes too, to the cloud (found running opencommit against
the router). So the pair is passed over (`examples_end`, where Aider's example conversation
is, `classifier.asks`): each commit is keyed, and read, by its own diff. Told by the whole
example diff, right after a system prompt opening with opencommit's `IDENTITY`, and an
assistant message after it: the same diff pasted into another chat is read as written, and
opencommit's @commitlint setup request, whose only user message is that diff with no reply
after it, asks by it.

Both opencommit's prompts and aicommits' (npm `aicommits`, 3.4.0, MIT: its title prompt and,
for `-t conventional+body`, its body prompt) ask for a commit message for the diff they are
given. Read by the diff's topic, the work went elsewhere: aicommits' poem-only commit was
prose 0.55 and went to the cloud, a LaTeX proof's `coding` 0.48, opencommit's LaTeX proof
math 0.62 (found running both against the router). Yet the reply describes a code change in
git's form: coding work, as under Shell-GPT's describe-shell role (`classifier.shell_gpt`),
a rule's reading (`writes_commit_message`, `classifier.fixed.COMMIT_MESSAGE`). Told by each
prompt's fixed opening only: their later lines vary with the user's settings (language,
length, convention, context).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, role

# opencommit's `IDENTITY` and the start of every mission after it (`INIT_MAIN_PROMPT`, the
# commitlint module's `INIT_MAIN_PROMPT` and its consistency prompt): its system prompts'
# opening, exactly
OPENCOMMIT_SYSTEM = (
    "You are to act as an author of a commit message in git. Your mission is to create clean"
    " and comprehensive commit messages "
)
# `INIT_DIFF_PROMPT`'s content, exactly as opencommit sends it: its lines, its template's
# indentation kept (the blank ones hold spaces)
EXAMPLE_DIFF = "\n".join(
    (
        "diff --git a/src/server.ts b/src/server.ts",
        "    index ad4db42..f3b18a9 100644",
        "    --- a/src/server.ts",
        "    +++ b/src/server.ts",
        "    @@ -10,7 +10,7 @@",
        "    import {",
        "        initWinstonLogger();",
        "        ",
        "        const app = express();",
        "        -const port = 7799;",
        "        +const PORT = 7799;",
        "        ",
        "        app.use(express.json());",
        "        ",
        "        @@ -34,6 +34,6 @@",
        "        app.use((_, res, next) => {",
        "            // ROUTES",
        "            app.use(PROTECTED_ROUTER_URL, protectedRouter);",
        "            ",
        "            -app.listen(port, () => {",
        "                -  console.log(`Server listening on port ${port}`);",
        "                +app.listen(process.env.PORT || PORT, () => {",
        "                    +  console.log(`Server listening on port ${PORT}`);",
        "                });",
    )
)
# aicommits' title prompt's first line and the label of the line after it (`generatePrompt`),
# and its body prompt's first two sentences (`generateDescriptionPrompt`), exactly
AICOMMITS_SYSTEMS = (
    "Generate a concise git commit message title in present tense that precisely describes the"
    " key changes in the following code diff. Focus on what was changed, not just file names."
    " Provide only the title, no description or body.\nMessage language: ",
    "You are generating the short body (description) of a git commit message. You are given"
    " the commit title and the code diff.\n",
)


def examples_end(messages: Sequence[Any], system: System) -> int:
    """The index past opencommit's example pair (3: after the system prompt, the example diff
    and its reply), when `messages` open with it: a system prompt opening with
    `OPENCOMMIT_SYSTEM` (`system`), a user message of `EXAMPLE_DIFF` whole and an assistant
    message; 0 otherwise."""
    opening = system.opening
    if opening is None or not opening.startswith(OPENCOMMIT_SYSTEM) or len(messages) < 3:
        return 0
    if role(messages[1]) != "user" or role(messages[2]) != "assistant":
        return 0
    return 3 if one_text(messages[1]) == EXAMPLE_DIFF else 0


def writes_commit_message(system: System) -> bool:
    """Whether a request's system prompt (`system`) is opencommit's (`OPENCOMMIT_SYSTEM`) or
    aicommits' (`AICOMMITS_SYSTEMS`) at its start: its reply is a commit message for a
    diff."""
    opening = system.opening
    return opening is not None and opening.startswith((OPENCOMMIT_SYSTEM, *AICOMMITS_SYSTEMS))
