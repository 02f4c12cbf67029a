"""What the frontmatter reader hands on: a :class:`Frontmatter`, or a
:class:`FrontmatterError` with its rule code, position and hint; the limits and codes."""

from __future__ import annotations

from dataclasses import dataclass, field

from skillpack._internal.canonical import JSONValue
from skillpack.errors import SkillpackError

#: A place in the frontmatter object: mapping keys and sequence indexes from the root.
KeyPath = tuple[str | int, ...]
#: File (line, column), both 1-based.
Position = tuple[int, int]

MAX_BLOCK_BYTES = 64 * 1024
MAX_DEPTH = 16
MAX_SAFE_INT = 2**53 - 1
FENCE = "---"
BOM = "\ufeff"
FORBIDDEN_CHARS = {"\x85": "NEL (U+0085)", "\u2028": "LINE SEPARATOR (U+2028)",
                   "\u2029": "PARAGRAPH SEPARATOR (U+2029)"}  # fmt: skip

# Rule codes (documented in docs/rules.md; see skillpack.lint.catalog)
MISSING_FENCE = "SP001"
UNTERMINATED = "SP002"
YAML_SYNTAX = "SP003"
NOT_A_MAPPING = "SP004"
DIRECTIVE = "SP005"
TAG = "SP006"
ANCHOR_ALIAS = "SP007"
MERGE_KEY = "SP008"
NON_STRING_KEY = "SP009"
DUPLICATE_KEY = "SP010"
TOO_DEEP = "SP011"
TOO_LARGE = "SP012"
AMBIGUOUS_SCALAR = "SP013"
FORBIDDEN_CHAR = "SP014"
OUT_OF_RANGE = "SP015"
MULTIPLE_DOCUMENTS = "SP016"
NOT_UTF8 = "SP017"
UNENCODABLE = "SP018"


class FrontmatterError(SkillpackError):
    """A refusal: rule ``code`` (a lint rule, registered in :mod:`skillpack.errors` too),
    1-based ``line`` and ``column`` in the file (0: unknown), and a hint. The reader reads
    bytes, not a path: callers that know the file add it to what they report.

    A block refused for several reasons raises the first of them (in file order), and
    :attr:`refusals` holds every one, that first one included: ``skillpack lint`` reports
    them all, commands that only need to know whether a file can be read use the first.
    """

    hint: str  #: "" when there is none

    def __init__(self, code: str, message: str, line: int, column: int, hint: str = "") -> None:
        self.line = line
        self.column = column
        super().__init__(code, message, None, hint)
        self.refusals: tuple[FrontmatterError, ...] = (self,)

    @staticmethod
    def of(refusals: list[FrontmatterError]) -> FrontmatterError:
        """The first of ``refusals`` in file order, carrying them all (at least one)."""
        ordered = sorted(refusals, key=lambda r: (r.line, r.column))
        first = ordered[0]
        first.refusals = tuple(ordered)
        return first

    def render(self) -> str:
        where = f"{self.line}:{self.column}: " if self.line else ""
        return where + super().render()


@dataclass(frozen=True)
class Frontmatter:
    """A parsed ``SKILL.md``: its frontmatter object and where each part lies."""

    data: dict[str, JSONValue]
    block: str  #: the YAML text between the fences (BOM and fences excluded)
    block_line: int  #: file line (1-based) of the block's first line
    close_line: int  #: file line of the closing fence
    body: str  #: everything after the closing fence line, untouched
    has_bom: bool
    crlf: bool  #: the file uses CRLF line endings
    #: file (line, column) of every mapping key and sequence item, by its path
    positions: dict[KeyPath, Position] = field(default_factory=dict)
