#!/bin/sh
# expect.sh CODE REGEX COMMAND...: runs COMMAND, passes when it exits with CODE, prints exactly
# one line on stderr (the error), and that line matches REGEX (an empty REGEX matches anything).
want=$1; pattern=$2; shift 2
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$@" >/dev/null 2>"$err"
got=$?
lines=$(grep -c '' "$err")
cat "$err"
if [ "$got" -ne "$want" ]; then echo "expected exit $want, got $got"; exit 1; fi
if [ -n "$pattern" ]; then
  if [ "$lines" -ne 1 ]; then echo "expected one line on stderr, got $lines"; exit 1; fi
  grep -Eq -- "$pattern" "$err" || { echo "stderr does not match: $pattern"; exit 1; }
fi
exit 0
