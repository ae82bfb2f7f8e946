#!/usr/bin/env python3
"""Measures puckd's start after long downtime; prints figures, asserts nothing.

  python3 bench/catch-up-bench.py .build/release      (make bench runs it)

For 3 and 6 years down with four daily alarms (about 4 400 and 8 800 missed occurrences), each
recorded in history as missed on start:
  - READY=1: start -> the READY=1 datagram on NOTIFY_SOCKET (systemd waits for it);
  - first status: start -> the first `status` answered on the control socket;
  - recorded: start -> every missed occurrence in history.jsonl;
  - slowest status while catching up: the worst `status` round trip from READY to recorded (the
    loop's longest stall as a client sees it).
"""
import json, os, shutil, socket, subprocess, sys, tempfile, time

BUILD = sys.argv[1] if len(sys.argv) > 1 else ".build/release"
PUCKD = os.path.join(BUILD, "puckd")
DAILY = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def envelope(payload):
    return json.dumps({"payload": payload, "schemaVersion": 1})


def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def status_round_trip(path):
    started = time.perf_counter()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    s.sendall(b'{"v": 1, "command": "status"}\n')
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    s.close()
    return time.perf_counter() - started


def missed_lines(state):
    try:
        with open(os.path.join(state, "history.jsonl"), "rb") as f:
            return sum(1 for line in f if b'"missed"' in line)
    except FileNotFoundError:
        return 0


def run(years):
    tmp = tempfile.mkdtemp(prefix="puck-catch-up-")
    state, sock, notify = (os.path.join(tmp, name) for name in ("state", "puckd.sock", "notify"))
    os.mkdir(state, 0o700)
    now = int(time.time())
    # Alarms 2-8 h away from now, so none rings (all are missed) whatever the time of day.
    times = [time.strftime("%H:%M:%S", time.gmtime(now + hours * 3600)) for hours in (-8, -5, 2, 4)]
    alarms = [{"id": i + 1, "time": t, "days": DAILY, "label": "", "enabled": True, "requiresPuck": True}
              for i, t in enumerate(times)]
    days = years * 365
    with open(os.path.join(state, "alarms.json"), "w") as f:
        f.write(envelope({"alarms": alarms, "nextID": len(alarms) + 1}))
    with open(os.path.join(state, "guards.json"), "w") as f:
        f.write(envelope({"guards": [], "scheduledThrough": iso(now - days * 86400), "unacknowledgedMissed": []}))
    with open(os.path.join(tmp, "puckd.conf"), "w") as f:
        f.write("[audio]\ndevice = null\n")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(notify)
    listener.setblocking(False)
    expected = 4 * days
    started = time.perf_counter()
    daemon = subprocess.Popen(
        [PUCKD, "--simulate", "--config", os.path.join(tmp, "puckd.conf"), "--state-dir", state, "--socket", sock],
        env=dict(os.environ, NOTIFY_SOCKET=notify, TZ="UTC"), stderr=subprocess.DEVNULL)
    ready = first_status = recorded = None
    slowest = 0.0
    try:
        while time.perf_counter() - started < 600:
            try:
                while True:
                    if b"READY=1" in listener.recv(4096) and ready is None:
                        ready = time.perf_counter() - started
            except BlockingIOError:
                pass
            if os.path.exists(sock):
                try:
                    trip = status_round_trip(sock)
                    if first_status is None:
                        first_status = time.perf_counter() - started
                    elif recorded is None:
                        slowest = max(slowest, trip)
                except OSError:
                    pass
            if recorded is None and missed_lines(state) >= expected:
                recorded = time.perf_counter() - started
            if ready is not None and first_status is not None and recorded is not None:
                break
            time.sleep(0.02)
    finally:
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    figure = lambda value: "-" if value is None else f"{value:.2f} s"
    print(f"catch-up, {years} years x 4 daily alarms ({expected} missed): READY=1 {figure(ready)}, "
          f"first status {figure(first_status)}, recorded {figure(recorded)}, "
          f"slowest status while catching up {1000 * slowest:.0f} ms")


if __name__ == "__main__":
    for years in (3, 6):
        run(years)
