#!/usr/bin/env -S python3 -S
"""A stand-in for smrbench that follows the contract, steered by environment variables:

FAKE_LOG=path            append each invocation's arguments (one JSON list per line)
FAKE_LIST=fail           `--list` exits 2; FAKE_LIST=<json> prints that instead of the default
FAKE_FAIL=rec:how[,...]  for reclaimer `rec`: how = 1 (validation failure, record written),
                         2 (bad input), crash (SIGABRT)
FAKE_INTERRUPT=rec[:SIG] for reclaimer `rec`: send SIG (default SIGINT) to the parent mid-trial,
                         then go on for 3 s; a signal that reaches the fake meanwhile stops it
FAKE_STOP=rec:SIG[:after]  for reclaimer `rec`: as if the fake alone got SIG, mid-trial (no
                         record) or, with `after`, once the trial completed (record written)
Like smrbench, --readers N (below --threads) writes config.readers and reader_workload (searches
only) and metrics.roles (each role's threads, ops, throughput; null without readers), and
--node-pool N [--pool-wait W] writes config.node_pool, pool_wait and metrics.pool.
Like smrbench, a SIGINT, SIGTERM or SIGHUP (unless ignored at start) abandons the trial under way,
leaves no partial record, and exits 128+signal.
FAKE_COMMIT=sha          env.commit of every record and of `--list --json` (default 3f9c2e1)
FAKE_GROUPS=path         append "<own process group> <parent's process group>" per invocation
FAKE_CHECK=rec:message   `--check` (not logged) refuses reclaimer `rec` with exit 2 and that
                         message; it accepts everything else
FAKE_REPLAY=dir          copy the matching record (and timeline) from smrbench_records.jsonl
                         and smrbench_timeline.csv in dir instead of synthesizing one
"""

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

RECLAIMERS = ["none", "qsbr", "ebr", "hp"]
# Shaped like smrbench's: every allocator it knows (null library: not installed here), the
# incompatible pairs with the reason, tunables with their defaults in reclaimer_info.
DEFAULT_LIST = {"data_structures": ["hm_list", "harris_list", "ms_queue"],
                "kinds": {"hm_list": "set", "harris_list": "set", "ms_queue": "queue"},
                "reclaimers": RECLAIMERS,
                "allocators": ["system", "tcmalloc"],
                "allocator_libraries": {"system": "libc", "tcmalloc": None},
                "compatible": [[ds, r] for ds in ["hm_list", "harris_list", "ms_queue"]
                               for r in RECLAIMERS if (ds, r) != ("harris_list", "hp")],
                "incompatible": [["harris_list", "hp", "the data structure traverses unlinked "
                                  "nodes, which this reclaimer cannot protect"]],
                "tunables": {"none": [], "qsbr": [], "ebr": ["advance_every"],
                             "hp": ["slots", "scan_threshold"]},
                "reclaimer_info": {
                    "ebr": {"tunables": ["advance_every (default 64): operations between "
                                         "attempts to advance the epoch"]},
                    "hp": {"tunables": ["slots (default 4): hazard pointers per thread",
                                        "scan_threshold (default 128): retired nodes before "
                                        "a scan"]}}}
BASE_THROUGHPUT = {"none": 10e6, "qsbr": 9e6, "ebr": 8e6, "hp": 5e6}


def arguments():
    p = argparse.ArgumentParser()
    p.add_argument("--list", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--json")
    p.add_argument("--timeline")
    for name in ("ds", "reclaimer", "workload", "allocator"):
        p.add_argument(f"--{name}")
    for name in ("threads", "trials", "seed", "key-range", "stall"):
        p.add_argument(f"--{name}", type=int)
    p.add_argument("--readers", type=int, default=0)
    p.add_argument("--node-pool", type=int)
    p.add_argument("--pool-wait", choices=("busy", "yield"))
    p.add_argument("--duration", type=float)
    p.add_argument("--param", action="append", default=[])
    return p.parse_args()


def synthesize(a, config) -> dict:
    throughput = BASE_THROUGHPUT.get(a.reclaimer, 7e6) * min(a.threads, 2) * (1 + a.seed % 3 / 100)
    ops = int(throughput * a.duration)
    robust = a.reclaimer == "hp"
    per_thread = [ops // a.threads] * a.threads
    roles = None
    if a.readers:       # readers (the last workers) do twice the operations of a writer
        per_thread = [ops // (a.threads + a.readers)] * (a.threads - a.readers) \
            + [2 * ops // (a.threads + a.readers)] * a.readers
        writers = a.threads - a.readers
        roles = {name: {"threads": n, "ops": sum(part), "throughput_ops_s": sum(part) / a.duration}
                 for name, n, part in (("writers", writers, per_thread[:writers]),
                                       ("readers", a.readers, per_thread[writers:]))}
    return {
        "ops": ops, "throughput_ops_s": throughput, "per_thread_ops": per_thread, "roles": roles,
        # a busy-waiting pool is exhausted twice as often as a yielding one
        "pool": None if a.node_pool is None else {
            "capacity": a.node_pool, "exhaustions": 10 * (2 if a.pool_wait == "busy" else 1),
            "wait_s": 0.01, "abandoned": 0, "lost": 0},
        "latency_ns": {"p50": 100, "p99": 900, "p999": 4000, "max": 90000},
        "peak_rss_bytes": 8_000_000 + (0 if robust else 4_000_000) * (1 + a.stall),
        "end_rss_bytes": 7_000_000,
        "avg_unreclaimed_per_op": None if a.reclaimer == "none" else 3.0 if robust else 40.0,
        "peak_unreclaimed": None if a.reclaimer == "none" else 20 if robust else 900,
        "retired": ops // 4, "freed": 0 if a.reclaimer == "none" else ops // 4 - 10,
        "epochs": None if a.reclaimer in ("none", "hp") else 1000, "signals": None, "restarts": None,
        "free_time_ns": None if a.reclaimer == "none" else 1_000_000, "prefill_s": 0.001}


def replay(a, config, directory: Path):
    wanted = {k: config[k] for k in ("ds", "reclaimer", "threads", "seed")}
    for line in (directory / "smrbench_records.jsonl").read_text().splitlines():
        record = json.loads(line)
        if {k: record["config"][k] for k in wanted} == wanted:
            break
    else:
        sys.exit(f"fake smrbench: no fixture record for {wanted}")
    timeline = (directory / "smrbench_timeline.csv").read_text()
    header = json.loads(timeline.splitlines()[0].split(" ", 3)[3])
    if a.timeline and {k: header[k] for k in wanted} == wanted:
        Path(a.timeline).write_text(timeline)
    return record


def handle_stop_signals(json_path: Path):
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, lambda signum, frame: stopped(signum, json_path))


def stopped(signum, json_path):
    """The trial under way is abandoned: no partial record, exit 128+signal."""
    if json_path is not None:
        json_path.unlink(missing_ok=True)
    print(f"smrbench: {signal.Signals(signum).name}: stopped trial 1 of 1 and discarded it; no "
          f"trial had completed, no result written", file=sys.stderr)
    sys.exit(128 + signum)


def fake_env() -> dict:
    """The env of every record, and (less allocator_version) of `--list --json`."""
    return {"cpu": "FakeCPU", "cores": 2, "kernel": "6.1.0", "hostname": "fakehost",
            "compiler": "g++ 12", "build_type": "Release", "flags": "-O3",
            "commit": os.environ.get("FAKE_COMMIT", "3f9c2e1"), "allocator_version": "2.36"}


def main():
    a = arguments()
    if a.check:
        rec, _, message = os.environ.get("FAKE_CHECK", "").partition(":")
        if rec and rec == a.reclaimer:
            print(f"smrbench: {message}", file=sys.stderr)
            sys.exit(2)
        return
    if os.environ.get("FAKE_LOG"):
        with open(os.environ["FAKE_LOG"], "a") as log:
            log.write(json.dumps(sys.argv[1:]) + "\n")
    if os.environ.get("FAKE_GROUPS"):
        with open(os.environ["FAKE_GROUPS"], "a") as log:
            log.write(f"{os.getpgid(0)} {os.getpgid(os.getppid())}\n")
    if a.list:
        listing = os.environ.get("FAKE_LIST")
        if listing == "fail":
            print("smrbench: unknown option --list", file=sys.stderr)
            sys.exit(2)
        env = {k: v for k, v in fake_env().items() if k != "allocator_version"}
        print(listing or json.dumps({**DEFAULT_LIST, "env": env}))
        return
    insert, delete, search = map(int, a.workload.split(","))
    config = {"ds": a.ds, "reclaimer": a.reclaimer,
              "params": dict(p.split("=", 1) for p in a.param), "threads": a.threads,
              "duration_s": a.duration, "key_range": a.key_range,
              "workload": {"insert": insert, "delete": delete, "search": search},
              "readers": a.readers,
              "reader_workload": {"insert": 0, "delete": 0, "search": 100} if a.readers else None,
              "allocator": a.allocator, "stalled_threads": a.stall, "seed": a.seed,
              "node_pool": a.node_pool,
              "pool_wait": (a.pool_wait or "yield") if a.node_pool is not None else None,
              "prefill": a.key_range // 2}
    failures = dict(item.split(":") for item in os.environ.get("FAKE_FAIL", "").split(",") if item)
    how = failures.get(a.reclaimer)
    if how == "2":
        print(f"smrbench: unknown reclaimer '{a.reclaimer}'", file=sys.stderr)
        sys.exit(2)
    if a.readers >= a.threads:
        print(f"smrbench: --readers {a.readers} leaves no writer: it must be below --threads "
              f"{a.threads} (the others run --workload)", file=sys.stderr)
        sys.exit(2)
    if how == "crash":
        os.kill(os.getpid(), signal.SIGABRT)
    handle_stop_signals(Path(a.json))
    interrupt = os.environ.get("FAKE_INTERRUPT", "").split(":")
    if interrupt[0] == a.reclaimer:
        Path(a.json).write_text('{"schema": "smrbench/1", "trial": 0, "conf')    # half written
        os.kill(os.getppid(), signal.Signals[interrupt[1] if len(interrupt) > 1 else "SIGINT"])
        time.sleep(3)
        Path(a.json).unlink()
    stop = os.environ.get("FAKE_STOP", "").split(":")
    if stop[0] == a.reclaimer and len(stop) == 2:
        stopped(signal.Signals[stop[1]], None)
    if os.environ.get("FAKE_REPLAY"):
        record = replay(a, config, Path(os.environ["FAKE_REPLAY"]))
    else:
        record = {"schema": "smrbench/1", "trial": 0, "config": config, "env": fake_env(),
                  "metrics": synthesize(a, config),
                  "validation": {"ok": how != "1", "detail": "key sum mismatch: 10 != 12"
                                 if how == "1" else "ok"}}
        if a.timeline:
            Path(a.timeline).write_text(
                "# smrbench-timeline 1 " + json.dumps(config) + "\nthread,kind,start_ns,end_ns,value\n"
                "0,epoch_advance,1000,1000,2\n0,garbage,1000,1000,5\n0,batch_free,1100,5100,5\n")
    Path(a.json).write_text(json.dumps(record) + "\n")
    if stop[0] == a.reclaimer and stop[2:] == ["after"]:
        print("smrbench: signal after trial 1: kept its record", file=sys.stderr)
        sys.exit(128 + signal.Signals[stop[1]])
    if how == "1":
        print("smrbench: validation failed: key sum mismatch: 10 != 12", file=sys.stderr)
        sys.exit(1)


main()
