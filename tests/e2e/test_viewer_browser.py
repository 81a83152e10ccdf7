"""The viewer end to end: a real ``paramine serve`` on a processed store, headless Chromium.

Loads a processed page pair, clicks a bead, asserts it is highlighted on both sides in the
same colour, and saves a screenshot: to ``$PARAMINE_SCREENSHOT`` when set (the committed
``benchmarks/results/viewer.png`` is made that way), else into the test's temporary directory,
so a test run leaves the checkout as it was.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
BIN = Path(sys.executable).parent

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed in .venv")
if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    pytest.skip(
        "Debian chromium and chromedriver (/usr/bin/chromium, /usr/bin/chromedriver) are absent; "
        "apt-get install chromium chromium-driver",
        allow_module_level=True,
    )

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("viewer")
    env = {
        **os.environ,
        "PARAMINE_DATABASE_URL": f"sqlite:///{work / 'store.db'}",
        "PARAMINE_METRICS_DIR": str(work / "metrics"),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    for name in ("PARAMINE_REDIS_URL", "PARAMINE_API_KEY", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(name, None)
    paramine = str(BIN / "paramine")
    subprocess.run(
        [paramine, "process", str(REPO / "samples" / "crawl"), "--out", str(work / "out"), "-q"],
        env=env,
        cwd=work,
        check=True,
        timeout=300,
    )
    port = free_port()
    log = (work / "serve.log").open("wb")
    server = subprocess.Popen(
        [paramine, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log_text = (work / "serve.log").read_text(errors="replace")
                    raise RuntimeError(f"gateway did not start:\n{log_text}") from None
                time.sleep(0.3)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1700",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    # The system chromedriver: Selenium Manager never downloads a browser or a driver.
    service = webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def test_click_a_bead_highlights_it_on_both_sides(
    gateway: str, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    wait = WebDriverWait(browser, 20)
    browser.get(f"{gateway}/ui/")
    browser.find_element(By.CSS_SELECTOR, "#jobs a").click()
    wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#pairs")))
    # the page pair with the most sentence pairs
    rows = browser.find_elements(By.CSS_SELECTOR, "#pairs tbody tr")
    counts = [int(row.find_elements(By.CSS_SELECTOR, "td")[3].text) for row in rows]
    rows[counts.index(max(counts))].find_element(By.CSS_SELECTOR, "a.pair-link").click()
    wait.until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#src-side .bead"))
    )

    src_beads = browser.find_elements(By.CSS_SELECTOR, "#src-side .bead")
    tgt_beads = browser.find_elements(By.CSS_SELECTOR, "#tgt-side .bead")
    assert len(src_beads) == len(tgt_beads) == max(counts) >= 3
    assert browser.find_elements(By.CSS_SELECTOR, ".bead.active") == []

    chosen = src_beads[2]
    position = chosen.get_attribute("data-bead")
    chosen.click()
    active = browser.find_elements(By.CSS_SELECTOR, ".bead.active")
    assert sorted(
        el.find_element(By.XPATH, "ancestor::section").get_attribute("id") for el in active
    ) == [
        "src-side",
        "tgt-side",
    ]
    assert {el.get_attribute("data-bead") for el in active} == {position}
    colours = {el.value_of_css_property("background-color") for el in active}
    borders = {el.value_of_css_property("border-left-color") for el in active}
    assert len(colours) == 1 and len(borders) == 1
    idle = browser.find_element(By.CSS_SELECTOR, "#tgt-side .bead:not(.active)")
    assert idle.value_of_css_property("background-color") not in colours

    # the tree-node alignment on demand: the node pair the bead was aligned inside lights up
    browser.find_element(By.CSS_SELECTOR, "#tree-alignment summary").click()
    chunk = chosen.get_attribute("data-chunk")
    nodes = browser.find_elements(By.CSS_SELECTOR, "#node-pairs .node.active")
    assert [node.get_attribute("data-chunk") for node in nodes] == [chunk]
    node_src = nodes[0].find_elements(By.CSS_SELECTOR, ".text")[0].get_attribute("textContent")
    bead_src = chosen.find_element(By.CSS_SELECTOR, ".text").text
    assert bead_src and bead_src.split()[0] in node_src
    assert nodes[0].is_displayed()

    screenshot = Path(os.environ.get("PARAMINE_SCREENSHOT", "") or tmp_path / "viewer.png")
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(screenshot))

    # clicking the target side's twin toggles the highlight off on both sides
    browser.find_element(By.CSS_SELECTOR, f'#tgt-side .bead[data-bead="{position}"]').click()
    assert browser.find_elements(By.CSS_SELECTOR, ".bead.active, .node.active") == []

    # clicking a node pair highlights every bead aligned inside it, and only those
    node = browser.find_element(By.CSS_SELECTOR, f'#node-pairs .node[data-chunk="{chunk}"]')
    node.click()
    lit = browser.find_elements(By.CSS_SELECTOR, ".bead.active")
    expected = browser.find_elements(By.CSS_SELECTOR, f'.bead[data-chunk="{chunk}"]')
    assert lit and len(lit) == len(expected)
    assert {el.get_attribute("data-chunk") for el in lit} == {chunk}


def test_filters_reload_the_pair_with_fewer_beads(gateway: str, browser: webdriver.Chrome) -> None:
    browser.get(f"{gateway}/ui/")
    browser.find_element(By.CSS_SELECTOR, "#jobs a").click()
    browser.find_element(By.CSS_SELECTOR, "a.pair-link").click()
    total = len(browser.find_elements(By.CSS_SELECTOR, "#src-side .bead"))
    field = browser.find_element(By.NAME, "min_score")
    field.clear()
    field.send_keys("0.9")
    browser.find_element(By.CSS_SELECTOR, "form.filters button").click()
    WebDriverWait(browser, 20).until(expected_conditions.url_contains("min_score=0.9"))
    tags = [el.text for el in browser.find_elements(By.CSS_SELECTOR, "#src-side .bead .tag")]
    scores = [float(tag.rsplit("·", 1)[1]) for tag in tags]
    assert len(scores) <= total and all(score >= 0.9 for score in scores)
