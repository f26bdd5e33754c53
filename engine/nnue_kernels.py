"""The learned evaluation's two hot loops (engine.nnue), in plain Python for the pure build.

The compiled build replaces this module by C functions of the same names (``engine/nnue_kernels.h``, declared in
``engine/_nnue_kernels.pxd``) and picks their instruction set when the engine starts: AVX2 where the processor
has it, else the compiler's default for the target (SSE2 on x86-64). Both give the same sums bit for bit, so
the search's tree does not depend on the processor.

Levels (:func:`level`, :func:`select`): 0 this module, 1 the C loops at the default instruction set, 2 the C loops
with AVX2.
"""

from __future__ import annotations

from typing import Sequence

PYTHON = 0
PORTABLE = 1
AVX2 = 2


def apply_changes(values: list[int], a: int, b: int, w1: Sequence[int], added: Sequence[int], n_add: int,
                  removed: Sequence[int], n_sub: int, perspective: int, h: int) -> None:
    """One perspective's sums: ``values[b:b + h]`` := ``values[a:a + h]`` plus the rows of ``w1`` (``h`` words
    each) that ``added`` names, minus those ``removed`` names (the perspective's rows at ``2k + perspective``),
    the first of each fused with the copy."""
    j = 0
    k = 0
    if n_add and n_sub:
        plus = added[perspective] * h
        minus = removed[perspective] * h
        for i in range(h):
            values[b + i] = values[a + i] + w1[plus + i] - w1[minus + i]
        j = k = 1
    elif n_add:
        plus = added[perspective] * h
        for i in range(h):
            values[b + i] = values[a + i] + w1[plus + i]
        j = 1
    elif n_sub:
        minus = removed[perspective] * h
        for i in range(h):
            values[b + i] = values[a + i] - w1[minus + i]
        k = 1
    elif a != b:
        for i in range(h):
            values[b + i] = values[a + i]
    while j < n_add:
        row = added[2 * j + perspective] * h
        for i in range(h):
            values[b + i] += w1[row + i]
        j += 1
    while k < n_sub:
        row = removed[2 * k + perspective] * h
        for i in range(h):
            values[b + i] -= w1[row + i]
        k += 1


def output_sum(values: Sequence[int], us: int, them: int, w2: Sequence[int], h: int, qa: int) -> int:
    """The output layer's sum in 16-bit lanes: for each of the ``h`` sums at ``us`` (then ``them``), clipped to
    0..``qa`` (at most 255), ``c * c - 32768`` (which fits a short) times its weight in ``w2`` (``us``'s first),
    added up. The caller adds back ``32768 * sum(w2)`` and checked that each half's sum fits a C int."""
    half_us = 0
    half_them = 0
    for i in range(h):
        c = values[us + i]
        c = c if c > 0 else 0
        c = c if c < qa else qa
        half_us += (c * c - 32768) * w2[i]
    for i in range(h):
        c = values[them + i]
        c = c if c > 0 else 0
        c = c if c < qa else qa
        half_them += (c * c - 32768) * w2[h + i]
    return half_us + half_them


def level() -> int:
    """The loops in use: :data:`PYTHON` here."""
    return PYTHON


def select(wanted: int) -> int:
    """Use the loops of level ``wanted`` where this build and processor have them, else the nearest ones they
    have; the level in use. Plain Python has only its own."""
    return PYTHON
