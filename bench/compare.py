#!/usr/bin/env python3
"""Benchmark comparison (spec 60 §6): tilesim_bench vs NumPy / PyTorch / OpenBLAS and memcpy.

Imports every bench/peers_*.py next to this file; each defines cases() -> list of dicts
  {"case", "family", "threads", "bench" (exact Google Benchmark name), "numpy", "torch",
   "openblas" (zero-arg callables timing one call, or an object with measure(quick) -> (seconds,
   note) timed in its own process, bench/openblas_peer.py; or None), "memcpy_bytes"}.
Case by case, runs tilesim_bench for the case's benchmark (TILESIM_THREADS = the case's thread
count; the median of repetitions), then times the peers with time.perf_counter (median over
samples) and np.copyto of memcpy_bytes uint8, so each ratio compares times taken within about a
second of each other (this shared host drifts by 15-35% over minutes; tilesim's times taken in
one batch before all the peers' put that drift into the ratios). --rounds N repeats the whole
pass; each case then reports the one round whose tilesim time is the median (all its times from
that round, so its ratios stay ratios of adjacent times). A case may also name a "roofline"
benchmark of tilesim_bench (a plain loop, not a tilesim kernel: what the memory allows), timed
with it and shown as roofline_ns. A case may name an "unchecked" benchmark too: the same kernel
without the pipeline-hazard checker (docs/sync.md), timed with it; bench.json then holds
unchecked_ns and sync_overhead = tilesim_ns / unchecked_ns (issue 22: at most 5). Writes
<build>/bench.json and prints peer_ns / tilesim_ns (above 1 means tilesim is faster).
"""
import argparse
import glob
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
PEERS = ("numpy", "torch", "openblas")


def load_cases(bench_dir, only=None):
    """Cases of every bench/peers_*.py, or of the named ones (--peers pto_instr,formats)."""
    cases = []
    for path in sorted(glob.glob(os.path.join(bench_dir, "peers_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if only is not None and name[len("peers_"):] not in only:
            continue
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            cases.extend(mod.cases())
        except Exception as e:  # one broken peers file must not hide the others
            print(f"warning: {path}: {type(e).__name__}: {e}", file=sys.stderr)
    return cases


def time_call(fn, quick, clock=time.perf_counter):
    """Median seconds per call: warm up, then samples of >= ~2 ms (0.5 ms with --quick).
    clock: time.perf_counter (wall), or time.thread_time (--cpu: this thread's CPU time)."""
    fn()
    target = 5e-4 if quick else 2e-3
    iters = 1
    while True:
        t = clock()
        for _ in range(iters):
            fn()
        dt = clock() - t
        if dt >= target or iters >= 1 << 20:
            break
        iters *= 2
    samples = []
    for _ in range(3 if quick else 7):
        t = clock()
        for _ in range(iters):
            fn()
        samples.append((clock() - t) / iters)
    return statistics.median(samples)


def memcpy_ns(nbytes, quick, buffers, clock=time.perf_counter):
    """Timed anew for every case (next to its tilesim and peer times); the buffers are reused."""
    if nbytes not in buffers:  # page-aligned, as the benchmarks' operands (bench_pto.cpp)
        def aligned():
            raw = np.ones(nbytes + 4096, np.uint8)
            off = (-raw.ctypes.data) % 4096
            return raw[off:off + nbytes]
        buffers[nbytes] = (aligned(), aligned())
    src, dst = buffers[nbytes]
    return time_call(lambda: np.copyto(dst, src), quick, clock) * 1e9


def run_tilesim(exe, names, threads, quick, cpu=False):
    """Median ns per benchmark name from one tilesim_bench run."""
    if not names:
        return {}
    regex = "^(" + "|".join(re.escape(n) for n in sorted(names)) + ")$"
    cmd = [exe, "--benchmark_filter=" + regex, "--benchmark_format=json",
           "--benchmark_repetitions=" + ("3" if quick else "5"),
           "--benchmark_report_aggregates_only=true",
           "--benchmark_min_time=" + ("0.05" if quick else "0.2")]
    env = dict(os.environ, TILESIM_THREADS=str(threads))
    out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
    result = {}
    for b in json.loads(out).get("benchmarks", []):
        # With repetitions only the "median" aggregate is kept; a single run has no aggregates.
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):  # SkipWithError (e.g. an instruction that raises Unsupported)
            continue
        name = re.sub(r"/repeats:\d+$", "", b.get("run_name", b["name"]))
        result[name] = b["cpu_time" if cpu else "real_time"] * UNIT_NS[b.get("time_unit", "ns")]
    return result


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(here), "build", "release"))
    ap.add_argument("--filter", default="", help="regex on case names")
    ap.add_argument("--peers", default=None,
                    help="comma-separated peers files to load (pto_instr = bench/peers_pto_instr.py); "
                         "default: all")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, shorter samples")
    ap.add_argument("--out", default=None, help="default: <build>/bench.json")
    ap.add_argument("--rounds", type=int, default=1, help="passes over the cases (median kept)")
    ap.add_argument("--cpu", action="store_true",
                    help="one-thread cases: CPU time of the timing thread (tilesim_bench cpu_time, "
                         "time.thread_time for the peers) instead of wall time, for a host whose other "
                         "load takes most of the cores (wall times then measure the scheduler); cases "
                         "on more threads keep wall time")
    args = ap.parse_args()

    exe = os.path.join(args.build, "tilesim_bench")
    only = set(args.peers.split(",")) if args.peers else None
    cases = [c for c in load_cases(here, only) if re.search(args.filter, c["case"])]
    if not cases:
        print("no benchmark cases selected", file=sys.stderr)
        return 1
    if not os.path.exists(exe):
        print(f"warning: {exe} not found; tilesim times missing", file=sys.stderr)
    try:
        import torch
    except ImportError:
        torch = None
    rounds = [[] for _ in cases]  # per case: one dict of times per round
    buffers = {}
    for _ in range(max(1, args.rounds)):
        for c, got in zip(cases, rounds):
            threads = c.get("threads", 1)
            cpu = args.cpu and threads == 1
            clock = time.thread_time if cpu else time.perf_counter
            t = {"clock": "cpu" if cpu else "wall"}
            if os.path.exists(exe):
                for field in ("bench", "roofline", "unchecked"):
                    if c.get(field):
                        ns = run_tilesim(exe, {c[field]}, threads, args.quick, cpu).get(c[field])
                        if ns is not None:
                            t["tilesim_ns" if field == "bench" else field + "_ns"] = ns
            for peer in PEERS:
                fn = c.get(peer)
                if fn is None:
                    continue
                if peer == "torch" and torch is not None:
                    torch.set_num_threads(threads)
                if hasattr(fn, "measure"):  # timed in its own process (bench/openblas_peer.py)
                    secs, note = fn.measure(args.quick, cpu)
                    t[peer + "_ns"] = secs * 1e9
                    t[peer + "_note"] = note
                else:
                    t[peer + "_ns"] = time_call(fn, args.quick, clock) * 1e9
            if c.get("memcpy_bytes"):
                t["memcpy_ns"] = memcpy_ns(int(c["memcpy_bytes"]), args.quick, buffers, clock)
            got.append(t)
    records = []
    for c, got in zip(cases, rounds):
        rec = {"case": c["case"], "family": c["family"], "threads": c.get("threads", 1),
               "tilesim_ns": None}
        timed = [t for t in got if "tilesim_ns" in t]
        if len(timed) < len(got):
            print(f"warning: {c['case']}: no tilesim_bench result for {c.get('bench')!r} in "
                  f"{len(got) - len(timed)} of {len(got)} rounds", file=sys.stderr)
        if timed:  # the round with the median tilesim time (the lower middle one of an even count)
            timed.sort(key=lambda t: t["tilesim_ns"])
            rec.update(timed[(len(timed) - 1) // 2])
        elif got:
            rec.update({k: v for k, v in got[0].items() if k != "tilesim_ns"})
        if rec.get("unchecked_ns") and rec.get("tilesim_ns"):
            rec["sync_overhead"] = rec["tilesim_ns"] / rec["unchecked_ns"]
        records.append(rec)

    out = args.out or os.path.join(args.build, "bench.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as fh:
        json.dump(records, fh, indent=1)

    cols = [p for p in PEERS + ("memcpy", "roofline", "unchecked") if any(p + "_ns" in r for r in records)]
    width = max(len(r["case"]) for r in records)
    print(f"{'case':<{width}}  thr  {'tilesim_us':>10}  " + "  ".join(f"{p + '/ts':>10}" for p in cols))
    for r in records:
        ts = r["tilesim_ns"]
        cells = []
        for p in cols:
            v = r.get(p + "_ns")
            cells.append(f"{v / ts:10.2f}" if v is not None and ts else f"{'-':>10}")
        tss = f"{ts / 1e3:10.1f}" if ts else f"{'-':>10}"
        print(f"{r['case']:<{width}}  {r['threads']:>3}  {tss}  " + "  ".join(cells))
    notes = sorted({r[k] for r in records for k in r if k.endswith("_note")})
    for n in notes:
        print(f"note: {n}")
    print(f"wrote {out} ({len(records)} cases); ratios are peer_ns / tilesim_ns, above 1 = tilesim faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
