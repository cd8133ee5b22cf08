"""``python -m evals run ...``: the eval CLI without the router."""

from evals import cli_stdout
from evals.cli import app

cli_stdout.run(lambda: app(prog_name="python -m evals"))
