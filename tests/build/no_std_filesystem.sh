#!/usr/bin/env bash
# Fails if any program, test or the SentencePiece bridge in BIN_DIR imports a std::filesystem
# symbol: against PyTorch's LibTorch those bind to the copy libtorch.so exports and crash
# (pytorch/pytorch#133437). Use nmt::files (lib/util/FileSystem.h) instead.
set -euo pipefail
bin_dir=${1:?usage: no_std_filesystem.sh BIN_DIR}
command -v nm >/dev/null || { echo "nm (binutils) is needed for this check" >&2; exit 1; }
checked=0 bad=0
for f in "$bin_dir"/*; do
  [ -f "$f" ] && head -c 4 "$f" | grep -q $'\x7fELF' || continue
  checked=$((checked + 1))
  hits=$(nm -D -C --undefined-only "$f" 2>/dev/null | grep -E 'std::(__cxx11::)?filesystem::' || true)
  if [ -n "$hits" ]; then
    echo "$(basename "$f") imports std::filesystem:" >&2
    echo "$hits" | sed 's/^/  /' >&2
    bad=$((bad + 1))
  fi
done
[ "$checked" -gt 0 ] || { echo "no programs found in $bin_dir" >&2; exit 1; }
[ "$bad" -eq 0 ] || exit 1
echo "no std::filesystem imports in $checked binaries"
