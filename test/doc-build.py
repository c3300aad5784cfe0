#!/usr/bin/env python3
"""Builds the documentation, doc/presto.rst and the pages it includes, with docutils, warnings
as errors.

doc/presto.rst is the index: a table of contents and one ``.. include::`` per page (every other
doc/*.rst). Each page must be included exactly once, so that none is left out of the build;
the pages share one document, so hyperlink targets (``.. _fabric:``) resolve across them.

ns-3 builds a module's documentation with Sphinx inside its own tree, where ``replace.txt``
(ns-3's doc/replace.txt, substitutions such as |ns3|) is found and ``highlight`` is a Sphinx
directive. Here plain docutils reads the files: an empty replace.txt beside copies of them and a
``highlight`` that does nothing stand in for those two, and everything else must parse
without a warning (title levels, tables, literal blocks, references).

usage: doc-build.py SRC_DIR        exit 0 clean, 1 with the first problem printed
"""
import io
import os
import re
import shutil
import sys
import tempfile

from docutils.core import publish_string
from docutils.parsers.rst import Directive, directives
from docutils.utils import SystemMessage


class Highlight(Directive):
    """Sphinx's ``highlight``: sets the default code language, which docutils has no use for."""

    required_arguments = 1
    optional_arguments = 0
    has_content = False
    option_spec = {"linenothreshold": directives.unchanged}

    def run(self):
        return []


def included_pages(index_text):
    """The file names of the index's ``.. include::`` directives, in order."""
    return re.findall(r"^\.\. include:: *(\S+) *$", index_text, re.M)


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: doc-build.py SRC_DIR", file=sys.stderr)
        return 2
    docdir = os.path.join(sys.argv[1], "doc")
    pages = sorted(f for f in os.listdir(docdir) if f.endswith(".rst") and f != "presto.rst")
    index_text = open(os.path.join(docdir, "presto.rst"), encoding="utf-8").read()
    included = [f for f in included_pages(index_text) if f != "replace.txt"]
    for page in pages:
        if included.count(page) != 1:
            print("doc-build: doc/presto.rst includes doc/%s %d times (must be once)" % (page, included.count(page)))
            return 1
    for page in included:
        if page not in pages:
            print("doc-build: doc/presto.rst includes %s, which is not a page of doc/" % page)
            return 1
    directives.register_directive("highlight", Highlight)
    with tempfile.TemporaryDirectory() as tmp:
        for page in pages + ["presto.rst"]:
            shutil.copyfile(os.path.join(docdir, page), os.path.join(tmp, page))
        open(os.path.join(tmp, "replace.txt"), "w").close()
        copy = os.path.join(tmp, "presto.rst")
        try:
            html = publish_string(
                index_text,
                source_path=copy,
                writer_name="html",
                settings_overrides={
                    "halt_level": 2,  # a warning stops the build
                    "report_level": 2,
                    "warning_stream": io.StringIO(),  # the first problem is printed below
                    "output_encoding": "unicode",
                },
            )
        except SystemMessage as e:
            print("doc-build: %s" % str(e).replace(tmp + os.sep, "doc/"))
            return 1
    sections = html.count('<div class="section"') + html.count("<section")
    print("doc-build: doc/presto.rst and its %d pages build clean (%d sections)" % (len(pages), sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
