"""A DSPy 2.x call answered in its template's fields.

DSPy 2.x (dspy_ai 2.4.9, which knowledge-storm 1.1.1 pins) sends each call of a predictor as
one user message in dsp's template, its query ending with the prefix of the first field the
model is to write (`classifier.dsp_template.legacy_outputs`: a ChainOfThought's rationale,
"Reasoning: Let's think step by step in order to", then the signature's outputs). dsp reads a
reply by those fields (`dsp/templates/template_v2.py`, `TemplateV2.extract` at 136-197): the
first's value, then each next field's prefix opening a line and its value; a reply that lacks
the last field is asked again, greedy and shorter (`dsp/primitives/predict.py` at 85-112).
The simulator answered prose alone: each ChainOfThought call of a STORM run was sent twice,
its answer taken for the rationale and the retry's for the output (found in a live review).
So such a call is answered in its fields, its last field's value the simulator's answer to
the call's ask (`classifier.dsp_template.legacy_ask`: its task and inputs,
`answer.compose`), each field before it a sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from classifier.dsp_template import LegacyField


def laid_out(fields: Sequence[LegacyField], answer: str, said: Callable[[], str]) -> str:
    """`answer` laid out in `fields`, the fields a DSPy 2.x call asks for, as dsp reads a
    reply: the first field's value alone (its prefix ends the prompt), then each next
    field's prefix and its value, a blank line apart, as dsp's long template lays its query
    out. The last field's value is `answer`, each one's before it a sentence of `said`."""
    values = [said() for _ in fields[1:]] + [answer]
    later = (
        f"{field.prefix}{field.separator}{value}"
        for field, value in zip(fields[1:], values[1:], strict=True)
    )
    return "\n\n".join((values[0], *later))
