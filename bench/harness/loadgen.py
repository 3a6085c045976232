"""Running the C++ load generator and reading its JSON lines."""

import json
import subprocess
import time


class LoadgenError(RuntimeError):
    pass


def run(binary, mode, url, on_event=None, server=None, timeout_s=600, **options):
    """Runs one load pattern; returns its result dict.

    Options map to flags (conns=16 -> --conns 16). on_event gets every progress
    line. With `server`, the server's CPU use over the run is added to the
    result as server_cpu (cores busy on average), so a reader can tell which
    side was saturated.
    """
    argv = [binary, mode, "--url", url]
    for key, value in options.items():
        if value is not None:
            argv += ["--" + key.replace("_", "-"), str(value)]
    cpu0 = server.cpu_seconds() if server else 0.0
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    result = None
    deadline = t0 + timeout_s
    for line in proc.stdout:
        event = json.loads(line)
        if event.get("event") == "result":
            result = event
        elif on_event:
            on_event(event)
        if time.monotonic() > deadline:
            proc.kill()
            break
    proc.wait()
    if result is None:
        raise LoadgenError(f"{mode} against {url} gave no result: {proc.stderr.read().strip()}")
    if server:
        result["server_cpu"] = (server.cpu_seconds() - cpu0) / (time.monotonic() - t0)
    return result
