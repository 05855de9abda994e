#!/usr/bin/env bash
# Builds src/analysis/decoders/libwebp-decoder.wasm: libwebp's decoder (Debian bookworm's patched
# source, which carries the CVE-2023-4863 fix, plus scripts/webp-wasm/vp8l-sliding-window.patch, which
# decodes lossless images through a bounded window) and scripts/webp-wasm/shim.c, as a bare wasm32
# module (no JS glue, no imports) exporting malloc, free, version, features and decode_rgb.
#
#   sudo bash scripts/build-webp-wasm.sh   # needs root for apt-get; prints the module's SHA-256
#
# Reproducible: the source version and its files' SHA-256 are pinned (apt also checks them against
# Debian's signed Sources index), the toolchain is Debian's clang/lld 14 with wasi-libc, and the flags are fixed. CI
# does not run this: the built module is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LIBWEBP_VERSION=1.2.4-0.2+deb12u1
OUT=$ROOT/src/analysis/decoders/libwebp-decoder.wasm
WORK=${WORK:-$ROOT/.cache/webp-wasm}

# Debian's toolchain for wasm32 (clang, lld, wasi-libc, compiler-rt builtins) and its source lists.
if [ ! -f /etc/apt/sources.list.d/debian-src.sources ]; then
  cat > /etc/apt/sources.list.d/debian-src.sources <<'SOURCES'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  apt-get update -qq
fi
if ! command -v clang-14 >/dev/null || ! command -v wasm-ld-14 >/dev/null || [ ! -d /usr/lib/wasm32-wasi ] || ! command -v dpkg-source >/dev/null || ! command -v patch >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32 dpkg-dev patch
fi

# The source package, unpacked with Debian's patches applied (debian/patches: CVE-2023-4863, CVE-2023-1999).
rm -rf "$WORK"
mkdir -p "$WORK"
(cd "$WORK" && apt-get source --download-only -qq "libwebp=$LIBWEBP_VERSION" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
(cd "$WORK" && sha256sum --quiet -c) <<'SUMS'
d9ed0b59e2010f255c28d0869fd15b31f9b08aed757bfc91862d43aa9ec1aa99  libwebp_1.2.4-0.2+deb12u1.dsc
7bf5a8a28cc69bcfa8cb214f2c3095703c6b73ac5fba4d5480c205331d9494df  libwebp_1.2.4.orig.tar.gz
69cdba4dfe2e1b34d55fa80c1b29c31cacd40dd183812d6bcca7e508a2f7afcd  libwebp_1.2.4-0.2+deb12u1.debian.tar.xz
SUMS
(cd "$WORK" && dpkg-source --no-check -x "libwebp_$LIBWEBP_VERSION.dsc" src >/dev/null)
grep -qx 'CVE-2023-4863.patch' "$WORK/src/debian/patches/series"
SRC=$WORK/src
# Ours on top: lossless images decoded through a sliding window, not a whole ARGB frame (see the patch).
patch -s -p1 -d "$SRC" < "$ROOT/scripts/webp-wasm/vp8l-sliding-window.patch"

# The decoder's objects as libwebp's makefile.unix lists them (DEC, DSP_DEC, UTILS_DEC). No threads
# (WebAssembly here is single-threaded), no SIMD paths (none is written for wasm32 in this version).
mapfile -t SOURCES < <(cd "$SRC" && for group in DEC_OBJS DSP_DEC_OBJS UTILS_DEC_OBJS; do
  sed -n "/^$group = /,/^\$/p" makefile.unix | grep -o 'src/[a-z_/0-9]*\.o' | sed 's/\.o$/.c/'
done)
CFLAGS=(--target=wasm32-wasi -O2 -DNDEBUG -fno-math-errno -ffile-prefix-map="$SRC"=libwebp -I"$SRC")
OBJS=()
for source in "${SOURCES[@]}" ; do
  obj=$WORK/obj/${source//\//_}.o
  mkdir -p "$WORK/obj"
  clang-14 "${CFLAGS[@]}" -c "$SRC/$source" -o "$obj"
  OBJS+=("$obj")
done
clang-14 "${CFLAGS[@]}" -c "$ROOT/scripts/webp-wasm/shim.c" -o "$WORK/obj/shim.o"

# A reactor without WASI: nothing here does I/O, so the module imports nothing. Its memory starts at
# 2 MiB and may grow to 112 MiB: beyond that libwebp's allocations fail (VP8_STATUS_OUT_OF_MEMORY).
wasm-ld-14 --no-entry --strip-all --gc-sections \
  --initial-memory=$((2 * 1024 * 1024)) --max-memory=$((112 * 1024 * 1024)) \
  -L/usr/lib/wasm32-wasi -lc /usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a \
  "$WORK/obj/shim.o" "${OBJS[@]}" -o "$OUT"

echo "libwebp $LIBWEBP_VERSION (Debian bookworm-security) → ${OUT#$ROOT/}"
chmod 644 "$OUT"
sha256sum "$OUT" | cut -d' ' -f1
