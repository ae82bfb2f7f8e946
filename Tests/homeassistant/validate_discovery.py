#!/usr/bin/env python3
"""Checks PuckAlarm's MQTT discovery payloads against Home Assistant's own schemas.

Input: a JSON Lines file, one {"topic": ..., "payload": {...}} per discovery message, as the
dock published them. Each payload goes through the DISCOVERY_SCHEMA of the MQTT platform its
topic names (homeassistant/<component>/.../config), the way Home Assistant's discovery does.
Exit 0 when every payload is accepted; otherwise the errors, one per line, and exit 1.
"""
import importlib
import json
import sys


def main(path: str) -> int:
    failures = []
    checked = 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            message = json.loads(line)
            topic, payload = message["topic"], message["payload"]
            component = topic.split("/")[1]
            module = importlib.import_module(f"homeassistant.components.mqtt.{component}")
            schema = module.DISCOVERY_SCHEMA
            try:
                schema(dict(payload))
                checked += 1
            except Exception as error:  # voluptuous.Invalid and friends
                failures.append(f"{topic}: {error}")
    for failure in failures:
        print(failure)
    print(f"{checked} discovery payload(s) accepted by Home Assistant's schemas, {len(failures)} refused")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
