"""Merge keys (`<<`) and keys given twice in suite files, as `evals.yaml_mapping` reads them
for the suite loader (and the router's config reader): as https://yaml.org/type/merge.html
says, whatever Python does with the key's string, and in time linear in what is built."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from evals import suite_yaml, yaml_mapping
from evals.suite import SuiteError, load
from tests.yaml_merge_spec import EXAMPLES


def test_merged_keys_are_not_duplicates(tmp_path: Path) -> None:
    (tmp_path / "merge.yaml").write_text(
        "- &base {id: a, prompt: p, evaluator: text_match, expected: x}\n"
        "- {<<: *base, id: b, expected: y}\n"
    )
    assert [(c.id, c.expected) for c in load(tmp_path)] == [("a", "x"), ("b", "y")]


def test_a_mapping_merged_before_it_is_built_keeps_its_overrides(tmp_path: Path) -> None:
    """`derived: &X {<<: *Y, note: ...}` merged into a later case was refused as "the key
    'note' is given twice": the later case's merge flattened X in place before X itself was
    built, and the check then saw Y's keys beside X's own (found in review)."""
    (tmp_path / "merge.yaml").write_text(
        "- id: a\n  evaluator: text_match\n  prompt: say hi\n  expected: hi\n  metadata:\n"
        "    base: &Y {unit: line, note: base}\n"
        "    derived: &X\n      <<: *Y\n      note: derived\n"
        "- <<: *X\n  id: b\n  evaluator: text_match\n  prompt: say yo\n  expected: yo\n"
    )
    a, b = load(tmp_path)
    assert a.metadata["derived"] == {"unit": "line", "note": "derived"}
    assert b.metadata == {"unit": "line", "note": "derived"}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("- &Y {id: a, id: b}\n- {<<: *Y, prompt: p}\n", r"line 1: the key 'id' .*line 1\)$"),
        (
            "- id: a\n  metadata: &X {<<: &Y {u: 1}, u: 2}\n- {<<: *X, id: b, id: c}\n",
            r"line 3: the key 'id' is given twice \(first on line 3\)$",
        ),
    ],
)
def test_a_key_twice_in_one_mapping_is_refused_where_merges_are(
    tmp_path: Path, text: str, where: str
) -> None:
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(SuiteError, match=rf"^{tmp_path}/bad\.yaml: {where}"):
        load(tmp_path)


@pytest.mark.parametrize("text", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_the_merge_specs_example_gives_four_equal_maps(text: str) -> None:
    ((doc, _),) = suite_yaml.documents(text)
    assert doc[5:] == [doc[4]] * 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # earlier mappings in the list win (it was the last)
            "x-a: &a {long key: 1}\nx-b: &b {long key: 2}\nb: {<<: [*a, *b]}\n",
            {"x-a": {"long key": 1}, "x-b": {"long key": 2}, "b": {"long key": 1}},
        ),
        (  # X's own `a: 2` wins over the `a` it merges, also where X is merged (y was 1)
            "c: &C {a: 1}\nx: &X {<<: *C, a: 2}\ny: {<<: *X}\n",
            {"c": {"a": 1}, "x": {"a": 2}, "y": {"a": 2}},
        ),
        (  # y lost X's own `a: 2`
            "y: {<<: &X {<<: &C {a: 1}, a: 2}}\nz: *X\n",
            {"y": {"a": 2}, "z": {"a": 2}},
        ),
    ],
    ids=["list", "nested", "aliased-after-merge"],
)
def test_merges_follow_the_spec_whatever_python_does_with_the_key(
    text: str, expected: dict[str, object]
) -> None:
    """PyYAML kept the first merged pair of a key by the identity of its Python string, and
    construction the last: the result hung on whether CPython reused the string."""
    assert [doc for doc, _ in suite_yaml.documents(text)] == [expected]


def test_a_suite_merging_a_merged_expectation_keeps_its_override(tmp_path: Path) -> None:
    """`again` merges `more`'s expectation, which overrides the `n` it merges: `again` was
    graded against `n: 1`."""
    (tmp_path / "merge.yaml").write_text(
        "- {id: plain, evaluator: json_contains, prompt: JSON, expected: &C {n: 1, ok: true}}\n"
        "- {id: more, evaluator: json_contains, prompt: n two, expected: &X {<<: *C, n: 2}}\n"
        "- {id: again, evaluator: json_contains, prompt: n two, expected: {<<: *X}}\n"
    )
    expected = [c.expected for c in load(tmp_path)]
    assert expected == [{"n": 1, "ok": True}, {"n": 2, "ok": True}, {"n": 2, "ok": True}]


def test_each_mapping_is_flattened_once_and_holds_each_key_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Many aliases of one merged mapping, a list merging one mapping 50 times, and PyYAML's
    exponential case (https://github.com/yaml/pyyaml/issues/897): each mapping node is
    flattened once, and what it holds after is the mapping it builds, each key once (it held
    each merged key again per alias, doubling at each level of the chain)."""
    chain = "".join(
        f"L{n}: &L{n} {{<<: [*L{n - 1}, *L{n - 1}], "
        + ", ".join(f"k{n}_{i}: {n}" for i in range(2**n))
        + "}\n"
        for n in range(1, 9)
    )
    text = (
        "base: &b {" + ", ".join(f"k{i}: {i}" for i in range(100)) + "}\n"
        "m: &m {<<: [" + ", ".join(["*b"] * 50) + "], own: 1}\n"
        "uses: [" + ", ".join(["*m"] * 200) + "]\n"
        "more: [" + ", ".join(f"{{<<: *m, i: {i}}}" for i in range(50)) + "]\n"
        "L0: &L0 {k0_0: 0}\n" + chain + "top: {<<: [*L8, *L8]}\n"
    )
    flattened: list[int] = []
    merged = yaml_mapping.merged

    def counted(own: list[yaml_mapping.Pair], sources: list[yaml.MappingNode]) -> Any:
        pairs = merged(own, sources)
        flattened.append(len(pairs))
        return pairs

    monkeypatch.setattr(yaml_mapping, "merged", counted)
    ((doc, _),) = suite_yaml.documents(text)
    built = {id(d): len(d) for d in _dicts(doc)}
    assert len(flattened) == len(_mapping_nodes(yaml.compose(text))) == len(built)
    assert sum(flattened) == sum(built.values())
    assert len(doc["top"]) == 2**9 - 1


def test_a_mapping_merged_many_times_in_one_list_is_read_once() -> None:
    """`<<: [*a, *a, ...]`: each alias after the first adds nothing, and read, costs the size
    of `a` again."""

    class Pairs(list[yaml_mapping.Pair]):
        reads = 0

        def __iter__(self) -> Iterator[yaml_mapping.Pair]:
            Pairs.reads += 1
            return super().__iter__()

    key, value = yaml.ScalarNode("tag:yaml.org,2002:str", "k"), yaml.ScalarNode("x", "1")
    source = yaml.MappingNode("tag:yaml.org,2002:map", Pairs([(key, value)]))
    assert yaml_mapping.merged([], [source] * 1000) == [(key, value)]
    assert Pairs.reads == 1


def _dicts(data: Any) -> Iterator[dict[Any, Any]]:
    """Each mapping in `data` (an alias's once: its object is shared)."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list) and id(item) not in seen:
            seen.add(id(item))
            if isinstance(item, dict):
                yield item
            stack.extend(item.values() if isinstance(item, dict) else item)


def _mapping_nodes(root: yaml.Node) -> set[yaml.Node]:
    """Each mapping node of a composed document (an alias's once: its node is shared)."""
    seen: set[yaml.Node] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.CollectionNode) and node not in seen:
            seen.add(node)
            is_mapping = isinstance(node, yaml.MappingNode)
            stack.extend(part for item in node.value for part in (item if is_mapping else [item]))
    return {node for node in seen if isinstance(node, yaml.MappingNode)}
