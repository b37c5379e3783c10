"""The executor JVMs of a Spark application on this machine, found by their command lines."""

import os


def executor_pids(app_id):
    """Executor id -> pid of each CoarseGrainedExecutorBackend JVM of application `app_id`."""
    pids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                args = [a.decode(errors="replace") for a in cmdline.read().split(b"\0")]
        except OSError:
            continue
        if "org.apache.spark.executor.CoarseGrainedExecutorBackend" in args and app_id in args:
            executor_id = args[args.index("--executor-id") + 1] if "--executor-id" in args else entry
            pids[executor_id] = int(entry)
    return pids
