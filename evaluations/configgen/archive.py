"""The generated files as one gzip tar (`config.tar.gz`): every file under one top directory,
regular files 0644 owned by no one, all dated at one given time, so the same files and date give
the same bytes. Plain Python (tarfile, gzip)."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Protocol


class ArchivedFile(Protocol):
    path: str

    @property
    def content(self) -> str: ...


def archive_path(top: str, path: str) -> str:
    """`top/path`, refusing what could land outside the top directory once untarred."""
    for part in (top, path):
        parts = PurePosixPath(part).parts
        if not part or part.startswith("/") or "\\" in part or ".." in parts or "." in parts:
            raise ValueError(f"refused archive path {part!r}: relative paths below the top only")
    return f"{top}/{path}"


def config_archive(files: Iterable[ArchivedFile], *, top: str, mtime: int) -> bytes:
    """The files as a .tar.gz under `top/`, in the order given (the API's order)."""
    members = [(archive_path(top, file.path), file.content.encode("utf-8")) for file in files]
    raw = io.BytesIO()
    # PAX is tarfile's default; it adds no extended header for short ASCII names, which the
    # generated paths are (DNS labels), and stays exact if one ever is not.
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = mtime
            info.type = tarfile.REGTYPE
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    packed = io.BytesIO()
    # gzip's header carries a date and a file name too (RFC 1952): the same date, no name.
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=mtime) as stream:
        stream.write(raw.getvalue())
    return packed.getvalue()
