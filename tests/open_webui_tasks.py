"""Open WebUI's task requests, built as it builds them from its 0.12.4 default templates
(`tests/fixtures/open-webui-0.12.4.md`): what the classifier's and the router's tests of
them send."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "open-webui-0.12.4"
TEMPLATES: dict[str, str] = json.loads((FIXTURES / "templates.json").read_text(encoding="utf-8"))
HISTORY_TASKS = ("title", "tags", "follow_ups", "queries", "image_prompt")
_MESSAGES = re.compile(r"\{\{MESSAGES:END:(\d+)\}\}")


def task_text(name: str, chat: list[tuple[str, str]], typed: str = "") -> str:
    """Template `name` filled as Open WebUI's `utils/task.py` fills it: the chat's last
    messages as "ROLE: content" lines (`get_messages_content`), the text being typed (an
    autocompletion's `{{PROMPT}}`, an emoji's `{{prompt}}`), the date."""
    lines = [f"{role.upper()}: {content}" for role, content in chat]
    text = _MESSAGES.sub(lambda m: "\n".join(lines[-int(m.group(1)) :]), TEMPLATES[name])
    text = text.replace("{{TYPE}}", "General").replace("{{CURRENT_DATE}}", "2026-12-06")
    return text.replace("{{PROMPT}}", typed).replace("{{prompt}}", typed)


def task_body(name: str, chat: list[tuple[str, str]], typed: str = "") -> dict[str, Any]:
    """A task request as Open WebUI sends it to an OpenAI connection: one user message, not
    streamed."""
    content = task_text(name, chat, typed)
    return {"model": "auto", "messages": [{"role": "user", "content": content}], "stream": False}
