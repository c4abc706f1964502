"""The call log and its overview in a real browser (Debian's headless Chromium, through
Selenium): at 1366×768 and 1920×1080, in the admin's light and dark themes (docs/admin.md).

Each page is checked as a person reads it: nothing cut off at the side, every outcome in
words whose colours contrast with their background (WCAG's 4.5:1 for text, 3:1 for the
chart's bars), and the links that lead from one page to the next.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.interop.test_browser import axe_violations, log_into_admin, save_screenshot, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.admin_urls")]

SIZES = [(1366, 768), (1920, 1080)]
THEMES = ["light", "dark"]

# The contrast ratio of two CSS colours as WCAG 2 defines it, of what the browser computed.
CONTRAST = """
function rgb(text) {
  const parts = text.match(/[\\d.]+/g).map(Number);
  return parts.length > 3 && parts[3] === 0 ? null : parts.slice(0, 3);
}
function luminance([r, g, b]) {
  const channel = (v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
function background(element) {
  for (let node = element; node; node = node.parentElement) {
    const found = rgb(getComputedStyle(node).backgroundColor);
    if (found) return found;
  }
  return rgb(getComputedStyle(document.body).backgroundColor);
}
function ratio(a, b) {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}
const [selector, property] = arguments;
return Array.from(document.querySelectorAll(selector)).map((element) => {
  const colour = rgb(getComputedStyle(element)[property]);
  const behind = property === "fill" ? background(element.closest("svg").parentElement)
                                     : background(element);
  return [element.textContent.trim().slice(0, 40), ratio(colour, behind)];
});
"""


def contrasts(browser, selector, property="color"):
    return browser.execute_script(CONTRAST, selector, property)


def show(browser, url, theme, size, ready):
    """Open ``url`` at ``size`` in ``theme`` (the admin's toggle keeps it in localStorage),
    and wait for ``ready``."""
    browser.set_window_size(*size)
    browser.get(url)
    # The app list open beside the page, as a person first sees it.
    browser.execute_script(
        "localStorage.setItem('theme', arguments[0]);"
        "localStorage.setItem('django.admin.navSidebarIsOpen', 'true');",
        theme,
    )
    browser.get(url)
    wait_for(browser, ready)
    assert browser.execute_script("return document.documentElement.dataset.theme") == theme


def fits(browser, selector):
    """Whether the page and the element ``selector`` show everything without scrolling sideways."""
    return browser.execute_script(
        "const element = document.querySelector(arguments[0]);"
        "return document.documentElement.scrollWidth <= window.innerWidth"
        " && element.scrollWidth <= element.clientWidth + 1;",
        selector,
    )


@pytest.fixture
def logged_calls(alice):
    from mcp_tools.calllog import summary
    from mcp_tools.models import ToolCall

    now = timezone.now()
    rows = []
    for day in range(14):
        for index in range(day % 5 + 2):
            rows.append(
                ToolCall(
                    tool_name=["todo_list", "echo", "todo_retrieve"][index % 3],
                    user=alice if index % 2 else None,
                    started_at=now - timedelta(days=day, minutes=index),
                    duration_ms=5.0 + 7 * index + day,
                    http_status=200,
                    client_name=["claude-code/2.1", "mcp-inspector/0.16"][index % 2],
                    protocol_version="2025-11-25",
                )
            )
    rows += [
        ToolCall(
            tool_name="boom",
            started_at=now - timedelta(minutes=3),
            duration_ms=41.5,
            outcome="error",
            is_error=True,
            error_ref="0123456789abcdef0123456789abcdef",
            error_message="Internal server error (reference 0123456789abcdef0123456789abcdef)",
            client_name="claude-code/2.1",
            protocol_version="2025-11-25",
        ),
        ToolCall(
            tool_name="todo_create",
            started_at=now - timedelta(minutes=2),
            duration_ms=1.2,
            outcome="refused",
            refusal="invalid_arguments",
            is_error=True,
            error_message="Invalid arguments: $.title: None is not of type 'string'",
            argument_names=["title"],
            client_name="mcp-inspector/0.16",
            protocol_version="2026-07-28",
        ),
        ToolCall(
            tool_name="limited",
            started_at=now - timedelta(days=1, minutes=1),
            duration_ms=3.0,
            http_status=429,
            outcome="refused",
            refusal="throttled",
            is_error=True,
            error_message="Request was throttled. Expected available in 60 seconds.",
            client_name="claude-code/2.1",
            protocol_version="2025-11-25",
        ),
    ]
    ToolCall.objects.bulk_create(rows)
    summary.add(rows, "default")  # as the log's writer does, for the overview
    return rows


@pytest.fixture
def operator(browser, live_server, django_user_model):
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    log_into_admin(browser, live_server.url, "root", "root-password")
    return browser


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_call_log_reads_at_a_glance(operator, live_server, logged_calls, tmp_path, theme, size):
    show(operator, f"{live_server.url}/admin/mcp_tools/toolcall/", theme, size, "#result_list")
    assert fits(operator, "#changelist .results")
    badges = contrasts(operator, "#result_list .mcp-outcome")
    assert {text for text, _ in badges} == {
        "ok",
        "error",
        "refused: invalid arguments",
        "refused: throttled",
    }
    assert all(ratio >= 4.5 for _, ratio in badges), badges
    page = operator.find_element(By.ID, "result_list").text
    assert "Invalid arguments: $.title: None is not of type 'string'" in page
    assert not operator.find_elements(By.CSS_SELECTOR, "#result_list img[src*=icon-]")
    assert not operator.find_elements(By.CSS_SELECTOR, ".object-tools a.addlink")  # read-only
    save_screenshot(operator, tmp_path, f"admin-call-log-{theme}-{size[0]}", size)
    # The outcome filter, as a person uses it.
    operator.find_element(By.LINK_TEXT, "refused: throttled").click()
    wait_for(operator, "#result_list")
    rows = operator.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert len(rows) == 1 and "limited" in rows[0].text


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_a_call_log_row_says_what_the_model_read(
    operator, live_server, logged_calls, tmp_path, theme, size
):
    from mcp_tools.models import ToolCall

    refused = ToolCall.objects.get(tool_name="todo_create")
    url = f"{live_server.url}/admin/mcp_tools/toolcall/{refused.pk}/change/"
    show(operator, url, theme, size, "#content-main")
    assert fits(operator, "#content-main")
    text = operator.find_element(By.ID, "content-main").text
    assert "Invalid arguments: $.title: None is not of type 'string'" in text
    assert "- (the view never ran)" in text
    assert "Empty when the view never ran" in text  # the help text says which
    assert not operator.find_elements(By.CSS_SELECTOR, ".deletelink, input[name=_save]")
    assert all(ratio >= 4.5 for _, ratio in contrasts(operator, ".mcp-outcome"))
    save_screenshot(operator, tmp_path, f"admin-call-log-row-{theme}-{size[0]}", size)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_overview_shows_the_log_in_pictures(
    operator, live_server, logged_calls, tmp_path, theme, size
):
    # From the app index, as a person finds it.
    show(operator, f"{live_server.url}/admin/mcp_tools/", theme, size, ".mcp-overview-link a")
    operator.find_element(By.CSS_SELECTOR, ".mcp-overview-link a").click()
    wait_for(operator, "svg.mcp-chart")
    assert fits(operator, "#content-main")
    chart = operator.find_element(By.CSS_SELECTOR, "svg.mcp-chart")
    assert chart.size["width"] > 600 and chart.size["height"] > 150
    label = chart.get_attribute("aria-label")
    assert label.startswith("Calls per day: ") and "3 not ok" in label
    bars = contrasts(operator, "svg.mcp-chart rect", "fill")
    assert len(bars) >= 14 and all(ratio >= 3 for _, ratio in bars), bars
    assert all(ratio >= 4.5 for _, ratio in contrasts(operator, "svg.mcp-chart text", "fill"))
    assert all(
        ratio >= 4.5 for _, ratio in contrasts(operator, "#content-main td, #content-main h2")
    )
    busiest = operator.find_element(By.ID, "mcp-busiest").text
    assert busiest.index("todo_list") < busiest.index("boom")
    assert "p95 (ms)" in operator.find_element(By.ID, "mcp-latency").text.lower()
    assert "mcp-inspector/0.16" in operator.find_element(By.ID, "mcp-clients").text
    # The whole page in the picture: as wide as tested, as tall as it is.
    height = operator.execute_script("return document.documentElement.scrollHeight")
    save_screenshot(operator, tmp_path, f"admin-overview-{theme}-{size[0]}", (size[0], height))
    # The latest error leads to its row.
    errors = operator.find_element(By.ID, "mcp-latest-errors")
    errors.find_element(By.CSS_SELECTOR, "tbody a").click()
    assert "Invalid arguments" in wait_for(operator, "#content-main").text


def test_the_overview_window_is_chosen_with_the_keyboard(operator, live_server, logged_calls):
    operator.get(f"{live_server.url}/admin/mcp_tools/toolcall/overview/")
    window = wait_for(operator, "#id_days")
    assert operator.find_element(By.CSS_SELECTOR, "label[for=id_days]").text == "Window:"
    Select(window).select_by_value("7")
    window.submit()
    wait_for(operator, "svg.mcp-chart")
    assert operator.current_url.endswith("?days=7")
    assert len(operator.find_elements(By.CSS_SELECTOR, "#mcp-per-day tbody tr")) == 7


@pytest.mark.parametrize("theme", THEMES)
def test_the_call_log_pages_have_no_serious_accessibility_violations(
    operator, live_server, logged_calls, theme
):
    from mcp_tools.models import ToolCall

    row = ToolCall.objects.get(tool_name="todo_create")
    admin = f"{live_server.url}/admin/mcp_tools"
    pages = {
        "call log": (f"{admin}/toolcall/", "#result_list"),
        "a row": (f"{admin}/toolcall/{row.pk}/change/", "#content-main"),
        "overview": (f"{admin}/toolcall/overview/", "svg.mcp-chart"),
    }
    found = {}
    for name, (url, ready) in pages.items():
        show(operator, url, theme, SIZES[0], ready)
        found[name] = axe_violations(operator)
    assert found == {name: [] for name in pages}


def test_the_overview_shows_what_models_searched_for_in_vain(
    operator, live_server, settings, alice
):
    from mcp_tools.calllog import flush
    from mcp_tools.discovery.tools import SEARCH_TOOLS
    from mcp_tools.test import MCPClient

    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "always", "CALL_LOG_ARGUMENTS": True}
    mcp = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    for query in ("xyzzy plugh", "XYZZY   plugh", "create a todo"):
        assert mcp.call_tool(SEARCH_TOOLS, {"query": query})["isError"] is False
    flush()
    overview = f"{live_server.url}/admin/mcp_tools/toolcall/overview/"
    show(operator, overview, "light", SIZES[0], "#mcp-unfound")
    assert fits(operator, "#content-main")
    rows = operator.find_elements(By.CSS_SELECTOR, "#mcp-unfound tbody tr")
    # One row for both wordings, as the latest was written, spaces tidied.
    assert [row.text.split()[:3] for row in rows] == [["XYZZY", "plugh", "2"]]
    rows[0].find_element(By.TAG_NAME, "a").click()
    page = wait_for(operator, "#content-main").text
    assert "- (nothing found)" in page and "XYZZY" in page  # its query, among its arguments
    # The search that found tools, from the call log's list: each tool leads to its row.
    operator.get(f"{live_server.url}/admin/mcp_tools/toolcall/?tool_name=search_tools")
    row = next(
        each
        for each in wait_for(operator, "#result_list").find_elements(By.CSS_SELECTOR, "tbody tr")
        if "“create a todo”" in each.text
    )
    row.find_element(By.CSS_SELECTOR, "th a, td a").click()
    wait_for(operator, "#content-main").find_element(By.LINK_TEXT, "todo_create").click()
    assert wait_for(operator, "#content-main").find_element(By.NAME, "title") is not None
