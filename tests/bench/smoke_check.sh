#!/bin/sh
# Runs `ligature-bench --quick --filter ^NAME$` and checks that stdout holds at least one
# line and only JSON result lines for NAME (one per solver and peer), each with numeric
# median and ratio, and any figures of the benchmark's own (numbers or null) before the
# notes. Progress on stderr passes through untouched.
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
if [ -z "$out" ]; then
  echo "smoke: no result line" >&2
  exit 1
fi

num='-?[0-9][0-9.eE+-]*'
pattern="^\\{\"bench\":\"${name}\",\"metric\":\"[a-z_]+\",\"median\":${num},\"p99\":${num},\"n\":[1-9][0-9]*,\"paper\":(${num}|null),\"peer\":(\"[^\"]*\"|null),\"peer_median\":(${num}|null),\"ratio\":${num}(,\"[a-z_0-9]+\":(${num}|null))*,\"notes\":\".*\"\\}\$"
bad=$(printf '%s\n' "$out" | grep -Ev "$pattern")
if [ -n "$bad" ]; then
  echo "smoke: malformed result line(s):" >&2
  printf '%s\n' "$bad" >&2
  exit 1
fi
echo "smoke: ok: $(printf '%s\n' "$out" | wc -l) line(s)"
printf '%s\n' "$out"
