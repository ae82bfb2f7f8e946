#!/usr/bin/env python3
"""Home Assistant 2024.3.3 headless, for HomeAssistantHeadlessTests (.ci/check-homeassistant).

    headless.py setup DIR BROKER_PORT HTTP_PORT   a config directory: configuration.yaml (no
        default_config, http on loopback on HTTP_PORT, MQTT client logging at debug so each
        received message is in the log) and .storage/core.config_entries with an MQTT entry for
        the test broker, so no onboarding or config flow is needed.
    headless.py run DIR                           Home Assistant on DIR (--skip-pip), with every
        signal unblocked first: the Swift test runner's children inherit a blocked mask, and
        Home Assistant would never see the SIGTERM that stops it (and writes its registries).
    headless.py check DIR DOCK [RINGING_LABEL ALARM_LABEL]   after Home Assistant stopped: its
        log has no warning or error that names MQTT, PuckAlarm or our topics; the dock's entities
        are in .storage/core.entity_registry; the pre-alarm reached the event entity; with the
        labels, the states Home Assistant saved at its stop (.storage/core.restore_state) have
        the Ringing sensor on with RINGING_LABEL as its `label` attribute, and ALARM_LABEL among
        the Alarms sensor's `alarms`. Prints what it found; exit 1 with the reasons otherwise.
"""
import json
import os
import re
import sys

CONFIGURATION = """\
homeassistant:
  name: PuckAlarm CI
  latitude: 52.5
  longitude: 13.4
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: DE
  currency: EUR
http:
  server_host: 127.0.0.1
  server_port: {http_port}
logger:
  default: info
  logs:
    homeassistant.components.mqtt.client: debug
"""

ENTITIES = [
    "sensor.puckalarm_{dock}_next_alarm",
    "sensor.puckalarm_{dock}_pre_alarm",
    "sensor.puckalarm_{dock}_last_wake_up",
    "sensor.puckalarm_{dock}_bypasses",
    "sensor.puckalarm_{dock}_alarms",
    "binary_sensor.puckalarm_{dock}_ringing",
    "binary_sensor.puckalarm_{dock}_wake_up_open",
    "binary_sensor.puckalarm_{dock}_protected",
    "button.puckalarm_{dock}_bypass",
    "event.puckalarm_{dock}_wake_up",
]


def setup(directory: str, broker_port: str, http_port: str) -> int:
    os.makedirs(os.path.join(directory, ".storage"), exist_ok=True)
    with open(os.path.join(directory, "configuration.yaml"), "w", encoding="utf-8") as file:
        file.write(CONFIGURATION.format(http_port=int(http_port)))
    entry = {
        "entry_id": "puckalarmci0000000000000000mqtt",
        "version": 1,
        "minor_version": 1,
        "domain": "mqtt",
        "title": f"127.0.0.1:{broker_port}",
        "data": {"broker": "127.0.0.1", "port": int(broker_port), "discovery": True},
        "options": {},
        "pref_disable_new_entities": False,
        "pref_disable_polling": False,
        "source": "user",
        "unique_id": None,
        "disabled_by": None,
    }
    entries = {"version": 1, "minor_version": 1, "key": "core.config_entries", "data": {"entries": [entry]}}
    with open(os.path.join(directory, ".storage", "core.config_entries"), "w", encoding="utf-8") as file:
        json.dump(entries, file)
    return 0


def check_labels(directory: str, dock: str, ringing_label: str, alarm_label: str) -> list:
    """What is wrong with the labels in the states Home Assistant saved when it stopped."""
    with open(os.path.join(directory, ".storage", "core.restore_state"), encoding="utf-8") as file:
        saved = {item["state"]["entity_id"]: item["state"] for item in json.load(file)["data"]}
    problems = []
    ringing = saved.get(f"binary_sensor.puckalarm_{dock}_ringing")
    if not ringing or ringing["state"] != "on" or ringing["attributes"].get("label") != ringing_label:
        problems.append(f"the Ringing sensor at the stop is not on with the label {ringing_label!r}: {ringing}")
    alarms = saved.get(f"sensor.puckalarm_{dock}_alarms")
    listed = (alarms or {}).get("attributes", {}).get("alarms") or []
    if alarm_label not in [entry.get("label") for entry in listed]:
        problems.append(f"the Alarms sensor does not list {alarm_label!r}: {alarms}")
    else:
        print(f"Home Assistant: Ringing on with label {ringing['attributes']['label']!r}; "
              f"Alarms {alarms['state']}: {[entry.get('label') for entry in listed]}")
    return problems


def check(directory: str, dock: str, ringing_label: str = None, alarm_label: str = None) -> int:
    problems = []
    with open(os.path.join(directory, "home-assistant.log"), encoding="utf-8", errors="replace") as file:
        log = file.read()
    # Every WARNING/ERROR/CRITICAL record (with its continuation lines) that concerns us: MQTT,
    # discovery, our topics, entities or device. Others (Home Assistant talking about itself on a
    # machine without a frontend) are printed for the record but do not fail the check.
    records = re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", log)
    ours = re.compile(r"mqtt|puckalarm|homeassistant/|discovery|\btag\b", re.IGNORECASE)
    for record in records:
        if re.match(r"\S+ \S+ (WARNING|ERROR|CRITICAL)", record):
            (problems if ours.search(record) else []).append(record.strip()[:600])
            if not ours.search(record):
                print(f"not ours: {record.strip()[:200]}")
    received = len(re.findall(r"Received( retained)? message on puckalarm/dock/", log))
    if received == 0:
        problems.append("Home Assistant's log shows no message received from the dock")
    if not re.search(r"message on puckalarm/dock/[^/]+/event .*pre_alarm", log):
        problems.append("the pre_alarm event is not in Home Assistant's log")
    with open(os.path.join(directory, ".storage", "core.entity_registry"), encoding="utf-8") as file:
        registry = json.load(file)
    found = {entity["entity_id"] for entity in registry["data"]["entities"] if entity["platform"] == "mqtt"}
    for wanted in (name.format(dock=dock) for name in ENTITIES):
        if wanted not in found:
            problems.append(f"{wanted} is not in Home Assistant's entity registry (it has {sorted(found)})")
    if ringing_label is not None:
        problems += check_labels(directory, dock, ringing_label, alarm_label)
    for problem in problems:
        print(f"PROBLEM: {problem}")
    print(
        f"Home Assistant: {len(found)} MQTT entities registered, {received} dock messages received, "
        f"{len(problems)} problem(s)"
    )
    return 1 if problems else 0


def run(directory: str) -> int:
    import signal

    signal.pthread_sigmask(signal.SIG_UNBLOCK, signal.valid_signals())
    os.execv(sys.executable, [sys.executable, "-m", "homeassistant", "-c", directory, "--skip-pip", "--log-no-color"])
    return 70


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2]))
    if len(sys.argv) == 5 and sys.argv[1] == "setup":
        sys.exit(setup(*sys.argv[2:]))
    if len(sys.argv) in (4, 6) and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    print(__doc__, file=sys.stderr)
    sys.exit(64)
