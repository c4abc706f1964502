"""A real browser (Debian's headless Chromium, through Selenium) against the live server."""

import os
import shutil
import subprocess
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
    keep(path)
    return path


def keep(path):
    """Copy the PNG at ``path`` into $MCP_TOOLS_SCREENSHOTS (docs/images) when it is set,
    made small with pngquant when that is installed."""
    folder = os.environ.get("MCP_TOOLS_SCREENSHOTS")
    if not folder:
        return
    target = Path(folder) / path.name
    if shutil.which("pngquant"):
        command = ["pngquant", "--force", "--quality=60-90", "--output", str(target), str(path)]
        subprocess.run(command, check=True)
    else:
        shutil.copyfile(path, target)


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


def test_an_operator_makes_a_toolset_and_its_url_serves_it(operator, live_server, alice):
    from mcp_tools.test import MCPClient

    operator.get(f"{live_server.url}/admin/mcp_tools/toolset/add/")
    wait_for(operator, "#id_name").send_keys("todos")
    operator.find_element(By.ID, "id_title").send_keys("Todos")
    for name in ("todo_list", "todo_create"):
        Select(wait_for(operator, "#id_tools_from")).select_by_visible_text(name)
        operator.find_element(By.CSS_SELECTOR, ".field-tools .selector-add").click()
    operator.find_element(By.CSS_SELECTOR, "input[name=_save]").click()
    assert "was added successfully" in wait_for(operator, "ul.messagelist").text
    assert "/mcp/toolsets/todos" in operator.find_element(By.ID, "result_list").text
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, mcp_path="/mcp/toolsets/todos"
    )
    assert {tool["name"] for tool in client.list_tools()} == {"todo_list", "todo_create"}


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


# The MCP pages at the sizes and in the themes people use them in (docs/admin.md) -----------

#: The screen sizes the MCP pages are checked and pictured at: a common laptop's and a
#: desktop's.
SIZES = {"1366": (1366, 768), "1920": (1920, 1080)}
THEMES = ("light", "dark")
AXE_HINT = "axe-core not found: run `make node-tools` (or set MCP_TOOLS_NODE_DIR)"


def use_theme(browser, theme):
    """Show admin in ``theme``: its own "auto" theme follows the browser's colour scheme."""
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": theme}]},
    )


@pytest.fixture
def themed(browser):
    yield browser
    use_theme(browser, "light")


def picture(browser, tmp_path, name, size, theme):
    """Save a PNG of the page as it is shown at ``size`` in ``theme`` (the app list as it
    opens there), and keep it for the docs."""
    path = tmp_path / f"{name}-{size}-{theme}.png"
    assert browser.save_screenshot(str(path))
    assert path.read_bytes().startswith(PNG_SIGNATURE)
    keep(path)


def axe_script():
    root = Path(os.environ.get("MCP_TOOLS_NODE_DIR") or Path(__file__).parents[2] / ".mcp-tools")
    script = root / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        pytest.fail(AXE_HINT, pytrace=False)
    return script.read_text()


def axe_violations(browser):
    """Run axe-core in the page; return its serious and critical violations, each with the
    elements it found them on."""
    browser.execute_script(axe_script())
    browser.set_script_timeout(60)
    found = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(r.violations)).catch(e => done([{id: 'axe failed', impact: 'critical',"
        " help: String(e), nodes: []}]));"
    )
    return [
        (each["id"], each["impact"], each["help"], [node["target"] for node in each["nodes"]])
        for each in found
        if each["impact"] in ("serious", "critical")
    ]


@pytest.fixture
def shop(live_server):
    """The shop's tools (tests.admin_tryit_urls), a few badges, and logged calls."""
    from django.contrib.auth.models import Group

    from mcp_tools.catalog import sync
    from mcp_tools.endpoint.mounts import served_registries
    from mcp_tools.models import ExposedTool, ToolCall

    sync.sync_tools(*served_registries())
    billing = Group.objects.create(name="billing")
    ExposedTool.objects.get(name="shop_refund").allowed_groups.set([billing])
    ExposedTool.objects.filter(name="shop_order").update(
        title="Order for a customer", include_output_schema=True
    )
    ExposedTool.objects.create(name="shop_retired", registered=False)
    now = timezone.now()
    for duration in (12.0, 20.0, 31.0):
        ToolCall.objects.create(
            tool_name="shop_order", started_at=now, duration_ms=duration, is_error=True
        )
    return {name: ExposedTool.objects.get(name=name).pk for name in ("shop_order", "shop_refund")}


def open_page(browser, url, ready, size):
    """Open ``url`` at ``size`` with the app list open, as admin first shows it (an earlier
    test's picture may have closed it: admin keeps that in the browser's storage)."""
    browser.set_window_size(*SIZES[size])
    browser.get(url)
    if browser.execute_script(
        "const open = localStorage.getItem('django.admin.navSidebarIsOpen') !== 'false';"
        "localStorage.setItem('django.admin.navSidebarIsOpen', 'true'); return !open;"
    ):
        browser.get(url)
    return wait_for(browser, ready)


def mcp_pages(base, shop):
    """The MCP pages: (name, address, an element that shows it is ready)."""
    tools = f"{base}/admin/mcp_tools/exposedtool"
    return [
        ("admin-tools", f"{tools}/?q=shop", "#result_list"),
        ("admin-tool", f"{tools}/{shop['shop_order']}/change/", "#exposedtool_form"),
        ("admin-try-it", f"{tools}/{shop['shop_order']}/try/", "#try-it-form"),
        ("admin-try-it-hidden", f"{tools}/{shop['shop_refund']}/try/", "#try-it-visibility"),
    ]


@pytest.mark.urls("tests.admin_tryit_urls")
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_the_mcp_pages_fit_the_screen_in_both_themes(
    operator, themed, live_server, shop, size, theme, settings, tmp_path
):
    use_theme(themed, theme)
    for name, url, ready in mcp_pages(live_server.url, shop):
        open_page(themed, url, ready, size)
        assert overflow(themed) == [0, 0], (name, size)
        dark = themed.execute_script(
            "return getComputedStyle(document.body).backgroundColor !== 'rgb(255, 255, 255)'"
        )
        assert dark is (theme == "dark"), (name, theme)
        picture(themed, tmp_path, name, size, theme)
    # The widest list: every call logged, four figures, the test project's longest names.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    open_page(themed, f"{live_server.url}/admin/mcp_tools/exposedtool/", "#result_list", size)
    assert "P50 (MS)" in themed.find_element(By.ID, "result_list").text
    assert overflow(themed) == [0, 0], (size, "all")


def overflow(browser):
    """Return how far the page and the changelist's table scroll sideways (0: not at all,
    nothing cut off)."""
    return browser.execute_script(
        "const page = document.documentElement;"
        "const list = document.querySelector('#changelist .results');"
        "return [page.scrollWidth - page.clientWidth,"
        " list ? list.scrollWidth - list.clientWidth : 0];"
    )


@pytest.mark.urls("tests.admin_tryit_urls")
@pytest.mark.parametrize("theme", THEMES)
def test_the_mcp_pages_have_no_serious_accessibility_violations(
    operator, themed, live_server, shop, theme
):
    use_theme(themed, theme)
    found = {}
    for name, url, ready in mcp_pages(live_server.url, shop):
        open_page(themed, url, ready, "1366")
        found[name] = axe_violations(themed)
    assert found == {name: [] for name in found}


@pytest.mark.urls("tests.admin_tryit_urls")
def test_try_it_in_the_browser_explains_and_calls_with_its_widgets(
    operator, live_server, shop, django_user_model
):
    tools = f"{live_server.url}/admin/mcp_tools/exposedtool"
    hidden = open_page(
        operator, f"{tools}/{shop['shop_refund']}/try/", "#try-it-visibility", "1366"
    )
    assert "It is only for the groups billing, and you are in none of them." in hidden.text
    assert "permission class IsBillingTeam does not admit you" in hidden.text
    open_page(operator, f"{tools}/{shop['shop_order']}/try/", "#try-it-form", "1366")
    root = django_user_model.objects.get(username="root")
    operator.find_element(By.ID, "id_argument_customer").send_keys(str(root.pk))
    operator.find_element(By.ID, "id_argument_amount").send_keys("12.50")
    Select(operator.find_element(By.ID, "id_argument_currency")).select_by_visible_text("Euro")
    Select(operator.find_element(By.ID, "id_argument_express")).select_by_visible_text("Yes")
    gift = Select(operator.find_element(By.ID, "id_argument_gift"))
    assert gift.first_selected_option.text == "Leave out (the view's default)"
    Select(operator.find_element(By.ID, "id_protocol_version")).select_by_value("2026-07-28")
    operator.find_element(By.CSS_SELECTOR, "input[name=_call]").click()
    structured = wait_for(operator, "pre.mcp-structured").text
    assert '"amount": "12.50"' in structured and '"express": true' in structured
    assert '"gift"' not in structured  # left out
