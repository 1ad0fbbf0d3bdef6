#!/usr/bin/python3
"""Damage a file the way disks, copies and editors do (in place), or find where to.

usage: damage.py FILE bit BYTE BIT          flip one bit (BYTE may be negative: from the end)
       damage.py FILE bits N [--seed S]     flip N random bits
       damage.py FILE truncate BYTES        keep the first BYTES bytes
       damage.py FILE zero OFFSET LENGTH    zero LENGTH bytes from OFFSET
       damage.py FILE where metadata        a byte inside the first HDF5 object header (the
                                            root group's: its attributes), as "OFFSET"
       damage.py FILE where chunk [DATASET] a byte inside the first stored chunk of DATASET
                                            (default cases), as "OFFSET"
       damage.py FILE where header [DATASET] a byte inside the object header of DATASET
                                            (default cases), as "OFFSET"
       damage.py FILE where heap-index      schema 1.0/1.1 files: the byte of a string
                                            attribute's heap index whose bit 2 crashes HDF5 1.10
       damage.py FILE where text TEXT       the middle byte of TEXT, which the file holds once
                                            (schema 2.1: a text attribute's value in its global
                                            heap), as "OFFSET"
Prints what it did, one line per change. Used by tests/cli/test_damage.sh and
bench/damage_campaign.py; the damage kinds are those of a reported damaged-files case.
"""
import random
import sys


def flip_bit(data: bytearray, offset: int, bit: int) -> str:
    data[offset] ^= 1 << bit
    return f"byte {offset % len(data)} bit {bit}"


def flip_bits(data: bytearray, count: int, rng: random.Random) -> list:
    return [flip_bit(data, rng.randrange(len(data)), rng.randrange(8)) for _ in range(count)]


def truncate(data: bytearray, size: int) -> str:
    del data[size:]
    return f"truncated to {size} bytes"


def zero(data: bytearray, offset: int, length: int) -> str:
    length = max(0, min(length, len(data) - offset))
    data[offset : offset + length] = bytes(length)
    return f"zeroed {length} bytes at {offset}"


def metadata_offset(data: bytes) -> int:
    """A byte in the middle of the first version-2 object header (signature OHDR): the root
    group's, which holds the root attributes (files of schema 1.2 on)."""
    return data.find(b"OHDR") + 40


def heap_index_offset(data: bytes) -> int:
    """Files of schema 1.0 and 1.1 (variable-length string attributes): the high byte of the
    first heap index that points into the first global heap collection (8-byte address, then
    a 4-byte index); set bit 2 there and HDF5 1.10 reads far out of the collection."""
    import struct

    key = struct.pack("<Q", data.find(b"GCOL"))
    return data.find(key) + 11


def text_offset(data: bytes, text: str) -> int:
    """The middle byte of `text`'s bytes, which must occur exactly once in the file."""
    key = text.encode()
    at = data.find(key)
    if at < 0 or data.find(key, at + 1) >= 0:
        sys.exit(f"damage.py: {text!r} occurs {data.count(key)} times in the file, expected once")
    return at + len(key) // 2


def chunk_offset(path: str, dataset: str = "cases") -> int:
    """A byte in the middle of the first stored chunk of `dataset` (h5py's chunk index)."""
    import h5py

    with h5py.File(path, "r") as f:
        info = f[dataset].id.get_chunk_info(0)
        return info.byte_offset + info.size // 2


def header_offset(path: str, dataset: str = "cases") -> int:
    """A byte inside the object header of `dataset` (its address from h5py): damage there
    leaves the link to it intact and the object unreadable."""
    import h5py

    with h5py.File(path, "r") as f:
        return h5py.h5o.get_info(f[dataset].id).addr + 40


def main(argv: list) -> int:
    if len(argv) < 3:
        sys.exit(__doc__)
    path, mode, args = argv[1], argv[2], argv[3:]
    if mode == "where":
        what = args[0]
        if what == "metadata":
            print(metadata_offset(open(path, "rb").read()))
        elif what == "heap-index":
            print(heap_index_offset(open(path, "rb").read()))
        elif what == "text":
            print(text_offset(open(path, "rb").read(), args[1]))
        elif what == "chunk":
            print(chunk_offset(path, args[1] if len(args) > 1 else "cases"))
        elif what == "header":
            print(header_offset(path, args[1] if len(args) > 1 else "cases"))
        else:
            sys.exit(__doc__)
        return 0
    data = bytearray(open(path, "rb").read())
    if mode == "bit":
        done = [flip_bit(data, int(args[0]), int(args[1]))]
    elif mode == "bits":
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 0
        done = flip_bits(data, int(args[0]), random.Random(seed))
    elif mode == "truncate":
        done = [truncate(data, int(args[0]))]
    elif mode == "zero":
        done = [zero(data, int(args[0]), int(args[1]))]
    else:
        sys.exit(__doc__)
    with open(path, "wb") as f:
        f.write(data)
    print("\n".join(done))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
