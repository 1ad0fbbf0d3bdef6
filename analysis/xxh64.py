"""XXH64 in pure Python, for a Python without Debian's python3-xxhash (a cluster's own Python).

The loader checks schema 2.1's ``text_checksum`` (analysis.load.check_text_attributes) with the
package xxhash when it is there; this module gives the same digests without it, slower (about
ten megabytes a second; the text attributes of a result file are a few kilobytes). The algorithm is Yann Collet's
XXH64 as specified in xxHash's doc/xxhash_spec.md, the one nqc's src/io/hash.cpp computes;
tests/test_load.py checks it against python3-xxhash.

    h = XXH64(seed=0); h.update(b"..."); h.intdigest()  # as xxhash.xxh64
"""
from __future__ import annotations

_MASK = (1 << 64) - 1
_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _MASK


def _round(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & _MASK
    return (_rotl(acc, 31) * _P1) & _MASK


def _merge(acc: int, v: int) -> int:
    acc ^= _round(0, v)
    return (acc * _P1 + _P4) & _MASK


def digest(data: bytes, seed: int = 0) -> int:
    """The XXH64 of `data` with `seed`, as an unsigned 64-bit integer."""
    n = len(data)
    i = 0
    if n >= 32:
        v1 = (seed + _P1 + _P2) & _MASK
        v2 = (seed + _P2) & _MASK
        v3 = seed & _MASK
        v4 = (seed - _P1) & _MASK
        while i + 32 <= n:
            v1 = _round(v1, int.from_bytes(data[i:i + 8], "little"))
            v2 = _round(v2, int.from_bytes(data[i + 8:i + 16], "little"))
            v3 = _round(v3, int.from_bytes(data[i + 16:i + 24], "little"))
            v4 = _round(v4, int.from_bytes(data[i + 24:i + 32], "little"))
            i += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _MASK
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _MASK
    h = (h + n) & _MASK
    while i + 8 <= n:
        h ^= _round(0, int.from_bytes(data[i:i + 8], "little"))
        h = (_rotl(h, 27) * _P1 + _P4) & _MASK
        i += 8
    if i + 4 <= n:
        h ^= (int.from_bytes(data[i:i + 4], "little") * _P1) & _MASK
        h = (_rotl(h, 23) * _P2 + _P3) & _MASK
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _MASK
        h = (_rotl(h, 11) * _P1) & _MASK
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _MASK
    h ^= h >> 29
    h = (h * _P3) & _MASK
    h ^= h >> 32
    return h


class XXH64:
    """The streaming interface of xxhash.xxh64 that the loader uses: update(), intdigest()."""

    def __init__(self, seed: int = 0):
        self._seed = seed
        self._data = bytearray()

    def update(self, data: bytes) -> None:
        self._data += data

    def intdigest(self) -> int:
        return digest(bytes(self._data), self._seed)
