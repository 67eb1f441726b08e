"""Per-role model settings, as recipes write them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from doomagent.errors import ConfigError
from doomagent.providers.limits import RateLimit


class ImageSettings(BaseModel):
    """How the screenshot travels to a vision model."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["jpeg", "png"] = "jpeg"
    quality: int = Field(85, ge=1, le=100)
    max_side: int | None = Field(None, ge=32, description="shrink the longer side to this many pixels")
    detail: Literal["auto", "low", "high"] | None = None


class RoleSettings(BaseModel):
    """One role's model: a LiteLLM model string and how to call it."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(
        description="LiteLLM model string: gpt-4o, azure/<deployment>, ollama_chat/llava, "
        "openai/<name> with api_base, or test / test:<seed> for the seeded test model"
    )
    temperature: float = Field(0.9, ge=0.0, le=2.0)
    max_tokens: int = Field(25, ge=1)
    timeout: float = Field(60.0, gt=0, description="seconds per attempt")
    api_base: str | None = None
    api_key_env: str | None = Field(None, description="name of the environment variable holding the key")
    extra: dict[str, Any] = Field(default_factory=dict, description="extra provider parameters, passed through")
    structured: Literal["auto", "json_schema", "json_object", "grammar", "tools", "off"] = Field(
        "auto",
        description="auto: JSON schema when LiteLLM says the model supports it, else text parsing (for the "
        "Agent of a direct strategy: tool calls where LiteLLM says the model supports function calling); "
        "json_object: llama.cpp-style schema-in-response_format; grammar: a GBNF grammar (llama.cpp) that "
        "forces the two-line ACTION/REASON answer, the fastest on a local model; tools: the Agent and "
        "Experts answer by calling a `press` tool (a required tool call), other roles by JSON schema",
    )
    cache: Literal["auto", "off"] = Field(
        "auto",
        description="auto: mark the stable beginning of each prompt (instructions, walkthrough) as a cache "
        "breakpoint for providers that need one (Anthropic's cache_control); off: no marks",
    )
    retries: int = Field(3, ge=0, le=10, description="retries on 429, 5xx, timeouts and connection errors")
    backoff: float = Field(0.5, ge=0, description="base seconds of exponential backoff with jitter")
    image: ImageSettings = Field(default_factory=ImageSettings)
    rate_limit: RateLimit | None = Field(
        None,
        description="the provider's allowance for this model, shared by every worker of an eval: "
        "`500/min`, `30000tok/min`, `500/min,30000tok/min`, or {requests, tokens, window_s}",
    )

    @field_validator("structured", "cache", mode="before")
    @classmethod
    def _off_is_a_word(cls, v: Any) -> Any:
        # YAML reads a bare `off` (as in `--set agent.structured=off`) as false.
        return "off" if v is False else v

    @field_validator("rate_limit", mode="before")
    @classmethod
    def _read_rate_limit(cls, v: Any) -> Any:
        if isinstance(v, str):
            try:
                return RateLimit.parse(v)
            except ConfigError as exc:
                raise ValueError(f"{exc.message} ({exc.hint})") from None
        return v

    @model_validator(mode="after")
    def _local_answers_by_grammar(self) -> RoleSettings:
        # An embedded llama.cpp model enforces the answer's form best with a grammar (a schema for plans).
        if self.model.startswith("local/") and self.structured == "auto":
            self.structured = "grammar"
        return self
