# Headless Chromium for the HTML tests (Debian's chromium and chromium-driver, driven by
# selenium; `.ci/run` installs them). `browser()` yields a driver that records the page's
# console, or skips the test with the reason when a part is missing. One driver per test
# module: starting Chromium costs about a second.
from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)
DRIVER = shutil.which("chromedriver")


def browser() -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("headless browser tests need chromium and chromedriver "
                    "(Debian: apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--disable-extensions", "--no-first-run"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(driver: Any, path: Path) -> None:
    driver.get(path.resolve().as_uri())


def script_errors(driver: Any) -> list[str]:
    """The page's console errors (an uncaught exception is one) since the last call."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE"]
