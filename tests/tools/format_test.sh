#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what .clang-format asks for.
set -uo pipefail
cd "$1"
if ! command -v clang-format >/dev/null 2>&1; then
  echo "clang-format not installed: format check skipped"
  exit 0
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' 2>/dev/null)
[ ${#files[@]} -eq 0 ] && exit 0
clang-format --dry-run --Werror "${files[@]}"
