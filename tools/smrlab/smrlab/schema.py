"""Strict reading of TOML tables: every error names the dotted key and what is accepted."""

import math
from typing import Any, Callable

from smrlab.errors import BadInput


class SchemaError(BadInput):
    def __init__(self, origin: str, key: str, problem: str):
        super().__init__(f"{origin}: {key}: {problem}")


_MISSING = object()


class Table:
    """A TOML table being read; `close()` rejects any key nobody asked for."""

    def __init__(self, data: Any, origin: str, key: str):
        self.origin, self.key = origin, key
        if not isinstance(data, dict):
            self.fail(f"expected a table, got {describe(data)}")
        self.data = data
        self._seen: set[str] = set()

    def path(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def fail(self, problem: str, name: str | None = None):
        raise SchemaError(self.origin, self.path(name) if name else self.key or "(top level)", problem)

    def has(self, name: str) -> bool:
        return name in self.data

    def get(self, name: str, reader: Callable[[Any, "Table", str], Any], default: Any = _MISSING):
        self._seen.add(name)
        if name not in self.data:
            if default is _MISSING:
                self.fail("required key is missing", name)
            return default
        return reader(self.data[name], self, name)

    def sub(self, name: str) -> "Table":
        self._seen.add(name)
        return Table(self.data.get(name, {}), self.origin, self.path(name))

    def close(self, accepted: list[str] | None = None):
        unknown = sorted(set(self.data) - self._seen)
        if unknown:
            names = ", ".join(accepted or sorted(self._seen))
            self.fail(f"unknown key (accepted: {names})", unknown[0])


def describe(value: Any) -> str:
    kind = {bool: "boolean", int: "integer", float: "number", str: "string", list: "list", dict: "table"}
    return f"{kind.get(type(value), type(value).__name__)} {value!r}"


# Readers: (value, table, key) -> checked value.

def string(value, table: Table, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        table.fail(f"expected a non-empty string, got {describe(value)}", name)
    return value


def boolean(value, table: Table, name: str) -> bool:
    if not isinstance(value, bool):
        table.fail(f"expected true or false, got {describe(value)}", name)
    return value


def integer(minimum: int, maximum: int | None = None):
    def read(value, table: Table, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum \
                or (maximum is not None and value > maximum):
            accepted = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            table.fail(f"expected an integer {accepted}, got {describe(value)}", name)
        return value
    return read


def _finite(value) -> bool:
    # TOML has inf and nan; neither means anything as a duration, budget or bound.
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def positive_number(value, table: Table, name: str) -> float:
    if not _finite(value) or value <= 0:
        table.fail(f"expected a finite number > 0, got {describe(value)}", name)
    return float(value)


def number(value, table: Table, name: str) -> float:
    if not _finite(value):
        table.fail(f"expected a finite number, got {describe(value)}", name)
    return float(value)


def one_of(*choices: str):
    def read(value, table: Table, name: str) -> str:
        if value not in choices:
            table.fail(f"expected one of {', '.join(map(repr, choices))}, got {describe(value)}", name)
        return value
    return read


def list_of(item: Callable, what: str):
    """A non-empty list whose items pass `item`; `what` names the accepted items in errors."""
    def read(value, table: Table, name: str) -> list:
        if not isinstance(value, list) or not value:
            table.fail(f"expected a non-empty list of {what}, got {describe(value)}", name)
        return [item(v, table, f"{name}[{i}]") for i, v in enumerate(value)]
    return read
