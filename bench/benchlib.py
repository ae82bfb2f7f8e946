"""What the benchmark scripts share: a control-socket client and percentiles."""
import json, socket


def request(path, obj):
    """One request on puckd's control socket; the final reply line, decoded."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall((json.dumps(obj) + "\n").encode())
    data = b""
    while not data.endswith(b"\n") or b'"ok"' not in data.splitlines()[-1]:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    s.close()
    return json.loads(data.splitlines()[-1])


def pct(values, p):
    """The `p` quantile (0-1) of `values`, nearest rank."""
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]
