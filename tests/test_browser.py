"""A real browser (Debian's headless Chromium, through Selenium) against the live server."""

import os
import shutil
from pathlib import Path

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

# The live server runs on another thread: the superuser must be committed to be seen there.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.admin_urls")]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def fill_login_form(browser, username: str, password: str, submit: str, ready: str) -> None:
    """Type into Django's login form, submit it (``submit``: a CSS selector), and wait for
    the element of id ``ready`` on the page it leads to."""
    wait = WebDriverWait(browser, 10)
    wait.until(expected_conditions.presence_of_element_located((By.ID, "id_username")))
    browser.find_element(By.ID, "id_username").send_keys(username)
    browser.find_element(By.ID, "id_password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, submit).click()
    wait.until(expected_conditions.presence_of_element_located((By.ID, ready)))


def log_into_admin(browser, base_url: str, username: str, password: str) -> None:
    """Sign in through the admin's own login form, as a person would."""
    browser.get(f"{base_url}/admin/")
    fill_login_form(browser, username, password, "input[type=submit]", "site-name")


def test_a_superuser_logs_into_admin_in_a_real_browser(
    browser, live_server, django_user_model, tmp_path
):
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    browser.get(f"{live_server.url}/admin/")
    assert "/admin/login/" in browser.current_url  # not signed in yet

    log_into_admin(browser, live_server.url, "root", "root-password")

    assert browser.current_url == f"{live_server.url}/admin/"
    heading = browser.find_element(By.CSS_SELECTOR, "#content h1").text
    assert heading == "Site administration"
    assert "Todos" in browser.find_element(By.ID, "content-main").text
    screenshot = tmp_path / "admin.png"
    assert browser.save_screenshot(str(screenshot))
    assert screenshot.read_bytes().startswith(PNG_SIGNATURE)


def test_a_wrong_password_stays_on_the_login_page(browser, live_server, django_user_model):
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    browser.get(f"{live_server.url}/admin/")
    WebDriverWait(browser, 10).until(
        expected_conditions.presence_of_element_located((By.ID, "id_username"))
    )
    browser.find_element(By.ID, "id_username").send_keys("root")
    browser.find_element(By.ID, "id_password").send_keys("not-the-password")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    errors = WebDriverWait(browser, 10).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".errornote"))
    )
    assert "correct username and password" in errors.text
    assert "/admin/login/" in browser.current_url


# The admin of the exposed tools, as an operator uses it -------------------------------------


def save_screenshot(browser, tmp_path, name, size=(1600, 1000)):
    """Save a PNG of the page; also into $MCP_TOOLS_SCREENSHOTS (docs/images) when set."""
    path = tmp_path / f"{name}.png"
    browser.set_window_size(*size)  # by default wide enough for every column of a changelist
    toggles = browser.find_elements(By.ID, "toggle-nav-sidebar")
    if toggles and browser.find_elements(By.CSS_SELECTOR, "#nav-sidebar[aria-expanded=true]"):
        toggles[0].click()  # the page, not the app list, is what the picture is about
    assert browser.save_screenshot(str(path))
    assert path.read_bytes().startswith(PNG_SIGNATURE)
    folder = os.environ.get("MCP_TOOLS_SCREENSHOTS")
    if folder:
        shutil.copyfile(path, Path(folder) / f"{name}.png")
    return path


@pytest.fixture
def operator(browser, live_server, django_user_model, alice):
    """A superuser signed into admin in the browser; alice calls tools over MCP."""
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    log_into_admin(browser, live_server.url, "root", "root-password")
    return browser


def wait_for(browser, selector):
    return WebDriverWait(browser, 10).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, selector))
    )


def test_an_operator_disables_a_tool_and_it_vanishes_from_tools_list(
    operator, live_server, mcp, tmp_path
):
    from mcp_tools.models import ToolCall

    for duration in (12.0, 20.0, 31.0):  # a few logged calls, for the figures
        ToolCall.objects.create(
            tool_name="todo_list", started_at=timezone.now(), duration_ms=duration
        )
    assert "todo_list" in {tool["name"] for tool in mcp.list_tools()}
    operator.get(f"{live_server.url}/admin/mcp_tools/exposedtool/?q=todo")
    wait_for(operator, "#result_list")
    save_screenshot(operator, tmp_path, "admin-exposed-tools")
    row = operator.find_element(By.XPATH, "//tr[.//a[text()='todo_list']]")
    row.find_element(By.CSS_SELECTOR, "input.action-select").click()
    Select(operator.find_element(By.NAME, "action")).select_by_value("disable_tools")
    operator.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    assert "1 tool disabled." in wait_for(operator, "ul.messagelist").text
    assert "todo_list" not in {tool["name"] for tool in mcp.list_tools()}


def test_an_operator_restricts_a_tool_to_a_group(operator, live_server, mcp, alice):
    from django.contrib.auth.models import Group

    from mcp_tools.models import ExposedTool

    Group.objects.create(name="ops")
    echo = ExposedTool.objects.get(name="echo")
    operator.get(f"{live_server.url}/admin/mcp_tools/exposedtool/{echo.pk}/change/")
    Select(wait_for(operator, "#id_allowed_groups_from")).select_by_visible_text("ops")
    operator.find_element(By.CSS_SELECTOR, ".field-allowed_groups .selector-add").click()
    operator.find_element(By.CSS_SELECTOR, "input[name=_save]").click()
    assert "was changed successfully" in wait_for(operator, "ul.messagelist").text
    assert "echo" not in {tool["name"] for tool in mcp.list_tools()}
    alice.groups.add(Group.objects.get(name="ops"))
    assert mcp.call_tool("echo", {"word": "back"})["structuredContent"]["word"] == "back"


def try_echo(browser, base_url, word):
    """Try the echo tool with ``word`` in the admin; return its structured content's text."""
    from mcp_tools.models import ExposedTool

    echo = ExposedTool.objects.get(name="echo")
    browser.get(f"{base_url}/admin/mcp_tools/exposedtool/{echo.pk}/try/")
    wait_for(browser, "#id_argument_word").send_keys(word)
    browser.find_element(By.CSS_SELECTOR, "input[name=_call]").click()
    return wait_for(browser, "pre.mcp-structured").text


def try_image(browser, base_url):
    """Try the image tool in the admin; assert the page shows the image it answered."""
    from mcp_tools.models import ExposedTool

    png = ExposedTool.objects.get(name="r_png")
    browser.get(f"{base_url}/admin/mcp_tools/exposedtool/{png.pk}/try/")
    wait_for(browser, "input[name=_call]").click()
    image = wait_for(browser, "img.mcp-image")
    assert browser.execute_script("return arguments[0].naturalWidth", image) > 0


def test_an_operator_tries_a_json_tool_and_an_image_tool(operator, live_server, tmp_path):
    structured = try_echo(operator, live_server.url, "hello")
    assert '"word": "hello"' in structured and '"user": "root"' in structured
    save_screenshot(operator, tmp_path, "admin-try-it")
    try_image(operator, live_server.url)


@pytest.mark.urls("tests.admin_endpoint_urls")
def test_try_it_calls_through_the_mounted_oauth_and_tagged_endpoints(operator, live_server):
    """mcp_tools:endpoint takes OAuth tokens and sessions and serves only the tools tagged
    ``echoes``; a tool without the tag is tried through the staff endpoint that serves it."""
    structured = try_echo(operator, live_server.url, "through-oauth")
    assert '"word": "through-oauth"' in structured and '"user": "root"' in structured
    assert "Unsupported media type" not in operator.page_source
    try_image(operator, live_server.url)
