#!/usr/bin/env bash
# Gathers the real fxc listings probe.py runs into DIR/src: every `*.asm` of
# spacehamster/DXDecompiler at 65015954c722d1539d5450534c7760e5ae47d2b1 (MIT), and every
# `Src/Shaders/Compiled/*.inc` microsoft/DirectXTK ever had, each at the last commit that had it
# (MIT), split into its listing with ../extract_inc.py. Needs git and network access.
#
# Usage: gather.sh DIR   (then: probe.py WARPJIT DIR/src DIR/out)
set -euo pipefail
dir=$(mkdir -p "$1" && cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/src" "$dir/inc"
[ -d "$dir/DXDecompiler" ] || git clone -q https://github.com/spacehamster/DXDecompiler "$dir/DXDecompiler"
[ -d "$dir/DirectXTK" ] || git clone -q https://github.com/microsoft/DirectXTK "$dir/DirectXTK"
c=65015954c722d1539d5450534c7760e5ae47d2b1
git -C "$dir/DXDecompiler" ls-tree -r --name-only $c | grep '\.asm$' | while read -r p; do
  n=$(echo "$p" | sed 's#^src/DXDecompiler.Tests/##; s#/#__#g')
  git -C "$dir/DXDecompiler" show "$c:$p" > "$dir/src/dxd__$n"
done
git -C "$dir/DirectXTK" log --all --format= --name-only -- 'Src/Shaders/Compiled/*.inc' | sort -u |
  while read -r p; do
    c=$(git -C "$dir/DirectXTK" log --all -1 --format=%H -- "$p")
    git -C "$dir/DirectXTK" cat-file -e "$c:$p" 2>/dev/null || c=$c^
    git -C "$dir/DirectXTK" show "$c:$p" > "$dir/inc/$(basename "$p")"
  done
(cd "$dir/inc" && python3 "$here/../extract_inc.py" ./*.inc >/dev/null)
for f in "$dir"/inc/*.asm; do cp "$f" "$dir/src/dxtk__$(basename "$f")"; done
ls "$dir/src" | wc -l
