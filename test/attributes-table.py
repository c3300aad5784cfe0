#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Generate doc/attributes.rst, the table of the module's attributes and trace sources.

    python3 test/attributes-table.py SRC_DIR OUT             write the table to OUT
    python3 test/attributes-table.py --check SRC_DIR OUT     also compare it with the doc

Every class that registers attributes or trace sources (an AddAttribute("Name") or
AddTraceSource("Name") after TypeId("ns3::Class") in a .cc file under model/ or helper/, read
as test/doc-coverage.sh reads them, files in sorted order), its source file, how many of
each, and where the doc documents them: every section of a page (in presto.rst's include
order) with a line naming ``ns3::Class``, as `Page <label_>`_, "Section". With --check the
table is written to OUT (the build folder) and compared with SRC_DIR/doc/attributes.rst:
exit status 1 with the difference and the command that regenerates the doc when they differ
(the ctest attributes-table).
"""

import difflib
import os
import re
import sys

HEADER = """.. _attributes:

Attributes
**********

Every class of the module that registers attributes or trace sources, its source file, and
the page and section that document them (a table after a line naming the class, as the
ctest ``doc-coverage`` checks). The values a run used are in its ``summary.json``; any of
them is set on the command line as ``--ns3::Class::Name=value``.

.. list-table::
   :header-rows: 1

   * - class
     - source
     - attributes
     - trace sources
     - documented in
"""

REGISTRATION = re.compile(
    r'TypeId\( *"ns3::([A-Za-z0-9_]+)" *\)|Add(Attribute|TraceSource)\( *"([A-Za-z0-9_]+)"'
    r"|([A-Za-z0-9_]+)::AddAttributes\("
)
UNDERLINE = re.compile(r"^([*]+|=+|#+|-+)$")


def registrations(src):
    """[(class, file, attributes, trace sources, their names)] in the order
    test/doc-coverage.sh reads them. Attributes several classes share are declared once in
    a Helper::AddAttributes defined in a .cc file without a TypeId (FlexToeExtensionSet); a
    class that calls Helper::AddAttributes( gets them, counted in its own file, paired with
    the first TypeId after the call."""
    files = []
    for top in ("model", "helper"):
        for root, _, names in os.walk(os.path.join(src, top)):
            files += [os.path.join(root, n) for n in names if n.endswith(".cc")]
    tokens = {}
    for path in sorted(files):
        # flattened: a name may sit on the line after "AddAttribute("
        with open(path, encoding="utf-8") as f:
            tokens[path] = list(REGISTRATION.finditer(f.read().replace("\n", " ")))
    shared = {}
    for path, found in tokens.items():
        if any(m.group(1) for m in found):
            continue
        group = None
        for m in found:
            if m.group(4):
                group = shared.setdefault(m.group(4), [])
            elif group is not None:
                group.append((m.group(2), m.group(3)))
    classes = {}
    for path in sorted(files):
        found = tokens[path]
        if not any(m.group(1) for m in found) and any(m.group(4) for m in found):
            continue  # a file of shared attributes: counted where they are used
        cls = None
        for i, m in enumerate(found):
            if m.group(1):
                cls = m.group(1)
                continue
            if m.group(4):
                if m.group(4) not in shared:
                    continue
                owner = next((n.group(1) for n in found[i + 1 :] if n.group(1)), None)
                if owner is None:
                    sys.exit("attributes-table: %s: %s::AddAttributes before no TypeId"
                             % (path, m.group(4)))
                add = shared[m.group(4)]
                target = owner
            else:
                if cls is None:
                    sys.exit("attributes-table: %s: %s before any TypeId" % (path, m.group(3)))
                add = [(m.group(2), m.group(3))]
                target = cls
            entry = classes.setdefault(target, [os.path.relpath(path, src), 0, 0, []])
            for kind, name in add:
                entry[1 if kind == "Attribute" else 2] += 1
                entry[3].append(name)
    return [(c, *e) for c, e in classes.items()]


def pages(src):
    """[(label, title, lines)] of the pages presto.rst includes, in its order; a page's
    title is its name in overview.rst's list of pages (`Fabric <fabric_>`_), else its
    first heading."""
    out = []
    with open(os.path.join(src, "doc", "presto.rst"), encoding="utf-8") as f:
        names = re.findall(r"^\.\. include:: ([a-z0-9-]+\.rst)$", f.read(), re.M)
    with open(os.path.join(src, "doc", "overview.rst"), encoding="utf-8") as f:
        titles = {}
        for title, label in re.findall(r"^\* `([^`<]+) <([a-z0-9-]+)_>`_:", f.read(), re.M):
            titles.setdefault(label, title)
    for name in names:
        if name == "attributes.rst":
            continue
        with open(os.path.join(src, "doc", name), encoding="utf-8") as f:
            lines = f.read().splitlines()
        label = re.match(r"\.\. _([a-z0-9-]+):", lines[0]) if lines else None
        if not label:
            sys.exit("attributes-table: doc/%s does not start with a label" % name)
        # a page the list does not name (the overview itself): its heading
        heading = next((lines[i - 1] for i in range(len(lines)) if is_heading(lines, i)), name)
        out.append((label.group(1), titles.get(label.group(1), heading), lines))
    return out


def is_heading(lines, i):
    """Whether line i underlines a heading (as test/doc-coverage.sh decides)."""
    return (
        i > 0
        and UNDERLINE.match(lines[i])
        and re.search(r"[A-Za-z0-9`]", lines[i - 1])
        and not re.match(r"^[=*#-]+( +[=*#-]+)*$", lines[i - 1])
    )


def documented_in(cls, names, docs):
    """Where an attribute or trace source of cls is documented: each section with a line
    naming ``ns3::cls`` followed, before the next heading, by one of names (the scope
    test/doc-coverage.sh reads), as [(label, page title, section)], each once."""
    places = []
    for label, title, lines in docs:
        section = None
        inside = False
        for i, line in enumerate(lines):
            if is_heading(lines, i):
                section = lines[i - 1].replace("``", "")
                inside = False
            if "``ns3::%s``" % cls in line:
                inside = True
            if inside and any("``%s``" % n in line for n in names):
                if (label, title, section) not in places:
                    places.append((label, title, section))
    return places


def table(src):
    docs = pages(src)
    rows = []
    for cls, path, attributes, traces, names in registrations(src):
        where = "; ".join(
            '`%s <%s_>`_, "%s"' % (title, label, section)
            for label, title, section in documented_in(cls, names, docs)
        )
        rows.append(
            "   * - ``%s``\n     - ``%s``\n     - %d\n     - %d\n     - %s\n"
            % (cls, path, attributes, traces, where)
        )
    return HEADER + "".join(rows)


def main(argv):
    check = argv[1:2] == ["--check"]
    args = argv[2:] if check else argv[1:]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    src, out = args
    text = table(src)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    if not check:
        return 0
    doc = os.path.join(src, "doc", "attributes.rst")
    with open(doc, encoding="utf-8") as f:
        committed = f.read()
    if committed == text:
        print("attributes-table: doc/attributes.rst is up to date")
        return 0
    sys.stdout.writelines(
        difflib.unified_diff(
            committed.splitlines(True), text.splitlines(True), "doc/attributes.rst", out
        )
    )
    print(
        "FAIL: doc/attributes.rst is stale; regenerate it with: "
        "python3 test/attributes-table.py . doc/attributes.rst"
    )
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
