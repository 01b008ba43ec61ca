#!/usr/bin/env python3
"""The search-quality benchmark: samplers side by side on test functions and real
strategies, several budgets, many seeds. Writes one JSON line per run (appending; runs
already in the file are skipped, so an interrupted benchmark continues where it stopped).
A tpeopt sampler's run records the version of its sampler's draws (`sampler_draws`, as a run
directory does); where --out holds runs of a label that this build draws differently, run.py
stops with an error before running anything (a label names one sampler: the runs of a
changed default go to another file, or under another label).
bench/quality/report.py turns the file into docs/benchmarks.md's tables and figures.

  python3 bench/quality/run.py --out bench/results/quality-cpu.jsonl \
      --budgets 2000/100,20000/1000 --seeds 10 --workloads functions \
      --samplers tpe,tpe-optuna,ga,random,cmaes [--jobs 2] [--executor cpu|cuda]

Samplers: tpeopt's through build/bench/quality/quality_server (`tpe` is the default TPE,
`tpe-optuna` the "optuna" preset, `ga`, `random`; `tpe{JSON}` any search.tpe settings, e.g.
'tpe{"preset": "optuna", "multivariate": true}'), run as the pipeline runs them: D batches in
flight (--depth, default the config's search.depth, 2), ask(k + D) after tell(k). The peers
(bench/quality/peers.py) are synchronous, as their libraries are: `cmaes` (population = batch,
IPOP restarts), `optuna` (Optuna's TPESampler defaults), `ngopt` (Nevergrad NGOpt as its
documentation recommends using it: told the budget and num_workers = batch, the space as a
parametrization with bounds, int casting and choices; it picks its algorithm from them). Package versions are printed and recorded with each run.
"""
import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PEERS = ("cmaes", "optuna", "ngopt")  # other libraries' samplers (peers.py); the rest are tpeopt's
sys.path.insert(0, str(HERE))
from peers import CmaEs, NgOpt, OptunaTpe, Penalty  # noqa: E402
from space import Space  # noqa: E402
from suites import SETS  # noqa: E402
from tpeopt_bridge import QualityServer  # noqa: E402
from workloads import TpeoptFunction, all_workloads  # noqa: E402

SERVER = os.environ.get("TPEOPT_QUALITY_SERVER", str(HERE.parents[1] / "build" / "bench" / "quality" / "quality_server"))
TPEOPT_SAMPLERS = {"tpe": {"sampler": "tpe"}, "tpe-optuna": {"sampler": "tpe", "tpe": {"preset": "optuna"}},
                   "ga": {"sampler": "ga"}, "random": {"sampler": "random"}}


def versions():
    out = {}
    for mod in ("numpy", "cmaes", "optuna", "nevergrad", "cocoex"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "?")
        except ImportError:
            pass
    return out


def search_patch(sampler, seed, batch, trials, depth):
    if sampler.startswith("tpe{"):
        search = {"sampler": "tpe", "tpe": json.loads(sampler[3:])}
    else:
        search = dict(TPEOPT_SAMPLERS[sampler])
    search.update({"seed": seed, "batch": batch, "trials": trials})
    if depth:
        search["depth"] = depth
    return {"search": search}


def run_one(job):
    name, sampler, trials, batch, seed, depth, executor = job
    w = all_workloads()[name]
    config, evaluate = w.instance(seed)
    servers = []
    try:
        if evaluate is None:  # evaluated by tpeopt: the functions strategy or a real strategy
            ev = QualityServer(SERVER, config, executor=executor)
            servers.append(ev)
            f_opt = w.f_opt if isinstance(w, TpeoptFunction) else 0.0

            def evaluate(X, part="in"):
                s, v = ev.evaluate(X, part)
                return s - f_opt, v

        probe = QualityServer(SERVER, config)
        space = Space(probe.axes)
        maximize = probe.maximize
        probe.close()
        sign = -1.0 if maximize else 1.0
        t_sampler = t_eval = 0.0
        curve = []
        best, best_x, best_v = np.inf, None, None

        def observe(X, s, v):
            nonlocal best, best_x, best_v
            key = np.where((v <= 0) & np.isfinite(s), sign * s, np.inf)
            i = int(np.argmin(key))
            if key[i] < best:
                best, best_x = float(key[i]), X[i].tolist()

        if sampler in PEERS:
            peer = {"cmaes": lambda: CmaEs(space, seed, batch), "optuna": lambda: OptunaTpe(space, seed, batch),
                    "ngopt": lambda: NgOpt(space, seed, batch, trials)}[sampler]()
            penalty = Penalty()
            done = 0
            while done < trials:
                n = min(batch, trials - done)
                t0 = time.perf_counter()
                X = peer.ask(n)
                t1 = time.perf_counter()
                s, v = evaluate(X)
                t2 = time.perf_counter()
                peer.tell(penalty(sign * s, v))
                t3 = time.perf_counter()
                t_sampler += (t1 - t0) + (t3 - t2)
                t_eval += t2 - t1
                done += n
                observe(X, s, v)
                curve.append([done, best, t_sampler, t_eval])
        else:
            tp = QualityServer(SERVER, config, patch=search_patch(sampler, seed, batch, trials, depth))
            servers.append(tp)
            draws = tp.info["sampler_draws"]
            D = depth or 2
            n_batches = -(-trials // batch)
            asked, queue = 0, []

            def ask():
                nonlocal asked, t_sampler
                n = min(batch, trials - asked)
                t0 = time.perf_counter()
                X = tp.ask(asked, n)
                t_sampler += time.perf_counter() - t0
                queue.append((asked, X))
                asked += n

            for _ in range(min(D, n_batches)):
                ask()
            done = 0
            while queue:
                first, X = queue.pop(0)
                t0 = time.perf_counter()
                s, v = evaluate(X)
                t1 = time.perf_counter()
                tp.tell(first, s, v)
                t_eval += t1 - t0
                t_sampler += time.perf_counter() - t1
                done += len(X)
                observe(X, s, v)
                curve.append([done, best, t_sampler, t_eval])
                if asked < trials:
                    ask()
        record = {"workload": name, "sampler": sampler, "trials": trials, "batch": batch, "seed": seed,
                  "depth": depth if sampler not in PEERS else 1,
                  "best": best if np.isfinite(best) else None, "best_params": best_x, "curve": curve,
                  "sampler_s": t_sampler, "eval_s": t_eval, "maximize": maximize, "versions": versions()}
        if sampler not in PEERS:
            record["sampler_draws"] = draws
        if w.holdout and best_x is not None:
            s, v = evaluate(np.array([best_x]), "out")
            record["out_of_sample"] = float(sign * s[0]) if v[0] <= 0 and np.isfinite(s[0]) else None
        return record
    finally:
        for s in servers:
            s.close()
        os.unlink(config)


def build_draws(samplers, workload):
    """The sampler draws version this build gives each tpeopt sampler label."""
    out = {}
    config, _ = all_workloads()[workload].instance(0)
    try:
        for s in samplers:
            if s not in PEERS:
                server = QualityServer(SERVER, config, patch=search_patch(s, 0, 10, 10, 0))
                out[s] = server.info["sampler_draws"]
                server.close()
    finally:
        os.unlink(config)
    return out


def other_draws(records, draws):
    """{label: (recorded version, count)} of the records whose label this build draws differently."""
    out = {}
    for r in records:
        s = r["sampler"]
        if s in draws and r.get("sampler_draws", draws[s]) != draws[s]:
            version, n = out.get(s, (r["sampler_draws"], 0))
            out[s] = (version, n + 1)
    return out


def key(r):
    return (r["workload"], r["sampler"], r["trials"], r["batch"], r["seed"], r.get("depth") or 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budgets", default="2000/100,20000/1000")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--workloads", default="held-out",
                    help="functions, strategies (the tuning set's too), all, a set of bench/quality/suites.py "
                         "(tuning, held-out, held-out-large, tuning-strategies, held-out-strategies), or a comma "
                         "list of workload names")
    ap.add_argument("--samplers", default="tpe,tpe-optuna,ga,random,cmaes")
    ap.add_argument("--depth", type=int, default=0, help="tpeopt samplers' batches in flight (0: the config's, 2)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--executor", default="cpu")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    a = ap.parse_args()
    ws = all_workloads()
    if a.list:
        for n, w in ws.items():
            print(f"{n:28s} {w.kind:9s} {w.label}")
        return
    if a.workloads in ("functions", "strategies", "all"):
        names = [n for n, w in ws.items() if a.workloads == "all" or w.kind + "s" == a.workloads]
    elif a.workloads in SETS:
        names = list(SETS[a.workloads])
    else:
        names = a.workloads.split(",")
        for n in names:
            if n not in ws:
                sys.exit(f"run.py: --workloads: unknown workload {n!r} (--list shows them)")
    budgets = [tuple(int(x) for x in b.split("/")) for b in a.budgets.split(",")]
    samplers = a.samplers.split(",") if not a.samplers.startswith("tpe{") else [a.samplers]
    print("versions:", json.dumps(versions()), flush=True)
    records = []
    if os.path.exists(a.out):
        with open(a.out) as f:
            records = [json.loads(line) for line in f if line.strip()]
    draws = build_draws(samplers, names[0])
    for s, (version, n) in other_draws(records, draws).items():
        sys.exit(f"run.py: {a.out} holds {n} runs of sampler {s!r} drawn by version {version}; this build "
                 f"draws version {draws[s]}: write to another --out (or name the sampler apart)")
    done = {key(r) for r in records}
    jobs = []
    # Seed by seed: a benchmark cut short keeps every (workload, sampler) pair at the same
    # number of seeds.
    for trials, batch in budgets:
        for seed in range(a.first_seed, a.first_seed + a.seeds):
            for n in names:
                for s in samplers:
                    depth = 1 if s in PEERS else a.depth
                    job = (n, s, trials, batch, seed, depth, a.executor)
                    if (n, s, trials, batch, seed, depth) not in done:
                        jobs.append(job)
    print(f"{len(jobs)} runs to do", flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    with mp.Pool(a.jobs) as pool, open(a.out, "a") as out:
        for r in pool.imap_unordered(run_one, jobs, chunksize=1):
            out.write(json.dumps(r) + "\n")
            out.flush()
            print(f"{r['workload']:24s} {r['sampler']:12s} {r['trials']}/{r['batch']} seed {r['seed']}: "
                  f"best {r['best']} ({r['sampler_s']:.1f} s sampler, {r['eval_s']:.1f} s eval)", flush=True)


if __name__ == "__main__":
    main()
