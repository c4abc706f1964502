"""The exposed resources' admin in a real browser (Debian's headless Chromium): an operator
disables a resource, and it is neither listed nor read any more."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from mcp_tools.test import MCPClient, MCPError
from tests.interop.test_browser import log_into_admin, save_screenshot, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.resources.urls")]


def test_an_operator_disables_a_resource_and_it_is_neither_listed_nor_read(
    browser, live_server, django_user_model, alice, tmp_path
):
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    mcp = MCPClient(
        headers={"Authorization": f"Token {alice.token}"},
        mcp_path="/mcp",
        protocol_version="2026-07-28",
    )
    assert mcp.rpc("resources/read", {"uri": "shop://banner"})["contents"]
    log_into_admin(browser, live_server.url, "root", "root-password")
    browser.get(f"{live_server.url}/admin/mcp_tools/exposedresource/")
    wait_for(browser, "#result_list")
    save_screenshot(browser, tmp_path, "admin-exposed-resources")
    row = browser.find_element(By.XPATH, "//tr[.//a[text()='banner']]")
    row.find_element(By.CSS_SELECTOR, "input.action-select").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("disable_resources")
    browser.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    assert "1 resource disabled." in wait_for(browser, "ul.messagelist").text
    listed = [each["uri"] for each in mcp.rpc("resources/list")["resources"]]
    assert "shop://banner" not in listed
    assert "site://api/report" in listed
    with pytest.raises(MCPError) as refused:
        mcp.rpc("resources/read", {"uri": "shop://banner"})
    assert refused.value.message == "Resource not found: shop://banner"
