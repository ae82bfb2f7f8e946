#!/usr/bin/env python3
"""The benchmark of record (issue 12): runs the release puckd and puckctl through the paths a
person waits on, with many samples each, and prints one table against the targets. Asserts
nothing; tests never time things.

  make bench        (builds release binaries first)

Writes, under .build/bench/:
  figures.md        the table, the machine, the commit and the method (docs/BENCHMARKS.md-ready)
  latency-cdf.svg   the latency distributions as cumulative curves
  samples.json      every sample, for other plots

Every duration is measured on CLOCK_MONOTONIC (time.monotonic_ns / perf_counter_ns), except the
alarm's lateness, which is the wall-clock instant the daemon was asked to ring at against the
wall clock at the moment its notification arrives (the alarm itself is a wall-clock deadline).

Environment: PUCK_BENCH_HISTORY_LINES (default 1000000), PUCK_BENCH_IDLE_SECONDS (30),
PUCK_BENCH_WAKEUPS (50), PUCK_BENCH_REMOTE_SAMPLES (15), PUCK_BENCH_TAGS (100), PUCK_BENCH_POLL_SECONDS (15),
PUCK_BENCH_NFC_POLL_RUNS (20), PUCK_BENCH_EMULATOR_ARGS (the PN532 emulator's options, e.g.
"--slot-faithful" for a real chip's UART and RF pace; default: none, it answers at once).
"""
import json, os, platform, queue, random, shutil, socket, statistics, subprocess, sys, tempfile, threading, time
from benchlib import pct, request

BUILD = sys.argv[1] if len(sys.argv) > 1 else ".build/release"
PUCKD, PUCKCTL = os.path.join(BUILD, "puckd"), os.path.join(BUILD, "puckctl")
OUT = os.path.join(".build", "bench")
UID = "04:A2:3B:11:22:33:44"
HISTORY_LINES = int(os.environ.get("PUCK_BENCH_HISTORY_LINES", "1000000"))
IDLE_SECONDS = int(os.environ.get("PUCK_BENCH_IDLE_SECONDS", "30"))
WAKEUPS = int(os.environ.get("PUCK_BENCH_WAKEUPS", "50"))
TAGS = int(os.environ.get("PUCK_BENCH_TAGS", "100"))
POLL_SECONDS = int(os.environ.get("PUCK_BENCH_POLL_SECONDS", "15"))
NFC_POLL_RUNS = int(os.environ.get("PUCK_BENCH_NFC_POLL_RUNS", "20"))
ALARMS = 100  # the most a dock holds (docs/DESIGN.md C5)
STICKER = "DE:AD:BE:EF"
EMULATOR_ARGS = os.environ.get("PUCK_BENCH_EMULATOR_ARGS", "").split()


def cpu_seconds(pid):
    """CPU time of every live thread of `pid`, from schedstat (nanoseconds)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
        except FileNotFoundError:
            pass
    return total / 1e9


def start_emulator(tmp, build=None):
    """The PN532 emulator on a pseudo-terminal behind `tmp`/pn532, driven through its stdin, with
    PUCK_BENCH_EMULATOR_ARGS; a thread reads its answers for the moments tags enter the field."""
    link = os.path.join(tmp, "pn532")
    emulator = subprocess.Popen([os.path.join(build or BUILD, "pn532-emulator"), "--link", link] + EMULATOR_ARGS,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    emulator.presented = queue.Queue()

    def read_answers():
        for line in emulator.stdout:
            if line.startswith("tag present at "):
                emulator.presented.put(int(line.split()[3]))
    threading.Thread(target=read_answers, daemon=True).start()
    time.sleep(0.3)
    return emulator, link


def tell(emulator, line):
    emulator.stdin.write(line + "\n")
    emulator.stdin.flush()


def present(emulator, uid):
    """Lays `uid` on the emulated antenna: the moment it entered the field, as the emulator took
    it on CLOCK_MONOTONIC (nanoseconds; Python's monotonic_ns reads the same clock)."""
    while not emulator.presented.empty():
        emulator.presented.get_nowait()
    tell(emulator, f"present {uid}")
    return emulator.presented.get(timeout=10)


def detection(tmp, name, docks, link, emulator, poll_interval=None, tags=TAGS, poll_seconds=POLL_SECONDS):
    """A wake-up open on a dock with the real libnfc reader on the emulated PN532: the daemon's CPU
    share while it polls, then a sticker presented again and again (so the wake-up stays open):
    the milliseconds from the tag entering the emulator's field to puckd's log line of the scan."""
    dock = Dock(tmp, name, reader=f"pn532_uart:{link}",
                extra=f"poll_interval = {poll_interval}\n" if poll_interval else "")
    docks.append(dock)
    with open(os.path.join(dock.dir, "state", "pairing.json"), "w") as f:
        json.dump({"schemaVersion": 1, "payload": {"uid": UID, "pairedAt": "2026-01-01T00:00:00Z"}}, f)
    os.chmod(os.path.join(dock.dir, "state", "pairing.json"), 0o600)
    dock.start()
    fire = int(time.time()) + 2
    before = time.monotonic_ns()
    request(dock.sock, {"v": 1, "command": "alarm.add", "time": time.strftime("%H:%M:%S", time.gmtime(fire)),
                        "date": time.strftime("%Y-%m-%d", time.gmtime(fire))})
    dock.log_line("RINGING", before)
    time.sleep(1)
    cpu0, wall0 = cpu_seconds(dock.process.pid), time.monotonic()
    time.sleep(poll_seconds)
    share = 100 * (cpu_seconds(dock.process.pid) - cpu0) / (time.monotonic() - wall0)
    seen = []
    for _ in range(tags):
        t0 = present(emulator, STICKER)
        seen.append(ms(dock.log_line("reader: tag …:BE:EF", t0)[0] - t0))
        tell(emulator, "remove")
        # Away for the settled interval (4 polls and 400 ms), so the next is fresh; then a random
        # wait, so the presentations fall at every phase of the poll cycle.
        time.sleep(0.55 + random.uniform(0, 0.25))
    dock.stop()
    return share, seen


def nfc_poll_peer(link, emulator, runs=NFC_POLL_RUNS):
    """libnfc's own nfc-poll against the same emulator, which answers InAutoPoll only at the end
    of a poll round (nfc-poll asks for rounds of 300 ms): its CPU share while it waits with no tag,
    then, run after run, the milliseconds from `present` at a random moment of its polling to its
    printing the UID. Nil when nfc-poll is not installed."""
    nfc_poll = shutil.which("nfc-poll")
    if not nfc_poll:
        return None
    env = dict(os.environ, LIBNFC_AUTO_SCAN="false", LIBNFC_DEFAULT_DEVICE=f"pn532_uart:{link}")
    seen, shares = [], []
    for run in range(runs):
        poller = subprocess.Popen(["stdbuf", "-oL", nfc_poll], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        for line in poller.stdout:
            if "will poll during" in line:
                break
        if run == 0:
            cpu0, wall0 = cpu_seconds(poller.pid), time.monotonic()
            time.sleep(3)
            shares.append(100 * (cpu_seconds(poller.pid) - cpu0) / (time.monotonic() - wall0))
        else:
            time.sleep(random.uniform(0.05, 0.65))
        t0 = present(emulator, STICKER)
        for line in poller.stdout:
            if "UID (NFCID1)" in line:
                seen.append(ms(time.monotonic_ns() - t0))
                break
        tell(emulator, "remove")
        try:
            poller.wait(timeout=5)
        except subprocess.TimeoutExpired:
            poller.kill()
            poller.wait()
        time.sleep(0.1)
    return shares[0], seen


def reader_section(tmp, docks, row, samples):
    """The reader rows: puckd's detection and polling CPU on the emulated PN532, against nfc-poll."""
    emulator, link = start_emulator(tmp)
    try:
        share, seen = detection(tmp, "reader", docks, link, emulator)
        peer = nfc_poll_peer(link, emulator)
        peer_share = f"nfc-poll: {peer[0]:.2f} % of a core" if peer else "nfc-poll not installed (libnfc-examples)"
        row(f"wake-up open, polling the emulated reader ({POLL_SECONDS} s)", "≤ 2 % of a core",
            f"{share:.2f} % of a core (the whole daemon: the poll and the ring on ALSA null)",
            "met" if share <= 2 else "MISSED", peer_share)
        samples["tag presented → scan seen (emulated PN532)"] = seen
        verdict = pct(seen, .95) <= 50
        peer_text = "nfc-poll not installed (libnfc-examples)"
        if peer:
            samples["tag presented → nfc-poll prints it (emulated PN532)"] = peer[1]
            verdict = verdict and pct(seen, .95) <= pct(peer[1], .95) / 4
            peer_text = (f"nfc-poll ({len(peer[1])} runs): p50 {pct(peer[1], .5):.1f} ms, "
                         f"p95 {pct(peer[1], .95):.1f} ms; puckd's p95 is "
                         f"{pct(seen, .95) / pct(peer[1], .95):.2f} of it")
        row(f"tag presented to the emulated PN532 → scan seen ({len(seen)} presentations)",
            "p95 ≤ 50 ms, ≤ ¼ of the peer", f"p50 {pct(seen, .5):.1f} ms, p95 {pct(seen, .95):.1f} ms, "
            f"max {max(seen):.1f} ms", "met" if verdict else "MISSED", peer_text,
            "one open wake-up, a sticker presented and lifted each time; to puckd's 'reader: tag' log line; "
            "nfc-poll to its UID line, the emulator answering its InAutoPoll at 300 ms round boundaries")
    finally:
        emulator.terminate()
        emulator.wait()


def ms(ns):
    return ns / 1e6


def proc_stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    get = lambda lines, key: int(next(l for l in lines if l.startswith(key)).split()[1])
    # Context switches are per thread: every thread's count, threads that exited excepted; CPU
    # from schedstat (nanoseconds on the CPU), not the clock ticks of /proc/PID/stat.
    switches, cpu_ns = 0, 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            lines = open(f"/proc/{pid}/task/{task}/status").read().splitlines()
            cpu_ns += int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
        except FileNotFoundError:
            continue
        switches += get(lines, "voluntary_ctxt_switches") + get(lines, "nonvoluntary_ctxt_switches")
    if os.path.exists(f"/proc/{pid}/task/{pid}/schedstat"):
        cpu = cpu_ns / 1e9
    return cpu, switches, get(open(f"/proc/{pid}/status").read().splitlines(), "VmRSS")


def private_kib(pid):
    """Memory the process allocated itself (anonymous pages: heap, stacks, the libraries' relocated
    data; from smaps_rollup), in KiB. RSS also counts the file pages of the shared libraries (the
    Swift runtime, Foundation, libcrypto), and Private_Clean counts those too whenever no other
    process happens to map them, so it moves with what else runs."""
    rollup = open(f"/proc/{pid}/smaps_rollup").read().splitlines()
    return sum(int(l.split()[1]) for l in rollup if l.startswith("Anonymous:"))


class Dock:
    """A puckd in a scratch directory (simulated unless given a reader), its NOTIFY_SOCKET and its
    log read by the benchmark."""

    def __init__(self, tmp, name, reader=None, extra=""):
        self.dir = os.path.join(tmp, name)
        os.makedirs(os.path.join(self.dir, "state"), exist_ok=True)
        self.sock = os.path.join(self.dir, "puckd.sock")
        self.config = os.path.join(self.dir, "puckd.conf")
        self.reader = reader
        with open(self.config, "w") as f:
            f.write("[audio]\ndevice = null\n[enforcement]\nretry_delay = 5s\n")
            if reader:
                f.write(f"[reader]\ndevice = {reader}\n{extra}")
        self.notify_path = os.path.join(self.dir, "notify")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        self.process = None
        # puckd's log lines with the moment each arrived (monotonic ns, wall s): the pipe delivers a
        # line as it is written, so "RINGING …" and "silenced …" time the ring's start and stop.
        self.lines, self.lines_lock = [], threading.Lock()

    def start(self):
        """Starts puckd; returns the nanoseconds from spawn to READY=1."""
        self.drain()
        env = dict(os.environ, NOTIFY_SOCKET=self.notify_path, TZ="UTC", LIBNFC_AUTO_SCAN="false")
        t0 = time.monotonic_ns()
        self.process = subprocess.Popen(
            [PUCKD] + ([] if self.reader else ["--simulate"]) + ["--config", self.config, "--state-dir", os.path.join(self.dir, "state"),
             "--socket", self.sock], env=env, stderr=subprocess.PIPE)
        threading.Thread(target=self.read_log, args=(self.process.stderr,), daemon=True).start()
        self.notify.settimeout(30)
        while b"READY=1" not in self.notify.recv(65536):
            pass
        return time.monotonic_ns() - t0

    def read_log(self, stream):
        for raw in stream:
            stamp = (time.monotonic_ns(), time.time())
            with self.lines_lock:
                self.lines.append((stamp[0], stamp[1], raw.decode(errors="replace")))

    def log_line(self, needle, after_ns, timeout=15):
        """The first log line containing `needle` that arrived after `after_ns`: (monotonic ns, wall s)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lines_lock:
                for mono, wall, line in self.lines:
                    if mono >= after_ns and needle in line:
                        return mono, wall
            time.sleep(0.0005)
        raise TimeoutError(needle)

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait()
            self.process = None

    def drain(self):
        self.notify.setblocking(False)
        try:
            while self.notify.recv(65536):
                pass
        except BlockingIOError:
            pass

    def wait_for(self, needle):
        self.notify.settimeout(15)
        while True:
            message = self.notify.recv(65536).decode()
            if needle(message):
                return message

    def pair(self):
        pairer = subprocess.Popen([PUCKCTL, "--socket", self.sock, "pair"], stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        for _ in range(2):
            request(self.sock, {"v": 1, "command": "scan", "uid": UID})
        pairer.wait()


def write_state(dock):
    """100 alarms (the cap) and HISTORY_LINES history lines, written as puckd writes them."""
    days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    alarms = [{"id": i + 1, "time": f"{(i * 7) % 24:02d}:{(i * 13) % 60:02d}", "days": [days[i % 7]],
               "label": f"alarm {i + 1}", "enabled": True, "requiresPuck": True} for i in range(ALARMS)]
    with open(os.path.join(dock.dir, "state", "alarms.json"), "w") as f:
        json.dump({"schemaVersion": 1, "payload": {"alarms": alarms, "nextID": ALARMS + 1}}, f)
    entry = {"schemaVersion": 1, "payload": {
        "outcome": "woke", "closedAt": "2026-03-02T06:41:12Z", "openedAt": "2026-03-02T06:30:00Z",
        "bypassCount": 2, "rings": 3, "puck": "primary (…:33:44)", "reader": "dock",
        "occurrence": {"alarmID": 1, "label": "work", "time": "06:30", "scheduledAt": "2026-03-02T06:30:00Z",
                       "requiresPuck": True, "isOneShot": False}}}
    line = (json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
    with open(os.path.join(dock.dir, "state", "history.jsonl"), "wb") as f:
        block = line * 10000
        for _ in range(HISTORY_LINES // 10000):
            f.write(block)
        f.write(line * (HISTORY_LINES % 10000))
    for name in ("alarms.json", "history.jsonl"):
        os.chmod(os.path.join(dock.dir, "state", name), 0o600)


def timed_process(args, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter_ns() - t0)
    return times


def machine():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout.strip()
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
            "commit": commit + (" (with uncommitted changes)" if dirty else ""),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def svg_cdf(series, path):
    """Cumulative curves on a log time axis (0.1 ms to 1 s), one colour per path."""
    import math
    width, height, left, bottom, top, right = 1040, 420, 60, 50, 20, 440
    lo, hi = math.log10(0.1), math.log10(1000)
    x = lambda v: left + (math.log10(min(max(v, 0.1), 1000)) - lo) / (hi - lo) * (width - left - right)
    y = lambda p: top + (1 - p) * (height - top - bottom)
    colours = ["#1b6ca8", "#d1495b", "#2e8b57", "#edae49", "#6a4c93", "#00798c", "#555555"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for decade in range(-1, 4):
        for step in (1, 2, 5):
            v = step * 10 ** decade
            if 0.1 <= v <= 1000:
                out.append(f'<line x1="{x(v):.1f}" y1="{top}" x2="{x(v):.1f}" y2="{height - bottom}" stroke="#ddd"/>')
                if step == 1:
                    out.append(f'<text x="{x(v):.1f}" y="{height - bottom + 16}" text-anchor="middle">{v:g} ms</text>')
    for p in (0, 0.25, 0.5, 0.75, 0.95, 1):
        out.append(f'<line x1="{left}" y1="{y(p):.1f}" x2="{width - right}" y2="{y(p):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(p) + 4:.1f}" text-anchor="end">{p:g}</text>')
    out.append(f'<text x="{(width - right + left) / 2}" y="{height - 12}" text-anchor="middle">latency (log scale)</text>')
    for i, (name, values) in enumerate(series):
        if not values:
            continue
        values = sorted(values)
        points = " ".join(f"{x(v):.1f},{y((k + 1) / len(values)):.1f}" for k, v in enumerate(values))
        colour = colours[i % len(colours)]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        out.append(f'<text x="{width - right + 10}" y="{top + 16 + 18 * i}" fill="{colour}">{name} (n={len(values)})</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    rows, samples, docks = [], {}, []
    tmp = tempfile.mkdtemp(prefix="puck-record-")
    started = time.monotonic()

    def row(path, target, measured, verdict, peer="—", note=""):
        rows.append({"path": path, "target": target, "measured": measured, "peer": peer, "verdict": verdict,
                     "note": note})
        print(f"  {path}: {measured}  [{verdict}]" + (f"  peer: {peer}" if peer != "—" else ""), flush=True)

    try:
        # A dock with the most alarms it holds and a long history: start-up, status, history, idle.
        print(f"writing {ALARMS} alarms and {HISTORY_LINES} history lines…", flush=True)
        big = Dock(tmp, "big")
        docks.append(big)
        write_state(big)
        starts = []
        for _ in range(10):
            starts.append(big.start())
            big.stop()
        starts_ms = [ms(v) for v in starts]
        row(f"puckd start → READY=1, {ALARMS} alarms, {HISTORY_LINES:,} history lines (10 starts)",
            "median ≤ 150 ms", f"median {statistics.median(starts_ms):.1f} ms, max {max(starts_ms):.1f} ms",
            "met" if statistics.median(starts_ms) <= 150 else "MISSED",
            note="1,000 alarms in the issue; a dock holds at most 100 (DESIGN C5)")
        big.start()
        pid = big.process.pid
        # Idle with the alarms: CPU per minute, wake-ups (context switches), memory; after the
        # check at start has had its answers.
        time.sleep(2)
        cpu0, sw0, _ = proc_stat(pid)
        time.sleep(IDLE_SECONDS)
        cpu1, sw1, rss = proc_stat(pid)
        private = private_kib(pid)
        per_minute = 1000 * (cpu1 - cpu0) * 60 / IDLE_SECONDS
        switches = (sw1 - sw0) * 60 / IDLE_SECONDS
        row(f"idle, {ALARMS} alarms, {IDLE_SECONDS} s", "< 1 ms CPU per minute, no periodic wake-ups, RSS ≤ 12 MB",
            f"{per_minute:.2f} ms CPU/min, {switches:.1f} context switches/min (all threads), RSS {rss / 1024:.1f} MiB "
            f"(anonymous {private / 1024:.1f} MiB)",
            "met" if per_minute < 1 and rss <= 12 * 1024 else "MISSED",
            note=f"from 2 s after start; {IDLE_SECONDS} s instead of 10 min to keep make bench under 5 min; "
                 "CPU from /proc/PID/task/*/schedstat; the pre-flight check timer of an alarm may fall in the window")
        _, _, rss_start = proc_stat(pid)
        raw = []
        for _ in range(300):
            t0 = time.perf_counter_ns()
            request(big.sock, {"v": 1, "command": "status"})
            raw.append(time.perf_counter_ns() - t0)
        status_proc = timed_process([PUCKCTL, "--socket", big.sock, "status"], 100)
        samples["status (puckctl, process included)"] = [ms(v) for v in status_proc]
        peer = "n/a: no systemd as PID 1 here"
        if os.path.isdir("/run/systemd/system"):
            peer_times = timed_process(["systemctl", "status", "--no-pager", "systemd-journald.service"], 50)
            peer = f"systemctl status: median {statistics.median(map(ms, peer_times)):.1f} ms"
        row("puckctl status, process start included (100 runs)", "median ≤ 20 ms",
            f"median {statistics.median(samples['status (puckctl, process included)']):.1f} ms "
            f"(socket round trip alone: p50 {ms(pct(raw, .5)):.2f} ms)",
            "met" if statistics.median(samples["status (puckctl, process included)"]) <= 20 else "MISSED", peer)
        history = []
        for _ in range(200):
            t0 = time.perf_counter_ns()
            reply = request(big.sock, {"v": 1, "command": "history", "limit": 20})
            history.append(time.perf_counter_ns() - t0)
            assert reply.get("ok") and len(reply["history"]) == 20, reply
        _, _, rss_history = proc_stat(pid)
        samples["history --limit 20 (socket)"] = [ms(v) for v in history]

        big.stop()

        # Wake-ups on a fresh dock: alarm lateness, scan → ring stopped (socket and puckctl).
        dock = Dock(tmp, "wake")
        docks.append(dock)
        dock.start()
        dock.pair()
        late, scan_raw, scan_reply, scan_proc = [], [], [], []
        for k in range(WAKEUPS):
            fire = int(time.time()) + 1
            if time.time() > fire - 0.3:
                fire += 1
            before = time.monotonic_ns()
            request(dock.sock, {"v": 1, "command": "alarm.add", "time": time.strftime("%H:%M:%S", time.gmtime(fire)),
                                "date": time.strftime("%Y-%m-%d", time.gmtime(fire))})
            _, rang = dock.log_line("RINGING", before)
            late.append(1000 * (rang - fire))
            dock.wait_for(lambda m: "STATUS=RINGING" in m)
            if k % 2 == 0:
                t0 = time.monotonic_ns()
                request(dock.sock, {"v": 1, "command": "scan", "uid": UID})
                scan_reply.append(time.monotonic_ns() - t0)
                scan_raw.append(dock.log_line("silenced", t0)[0] - t0)
            else:
                t0 = time.monotonic_ns()
                subprocess.run([PUCKCTL, "--socket", dock.sock, "scan", UID], stdout=subprocess.DEVNULL, check=True)
                scan_proc.append(dock.log_line("silenced", t0)[0] - t0)
            dock.wait_for(lambda m: "STATUS=" in m and "RINGING" not in m)
        # Memory flat in history size: the same history requests on this dock's short history.
        for _ in range(200):
            request(dock.sock, {"v": 1, "command": "history", "limit": 20})
        _, _, rss_short = proc_stat(dock.process.pid)
        dock.stop()
        row(f"history --limit 20 over {HISTORY_LINES:,} records (200 requests)", "≤ 20 ms, memory flat",
            f"p50 {ms(pct(history, .5)):.2f} ms, p95 {ms(pct(history, .95)):.2f} ms; RSS after them "
            f"{rss_history / 1024:.1f} MiB against {rss_short / 1024:.1f} MiB with {WAKEUPS} records",
            "met" if ms(pct(history, .95)) <= 20 and abs(rss_history - rss_short) < 2048 else "MISSED")
        samples["alarm instant → ring started"] = late
        samples["scan seen → ring stopped (socket)"] = [ms(v) for v in scan_raw]
        samples["puckctl scan → ring stopped (process)"] = [ms(v) for v in scan_proc]
        row(f"scheduled instant → ring started ({WAKEUPS} alarms)", "p99 ≤ 2 ms late, never early",
            f"p50 {pct(late, .5):.2f} ms, p99 {pct(late, .99):.2f} ms, min {min(late):.2f} ms",
            "met" if pct(late, .99) <= 2 and min(late) >= 0 else "MISSED",
            "cron: minute granularity (up to 60 s); systemd timer: AccuracySec=1min by default",
            "to puckd's 'RINGING' log line, written as the ring starts, after the guard was saved (W1)")
        row(f"scan seen → ring stopped ({len(scan_raw)} scans)", "p99 ≤ 5 ms",
            f"p50 {ms(pct(scan_raw, .5)):.2f} ms, p99 {ms(pct(scan_raw, .99)):.2f} ms "
            f"(the reply, after the closed wake-up was saved: p50 {ms(pct(scan_reply, .5)):.2f} ms)",
            "met" if ms(pct(scan_raw, .99)) <= 5 else "MISSED",
            note="scan request sent → puckd's 'silenced' log line, written as the PCM drop and buzzer off are ordered")
        row(f"puckctl scan → ring stopped, client process included ({len(scan_proc)} scans)", "p99 ≤ 15 ms",
            f"p50 {ms(pct(scan_proc, .5)):.2f} ms, p99 {ms(pct(scan_proc, .99)):.2f} ms",
            "met" if ms(pct(scan_proc, .99)) <= 15 else "MISSED")

        # The remote scan through the loopback broker (its own script; needs mosquitto).
        remote_out = os.path.join(tmp, "remote.json")
        if shutil.which("mosquitto") or os.path.exists("/usr/sbin/mosquitto"):
            subprocess.run([sys.executable, "bench/remote-scan-bench.py", BUILD],
                           env=dict(os.environ, PUCK_BENCH_SAMPLES_OUT=remote_out,
                                    PUCK_BENCH_REMOTE_SAMPLES=os.environ.get("PUCK_BENCH_REMOTE_SAMPLES", "15")),
                           check=False)
        if os.path.exists(remote_out):
            remote = json.load(open(remote_out))
            samples["remote scan → wake-up closed (broker)"] = remote
            row(f"remote scan through the loopback broker → ring stopped ({len(remote)})", "p95 ≤ 200 ms",
                f"p50 {pct(remote, .5):.1f} ms, p95 {pct(remote, .95):.1f} ms",
                "met" if pct(remote, .95) <= 200 else "MISSED",
                note="includes the node's PN532 poll cadence on the emulated reader")
        else:
            row("remote scan through the loopback broker → ring stopped", "p95 ≤ 200 ms", "not measured",
                "not measured", note="mosquitto is not installed")

        reader_section(tmp, docks, row, samples)

        # Next fires over a year against the peer doing the same job.
        ours = min(timed_process([PUCKCTL, "calendar", "06:30", "--tz", "Europe/Bucharest", "--count", "1000",
                                  "--after", "2026-01-01"], 5))
        peer = "systemd-analyze not installed"
        if shutil.which("systemd-analyze"):
            theirs = min(timed_process(["systemd-analyze", "calendar", "--iterations=1000", "--base-time=2026-01-01",
                                        "*-*-* 06:30:00 Europe/Bucharest"], 5))
            peer = f"systemd-analyze calendar --iterations=1000: {ms(theirs):.1f} ms"
        row("calendar: the next 1,000 fires, process included (best of 5)", "—", f"puckctl {ms(ours):.1f} ms",
            "—", peer, "systemd-analyze also formats a 'from now' line per fire")
        # The core's catch-up and next fire over 10,000 synthetic alarms after clock steps.
        table = subprocess.run([os.path.join(BUILD, "puck-schedule-bench"), "10000"], capture_output=True,
                               text=True, check=True).stdout
        samples_ms = [(line.split("|")[2].strip(), float(line.split("|")[3].split()[0]), float(line.split("|")[4].split()[0]))
                      for line in table.splitlines() if line.startswith("| 10000 |")]
        worst = max(samples_ms, key=lambda s: s[2])
        row("10,000 alarms: catch-up and next fire after a clock step (6 steps × 15)", "≤ 50 ms, no stall over 100 ms",
            f"median {statistics.median(s[1] for s in samples_ms):.1f} ms over the steps; worst {worst[2]:.1f} ms "
            f"({worst[0]})", "met" if worst[2] <= 50 else "MISSED",
            note="puck-schedule-bench: the core's work on the loop thread after a step, in Europe/Berlin "
                 "across the DST night; a dock holds at most 100 alarms (DESIGN C5)")
    finally:
        for made in docks:
            made.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    info = machine()
    elapsed = time.monotonic() - started
    lines = [f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores), Linux {info['kernel']}, "
             f"commit {info['commit']}, release build; `make bench` took {elapsed:.0f} s.", "",
             "| path | target | measured | verdict | peer in the same run | note |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['path']} | {r['target']} | {r['measured']} | {r['verdict']} | {r['peer']} | {r['note']} |")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "figures.md"), "w") as f:
        f.write(table)
    with open(os.path.join(OUT, "samples.json"), "w") as f:
        json.dump({"machine": info, "samples": samples}, f)
    svg_cdf(list(samples.items()), os.path.join(OUT, "latency-cdf.svg"))
    print()
    print(table)
    print(f"written: {OUT}/figures.md, {OUT}/latency-cdf.svg, {OUT}/samples.json")


if __name__ == "__main__":
    main()
