#!/usr/bin/env python3
"""The table of scripts/validate-host.sh: from its per-run lines (runs.tsv) and skeleton
predictions (skeletons.tsv), one row per program, class and rank count with the median measured
time and its spread, the median replay prediction and the skeleton's, and their ratios
(prediction / measured). Writes table.tsv and table.md into --out and prints the markdown, then
the median and worst |prediction / measured - 1| of each kind of prediction."""
import argparse
import csv
import datetime
import os
import platform
import statistics
import subprocess


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def num(v):
    return None if v in ("", "-", None) else float(v)


def ratio(pred, meas):
    return pred / meas if pred is not None and meas else None


def fmt(v, digits=4):
    return "-" if v is None else f"{v:.{digits}f}"


def host_lines():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mpich = subprocess.run(["mpichversion"], capture_output=True, text=True).stdout.split("\n")[0]
        mpich = " ".join(mpich.split())
    except OSError:
        mpich = "MPICH version unknown"
    return platform.node(), cpu, os.cpu_count(), mpich


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True)
    ap.add_argument("--skeletons", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--loads", required=True)
    a = ap.parse_args()

    runs = read_tsv(a.runs)
    skeletons = {(s["program"], s["class"], s["ranks"]): (num(s["skeleton_s"]), num(s.get("skeleton_npb_s")))
                 for s in read_tsv(a.skeletons)}
    groups = {}
    for r in runs:
        groups.setdefault((r["program"], r["class"], r["ranks"]), []).append(r)

    rows = []
    for (prog, cls, n), rs in groups.items():
        measured = [float(r["measured_s"]) for r in rs]
        med = statistics.median(measured)
        npb = [num(r["npb_time_s"]) for r in rs if num(r["npb_time_s"]) is not None]
        replay = statistics.median(float(r["replay_s"]) for r in rs)
        wall = statistics.median(float(r["replay_wall_s"]) for r in rs)
        skel, skel_npb = skeletons.get((prog, cls, n), (None, None))
        npb_med = statistics.median(npb) if npb else None
        rows.append({
            "program": prog if cls == "-" else f"NPB {prog.upper()}",
            "class": cls,
            "ranks": int(n),
            "runs": len(rs),
            "load": statistics.median(float(r["load"]) for r in rs),
            "measured_s": med,
            "measured_min_s": min(measured),
            "measured_max_s": max(measured),
            "npb_time_s": npb_med,
            "mpi_share": statistics.median(float(r["mpi_share"]) for r in rs),
            "cpu_per_wall": statistics.median(float(r.get("cpu_per_wall") or 1) for r in rs),
            "replay_s": replay,
            "replay_ratio": ratio(replay, med),
            "replay_wall_s": wall,
            "replay_wall_ratio": ratio(wall, med),
            "skeleton_s": skel,  # the whole skeleton, against the span
            "skeleton_ratio": ratio(skel, med),
            "skeleton_npb_s": skel_npb,  # its timed part, against NPB's own time
            "skeleton_npb_ratio": ratio(skel_npb, npb_med),
        })
    rows.sort(key=lambda r: (r["class"] != "-", r["program"], r["class"], r["ranks"]))

    cols = list(rows[0].keys()) if rows else []
    with open(os.path.join(a.out, "table.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(
                str(r[c]) if isinstance(r[c], (int, str)) else fmt(r[c], 6) for c in cols) + "\n")

    node, cpu, ncpu, mpich = host_lines()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md = [
        f"Host `{node}`: {cpu}, {ncpu} logical CPUs; {mpich}; {when}.",
        f"Machine file: `{a.machine}`.",
        "",
        "| started (UTC) | programs | ranks | classes | runs | load average at the start | at the end |",
        "|---|---|---|---|---:|---|---|",
    ]
    overloaded = False
    for piece in read_tsv(a.loads):
        md.append(f"| {piece['started']} | {piece['programs']} | {piece['ranks']} | {piece['classes']} | "
                  f"{piece['runs']} | {piece['load_start']} | {piece['load_end']} |")
        overloaded |= any(float(v) > 1 for v in (piece["load_start"].split(",")[0], piece["load_end"].split(",")[0]))
    if overloaded:
        md += ["", "**Warning: the 1-minute load average was above 1**: other work shared the cores, so the "
               "measured times include waiting for a CPU (and MPICH's busy-polling ranks lose their partner for "
               "whole scheduler time slices), which mgen does not model."]
    md += [
        "",
        "Measured: span from MPI_Init's return to MPI_Finalize's entry, slowest rank, from the traces "
        "(`mgen trace stats`), median of the runs [min-max]. Replay: `mgen replay -c MACHINE --ppn N` "
        "(recorded CPU time as computation); replay (wall): `--compute wall` (recorded wall time as "
        "computation: what is left is the model of MPI). Ratios are prediction / measured. NPB's own s: the "
        "\"Time in seconds\" NPB prints (its timed iterations only); skeleton s: `mgen nas KERNEL --class C -n N "
        "--ppn N`'s timed part (its npb_time_s), compared with NPB's own time (table.tsv also has the whole "
        "skeleton against the span). In MPI: "
        "the slowest rank's share of the span inside MPI calls. CPU/wall: its CPU time over wall time between "
        "MPI calls (below 1: it waited for a CPU while computing). Load: 1-minute load average when the runs started.",
        "",
        "| program | class | ranks | runs | load | measured s [min-max] | in MPI | CPU/wall | replay s | ratio "
        "| replay (wall) s | ratio | NPB's own s | skeleton s | ratio |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        md.append(
            f"| {r['program']} | {r['class']} | {r['ranks']} | {r['runs']} | {r['load']:.1f} | "
            f"{r['measured_s']:.4f} [{r['measured_min_s']:.4f}-{r['measured_max_s']:.4f}] | "
            f"{r['mpi_share']:.0%} | {r['cpu_per_wall']:.2f} | {r['replay_s']:.4f} | {fmt(r['replay_ratio'], 2)} | "
            f"{r['replay_wall_s']:.4f} | {fmt(r['replay_wall_ratio'], 2)} | {fmt(r['npb_time_s'], 2)} | "
            f"{fmt(r['skeleton_npb_s'])} | {fmt(r['skeleton_npb_ratio'], 2)} |")

    def summary(key, label):
        have = [(abs(r[key] - 1), r) for r in rows if r[key] is not None]
        if not have:
            return f"{label}: no rows"
        errs = [e for e, _ in have]
        worst_e, worst = max(have, key=lambda x: x[0])
        ratios = [r[key] for _, r in have]
        name = f"{worst['program']}{'' if worst['class'] == '-' else ' ' + worst['class']} at {worst['ranks']}"
        return (f"{label}: median |error| {statistics.median(errs):.1%}, worst {worst_e:.1%} ({name}, "
                f"ratio {worst[key]:.2f}); ratios {min(ratios):.2f} to {max(ratios):.2f} over {len(have)} rows")

    md += ["", summary("replay_ratio", "Replay") + ".  ",
           summary("replay_wall_ratio", "Replay (wall)") + ".  ",
           summary("skeleton_npb_ratio", "Skeleton (timed part / NPB's own time)") + ".  ",
           summary("skeleton_ratio", "Skeleton (whole / span)") + "."]
    npb_rows = [r for r in rows if r["npb_time_s"] is not None]
    if npb_rows:
        d = [r["npb_time_s"] / r["measured_s"] for r in npb_rows]
        md.append(f"NPB's own timer / trace span: {min(d):.3f} to {max(d):.3f} (NPB times its iterations only, "
                  "without set-up and verification; it prints 2 decimals).")
    text = "\n".join(md) + "\n"
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
