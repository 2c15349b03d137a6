"""The compiled module loads in any process: on Linux it must not need static thread-local
storage (the ELF flag DF_STATIC_TLS). A module loaded with ``dlopen`` (as Python loads every
extension) that needs it gets its thread-local block from a small surplus glibc reserves at
startup, shared with every other such module of the process; once the surplus is used up the
import fails with "cannot allocate memory in static TLS block". The allocator revad ships
(mimalloc) is built with local-dynamic TLS for that reason.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

import revad

DT_NULL, DT_FLAGS = 0, 30
DF_STATIC_TLS = 0x10
PT_DYNAMIC = 2


def dynamic_flags(path: Path) -> int:
    """DT_FLAGS of a little-endian 64-bit ELF shared object (0 when it has none)."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "a little-endian ELF64"
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for k in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + k * phentsize
        )
        if p_type != PT_DYNAMIC:
            continue
        for at in range(p_offset, p_offset + p_filesz, 16):
            tag, value = struct.unpack_from("<qQ", data, at)
            if tag == DT_NULL:
                break
            if tag == DT_FLAGS:
                return value
    return 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF shared objects")
def test_the_extension_needs_no_static_tls():
    path = Path(revad._revad.__file__)
    if open(path, "rb").read(4) != b"\x7fELF":
        pytest.skip("not an ELF file")
    flags = dynamic_flags(path)
    assert not flags & DF_STATIC_TLS, f"{path.name} needs static TLS (DT_FLAGS = {flags:#x})"


def test_the_reader_finds_the_flag(tmp_path):
    """The reader itself, on a minimal ELF64 with a dynamic section holding DT_FLAGS."""
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 0x20, 64)  # e_phoff
    struct.pack_into("<HH", header, 0x36, 56, 1)  # e_phentsize, e_phnum
    dynamic = struct.pack("<qQqQ", DT_FLAGS, DF_STATIC_TLS | 0x8, DT_NULL, 0)
    phdr = struct.pack("<IIQQQQQQ", PT_DYNAMIC, 0, 64 + 56, 0, 0, len(dynamic), len(dynamic), 8)
    path = tmp_path / "lib.so"
    path.write_bytes(bytes(header) + phdr + dynamic)
    assert dynamic_flags(path) == DF_STATIC_TLS | 0x8
    path.write_bytes(bytes(header) + phdr + struct.pack("<qQ", DT_NULL, 0))
    assert dynamic_flags(path) == 0
