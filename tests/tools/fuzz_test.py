#!/usr/bin/env python3
"""Seeded mutation fuzzing of mgen's two input readers: machine files and trace sets.

Takes the shipped configs (configs/*.toml) and the recorded trace set of the golden tests
(tests/golden/traces/halo4, format version 1, and the same set rewritten as version 2 with a run
identifier), applies seeded mutations and runs `mgen info -c FILE` or `mgen replay DIR` /
`mgen trace stats DIR` on each with a timeout. Every case must end in one of:

  ok        exit 0 (the mutation left a valid input, or one the reader takes as it is)
  refused   exit 2, `mgen: error: FILE:LINE...` (configs; `FILE: KEY:` for a key the machine
            needs that the file does not write, checked to be absent) or `mgen: error: FILE: rank R: offset O:`
            (traces; `FILE: offset O:` where the header itself is bad, `DIR: no trace of rank`
            for a set with a rank missing)
  replay    exit 3, `mgen replay: the replay failed: ...` naming a rank (a trace that is
            well-formed but asks for something MPI refuses: a peer beyond the world, a deadlock)

and never in a signal, a timeout, another exit status or a message without a position.

  fuzz_test.py MGEN SOURCE_DIR [--seed N] [--configs N] [--traces N] [--keep DIR]

Prints the count of each outcome per input kind (the figures docs/reliability.md quotes) and
exits 1 if any case failed, with the failing inputs kept under --keep (or a temporary folder)
and their command lines printed so that each can be run again by hand.
"""
import argparse
import collections
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

TIMEOUT_S = 20

# ---------------------------------------------------------------- config mutations

WRONG_VALUES = ['"text"', "[1, 2]", "true", "{ a = 1 }", "3.5", '"1XB"', '""', "[]", '"-5ns"', '"nan"']
BAD_NUMBERS = ["-1", "0", "-0", "1e308", "99999999999999999999", "nan", "inf", "-inf", "4294967297",
               "18446744073709551616", "0x7fffffffffffffff", "1.5"]


def mutate_config(text, rng):
    lines = text.split("\n")
    kind = rng.choice(["flip", "truncate", "dup_line", "del_line", "number", "wrong_type", "huge_unit",
                       "garbage_line", "swap_lines"])
    value_lines = [i for i, l in enumerate(lines) if "=" in l and not l.lstrip().startswith("#")]
    if kind == "flip":
        b = bytearray(text.encode())
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.choice(b"=[]{}\"'#\n.,-0123456789abcxyz \t\\\x00\xff")
        return kind, bytes(b)
    if kind == "truncate":
        return kind, text.encode()[: rng.randrange(len(text))]
    if kind == "dup_line":
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == "del_line":
        del lines[rng.randrange(len(lines))]
    elif kind == "swap_lines":
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "garbage_line":
        lines.insert(rng.randrange(len(lines)), rng.choice(["[", "= 3", "x =", "[[a]]", "a.b.c = 1", "\"", "k = \"",
                                                            "[machine]", "router = 1", "dims = [0, 0, 0]"]))
    elif value_lines:
        i = rng.choice(value_lines)
        key, _, value = lines[i].partition("=")
        if kind == "number" and re.search(r"\d+(\.\d+)?", value):
            value = re.sub(r"\d+(\.\d+)?", rng.choice(BAD_NUMBERS), value, count=1)
        elif kind == "huge_unit" and re.search(r"\d+(\.\d+)?\s*[A-Za-z/]+", value):
            value = re.sub(r"\d+(\.\d+)?", rng.choice(["0", "1e40", "99999999999999999", "0.0000001", "-3"]), value,
                           count=1)
        else:
            kind = "wrong_type"
            value = " " + rng.choice(WRONG_VALUES)
        lines[i] = key + "=" + value
    return kind, "\n".join(lines).encode()


CONFIG_MESSAGE = re.compile(r"^mgen: error: (?P<file>[^:\n]+):(?P<line>\d+)(:\d+)?: ", re.M)
UNWRITTEN_KEY = re.compile(r"^mgen: error: [^:\n]+\.toml: (?P<key>[a-z_]+\.[a-z_]+): ", re.M)

# ---------------------------------------------------------------- trace mutations

HEADER_V1 = 96
HEADER_V2 = 112


def blocks(data, start):
    """(offset, length) of each block that fits the file (payload offset = offset + 8)."""
    out, pos = [], start
    while pos + 8 <= len(data):
        n = struct.unpack_from("<I", data, pos)[0]
        if pos + 8 + n > len(data):
            break
        out.append((pos, n))
        pos += 8 + n
    return out


def reseal(data, start):
    """Rewrites every block's CRC, so that a mutation inside a payload reaches the decoder."""
    data = bytearray(data)
    for pos, n in blocks(data, start):
        struct.pack_into("<I", data, pos + 4, zlib.crc32(bytes(data[pos + 8:pos + 8 + n])))
    return bytes(data)


def to_v2(data, run_id):
    """A version 1 trace rewritten as version 2: the run identifier after the 96-byte header."""
    head = bytearray(data[:HEADER_V1])
    struct.pack_into("<HH", head, 8, 2, HEADER_V2)
    return bytes(head) + run_id + data[HEADER_V1:]


def header_bytes(data):
    return struct.unpack_from("<H", data, 10)[0]


def mutate_trace_set(files, rng, other_run):
    """Mutates the set {name: bytes (None: a directory)} in place; returns the mutation's name."""
    names = sorted(f for f, d in files.items() if d is not None and len(d) >= 32)
    if not names:
        return "none"
    name = rng.choice(names)
    data = bytearray(files[name])
    start = min(header_bytes(data), len(data))
    payload = [p for p, _ in blocks(data, start)]
    kind = rng.choice(["flip", "flip_sealed", "truncate", "header_field", "varint_sealed", "cut_sealed",
                       "dup_sealed", "set_file"])
    if kind == "flip":
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(len(data)):]
    elif kind == "header_field":
        offset, fmt, values = rng.choice([
            (8, "<H", [0, 2 if start == HEADER_V1 else 1, 3, 65535]),
            (10, "<H", [0, 95, 96, 112, 113, 65535]),
            (12, "<I", [1, 3, 4, 2**31, 2**32 - 1]),
            (16, "<I", [0, 1, 2, 3, 5, 8, 2**32 - 1]),
            (20, "<I", [1, 2**32 - 1]),
            (24, "<Q", [0, 2**63, 2**64 - 1]),
        ])
        struct.pack_into(fmt, data, offset, rng.choice(values))
    elif kind == "set_file":
        sub = rng.choice(["delete", "copy", "other_run", "rename", "empty", "directory"])
        if sub == "empty":
            files[name] = b""
            return "set_empty"
        if sub == "directory":  # a directory named like a trace (None: written as a directory)
            files["rank-%d.mgt" % rng.randint(0, 5)] = None
            return "set_directory"
        if sub == "delete":
            del files[name]
            return "set_delete"
        if sub == "copy":
            files["rank-%d.mgt" % rng.randint(4, 9)] = bytes(data)
            return "set_copy"
        if sub == "rename":
            files["renamed.mgt"] = files.pop(name)
            return "set_rename"
        if name in other_run:
            files[name] = other_run[name]
        return "set_other_run"
    elif payload:
        pos = rng.choice(payload) + 8
        end = pos + struct.unpack_from("<I", data, pos - 8)[0]
        at = rng.randrange(pos, end)
        if kind == "flip_sealed":
            data[at] = rng.randrange(256)
        elif kind == "varint_sealed":  # an over-long or huge number
            data[at:at + 1] = bytes(rng.choice([[0xff] * 10, [0xff] * 8 + [0x7f], [0x80] * 3 + [0x01],
                                                [0xfe, 0xff, 0xff, 0xff, 0x0f], [0x7f]]))
        elif kind == "cut_sealed":
            del data[at:min(end, at + rng.randint(1, 8))]
        else:  # dup_sealed
            n = rng.randint(1, 16)
            data[at:at] = data[at:min(end, at + n)]
        grown = len(data) - len(files[name])
        struct.pack_into("<I", data, pos - 8, struct.unpack_from("<I", data, pos - 8)[0] + grown)
        data = bytearray(reseal(bytes(data), start))
    files[name] = bytes(data)
    return kind


TRACE_REFUSED = re.compile(
    r"^mgen: error: (?:\S+\.mgt: (?:rank \d+: )?offset \d+: |\S+: no trace of (?:rank \d|\d+ ranks: )|\S+: no trace files)", re.M)
REPLAY_FAILED = re.compile(r"^mgen replay: the replay failed: .*rank", re.M | re.S)

# ---------------------------------------------------------------- running


def run(cmd):
    """(outcome, exit status, output): outcome is 'signal', 'timeout' or None (classified later)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_S,
                           env=dict(os.environ, MGEN_HUGEPAGES="0"))
    except subprocess.TimeoutExpired as e:
        return "timeout", None, (e.output or b"").decode(errors="replace")
    out = p.stdout.decode(errors="replace")
    if p.returncode < 0:
        return "signal", p.returncode, out
    return None, p.returncode, out


def classify_config(rc, out, text):
    if rc == 0:
        return "ok"
    if rc == 2 and CONFIG_MESSAGE.search(out):
        return "refused"
    # A key the machine needs and the file does not write has no line: the file is named, and
    # the key must indeed be absent.
    m = UNWRITTEN_KEY.search(out)
    if rc == 2 and m and not re.search(r"^\s*" + re.escape(m.group("key").split(".")[-1]) + r"\s*=", text, re.M):
        return "refused"
    return "bad"


def classify_trace(rc, out, replay):
    if rc == 0:
        return "ok"
    if rc == 2 and TRACE_REFUSED.search(out):
        return "refused"
    if replay and rc == 3 and REPLAY_FAILED.search(out):
        return "replay"
    return "bad"


def regressions(mgen, src, work):
    """Inputs the fuzzer found that once failed, with the exact answer now expected.
    Returns the number of failures."""
    bad = 0

    def check(cmd, code, pattern, what):
        nonlocal bad
        outcome, rc, out = run(cmd)
        if outcome is None and rc == code and re.search(pattern, out, re.M):
            print(f"ok: regression: {what}")
        else:
            bad += 1
            print(f"FAIL: regression: {what}: {outcome or ''} exit {rc}, wanted {code} and /{pattern}/:")
            print("    " + out.strip().replace("\n", "\n    "))

    # A directory named like a trace file: was `mgen: error: std::bad_alloc`, exit 1.
    d = os.path.join(work, "dir-named-mgt")
    shutil.copytree(os.path.join(src, "tests", "golden", "traces", "halo4"), d)
    os.makedirs(os.path.join(d, "x.mgt"))
    for cmd in (["replay", "-q"], ["trace", "stats"]):
        check([mgen] + cmd + [d], 2, "^mgen: error: " + re.escape(os.path.join(d, "x.mgt")) +
              ": offset 0: not a trace: not a regular file$", "a directory named *.mgt in a trace set: " + cmd[0])

    # One file whose header claims 2^32-1 ranks: refused at once, naming the missing ranks as a
    # range (a list per rank would take 16 GB).
    d = os.path.join(work, "huge-size")
    os.makedirs(d)
    data = bytearray(open(os.path.join(src, "tests", "golden", "traces", "halo4", "rank-0.mgt"), "rb").read())
    struct.pack_into("<I", data, 16, 2**32 - 1)
    with open(os.path.join(d, "rank-0.mgt"), "wb") as f:
        f.write(data)
    check([mgen, "replay", "-q", d], 2, "^mgen: error: " + re.escape(d) +
          r": no trace of 4294967294 ranks: 1-4294967294 \(the run had 4294967295 ranks\)$",
          "a set whose only file claims 2^32-1 ranks")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mgen")
    ap.add_argument("src")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--configs", type=int, default=300)
    ap.add_argument("--traces", type=int, default=300)
    ap.add_argument("--keep", default="")
    ap.add_argument("--verbose", action="store_true", help="print every case's outcome and last line")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = a.keep or tempfile.mkdtemp(prefix="mgen-fuzz-")
    os.makedirs(work, exist_ok=True)
    counts = collections.Counter()
    failures = []
    failures += ["regression"] * regressions(a.mgen, a.src, work)

    def failed(kind, case, cmd, outcome, rc, out):
        failures.append(case)
        print(f"FAIL: {kind} case {case} ({outcome}, exit {rc}): {' '.join(cmd)}")
        for line in out.strip().split("\n")[-6:]:
            print("    " + line)

    # Machine files.
    cdir = os.path.join(a.src, "configs")
    sources = sorted(f for f in os.listdir(cdir) if f.endswith(".toml"))
    texts = {f: open(os.path.join(cdir, f)).read() for f in sources}
    for case in range(a.configs):
        base = rng.choice(sources)
        mutation, data = mutate_config(texts[base], rng)
        path = os.path.join(work, f"config-{case}.toml")
        with open(path, "wb") as f:
            f.write(data)
        cmd = [a.mgen, "info", "-c", path]
        outcome, rc, out = run(cmd)
        outcome = outcome or classify_config(rc, out, data.decode(errors="replace"))
        counts["config", outcome] += 1
        if a.verbose:
            print(f"config {case} {mutation} {outcome}: {out.strip().splitlines()[-1] if out.strip() else ''}")
        if outcome in ("ok", "refused"):
            os.remove(path)
        else:
            failed("config", case, cmd, outcome, rc, out)

    # Trace sets: version 1 as recorded, and version 2 (one run identifier per set).
    tdir = os.path.join(a.src, "tests", "golden", "traces", "halo4")
    v1 = {f: open(os.path.join(tdir, f), "rb").read() for f in sorted(os.listdir(tdir)) if f.endswith(".mgt")}
    run_a, run_b = bytes(range(16)), bytes(range(100, 116))
    v2 = {f: to_v2(d, run_a) for f, d in v1.items()}
    v2_other = {f: to_v2(d, run_b) for f, d in v1.items()}
    for case in range(a.traces):
        version = rng.choice([1, 2])
        files = dict(v1 if version == 1 else v2)
        # One mutation, or two or three on top of each other.
        mutation = "+".join(mutate_trace_set(files, rng, v2_other if version == 2 else v2)
                            for _ in range(rng.choice([1, 1, 2, 3])))
        d = os.path.join(work, f"trace-{case}")
        os.makedirs(d)
        for f, data in files.items():
            if data is None:
                os.makedirs(os.path.join(d, f))
                continue
            with open(os.path.join(d, f), "wb") as out_f:
                out_f.write(data)
        replay = case % 2 == 0  # half replay, half only read (trace stats)
        cmd = [a.mgen, "replay", "-q", d] if replay else [a.mgen, "trace", "stats", d]
        outcome, rc, out = run(cmd)
        outcome = outcome or classify_trace(rc, out, replay)
        counts["trace", outcome] += 1
        if a.verbose:
            print(f"trace {case} {mutation} {outcome}: {out.strip().splitlines()[-1] if out.strip() else ''}")
        if outcome in ("ok", "refused", "replay"):
            shutil.rmtree(d)
        else:
            failed("trace", case, cmd, outcome, rc, out)

    for kind in ("config", "trace"):
        total = sum(n for (k, _), n in counts.items() if k == kind)
        parts = ", ".join(f"{o} {n}" for (k, o), n in sorted(counts.items()) if k == kind)
        print(f"{kind}: {total} cases (seed {a.seed}): {parts}")
    if failures:
        print(f"{len(failures)} failing case(s); inputs kept in {work}")
        return 1
    if not a.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
