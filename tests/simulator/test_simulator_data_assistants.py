"""Data assistants get SQL where they ask for SQL, and code that calls what they provide.

vanna 2.0.2's `generate_sql` asks for a SQL query in the system prompt, the schema as `CREATE
TABLE` statements, the question as the user turn: the simulator answered prose, and vanna ran
it as SQL (`near "A": syntax error`). pandas-ai 3.0.0 asks for Python and lists
`execute_sql_query` as "already been provided ... do not redefine them": the simulator's
answer defined it, pandas-ai rejected the code (`ExecuteSQLQueryNotUsed`) and retried until it
raised (found in a live review of demo mode). The bodies are the ones they sent
(`tests/fixtures/vanna-2.0.2.md`, `pandasai-3.0.0.md`), through the official SDKs; the answers
are read as the apps read them and run: vanna's SQL on a SQLite database of the prompt's
schema, pandas-ai's code against DuckDB holding the table the prompt shows."""

from __future__ import annotations

import ast
import datetime
import random
import re
import sqlite3
from collections.abc import Callable
from typing import Any

import anthropic
import duckdb
import openai
import pytest

from router.simulator import SimThread, dataprompt
from tests import recorded

MODEL = "tiny"
FIXTURES = recorded.FIXTURES
FILLER = "The meeting notes go on about the budget and the schedule. " * 3500  # ~200 KB


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name) | {"model": MODEL}


def chat(sdk: openai.OpenAI, body: dict[str, Any]) -> str:
    return sdk.chat.completions.create(**body).choices[0].message.content or ""


def ask(sdk: openai.OpenAI, user: str, system: str = "") -> str:
    messages: list[Any] = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": user})
    return chat(sdk, {"model": MODEL, "messages": messages})


def vanna_sql(answer: str) -> str:
    """The SQL vanna 2.0.2's `extract_sql` takes out of an answer (`vanna/legacy/base/
    base.py`): the last `CREATE TABLE … AS …;`, else `WITH …;`, else `SELECT …;`, else the
    last ```sql block, else the answer as it is."""
    for pattern in (r"\bCREATE\s+TABLE\b.*?\bAS\b.*?;", r"\bWITH\b .*?;", r"\bSELECT\b .*?;"):
        found = re.findall(pattern, answer, re.DOTALL | re.IGNORECASE)
        if found:
            return str(found[-1])
    fenced = re.findall(r"```sql\s*\n(.*?)```", answer, re.DOTALL | re.IGNORECASE)
    return str(fenced[-1]).strip() if fenced else answer


def pandasai_code(answer: str) -> str:
    """The code pandas-ai 3.0.0 takes out of an answer (`pandasai/llm/base.py`
    `_extract_code`): what lies between the first two fences, less a leading "python"."""
    code = answer.split("```")[1] if len(answer.split("```")) > 1 else answer
    return re.sub(r"^(python|py)", "", code).strip()


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_vannas_sql_prompt_gets_a_query_that_runs_on_its_schema(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The answer is a ```sql block and nothing else (vanna's guidelines: "without any
    explanations"), a SELECT over the schema's first table, which runs on a database made of
    the prompt's `CREATE TABLE` statements. vanna's follow-up questions prompt, which names
    a SQL query but asks for questions, gets no SQL."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body = captured("vanna-2.0.2/generate-sql.json")
    answer = chat(sdk, body)
    assert answer == "```sql\nSELECT id, name, country FROM customers;\n```"
    database = sqlite3.connect(":memory:")
    for statement in re.findall(r"^CREATE TABLE .*$", body["messages"][0]["content"], re.M):
        database.execute(statement)
    database.execute("INSERT INTO customers VALUES (1, 'Ada', 'UK')")
    assert database.execute(vanna_sql(answer)).fetchall() == [(1, "Ada", "UK")]
    assert chat(sdk, body) == answer
    follow_ups = chat(sdk, captured("vanna-2.0.2/follow-up-questions.json"))
    assert "```sql" not in follow_ups and "SELECT" not in follow_ups


def test_a_sql_ask_is_read_in_the_system_or_the_user_text_of_every_api(
    start_sim: Callable[..., SimThread],
) -> None:
    """Asked in Anthropic's `system`, Responses' `instructions` or a user turn, the query
    selects from the first table a `CREATE TABLE` (qualified, `IF NOT EXISTS`, constraints
    skipped) or a table tag names; with no schema shown, a constant. A prompt asking for
    Python gets Python, even where it mentions SQL; one that mentions a query it does not
    ask for gets no SQL, nor one framing its answer in ReAct's lines (`prompted.framed`)."""
    sim = start_sim()
    sdk = openai.OpenAI(base_url=sim.url + "/v1", api_key="x")
    system = (
        "You are a Postgres analyst. Given the schema below, write a syntactically correct "
        "PostgreSQL query for the question.\n\nCREATE TABLE IF NOT EXISTS public.orders (\n"
        "  CONSTRAINT orders_pk PRIMARY KEY (order_id),\n  order_id bigint NOT NULL,\n"
        "  total numeric(10, 2),\n  placed_at timestamptz,\n  note text\n);"
    )
    question = "How many orders were placed last week?"
    expected = "```sql\nSELECT order_id, total, placed_at FROM public.orders;\n```"
    claude = anthropic.Anthropic(base_url=sim.url, api_key="x")
    reply = claude.messages.create(
        model=MODEL, max_tokens=200, system=system, messages=[{"role": "user", "content": question}]
    )
    assert [block.text for block in reply.content if block.type == "text"] == [expected]
    responses = sdk.responses.create(model=MODEL, instructions=system, input=question)
    assert responses.output_text == expected
    tagged = '<table table_name="sales_2024" dimensions="6x3">\ncountry,revenue\n</table>\n'
    assert ask(sdk, f"{tagged}Please write an SQL query for the total revenue.") == (
        "```sql\nSELECT * FROM sales_2024;\n```"
    )
    assert ask(sdk, "Write a SQL query that lists every customer.") == (
        "```sql\nSELECT 1 AS answer;\n```"
    )
    assert "```python" in ask(sdk, "Write Python code that runs a SQL query on the table.")
    listed = "Generate a list of questions, each answered by a SQL query."
    assert "```sql" not in ask(sdk, listed)
    react = "Answer in this format:\nThought: ...\nAction: the action to take\nAction Input: ..."
    assert "```sql" not in ask(sdk, "Create a syntactically correct sqlite query.", react)


def test_a_long_prompt_is_read_for_its_schema_at_its_ends(
    start_sim: Callable[..., SimThread],
) -> None:
    """A 200 KB prompt: the ask is read at its ends as the other keyword rules read it, the
    schema in its first 16 KB and last 4 KB (`dataprompt.window`); a table defined only in
    the middle is not read."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    schema = "CREATE TABLE events (id INTEGER, kind TEXT)\n"
    assert ask(sdk, f"{schema}{FILLER}Now write a SQL query counting the events.") == (
        "```sql\nSELECT id, kind FROM events;\n```"
    )
    assert ask(sdk, f"{FILLER}{schema}{FILLER}Now write a SQL query counting the events.") == (
        "```sql\nSELECT 1 AS answer;\n```"
    )


@pytest.mark.parametrize("name", ["generate-code.json", "generate-code-two-tables.json"])
def test_pandasais_code_calls_the_provided_function_and_declares_its_result(
    start_sim: Callable[..., SimThread], name: str
) -> None:
    """The code pandas-ai takes out of the answer calls `execute_sql_query` and does not
    define it (pandas-ai's `CodeRequirementValidator`), passes it a query over the first
    table the prompt shows, and sets `result` to the example of it the prompt gives, a dict
    of "type" and "value" that pandas-ai's `ResponseParser` accepts. Run with the function
    backed by DuckDB holding that table, it declares the result."""
    sdk = openai.OpenAI(base_url=start_sim(profile="vllm").url + "/v1", api_key="x")
    body = captured(f"pandasai-3.0.0/{name}")
    code = pandasai_code(chat(sdk, body))
    tree = ast.parse(code)
    called = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)]
    called = [name for name in called if isinstance(name, str)]
    defined = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert "execute_sql_query" in called and "execute_sql_query" not in defined
    table = re.search(r'table_name="(\w+)"', body["messages"][0]["content"])
    assert table is not None
    database = duckdb.connect()
    database.execute(f"CREATE TABLE {table.group(1)} (country TEXT, revenue DOUBLE)")
    database.execute(f"INSERT INTO {table.group(1)} VALUES ('UK', 200.5)")
    queries: list[str] = []

    def execute_sql_query(sql_query: str) -> Any:
        queries.append(sql_query)
        return database.execute(sql_query).fetchall()

    scope: dict[str, Any] = {"execute_sql_query": execute_sql_query}
    exec(compile(tree, "<answer>", "exec"), scope)  # the simulator's own answer
    assert queries == [f"SELECT * FROM {table.group(1)}"]
    assert scope["result"] == {"type": "number", "value": 125}


def test_code_calls_provided_functions_but_defines_the_one_asked_for(
    start_sim: Callable[..., SimThread],
) -> None:
    """Functions shown as already defined are called, with values of their annotated
    types, and a variable the prompt names is set to the call's result where it shows no
    example of it; a function the prompt asks written is defined even beside provided
    ones (the first name it shows was taken, so the provided one was redefined)."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    helpers = (
        "These helper functions are already defined, do not redefine them:\n"
        'def load_rows(path: str, limit: int) -> list\n    """This method reads rows."""\n\n'
    )
    code = ask(
        sdk,
        f"{helpers}Write Python code that loads the rows and store them in a "
        "variable named `rows`.",
    )
    assert "```python\ndata = load_rows('src/main.py', 1)\nrows = data\n```" in code
    written = ask(sdk, f"{helpers}Write a python function called `summarize` for the rows.")
    assert "def summarize(" in written and "def load_rows" not in written
    plain = ask(sdk, "Write a python function called `summarize` for the rows.")
    assert "def summarize(" in plain


# The pattern that found a SQL ask before its rewrite (kept to compare with): it began again
# after every newline and split a run of digits, dots and spaces between the list mark and
# the words in every way, 0.35-1.2 s on a 2 KB column of dates or numbers (found in review).
EARLIER_ASK = re.compile(
    r"(?:\A|[.!?:;]\s|\n)[\s\-*#>\d.)]*(?:[\w,'-]+\s+){0,5}?"
    r"(?:generate|write|create|produce|return|give|provide|output|compose|construct|draft"
    r"|(?:respond|reply|answer)\s+with)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:sql|sqlite|postgres(?:ql)?|mysql|mariadb|duckdb|t-sql|tsql|mssql|snowflake|bigquery"
    r"|clickhouse|trino|presto|redshift|oracle)\s+(?:query|queries|statement|statements)\b",
    re.I,
)
LEADS = ("", "\n", ". ", "! ", "?\n", ":\t", "; ", "x", ", ", "- ", "1. ", "12) ", "\n\n> ")
WORDS = ("please", "help", "to", "the", "schema,", "it's", "1", "2024-01-31", "-", "a-b", "(a)")
VERBS = ("write", "Generate", "respond with", "answer\nwith", "answer", "regenerate", "writes")
DIALECTS = ("sql", "SQL", "sqlite", "postgresql", "t-sql", "ſql", "sq", "my sql")
NOUNS = ("query", "queries", "statement", "query.", "queryx", "Query!", "query\n")
SPACES = (" ", " ", " ", " ", "  ", "\n", "\t", " \n ", "\u00a0", "", ".")


def _near_ask(rng: random.Random) -> str:
    """A text shaped like an ask or nearly: a lead, words, a verb, words, a dialect, a
    noun, each separated by a space or something else, and sometimes a piece put in."""
    parts = [rng.choice(("", "blah", "1\n2", "q: ")), rng.choice(LEADS), rng.choice(LEADS)]
    for _ in range(rng.randint(0, 7)):
        parts += [rng.choice(WORDS), rng.choice(SPACES)]
    parts += [rng.choice(VERBS), rng.choice(SPACES)]
    for _ in range(rng.randint(0, 4)):
        parts += [rng.choice(("a", "valid", "sql-ish", "x,y", "1")), rng.choice(SPACES)]
    parts += [rng.choice(DIALECTS), rng.choice(SPACES), rng.choice(NOUNS)]
    text = "".join(parts)
    at = rng.randrange(len(text) + 1)
    put = rng.choice(("", "", "\n", "1", "- ", "w", " "))
    return text[:at] + put + text[at:]


def test_the_sql_ask_is_read_as_the_earlier_pattern_read_it() -> None:
    """Texts shaped like an ask or nearly (list marks, digits, dates, the punctuation that
    starts a sentence, up to seven words before the verb): the rewritten reading finds an
    ask exactly where the earlier pattern did (short texts, which that pattern reads fast;
    a million such texts agreed when it was written)."""
    rng = random.Random(7)
    asked = 0
    for _ in range(4000):
        text = _near_ask(rng)
        expected = bool(EARLIER_ASK.search(text))
        assert dataprompt.asks_sql(text, "") == expected, text
        assert dataprompt.asks_sql("", text) == expected, text
        asked += expected
    assert 150 < asked < 3850  # both kinds, in numbers


def test_columns_of_data_get_the_answers_they_got_before(
    start_sim: Callable[..., SimThread],
) -> None:
    """The review's prompts: results to summarize, one date or number a line (300 dates,
    2,000 numbers, a 200 KB column), and runs of "1\\n" or blank lines, in the user or the
    system text, took the earlier SQL-ask pattern up to a second each, per choice; the
    answers are the ones they got then (computed with it), but for the columns of dates,
    which got a `\\boxed{42}` as a sum and now get prose (`arithmetic._JOINED`), and an
    ask after the column or in a list item still gets SQL."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    start = datetime.date(2020, 1, 1)
    dates = "\n".join(str(start + datetime.timedelta(days=i)) for i in range(300))
    rng = random.Random(1)
    numbers = "\n".join(str(rng.randint(0, 99999)) for _ in range(2000))
    column = "\n".join(str(start + datetime.timedelta(days=i % 9000)) for i in range(19000))
    for dated in (dates, column):  # a date is no sum: prose, as a column of numbers gets
        summary = ask(sdk, f"Summarize the query results:\n{dated}")
        assert summary.endswith(".") and "boxed" not in summary and "Computing" not in summary
    summary = ask(sdk, f"Summarize these query results:\n{numbers}")
    assert summary.endswith(".") and "```" not in summary
    system = f"You answer questions about SQL query results.\n{numbers}"
    assert "```" not in ask(sdk, "What stands out?", system)
    for run in ("1\n", "\n\n", "1. "):  # code: "SQL" is a code word to the simulator
        answer = ask(sdk, "Summarize the SQL query results:\n" + run * 1000)
        assert answer.startswith("Here is a solution:\n\n```python\ndef solve(items):")
    sql = "```sql\nSELECT 1 AS answer;\n```"
    assert ask(sdk, f"{dates}\nWrite a SQL query over these dates.") == sql
    assert ask(sdk, f"{column}\nNow write a SQL query counting them.") == sql
    assert ask(sdk, "1. 2. 3.\n" * 300 + "- 1. Please write a SQLite query for the total.") == sql
