"""What the trace generators in this folder share: u32 lists and constant-bank tables as TOML."""


def words(ws):
    """A TOML u32 list body: hexadecimal words, six to a line."""
    return ",\n       ".join(", ".join(f"0x{w:08x}" for w in ws[i:i + 6]) for i in range(0, len(ws), 6))


def const_tables(filled, word):
    """One [[const]] table per (bank, (lo, hi)) range of `filled`, holding word(bank, addr)."""
    return [f"[[const]]\nbank = {bank}\noffset = 0x{lo:x}\nu32 = [{words([word(bank, a) for a in range(lo, hi, 4)])}]\n"
            for bank, ranges in filled.items() for lo, hi in ranges]
