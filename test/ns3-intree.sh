#!/usr/bin/env bash
# Builds this module inside an ns-3 source tree and runs its ns-3 test suites there with
# ns-3's own test.py: the check behind the supported-versions table of doc/usage.rst.
#
#   test/ns3-intree.sh [--link] [--jobs N] NS3_SOURCE_TREE
#
# It fetches nothing. It places this folder at NS3_SOURCE_TREE/contrib/presto (a copy of the
# working tree without build outputs, or with --link a symbolic link), configures the tree
# with the smallest module set (presto and what it depends on; only presto's examples and
# tests), builds, checks that no presto source picks up an ns-3 header from outside the tree
# (Debian's /usr/include/ns3 is on the compiler's default path), and runs test.py for every
# presto-* suite and the examples of test/examples-to-run.py. CMake trees (ns-3 >= 3.36) go
# through ./ns3, waf trees (<= 3.35) through ./waf. Not run in CI: a tree takes 20-60 minutes
# on two cores. Exit status 0 only if every step passed; a summary line per step is printed
# at the end, with its duration.
set -uo pipefail

# The whole script is one function, read before it runs: editing this file while a run (an
# hour long) is going does not change what that run does.
main() {

    usage() {
        echo "usage: $0 [--link] [--jobs N] NS3_SOURCE_TREE" >&2
        exit 2
    }

    link=0
    jobs=2
    tree=
    while [ $# -gt 0 ]; do
        case "$1" in
            --link) link=1 ;;
            --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift ;;
            --jobs=*) jobs=${1#--jobs=} ;;
            -h | --help) usage ;;
            -*) echo "unknown option $1" >&2; usage ;;
            *) [ -z "$tree" ] || usage; tree=$1 ;;
        esac
        shift
    done
    [ -n "$tree" ] || usage
    module=$(cd "$(dirname "$0")/.." && pwd)
    tree=$(cd "$tree" 2>/dev/null && pwd) || { echo "no such directory: $tree" >&2; exit 2; }
    if [ -x "$tree/ns3" ] && [ -f "$tree/CMakeLists.txt" ]; then
        kind=cmake
        include_dir=$tree/build/include/ns3
    elif [ -f "$tree/waf" ] && [ -f "$tree/wscript" ]; then
        kind=waf
        include_dir=$tree/build/ns3
    else
        echo "$tree is not an ns-3 source tree (no ./ns3 nor ./waf)" >&2
        exit 2
    fi
    version=$(cat "$tree/VERSION" 2>/dev/null || echo unknown)
    log_dir=$tree/presto-intree-logs
    mkdir -p "$log_dir"
    summary=()
    status=0

    # step NAME COMMAND...: runs COMMAND in the tree, output to $log_dir/NAME.log, and records
    # NAME, its result and its duration.
    step() {
        local name=$1
        shift
        local start end rc
        start=$(date +%s)
        echo "== $name: $*"
        (cd "$tree" && "$@") >"$log_dir/$name.log" 2>&1
        rc=$?
        end=$(date +%s)
        if [ $rc -eq 0 ]; then
            summary+=("$(printf '%-14s PASS  %6d s' "$name" $((end - start)))")
        else
            summary+=("$(printf '%-14s FAIL  %6d s  (exit %d, see %s)' "$name" $((end - start)) \
                $rc "$log_dir/$name.log")")
            tail -30 "$log_dir/$name.log"
            status=1
        fi
        return $rc
    }

    finish() {
        echo
        echo "ns-3 $version ($kind) at $tree, module from $module:"
        printf '  %s\n' "${summary[@]}"
        exit $status
    }

    # ---------------------------------------------------------------- place the module
    dest=$tree/contrib/presto
    if [ -L "$dest" ]; then
        rm "$dest"
    elif [ -e "$dest" ]; then
        if [ ! -f "$dest/.presto-intree-copy" ]; then
            echo "$dest exists and was not placed by this script; move it away first" >&2
            exit 2
        fi
        rm -rf "$dest"
    fi
    if [ $link -eq 1 ]; then
        ln -s "$module" "$dest"
    else
        mkdir -p "$dest"
        # the working tree as it is (uncommitted edits included), without build outputs
        (cd "$module" && tar -cf - --exclude=./.git --exclude='./build' --exclude='./build-*' \
            --exclude=./results --exclude=./bench/out .) | tar -xf - -C "$dest"
        touch "$dest/.presto-intree-copy"
    fi
    echo "module placed at $dest ($([ $link -eq 1 ] && echo link || echo copy))"

    # ---------------------------------------------------------------- configure, build
    if [ "$kind" = cmake ]; then
        # the recipe of doc/usage.rst ("Building"), word for word
        step configure ./ns3 configure --enable-modules=presto --enable-tests --enable-examples \
            --filter-module-examples-and-tests=presto || finish
        # ns-3 3.36 to 3.38 build their own system tests (src/test) whenever tests are on, and
        # ns3tcp-socket-test-suite.cc there uses CsmaHelper without requiring csma: the
        # test-runner does not link (or, without Debian's /usr/include/ns3, not compile).
        # Those trees get csma as well; later ones leave src/test out with --enable-modules.
        if grep -q 'ns3tcp-socket-test-suite' "$tree/cmake-cache/build.ninja" &&
            ! grep -q 'src/csma/' "$tree/cmake-cache/build.ninja"; then
            echo "   ns-3's src/test needs csma here: configuring again with it"
            step configure+csma ./ns3 configure --enable-modules='presto;csma' --enable-tests \
                --enable-examples --filter-module-examples-and-tests=presto || finish
        fi
        # ./ns3 build caps its jobs at (cores - 1): call CMake for the -j asked for
        step build cmake --build cmake-cache -j "$jobs" || finish
    else
        # GCC >= 12 warns on ns-3.35's own sources: warnings are not errors in waf trees (presto's
        # own warnings are caught below). Release with asserts and logs is CMake's "default".
        step configure ./waf configure -d release --enable-asserts --enable-logs \
            --enable-modules=presto --enable-tests --enable-examples --disable-werror \
            --disable-python || finish
        step build ./waf build -j "$jobs" || finish
    fi
    if grep -E '(contrib/presto|presto/(model|helper|test|examples))/[^:]*:[0-9]+:[0-9]+: warning' \
        "$log_dir/build.log" >"$log_dir/presto-warnings.txt"; then
        summary+=("$(printf '%-14s FAIL  %d warnings in presto sources (%s)' warnings \
            "$(wc -l <"$log_dir/presto-warnings.txt")" "$log_dir/presto-warnings.txt")")
        status=1
    else
        summary+=("$(printf '%-14s PASS  no compiler warning in presto sources' warnings)")
    fi

    # ---------------------------------------------------------------- header shadowing
    # Every ns-3 header a presto file includes must come from the tree; one the tree lacks
    # would silently be taken from /usr/include/ns3 (another release). The compatibility
    # header chooses between two spellings with __has_include, checked apart.
    missing=()
    for h in $(cd "$dest" && grep -rhoE '^#include "ns3/[^"]+"' model helper examples test \
        --include=*.cc --include=*.h --exclude=presto-ns3-compat.h | sed 's/.*"ns3\///; s/"//' |
        sort -u); do
        [ -e "$include_dir/$h" ] || missing+=("$h")
    done
    if [ ! -e "$include_dir/global-routing.h" ] && [ ! -e "$include_dir/ipv4-global-routing.h" ]; then
        missing+=("global-routing.h or ipv4-global-routing.h")
    fi
    if [ ${#missing[@]} -eq 0 ]; then
        summary+=("$(printf '%-14s PASS  every included ns3/ header is in %s' headers "$include_dir")")
    else
        summary+=("$(printf '%-14s FAIL  not in the tree: %s' headers "${missing[*]}")")
        status=1
    fi

    # ---------------------------------------------------------------- test.py
    # test.py for presto's suites only (-s takes a pattern): a tree may also build ns-3's own
    # system tests (see csma above), and waf trees build the tests of every enabled module.
    # CMake trees build only presto's examples (the filter above); test.py --constrain=example
    # runs those of test/examples-to-run.py. Waf trees build every enabled module's examples
    # (core, network, internet, ...) and test.py cannot pick presto's: built, not run there.
    if [ "$kind" = cmake ]; then
        step test.py ./test.py --no-build --jobs "$jobs" -s 'presto-*'
        step examples ./test.py --no-build --jobs "$jobs" --constrain=example
        cat "$log_dir/examples.log" >>"$log_dir/test.py.log"
    else
        step test.py ./test.py --nowaf --jobs "$jobs" -s 'presto-*'
    fi
    # test.py colours its results even into a file
    sed 's/\x1b\[[0-9;]*m//g' "$log_dir/test.py.log" >"$log_dir/test.py.txt"
    grep -E '^\[[0-9]+/[0-9]+\] [A-Z]+: ' "$log_dir/test.py.txt" | sed 's/^/    /'
    suites=$(cd "$module" && sed -n 's/.*TestSuite("\(presto-[a-z0-9-]*\)".*/\1/p' test/*.cc | sort -u)
    for s in $suites; do
        if ! grep -qE "PASS: TestSuite $s\$" "$log_dir/test.py.txt"; then
            summary+=("$(printf '%-14s FAIL  suite %s did not pass under test.py' suites "$s")")
            status=1
        fi
    done
    summary+=("$(printf '%-14s %d of %d presto-* suites, %d examples passed' results \
        "$(grep -cE 'PASS: TestSuite presto-' "$log_dir/test.py.txt")" "$(echo "$suites" | wc -w)" \
        "$(grep -cE 'PASS: Example ' "$log_dir/test.py.txt")")")
    finish
}

main "$@"
