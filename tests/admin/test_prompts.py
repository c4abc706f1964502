"""The prompts' admin (``mcp_tools.admin.prompts``): the form's checks with clear errors,
the preview, and the actions that log each row they change."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from mcp_tools.models import Prompt

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.urls("tests.admin_urls"),
    pytest.mark.usefixtures("conformance_prompts"),
]

ADD = "admin:mcp_tools_prompt_add"


def form(**fields):
    data = {
        "name": "greet",
        "title": "",
        "description": "",
        "enabled": "on",
        "arguments": '[{"name": "who", "required": true}]',
        "messages": '[{"role": "user", "text": "Hello {who}"}]',
    }
    data.update(fields)
    return data


def errors_of(response):
    return {
        name: list(errors) for name, errors in response.context["adminform"].form.errors.items()
    }


def test_a_valid_prompt_is_saved(admin_client):
    response = admin_client.post(reverse(ADD), form())
    assert response.status_code == 302
    prompt = Prompt.objects.get(name="greet")
    assert prompt.arguments == [{"name": "who", "required": True}]


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"arguments": "[{"}, "arguments", None),
        (
            {"arguments": '{"name": "who"}'},
            "arguments",
            'Arguments are a list: [{"name": "topic", "required": true}].',
        ),
        (
            {"arguments": '[{"name": "who", "required": "yes"}]'},
            "arguments",
            "Argument 1 (who): required must be true or false.",
        ),
        (
            {"arguments": '[{"name": "a"}, {"name": "a"}]'},
            "arguments",
            "Argument 2: the name a is declared twice.",
        ),
        (
            {"messages": "[]"},
            "messages",
            'Messages are a non-empty list: [{"role": "user", "text": "..."}].',
        ),
        (
            {"messages": '[{"role": "system", "text": "x"}]'},
            "messages",
            'Message 1: role must be "user" or "assistant".',
        ),
        (
            {"messages": '[{"role": "user", "text": "x", "image": "a.png"}]'},
            "messages",
            "Message 1 needs exactly one of text, image or resource.",
        ),
        (
            {"messages": '[{"role": "user", "image": "missing.png"}]'},
            "messages",
            "Message 1: no static file missing.png was found.",
        ),
        (  # the finders raise SuspiciousFileOperation on it: a form error, not a 400
            {"messages": '[{"role": "user", "image": "../../x.png"}]'},
            "messages",
            "Message 1: no static file ../../x.png was found.",
        ),
        (
            {"messages": '[{"role": "user", "image": "notes.txt"}]'},
            "messages",
            "Message 1: notes.txt is no image type (png, jpeg, gif, webp).",
        ),
        (
            {
                "messages": (
                    '[{"role": "user", "resource": {"uri": "file:///etc/passwd", "text": "x"}}]'
                )
            },
            "messages",
            "Message 1: a resource of this site is never a file:// URI.",
        ),
        (
            {"messages": '[{"role": "user", "resource": {"uri": "todo://1", "mimeType": "x/y"}}]'},
            "messages",
            "Message 1: a resource read from this site has the media type its read gives: "
            "leave out mimeType, or write its text.",
        ),
        ({"name": "has space"}, "name", "Letters, digits, _ . - only."),
    ],
)
def test_the_form_says_what_is_wrong(admin_client, fields, field, message):
    response = admin_client.post(reverse(ADD), form(**fields))
    assert response.status_code == 200
    errors = errors_of(response)
    assert field in errors, errors
    if message is not None:
        assert message in errors[field]
    assert not Prompt.objects.filter(name=form(**fields)["name"]).exists()


def test_the_change_page_previews_the_filled_messages(admin_client):
    prompt = Prompt.objects.get(name="test_prompt_with_arguments")
    image = Prompt.objects.get(name="test_prompt_with_image")
    page = admin_client.get(reverse("admin:mcp_tools_prompt_change", args=[prompt.pk]))
    text = page.content.decode()
    assert "mcp-prompt-preview" in text
    # The first choice of arg1, and arg2's name in angle brackets, escaped.
    expected = json.dumps("Prompt with arguments: arg1='test', arg2='<arg2>'")
    assert (
        expected.replace("'", "&#x27;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        in text
    )
    shown = admin_client.get(reverse("admin:mcp_tools_prompt_change", args=[image.pk]))
    assert "image/png" in shown.content.decode()


def test_the_preview_says_a_resource_of_the_site_is_read_at_get_time(admin_client):
    prompt = Prompt.objects.create(
        name="card",
        arguments=[{"name": "pk", "required": True}],
        messages=[{"role": "user", "resource": {"uri": "todo://{pk}"}}],
    )
    page = admin_client.get(reverse("admin:mcp_tools_prompt_change", args=[prompt.pk]))
    text = page.content.decode()
    assert "todo://&lt;pk&gt;" in text
    assert "read from this site when a client gets the prompt" in text


def test_the_actions_switch_and_log_each_prompt(admin_client):
    prompts = Prompt.objects.filter(name__startswith="test_prompt_with")
    chosen = list(prompts.values_list("pk", flat=True))
    url = reverse("admin:mcp_tools_prompt_changelist")
    admin_client.post(url, {"action": "disable_prompts", "_selected_action": chosen})
    assert not Prompt.objects.filter(pk__in=chosen, enabled=True).exists()
    logged = LogEntry.objects.filter(object_id__in=[str(pk) for pk in chosen])
    assert logged.count() == len(chosen)
    assert all("enabled" in entry.get_change_message() for entry in logged)
    admin_client.post(url, {"action": "enable_prompts", "_selected_action": chosen})
    assert Prompt.objects.filter(pk__in=chosen, enabled=True).count() == len(chosen)
    assert LogEntry.objects.count() == 2 * len(chosen)
