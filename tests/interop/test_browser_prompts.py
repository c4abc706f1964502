"""Staff edit a prompt in the admin in a real browser (headless Chromium), and the next
``prompts/get`` gives what they wrote."""

from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from mcp_tools.models import Prompt
from mcp_tools.test import MCPClient
from tests.interop.test_browser import log_into_admin

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.admin_urls")]


def wait_for(browser, selector):
    return WebDriverWait(browser, 10).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, selector))
    )


def replace_text(browser, selector, text):
    field = wait_for(browser, selector)
    field.clear()
    field.send_keys(text)


def test_staff_edit_a_prompt_and_the_next_get_shows_it(
    browser, live_server, django_user_model, alice
):
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    prompt = Prompt.objects.create(
        name="standup",
        arguments=[{"name": "team", "required": True}],
        messages=[{"role": "user", "text": "Summarise {team}'s day."}],
    )
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    params = {"name": "standup", "arguments": {"team": "ops"}}
    before = client.rpc("prompts/get", params)["messages"][0]["content"]["text"]
    assert before == "Summarise ops's day."

    log_into_admin(browser, live_server.url, "root", "root-password")
    change = f"{live_server.url}/admin/mcp_tools/prompt/{prompt.pk}/change/"
    browser.get(change)
    # A mistake first: the form says what is wrong and keeps the prompt as it was.
    replace_text(browser, "#id_messages", '[{"role": "robot", "text": "x"}]')
    browser.find_element(By.CSS_SELECTOR, "input[name=_continue]").click()
    assert 'role must be "user" or "assistant"' in wait_for(browser, ".errorlist").text
    rewritten = [{"role": "user", "text": "List {team}'s blockers, then {{% include %}}."}]
    replace_text(browser, "#id_messages", json.dumps(rewritten))
    browser.find_element(By.CSS_SELECTOR, "input[name=_continue]").click()
    assert "was changed successfully" in wait_for(browser, "ul.messagelist").text
    preview = wait_for(browser, ".mcp-prompt-preview").text
    assert "List <team>'s blockers, then {{% include %}}." in preview

    after = client.rpc("prompts/get", params)["messages"][0]["content"]["text"]
    assert after == "List ops's blockers, then {{% include %}}."
