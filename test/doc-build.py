#!/usr/bin/env python3
"""Builds doc/presto.rst with docutils, warnings as errors.

ns-3 builds a module's documentation with Sphinx inside its own tree, where ``replace.txt``
(ns-3's doc/replace.txt, substitutions such as |ns3|) is found and ``highlight`` is a Sphinx
directive. Here plain docutils reads the file: an empty replace.txt beside a copy of it and a
``highlight`` that does nothing stand in for those two, and everything else must parse
without a warning (title levels, tables, literal blocks, references).

usage: doc-build.py SRC_DIR        exit 0 clean, 1 with the first problem printed
"""
import os
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


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: doc-build.py SRC_DIR", file=sys.stderr)
        return 2
    doc = os.path.join(sys.argv[1], "doc", "presto.rst")
    directives.register_directive("highlight", Highlight)
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "presto.rst")
        shutil.copyfile(doc, copy)
        open(os.path.join(tmp, "replace.txt"), "w").close()
        text = open(copy, encoding="utf-8").read()
        try:
            html = publish_string(
                text,
                source_path=copy,
                writer_name="html",
                settings_overrides={
                    "halt_level": 2,  # a warning stops the build
                    "report_level": 2,
                    "warning_stream": sys.stderr,
                    "output_encoding": "unicode",
                },
            )
        except SystemMessage as e:
            print("doc-build: doc/presto.rst: %s" % str(e).replace(copy, "doc/presto.rst"))
            return 1
    sections = html.count('<div class="section"') + html.count("<section")
    print("doc-build: doc/presto.rst builds clean (%d sections)" % sections)
    return 0


if __name__ == "__main__":
    sys.exit(main())
