"""``python -m evals run ...``: the eval CLI without the router."""

from evals.cli import app

app(prog_name="python -m evals")
