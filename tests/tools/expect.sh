# Shared by the CLI test scripts (source it): expect CODE PATTERN -- command... runs the command,
# checks its exit code and that its combined output, lines joined so that a pattern may span
# them, matches the extended regex PATTERN; failures are counted in $failures.
failures=0
# A failed check that is not a command's exit code and output.
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
expect() {
  local code=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -Eq -- "$pattern" <<<"$(tr '\n' ' ' <<<"$out")"; then
    echo "FAIL: $* -> exit $rc (wanted $code), output:"
    sed 's/^/    /' <<<"$out" | head -20
    echo "    (wanted /$pattern/)"
    failures=$((failures + 1))
  else
    echo "ok: $*"
  fi
}
