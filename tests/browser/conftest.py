"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright; no browser is downloaded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR, missing

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = PROJECT_DIR / "test-artifacts"


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        missing("browser tests need Debian's chromium at /usr/bin/chromium (dev.py test installs it as root)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # between page actions are still synchronous and safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh page; the test fails if the site's Content-Security-Policy blocked anything on it
    (a script, a style or a resource the pages need, or something loaded from another site)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    blocked: list[str] = []
    page.on(
        "console",
        lambda message: blocked.append(message.text) if "Content Security Policy" in message.text else None,
    )
    yield page
    context.close()
    assert not blocked, f"the Content-Security-Policy blocked: {blocked}"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Screenshots the suite keeps for people to look at (test-artifacts/, ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def log_in(page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Log out").wait_for()


def keyboard_ready(page) -> None:
    """Wait until the judging page's keyboard script is listening (it loads deferred)."""
    page.locator("html[data-keyboard=ready]").wait_for(state="attached")


def wait_until(page, expression: str, timeout: float = 15.0) -> None:
    """Poll a JavaScript expression until it is true. Playwright's ``wait_for_function`` evaluates its
    predicate with ``eval`` inside the page, which the site's Content-Security-Policy forbids (as it
    should); ``page.evaluate`` goes through the debugging protocol instead."""
    import time

    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {expression}")
        page.wait_for_timeout(100)
