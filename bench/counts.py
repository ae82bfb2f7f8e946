#!/usr/bin/env python3
"""Instruction counts that do not move with the machine's load (issue 12): runs the release puckd
under `valgrind --tool=callgrind`, drives wake-ups through it (a simulated scan ends each), and
reads from the profile the instructions per call of one scan-to-silence reaction, of silencing
the ring alone, and of one next-fire computation over the dock's 100 alarms; then a second
daemon with the real libnfc reader on the PN532 emulator (outside valgrind, so libnfc's timeouts
hold) polls an open wake-up, and one poll cycle is counted. Asserts nothing.

  make bench-counts     (builds release binaries first; needs valgrind)

Recorded with the commit in .build/bench/counts.md. Counts are user-space instructions (Ir):
system calls (the fsyncs) cost time, not instructions, so a regression in Swift code shows here
without wall-clock noise.
"""
import collections, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time
from benchlib import request

BUILD = sys.argv[1] if len(sys.argv) > 1 else ".build/release"
PUCKD, PUCKCTL = os.path.join(BUILD, "puckd"), os.path.join(BUILD, "puckctl")
UID = "04:A2:3B:11:22:33:44"
WAKEUPS = int(os.environ.get("PUCK_BENCH_COUNT_WAKEUPS", "10"))

# What to count: a description and a pattern of the Swift symbol (mangled).
FUNCTIONS = [
    ("scan → silence: Enforcement.tagScanned (decide, silence, save, record)",
     r"^\$s10PuckDaemon11EnforcementC10tagScanned_5fresh6reader"),
    ("silencing the ring alone: Ringer.silence", r"^\$s10PuckDaemon6RingerC7silenceyyF$"),
    ("next fire over the dock's 100 alarms: ScheduleProgress.nextAlarm", r"^\$s8PuckCore16ScheduleProgressV9nextAlarm5among"),
    ("the wake guard's decision: WakeGuardMachine.handle", r"^\$s8PuckCore16WakeGuardMachineV6handle_2at8settings"),
]

# Counted on a second run, with the real libnfc reader on the emulated PN532 polling an open wake-up.
READER_FUNCTIONS = [
    ("one poll cycle of the reader thread: ReaderPollLoop.poll (select, presence, report)",
     r"^\$s11PuckDevices14ReaderPollLoopV4poll"),
    ("one look for a tag: NFCDevice.selectISO14443A (libnfc's InListPassiveTarget round trip)",
     r"^\$s11PuckDevices9NFCDeviceC15selectISO14443A"),
]
POLL_SECONDS = int(os.environ.get("PUCK_BENCH_COUNT_POLL_SECONDS", "10"))


def parse(path):
    """Inclusive Ir and call count of every called function, from callgrind's call records."""
    names, calls, inclusive = {}, collections.Counter(), collections.Counter()
    callee, pending = None, None
    for line in open(path, errors="replace"):
        if line.startswith(("fn=", "cfn=")):
            key, value = line.rstrip("\n").split("=", 1)
            match = re.match(r"\((\d+)\)(?: (.*))?", value)
            name = value
            if match:
                if match.group(2):
                    names[match.group(1)] = match.group(2)
                name = names.get(match.group(1), value)
            if key == "cfn":
                callee = name
        elif line.startswith("calls="):
            pending = int(line.split("=", 1)[1].split()[0])
        elif pending is not None and line.strip():
            fields = line.split()
            if len(fields) >= 2 and callee:
                calls[callee] += pending
                inclusive[callee] += int(fields[1])
            pending = None
    return calls, inclusive


def start_under_callgrind(tmp, state, sock, out, arguments):
    """puckd under callgrind with the config in `tmp`/c.conf; returns once its socket answers."""
    daemon = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", PUCKD] + arguments + ["--config",
         os.path.join(tmp, "c.conf"), "--state-dir", state, "--socket", sock],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, TZ="UTC", LIBNFC_AUTO_SCAN="false"))
    for _ in range(120):
        if os.path.exists(sock):
            try:
                request(sock, {"v": 1, "command": "status"})
                break
            except OSError:
                pass
        time.sleep(0.5)
    return daemon


def reader_counts(tmp):
    """The reader's poll cycle: puckd under callgrind with the real libnfc on the PN532 emulator (a
    separate process, at full speed), one wake-up open for POLL_SECONDS with no tag. Returns table
    lines."""
    emulator_path = os.path.join(BUILD, "pn532-emulator")
    if not os.path.exists(emulator_path):
        return ["", "pn532-emulator is not built: no reader counts"]
    root = os.path.join(tmp, "reader")
    state, sock, out, link = (os.path.join(root, "state"), os.path.join(root, "s"),
                              os.path.join(root, "callgrind.out"), os.path.join(root, "pn532"))
    os.makedirs(state)
    emulator = subprocess.Popen([emulator_path, "--link", link], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, text=True)
    time.sleep(0.3)
    with open(os.path.join(root, "c.conf"), "w") as f:
        f.write(f"[audio]\ndevice = null\n[reader]\ndevice = pn532_uart:{link}\n")
    with open(os.path.join(state, "pairing.json"), "w") as f:
        json.dump({"schemaVersion": 1, "payload": {"uid": UID, "pairedAt": "2026-01-01T00:00:00Z"}}, f)
    os.chmod(os.path.join(state, "pairing.json"), 0o600)
    daemon = start_under_callgrind(root, state, sock, out, [])
    try:
        fire = int(time.time()) + 4
        request(sock, {"v": 1, "command": "alarm.add", "time": time.strftime("%H:%M:%S", time.gmtime(fire)),
                       "date": time.strftime("%Y-%m-%d", time.gmtime(fire))})
        deadline = time.monotonic() + 30
        while not request(sock, {"v": 1, "command": "status"})["status"]["guards"]:
            if time.monotonic() > deadline:
                raise TimeoutError("the alarm did not ring under valgrind")
            time.sleep(0.2)
        time.sleep(POLL_SECONDS)
        reader = next(d for d in request(sock, {"v": 1, "command": "status"})["status"]["devices"]
                      if d["name"] == "reader")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
        emulator.terminate()
        emulator.wait()
    calls, inclusive = parse(out)
    return ["", f"The reader, {POLL_SECONDS} s of an open wake-up polling the emulated PN532 with no tag "
            f"(reader state at the end: {reader['state']}, {reader.get('detail', '')}):", ""] + table(
        READER_FUNCTIONS, calls, inclusive)


def table(functions, calls, inclusive):
    """A table of instructions per call of each (description, symbol pattern) in `functions`."""
    lines = ["| what | calls | instructions per call |", "| --- | --- | --- |"]
    for description, pattern in functions:
        matched = [name for name in calls if re.search(pattern, name)]
        count = sum(calls[name] for name in matched)
        total = sum(inclusive[name] for name in matched)
        per_call = f"{total // count:,}" if count else "not called (inlined?)"
        lines.append(f"| {description} | {count} | {per_call} |")
    return lines


def main():
    if not shutil.which("valgrind"):
        print("valgrind is not installed (apt-get install valgrind); no counts")
        return
    os.makedirs(os.path.join(".build", "bench"), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="puck-counts-")
    state, sock, out = os.path.join(tmp, "state"), os.path.join(tmp, "s"), os.path.join(tmp, "callgrind.out")
    os.makedirs(state)
    with open(os.path.join(tmp, "c.conf"), "w") as f:
        f.write("[audio]\ndevice = null\n[enforcement]\nretry_delay = 60s\n")
    days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    alarms = [{"id": i + 1, "time": f"{(i * 7) % 24:02d}:{(i * 13) % 60:02d}", "days": [days[i % 7]],
               "label": "", "enabled": True, "requiresPuck": True} for i in range(100 - WAKEUPS)]
    with open(os.path.join(state, "alarms.json"), "w") as f:
        json.dump({"schemaVersion": 1, "payload": {"alarms": alarms, "nextID": len(alarms) + 1}}, f)
    with open(os.path.join(state, "pairing.json"), "w") as f:
        json.dump({"schemaVersion": 1, "payload": {"uid": UID, "pairedAt": "2026-01-01T00:00:00Z"}}, f)
    for name in ("alarms.json", "pairing.json"):
        os.chmod(os.path.join(state, name), 0o600)
    daemon = start_under_callgrind(tmp, state, sock, out, ["--simulate"])
    try:
        for _ in range(WAKEUPS):
            # Under valgrind a request takes a while: leave the alarm time enough to be ahead.
            fire = int(time.time()) + 4
            added = request(sock, {"v": 1, "command": "alarm.add", "time": time.strftime("%H:%M:%S", time.gmtime(fire)),
                                   "date": time.strftime("%Y-%m-%d", time.gmtime(fire))})
            assert added.get("ok"), added
            deadline = time.monotonic() + 30
            while not request(sock, {"v": 1, "command": "status"})["status"]["guards"]:
                if time.monotonic() > deadline:
                    raise TimeoutError("the alarm did not ring under valgrind")
                time.sleep(0.2)
            reply = request(sock, {"v": 1, "command": "scan", "uid": UID})
            assert reply.get("ok"), reply
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    calls, inclusive = parse(out)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"Instructions (Ir) per call, callgrind, release build, commit {commit}, {WAKEUPS} wake-ups:", ""]
    lines += table(FUNCTIONS, calls, inclusive)
    lines += reader_counts(tmp)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(".build", "bench", "counts.md"), "w") as f:
        f.write(text)
    print(text)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
