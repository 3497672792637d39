"""Safe arithmetic for the calculator tool: numbers, + - * / % **, parentheses; nothing else."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from toolgym.errors import ToolError

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_MAX_LENGTH = 200
_MAX_MAGNITUDE = 1e15


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression, rounded to 2 decimals."""
    if len(expression) > _MAX_LENGTH:
        raise ToolError(f"expression is {len(expression)} characters long; the limit is {_MAX_LENGTH}")
    try:
        tree = ast.parse(expression.replace("^", "**"), mode="eval")
        value = _value(tree.body, expression)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ToolError(
            f"{expression!r} is not an arithmetic expression: use numbers, + - * / % ** and parentheses"
        ) from None
    except OverflowError:
        raise ToolError(f"{expression!r} gives a result out of range") from None
    except ZeroDivisionError:  # 0 ** -1 divides by zero without a / in sight
        raise ToolError(f"{expression!r} divides by zero") from None
    if not math.isfinite(value) or abs(value) > _MAX_MAGNITUDE:
        raise ToolError(f"{expression!r} gives a result out of range")
    return round(value, 2)


def _value(node: ast.AST, expression: str) -> float:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand, expression))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, expression), _value(node.right, expression)
        if isinstance(node.op, ast.Pow) and (abs(right) > 10 or abs(left) > 1e6):
            raise ToolError(f"{expression!r}: exponents are limited to 10 and bases to 1,000,000")
        if isinstance(node.op, ast.Div | ast.Mod) and right == 0:
            raise ToolError(f"{expression!r} divides by zero")
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, complex) or abs(result) > _MAX_MAGNITUDE:
            raise ToolError(f"{expression!r} gives a result out of range")
        return result
    raise ToolError(f"{expression!r} contains something other than numbers and + - * / % ** ( )")
