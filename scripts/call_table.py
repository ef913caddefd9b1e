"""The table of recorded MPI calls, trace/include/mgen/trace/calls.def, as Python data: the
recorder generator (which functions have their own wrapper) and gen_mpi_stubs.py (the recorded
calls in docs/mpi-coverage.md) read the same rows as the C++ code."""
import pathlib
import re
from dataclasses import dataclass

DEF = pathlib.Path(__file__).resolve().parent.parent / "trace/include/mgen/trace/calls.def"


@dataclass(frozen=True)
class Row:
    code: int
    op: str         # the enumerator less its k: "Isend"
    name: str       # op_name(): "Send_init"
    cls: str        # CallClass: "kCollective"
    by: str         # NameBy: "kBlocking"
    names: tuple    # the MPI functions it records: ("MPI_Bcast", "MPI_Ibcast")
    fields: tuple   # Field enumerators: ("kComm", "kRequest", ...)


def read(path=DEF):
    text = re.sub(r"//[^\n]*", "", pathlib.Path(path).read_text())
    rows = []
    for body in re.findall(r"MGEN_CALL\(([^()]*)\)", text):
        parts = [p.strip() for p in " ".join(body.split()).split(",")]
        code, op, name, cls, by, names = parts[:6]
        rows.append(Row(int(code), op, name.strip('"'), cls, by, tuple(names.strip('"').split()),
                        tuple(p for p in parts[6:] if p)))
    if [r.code for r in rows] != list(range(len(rows))):
        raise SystemExit(f"{path}: rows are not in opcode order 0..{len(rows) - 1}")
    return rows
