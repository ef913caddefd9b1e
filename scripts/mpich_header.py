"""The MPI functions MPICH's installed header declares: one parser for the code generators
(gen_mpi_stubs.py: libmgen's stubs and the coverage list; gen_recorder_calls.py: the
recorder's generic wrappers), so that both see the same functions.

MPICH (4.0.2 on Debian bookworm) declares every C binding in mpi_proto.h, which mpi.h
includes, one prototype per declaration ending in `MPICH_API_PUBLIC;` (and attributes such as
`MPICH_ATTR_POINTER_WITH_TYPE_TAG(1,3)`); MPI_T_* tool functions and a few names that are also
macros (MPI_Aint_add...) appear there too."""
import pathlib
import re
from dataclasses import dataclass

DEFAULT_DIR = pathlib.Path("/usr/include/x86_64-linux-gnu/mpich")

_PROTO = re.compile(
    r"^(int|double|MPI_Aint|MPI_Fint|MPI_\w+)\s+MPI_(\w+)\s*\(([^;]*?)\)\s*(?:MPICH_\w+(?:\([^)]*\))?\s*)*;",
    re.M | re.S)
_MACRO = re.compile(r"#\s*define\s+MPI_(\w+)\(")


@dataclass(frozen=True)
class Param:
    type: str  # as declared, less the name: "const void *", "int []", "..."
    name: str  # "" for `...`
    decl: str  # the whole declaration: "const int counts[]"


@dataclass(frozen=True)
class Function:
    name: str  # without the MPI_ prefix: "Send", "T_pvar_read"
    ret: str
    params: tuple

    @property
    def variadic(self):
        return any(p.decl == "..." for p in self.params)

    @property
    def tool(self):  # the MPI_T_* tool interface
        return self.name.startswith("T_")

    def signature(self):
        return ", ".join(p.decl for p in self.params)

    def arg_names(self):
        return ", ".join(p.name for p in self.params)


def _split(args):
    out, depth, cur = [], 0, ""
    for ch in args:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out


def _param(decl):
    if decl == "...":
        return Param("...", "", decl)
    bare = re.sub(r"(\[\s*\w*\s*\])+$", "", decl)
    name = re.findall(r"(\w+)\s*$", bare)[0]
    return Param((bare[: -len(name)] + decl[len(bare):]).strip(), name, decl)


def read(directory=DEFAULT_DIR):
    """(functions by name, names that are also function-like macros) of mpi.h + mpi_proto.h."""
    directory = pathlib.Path(directory)
    text = (directory / "mpi.h").read_text() + (directory / "mpi_proto.h").read_text()
    functions = {}
    for m in _PROTO.finditer(text):
        ret, name, args = m.group(1), m.group(2), " ".join(m.group(3).split())
        functions.setdefault(name, Function(name, ret, tuple(_param(a) for a in _split(args))))
    return functions, set(_MACRO.findall(text))


def header_files(directory=DEFAULT_DIR):
    return [pathlib.Path(directory) / "mpi.h", pathlib.Path(directory) / "mpi_proto.h"]
