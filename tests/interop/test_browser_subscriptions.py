"""Live changes in a real browser (Debian's headless Chromium): an operator disables a tool
in the admin, and a client listening with the official Python SDK hears of it at once.

pytest-django's live server is a threaded WSGI server (``wsgi.multithread``), so it holds a
listener's stream (docs/subscriptions.md#servers). It runs in this process: so does the
watcher thread that tells the listener, and the admin's change reaches it without a poll.
The SDK client runs its own event loop on a thread of its own, Selenium's calls blocking
this one.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.interop.test_browser import log_into_admin, save_screenshot, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.admin_urls")]

#: The longest the listener may take to hear of the operator's change: the live server is in
#: this process, so it hears it as the admin's transaction commits.
HEARD_WITHIN = 5.0


class Listening:
    """A Python SDK client listening on ``url`` on a thread of its own: what it hears is
    put on ``heard`` as ``(time.time(), event)``, its acknowledgement as ``("ack", honored)``
    first, and whatever went wrong as ``("error", exception)``. ``stop()`` ends it."""

    def __init__(self, url: str, token: str, **filters: Any) -> None:
        self.url, self.token, self.filters = url, token, filters
        self.heard: queue.Queue = queue.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="sdk-listener", daemon=True)

    def __enter__(self) -> Listening:
        self._thread.start()
        kind, honored = self.heard.get(timeout=30)
        if kind == "error":
            raise honored
        assert kind == "ack", (kind, honored)
        self.honored = honored
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._loop is not None and self._stopped is not None:
            self._loop.call_soon_threadsafe(self._stopped.set)
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "the SDK client did not stop"

    def next(self, timeout: float) -> tuple[float, Any]:
        at, event = self.heard.get(timeout=timeout)
        if at == "error":
            raise event
        return at, event

    def _run(self) -> None:
        try:
            asyncio.run(asyncio.wait_for(self._listen(), timeout=120))
        except BaseException as error:  # handed to the test's thread
            self.heard.put(("error", error))

    async def _listen(self) -> None:
        from tests.sdk import connect

        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        async with connect(self.url, token=self.token) as client:
            assert client.session.protocol_version == "2026-07-28"
            async with client.listen(**self.filters) as sub:
                self.heard.put(("ack", sub.honored))

                async def hear() -> None:
                    async for event in sub:
                        self.heard.put((time.time(), event))

                hearing = asyncio.create_task(hear())
                await self._stopped.wait()
                hearing.cancel()


@pytest.fixture
def quick_keep_alive(monkeypatch):
    """Write the streams' keep-alive every half second, so that the live server's thread
    finds within a second that the client left and gives its held stream back (else it
    would hold it two ``KEEP_ALIVE``s, about 10 s, into the next test)."""
    from mcp_tools.core.holds import holds
    from mcp_tools.endpoint import listening

    monkeypatch.setattr(listening, "KEEP_ALIVE", 0.5)
    before = holds.held()
    yield
    deadline = time.monotonic() + 10
    while holds.held() > before:
        assert time.monotonic() < deadline, "the live server still holds the listener's stream"
        time.sleep(0.05)


def test_an_operator_disables_a_tool_in_the_browser_and_a_listener_hears_it_at_once(
    browser, live_server, django_user_model, alice, quick_keep_alive, tmp_path, capsys
):
    from mcp.shared.subscriptions import ToolsListChanged

    from mcp_tools.catalog.sync import sync_tools
    from mcp_tools.endpoint.mounts import served_registries
    from mcp_tools.models import ExposedTool

    sync_tools(*served_registries())  # the rows the admin lists, committed before it reads
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    log_into_admin(browser, live_server.url, "root", "root-password")
    browser.get(f"{live_server.url}/admin/mcp_tools/exposedtool/?q=todo")
    # Given 30 s, not 10: a loaded machine (the suite's two workers beside its servers) once
    # took longer to show the list.
    WebDriverWait(browser, 30).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#result_list"))
    )
    row = browser.find_element(By.XPATH, "//tr[.//a[text()='todo_list']]")
    row.find_element(By.CSS_SELECTOR, "input.action-select").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("disable_tools")

    url = f"{live_server.url}/mcp"
    with Listening(url, alice.token, tools_list_changed=True) as listener:
        assert listener.honored.tools_list_changed is True
        assert listener.heard.empty()  # nothing changed yet
        clicked = time.time()
        browser.find_element(By.CSS_SELECTOR, "button[name=index]").click()
        assert "1 tool disabled." in wait_for(browser, "ul.messagelist").text
        shown = time.time()
        at, event = listener.next(timeout=HEARD_WITHIN)
        assert event == ToolsListChanged()
        time.sleep(0.5)
        assert listener.heard.empty(), listener.heard.get_nowait()  # once
    save_screenshot(browser, tmp_path, "admin-tool-disabled-while-listened")
    assert ExposedTool.objects.get(name="todo_list").enabled is False
    assert at - clicked < HEARD_WITHIN
    with capsys.disabled():
        print(
            f"\nlive server: tools/list_changed heard {at - clicked:.3f} s after the click "
            f"({at - shown:+.3f} s from the admin's message shown)"
        )
