"""Headless Chromium driven by Selenium against pytest-django's live server.

Needs the chromium and chromium-driver packages (/usr/bin/chromium,
/usr/bin/chromedriver); the tests are skipped where they are missing, except
under CI=true, where .ci/run installs them and a missing browser fails.
Screenshots of every page go to test-artifacts/ at the repository root.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
LAPTOP = (1366, 860)
NARROW = (420, 860)


class Browser:
    def __init__(self, driver, base_url: str):
        self.driver = driver
        self.base_url = base_url

    def get(self, path: str):
        self.driver.get(self.base_url + path)

    def find(self, css: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def wait_for(self, css: str, timeout: float = 20):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.driver, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))

    def wait_until(self, predicate, timeout: float = 20, poll: float = 0.25):
        from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        # Live pages swap their fragments while we poll: an element found a
        # moment ago may be gone or replaced, so such a poll just tries again.
        ignored = (NoSuchElementException, StaleElementReferenceException)
        wait = WebDriverWait(self.driver, timeout, poll_frequency=poll, ignored_exceptions=ignored)
        return wait.until(lambda d: predicate())

    def login(self, username: str, password: str):
        self.get("/login/")
        self.find("#id_username").send_keys(username)
        self.find("#id_password").send_keys(password)
        self.find("form button[type=submit]").click()
        self.wait_until(lambda: "/login/" not in self.driver.current_url)

    def logout(self):
        self.driver.delete_all_cookies()

    def shot(self, name: str, size: tuple[int, int] = LAPTOP) -> Path:
        """A screenshot of the whole page (the window grown to the page's height)."""
        ARTIFACTS.mkdir(exist_ok=True)
        import time

        width, height = size
        self.driver.set_window_size(width, height)
        # Let responsive plots redraw at the new width before measuring.
        self.driver.execute_script("window.dispatchEvent(new Event('resize'))")
        time.sleep(0.6)
        full = self.driver.execute_script("return document.documentElement.scrollHeight")
        self.driver.set_window_size(width, min(max(height, full + 120), 7000))
        path = ARTIFACTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        self.driver.set_window_size(*LAPTOP)
        return path


@pytest.fixture
def browser(live_server):
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        if os.environ.get("CI"):  # CI installs them: a missing browser there is a failure, not a skip
            pytest.fail("chromium / chromedriver are missing (apt-get install chromium chromium-driver)")
        pytest.skip("chromium / chromedriver are not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}",
                 f"--window-size={LAPTOP[0]},{LAPTOP[1]}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield Browser(driver, live_server.url)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
