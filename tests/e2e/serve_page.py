#!/usr/bin/env python3
"""nmt-serve's page in a real browser: headless Chromium (through chromedriver and Selenium,
all from Debian) loads the page, types a sentence, clicks Translate; the test checks the
translation, the n-best list and every heatmap cell against the API, clicks a word, checks its
alternatives, picks one and checks the translation that follows, and saves a screenshot.
Usage: serve_page.py BIN_DIR ARTIFACT_DIR"""
import os
import shutil
import sys
import tempfile

import serve_support
from serve_support import Server, check, fail, tiny_model

BIN, ARTIFACTS = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    webdriver = None
if not (CHROMIUM and DRIVER and webdriver):
    print("skipped: Chromium, chromedriver or Selenium is not installed "
          "(apt-get install chromium chromium-driver python3-selenium; scripts/setup.sh does)", flush=True)
    sys.exit(77)  # CTest's SKIP_RETURN_CODE: skipped, not passed

def browser():
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1100,900"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def set_value(driver, element_id, text):
    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(text)


SENTENCE = "der Hund sieht die Katze"

with tempfile.TemporaryDirectory() as workdir:
    os.chdir(workdir)
    tiny_model(BIN, workdir)
    with Server(BIN, "--model", "tiny=run", "--threads", "1") as server:
        status, answer = server.translate({"text": [SENTENCE], "beam": 3, "nbest": 2, "attention": True})
        check(status == 200, f"API: {status} {answer}")
        want = answer["translations"][0]

        driver = browser()
        try:
            wait = WebDriverWait(driver, 30)
            driver.get(f"http://127.0.0.1:{server.port}/")
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#model option"))
            set_value(driver, "source", SENTENCE)
            set_value(driver, "beam", "3")
            set_value(driver, "nbest", "2")
            driver.find_element(By.ID, "translate").click()
            table = wait.until(lambda d: d.find_element(By.ID, "heatmap"))

            check(driver.find_element(By.ID, "output").text == want["text"] == "the dog sees the cat",
                  f"translation shown: {driver.find_element(By.ID, 'output').text!r}, API: {want['text']!r}")
            shown = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#nbest-list li .text")]
            # as rendered: HTML folds a run of spaces into one (a hypothesis may hold an empty piece)
            check(shown == [" ".join(h["text"].split()) for h in want["nbest"]], f"n-best shown: {shown}")
            # the heatmap: source pieces across, target pieces down, one cell per weight, the API's weights
            across = [th.get_attribute("textContent") for th in table.find_elements(By.CSS_SELECTOR, "thead th")][1:]
            down = [th.get_attribute("textContent") for th in table.find_elements(By.CSS_SELECTOR, "tbody th")]
            check(across == want["source_pieces"], f"columns: {across} vs {want['source_pieces']}")
            check(down == want["target_pieces"], f"rows: {down} vs {want['target_pieces']}")
            cells = table.find_elements(By.CSS_SELECTOR, "tbody td")
            check(len(cells) == len(down) * len(across), f"{len(cells)} cells for {len(down)} x {len(across)}")
            weights = driver.execute_script(
                "return [...document.querySelectorAll('#heatmap tbody td')].map(td => Number(td.dataset.weight))")
            flat = [w for row in want["attention"] for w in row]
            check(max(abs(a - b) for a, b in zip(weights, flat)) < 1e-6, "heatmap weights differ from the API's")
            # the strongest cell of the first row is the darkest, and hovering it shows its weight
            first = want["attention"][0]
            strongest = cells[first.index(max(first))]
            ActionChains(driver).move_to_element(strongest).perform()
            hover = driver.find_element(By.ID, "hover").text
            check(hover == f"{want['target_pieces'][0]} ← {across[first.index(max(first))]}: {max(first):.3f}",
                  f"hover shows {hover!r}")
            os.makedirs(ARTIFACTS, exist_ok=True)
            shot = os.path.join(ARTIFACTS, "serve-page.png")
            driver.save_screenshot(shot)
            check(open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG")

            # clicking a word lists its alternatives (the API's, after the words before it); picking one
            # translates again after it, keeping what is before
            words = want["text"].split()
            driver.find_element(By.CSS_SELECTOR, '#output .word[data-index="1"]').click()
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#alternatives button.alt"))
            status, answer = server.translate({"text": [SENTENCE], "prefix": [words[0]], "alternatives": 5})
            check(status == 200, f"API alternatives: {status} {answer}")
            api_words = []
            for a in answer["translations"][0]["alternatives"]:
                word = (a["text"].split()[1:2] or ["(end)"])[0]
                if word not in api_words:
                    api_words.append(word)
            buttons = driver.find_elements(By.CSS_SELECTOR, "#alternatives button.alt")
            shown = [driver.execute_script("return arguments[0].firstChild.textContent", b) for b in buttons]
            check(shown == api_words, f"alternatives shown: {shown}, API: {api_words}")
            check(len(shown) >= 2 and shown[0] == words[1], f"the likeliest alternative is the word shown: {shown}")
            picked = shown[1]
            buttons[1].click()
            wait.until(lambda d: d.execute_script(  # (the words are drawn anew: read them in the page)
                "const w = document.querySelector('#output .word[data-index=\"1\"]'); return w && w.textContent")
                       == picked)
            status, answer = server.translate({"text": [SENTENCE], "beam": 3, "nbest": 2, "attention": True,
                                               "prefix": [f"{words[0]} {picked}"]})
            check(status == 200, f"API with the picked prefix: {status} {answer}")
            now = driver.find_element(By.ID, "output").text
            check(now == answer["translations"][0]["text"] and now.startswith(f"{words[0]} {picked}"),
                  f"after picking {picked!r}: {now!r}, API: {answer['translations'][0]['text']!r}")
            heat_rows = [th.get_attribute("textContent")
                         for th in driver.find_elements(By.CSS_SELECTOR, "#heatmap tbody th")]
            check(heat_rows == answer["translations"][0]["target_pieces"], "the heatmap follows the new translation")

            # a refused request shows the server's message on the page
            set_value(driver, "beam", "99")
            driver.find_element(By.ID, "translate").click()
            wait.until(lambda d: d.find_element(By.ID, "error").text)
            error = driver.find_element(By.ID, "error").text
            check(error == '"beam" must be between 1 and 10, got 99', f"error shown: {error!r}")
        finally:
            driver.quit()
print(f"serve_page.py: {serve_support.checks} checks passed; screenshot in {ARTIFACTS}/serve-page.png")
