#!/bin/sh
# Runs `ligature-bench --quick --filter ^NAME$` and checks that stdout is exactly one JSON
# line for NAME with numeric median and ratio. Progress on stderr passes through untouched.
# usage: smoke_check.sh BENCH_BINARY NAME
set -u
bin="$1"
name="$2"

out=$("$bin" --quick --filter "^${name}\$")
status=$?
if [ "$status" -ne 0 ]; then
  echo "smoke: ligature-bench exited with $status" >&2
  exit 1
fi

lines=$(printf '%s\n' "$out" | wc -l)
if [ "$lines" -ne 1 ]; then
  echo "smoke: expected 1 stdout line, got $lines:" >&2
  printf '%s\n' "$out" >&2
  exit 1
fi

num='-?[0-9][0-9.eE+-]*'
pattern="^\\{\"bench\":\"${name}\",\"metric\":\"[a-z_]+\",\"median\":${num},\"p99\":${num},\"n\":[1-9][0-9]*,\"paper\":(${num}|null),\"peer\":(\"[^\"]*\"|null),\"peer_median\":(${num}|null),\"ratio\":${num},\"notes\":\".*\"\\}\$"
if ! printf '%s\n' "$out" | grep -Eq "$pattern"; then
  echo "smoke: malformed result line:" >&2
  printf '%s\n' "$out" >&2
  exit 1
fi
echo "smoke: ok: $out"
