#!/usr/bin/env python3
"""The web app's figures (issue 25 item 5), against its targets: a page served in at most 20 ms
at the 95th percentile, at most 64 KB with everything it loads, and the idle process at no CPU
and under 16 MB resident. Prints a table; asserts nothing (tests never time things).

  make bench-web        (builds release binaries first)
  bench/web-bench.py BIN_DIR [PUCKD_BIN_DIR]

Runs a real `puckd --simulate` (with 20 alarms and 200 wake-ups of history, so the pages have
something to show) and `puck-web` on loopback, logs in, and asks for each page many times over
one keep-alive connection at a time; the time is from the request's first byte to the
response's last, on CLOCK_MONOTONIC. Each page's weight is its HTML and every file it loads
(style sheet, script, manifest, icon), uncompressed. The idle figures are read from /proc after
the last request: CPU ticks over PUCK_WEB_BENCH_IDLE_SECONDS (default 10), then VmRSS.

Environment: PUCK_WEB_BENCH_SAMPLES (default 300 per page), PUCK_WEB_BENCH_IDLE_SECONDS.
"""
import http.client
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SAMPLES = int(os.environ.get("PUCK_WEB_BENCH_SAMPLES", "300"))
IDLE_SECONDS = int(os.environ.get("PUCK_WEB_BENCH_IDLE_SECONDS", "10"))
PASSWORD = "a bench passphrase"


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"puck-web did not listen on {port}")


def main():
    web_bin = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release")
    daemon_bin = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else web_bin)
    work = tempfile.mkdtemp(prefix="puck-web-bench-")
    port = free_port()
    config = os.path.join(work, "puckd.conf")
    with open(config, "w") as f:
        f.write(f"[web]\nenabled = yes\naddress = 127.0.0.1\nport = {port}\n")
    sock = os.path.join(work, "puckd.sock")
    password_file = os.path.join(work, "web-password")
    puckctl = os.path.join(daemon_bin, "puckctl")
    subprocess.run([puckctl, "web", "password", "--file", password_file], input=PASSWORD + "\n", text=True,
                   check=True, capture_output=True)
    processes = []
    try:
        processes.append(subprocess.Popen([os.path.join(daemon_bin, "puckd"), "--simulate", "--config", config,
                                           "--state-dir", os.path.join(work, "state"), "--socket", sock],
                                          stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 20
        while not os.path.exists(sock) and time.monotonic() < deadline:
            time.sleep(0.05)
        for index in range(20):
            subprocess.run([puckctl, "--socket", sock, "alarm", "add", f"{5 + index % 10:02d}:{index * 3 % 60:02d}",
                            "--days", "weekdays", "--label", f"alarm number {index}"], check=True, capture_output=True)
        web = subprocess.Popen([os.path.join(web_bin, "puck-web"), "--config", config, "--socket", sock,
                                "--password-file", password_file], stderr=subprocess.DEVNULL)
        processes.append(web)
        wait_port(port)

        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)

        def get(path, cookie=None, body=None, headers=None):
            headers = dict(headers or {})
            if cookie:
                headers["Cookie"] = cookie
            started = time.monotonic_ns()
            connection.request("POST" if body is not None else "GET", path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            return (time.monotonic_ns() - started) / 1e6, response, data

        _, response, _ = get("/login")
        token = response.getheader("Set-Cookie").split(";")[0].split("=", 1)[1]
        _, response, _ = get("/login", cookie=f"puck_login={token}", body=f"login={token}&password=a+bench+passphrase",
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
        session = [v for k, v in response.getheaders() if k == "Set-Cookie" and v.startswith("puck_session=")]
        if not session:
            raise SystemExit("could not log in")
        cookie = session[0].split(";")[0]

        pages = ["/", "/alarms", "/alarms/1", "/pause", "/history"]
        rows = []
        for page in pages:
            times = []
            html = b""
            for _ in range(SAMPLES):
                elapsed, response, html = get(page, cookie=cookie)
                if response.status != 200:
                    raise SystemExit(f"{page}: {response.status}")
                times.append(elapsed)
            weight = len(html)
            text = html.decode()
            for asset in ("/style.css", "/app.js", "/manifest.webmanifest", "/icon.svg"):
                if asset.split(".")[0] in text:
                    _, _, data = get(asset)
                    weight += len(data)
            rows.append((page, pct(times, 50), pct(times, 95), max(times), len(html), weight))
        connection.close()

        def ticks():
            fields = open(f"/proc/{web.pid}/stat").read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])

        def switches():
            # Summed over every thread: /proc/PID/status shows only the main one's.
            total = 0
            for task in os.listdir(f"/proc/{web.pid}/task"):
                for line in open(f"/proc/{web.pid}/task/{task}/status"):
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
            return total

        before, woken = ticks(), switches()
        time.sleep(IDLE_SECONDS)
        idle_ticks, idle_switches = ticks() - before, switches() - woken
        rss = next(int(line.split()[1]) for line in open(f"/proc/{web.pid}/status") if line.startswith("VmRSS:"))
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)

    print(f"puck-web at {web_bin}, {SAMPLES} requests per page (loopback, one connection, logged in)")
    print()
    print("| page | p50 ms | p95 ms (target ≤ 20) | max ms | HTML bytes | with what it loads (target ≤ 65536) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for page, p50, p95, worst, html, weight in rows:
        print(f"| `{page}` | {p50:.2f} | {p95:.2f} | {worst:.2f} | {html} | {weight} |")
    print()
    print(f"idle: {idle_ticks} CPU ticks and {idle_switches} context switches (wake-ups, every thread) in "
          f"{IDLE_SECONDS} s (target 0); VmRSS {rss} KiB (target < 16384)")


if __name__ == "__main__":
    main()
