"""Values built from a JSON schema, deterministically: tool-call arguments and structured output.

One builder serves both, as one constrained decoder serves both in vLLM: a tool's
`parameters` and a `response_format`'s schema are the same JSON Schema, and pydantic (what
pydantic-ai, LangChain and the openai SDK's `parse` helpers send) writes them alike, with
`$defs`/`$ref`, `anyOf` with a null branch for `Optional`, enums, nested objects and arrays.
The value is the schema's `default` where it gives one it allows (pydantic's `= None`), else
the first thing the schema allows; a leaf (a number, a string) is its own schema's and
name's to decide (`scalars`: of a number bounded both ways, the middle of its range; a
string named after its field where that hints, `city` → the place the prompt names, else
Paris, else the prompt's first words), a free string that names an agent the agent a
`Named` gives (one the prompt lists: fast-agent's router and orchestrator,
`offered_agents`), a command's argv (an array of strings) its words (`_Walk.argv`); of an
`anyOf` or `oneOf` whose branches are named (each a `const` of one field: BeeAI's tools
as a `ToolCall`, pydantic's discriminated unions), the one a `Chooser` picks, written with its name.
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Callable, Sequence
from typing import Any

from router.simulator.called_ids import is_id
from router.simulator.offered_agents import names_agent
from router.simulator.scalars import COMMAND, number, string

# an array of strings by one of these names, whole and in any case, is a command's argv
# (open-codex's `shell` tool): filled with the command hint's words, not one item of them all.
# Not a name that holds one: `commands` lists command lines, each run on its own
_ARGV = frozenset({"command", "cmd", "argv", "args"})
# what an item's schema may say beyond its type for it to take any word of the command
_ITEM_LIMITS = ("enum", "const", "format", "default", "pattern", "minLength", "maxLength")
_DEEP = 3  # nesting past which optional parts (nullable, arrays, unrequired) are left out
_HOPS = 8  # `$ref`s followed in a chain before the chain is taken for a loop
_MOST = 64  # the most array items a schema's `minItems` is met with
_LAST = 64  # nesting past which a value is given up on, null (the stack's bound)
_BUDGET = 2_000  # values one document may hold: a schema that requires itself ends here

JSON_OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
"""What `json_object` (any JSON object) is answered with: one small object (or, where the
prompt holds a schema it asks JSON of, an instance of that: `answer.prompted_json`)."""


Chooser = Callable[[Sequence[str]], int | None]
"""Which of an `anyOf`'s named branches to answer with, given their names in order; None
for the first, as where nothing chooses."""

Named = Callable[[], str | None]
"""The agent a free string field that names one is filled with (`offered_agents`), None
where the prompt lists none; asked once, and only where a field names an agent."""


def structured(
    schema: dict[str, Any], user: str, choose: Chooser | None = None, agent: Named | None = None
) -> str:
    """The text of a structured-output answer: a JSON document valid against `schema`."""
    return json.dumps(_Walk(schema, user, choose, agent).value("", schema, 0))


def arguments_for(
    schema: dict[str, Any],
    user: str,
    shown_id: str | None = None,
    shell: bool = False,
    agent: Named | None = None,
    cwd: str = "",
) -> dict[str, Any]:
    """An argument object that satisfies a JSON schema's required fields (all if none), its
    id fields (`called_ids.is_id`) `shown_id` where one is given (`called_ids.shown_id`), its
    free strings a harmless command where the tool runs commands (`shell`,
    `scalars.runs_commands`), a field naming an agent (VoltAgent's `targetAgents` items) the
    one `agent` gives, a file's path that must be absolute one under `cwd`, the working
    directory the system prompt states (`workdir`).

    vLLM takes any object as a tool's schema, so a part that is not what JSON Schema says
    (`properties` a list, `required` a number) is read as absent: never a 500."""
    walk = _Walk(schema, user, agent=agent, shown_id=shown_id, shell=shell, cwd=cwd)
    return walk.arguments(schema, 0)


def value_for(name: str, schema: dict[str, Any], user: str) -> Any:
    """A value valid against `schema`, for a field called `name`."""
    return _Walk(schema, user).value(name, schema, 0)


class _Walk:
    """One document's build: the schema its `$ref`s point into (`root`, with its `$defs`),
    the prompt its strings quote, and what is left of its `_BUDGET`. Past `_DEEP` levels a
    nullable is null, an array as short as it may be, an object only its required fields,
    so a recursive model (a tree of nodes) ends small; a schema no finite value meets (an
    object that requires itself) is cut off, null, when the budget runs out or past `_LAST`
    levels. `choose` picks among named branches, once per `anyOf`; `agent` names the agent
    a field naming one gets, asked once."""

    def __init__(
        self,
        root: dict[str, Any],
        user: str,
        choose: Chooser | None = None,
        agent: Named | None = None,
        shown_id: str | None = None,
        shell: bool = False,
        cwd: str = "",
    ) -> None:
        self.root, self.user, self.left = root, user, _BUDGET
        self.choose, self.agent = choose, agent
        self.shown_id = shown_id  # what an id field holds (`arguments_for`)
        self.shell = shell  # a shell tool's arguments: no string quotes the ask
        self.cwd = cwd  # the working directory a relative path is put under (`workdir`)
        # by the `anyOf` list's id (one walk's schema): its naming field and the pick
        self.picks: dict[int, tuple[str, int | None] | None] = {}
        self.agent_name: str | None = None  # `agent`'s answer, once asked ("" for none)

    def arguments(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        props = _object(schema.get("properties"))
        required = schema.get("required")
        names: list[Any] = list(props) if depth <= _DEEP else []
        if isinstance(required, list) and required:
            names = required
        return {
            name: self.value(name, _object(props.get(name)), depth + 1)
            for name in names
            if isinstance(name, str)
        }

    def value(self, name: str, schema: dict[str, Any], depth: int) -> Any:
        """The schema's `default` (`defaults`), the first of an `enum`, the first non-null
        branch of an `anyOf`, `$ref`s followed; else a value of the schema's type."""
        self.left -= 1
        if self.left < 0 or depth > _LAST:
            return None
        schema = self.resolved(schema)
        if "default" in schema and self.defaults(name, schema):
            return copy.deepcopy(schema["default"])
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        branch = self.branch(schema, depth)
        if branch is not None:  # a level of its own: an `anyOf` of itself must end too
            return self.value(name, branch, depth + 1)
        kind = _kind(schema)
        if kind == "null":
            return None
        if kind in ("integer", "number"):
            return number(schema, kind == "integer")
        if kind == "boolean":
            return True
        if kind == "array":
            return self.array(name, schema, depth)
        if kind == "object":
            return self.arguments(schema, depth)
        given = self.shown_id if self.shown_id is not None and is_id(name) else None
        given = given or self.agent_for(name, schema)
        return string(name, schema, self.user, given, self.shell, self.cwd)

    def defaults(self, name: str, schema: dict[str, Any]) -> bool:
        """Whether the field takes its schema's `default`, as a model does that the prompt
        tells nothing of the field: where the default is one the schema `allows` and the
        field is not an id field given a shown id or an agent field given an agent. pydantic
        writes `Optional[X] = None` so (`"default": null` beside `anyOf [X, null]`); built
        as the first non-null branch instead, code-puppy's auto-continue check (`approval`:
        "yes, go." or null) approved every reply and the demo went on by itself (review)."""
        if is_id(name) and self.shown_id is not None:
            return False
        return self.allows(schema["default"], schema, _HOPS) and not self.agent_for(name, schema)

    def allows(self, value: Any, schema: dict[str, Any], hops: int) -> bool:
        """Whether `value` meets `schema`'s `const`, `enum`, `type` and one of its `anyOf`
        or `oneOf` branches (`$ref`s followed), as far as a default needs checking: an
        object's fields, an array's items and bounds are not read."""
        if hops < 0:
            return False
        if "const" in schema and schema["const"] != value:
            return False
        enum = schema.get("enum")
        if isinstance(enum, list) and value not in enum:
            return False
        if not _typed(value, schema):
            return False
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                branches = (self.resolved(_object(option), hops - 1) for option in options)
                return any(self.allows(value, branch, hops - 1) for branch in branches)
        return True

    def agent_for(self, name: str, schema: dict[str, Any]) -> str:
        """The agent a field that names one (`offered_agents.names_agent`) is filled with,
        "" where nothing names one or the field names none."""
        if self.agent is None or not names_agent(name, schema):
            return ""
        if self.agent_name is None:
            self.agent_name = self.agent() or ""
        return self.agent_name

    def array(self, name: str, schema: dict[str, Any], depth: int) -> list[Any]:
        """`minItems` items (one by default, none past `_DEEP` levels), within `maxItems`."""
        least, most = schema.get("minItems"), schema.get("maxItems")
        count = min(least, _MOST) if isinstance(least, int) and least > 0 else int(depth <= _DEEP)
        if isinstance(most, int) and 0 <= most < count:
            count = most
        if not count:  # no item built: a recursive one would not end
            return []
        argv = self.argv(name, schema, least, most)
        if argv is not None:
            return argv
        # Each built, not one copied: copies spent no budget, and an array of arrays doubled
        # per level to 2**64 items, which the reply's encoding never finished (found in review)
        items = _object(schema.get("items"))
        return [self.value(name, items, depth + 1) for _ in range(count)]

    def argv(self, name: str, schema: dict[str, Any], least: Any, most: Any) -> list[str] | None:
        """The command hint's words (`["ls", "-la"]`) for an array of plain strings that
        names a command's argv (`_ARGV`) and allows that many items; None otherwise. Built
        item by item, open-codex's `shell` got `{"command": ["ls -la"]}` and tried to run a
        program named "ls -la": spawn ENOENT on every call (found in a live review). Only
        those names whole: `run_commands(commands: string[])` got `["ls", "-la"]`, and a
        client running each item ran "-la" as a command of its own (found in review)."""
        if name.lower() not in _ARGV:
            return None
        items = self.resolved(_object(schema.get("items")))
        if _kind(items) != "string" or any(key in items for key in _ITEM_LIMITS):
            return None
        words = shlex.split(COMMAND)
        fewest = least if isinstance(least, int) else 0
        if fewest > len(words) or (isinstance(most, int) and most < len(words)):
            return None
        return words

    def resolved(self, schema: dict[str, Any], hops: int = _HOPS) -> dict[str, Any]:
        """`schema` with its `$ref` (a local JSON pointer, `#/$defs/Inner`) followed and
        `allOf`'s parts merged in; a ref that points nowhere, or round, reads as no schema."""
        while isinstance(ref := schema.get("$ref"), str):
            hops -= 1
            if hops < 0:
                return {}
            schema = _pointed(ref, self.root) | {k: v for k, v in schema.items() if k != "$ref"}
        parts = schema.get("allOf")
        if not isinstance(parts, list):
            return schema
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in parts:
            self.left -= 1
            if hops > 0 and self.left >= 0:
                merged = self.resolved(_object(part), hops - 1) | merged
        return merged

    def branch(self, schema: dict[str, Any], depth: int) -> dict[str, Any] | None:
        """The `anyOf`/`oneOf` branch to answer with: of named branches the one `choose`
        picks (`named`), else the first that is not null (pydantic's `Optional[X]` is
        `anyOf: [X, {"type": "null"}]`); null past `_DEEP` levels."""
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if not isinstance(options, list) or not options:
                continue
            branches = [self.resolved(_object(option)) for option in options]
            null = [b for b in branches if _kind(b) == "null"]
            if null and depth > _DEEP:
                return null[0]
            kept = [b for b in branches if _kind(b) != "null"]
            return self.named(options, kept, depth) or next(iter(kept), branches[0])
        return None

    def named(
        self, options: list[Any], branches: list[dict[str, Any]], depth: int
    ) -> dict[str, Any] | None:
        """The branch `choose` picks by name (the first where nothing chooses, or its answer
        is None or out of range), None where the branches are not told apart by a name
        (`_names`); read once per `anyOf` (`options`), as an array of it is built item by
        item. The branch is built with its name (`_naming`): pydantic's discriminated union
        leaves its tag out of `required` (`Literal["dog"] = "dog"`), and a branch built
        without it matched every branch of its `oneOf` (found in review)."""
        if id(options) not in self.picks:
            left = self.left  # the names are read, not written: the values' budget stays
            found = _names(branches, self.resolved)
            self.left = left
            index = None if found is None or self.choose is None else self.choose(found[1])
            self.picks[id(options)] = None if found is None else (found[0], index)
        picked = self.picks[id(options)]
        if picked is None:
            return None
        field, index = picked
        chosen = branches[index if index is not None and 0 <= index < len(branches) else 0]
        return _naming(chosen, field, every=depth + 1 <= _DEEP)


def _naming(branch: dict[str, Any], field: str, every: bool) -> dict[str, Any]:
    """`branch` with `field`, its name, among the fields it is built with (`arguments`):
    added to its `required` unless there, or unless it has none and `every` field is built
    (within `_DEEP` levels)."""
    required = branch.get("required")
    required = required if isinstance(required, list) else []
    if field in required or (not required and every):
        return branch
    return branch | {"required": [field, *required]}


def _names(
    branches: list[dict[str, Any]], resolved: Callable[[dict[str, Any]], dict[str, Any]]
) -> tuple[str, tuple[str, ...]] | None:
    """The field that names the branches and their names: the first field every branch
    fixes to one string (a `const` or an `enum` of one), distinct across them; None where no
    field does, or for fewer than two branches. BeeAI's `ToolCall` fixes `name` in each
    (`{"const": "get_weather"}`). A field stops being read at the first branch that does
    not name it so: linear in the schema."""
    if len(branches) < 2:
        return None
    for field in _object(branches[0].get("properties")):
        names: dict[str, None] = {}
        for branch in branches:
            name = _fixed(resolved(_object(_object(branch.get("properties")).get(field))))
            if name is None or name in names:
                break
            names[name] = None
        else:
            return field, tuple(names)
    return None


def _fixed(schema: dict[str, Any]) -> str | None:
    """The one string a schema allows (`const`, or an `enum` of one), else None."""
    enum = schema.get("enum")
    value = enum[0] if isinstance(enum, list) and len(enum) == 1 else schema.get("const")
    return value if isinstance(value, str) and value else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _pointed(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for key in filter(None, ref[1:].split("/")):
        node = _object(node).get(key.replace("~1", "/").replace("~0", "~"))
    return _object(node)


def _kind(schema: dict[str, Any]) -> Any:
    """The schema's type: the first not null of a list; an object's or array's when it
    says none but has `properties` or `items`; else a string."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return next((k for k in kind if k != "null"), "null" if kind else "string")
    if kind is None:
        return "object" if "properties" in schema else "array" if "items" in schema else "string"
    return kind


_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "array": (list,),
    "object": (dict,),
}


def _typed(value: Any, schema: dict[str, Any]) -> bool:
    """Whether `value` is of the schema's `type` (one of a list); any value where it names
    none. A boolean is no number, as in JSON."""
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
    if not kinds:
        return True
    if isinstance(value, bool):
        return "boolean" in kinds
    return any(isinstance(value, _TYPES.get(k, ())) for k in kinds if isinstance(k, str))
