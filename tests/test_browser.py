"""A real browser (Debian's headless Chromium, through Selenium) against the live server."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

# The live server runs on another thread: the superuser must be committed to be seen there.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.admin_urls")]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def log_into_admin(browser, base_url: str, username: str, password: str) -> None:
    """Sign in through the admin's own login form, as a person would."""
    browser.get(f"{base_url}/admin/")
    wait = WebDriverWait(browser, 10)
    wait.until(expected_conditions.presence_of_element_located((By.ID, "id_username")))
    browser.find_element(By.ID, "id_username").send_keys(username)
    browser.find_element(By.ID, "id_password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    wait.until(expected_conditions.presence_of_element_located((By.ID, "site-name")))


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
