#!/usr/bin/python3
"""Checks that every relative link in README.md and docs/*.md leads somewhere.

    /usr/bin/python3 docs/check_links.py

A link's path must name an existing file or folder (relative to the page that holds it);
a #fragment must name a heading or an <a id="..."> of the page it points to (headings
become anchors as GitHub makes them: lower case, punctuation dropped, spaces as dashes).
Links to other sites (http:, https:, mailto:) are not followed. Code blocks and code spans
are skipped. Exits 1 and lists the broken links when there are any."""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INLINE_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HTML_REF = re.compile(r"<(?:img|a)\s[^>]*?(?:src|href)=\"([^\"]+)\"", re.IGNORECASE)
HTML_ID = re.compile(r"<a\s[^>]*?(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def pages():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def prose_lines(text):
    """(line number, line) outside fenced and indented code blocks, code spans blanked."""
    fence = None
    previous_blank = True
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        marker = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None
            continue
        if marker:
            fence = marker.group(1)
            continue
        if previous_blank and line.startswith("    ") and stripped:
            continue  # an indented code block (it goes on until a blank line)
        previous_blank = not stripped or (previous_blank and line.startswith("    "))
        yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path) as f:
            text = f.read()
        found, counts = set(), {}
        for _, line in prose_lines(text):
            found.update(HTML_ID.findall(line))
            heading = HEADING.match(line)
            if heading:
                base = slug(heading.group(2))
                n = counts.get(base, 0)
                counts[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def check_page(page):
    problems = []
    with open(page) as f:
        text = f.read()
    where = os.path.relpath(page, ROOT)
    for number, line in prose_lines(text):
        targets = INLINE_LINK.findall(line) + HTML_REF.findall(line)
        definition = REFERENCE_DEF.match(line)
        if definition:
            targets.append(definition.group(1))
        for target in targets:
            if EXTERNAL.match(target):
                continue
            path_part, _, fragment = target.partition("#")
            resolved = page if not path_part else os.path.normpath(
                os.path.join(os.path.dirname(page), path_part))
            if not os.path.exists(resolved):
                problems.append(f"{where}:{number}: {target}: no such file")
                continue
            if not os.path.realpath(resolved).startswith(ROOT + os.sep):
                problems.append(f"{where}:{number}: {target}: outside the repository")
                continue
            if fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                problems.append(f"{where}:{number}: {target}: no heading or anchor "
                                f"'{fragment}' in {os.path.relpath(resolved, ROOT)}")
    return problems


def main():
    problems, count = [], 0
    for page in pages():
        problems += check_page(page)
        count += 1
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} broken link(s) in README.md and docs/*.md", file=sys.stderr)
        return 1
    print(f"links of {count} pages checked: all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
