#!/usr/bin/env python3
"""Measures puckd and puckctl and prints figures; asserts nothing (tests never time things).

  make bench        (builds release binaries first)

Figures:
  - idle cost: CPU time and context switches of an idle puckd over a window (no polling loop
    means both stay at ~0), and its resident memory;
  - control round trip: `status` over the socket, p50/p95/max, with a raw client (no process start);
  - alarm latency: scheduled instant -> READY/STATUS "RINGING" datagram on NOTIFY_SOCKET;
  - scan latency: simulated scan request -> reply (guard closed, ring dropped);
  - calendar: `puckctl calendar --count N` against the peer `systemd-analyze calendar --iterations N`.
"""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time
from benchlib import pct, request

BUILD = sys.argv[1] if len(sys.argv) > 1 else ".build/release"
PUCKD, PUCKCTL = os.path.join(BUILD, "puckd"), os.path.join(BUILD, "puckctl")
UID = "04:A2:3B:11:22:33:44"


def proc_stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    status = open(f"/proc/{pid}/status").read().splitlines()
    get = lambda key: int(next(l for l in status if l.startswith(key)).split()[1])
    return cpu, get("voluntary_ctxt_switches") + get("nonvoluntary_ctxt_switches"), get("VmRSS")


def main():
    tmp = tempfile.mkdtemp(prefix="puck-bench-")
    sock, notify = os.path.join(tmp, "puckd.sock"), os.path.join(tmp, "notify")
    with open(os.path.join(tmp, "puckd.conf"), "w") as f:
        f.write("[audio]\ndevice = null\n[enforcement]\nretry_delay = 5s\n")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(notify)
    env = dict(os.environ, NOTIFY_SOCKET=notify, TZ="UTC")
    daemon = subprocess.Popen(
        [PUCKD, "--simulate", "--config", os.path.join(tmp, "puckd.conf"), "--state-dir",
         os.path.join(tmp, "state"), "--socket", sock], env=env, stderr=subprocess.DEVNULL)
    try:
        listener.settimeout(10)
        while b"READY=1" not in listener.recv(4096):
            pass
        print(f"puckd {subprocess.check_output([PUCKD, '--version']).decode().split()[-1]} ({BUILD})")

        # Idle cost.
        window = 10
        cpu0, sw0, _ = proc_stat(daemon.pid)
        time.sleep(window)
        cpu1, sw1, rss = proc_stat(daemon.pid)
        print(f"idle {window} s: CPU {1000 * (cpu1 - cpu0):.1f} ms, context switches {sw1 - sw0}, RSS {rss / 1024:.1f} MiB")

        # Control round trip.
        times = []
        for _ in range(300):
            t = time.perf_counter()
            request(sock, {"v": 1, "command": "status"})
            times.append(1000 * (time.perf_counter() - t))
        print(f"status round trip (300): p50 {pct(times, .5):.2f} ms, p95 {pct(times, .95):.2f} ms, max {max(times):.2f} ms")

        # Pair, then alarm latency: fire instant -> STATUS=RINGING datagram.
        pairer = subprocess.Popen([PUCKCTL, "--socket", sock, "pair"], stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        for _ in range(2):
            request(sock, {"v": 1, "command": "scan", "uid": UID})
        pairer.wait()
        latencies, scans = [], []
        for _ in range(5):
            fire = int(time.time()) + 2
            hhmmss = time.strftime("%H:%M:%S", time.gmtime(fire))
            date = time.strftime("%Y-%m-%d", time.gmtime(fire))
            request(sock, {"v": 1, "command": "alarm.add", "time": hhmmss, "date": date})
            listener.settimeout(10)
            while True:
                message = listener.recv(4096).decode()
                if "STATUS=RINGING" in message:
                    latencies.append(1000 * (time.time() - fire))
                    break
            t = time.perf_counter()
            reply = request(sock, {"v": 1, "command": "scan", "uid": UID})
            scans.append(1000 * (time.perf_counter() - t))
            assert reply.get("ok"), reply
        print(f"alarm fire -> RINGING notified (5): median {statistics.median(latencies):.1f} ms, max {max(latencies):.1f} ms")
        print(f"scan -> guard closed, ring dropped (5): median {statistics.median(scans):.2f} ms, max {max(scans):.2f} ms")
        cpu2, _, rss2 = proc_stat(daemon.pid)
        print(f"after the run: CPU total {1000 * cpu2:.0f} ms, RSS {rss2 / 1024:.1f} MiB")
    finally:
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(tmp, ignore_errors=True)

    # Calendar against systemd-analyze calendar (the peer doing the same job).
    def run_time(cmd, runs=5):
        best = float("inf")
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            best = min(best, time.perf_counter() - t)
        return 1000 * best
    n = 1000
    ours = run_time([PUCKCTL, "calendar", "06:30", "--tz", "Europe/Bucharest", "--count", str(n), "--after", "2026-01-01"])
    if shutil.which("systemd-analyze"):
        peer = run_time(["systemd-analyze", "calendar", f"--iterations={n}", "--base-time=2026-01-01",
                         "*-*-* 06:30:00 Europe/Bucharest"])
        print(f"calendar, {n} fires (best of 5): puckctl {ours:.1f} ms, systemd-analyze {peer:.1f} ms")
    else:
        print(f"calendar, {n} fires (best of 5): puckctl {ours:.1f} ms (systemd-analyze not installed)")


if __name__ == "__main__":
    main()
