"""Sorting of move-ordering keys, highest first: the pure-Python half of a pair.

A key is ``ordering key << 20 | move code`` (one int per move; the codes of one move list differ, so the keys
do too and any correct sort gives the same order). Under CPython and PyPy these are ``list.sort``. The
compiled build (``SCHESS_ENGINE_COMPILE=1``) replaces this module by ``keysort.pyx``: the same functions on
C arrays (an insertion sort of C ``long long`` keys, which hands back the existing int objects instead of
making new ones).
"""

from __future__ import annotations


def sorted_desc(keyed: list[int]) -> list[int]:
    """``keyed`` sorted highest first (the list itself, sorted in place; the compiled build returns a new one)."""
    keyed.sort(reverse=True)
    return keyed


def codes_by_key(moves: list[int], keyed: list[int]) -> list[int]:
    """The codes of ``moves``, highest key first, where ``keyed[i]`` is ``key << 20 | moves[i]`` (``keyed`` is
    consumed)."""
    keyed.sort(reverse=True)
    return [k & 0xFFFFF for k in keyed]
