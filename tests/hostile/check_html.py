#!/usr/bin/env python3
"""check_html.py FILE: fails (exit 1) if the HTML holds anything live a hostile lesson or results
file could have put there: a tag outside the handout's own vocabulary (script, iframe, svg, style
after the head, img with an event...), an attribute named on*, or an href/src whose URL, as a
browser reads it (entities decoded, whitespace and control characters removed), has a scheme
other than http, https or mailto. Parses with html.parser, so escaped text (&lt;script&gt;) is
text, and only what a browser would build as elements is judged."""
import sys
from html.parser import HTMLParser

ALLOWED = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "h5", "h6", "p", "a", "img",
           "em", "strong", "code", "pre", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "blockquote",
           "hr", "br", "del", "input", "span", "div"}
SAFE_SCHEMES = {"http", "https", "mailto"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self.in_body, self.tags = [], False, 0

    def handle_starttag(self, tag, attrs):
        self.tags += 1
        where = f"line {self.getpos()[0]}: <{tag}>"
        if tag == "body":
            self.in_body = True
        if tag not in ALLOWED:
            self.problems.append(f"{where}: tag not in the handout's vocabulary")
        if self.in_body and tag in {"style", "meta", "title", "div", "span"}:
            self.problems.append(f"{where}: {tag} inside the body (only markdown output belongs there)")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"{where}: event attribute {name}={value!r}")
            if name in {"href", "src", "action", "formaction", "xlink:href"} and value is not None:
                url = "".join(c for c in value if ord(c) > 0x20 and ord(c) != 0x7F)
                colon = url.find(":")
                if colon >= 0 and not any(c in url[:colon] for c in "/?#"):
                    if url[:colon].lower() not in SAFE_SCHEMES:
                        self.problems.append(f"{where}: {name} with scheme {url[:colon]!r}: {value!r}")
            if tag == "input" and name == "type" and value != "checkbox":
                self.problems.append(f"{where}: input of type {value!r}")

    handle_startendtag = handle_starttag


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    c = Checker()
    c.feed(text)
    c.close()
    for p in c.problems:
        print("LIVE:", p)
    print(f"check_html: {c.tags} tags parsed, {len(c.problems)} live markup problems")
    return 1 if c.problems or c.tags < 10 else 0


sys.exit(main())
