"""A backend's settings: one upstream endpoint and model, as the config file gives it.

Its own module because it is the largest part of the config and the part most of the router
reads (`router.config` keeps the whole model, loading and the cross-field checks).
"""

from __future__ import annotations

import math
import os
import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import orjson
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from evals.urls import check_url
from router.config_apis import DEFAULT_APIS, ApiName, implied_apis
from router.config_checks import (
    DAY_S,
    HOUR_S,
    at_most,
    check_extra_body,
    header_safe,
    is_header_name,
)
from router.config_credentials import (
    basic_auth,
    key_header,
    second_credential,
    secret_values,
    sent_headers,
)

Tier = Literal["local", "cloud"]
BackendKind = Literal["openai", "litellm"]
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # what `api_key_env` may be
# A name shown in logs and by `config check`: a Groq `gsk_...` or HF `hf_...` key passes
# ENV_NAME, but keys are mixed case and conventional variable names are not.
_SHOWN_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
# What a backend's or a route's name may be: a request names either as `model`, and the
# router sends it back in the `x-smf-backend` or `x-smf-route` header (`router.config`).
NAME = r"^[a-z0-9][a-z0-9_.-]*$"


class Strict(BaseModel):
    # `.inf` passed as a deadline and stopped `serve` with an OverflowError; `.nan` passes
    # every bound check.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def _no_bool(value: Any) -> Any:
    """YAML reads `yes/no`, `on/off` and `true/false` as booleans, and pydantic took them as
    1 and 0 in any number: `context_window: on` was a 1-token window that sent every request
    to the cloud, `retention_days: yes` dropped all but yesterday (found in review). Refused
    wherever a number goes; a `${VAR}` string or `730.0` is still read as a number (strict
    numbers refused them)."""
    if isinstance(value, bool):
        raise ValueError(
            "is yes/no, on/off or true/false, which YAML reads as a boolean, not a number; "
            "give a number"
        )
    return value


# Every number in the config is one of these (tests/router/test_config_numbers.py walks the
# model to see): the check is on the number itself, so it holds inside a mapping or a list
# too, and each bad value is reported at its own key.
Number = Annotated[float, BeforeValidator(_no_bool)]
Count = Annotated[int, BeforeValidator(_no_bool)]


class Timeouts(Strict):
    """Per-attempt deadlines. A slow first token moves on before the client saw anything."""

    # Each is at most an hour, `total_s` a day: `1e300` loaded and meant no deadline at all,
    # a hung backend holding the request, its slot and (retired by a reload) its connections
    # for good (found in review). A prefill, a gap or a connect of an hour is none a real
    # backend needs; a day covers the longest generation of the slowest box.
    connect_s: Annotated[Number, at_most(HOUR_S, "an hour")] = Field(5.0, gt=0)
    first_token_s: Annotated[Number, at_most(HOUR_S, "an hour")] = Field(60.0, gt=0)
    idle_s: Annotated[Number, at_most(HOUR_S, "an hour")] = Field(60.0, gt=0)
    # Below the openai and anthropic SDKs' own default timeout (600 s): a whole reply's only
    # bound is this one, and at 600 s a backend that never answers raced the client's
    # give-up, the router's fallback or error often reaching a client already gone (a 499).
    total_s: Annotated[Number, at_most(DAY_S, "a day")] = Field(540.0, gt=0)


# What one local box may cost, bounded as `Price` is (`MAX_PER_MTOK`): `local_cost:
# {hardware_usd: 1e300}` loaded, and every report then failed, "Could not cast value to
# DECIMAL(38,12)", and compaction rolled up no day (found in review). Each bound is far past
# any box one backend stands for, yet a request of a day on a box at every bound costs under
# $1e9, which the report adds up exactly (`money.MAX_SUMMED`):
MAX_HARDWARE_USD = 10_000_000  # a rack of the dearest GPUs is a few million dollars
MAX_MONTHLY_FIXED_USD = 1_000_000  # a colocation bill for such a rack is thousands a month
MAX_POWER_WATTS = 100_000  # a full rack of GPUs draws tens of kilowatts
MAX_USD_PER_KWH = 100  # electricity costs cents to about a dollar a kWh anywhere
# At least a thousandth of a month, 44 minutes (`1e-300` multiplied the price past any
# sum; a demo's or a test's box may pay back in days, so not a whole month), at most a
# century ("never" is 0 hardware).
MIN_MONTHS, MAX_MONTHS = 0.001, 1200


class LocalCost(Strict):
    """What a local box costs to run: hardware amortised over time, plus power."""

    hardware_usd: Number = Field(0.0, ge=0, le=MAX_HARDWARE_USD)
    amortization_months: Number = Field(36.0, ge=MIN_MONTHS, le=MAX_MONTHS)
    power_watts: Number = Field(0.0, ge=0, le=MAX_POWER_WATTS)
    electricity_usd_per_kwh: Number = Field(0.0, ge=0, le=MAX_USD_PER_KWH)
    monthly_fixed_usd: Number = Field(0.0, ge=0, le=MAX_MONTHLY_FIXED_USD)


# Dollars per million tokens no model comes near (the dearest list at hundreds): a price the
# report can still add up exactly. `price: {output_per_mtok: 1e300}` loaded, and the report
# then failed, "cannot add up the ledger", its DECIMAL(38, 12) sums overflowing (found in
# review); the bound leaves room for ten billion requests of ten million tokens each.
MAX_PER_MTOK = 100_000


class Price(Strict):
    """A per-backend price override, in dollars per million tokens."""

    input_per_mtok: Number = Field(ge=0, le=MAX_PER_MTOK)
    output_per_mtok: Number = Field(ge=0, le=MAX_PER_MTOK)
    cached_input_per_mtok: Number | None = Field(None, ge=0, le=MAX_PER_MTOK)
    # Prompt tokens written to a cache (Anthropic: 1.25x input for 5 minutes, 2x for an
    # hour). Unset, they cost the input rate, as litellm bills a model whose map entry has
    # no cache-write price: an override of Claude's rates then billed a 100k-token cache
    # write 20 % under what Anthropic charges and litellm's own map prices.
    cache_write_input_per_mtok: Number | None = Field(None, ge=0, le=MAX_PER_MTOK)


class Backend(Strict):
    """One upstream endpoint and model."""

    name: str = Field(pattern=NAME)
    tier: Tier
    kind: BackendKind = "openai"
    base_url: str = ""
    model: str
    api_key_env: str | None = None
    extra_body: dict[str, Any] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)
    apis: list[ApiName] = Field(default_factory=lambda: list(DEFAULT_APIS))
    timeouts: Timeouts = Timeouts()
    max_concurrency: Count | None = Field(None, ge=1)
    context_window: Count | None = Field(None, ge=1)
    metrics_url: str | None = None  # vLLM's /metrics, for capacity; derived when None
    health_path: str = Field("/health", pattern=r"^/")
    price: Price | None = None
    local_cost: LocalCost | None = None
    # The longest backend Retry-After the router sleeps out before its one retry, the client
    # waiting: unbounded, `1e300` held a request for whatever a 429 said, a day if it said
    # so. An hour, as `resilience.max_queue_wait_s`: longer, every client has long given up.
    retry_after_max_s: Annotated[Number, at_most(HOUR_S, "an hour")] = Field(2.0, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _default_apis(cls, data: Any) -> Any:
        """`apis` left out: what the backend's kind, URL and model imply
        (`router.config_apis`: `[chat]` for litellm and for a chat model on OpenAI's own
        API). A given `apis` always wins."""
        if not isinstance(data, dict) or "apis" in data:
            return data
        implied = implied_apis(data)
        return data if implied is None else {**data, "apis": implied}

    @field_validator("model")
    @classmethod
    def _check_model(cls, model: str) -> str:
        """'' (an empty `${VAR}`) would ask the backend for no model, and so would spaces:
        `model: "  "` and `SMF_LOCAL_MODEL='  '` loaded (found in review)."""
        if not model.strip():
            raise ValueError("is empty or only spaces: name the model the backend serves")
        return model

    @field_validator("apis")
    @classmethod
    def _check_apis(cls, apis: list[ApiName], info: ValidationInfo) -> list[ApiName]:
        if not apis:  # `[]` loaded, and no request of any API could ever reach the backend
            raise ValueError(
                "a backend needs at least one API (chat, completions, responses, messages), "
                "or no request could reach it; leave apis out for its kind's default"
            )
        if info.data.get("kind") == "litellm" and set(apis) - {"chat"}:
            raise ValueError(
                "a litellm backend speaks chat only (Messages and Responses are translated "
                "to chat for it; completions it cannot serve): use [chat]"
            )
        return apis

    @property
    def api_key(self) -> str | None:
        """The key in `api_key_env`, without surrounding whitespace: a key file or secret
        often ends with a newline, which no header may carry."""
        value = os.environ.get(self.api_key_env) if self.api_key_env else None
        return value.strip() if value else value

    def key_variable(self) -> str:
        """`api_key_env` as logs and `config check` may say it: only a conventional variable
        name, since a key pasted there (`gsk_...`) passes the name check."""
        env = self.api_key_env or ""
        if _SHOWN_NAME.fullmatch(env):
            return env
        return (
            "the variable named in api_key_env (not shown: it does not look like a variable name)"
        )

    def key_warning(self) -> str | None:
        """Why this backend goes without a key although `api_key_env` names one: the variable
        is unset or empty. A warning, not an error (a gateway may take requests without a
        key); without it the first sign was a 401 at the first request. Never the key."""
        if self.api_key_env is None or self.api_key:
            return None
        unset = os.environ.get(self.api_key_env) is None
        shown = self.key_variable()
        variable = f"{shown} (api_key_env)" if shown == self.api_key_env else shown
        return (
            f"backend {self.name!r}: {variable} is "
            f"{'not set' if unset else 'empty'}; requests to it carry no key"
        )

    def key_hint(self, *, to_log: bool = False) -> str:
        """What to check when this backend answers 401, which is about the router's key for
        it. The client is told of the setting only (the variable's name is the operator's
        business, and may be a key pasted in its place); the log names the variable when it
        looks like one (`key_variable`)."""
        env = self.api_key_env
        if env is None and self.kind == "litellm":
            return (
                "it has no api_key_env, so litellm reads its provider's own variable (such as "
                "ANTHROPIC_API_KEY): check that one, or set api_key_env"
            )
        if env is None:
            return "it has no api_key_env: name the environment variable that holds its key"
        variable = "the variable its api_key_env names"
        if to_log:
            shown = self.key_variable()
            variable = f"${shown} (its api_key_env)" if shown == env else shown
        if self.api_key:
            return f"check the key in {variable}"
        return f"{variable} is not set or empty"

    @field_validator("api_key_env")
    @classmethod
    def _check_key(cls, name: str | None) -> str | None:
        """Checked at load, so `config check` and a reload say it, not a traceback from
        `serve`; the message names the variable, never the key. A key pasted in place of the
        variable's name was quoted by the 401 hint, the key warning and `config check`: a
        name that no variable can have is refused without repeating it."""
        if name is not None and not ENV_NAME.fullmatch(name):
            raise ValueError(
                "must name an environment variable that holds the key, not the key (letters, "
                "digits and _, not starting with a digit)"
            )
        key = (os.environ.get(name) or "").strip() if name else ""
        if not header_safe(key):
            shown = f"${name}" if _SHOWN_NAME.fullmatch(name or "") else "the variable it names"
            raise ValueError(
                f"the key in {shown} holds a line break, a control character or a character "
                "beyond Latin-1, which an HTTP header cannot carry"
            )
        return name

    @field_validator("headers")
    @classmethod
    def _check_headers(cls, headers: dict[str, str]) -> dict[str, str]:
        for name, value in headers.items():
            if not is_header_name(name):  # not quoted: `Authorization: Bearer sk-...` as a key
                raise ValueError(
                    "a header name is not an HTTP header name, which is a token (letters, "
                    "digits and !#$%&'*+-.^_`|~, no space or colon); it is not shown, as it "
                    "may be a whole header with its secret"
                )
            if not header_safe(value):
                raise ValueError(
                    f"the value of {name!r} holds a line break, a control character or a "
                    "character beyond Latin-1, which an HTTP header cannot carry"
                )
        return headers

    @field_validator("extra_body", mode="before")
    @classmethod
    def _as_json(cls, body: Any) -> Any:
        """The body as JSON sends it: YAML reads `logit_bias: {50256: -100}` with int keys,
        which made every request to the backend, and its canary fingerprint, raise (found in
        review); a JSON object's keys are strings. A value JSON cannot hold is refused here:
        another kind of key (YAML reads `on:` as true), NaN or infinity (orjson writes null),
        an int past 64 bits. Before pydantic reads the field: its own check refused a key at
        the top (`extra_body: {50256: -100}`, `on: 1`) as "not a valid string" under a
        location holding the key as `[key]`, where a nested one was converted (found in
        review). Anything but a mapping is left to pydantic's message."""
        if not isinstance(body, dict):
            return body
        as_json = _json_value(body, "extra_body")
        try:
            orjson.dumps(as_json)
        except TypeError as exc:
            raise ValueError(f"cannot be sent as JSON: {exc}") from None
        return as_json

    @field_validator("extra_body")
    @classmethod
    def _check_extra_body(cls, body: dict[str, Any]) -> dict[str, Any]:
        check_extra_body(body)
        return body

    @field_validator("base_url", "metrics_url")
    @classmethod
    def _check_url(cls, url: str | None) -> str | None:
        return check_url(url) if url else url

    @model_validator(mode="after")
    def _check_base_url(self) -> Backend:
        """A query with `kind: litellm`: litellm hands `base_url` to its provider's client
        as it is, and the OpenAI SDK puts the request's path after the query
        (`/v1?api-version=xchat/completions`), so no query could be sent (found in review):
        an error saying what works instead."""
        if self.kind == "openai" and not self.base_url:
            raise ValueError("base_url: a `kind: openai` backend needs one (http://host:port/v1)")
        if self.basic_auth() and self.api_key_env:
            raise ValueError(
                "base_url: a user and password in it and api_key_env would both be the "
                "Authorization header; keep one"
            )
        if (problem := self._second_credential()) is not None:
            raise ValueError(problem)
        if self.kind == "litellm" and urlsplit(self.base_url).query:
            raise ValueError(
                "base_url: a `kind: litellm` backend cannot send a query (litellm puts the "
                "path after it); for Azure OpenAI use `model: azure/<deployment>` and "
                "`extra_body: {api_version: ...}`, for any other server `kind: openai`, "
                "which sends the query on every request"
            )
        return self

    def _second_credential(self) -> str | None:
        """Why `headers` would send a credential the router sends too, or None."""
        key = self.key_header() if self.api_key_env else None
        return second_credential(self.headers, key, self.basic_auth() is not None)

    def key_header(self) -> str:
        """The header the key in `api_key_env` goes in (`config_credentials.key_header`)."""
        return key_header(self.kind, self.model, self.extra_body)

    def sent_headers(self) -> dict[str, str]:
        """The headers every request to this backend carries, by lower-case name: `headers`,
        and the key in `api_key_env` in the header its provider takes (`key_header`) or the
        user and password in `base_url` as basic auth. One merge for the requests, the health
        probes and the capacity reads, which merged on their own and sent the key in other
        headers (found in review); litellm sends the key itself, `headers` beside it."""
        return sent_headers(self.headers, self.api_key, self.key_header(), self.basic_auth())

    def basic_auth(self) -> str | None:
        """The Authorization header a `user:password@` in `base_url` stands for."""
        return basic_auth(self.kind, self.base_url)

    def secret_values(self, *more: str | None) -> tuple[str, ...]:
        """What the router sends this backend that no one else may read, as exact values
        (`config_credentials.secret_values`): the key in `api_key_env`, credential headers
        and query parameters, the password in `base_url`, and `more` (what litellm may read
        for itself)."""
        known = (self.api_key, *more)
        return secret_values(self.base_url, self.headers, self.basic_auth(), known)


def _json_value(value: Any, where: str) -> Any:
    """`value` with int keys as the strings JSON sends; any other key, a key twice, NaN or
    infinity is a ValueError naming where."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, str | int):
                raise ValueError(f"{where} has the key {key!r}: JSON keys are strings (quote it)")
            if str(key) in out:
                raise ValueError(f"{where} has the key {str(key)!r} twice")
            out[str(key)] = _json_value(item, f"{where}.{key}")
        return out
    if isinstance(value, list):
        return [_json_value(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {value}, which JSON cannot hold")
    return value
