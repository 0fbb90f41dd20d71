#!/bin/sh
# check_install.sh MESON BUILD_DIR SOURCE_DIR [FLAG...] — softrast used as a user uses an installed
# copy: `meson install` into a temporary DESTDIR, then programs built against it with pkg-config
# alone, exactly as docs/ (Linking against an installed copy) says:
#   headless.c with `pkg-config --cflags --libs softrast`, as C17 and (with g++) as C++17: it must
#   link no SDL2 (readelf's NEEDED entries, ldd) and render and save a frame;
#   viewer.c with `pkg-config --cflags --libs softrast-viewer`, as C17 and (with g++) as C++17: it
#   links SDL2 and, under SDL's dummy video driver, saves a frame showing its list.
# FLAGs go to every compilation (the sanitized build passes -fsanitize=...: its libraries need it).
# CC and CXX name the compilers (default cc and g++; a missing g++ skips the C++ build).
set -u
meson=${1:?usage: check_install.sh MESON BUILD_DIR SOURCE_DIR [FLAG...]}
build_dir=${2:?}
source_dir=${3:?}
shift 3
flags="$*"
cc=${CC:-cc}
cxx=${CXX:-g++}
work=$(mktemp -d "${TMPDIR:-/tmp}/softrast_install_XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() {
    echo "check_install: FAIL: $*"
    exit 1
}
# run WHAT COMMAND...: runs it, showing the command; on failure shows its output and stops.
run() {
    what=$1
    shift
    echo "\$ $*"
    "$@" >"$work/log" 2>&1 || { cat "$work/log"; fail "$what"; }
}

destdir=$work/root
run "meson install" "$meson" install -C "$build_dir" --destdir "$destdir" --no-rebuild --quiet
pc=$(find "$destdir" -name softrast.pc | head -n 1)
[ -n "$pc" ] || fail "meson install put no softrast.pc under $destdir"
[ -f "$(dirname "$pc")/softrast-viewer.pc" ] || fail "meson install put no softrast-viewer.pc beside softrast.pc"
pkgconfig_dir=$(dirname "$pc")
# The .pc files are relocatable (prefix=${pcfiledir}/...: meson.build's pkgconfig.relocatable);
# a build directory configured before that option was set has absolute ones: point copies of
# them at the staged prefix.
if ! grep -q '^prefix=${pcfiledir}' "$pc"; then
    echo "check_install: the .pc files are not relocatable (meson configure -Dpkgconfig.relocatable=true): using copies"
    prefix=$(sed -n 's/^prefix=//p' "$pc")
    mkdir -p "$work/pkgconfig"
    for file in "$pkgconfig_dir"/softrast*.pc; do
        sed "s|^prefix=.*|prefix=$destdir$prefix|" "$file" >"$work/pkgconfig/$(basename "$file")"
    done
    pkgconfig_dir=$work/pkgconfig
fi
echo "PKG_CONFIG_PATH=${pkgconfig_dir#"$destdir"}"
export PKG_CONFIG_PATH="$pkgconfig_dir"
softrast_flags=$(pkg-config --cflags --libs softrast) || fail "pkg-config softrast"
viewer_flags=$(pkg-config --cflags --libs softrast-viewer) || fail "pkg-config softrast-viewer"
echo "pkg-config --cflags --libs softrast: $softrast_flags"
echo "pkg-config --cflags --libs softrast-viewer: $viewer_flags"
case "$softrast_flags" in
*SDL*) fail "pkg-config softrast names SDL2: $softrast_flags" ;;
esac

# no_sdl PROGRAM: neither its own NEEDED entries nor what ldd resolves name SDL.
no_sdl() {
    if readelf -d "$1" | grep NEEDED | grep -qi sdl; then
        fail "$1 needs SDL2: $(readelf -d "$1" | grep NEEDED | tr -s ' ')"
    fi
    if command -v ldd >/dev/null 2>&1 && ldd "$1" | grep -qi sdl; then
        fail "$1 loads SDL2: $(ldd "$1" | grep -i sdl)"
    fi
}
# saved_png PATH: a PNG file was written.
saved_png() {
    [ -s "$1" ] || fail "no frame saved as $1"
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG file"
}

# shellcheck disable=SC2086
run "building headless.c as C" "$cc" -std=c17 -Wall -Wextra -Wpedantic -Werror $flags "$source_dir/tests/install/headless.c" \
    -o "$work/headless" $softrast_flags
no_sdl "$work/headless"
run "running headless (C)" "$work/headless" "$work/headless.png"
saved_png "$work/headless.png"
if command -v "$cxx" >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    run "building headless.c as C++" "$cxx" -x c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror $flags \
        "$source_dir/tests/install/headless.c" -x none -o "$work/headless_cpp" $softrast_flags
    no_sdl "$work/headless_cpp"
    run "running headless (C++)" "$work/headless_cpp" "$work/headless_cpp.png"
    saved_png "$work/headless_cpp.png"
else
    echo "check_install: $cxx is not installed: the C++ build is skipped"
fi

# shellcheck disable=SC2086
run "building viewer.c" "$cc" -std=c17 -Wall -Wextra -Wpedantic -Werror $flags "$source_dir/tests/install/viewer.c" \
    -o "$work/viewer" $viewer_flags
readelf -d "$work/viewer" | grep NEEDED | grep -q 'libSDL2' || fail "viewer does not link SDL2"
export SDL_VIDEODRIVER=dummy
run "running viewer" "$work/viewer" "$work/viewer.png"
saved_png "$work/viewer.png"
if command -v "$cxx" >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    run "building viewer.c as C++" "$cxx" -x c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror $flags \
        "$source_dir/tests/install/viewer.c" -x none -o "$work/viewer_cpp" $viewer_flags
    run "running viewer (C++)" "$work/viewer_cpp" "$work/viewer_cpp.png"
    saved_png "$work/viewer_cpp.png"
fi
echo "check_install: ok"
