"""What the official `openai` SDK's types hold, read off its pydantic models: the tests that
keep the router's and the simulator's closed sets and field lists equal to OpenAI's read the
SDK's through these, so a new SDK's value or field fails them."""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel


def type_names(models: Any) -> set[str]:
    """The `type` strings of the pydantic models among `models` (a union's members)."""
    found: set[str] = set()
    for model in models:
        if isinstance(model, type) and issubclass(model, BaseModel):
            found |= literals(model, "type")
    return found


def field_names(model: type[BaseModel]) -> set[str]:
    """A model's fields by the names JSON gives them (`async_` is `async`)."""
    return {field.alias or name for name, field in model.model_fields.items()}


def literals(model: Any, field: str) -> set[str]:
    """The strings of the `Literal` a pydantic model's field holds (in an `Optional` too)."""
    return _strings(model.model_fields[field].annotation)


def _strings(annotation: Any) -> set[str]:
    found: set[str] = set()
    for inner in get_args(annotation):
        found |= {inner} if isinstance(inner, str) else _strings(inner)
    return found
