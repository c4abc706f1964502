"""A deleted group never opens a prompt: one restricted to it alone is disabled instead,
as a tool is (docs/security.md#who-sees-which-tool)."""

from __future__ import annotations

import logging

from django.contrib.auth.models import Group

from ..models import Prompt

__all__ = ["group_deleted"]

logger = logging.getLogger("mcp_tools")


def group_deleted(sender: object, instance: Group, **kwargs: object) -> None:
    """``pre_delete`` receiver of ``auth.Group``: a prompt left with no allowed groups would
    be everyone's; one restricted to the deleted group alone is disabled, for an admin to
    decide."""
    prompts = Prompt.objects.filter(allowed_groups=instance).prefetch_related("allowed_groups")
    alone = [prompt for prompt in prompts if len(prompt.allowed_groups.all()) == 1]
    if alone:
        names = ", ".join(prompt.name for prompt in alone)
        logger.warning(
            "Group %s deleted: prompts restricted to it alone disabled: %s", instance, names
        )
        Prompt.objects.filter(pk__in=[prompt.pk for prompt in alone]).update(enabled=False)
