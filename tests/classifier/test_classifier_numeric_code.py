"""Pasted code whose content is numbers is still a request about code.

Code that computes things (an average, an Euler step, a spreadsheet formula) is full of
numbers, operators and math words, and the classifier read such requests as math or
reasoning: 5 of these 19 before team round 6 (`team_round6.jsonl`), which was written for
that shape. Math in code-like notation must stay math. The prompts were written for this
test before any round-6 data existed; none is in a data file. The family must hold at least
half (the shipped model: 11 of 19), so a retraining that loses the edge fails here.
"""

from __future__ import annotations

from classifier import classify
from classifier.evaluation import body

NUMERIC_CODE = [
    "Here is my module:\ndef area(radius):\n    return 3.14 * radius ** 2\n\n"
    "Why does the test fail?",
    "def mean(xs):\n    return sum(xs) / len(xs)\n\n"
    "test_mean fails with ZeroDivisionError. Fix it.",
    "```python\ndef compound(p, r, n):\n    return p * (1 + r) ** n\n```\nThe unit test expects "
    "1102.5 for compound(1000, 0.05, 2) but I get 1102.5000000000002. Why?",
    "function total(items) {\n  return items.reduce((a, b) => a + b.price * b.qty, 0);\n}\n"
    "This returns NaN when qty is missing. How do I fix it?",
    "def fib(n):\n    if n < 2: return n\n    return fib(n-1) + fib(n-2)\n\n"
    "This is too slow for n=50, make it faster.",
    "SELECT avg(price) FROM orders WHERE qty > 2; returns null on Postgres, why?",
    "def solve(a, b, c):\n    d = b*b - 4*a*c\n    return (-b + d**0.5) / (2*a)\n\n"
    "Why does this return a complex number for a=1, b=2, c=5?",
    "I have x = [3, 1, 2]; sorted(x) gives [1, 2, 3] but x.sort() returns None. Why?",
    "Here is my module:\n" + "def f(x):\n    return x * 2\n" * 400 + "\nWhy does the test fail?",
    'int avg = total / count;\nprintf("%d", avg);\n\nprints 2 instead of 2.5, what\'s wrong',
    "velocity += acceleration * dt\nposition += velocity * dt\n\n"
    "my particles explode after a few seconds, is this euler integration the problem?",
    "=SUMPRODUCT(B2:B20, C2:C20)/SUM(C2:C20) gives #DIV/0! on empty rows, how do I guard it",
    "for i in range(1, n):\n    total += 1 / i**2\nprint(total * 6) ** 0.5\n\n"
    "TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'",
    "let pct = Math.round(done / all * 100);\n// shows 0 for all small numbers\n"
    "can you spot the bug?",
    "def to_celsius(f):\n    return (f - 32) * 5 / 9\n\nwrite pytest cases for this including "
    "edge cases",
    "fn gcd(a: u64, b: u64) -> u64 { if b == 0 { a } else { gcd(b, a % b) } }\n"
    "port this to Go please",
    "df['ratio'] = df['clicks'] / df['views']\nhow do i avoid inf when views is 0",
    "double r = Math.sqrt(x*x + y*y);\ntheta = Math.atan(y / x);\n"
    "angles come out wrong in the 2nd and 3rd quadrants",
    "total = sum([p * q for p, q in zip(prices, qtys)])\nis there a faster numpy way for 10M rows",
]
LOOK_ALIKES = [
    ("math", "Let f(x) = 3x^2 + 2x - 5.\nFind f'(x) and the minimum of f."),
    ("math", "Solve the system:\n  2x + 3y = 7\n  x - y = 1"),
    ("math", "If a = 3 and b = a * 2 + 1, and c = b ** 2, what is c?"),
    (
        "math",
        "A train leaves at 9:00 going 60 km/h; another leaves at 10:00 going 80 km/h. "
        "When does the second catch up?",
    ),
    (
        "reasoning",
        "Three boxes are labelled apples, oranges and mixed; all labels are wrong. You may "
        "draw one fruit from one box. How do you relabel them?",
    ),
    ("math", "Compute the sum for i from 1 to 100 of i^2."),
    ("math", "Let g(n) = 2*g(n-1) + 1 with g(1) = 1. Find a closed form for g(n)."),
    ("math", "Evaluate (7**3 - 5**3) / (7 - 5) without a calculator."),
    (
        "math",
        "If p = 0.3 and q = 1 - p, what's the probability of exactly 2 successes in 5 trials?",
    ),
]


def test_most_numeric_code_requests_are_coding() -> None:
    missed = [t[:60] for t in NUMERIC_CODE if classify(body(t)).label != "coding"]
    assert len(missed) <= len(NUMERIC_CODE) // 2, f"{len(missed)} missed: {missed}"


def test_math_in_code_like_notation_stays_math() -> None:
    wrong = [(want, classify(body(t)).label, t[:50]) for want, t in LOOK_ALIKES]
    assert [w for w in wrong if w[0] != w[1]] == []
