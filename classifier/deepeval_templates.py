"""deepeval's RAG judges' templates, `AnswerRelevancyMetric`'s and `FaithfulnessMetric`'s, as
deepeval 4.3.1 renders them (`classifier.deepeval`); `GEval`'s are
`classifier.deepeval_geval_templates`'.

Each is a metric's Jinja template (`deepeval/metrics/*/templates/*.txt`) rendered by
`deepeval.templates.resolve_template` with `multimodal=False` and every value a placeholder
"{{name}}": the texts between them are deepeval's, character for character.
"""

from __future__ import annotations

ANSWER_RELEVANCY_STATEMENTS = (
    "Given the text, breakdown and generate a list of statements presented. Ambiguous "
    "statements and single words can be considered as statements, but only if outside of "
    "a coherent statement.\n"
    "\n"
    "Example:\n"
    "Example text: \n"
    "Our new laptop model features a high-resolution Retina display for crystal-clear "
    "visuals. It also includes a fast-charging battery, giving you up to 12 hours of "
    "usage on a single charge. For security, we\u2019ve added fingerprint authentication and "
    "an encrypted SSD. Plus, every purchase comes with a one-year warranty and 24/7 "
    "customer support.\n"
    "\n"
    "\n"
    "\n"
    "{\n"
    '  "statements": [\n'
    '    "The new laptop model has a high-resolution Retina display.",\n'
    '    "It includes a fast-charging battery with up to 12 hours of usage.",\n'
    '    "Security features include fingerprint authentication and an encrypted SSD.",\n'
    '    "Every purchase comes with a one-year warranty.",\n'
    '    "24/7 customer support is included."\n'
    "  ]\n"
    "}\n"
    "===== END OF EXAMPLE ======\n"
    "\n"
    "**\n"
    "IMPORTANT: Please make sure to only return in valid and parseable JSON format, with "
    'the "statements" key mapping to a list of strings. No words or explanation are '
    "needed. Ensure all strings are closed appropriately. Repair any invalid JSON before "
    "you output it.\n"
    "**\n"
    "\n"
    "Text:\n"
    "{{actual_output}}\n"
    "\n"
    "JSON:"
)

ANSWER_RELEVANCY_VERDICTS = (
    "For the provided list of statements, determine whether each statement is relevant "
    "to address the input.\n"
    "Generate JSON objects with 'verdict' and 'reason' fields.\n"
    "The 'verdict' should be 'yes' (relevant), 'no' (irrelevant), or 'borderline' "
    "(ambiguous/supporting information).\n"
    "Provide 'reason' ONLY for 'no' or 'borderline' verdicts.\n"
    "The statements are from an AI's actual output.\n"
    "\n"
    "\n"
    "\n"
    "**\n"
    "IMPORTANT: Please make sure to only return in valid and parseable JSON format, with "
    "the 'verdicts' key mapping to a list of JSON objects. Ensure all strings are closed "
    "appropriately. Repair any invalid JSON before you output it.\n"
    "\n"
    "Expected JSON format:\n"
    "{\n"
    '  "verdicts": [\n'
    "    {\n"
    '      "verdict": "yes"\n'
    "    },\n"
    "    {\n"
    '      "reason": <explanation_for_irrelevance>,\n'
    '      "verdict": "no"\n'
    "    },\n"
    "    {\n"
    '      "reason": <explanation_for_ambiguity>,\n'
    '      "verdict": "borderline"\n'
    "    }\n"
    "  ]  \n"
    "}\n"
    "\n"
    "Generate ONE verdict per statement - number of 'verdicts' MUST equal number of "
    "statements.\n"
    "'verdict' must be STRICTLY 'yes', 'no', or 'borderline':\n"
    "- 'yes': statement is relevant to addressing the input\n"
    "- 'no': statement is irrelevant to the input  \n"
    "- 'borderline': statement is ambiguous (not directly relevant but could be "
    "supporting information)\n"
    "Provide 'reason' ONLY for 'no' or 'borderline' verdicts.\n"
    "**          \n"
    "\n"
    "Input:\n"
    "{{input}}\n"
    "\n"
    "Statements:\n"
    "{{statements}}\n"
    "\n"
    "JSON:"
)

ANSWER_RELEVANCY_REASON = (
    "Given the answer relevancy score, the list of reasons of irrelevant statements made "
    "in the actual output, and the input, provide a CONCISE reason for the score. "
    "Explain why it is not higher, but also why it is at its current score.\n"
    "The irrelevant statements represent things in the actual output that is irrelevant "
    "to addressing whatever is asked/talked about in the input.\n"
    "If there is nothing irrelevant, just say something positive with an upbeat "
    "encouraging tone (but don't overdo it otherwise it gets annoying).\n"
    "\n"
    "\n"
    "\n"
    "**\n"
    "IMPORTANT: Please make sure to only return in JSON format, with the 'reason' key "
    "providing the reason. Ensure all strings are closed appropriately. Repair any "
    "invalid JSON before you output it.\n"
    "\n"
    "Example:\n"
    "Example JSON:\n"
    "{\n"
    '  "reason": "The score is <answer_relevancy_score> because <your_reason>."\n'
    "}\n"
    "===== END OF EXAMPLE ======\n"
    "**\n"
    "\n"
    "\n"
    "Answer Relevancy Score:\n"
    "{{score}}\n"
    "\n"
    "Reasons why the score can't be higher based on irrelevant statements in the actual "
    "output:\n"
    "{{irrelevant_statements}}\n"
    "\n"
    "Input:\n"
    "{{input}}\n"
    "\n"
    "JSON:"
)

FAITHFULNESS_TRUTHS = (
    "Based on the given text, please generate a comprehensive list of{{limit}}, that can "
    "inferred from the provided text.{{multimodal_instruction}}\n"
    "These truths, MUST BE COHERENT. They must NOT be taken out of context.\n"
    "\n"
    "Example:\n"
    "Example Text: \n"
    '"Albert Einstein, the genius often associated with wild hair and mind-bending '
    "theories, famously won the Nobel Prize in Physics\u2014though not for his groundbreaking "
    "work on relativity, as many assume. Instead, in 1968, he was honored for his "
    "discovery of the photoelectric effect, a phenomenon that laid the foundation for "
    'quantum mechanics."\n'
    "\n"
    "Example JSON: \n"
    "{\n"
    '  "truths": [\n'
    '    "Einstein won the noble prize for his discovery of the photoelectric effect in '
    '1968.",\n'
    '    "The photoelectric effect is a phenomenon that laid the foundation for quantum '
    'mechanics."\n'
    "  ]  \n"
    "}\n"
    "===== END OF EXAMPLE ======\n"
    "**\n"
    'IMPORTANT: Please make sure to only return in JSON format, with the "truths" key as '
    "a list of strings. No words or explanation is needed.\n"
    "Only include truths that are factual, BUT IT DOESN'T MATTER IF THEY ARE FACTUALLY "
    "CORRECT.\n"
    "**\n"
    "\n"
    "Text:\n"
    "{{retrieval_context}}\n"
    "\n"
    "JSON:"
)

FAITHFULNESS_CLAIMS = (
    "Based on the given text, please extract a comprehensive list of FACTUAL, undisputed "
    "truths, that can inferred from the provided actual AI output. \n"
    "These truths, MUST BE COHERENT, and CANNOT be taken out of context.\n"
    "\n"
    "Example:\n"
    "Example Text: \n"
    '"Albert Einstein, the genius often associated with wild hair and mind-bending '
    "theories, famously won the Nobel Prize in Physics\u2014though not for his groundbreaking "
    "work on relativity, as many assume. Instead, in 1968, he was honored for his "
    "discovery of the photoelectric effect, a phenomenon that laid the foundation for "
    'quantum mechanics."\n'
    "\n"
    "Example JSON: \n"
    "{\n"
    '  "claims": [\n'
    '    "Einstein won the noble prize for his discovery of the photoelectric effect in '
    '1968.",\n'
    '    "The photoelectric effect is a phenomenon that laid the foundation for quantum '
    'mechanics."\n'
    "  ]  \n"
    "}\n"
    "===== END OF EXAMPLE ======\n"
    "\n"
    "**\n"
    'IMPORTANT: Please make sure to only return in JSON format, with the "claims" key as '
    "a list of strings. No words or explanation is needed.\n"
    "Only include claims that are factual, BUT IT DOESN'T MATTER IF THEY ARE FACTUALLY "
    "CORRECT. The claims you extract should include the full context it was presented "
    "in, NOT cherry picked facts.\n"
    "You should NOT include any prior knowledge, and take the text at face value when "
    "extracting claims.\n"
    "You should be aware that it is an AI that is outputting these claims.\n"
    "**\n"
    "\n"
    "AI Output:\n"
    "{{actual_output}}\n"
    "\n"
    "JSON:"
)

FAITHFULNESS_VERDICTS = (
    "Based on the given claims, which is a list of strings, generate a list of JSON "
    "objects to indicate whether EACH claim contradicts any facts in the retrieval "
    "context. The JSON will have 2 fields: 'verdict' and 'reason'.\n"
    "The 'verdict' key should STRICTLY be either 'yes', 'no', or 'borderline', which "
    "states whether the given claim agrees with the context. \n"
    "Provide a 'reason' ONLY if the answer is 'no' or 'borderline'. \n"
    "The provided claim is drawn from the actual output. Try to provide a correction in "
    "the reason using the facts in the retrieval context.\n"
    "\n"
    "\n"
    "Expected JSON format:\n"
    "{\n"
    '"verdicts": [\n'
    "{\n"
    '"verdict": "yes"\n'
    "},\n"
    "{\n"
    '"reason": <explanation_for_contradiction>,\n'
    '"verdict": "no"\n'
    "},\n"
    "{\n"
    '"reason": <explanation_for_uncertainty>,\n'
    '"verdict": "borderline"\n'
    "}\n"
    "]  \n"
    "}\n"
    "\n"
    "\n"
    "**\n"
    "IMPORTANT: Please make sure to only return in JSON format, with the 'verdicts' key "
    "as a list of JSON objects.\n"
    "\n"
    "Generate ONE verdict per claim - length of 'verdicts' MUST equal number of claims.\n"
    "No 'reason' needed for 'yes' verdicts.\n"
    "Only use 'no' if retrieval context DIRECTLY CONTRADICTS the claim - never use prior "
    "knowledge.\n"
    "Use 'borderline' for claims not backed up by context OR factually incorrect but "
    "non-contradictory - do not assume your knowledge.\n"
    "Vague/speculative language in claims (e.g. 'may have', 'possibility') does NOT "
    "count as contradiction.\n"
    "\n"
    "**\n"
    "\n"
    "Retrieval Contexts:\n"
    "{{retrieval_context}}\n"
    "\n"
    "Claims:\n"
    "{{claims}}\n"
    "\n"
    "JSON:"
)

FAITHFULNESS_REASON = (
    "Below is a list of Contradictions. It is a list of strings explaining why the "
    "'actual output' does not align with the information presented in the 'retrieval "
    "context'. Contradictions happen in the 'actual output', NOT the 'retrieval "
    "context'.\n"
    "Given the faithfulness score, which is a 0-1 score indicating how faithful the "
    "`actual output` is to the retrieval context (higher the better), CONCISELY "
    "summarize the contradictions to justify the score. \n"
    "\n"
    "Expected JSON format:\n"
    "{\n"
    '  "reason": "The score is <faithfulness_score> because <your_reason>."\n'
    "}\n"
    "\n"
    "** \n"
    "IMPORTANT: Please make sure to only return in JSON format, with the 'reason' key "
    "providing the reason.\n"
    "\n"
    "If there are no contradictions, just say something positive with an upbeat "
    "encouraging tone (but don't overdo it otherwise it gets annoying).\n"
    "Your reason MUST use information in `contradiction` in your reason.\n"
    "Be sure in your reason, as if you know what the actual output is from the "
    "contradictions.\n"
    "**\n"
    "\n"
    "Faithfulness Score:\n"
    "{{score}}\n"
    "\n"
    "Contradictions:\n"
    "{{contradictions}}\n"
    "\n"
    "JSON:"
)
