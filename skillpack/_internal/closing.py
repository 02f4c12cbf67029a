"""One base for the values a caller closes (an open bundle, a source opened for
installing, a verified fetch): ``with value:`` closes it, whatever happened."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """A value with :meth:`close`, usable as a context manager that closes it."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
