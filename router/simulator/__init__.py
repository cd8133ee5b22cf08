"""The one simulated part of smf-router: a fake LLM backend speaking vLLM's, OpenAI's and
Anthropic's exact wire formats, with latency, capacity and fault injection.

    with running(SimSettings(profile="vllm", tokens_per_s=50)) as url:
        client = openai.OpenAI(base_url=url + "/v1", api_key="x")
"""

from router.simulator.app import Simulator
from router.simulator.faults import FAULTS, Fault
from router.simulator.runner import SimThread, running, serve
from router.simulator.settings import PROFILES, Profile, SimSettings

__all__ = [
    "FAULTS",
    "PROFILES",
    "Fault",
    "Profile",
    "SimSettings",
    "SimThread",
    "Simulator",
    "running",
    "serve",
]
