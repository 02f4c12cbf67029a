"""The text around the YAML: decoding ``SKILL.md``, finding the fences, and the refusals
made on the raw block before any YAML is read (size, line separators, directives)."""

from __future__ import annotations

from skillpack.source.frontmatter.model import (
    BOM,
    DIRECTIVE,
    FENCE,
    FORBIDDEN_CHAR,
    FORBIDDEN_CHARS,
    MAX_BLOCK_BYTES,
    MISSING_FENCE,
    NOT_UTF8,
    TOO_LARGE,
    UNTERMINATED,
    FrontmatterError,
    Position,
)


def _is_fence(line: str) -> bool:
    return line.rstrip(" \t\r\n") == FENCE


def position_of_offset(text: str, offset: int) -> Position:
    """(line, column), 1-based, of the character at ``offset`` of ``text``."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def decode_skill_md(data: bytes) -> str:
    """Decode ``SKILL.md`` bytes as UTF-8, refusing anything else with a position."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        line, column = position_of_offset(good, len(good))
        raise FrontmatterError(
            NOT_UTF8,
            f"SKILL.md is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            line,
            column,
            "save the file as UTF-8",
        ) from None


def split_frontmatter(text: str) -> tuple[str, int, int, str, bool]:
    """Split decoded ``SKILL.md`` text: (block, block_line, close_line, body, has_bom)."""
    has_bom = text.startswith(BOM)
    if has_bom:
        text = text[1:]
    # Not splitlines(): it also breaks on NEL, LS, PS and other separators. Fences are
    # found on "\n"-separated lines, the way Markdown tools read them.
    lines = text.split("\n")
    if not lines or not _is_fence(lines[0]):
        raise FrontmatterError(
            MISSING_FENCE,
            "SKILL.md must start with a '---' line opening the YAML frontmatter",
            1,
            1,
            "add '---', the name and description, and a closing '---' at the top of the file",
        )
    for index in range(1, len(lines)):
        if _is_fence(lines[index]):
            block = "\n".join(lines[1:index])
            if index > 1:
                block += "\n"
            body = "\n".join(lines[index + 1 :])
            return block, 2, index + 1, body, has_bom
    raise FrontmatterError(
        UNTERMINATED,
        "the frontmatter opened on line 1 is never closed",
        1,
        1,
        "add a '---' line after the last frontmatter key",
    )


def check_block(block: str, line_offset: int) -> None:
    """The refusals made on the raw text, before any YAML is read: the size first (a
    block over the limit is refused at once, unread), then every line separator YAML 1.1
    and 1.2 disagree about and every directive line, all of them."""
    if len(block.encode("utf-8")) > MAX_BLOCK_BYTES:
        raise FrontmatterError(
            TOO_LARGE,
            f"frontmatter is larger than {MAX_BLOCK_BYTES // 1024} KiB",
            line_offset + 1,
            1,
            "move long text into the body or a file under references/",
        )
    refusals: list[FrontmatterError] = []
    for char, label in FORBIDDEN_CHARS.items():
        at = block.find(char)
        while at >= 0:
            line, column = position_of_offset(block, at)
            refusals.append(
                FrontmatterError(
                    FORBIDDEN_CHAR,
                    f"{label} is a line break to YAML 1.1 but not to YAML 1.2",
                    line + line_offset,
                    column,
                    "replace it with a space or a newline",
                )
            )
            at = block.find(char, at + 1)
    if "%" in block:
        for index, text_line in enumerate(block.split("\n")):
            if text_line.startswith("%"):
                message = "YAML directives (%YAML, %TAG) are not allowed"
                line = index + 1 + line_offset
                refusals.append(
                    FrontmatterError(DIRECTIVE, message, line, 1, "remove the directive line")
                )
    if refusals:
        raise FrontmatterError.of(refusals)
