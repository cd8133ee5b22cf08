"""A YAML mapping's keys, as both our loaders read them: `<<` merges as the merge spec says
(https://yaml.org/type/merge.html), and a key written twice in one mapping is refused.

PyYAML 6.0.4's `flatten_mapping` keeps the first merged pair of a key by the identity of its
Python string (`id(key_node.value)`) while construction keeps the last, so the result hung on
whether CPython reused the string: `<<: [*A, *B]` let B win (the spec: A), and a mapping
merged through another lost that one's own override of a one-letter key (Python caches
those). Here a key is its scalar's (tag, text). In `evals`, so that the router's config
reader can use it too: the router may import `evals`, never the reverse.
"""

from __future__ import annotations

import re
from collections.abc import Hashable

import yaml
from yaml.constructor import ConstructorError

MERGE = "tag:yaml.org,2002:merge"  # a `<<` key's tag (`router.config_yaml` looks for it too)
# A key named in the error for a key given twice: a lower-case word, as every setting and
# field is named. Any other may be a secret: a header pasted whole as a name under a
# config's `headers` (`"Authorization: Bearer sk-..."`) was quoted (found in review).
_SHOWN_KEY = re.compile(r"[a-z][a-z_]{0,39}")
_VALUE = "tag:yaml.org,2002:value"

Pair = tuple[yaml.Node, yaml.Node]


class SafeLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` whose mappings merge by the spec and refuse a key written twice."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        # nodes, not ids: a freed node's id comes back
        self._flat: set[yaml.MappingNode] = set()
        self._flattening: set[yaml.MappingNode] = set()

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        """`node.value` rewritten in place with its merges resolved, each key once, in the
        order construction needs (the last pair of a key wins). Each node once: it is
        rewritten in place, so a second pass would check merged keys as its own, and a
        mapping merged through many aliases costs its size once, not once per alias."""
        if node in self._flat:
            return
        _refuse_duplicates(node)  # its own keys, before any merge comes in
        own, sources = _split(node)
        self._flattening.add(node)
        try:
            for source in sources:
                if source in self._flattening:
                    problem = "this mapping merges itself (through `<<`)"
                    raise ConstructorError(None, None, problem, source.start_mark)
                self.flatten_mapping(source)
        finally:
            self._flattening.discard(node)
        node.value = merged(own, sources)
        self._flat.add(node)


def merged(own: list[Pair], sources: list[yaml.MappingNode]) -> list[Pair]:
    """A mapping's pairs once its `sources` (flattened, in the order written) are merged:
    its `own` pairs win, then each source over the ones after it. Each key once, lowest
    precedence first, so construction (the last pair of a key wins) agrees even for keys that
    differ as written and meet once built (`1` and `0x1`). A source given twice adds nothing
    the second time (`<<: [*a, *a, ...]` cost the size of `a` for each alias)."""
    taken = {_key(key) for key, _ in own}
    layers: list[list[Pair]] = []
    for source in dict.fromkeys(sources):
        layer = [pair for pair in source.value if _key(pair[0]) not in taken]
        taken.update(_key(key) for key, _ in layer)
        layers.append(layer)
    return [pair for layer in reversed(layers) for pair in layer] + own


def _refuse_duplicates(node: yaml.MappingNode) -> None:
    """A key written twice in one mapping (not one a `<<` merge brings in: those yield)."""
    seen: dict[Hashable, yaml.Node] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == MERGE:
            continue
        first = seen.setdefault(_key(key), key)
        if first is not key:
            named = f"the key {key.value!r}" if _SHOWN_KEY.fullmatch(key.value) else "a key"
            problem = f"{named} is given twice (first on line {first.start_mark.line + 1})"
            raise ConstructorError(None, None, problem, key.start_mark)


def _split(node: yaml.MappingNode) -> tuple[list[Pair], list[yaml.MappingNode]]:
    """A mapping's own pairs, and the mappings its `<<` keys merge, in the order written
    (two `<<` keys read as one list: the spec inserts a merged key unless it is there)."""
    own: list[Pair] = []
    sources: list[yaml.MappingNode] = []
    for key, value in node.value:
        if key.tag != MERGE:
            if key.tag == _VALUE:  # as PyYAML reads the `=` key
                key.tag = "tag:yaml.org,2002:str"
            own.append((key, value))
        elif isinstance(value, yaml.MappingNode):
            sources.append(value)
        elif isinstance(value, yaml.SequenceNode):
            for item in value.value:
                if not isinstance(item, yaml.MappingNode):
                    problem = f"expected a mapping for merging, but found {item.id}"
                    raise ConstructorError(
                        "while constructing a mapping", node.start_mark, problem, item.start_mark
                    )
                sources.append(item)
        else:
            problem = f"expected a mapping or list of mappings for merging, but found {value.id}"
            raise ConstructorError(
                "while constructing a mapping", node.start_mark, problem, value.start_mark
            )
    return own, sources


def _key(node: yaml.Node) -> Hashable:
    """A key as the spec compares them: a scalar by its tag and text, whatever Python
    object holds the text; any other node by itself (it cannot be a key once built)."""
    return (node.tag, node.value) if isinstance(node, yaml.ScalarNode) else node
