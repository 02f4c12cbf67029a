#!/usr/bin/env python3
"""Print the text of a PDF, or its form fields with --fields."""

import argparse
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pdf")
    parser.add_argument("--fields", action="store_true", help="list form fields instead")
    args = parser.parse_args()
    try:
        from pypdf import PdfReader
    except ImportError:
        print("extract.py needs pypdf: pip install pypdf", file=sys.stderr)
        return 2
    reader = PdfReader(args.pdf)
    if args.fields:
        for name, field in sorted((reader.get_fields() or {}).items()):
            print(f"{name}\t{field.get('/FT', '?')}\t{field.get('/V', '')}")
        return 0
    for page in reader.pages:
        print(page.extract_text() or "")
        print("\f")
    return 0


if __name__ == "__main__":
    sys.exit(main())
