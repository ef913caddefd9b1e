#!/usr/bin/env python3
"""Checks a `mgen sweep` CSV against the configurations it names and against direct runs.

Usage: sweep_check.py CSV MGEN KEY=V1,V2 [KEY=V1,V2 ...] -- COMMAND...

- the rows are the cross product of the axes in order, the last key varying fastest, all ok;
- rows 0, the middle one and the last equal `mgen COMMAND --set KEY=V ... --report` run
  directly (prediction to the picosecond, events, messages, bytes, hops, NPB time);
- the swept keys reach the runs: the predictions are not all equal.
"""
import csv
import itertools
import json
import subprocess
import sys
import tempfile


def split_values(text):
    out, cur, depth = [], "", 0
    for c in text:
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        cur += c
    out.append(cur)
    return out


def main():
    sep = sys.argv.index("--")
    path, mgen = sys.argv[1], sys.argv[2]
    axes = []
    for a in sys.argv[3:sep]:
        key, values = a.split("=", 1)
        axes.append((key, split_values(values)))
    command = sys.argv[sep + 1:]
    with open(path) as f:
        rows = list(csv.DictReader(f))
    combos = list(itertools.product(*[v for _, v in axes]))
    bad = 0
    if len(rows) != len(combos):
        print(f"FAIL: {len(rows)} rows for {len(combos)} configurations")
        return 1
    for i, (row, combo) in enumerate(zip(rows, combos)):
        got = [row[k] for k, _ in axes]
        if row["config"] != str(i) or got != list(combo) or row["status"] != "ok":
            print(f"FAIL: row {i}: config {row['config']} {got} {row['status']}, wanted {i} {list(combo)} ok")
            bad += 1
    for i in sorted({0, len(combos) // 2, len(combos) - 1}):
        with tempfile.NamedTemporaryFile(suffix=".json") as rep:
            args = [mgen, command[0]]
            for (key, _), value in zip(axes, combos[i]):
                args += ["--set", f"{key}={value}"]
            args += ["--report", rep.name] + command[1:]
            subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
            direct = json.load(open(rep.name))
        for field in ("predicted_ps", "events", "messages", "bytes", "packet_hops"):
            if str(direct[field]) != rows[i][field]:
                print(f"FAIL: row {i} {field}: sweep {rows[i][field]}, direct run {direct[field]}")
                bad += 1
        if "npb_time_s" in direct and abs(float(rows[i]["npb_time_s"]) / direct["npb_time_s"] - 1) > 1e-8:
            print(f"FAIL: row {i} npb_time_s: sweep {rows[i]['npb_time_s']}, direct run {direct['npb_time_s']}")
            bad += 1
        print(f"ok: row {i} equals the direct run {' '.join(args[1:])}")
    if len({r["predicted_ps"] for r in rows}) < 2:
        print("FAIL: every configuration predicted the same time: the swept keys did not reach the runs")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
