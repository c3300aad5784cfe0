#!/usr/bin/env bash
# presto's single entry point.
#
#   ./presto.sh experiment [presto-compare options] build, then run the headline comparison
#   ./presto.sh test                                build, then run every test (ctest)
#   ./presto.sh bench                               build, then run the speed benchmarks
#   ./presto.sh build                               only build
#
# On a fresh Debian bookworm machine it installs what is missing with apt-get when run as
# root, and otherwise prints the exact apt-get command to run.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(
    g++ cmake ninja-build pkg-config
    libns3-dev ns3 libgsl-dev libxml2-dev libsqlite3-dev libpython3.11-dev
    libgtest-dev libboost-dev libboost-iostreams-dev libboost-system-dev
    libboost-filesystem-dev gnuplot-nox libgnuplot-iostream-dev nlohmann-json3-dev tshark
    parallel python3 python3-docutils
)
BUILD_DIR=${PRESTO_BUILD_DIR:-build}
JOBS=${PRESTO_JOBS:-2}

ensure_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ]; then
        echo "presto: installing missing Debian packages: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "presto: missing Debian packages: ${missing[*]}" >&2
        echo "presto: install them with: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
}

build() {
    ensure_packages
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    fi
    cmake --build "$BUILD_DIR" -j "$JOBS"
}

# The unit tests and the suites that feed the NICs hostile or unusual input, built with
# AddressSanitizer and UndefinedBehaviorSanitizer in $BUILD_DIR-asan; any report fails.
# PRESTO_SANITIZE=0 skips it.
# (CMakeLists.txt builds them into presto-sanitize-runner: presto_sanitize_suites)
SANITIZE_SUITES=(presto-hostile presto-mixed presto-interop)
sanitize() {
    local dir="$BUILD_DIR-asan"
    if [ ! -f "$dir/build.ninja" ]; then
        # warnings stay errors in the ordinary build; GCC 12's -Wmaybe-uninitialized misfires
        # under -fsanitize (on compiler temporaries, "'<anonymous>' may be used uninitialized")
        # -O1 -g1 (line tables only): the instrumented build is most of CI's time, and the
        # reports still name files and lines
        cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRESTO_SANITIZE=ON \
            -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
            -DPRESTO_WARNINGS_AS_ERRORS=OFF >/dev/null
    fi
    # the runner with only the suites below: the others are not run instrumented
    cmake --build "$dir" -j "$JOBS" --target presto-unit-tests presto-sanitize-runner
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    echo "presto: sanitizers: unit tests"
    PRESTO_DATA_DIR="$PWD/data" "$dir/presto-unit-tests" --gtest_brief=1
    for suite in "${SANITIZE_SUITES[@]}"; do
        echo "presto: sanitizers: $suite"
        local log
        log=$("$dir/presto-sanitize-runner" --suite="$suite" 2>&1) || {
            echo "$log"
            exit 1
        }
        if grep -qE 'FAIL|CRASH|ERROR: (Address|Leak)Sanitizer|runtime error' <<<"$log"; then
            echo "$log"
            exit 1
        fi
    done
    echo "presto: sanitizers: no report"
}

cmd=${1:-experiment}
[ $# -gt 0 ] && shift
case "$cmd" in
    build)
        build
        ;;
    experiment)
        build
        exec "$BUILD_DIR/presto-compare" --out=results/compare "$@"
        ;;
    test)
        build
        (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS" --timeout 900 "$@")
        [ "${PRESTO_SANITIZE:-1}" = 0 ] || sanitize
        ;;
    bench)
        build
        exec bash bench/run-benchmarks.sh "$BUILD_DIR" "$@"
        ;;
    *)
        echo "usage: $0 {experiment|test|bench|build} [options]" >&2
        exit 2
        ;;
esac
