#!/usr/bin/env bash
# A user's own script outside the repository, built against the installed module: install
# into a temporary prefix (cmake --install BUILD --prefix), then build examples/presto-spray.cc
# out of tree twice, with the README's pkg-config command line and with a three-line
# CMakeLists.txt using find_package(presto) (target presto::presto), and run each binary on
# a short simulation with the installed data files: exit status 0, flows finished in its
# summary.json, and the table printed. About 40 s (two compilations).
# usage: user-script.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check NAME COMMAND...: run the command, count the result
    local name=$1
    shift
    if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=$((fail + 1)); return 1; fi
}
prefix=$tmp/prefix
install() { cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; }
check "cmake --install into a temporary prefix" install || cat "$tmp/install.log"
check "umbrella header installed as ns3/presto-module.h" test -f "$prefix/include/ns3/presto-module.h"
check "presto.pc installed" test -f "$prefix/lib/pkgconfig/presto.pc"
check "CMake package installed" test -f "$prefix/lib/cmake/presto/presto-config.cmake"
export PRESTO_DATA_DIR=$prefix/share/presto/data

ran() { # ran NAME BINARY: a short run exits 0 and finishes flows
    local name=$1 bin=$2 out=$tmp/out-$1
    "$bin" --simTime=0.002 --plot=false --out="$out" >"$tmp/$name.stdout" 2>"$tmp/$name.stderr"
    local rc=$?
    check "$name: exit status 0 (got $rc)" test "$rc" -eq 0 || cat "$tmp/$name.stderr"
    check "$name: flows finished" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["finished"] > 0 and d["overall"]["count"] > 0 else 1)' "$out/summary.json"
    check "$name: printed the table" grep -q "^outputs: " "$tmp/$name.stdout"
}

# the README's one command line
mkdir -p "$tmp/pc"
cp "$src/examples/presto-spray.cc" "$tmp/pc/my-script.cc"
(
    cd "$tmp/pc" &&
        PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
            g++ my-script.cc -o my-script $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs presto)
) >"$tmp/pc.log" 2>&1
check "pkg-config: compiles and links" test -x "$tmp/pc/my-script" || cat "$tmp/pc.log"
ran pkg-config "$tmp/pc/my-script"

# CMake: find_package(presto)
mkdir -p "$tmp/cm"
cp "$src/examples/presto-spray.cc" "$tmp/cm/my-script.cc"
cat >"$tmp/cm/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(my-script CXX)
find_package(presto REQUIRED)
add_executable(my-script my-script.cc)
target_link_libraries(my-script PRIVATE presto::presto)
CMAKE
(cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$tmp/cm/build") >"$tmp/cm.log" 2>&1
check "find_package(presto): configures, compiles and links" test -x "$tmp/cm/build/my-script" ||
    tail -30 "$tmp/cm.log"
ran find-package "$tmp/cm/build/my-script"
echo "$fail failed"
exit $((fail > 0))
