"""A range of numbers written close (`12:45-67`, `lines 0-18`, "a score from 1-10") is no
subtraction unless the ask asks for one, and a number bounded both ways is the middle of
its range.

paper-qa 2026.8.12's citations, summaries and answers in demo mode all read "Computing
45-67 step by step gives -22. The answer is $\\boxed{-22}$.": the simulator took a paper's
pages for a sum, and the citation it inferred named the document "Computing". Its JSON
summaries, asked a `"relevance_score": 0-10`, got 0, the lowest, under the score paper-qa
keeps a summary at. The prompts below are the ones it sent (found in a live review).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from router.simulator import SimThread
from tests.simulator.calls import no_sum, said

# paper-qa's citation inference (`citation_prompt`) over a paper's first chunk
CITATION = (
    "Provide the citation for the following text in MLA Format. Do not write an introductory "
    "sentence. Do not fabricate a DOI such as '10.xxxx' if one cannot be found, just leave it "
    "out of the citation. If reporting date accessed, the current year is 2026\n\n"
    "# Self-healing hydrogels for cartilage repair\nAuthors: A. Rivera, B. Chen (2023). "
    "Journal of Imaginary Biomaterials 12:45-67.\n\n## Abstract\nWe report a dynamic covalent "
    "hydrogel based on boronate ester crosslinks that heals within\n30 seconds after being cut. "
    "The gel retains 94% of its compressive modulus after ten\ncut-heal cycles. In a rabbit "
    "osteochondral defect model, defects treated with the gel showed\na 2.3-fold increase in "
    "type II collagen deposition at 12 weeks compared to untreated controls.\n\n## Methods\n"
    "Phenylboronic acid grafted hyaluronic acid (PBA-HA) was mixed with a diol-bearing "
    "polyvinyl\nalcohol at pH 7.4. Rheology was measured at 37 C. Twelve rabbits received 4 mm "
    "defects.\n\n## Results\nStorage modulus was 12 kPa. Healing efficiency was 94% +/- 3%. "
    "Chondrocyte viability was 97%.\nHistology at 12 weeks: ICRS score 9.1 vs 5.4 for controls "
    "(p < 0.01).\n\n## Limitations\nDegradation in vivo was faster than expected (50% mass loss "
    "at 6 weeks).\n\n\nCitation:"
)
SYSTEM = (
    "Answer in a direct and concise tone. Your audience is an expert, so be highly specific. "
    "If there are ambiguous terms or acronyms, first define them."
)
QUESTION = (
    "Question: Which material degrades faster in vivo, the boronate hydrogel or the "
    "zinc-doped PCL scaffold?"
)
# paper-qa's plain summary (`summary_prompt`, `use_json=False`): its score "from 1-10"
SUMMARY = (
    "Summarize the excerpt below to help answer a question.\n\nExcerpt from Okafor2024 chunk 1: "
    "Okafor, M., Svensson, L. 3D-printed PCL scaffolds with zinc doping. Ann. Fict. Tissue Eng. "
    "2024.\n\n---\n\nTitle: 3D-printed PCL scaffolds with zinc doping accelerate bone and "
    "cartilage regeneration\nAuthors: M. Okafor, L. Svensson. 2024. Annals of Fictional Tissue "
    "Engineering 8:101-119.\n\nAbstract. Polycaprolactone (PCL) scaffolds were 3D printed with "
    "300 micron pores and doped with\n1% zinc oxide. Zinc doping increased osteogenic marker ALP "
    "by 41% in vitro. In a sheep model of\ncombined bone-cartilage defects, zinc-doped scaffolds "
    "produced 35% more new bone volume at 16\nweeks than plain PCL. Cartilage regeneration was "
    "modest: ICRS scores 7.2 versus 6.8 for plain\nPCL, not statistically significant. Unlike "
    "hydrogels, the PCL scaffolds retained 90% of their\nmass at 16 weeks, degrading slowly over "
    "about two years.\n\nDiscussion. Slow degradation gives mechanical support but may hinder "
    "late remodeling. We suggest\ncombining stiff printed scaffolds with a soft, fast-healing "
    f"hydrogel phase for cartilage.\n\n---\n\n{QUESTION}\n\nDo not directly answer the "
    "question, instead summarize to give evidence to help answer the question. Stay detailed; "
    "report specific numbers, equations, or direct quotes (marked with quotation marks). Reply "
    '"Not applicable" if the excerpt is irrelevant. At the end of your response, provide an '
    "integer score from 1-10 on a newline indicating relevance to question. Do not explain "
    "your score.\n\nRelevant Information Summary (about 100 words):"
)
# paper-qa's answer (`qa_prompt`), its context two summaries as a model would write them
# and their citations with pages (the recorded one held the simulator's sums as context)
ANSWER = (
    "Answer the question below with the context.\n\nContext:\n\npqac-eca02ec3: The zinc-doped "
    "PCL scaffold kept 90% of its mass at 16 weeks and degrades over about two years.\nFrom "
    "Okafor, M., Svensson, L. 3D-printed PCL scaffolds with zinc doping. Ann. Fict. Tissue Eng. "
    "8:101-119, 2024.\n\npqac-4bda3313: The boronate hydrogel lost 50% of its mass at 6 weeks "
    "(lines 0-18).\nFrom Rivera, A., Chen, B. Self-healing hydrogels for cartilage repair. J. "
    "Imag. Biomat. 12:45-67, 2023.\n\nValid Keys: pqac-eca02ec3, pqac-4bda3313\n\n---\n\n"
    f"{QUESTION}\n\nWrite an answer based on the context. If the context provides insufficient "
    'information reply "I cannot answer." For each part of your answer, indicate which sources '
    "most support it via citation keys at the end of sentences, like (pqac-0f650d59). Only cite "
    "from the context above and only use the citation keys from the context.\n\nAnswer (about "
    "200 words, but can be longer):"
)
# paper-qa's JSON summary (`summary_json_system_prompt`) and a chunk it sent with it
JSON_SYSTEM = (
    "Provide a summary of the relevant information that could help answer the question based "
    "on the excerpt. Your summary, combined with many others, will be given to the model to "
    'generate an answer. Respond with the following JSON format:\n\n{\n  "summary": "...",\n'
    '  "relevance_score": 0-10\n}\n\nwhere `summary` is relevant information from the text - '
    "about 100 words. `relevance_score` is an integer 0-10 for the relevance of `summary` to "
    "the question.\n\nThe excerpt may or may not contain relevant information. If not, leave "
    "`summary` empty, and make `relevance_score` be 0."
)
JSON_USER = (
    "Excerpt from Tanaka2022 chunk 4: Tanaka, K. Degradation kinetics of boronate hydrogels in "
    "vivo. 2022.\n\n---\n\n6 the boronate hydrogel was implanted in rabbit knee defects and its "
    "mass loss was measured at week 6. Mass loss reached 30% and chondrocyte viability stayed "
    "near 95%. Storage modulus was 10 kPa and degradation products were non-toxic. The team "
    "compared these values against polycaprolactone controls that degraded far more slowly "
    "over the same interval.\n\nSection 7. In experiment 7 the boronate hydrogel was implanted "
    "in rabbit knee defects and its mass loss was measured at week 7. Mass loss reached 32% and "
    "chondrocyte viability stayed near 96%. Storage modulus was 11 kPa and degradation products "
    "were non-toxic. The team compared these values against polycaprolactone controls that "
    "degraded far more slowly over the same interval.\n\nSection 8. In experiment 8 the "
    f"boronate hydrogel was\n\n---\n\n{QUESTION}"
)


def user(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_paperqa_prompts_with_pages_lines_and_scales_get_no_sum(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """A citation's pages (`12:45-67`), a plain summary's "score from 1-10" and an answer
    whose context cites pages and lines: prose each, no sum of the range."""
    sim = start_sim(profile=profile)
    assert no_sum(said(sim, [user(CITATION)]))
    system = {"role": "system", "content": SYSTEM}
    assert no_sum(said(sim, [system, user(SUMMARY)]))
    assert no_sum(said(sim, [system, user(ANSWER)]))


def test_a_range_in_a_sentence_is_no_sum(start_sim: Callable[..., SimThread]) -> None:
    """Pages, lines and a scale, written close, are no subtraction."""
    sim = start_sim()
    for ask in (
        "Summarize pages 3-5 of the report.",
        "Rate the draft on a scale of 1-10.",
        "Explain what changed in lines 10-20.",
    ):
        assert no_sum(said(sim, [user(ask)])), ask


@pytest.mark.parametrize(
    ("ask", "computed"),
    [
        ("What is 45-67?", "Computing 45-67 step by step gives -22."),
        ("What's 10-3?", "Computing 10-3 step by step gives 7."),
        ("compute 12-7", "Computing 12-7 step by step gives 5."),
        ("Please calculate 101-119 for me.", "Computing 101-119 step by step gives -18."),
        ("9-4 = ?", "Computing 9-4 step by step gives 5."),
        ("Take 3-5 + 2.", "Computing 3-5 + 2 step by step gives 0."),
        ("Take 45 - 67.", "Computing 45 - 67 step by step gives -22."),
    ],
)
def test_a_computation_asked_of_numbers_written_close_is_computed(
    start_sim: Callable[..., SimThread], ask: str, computed: str
) -> None:
    """Asked ("What is", "compute", "calculate", `=`), or part of a longer expression, or
    spaced, the numbers are a sum as before."""
    assert said(start_sim(), [user(ask)]).startswith(computed)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_paperqa_json_summary_gets_a_score_inside_its_range(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The summary is JSON of the shape shown, its `relevance_score` an integer of 1-10:
    paper-qa drops a summary scored under 1 (its default cutoff), and with 0 every demo
    answer was "I cannot answer"."""
    messages = [{"role": "system", "content": JSON_SYSTEM}, user(JSON_USER)]
    got = json.loads(said(start_sim(profile=profile), messages))
    assert list(got) == ["summary", "relevance_score"] and isinstance(got["summary"], str)
    score = got["relevance_score"]
    assert isinstance(score, int) and not isinstance(score, bool) and 1 <= score <= 10


def test_a_number_bounded_both_ways_is_the_middle_of_its_range(
    start_sim: Callable[..., SimThread],
) -> None:
    """`minimum` and `maximum` give the middle (rounded down for an integer), under a
    schema as in a template; a bound on one side alone still gives its end or 1."""
    properties = {
        "score": {"type": "integer", "minimum": 0, "maximum": 10},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "rank": {"type": "integer", "minimum": 3},
        "count": {"type": "integer"},
    }
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    answer = {"type": "json_schema", "json_schema": {"name": "rating", "schema": schema}}
    got = json.loads(said(start_sim(), [user("Rate the draft.")], response_format=answer))
    assert got == {"score": 5, "confidence": 0.5, "rank": 3, "count": 1}
    template = 'Rate the draft.\n\nRespond ONLY with: {"score": 1-10, "confidence": 0.0-1.0}'
    assert json.loads(said(start_sim(), [user(template)])) == {"score": 5, "confidence": 0.5}
