#!/usr/bin/env bash
# Runs every example listed in test/examples-to-run.py (ns-3's smoke-test list, used by
# test.py inside an ns-3 tree) from the standalone build, in a scratch directory.
# Usage: run-examples.sh BIN_DIR SRC_DIR
set -euo pipefail
bin=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
n=0
fail=0
# each entry is ("name args", "condition", "valgrind condition")
while IFS= read -r cmd; do
    name=${cmd%% *}
    args=${cmd#"$name"}
    n=$((n + 1))
    # shellcheck disable=SC2086 # the listed arguments are whitespace-separated on purpose
    if "$bin/$name" $args >"$work/out.$n.txt" 2>&1; then
        echo "PASS $cmd"
    else
        echo "FAIL $cmd"
        tail -20 "$work/out.$n.txt"
        fail=$((fail + 1))
    fi
done < <(sed -n 's/^ *("\([^"]*\)", *"True".*/\1/p' "$src/test/examples-to-run.py")
if [ "$n" -eq 0 ]; then
    echo "no examples found in $src/test/examples-to-run.py"
    exit 1
fi
echo "$((n - fail))/$n examples ran"
[ "$fail" -eq 0 ]
