#!/usr/bin/env python3
"""Measures a remote scan: tag presented to the kitchen node's (emulated) PN532 -> the dock's
wake-up closed, through a real mosquitto on loopback (issue 11 item 6). Asserts nothing.

  make bench        (builds release binaries first; needs mosquitto installed)

Each sample: an alarm rings on the dock (reader device = none, one remote reader), the node is
polling and has watched its empty field for the settled interval, then the tag is presented;
the time runs on CLOCK_MONOTONIC from the emulator's `present` to the dock's STATUS= datagram
that no longer says RINGING. It includes the node's PN532 poll cadence (libnfc, 115200 baud
emulated), the HMAC, two broker hops and the dock's verification and close (two fsynced writes).
"""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time
from benchlib import pct

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
        link = os.path.join(tmp, "pn532")
        emulator = subprocess.Popen([os.path.join(BUILD, "pn532-emulator"), "--link", link],
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
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
                                  env=env, stderr=subprocess.DEVNULL)
        procs.append(daemon)
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
                                env=env, stderr=subprocess.DEVNULL)
        procs.append(node)
        for _ in range(100):
            if "ok:" in ctl("reader", "list").stdout:
                break
            time.sleep(0.1)

        def present(): emulator.stdin.write(f"present {UID}\n"); emulator.stdin.flush()
        def remove(): emulator.stdin.write("remove\n"); emulator.stdin.flush()

        pairer = subprocess.Popen([os.path.join(BUILD, "puckctl"), "--socket", sock, "pair"], stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        present(); time.sleep(0.7); remove(); time.sleep(0.7); present()
        pairer.wait(timeout=20)
        time.sleep(0.3); remove()

        samples = []
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
            time.sleep(0.8)  # the node polls and watches its empty field for the settled interval
            listener.setblocking(False)
            try:
                while listener.recv(4096):
                    pass
            except BlockingIOError:
                pass
            listener.settimeout(10)
            t0 = time.monotonic()
            present()
            while True:
                message = listener.recv(4096).decode()
                if "STATUS=" in message and "RINGING" not in message:
                    samples.append(1000 * (time.monotonic() - t0))
                    break
            time.sleep(0.2)
            remove()
            time.sleep(0.3)
        node_cpu = cpu(node.pid) - node_cpu0
        wall = time.monotonic() - wall0
        print(f"remote scan -> wake-up closed through the loopback broker ({len(samples)}): "
              f"p50 {pct(samples, .5):.1f} ms, p95 {pct(samples, .95):.1f} ms, max {max(samples):.1f} ms "
              f"(target p95 <= 200 ms)")
        if os.environ.get("PUCK_BENCH_SAMPLES_OUT"):
            with open(os.environ["PUCK_BENCH_SAMPLES_OUT"], "w") as f:
                json.dump(samples, f)
        print(f"reader node CPU over the run: {1000 * node_cpu:.0f} ms in {wall:.0f} s "
              f"({100 * node_cpu / wall:.1f} % of a core, polling during each wake-up)")
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
