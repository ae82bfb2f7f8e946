#!/usr/bin/env python3
"""The web app in a real browser: Debian's Chromium driven by Selenium (chromium-driver),
headless, at a phone's viewport, against a real `puckd --simulate` and a real `puck-web` on
loopback, puck-web run as an unprivileged user in the puckalarm group as its unit runs it.

The journeys a person takes (log in, see status, add an alarm and find it in `puckctl alarm
list`, disable and enable it, edit it, pause it alone, pause the dock, read history, log out) with
JavaScript on in dark mode and off in light mode, every page's text at WCAG AA contrast; then
the attacks: every route without a session goes to the login page, a form without its CSRF
token (or from another site) is refused, a label <script>alert(1)</script> is
text (no dialog), a session cookie from before logout no longer works, another site's name
(DNS rebinding) is refused, oversized requests are
cut off, root's actions are not there and puckd refuses them to the group, a logged-in phone's
test ring (POST /test with its CSRF token) is a 404 and no button offers one, the 20th wrong
password in a minute is refused; and no request leaves the dock's origin. Last, HTTPS with a
self-signed certificate: Secure cookies, and no page over plain HTTP.

Usage: check_web.py BIN_DIR [SCREENSHOT_DIR]. Prints one line per check and exits 1 on the
first failure (with puckd's and puck-web's logs).
"""

import datetime
import grp
import http.client
import json
import os
import shutil
import ssl
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

PASSWORD = "a long web passphrase"
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}
UNPRIVILEGED_UID = 65534

checks = 0


def ok(text):
    global checks
    checks += 1
    print(f"  ok  {text}", flush=True)


class Failure(Exception):
    pass


def expect(condition, text):
    if not condition:
        raise Failure(text)
    ok(text)


class Dock:
    """puckd --simulate and puck-web in a scratch directory."""

    def __init__(self, bin_dir):
        self.bin = bin_dir
        self.dir = tempfile.mkdtemp(prefix="puck-web-check-")
        os.chmod(self.dir, 0o755)  # puck-web runs as another user
        self.socket = os.path.join(self.dir, "puckd.sock")
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.config = os.path.join(self.dir, "puckd.conf")
        with open(self.config, "w") as f:
            # lock_before = 0s: the journeys set alarms at fixed times (06:30, 07:45) and must not
            # depend on the hour CI runs at (the lock itself: LockWindowTests, LockWindowAttackTests).
            f.write(f"[web]\nenabled = yes\naddress = 127.0.0.1\nport = {self.port}\n"
                    "[enforcement]\nlock_before = 0s\n")
        os.chmod(self.config, 0o644)
        self.password_file = os.path.join(self.dir, "web-password")
        self.group = puckalarm_gid()
        self.processes = []

    def start(self):
        result = subprocess.run(
            [self.puckctl_path, "web", "password", "--file", self.password_file],
            input=PASSWORD + "\n", capture_output=True, text=True)
        if result.returncode != 0:
            raise Failure(f"puckctl web password: {result.stderr}")
        mode = os.stat(self.password_file)
        expect(mode.st_mode & 0o777 == 0o640 and mode.st_gid == self.group,
               "puckctl web password wrote root:puckalarm 0640")
        env = dict(os.environ, TZ="UTC")
        self.puckd_log = open(os.path.join(self.dir, "puckd.log"), "w")
        self.processes.append(subprocess.Popen(
            [os.path.join(self.bin, "puckd"), "--simulate", "--config", self.config, "--state-dir",
             os.path.join(self.dir, "state"), "--socket", self.socket],
            stdout=self.puckd_log, stderr=subprocess.STDOUT, env=env))
        wait_for(lambda: os.path.exists(self.socket), "puckd's socket")
        # As the unit runs it: not root, the puckalarm group as its only group.
        self.web_log = open(os.path.join(self.dir, "puck-web.log"), "w")
        self.processes.append(subprocess.Popen(
            ["/usr/bin/setpriv", f"--reuid={UNPRIVILEGED_UID}", f"--regid={self.group}", "--clear-groups",
             os.path.join(self.bin, "puck-web"), "--config", self.config, "--socket", self.socket,
             "--password-file", self.password_file],
            stdout=self.web_log, stderr=subprocess.STDOUT, env=env))
        wait_for(lambda: port_open(self.port), "puck-web's port")

    @property
    def puckctl_path(self):
        return os.path.join(self.bin, "puckctl")

    def puckctl(self, *arguments, as_group=False):
        command = [self.puckctl_path, "--socket", self.socket, *arguments]
        if as_group:
            command = ["/usr/bin/setpriv", f"--reuid={UNPRIVILEGED_UID}", f"--regid={self.group}",
                       "--clear-groups", *command]
        return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))

    def stop(self):
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

    def logs(self):
        for name in ("puckd.log", "puck-web.log"):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                print(f"---- {name}")
                print(open(path).read()[-6000:])


def puckalarm_gid():
    try:
        return grp.getgrnam("puckalarm").gr_gid
    except KeyError:
        subprocess.run(["groupadd", "--system", "puckalarm"], check=True)
        return grp.getgrnam("puckalarm").gr_gid


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for(condition, what, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise Failure(f"timed out waiting for {what}")


def browser(javascript, scheme):
    """Chromium at a phone's size, in `scheme` (dark or light), with JavaScript on or off."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--lang=en-US",
                     "--disable-background-networking", "--disable-component-update", "--no-first-run",
                     "--disable-default-apps", "--disable-sync", "--window-size=390,844",
                     f"--blink-settings=preferredColorScheme={0 if scheme == 'dark' else 1}"):
        options.add_argument(argument)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {
        "width": PHONE["width"], "height": PHONE["height"], "pixelRatio": PHONE["deviceScaleFactor"]}})
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    if not javascript:
        # ChromeDriver's wait for a click's navigation hangs when the page's scripts are off;
        # `navigate` waits for the next page itself.
        options.page_load_strategy = "none"
    driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    # JavaScript off for the page, as a browser with it switched off runs it.
    if not javascript:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        driver.puck_scripts_off = True
    driver.set_page_load_timeout(20)
    return driver


def requested_urls(driver):
    """Every URL the page asked the network for since the last call (Chrome's performance log).
    `data:` URLs are left out: the browser's own icons in date and time fields, never fetched."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if not url.startswith("data:"):
                urls.append(url)
    return urls


def navigate(driver, element):
    """Clicks `element` (a link or a form's button) and waits for the next page to load."""
    page = driver.find_element(By.TAG_NAME, "html")
    tap(driver, element)
    loaded(driver, page)


def tap(driver, element):
    """Clicks `element`. With the page's scripts off ChromeDriver's click never returns, so it is
    a tap through DevTools' input events then, as a finger would."""
    if not getattr(driver, "puck_scripts_off", False):
        element.click()
        return
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    rect = element.rect
    scroll = driver.execute_cdp_cmd("Runtime.evaluate", {"expression": "[window.scrollX, window.scrollY]",
                                                          "returnByValue": True})["result"]["value"]
    x = rect["x"] + rect["width"] / 2 - scroll[0]
    y = rect["y"] + rect["height"] / 2 - scroll[1]
    for kind in ("mousePressed", "mouseReleased"):
        driver.execute_cdp_cmd("Input.dispatchMouseEvent",
                               {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})


def load(driver, url):
    """Opens `url` and waits for it to load."""
    try:
        page = driver.find_element(By.TAG_NAME, "html")
    except WebDriverException:
        # A browser just started (its scripts off, nothing waited for) may have no first blank
        # document yet: then the new one is known by its address.
        page = None
    driver.get(url)
    if page is None:
        origin = url.split("/", 3)[:3]
        WebDriverWait(driver, 20).until(lambda d: d.current_url.split("/", 3)[:3] == origin)
    loaded(driver, page)


def loaded(driver, page):
    """Waits until `page` (the old document's root, if any) is gone and the new document has
    loaded."""
    def gone(_):
        # The old root no longer answers: stale, or (a race in ChromeDriver) "does not belong
        # to the document".
        try:
            page.tag_name
            return False
        except WebDriverException:
            return True

    if page is not None:
        WebDriverWait(driver, 20).until(gone)
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_cdp_cmd("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
        ["result"]["value"] == "complete")


def no_dialog(driver):
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def alarm_card(driver, label):
    for card in driver.find_elements(By.CSS_SELECTOR, "li.card"):
        if label in card.find_element(By.TAG_NAME, "strong").text:
            return card
    raise Failure(f"no alarm card labelled {label!r}")


def log_in(driver, dock, password=PASSWORD):
    load(driver, dock.origin + "/login")
    field = driver.find_element(By.ID, "password")
    field.clear()
    field.send_keys(password)
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button[type=submit]"))


# WCAG 2.x contrast of every piece of text on the page against what is painted behind it
# (ancestors' background colours blended down to the page's): 4.5:1, or 3:1 for large text
# (24 px, or 18.66 px bold). SVG text is judged by its fill. Runs through the DevTools protocol,
# so it works with the page's JavaScript off.
CONTRAST = r"""(() => {
  const rgba = s => { const m = (s || '').match(/[\d.]+/g);
    return m && m.length >= 3 ? [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1] : null; };
  const over = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const channel = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const luminance = c => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
  const behind = el => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    return layers.reverse().reduce((bottom, top) => over(top, bottom), [255, 255, 255, 1]);
  };
  const low = [], seen = new Set();
  let judged = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.trim(), el = walker.currentNode.parentElement;
    if (!text || seen.has(el)) continue;
    seen.add(el);
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || el.getClientRects().length === 0) continue;
    const background = behind(el);
    const paint = rgba(el.closest('svg') ? style.fill : style.color);
    if (!paint) continue;
    const fg = over(paint, background);
    const [a, b] = [luminance(fg), luminance(background)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight, 10) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    judged += 1;
    if (ratio < needed) low.push(`${el.tagName.toLowerCase()} "${text.slice(0, 24)}" ${ratio.toFixed(2)}:1`);
  }
  return {judged, low};
})()"""


def readable(driver, mode, page):
    """Every text on the page passes WCAG AA contrast."""
    found = driver.execute_cdp_cmd("Runtime.evaluate", {"expression": CONTRAST, "returnByValue": True})["result"]["value"]
    expect(found["judged"] > 0 and not found["low"],
           f"{mode}: {page}: {found['judged']} texts meet WCAG AA contrast {found['low'][:4]}")


def glance(driver, dock, javascript, scheme):
    """The two pairings the journeys leave out (JavaScript on in light, off in dark): logged in,
    each page is in its scheme, readable at WCAG AA, no wider than the phone, and the live status
    script runs exactly when JavaScript is on."""
    mode = f"JavaScript {'on' if javascript else 'off'}, {scheme}"
    print(f"== a glance ({mode})", flush=True)
    load(driver, dock.origin + "/")
    log_in(driver, dock)
    for page in ("/alarms", "/pause", "/history", "/"):
        load(driver, dock.origin + page)
        fits(driver, mode, page, scheme, javascript)
    navigate(driver, driver.find_element(By.XPATH, "//button[text()='Log out']"))


def fits(driver, mode, page, scheme, javascript):
    """The page is in its scheme, no wider than the phone and readable at WCAG AA; on the status
    page, the live status script runs exactly when JavaScript is on."""
    background = driver.find_element(By.TAG_NAME, "body").value_of_css_property("background-color")
    dark = background in ("rgba(16, 18, 20, 1)", "rgb(16, 18, 20)")
    expect(dark == (scheme == "dark"), f"{mode}: {page} is {scheme} ({background})")
    width = driver.execute_cdp_cmd("Runtime.evaluate", {"expression": "document.documentElement.scrollWidth",
                                                         "returnByValue": True})["result"]["value"]
    expect(width <= PHONE["width"], f"{mode}: {page}: nothing wider than the phone ({width} px)")
    if page == "/":
        live = driver.find_element(By.TAG_NAME, "html").get_attribute("data-live")
        expect((live == "on") == javascript,
               f"{mode}: the live status script {'runs' if javascript else 'does not run'}")
    readable(driver, mode, page)


def journey(driver, dock, label, javascript, scheme, shots):
    mode = f"JavaScript {'on' if javascript else 'off'}, {scheme}"
    print(f"== the journey ({mode})", flush=True)
    load(driver, dock.origin + "/")
    expect(driver.current_url == dock.origin + "/login", f"{mode}: / without a session shows the login page")
    readable(driver, mode, "login")
    expect(driver.find_element(By.CSS_SELECTOR, "label[for=password]").text == "Password",
           f"{mode}: the password field is labelled")
    log_in(driver, dock)
    expect(driver.current_url == dock.origin + "/", f"{mode}: logged in, on the status page")
    heading = driver.find_element(By.TAG_NAME, "h1").text
    verdict = driver.find_element(By.ID, "verdict").text
    expect(heading == "Status" and verdict == "Not protected", f"{mode}: status says not protected (simulated)")
    fits(driver, mode, "/", scheme, javascript)
    if shots:
        driver.save_screenshot(os.path.join(shots, f"status-{scheme}.png"))

    navigate(driver, driver.find_element(By.LINK_TEXT, "Alarms"))
    expect(driver.current_url == dock.origin + "/alarms", f"{mode}: the alarms page")
    for field in driver.find_elements(By.CSS_SELECTOR, "form[action='/alarms/add'] input:not([type=hidden])"):
        ident = field.get_attribute("id")
        expect(bool(driver.find_elements(By.CSS_SELECTOR, f"label[for='{ident}']")),
               f"{mode}: the add form's {ident} has a label")
    readable(driver, mode, "alarms")
    buttons = driver.find_elements(By.CSS_SELECTOR, "button")
    small = [b.text for b in buttons if b.size["height"] < 44 or b.size["width"] < 44]
    expect(not small, f"{mode}: every button is at least 44x44 CSS px ({small})")
    time_field = driver.find_element(By.ID, "time")
    time_field.send_keys("0630AM")
    for day in ("mon", "fri"):
        tap(driver, driver.find_element(By.CSS_SELECTOR, f"label[for=day-{day}]"))
    driver.find_element(By.ID, "label").send_keys(label)
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/alarms/add'] button[type=submit]"))
    expect(driver.current_url == dock.origin + "/alarms", f"{mode}: added, back on the alarms page (303)")
    flash = driver.find_element(By.CSS_SELECTOR, ".flash").text
    expect("added" in flash, f"{mode}: the page says what was done: {flash!r}")
    listed = dock.puckctl("alarm", "list").stdout
    expect(any(label in line and "06:30" in line and "Mon,Fri" in line for line in listed.splitlines()),
           f"{mode}: puckctl alarm list has it")
    if shots:
        driver.save_screenshot(os.path.join(shots, f"alarms-{scheme}.png"))

    navigate(driver, alarm_card(driver, label).find_element(By.XPATH, ".//button[text()='Disable']"))
    expect("disabled" in alarm_card(driver, label).text, f"{mode}: disabled on the page")
    expect(any(label in line and "(disabled)" in line for line in dock.puckctl("alarm", "list").stdout.splitlines()),
           f"{mode}: puckctl alarm list says disabled")
    navigate(driver, alarm_card(driver, label).find_element(By.XPATH, ".//button[text()='Enable']"))
    expect(not any(label in line and "(disabled)" in line
                   for line in dock.puckctl("alarm", "list").stdout.splitlines()), f"{mode}: enabled again")

    navigate(driver, alarm_card(driver, label).find_element(By.LINK_TEXT, "Change"))
    readable(driver, mode, "an alarm's page")
    time_field = driver.find_element(By.ID, "time")
    time_field.send_keys("0745AM")
    tap(driver, driver.find_element(By.CSS_SELECTOR, "label[for=day-sat]"))
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[action$='/edit'] button[type=submit]"))
    expect(any(label in line and "07:45" in line and "Mon,Fri,Sat" in line
               for line in dock.puckctl("alarm", "list").stdout.splitlines()),
           f"{mode}: edited to 07:45 Mon,Fri,Sat, as puckctl alarm list shows")
    until = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=2)
    driver.find_element(By.ID, "until").send_keys(until.strftime("%m%d%Y"))
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[action$='/pause'] button[type=submit]"))
    expect(any(label in line and f"(paused until {until.isoformat()})" in line
               for line in dock.puckctl("alarm", "list").stdout.splitlines()), f"{mode}: this alarm alone paused")
    navigate(driver, driver.find_element(By.XPATH, "//button[text()='Resume this alarm']"))
    expect(not any(label in line and "paused" in line for line in dock.puckctl("alarm", "list").stdout.splitlines()),
           f"{mode}: its pause ended")

    navigate(driver, driver.find_element(By.LINK_TEXT, "Holiday"))
    readable(driver, mode, "holiday")
    until = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=3)
    driver.find_element(By.ID, "until").send_keys(until.strftime("%m%d%Y"))
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/pause'] button[type=submit]"))
    expect(f"Paused until" in driver.find_element(By.TAG_NAME, "main").text, f"{mode}: the dock is paused")
    status = json.loads(dock.puckctl("status", "--json").stdout)["status"]
    expect(status.get("pausedUntil") == until.isoformat(), f"{mode}: puckctl status says paused until {until}")
    navigate(driver, driver.find_element(By.XPATH, "//button[text()='Resume now']"))
    status = json.loads(dock.puckctl("status", "--json").stdout)["status"]
    expect(status.get("pausedUntil") is None, f"{mode}: resumed")

    navigate(driver, driver.find_element(By.LINK_TEXT, "History"))  # no wake-up yet: not every chart is drawn
    heading = driver.find_element(By.TAG_NAME, "h1").text
    charts = len(driver.find_elements(By.CSS_SELECTOR, "svg.chart"))
    expect(heading == "History" and charts >= 1, f"{mode}: history, its figures drawn as SVG ({heading!r}, {charts} charts)")
    readable(driver, mode, "history")

    before = driver.get_cookie("puck_session")["value"]
    navigate(driver, driver.find_element(By.XPATH, "//button[text()='Log out']"))
    expect(driver.current_url == dock.origin + "/login?out=1", f"{mode}: logged out, on the login page")
    load(driver, dock.origin + "/alarms")
    expect(driver.current_url == dock.origin + "/login", f"{mode}: after logout, no page without logging in")
    return before


def request(dock, method, path, body=None, headers=None, cookie=None):
    """One raw HTTP request; (status, headers, body), or None when the connection was cut."""
    connection = http.client.HTTPConnection("127.0.0.1", dock.port, timeout=15)
    headers = dict(headers or {})
    if cookie:
        headers["Cookie"] = f"puck_session={cookie}"
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode("utf-8", "replace")
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        return None
    finally:
        connection.close()


def fetch_bytes(dock, path):
    """A GET without a session: (status, headers, the body's bytes)."""
    connection = http.client.HTTPConnection("127.0.0.1", dock.port, timeout=15)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def png_size(data):
    """'WxH' from a PNG's IHDR chunk (which comes first), or None when it is not a PNG."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return f"{int.from_bytes(data[16:20], 'big')}x{int.from_bytes(data[20:24], 'big')}"


def attacks(driver, dock, old_cookie):
    print("== the attacks", flush=True)
    # An alarm due while the attacks run: it must ring whatever they do to the web app.
    due = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=20)
    added = dock.puckctl("alarm", "add", due.strftime("%H:%M:%S"), "--label", "under attack", "--no-puck")
    expect(added.returncode == 0, f"an alarm at {due:%H:%M:%S} UTC, due during the attacks")
    for path in ("/", "/alarms", "/pause", "/nowhere"):
        status, headers, _ = request(dock, "GET", path)
        expect(status == 303 and headers.get("Location") == "/login", f"GET {path} without a session: to login")
    for path in ("/alarms/add", "/alarms/1/delete", "/pause", "/resume", "/logout"):
        status, headers, _ = request(dock, "POST", path, body="csrf=x",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        expect(status == 303 and headers.get("Location") == "/login", f"POST {path} without a session: to login")

    status, headers, _ = request(dock, "GET", "/", cookie=old_cookie)
    expect(status == 303 and headers.get("Location") == "/login", "the session cookie from before logout is refused")

    # DNS rebinding: another site's name pointed at the dock is the same origin to the browser,
    # so the dock answers only to its own names.
    rebound = {"Host": f"evil.example:{dock.port}", "Origin": f"http://evil.example:{dock.port}"}
    status, headers, _ = request(dock, "GET", "/login", headers=rebound)
    expect(status == 421 and "Set-Cookie" not in headers, f"GET /login under another site's name: refused ({status})")
    status, headers, _ = request(dock, "POST", "/login", body="login=x&password=x",
                                 headers={**rebound, "Content-Type": "application/x-www-form-urlencoded"})
    expect(status == 421 and "Set-Cookie" not in headers, f"a password tried under another site's name: refused ({status})")

    log_in(driver, dock)
    cookie = driver.get_cookie("puck_session")
    expect(cookie["httpOnly"] and cookie.get("sameSite") == "Strict" and len(cookie["value"]) == 64,
           "the session cookie: HttpOnly, SameSite=Strict, 256 bits")
    session = cookie["value"]
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    until = (datetime.date.today() + datetime.timedelta(days=5)).isoformat()
    status, _, _ = request(dock, "POST", "/pause", body=f"until={until}", headers=form, cookie=session)
    expect(status == 403, "POST without the CSRF token: refused")
    status, _, _ = request(dock, "POST", "/pause", body=f"csrf={'0' * 64}&until={until}", headers=form,
                           cookie=session)
    expect(status == 403, "POST with a wrong CSRF token: refused")
    load(driver, dock.origin + "/pause")
    csrf = driver.find_element(By.NAME, "csrf").get_attribute("value")
    status, _, _ = request(dock, "POST", "/pause", body=f"csrf={csrf}&until={until}",
                           headers=dict(form, Origin="http://evil.example"), cookie=session)
    expect(status == 403, "POST with the token but from another site's page: refused")
    expect("pausedUntil" not in json.loads(dock.puckctl("status", "--json").stdout)["status"],
           "none of them paused the dock")

    label = "<script>alert(1)</script>"
    load(driver, dock.origin + "/alarms")
    driver.find_element(By.ID, "time").send_keys("0715AM")
    driver.find_element(By.ID, "label").send_keys(label)
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/alarms/add'] button[type=submit]"))
    expect(no_dialog(driver), "a <script> label: no dialog")
    expect(label in alarm_card(driver, "alert(1)").text, "a <script> label: shown as text")
    navigate(driver, alarm_card(driver, "alert(1)").find_element(By.XPATH, ".//button[text()='Delete']"))

    for path in ("/stop", "/override", "/pair", "/unpair", "/reader/add", "/awake"):
        status, _, _ = request(dock, "POST", path, body=f"csrf={csrf}", headers=form, cookie=session)
        expect(status == 404, f"POST {path}: the web app has no such action")
    # A test ring from bed: a rehearsal asks the person at the dock (`puckctl test` there).
    load(driver, dock.origin + "/")
    expect(not driver.find_elements(By.CSS_SELECTOR, "form[action='/test']")
           and "Test ring" not in driver.find_element(By.TAG_NAME, "main").text,
           "the status page has no test-ring button")
    status, _, _ = request(dock, "POST", "/test", body=f"csrf={csrf}&seconds=3", headers=form, cookie=session)
    expect(status == 404, f"POST /test with the session and its CSRF token: 404, no test ring ({status})")
    with open(os.path.join(dock.dir, "puckd.log")) as log:
        expect("rehearsal: ringing" not in log.read(), "puckd rang no rehearsal for the web app")
    crafted = dock.puckctl("override", "--yes", as_group=True)
    expect(crafted.returncode == 77 and "needs root" in crafted.stderr,
           "override sent by hand as puck-web's user and group: refused by puckd")
    crafted = dock.puckctl("reader", "add", "kitchen", as_group=True)
    expect(crafted.returncode == 77, "reader add sent by hand as puck-web's group: refused by puckd")

    status, headers, _ = request(dock, "POST", "/alarms/add", body="x" * 20000, headers=form, cookie=session)
    expect(status == 413 and headers.get("Connection") == "close", "a 20 KB body announced: 413, connection closed")
    connection = http.client.HTTPConnection("127.0.0.1", dock.port, timeout=15)
    connection.putrequest("POST", "/alarms/add")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.putheader("Cookie", f"puck_session={session}")
    connection.endheaders()
    cut = False
    try:
        for _ in range(64):
            connection.send(b"400\r\n" + b"y" * 1024 + b"\r\n")
        connection.send(b"0\r\n\r\n")
        cut = connection.getresponse().status == 413
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        cut = True
    connection.close()
    expect(cut, "a 64 KB chunked body: cut off")
    answer = request(dock, "GET", "/", headers={"X-Padding": "p" * 20000}, cookie=session)
    expect(answer is None or answer[0] in (413, 431), "20 KB of headers: refused")
    slow = socket.create_connection(("127.0.0.1", dock.port))
    slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    slow.settimeout(30)
    started = time.monotonic()
    try:
        data = slow.recv(1024)
        while data:
            data = slow.recv(1024)
    except (ConnectionResetError, socket.timeout):
        pass
    waited = time.monotonic() - started
    slow.close()
    expect(waited < 20, f"a request that never ends its headers: dropped after {waited:.0f} s")
    status, headers, body = request(dock, "GET", "/manifest.webmanifest")
    manifest = json.loads(body) if status == 200 else {}
    expect(manifest.get("start_url") == "/" and manifest.get("display") == "standalone"
           and all(icon["src"].startswith("/") for icon in manifest.get("icons", [])),
           "the web app manifest: installable, its icons the dock's own")
    # A home screen wants PNGs: 192 and 512 px in the manifest (Android), the apple-touch-icon
    # (180 px, iOS); each served as its type, and its IHDR says the size the manifest declares.
    icons = list(dict.fromkeys((icon["src"], icon["type"], icon["sizes"]) for icon in manifest.get("icons", [])))
    icons.append(("/apple-touch-icon.png", "image/png", "180x180"))
    expect({"192x192", "512x512"} <= {sizes for _, kind, sizes in icons if kind == "image/png"},
           "the manifest lists PNG icons of 192 and 512 px")
    for src, kind, sizes in icons:
        status, headers, data = fetch_bytes(dock, src)
        served = png_size(data) if kind == "image/png" else ("any" if data.startswith(b"<svg") else None)
        expect(status == 200 and headers.get("Content-Type") == kind and served == sizes,
               f"{src}: {kind}, {sizes}")
    status, headers, _ = request(dock, "GET", "/", cookie=session)
    csp = headers.get("Content-Security-Policy", "")
    wait_for(lambda: datetime.datetime.now(datetime.timezone.utc) > due + datetime.timedelta(seconds=2), "the alarm",
             seconds=40)
    guards = json.loads(dock.puckctl("status", "--json").stdout)["status"]["guards"]
    expect(bool(guards),
           f"the alarm rang on time through the attacks ({[g['description'] for g in guards]})")
    expect(status == 200 and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
           and headers.get("X-Content-Type-Options") == "nosniff" and headers.get("Referrer-Policy") == "no-referrer",
           "still serving, with the CSP, nosniff and no referrer")

    stopped = dock.puckctl("stop")
    expect(stopped.returncode == 0, "the ring stopped at the dock (puckctl stop: the alarm needs no puck)")
    load(driver, dock.origin + "/history")
    history = driver.find_element(By.TAG_NAME, "main").text
    expect("under attack" in history and "stopped (no puck needed)" in history, "History: the wake-up is listed")
    expect(len(driver.find_elements(By.CSS_SELECTOR, "svg.chart")) == 2, "History: two charts drawn as SVG")
    status, headers, body = request(dock, "GET", "/history.csv", cookie=session)
    expect(status == 200 and headers.get("Content-Type", "").startswith("text/csv")
           and body.splitlines()[0].startswith("alarm_id,") and "under attack" in body, "History: the CSV download")
    load(driver, dock.origin + "/")
    navigate(driver, driver.find_element(By.XPATH, "//button[text()='Run the pre-flight check']"))
    flash = driver.find_element(By.CSS_SELECTOR, ".flash").text
    expect("pre-flight check FAILED" in flash and "audio" in flash,
           f"the pre-flight check run from the status page says what failed: {flash[:60]!r}")

    navigate(driver, driver.find_element(By.XPATH, "//button[text()='Log out']"))
    for attempt in range(1, 20):
        log_in(driver, dock, password=f"wrong guess {attempt}")
        if "Wrong password" not in driver.page_source:
            raise Failure(f"wrong password {attempt}: not said")
    ok("19 wrong passwords in a minute: each checked and refused")
    log_in(driver, dock)
    expect("Too many wrong passwords" in driver.page_source and driver.current_url.endswith("/login"),
           "the 20th try in the minute, even with the right password: refused")


def https(dock):
    """[web] certificate and key: HTTPS only, a Secure cookie; a self-signed certificate made as
    the README says."""
    print("== HTTPS", flush=True)
    certificate, key = os.path.join(dock.dir, "web.pem"), os.path.join(dock.dir, "web-key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-days", "825",
         "-nodes", "-subj", "/CN=dock.local", "-addext", "subjectAltName=DNS:dock.local,IP:127.0.0.1",
         "-keyout", key, "-out", certificate], check=True, capture_output=True)
    os.chown(key, 0, dock.group)
    os.chmod(key, 0o640)
    os.chmod(certificate, 0o644)
    port = free_port()
    config = os.path.join(dock.dir, "tls.conf")
    with open(config, "w") as f:
        f.write(f"[web]\nenabled = yes\naddress = 127.0.0.1\nport = {port}\ncertificate = {certificate}\nkey = {key}\n")
    os.chmod(config, 0o644)
    log = open(os.path.join(dock.dir, "puck-web-tls.log"), "w")
    dock.processes.append(subprocess.Popen(
        ["/usr/bin/setpriv", f"--reuid={UNPRIVILEGED_UID}", f"--regid={dock.group}", "--clear-groups",
         os.path.join(dock.bin, "puck-web"), "--config", config, "--socket", dock.socket,
         "--password-file", dock.password_file], stdout=log, stderr=subprocess.STDOUT))
    wait_for(lambda: port_open(port), "puck-web's HTTPS port")
    context = ssl.create_default_context(cafile=certificate)
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=15)
    connection.request("GET", "/login")
    response = connection.getresponse()
    response.read()
    cookie = response.getheader("Set-Cookie") or ""
    expect(response.status == 200 and cookie.startswith("__Host-puck_login=") and cookie.endswith("; Secure"),
           "HTTPS: the login page, its cookie Secure and named __Host-")
    token = cookie.split(";")[0].split("=", 1)[1]
    connection.request("POST", "/login", body=f"login={token}&password={urllib.parse.quote_plus(PASSWORD)}",
                       headers={"Content-Type": "application/x-www-form-urlencoded",
                                "Cookie": f"__Host-puck_login={token}"})
    response = connection.getresponse()
    response.read()
    session = [v for k, v in response.getheaders()
               if k == "Set-Cookie" and v.startswith("__Host-puck_session=")]
    expect(response.status == 303 and session and "; Secure" in session[0] and "HttpOnly" in session[0],
           "HTTPS: logged in, the session cookie Secure, HttpOnly and named __Host-")
    connection.close()
    expect(request_plain_fails(port), "HTTPS: a plain HTTP request gets no page")


def request_plain_fails(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/login")
        return connection.getresponse().status >= 400
    except (http.client.HTTPException, OSError):
        return True
    finally:
        connection.close()


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    shots = sys.argv[2] if len(sys.argv) > 2 else None
    if shots:
        os.makedirs(shots, exist_ok=True)
    dock = Dock(bin_dir)
    drivers = []
    started = time.monotonic()
    try:
        dock.start()
        driver = browser(javascript=True, scheme="dark")
        drivers.append(driver)
        old_cookie = journey(driver, dock, "Gym", javascript=True, scheme="dark", shots=shots)
        quiet = browser(javascript=False, scheme="light")
        drivers.append(quiet)
        journey(quiet, dock, "Work", javascript=False, scheme="light", shots=shots)
        for javascript, scheme in ((True, "light"), (False, "dark")):
            other = browser(javascript=javascript, scheme=scheme)
            drivers.append(other)
            glance(other, dock, javascript, scheme)
        urls = requested_urls(driver) + requested_urls(quiet)
        outside = [u for u in urls if not u.startswith(dock.origin + "/")]
        expect(urls and not outside, f"{len(urls)} requests, none outside {dock.origin} {outside[:3]}")
        attacks(driver, dock, old_cookie)
        urls = requested_urls(driver)
        outside = [u for u in urls if not u.startswith(dock.origin + "/")]
        expect(not outside, f"the attacks' pages: none outside the origin {outside[:3]}")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "Content Security Policy" in e["message"]]
        expect(not errors, f"no Content-Security-Policy violation in the browser ({errors[:1]})")
        https(dock)
    except Exception as error:  # a failed check, or anything unexpected: both fail the run
        print(f"check-web: FAIL: {str(error).splitlines()[0] if str(error) else type(error).__name__}", flush=True)
        if not isinstance(error, Failure):
            traceback.print_exc(limit=4)
        for d in drivers:
            try:
                print(f"---- page at {d.current_url}:\n{d.page_source[:3000]}")
            except Exception:
                pass
        dock.logs()
        return 1
    finally:
        for d in drivers:
            d.quit()
        dock.stop()
    shutil.rmtree(dock.dir, ignore_errors=True)
    print(f"check-web: {checks} checks passed in {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
