"""Prompts: written in the admin (``Prompt``) or declared in code (``@mcp_prompt``), and
served by ``prompts/list`` and ``prompts/get`` (docs/prompts.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = ["CodePrompt", "PromptRegistry", "fill", "mcp_prompt", "prompt_registry"]

__getattr__ = lazy_exports(
    __name__,
    {
        "CodePrompt": ".registry",
        "PromptRegistry": ".registry",
        "prompt_registry": ".registry",
        "fill": ".substitution",
        "mcp_prompt": ".decorators",
    },
)

if TYPE_CHECKING:
    from .decorators import mcp_prompt
    from .registry import CodePrompt, PromptRegistry, prompt_registry
    from .substitution import fill
