#!/usr/bin/env python3
"""Report links without a target and images without alt text in an HTML file."""

import sys
from html.parser import HTMLParser


class Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        line = self.getpos()[0]
        if tag == "a" and not values.get("href"):
            self.problems.append(f"line {line}: a link without href")
        if tag == "img" and not values.get("alt"):
            self.problems.append(f"line {line}: an image without alt text")


def main(path: str) -> int:
    checker = Checker()
    with open(path, encoding="utf-8") as fh:
        checker.feed(fh.read())
    for problem in checker.problems:
        print(f"{path}: {problem}")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
