"""Writing the report without ever leaving half of one: everything goes into a temporary
directory beside ``--out`` (created before training, so an unwritable ``--out`` fails
fast) and is moved into place at the end."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

from hookgrad.demo.errors import DemoError

__all__ = ["Staging"]


class Staging:
    """A temporary directory for the report that becomes ``out`` on :meth:`publish`.

    If ``out`` does not exist the directory is renamed to it; if it is an existing
    directory each staged file replaces its namesake there (other files are kept).
    Example::

        staging = Staging("hookgrad-report")
        try:
            (staging.path / "index.html").write_text(html)
            report = staging.publish()
        finally:
            staging.discard()
    """

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out = Path(out)
        if self.out.exists() and not self.out.is_dir():
            raise DemoError(f"--out {self.out}: exists and is not a directory")
        parent = self.out.absolute().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.path = parent / f".{self.out.name}-{secrets.token_hex(4)}.tmp"
            self.path.mkdir()
        except OSError as error:
            raise DemoError(f"--out {self.out}: cannot write there ({_reason(error)})") from None

    def publish(self) -> Path:
        """Move the staged files to ``out``; return ``out``."""
        try:
            if not self.out.exists():
                os.replace(self.path, self.out)
            else:
                for staged in self.path.iterdir():
                    os.replace(staged, self.out / staged.name)
        except OSError as error:
            raise DemoError(f"--out {self.out}: cannot write there ({_reason(error)})") from None
        return self.out

    def discard(self) -> None:
        """Remove the temporary directory if it is still there (safe after publish)."""
        shutil.rmtree(self.path, ignore_errors=True)


def _reason(error: OSError) -> str:
    return error.strerror or str(error)
