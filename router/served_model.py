"""Whether each backend serves its configured model, from its `/v1/models` answer.

vLLM answers a model it does not serve with a 404, which the router takes for the
backend's configuration and falls back on: a wrong name sent every local request to the
paid cloud with nothing said (`router.capacity.unlisted`). What the last conclusive read
found is shown in the status; what was last logged is kept apart, so one wrong name is one
warning, not one per `models_refresh_s`.
"""

from __future__ import annotations

import logging

from router.capacity import ModelList, unlisted
from router.config import Backend as BackendSettings

log = logging.getLogger("smf_router.resilience")


class ServedModels:
    def __init__(self) -> None:
        self.found: dict[str, str] = {}  # backend -> why its model will likely be refused
        self.logged: dict[str, str] = {}  # backend -> the problem last logged

    def check(self, settings: BackendSettings, listing: ModelList) -> None:
        """Say once when a backend's `/v1/models` does not list its model (`unlisted`), and
        once when it does again. Only `kind: openai` backends: a litellm model name is a
        provider alias their lists need not hold. An answer that tells nothing (a 401, a
        body without cards) leaves what is known."""
        name = settings.name
        if listing.status != 404 and listing.cards is None:
            return
        problem = unlisted(settings.model, listing, settings.base_url)
        if problem is None:
            self.found.pop(name, None)
            if self.logged.pop(name, None) is not None:
                log.info("backend %r: its server lists model %r now", name, settings.model)
            return
        self.found[name] = problem
        if self.logged.get(name) != problem:
            self.logged[name] = problem
            log.warning("backend %r: %s", name, problem)

    def forget(self, name: str, removed: bool) -> None:
        """A backend a reload changed (read again: logged again only if it differs) or
        removed (forgotten whole)."""
        self.found.pop(name, None)
        if removed:
            self.logged.pop(name, None)
