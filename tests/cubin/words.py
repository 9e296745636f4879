#!/usr/bin/env python3
"""Print, per kernel, the 64-bit words of each .text.KERNEL section of CUDA cubins.

Usage: words.py FILE.cubin [FILE.cubin ...]   (default: every *.cubin beside this script)

For each `.text.NAME` section: its name, file offset, size and register count (sh_info >> 24),
then one line per 8-byte word: the offset inside the section and the little-endian word in hex.
On Maxwell every fourth word (offsets 0x00, 0x20, ...) is a scheduling control word. No
disassembly: this only makes the bytes easy to look at. Standard library only.
"""
import pathlib
import struct
import sys


def sections(data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(shnum):
        base = shoff + i * shentsize
        name, kind, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, base)
        headers.append((name, kind, off, size, info))
    strtab_off = headers[shstrndx][2]

    def name_of(idx):
        end = data.index(b"\0", strtab_off + idx)
        return data[strtab_off + idx:end].decode()

    return [(name_of(n), kind, off, size, info) for (n, kind, off, size, info) in headers]


def dump(path):
    data = pathlib.Path(path).read_bytes()
    print(f"== {path}")
    for name, _kind, off, size, info in sections(data):
        if not name.startswith(".text."):
            continue
        print(f"{name}  file offset {off:#x}  {size} bytes  {info >> 24} registers")
        for pos in range(0, size - size % 8, 8):
            word, = struct.unpack_from("<Q", data, off + pos)
            print(f"  {pos:04x}: {word:016x}")
        if size % 8:
            print(f"  ({size % 8} trailing bytes not shown)")


def main(argv):
    paths = argv[1:] or sorted(str(p) for p in pathlib.Path(__file__).parent.glob("*.cubin"))
    for path in paths:
        dump(path)


if __name__ == "__main__":
    main(sys.argv)
