#!/usr/bin/env bash
# `mgen-cc --check FILE...`: which MPI functions that mgen does not support a program, object
# file or static archive would call. Each unsupported function links (a stub) and stops the run
# when called, so what matters is whether the program's code can reach a call to it:
#   - a program (mgen-cc's output, or an executable): the functions reachable from `main` by
#     direct calls stop the run if that code runs (exit status 1); unsupported functions
#     referenced only by code `main` never calls directly (a test utility's unused helpers,
#     such as MPICH's mtest.c or OSU's util) are listed as referenced, not counted;
#   - an object file or archive: not a program yet, so every unsupported function its code
#     refers to is listed with the function that refers to it (exit status 1 if any).
# Calls through function pointers are not followed: a function whose address is taken counts
# as reached only if code reachable from main takes it.
#
# Usage: mgen-check.sh UNSUPPORTED_LIST FILE...
set -euo pipefail
me="mgen-cc --check"
list=$1
shift
[[ $# -ge 1 ]] || { echo "usage: mgen-cc --check PROGRAM|OBJECT|ARCHIVE..." >&2; exit 2; }
[[ -r $list ]] || { echo "$me: the list of unsupported functions ($list) is missing" >&2; exit 2; }
command -v objdump >/dev/null || { echo "$me: objdump (binutils) is needed" >&2; exit 2; }

# "FUNCTION SYMBOL" for every symbol a function's code refers to: calls and jumps (<sym@plt>,
# <sym+0x10>), addresses taken (# <sym>), and in objects the relocations (R_X86_64_PLT32 sym-0x4).
references() {
  objdump -dr --no-show-raw-insn "$1" 2>/dev/null | awk '
    /^[0-9a-f]+ <[^>]+>:$/ { fn = $2; gsub(/[<>:]/, "", fn); sub(/@.*/, "", fn); print fn, fn; next }
    fn == "" { next }
    {
      line = $0
      if (line ~ /R_[A-Z0-9_]+/) {
        s = $NF; sub(/[-+]0x[0-9a-f]+$/, "", s); sub(/@.*/, "", s); print fn, s; next
      }
      while (match(line, /<[^>]+>/)) {
        s = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
        sub(/[-+]0x[0-9a-f]+$/, "", s); sub(/@.*/, "", s); print fn, s
      }
    }'
}

status=0
for file in "$@"; do
  [[ -f $file ]] || { echo "$me: $file: no such file" >&2; exit 2; }
  # What the file is: an archive, or an ELF object (e_type 1), program or shared object (2, 3).
  if [[ $(head -c 7 "$file" | tr -d '\0') == '!<arch>' ]]; then
    kind="an archive"
  elif [[ $(head -c 4 "$file" | tail -c 3) == ELF ]]; then
    case $(od -An -tu2 -j16 -N2 "$file" | tr -d ' ') in
      1) kind="an object file" ;;
      *) kind="a program" ;;
    esac
  else
    echo "$me: $file: not a program, object file or archive" >&2
    exit 2
  fi
  refs=$(references "$file")
  # Every MPI function referenced (PMPI_X counts as MPI_X), and the unsupported ones.
  used=$(awk '$2 ~ /^P?MPI_/ { s = $2; sub(/^P/, "", s); print s }' <<<"$refs" | sort -u)
  n=$(grep -c . <<<"$used" || true)
  unsupported=$(grep -Fxf "$list" <<<"$used" || true)
  if [[ -z $unsupported ]]; then
    echo "$file: uses $n MPI functions; mgen supports all of them"
    continue
  fi
  has_main=$(awk '$1 == "main" && $2 == "main" { print "yes"; exit }' <<<"$refs")
  if [[ -z $has_main ]]; then
    what="$kind (no main)"
    [[ $kind == "a program" ]] && what="a program without a symbol for main (stripped?), so all are listed"
    echo "$file: $what: uses $n MPI functions; mgen does not support these, and a call stops the run:"
    for f in $unsupported; do
      users=$(awk -v f="$f" '($2 == f || $2 == "P" f) && $1 != $2 { print $1 }' <<<"$refs" | sort -u | paste -sd, - | sed 's/,/, /g')
      echo "  $f (called by ${users:-?})"
    done
    status=1
    continue
  fi
  # Functions reachable from main: a breadth-first walk over the references.
  reached=$(awk '
    { edge[$1] = edge[$1] " " $2 }
    END {
      queue[0] = "main"; seen["main"] = 1; head = 0; tail = 1
      while (head < tail) {
        f = queue[head++]; k = split(edge[f], to, " ")
        for (i = 1; i <= k; ++i) if (!(to[i] in seen)) { seen[to[i]] = 1; queue[tail++] = to[i] }
      }
      for (f in seen) print f
    }' <<<"$refs" | sed 's/^PMPI_/MPI_/' | sort -u)
  stops=$(grep -Fxf <(printf '%s\n' $unsupported) <<<"$reached" || true)
  only=$(grep -Fvxf <(printf '%s\n' "$reached") <<<"$unsupported" || true)
  if [[ -n $stops ]]; then
    echo "$file: uses $n MPI functions; main can reach calls to these, which mgen does not support (the run stops if one is called):"
    printf '  %s\n' $stops
    status=1
  else
    echo "$file: uses $n MPI functions; main reaches no call to a function mgen does not support"
  fi
  if [[ -n $only ]]; then
    echo "  referenced only by code main does not call directly (linked helpers; reached only through a function pointer, if at all):"
    for f in $only; do
      users=$(awk -v f="$f" '($2 == f || $2 == "P" f) && $1 != $2 { print $1 }' <<<"$refs" | sort -u | paste -sd, - | sed 's/,/, /g')
      echo "    $f (called by ${users:-?})"
    done
  fi
done
exit $status
