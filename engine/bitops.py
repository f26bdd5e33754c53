"""Bit scans of square masks (bit ``sq`` set for square ``sq``): the pure build's versions of the C functions
the compiled build uses in their place (``engine/bitops.h``, cimported through ``engine/_bitops.pxd``)."""

from __future__ import annotations


def popcount(x: int) -> int:
    """The number of set bits of ``x`` (at least 0)."""
    return x.bit_count()


def lsb(x: int) -> int:
    """The index of the lowest set bit of ``x`` (not 0)."""
    return (x & -x).bit_length() - 1


def msb(x: int) -> int:
    """The index of the highest set bit of ``x`` (not 0)."""
    return x.bit_length() - 1
