"""Content files: read within limits, parsed as TOML, checked against the game's schema,
every error naming the file, the real line and the field.

The values come from the standard library's tomllib; the lines come from a concrete
syntax tree of the same text (tree-sitter's TOML grammar), which keeps the position of
every key, table and array element. A game describes its file with msgspec Structs
(strict types, ranges, unknown keys refused) and adds the checks that span several fields
(a printed total, a symmetric map) with `Document.error`.
"""

from __future__ import annotations

import re
import stat
import tomllib
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from simcli.errors import UserError
from simcli.filesafe import CONTENT_LIMIT
from simcli.textsafe import check_strings

MAX_BYTES = CONTENT_LIMIT  # no real content file comes near this
T = TypeVar("T")
Key = tuple[str | int, ...]


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_toml

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_toml.language()))


@dataclass
class Document:
    """A parsed content file: its path, bytes and values; the line of every key is found
    only when an error needs it (a valid file costs no syntax tree)."""

    path: Path
    raw: bytes
    data: dict[str, Any]

    @cached_property
    def lines(self) -> dict[Key, int]:
        """The line (from 1) of every key, table and array element."""
        return key_lines(self.raw)

    def line(self, key: Key) -> int | None:
        """The line (from 1) of the deepest part of `key` the file has."""
        for n in range(len(key), 0, -1):
            line = self.lines.get(tuple(key[:n]))
            if line is not None:
                return line
        return None

    def error(self, key: Key, message: str) -> UserError:
        """A one-line error: 'FILE line N: field 'a.b[2].c': message'."""
        line = self.line(key)
        where = f"{self.path} line {line}" if line else str(self.path)
        return UserError(f"{where}: field '{dotted(key)}': {message}" if key else
                         f"{where}: {message}")

    def convert(self, schema: type[T], key: Key = ()) -> T:
        """The values under `key` as the schema type, or the first problem as a one-line
        error naming its line and field."""
        node: Any = self.data
        for k in key:
            node = node[k]
        try:
            return msgspec.convert(node, type=schema, strict=True)
        except msgspec.ValidationError as exc:
            where, message = _split(str(exc))
            unknown = re.search(r"unknown field `([^`]*)`", message)
            if unknown:
                where = (*where, unknown.group(1))
            raise self.error((*key, *where), message) from None


def dotted(key: Key) -> str:
    """('roster', 'samurai', 3, 'power') as roster.samurai[3].power."""
    out = ""
    for k in key:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out


def _split(message: str) -> tuple[Key, str]:
    """msgspec's 'Expected ... - at `$.a.b[2]`' as (('a', 'b', 2), 'Expected ...')."""
    m = re.match(r"^(.*) - at `\$(.*)`$", message, re.S)
    if not m:
        return (), message
    text, path = m.group(1), m.group(2)
    key: list[str | int] = []
    for part in re.finditer(r"\.([^.\[]+)|\[(\d+)\]|\[\"((?:[^\"\\]|\\.)*)\"\]", path):
        if part.group(1) is not None:
            key.append(part.group(1))
        elif part.group(2) is not None:
            key.append(int(part.group(2)))
        else:
            key.append(part.group(3))
    return tuple(key), text


def read_document(path: Path) -> Document:
    """Read and parse a content file; unreadable, oversized, non-regular or malformed files
    raise a one-line UserError."""
    try:
        info = path.stat()
    except OSError as exc:
        raise UserError(f"cannot read content file {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"content file {path} is not a regular file")
    if info.st_size > MAX_BYTES:
        raise UserError(f"content file {path} is {info.st_size:,} bytes; the limit is "
                        f"{MAX_BYTES:,}")
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UserError(f"cannot read content file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise UserError(f"content file {path} is larger than {MAX_BYTES:,} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: malformed TOML: {exc}") from None
    except RecursionError:
        raise UserError(f"{path}: nested too deeply to read") from None
    check_strings(data, str(path))
    return Document(path, raw, data)


def key_lines(raw: bytes) -> dict[Key, int]:
    """The line (from 1) of every key, table header and array element of a TOML text."""
    tree = _parser().parse(raw)
    lines: dict[Key, int] = {}
    arrays_of_tables: dict[Key, int] = {}
    prefix: Key = ()
    for node in tree.root_node.named_children:
        if node.type == "pair":
            _pair(node, (), raw, lines)
        elif node.type in ("table", "table_array_element"):
            head = next((c for c in node.named_children if "key" in c.type), None)
            prefix = _key(head, raw) if head is not None else ()
            if node.type == "table_array_element":
                index = arrays_of_tables.get(prefix, 0)
                arrays_of_tables[prefix] = index + 1
                lines.setdefault(prefix, node.start_point[0] + 1)
                prefix = (*prefix, index)
            lines[prefix] = node.start_point[0] + 1
            for child in node.named_children:
                if child.type == "pair":
                    _pair(child, prefix, raw, lines)
    return lines


def _key(node, raw: bytes) -> Key:
    if node.type == "dotted_key":
        out: Key = ()
        for child in node.named_children:
            out = (*out, *_key(child, raw))
        return out
    text = raw[node.start_byte:node.end_byte].decode("utf-8")
    if node.type == "quoted_key":
        text = text[1:-1]
    return (text,)


def _pair(node, prefix: Key, raw: bytes, lines: dict[Key, int]) -> None:
    children = node.named_children
    key = (*prefix, *_key(children[0], raw))
    lines[key] = node.start_point[0] + 1
    if len(children) > 1:
        _value(children[-1], key, raw, lines)


def _value(node, key: Key, raw: bytes, lines: dict[Key, int]) -> None:
    if node.type == "inline_table":
        for child in node.named_children:
            if child.type == "pair":
                _pair(child, key, raw, lines)
    elif node.type == "array":
        index = 0
        for child in node.named_children:
            if child.type == "comment":
                continue
            lines[(*key, index)] = child.start_point[0] + 1
            _value(child, (*key, index), raw, lines)
            index += 1


def copy_to(source: Path, dest: Path) -> None:
    """Write the content file `source` to `dest`, to start a variant from: never over an
    existing file (UserError), never half a file (written beside it, then linked in
    place), with the permissions a new file gets."""
    import os
    import tempfile

    if dest.exists() or dest.is_symlink():
        raise UserError(f"{dest} already exists; simcli never replaces a file it did not "
                        f"write: choose another --copy path")
    if not dest.parent.is_dir():
        raise UserError(f"--copy {dest}: the folder {dest.parent} does not exist")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", dir=dest.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(source.read_text(encoding="utf-8"))
        mask = os.umask(0o022)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.link(tmp, dest)
    except FileExistsError:
        raise UserError(f"{dest} already exists; simcli never replaces a file it did not "
                        f"write: choose another --copy path") from None
    except OSError as exc:
        raise UserError(f"cannot write --copy {dest}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
