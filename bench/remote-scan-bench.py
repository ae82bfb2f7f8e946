#!/usr/bin/env python3
"""Measures a remote scan: tag presented to the kitchen node's (emulated) PN532 -> the dock's
wake-up closed, through a real mosquitto on loopback (issue 11 item 6). Asserts nothing.

  make bench        (builds release binaries first; needs mosquitto installed)

Each sample: an alarm rings on the dock (reader device = none, one remote reader), the node is
polling and has watched its empty field for the settled interval, then the tag is presented at
a random phase of the node's poll; the time runs on CLOCK_MONOTONIC from the moment the tag
entered the emulator's field (the emulator's own stamp) to the dock's STATUS= datagram that no
longer says RINGING, sent once the ring was stopped and the closed wake-up saved. It includes the
node's PN532 poll cadence, the HMAC, two broker hops and the dock's verification and close (two
fsynced writes). The node's own share is timed to its 'tag' log line.

PUCK_BENCH_EMULATOR_ARGS="--slot-faithful" runs the emulator at a real chip's pace (UART at
115200 baud, InListPassiveTarget taking its RF time); unset, it answers at once.
"""
import json, os, random, shutil, socket, statistics, subprocess, sys, tempfile, threading, time
from benchlib import pct
from record import EMULATOR_ARGS, present, start_emulator, tell

BUILD = sys.argv[1] if len(sys.argv) > 1 else ".build/release"
SAMPLES = int(os.environ.get("PUCK_BENCH_REMOTE_SAMPLES", "20"))
UID = "04:A2:3B:11:22:33:44"
# The node's --poll-interval (PUCK_BENCH_NODE_POLL=100ms for the old default); unset: its default.
NODE_POLL = os.environ.get("PUCK_BENCH_NODE_POLL", "")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    if not shutil.which("mosquitto"):
        print("remote scan: mosquitto is not installed; skipped")
        return
    tmp = tempfile.mkdtemp(prefix="puck-remote-bench-")
    port = free_port()
    procs = []
    try:
        with open(os.path.join(tmp, "mosquitto.conf"), "w") as f:
            f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
        procs.append(subprocess.Popen(["mosquitto", "-c", os.path.join(tmp, "mosquitto.conf")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        emulator, link = start_emulator(tmp, BUILD)
        procs.append(emulator)
        sock, notify = os.path.join(tmp, "puckd.sock"), os.path.join(tmp, "notify")
        with open(os.path.join(tmp, "puckd.conf"), "w") as f:
            f.write(f"[reader]\ndevice = none\n[audio]\ndevice = null\n[mqtt]\nport = {port}\ndock_name = bench\n")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(notify)
        env = dict(os.environ, NOTIFY_SOCKET=notify, TZ="UTC", LIBNFC_AUTO_SCAN="false")
        time.sleep(0.3)
        daemon = subprocess.Popen([os.path.join(BUILD, "puckd"), "--config", os.path.join(tmp, "puckd.conf"),
                                   "--state-dir", os.path.join(tmp, "state"), "--socket", sock],
                                  env=env, stderr=subprocess.PIPE)
        procs.append(daemon)
        # Each process's log lines with the moment each arrived: the node's 'tag …' line, the
        # dock's 'reader kitchen: tag …' (the scan reached its loop) and 'silenced' (the ring
        # stopped) split the path.
        logs = {"node": [], "dock": []}

        def read_log(name, stream):
            for raw in stream:
                logs[name].append((time.monotonic_ns(), raw.decode(errors="replace")))
        threading.Thread(target=read_log, args=("dock", daemon.stderr), daemon=True).start()
        listener.settimeout(10)
        while b"READY=1" not in listener.recv(4096):
            pass
        ctl = lambda *args, **kw: subprocess.run([os.path.join(BUILD, "puckctl"), "--socket", sock, *args],
                                                 capture_output=True, text=True, **kw)
        key = next(w for w in ctl("reader", "add", "kitchen").stdout.split() if len(w) == 64)
        key_file = os.path.join(tmp, "reader.key")
        with open(key_file, "w") as f:
            f.write(key + "\n")
        os.chmod(key_file, 0o600)
        node = subprocess.Popen([os.path.join(BUILD, "puck-reader"), "--name", "kitchen", "--key-file", key_file,
                                 "--broker", f"127.0.0.1:{port}", "--reader", f"pn532_uart:{link}"]
                                + (["--poll-interval", NODE_POLL] if NODE_POLL else []),
                                env=env, stderr=subprocess.PIPE)
        procs.append(node)
        threading.Thread(target=read_log, args=("node", node.stderr), daemon=True).start()
        for _ in range(100):
            if "ok:" in ctl("reader", "list").stdout:
                break
            time.sleep(0.1)

        def remove(): tell(emulator, "remove")

        pairer = subprocess.Popen([os.path.join(BUILD, "puckctl"), "--socket", sock, "pair"], stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        present(emulator, UID); time.sleep(0.7); remove(); time.sleep(0.7); present(emulator, UID)
        pairer.wait(timeout=20)
        time.sleep(0.3); remove()

        samples = []
        # Tag entered the field -> the node's 'tag' line, the dock's 'reader kitchen: tag' line,
        # the dock's 'silenced' line (ring stopped).
        stages = {"node": [], "dock heard": [], "ring stopped": []}
        needles = {"node": ("node", "tag …:33:44"), "dock heard": ("dock", "reader kitchen: tag …:33:44"),
                   "ring stopped": ("dock", "silenced")}
        cpu_ticks = os.sysconf("SC_CLK_TCK")
        def cpu(pid):
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / cpu_ticks
        node_cpu0, wall0 = cpu(node.pid), time.monotonic()
        for _ in range(SAMPLES):
            fire = int(time.time()) + 2
            ctl("alarm", "add", time.strftime("%H:%M:%S", time.gmtime(fire)), "--date",
                time.strftime("%Y-%m-%d", time.gmtime(fire)))
            listener.settimeout(10)
            while "STATUS=RINGING" not in listener.recv(4096).decode():
                pass
            # The node polls and watches its empty field for the settled interval; then a random
            # wait longer than a poll cycle (250 ms: a 200 ms interval and its listing), so the
            # tag comes at every phase of the node's poll. A fixed wait presented it at about
            # the same phase every time (docs/BENCHMARKS.md, "The remote path's speed").
            time.sleep(0.8 + random.uniform(0, 0.25))
            listener.setblocking(False)
            try:
                while listener.recv(4096):
                    pass
            except BlockingIOError:
                pass
            listener.settimeout(10)
            t0 = present(emulator, UID)
            while True:
                message = listener.recv(4096).decode()
                if "STATUS=" in message and "RINGING" not in message:
                    samples.append((time.monotonic_ns() - t0) / 1e6)
                    break
            time.sleep(0.05)  # the last log lines through their pipes
            for stage, (source, needle) in needles.items():
                stamp = next((stamp for stamp, line in list(logs[source]) if stamp >= t0 and needle in line), None)
                if stamp is not None:
                    stages[stage].append((stamp - t0) / 1e6)
            time.sleep(0.2)
            remove()
            time.sleep(0.3)
        node_cpu = cpu(node.pid) - node_cpu0
        wall = time.monotonic() - wall0
        print(f"remote scan -> wake-up closed through the loopback broker ({len(samples)}): "
              f"p50 {pct(samples, .5):.1f} ms, p95 {pct(samples, .95):.1f} ms, max {max(samples):.1f} ms "
              f"(target p95 <= 200 ms); emulator: {' '.join(EMULATOR_ARGS) or 'instant'}")
        for stage, values in stages.items():
            if values:
                print(f"  tag entered the field -> {stage} ({len(values)}): p50 {pct(values, .5):.1f} ms, "
                      f"p95 {pct(values, .95):.1f} ms, max {max(values):.1f} ms")
        if os.environ.get("PUCK_BENCH_SAMPLES_OUT"):
            with open(os.environ["PUCK_BENCH_SAMPLES_OUT"], "w") as f:
                json.dump(samples, f)
        print(f"reader node CPU over the run: {1000 * node_cpu:.0f} ms in {wall:.0f} s "
              f"({100 * node_cpu / wall:.1f} % of a core, polling during each wake-up); "
              f"load average {os.getloadavg()}")
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
