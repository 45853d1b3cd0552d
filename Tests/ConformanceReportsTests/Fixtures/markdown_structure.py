"""Reads a Markdown report (the file named by its argument) and prints, as JSON, the structure a GitHub comment would show: headings,
links, images, HTML (blocks and inline) and the text outside code, as markdown-it-py parses GitHub-flavoured
Markdown (CommonMark, tables, strikethrough, and linkify for bare URLs as GitHub's autolinks).

Used by HostileOutputTests: no heading, link, image, mention or HTML may come from client text.
"""
import json
import sys

from markdown_it import MarkdownIt


def walk(tokens, found, in_heading=None):
    for token in tokens:
        if token.type == "heading_open":
            in_heading = []
        elif token.type == "heading_close":
            found["headings"].append("".join(in_heading))
            in_heading = None
        elif token.type == "html_block":
            found["html"].append(token.content)
        if token.type == "inline":
            for child in token.children or []:
                if child.type == "link_open":
                    found["links"].append(child.attrGet("href"))
                elif child.type == "image":
                    found["images"].append(child.attrGet("src"))
                elif child.type == "html_inline":
                    found["html"].append(child.content)
                elif child.type == "text":
                    found["text"].append(child.content)
                    if in_heading is not None:
                        in_heading.append(child.content)


def main():
    md = MarkdownIt("commonmark", {"linkify": True, "html": True}).enable(["table", "strikethrough", "linkify"])
    with open(sys.argv[1], encoding="utf-8") as report:
        tokens = md.parse(report.read())
    found = {"headings": [], "links": [], "images": [], "html": [], "text": []}
    walk(tokens, found)
    json.dump(found, sys.stdout)


main()
