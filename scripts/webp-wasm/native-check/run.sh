#!/usr/bin/env bash
# Checks scripts/webp-wasm/vp8l-sliding-window.patch natively, beyond the workerd tests: libwebp's
# decoder built with and without it (and with a 4097-pixel slack, so the window slides every few
# thousand pixels) under AddressSanitizer and UndefinedBehaviorSanitizer, asserts on, then fuzz.py
# decodes seeded corruptions and truncations of the given lossless WebPs with every build and reports
# any sanitizer finding or any difference in status or pixels.
#
#   sudo bash scripts/build-webp-wasm.sh      # leaves the patched source in .cache/webp-wasm/src
#   bash scripts/webp-wasm/native-check/run.sh CASES file.webp…   # e.g. the .cache/photos lossless inputs
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$ROOT/scripts/webp-wasm/native-check
WORK=${WORK:-$ROOT/.cache/webp-wasm}
export NATIVE_DIR=$WORK/native
CASES=$1; shift
rm -rf "$NATIVE_DIR" && mkdir -p "$NATIVE_DIR"
(cd "$WORK" && dpkg-source --no-check -x libwebp_*.dsc "$NATIVE_DIR/pristine-src" >/dev/null)
build() { # source-tree output [cflags…]
  local src=$1 out=$2; shift 2
  mapfile -t sources < <(cd "$src" && for group in DEC_OBJS DSP_DEC_OBJS UTILS_DEC_OBJS; do
    sed -n "/^$group = /,/^\$/p" makefile.unix | grep -o 'src/[a-z_/0-9]*\.o' | sed 's/\.o$/.c/'
  done)
  clang-14 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined "$@" -I"$src" \
    "$HERE/harness.c" "${sources[@]/#/$src/}" -o "$NATIVE_DIR/$out" -lm -lpthread
}
build "$NATIVE_DIR/pristine-src" pristine
build "$WORK/src" patched
build "$WORK/src" patched-small -DWINDOW_SLACK=4097
seed=1
for file in "$@"; do
  python3 "$HERE/fuzz.py" "$file" "$CASES" "$seed" pristine patched patched-small
  seed=$((seed + 1))
done
