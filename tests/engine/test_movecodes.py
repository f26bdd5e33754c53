"""The move word (engine/movecodes.py): its fields give back what encode put in, and the compiled build's copy
of the functions (engine/movecodes.pxd, cpdef inline) has the same bodies and constants as the Python one."""

from __future__ import annotations

import ast
import random
import re
import textwrap
from pathlib import Path

from engine import movecodes
from engine.movecodes import (
    CASTLE,
    CASTLE_ROOK_GATE,
    DOUBLE_PUSH,
    DROP,
    NORMAL,
    PLACE,
    PROMOTION,
    encode,
    from_to,
    gated_piece,
    is_plain,
    is_simple_move,
    keyed_move,
    move_from,
    move_kind,
    move_piece,
    move_to,
)

PXD = Path(movecodes.__file__).with_suffix(".pxd")
_PXD_FUNCTION = re.compile(r"^cpdef inline \w+ (\w+)\((.*)\) noexcept:\n((?:    .*\n|\n)+)", re.M)


def test_the_fields_give_back_what_encode_put_in() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        frm, to, piece, kind = rng.randrange(64), rng.randrange(64), rng.randrange(16), rng.randrange(PLACE + 1)
        m = encode(frm, to, piece, kind)
        assert (move_from(m), move_to(m), move_piece(m), move_kind(m)) == (frm, to, piece, kind)
        assert from_to(m) == frm + 64 * to
        assert gated_piece(m) == (piece if kind < PROMOTION else 0)
        assert keyed_move(rng.randrange(1 << 40) << movecodes.MOVE_BITS | m) == m
        assert is_plain(m) == (kind == NORMAL and piece == 0)
        assert is_simple_move(m) == (kind in (NORMAL, DOUBLE_PUSH) and piece == 0)
    assert encode(12, 28) == 12 | 28 << 6
    assert not is_simple_move(encode(4, 7, 0, CASTLE))
    assert gated_piece(encode(4, 7, 7, CASTLE_ROOK_GATE)) == 7 and gated_piece(encode(9, 9, 7, DROP)) == 0


def _python_functions() -> dict[str, tuple[list[str], str]]:
    """Each public function of movecodes.py: its argument names and its body (docstring left out) as code."""
    tree = ast.parse(Path(movecodes.__file__).read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            body = [stmt for stmt in node.body
                    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))]
            out[node.name] = ([arg.arg for arg in node.args.args], "\n".join(ast.unparse(stmt) for stmt in body))
    return out


def test_the_compiled_builds_functions_are_the_python_ones() -> None:
    """movecodes.pxd holds each function of movecodes.py again (the compiled modules inline them): the same
    arguments and the same body, and its constants have the module's values."""
    text = PXD.read_text()
    python = _python_functions()
    compiled = {}
    for name, args, body in _PXD_FUNCTION.findall(text):
        names = [arg.split("=")[0].split()[-1] for arg in args.split(",")]
        compiled[name] = (names, "\n".join(ast.unparse(stmt) for stmt in ast.parse(textwrap.dedent(body)).body))
    assert compiled == python
    enum = re.search(r"^cdef enum:\n((?:    .*\n)+)", text, re.M)
    assert enum is not None
    for line in enum.group(1).splitlines():
        name, value = (part.strip() for part in line.split("="))
        assert getattr(movecodes, name) == int(value, 0), name
