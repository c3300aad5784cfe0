#!/bin/sh
# Usage: test/doc-coverage.sh SRC_DIR
#
# Checks that the documentation (every doc/*.rst page) documents every attribute and trace
# source of the module.
# For each .cc file under model/ and helper/ it pairs every AddAttribute("Name") and
# AddTraceSource("Name") with the class of the TypeId("ns3::Class") registered before it in
# that file. The pair Class::Name is documented when ``Name`` appears in a part of a doc page
# that names ``ns3::Class``: from a line containing ``ns3::Class`` to the next section
# heading or the end of that page (so a table introduced by "Attributes of ``ns3::Class``:"
# counts, and the same attribute name documented only for another class does not).
# Exit status 0 when all are documented, 1 listing the missing ones as Class::Name, 2 on
# usage errors.
set -eu

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 SRC_DIR" >&2
    exit 2
fi
src=$1
if [ ! -f "$src/doc/presto.rst" ]; then
    echo "doc-coverage: $src/doc/presto.rst not found" >&2
    exit 2
fi

# Class::Name pairs, in source order. Files are flattened first because a name may sit on
# the line after "AddAttribute(".
# Attributes that several classes share are declared once in a static Helper::AddAttributes
# defined in a .cc file without a TypeId (FlexToeExtensionSet::AddAttributes); a class that
# passes its TypeId("ns3::Class") to Helper::AddAttributes( gets them, paired with the first
# TypeId after the call in its file.
pairs=$(for f in $(find "$src/model" "$src/helper" -name '*.cc' | sort); do
    [ -f "$f" ] || continue
    tr '\n' ' ' <"$f" |
        grep -oE 'TypeId\( *"ns3::[A-Za-z0-9_]+" *\)|[A-Za-z0-9_]+::AddAttributes\(|Add(Attribute|TraceSource)\( *"[A-Za-z0-9_]+"' |
        awk -v file="$f" '{ print file "\t" $0 }'
done | awk -F '\t' '
    {
        ++t; file[t] = $1; tok = $2
        if (tok ~ /^TypeId/) { kind[t] = "type"; sub(/^TypeId\( *"ns3::/, "", tok); sub(/".*/, "", tok) }
        else if (tok ~ /::AddAttributes\($/) { kind[t] = "shared"; sub(/::AddAttributes\($/, "", tok) }
        else { kind[t] = "name"; sub(/^[^"]*"/, "", tok); sub(/"$/, "", tok) }
        val[t] = tok
        if (kind[t] == "type") { typed[$1] = 1 }
    }
    END {
        # the helpers: in a file without a TypeId, the names after Helper::AddAttributes(
        for (i = 1; i <= t; ++i) {
            if (typed[file[i]]) { continue }
            if (file[i] != last) { group = ""; last = file[i] }
            if (kind[i] == "shared") { group = val[i]; shared[group] = "" }
            else if (kind[i] == "name" && group != "") { shared[group] = shared[group] " " val[i]; used[i] = 1 }
        }
        last = ""
        for (i = 1; i <= t; ++i) {
            if (file[i] != last) { c = ""; last = file[i] }
            if (kind[i] == "type") { c = val[i]; continue }
            if (kind[i] == "shared") {
                if (!typed[file[i]] || !(val[i] in shared)) { continue }
                owner = ""
                for (j = i + 1; j <= t && file[j] == file[i] && owner == ""; ++j) {
                    if (kind[j] == "type") { owner = val[j] }
                }
                if (owner == "") { printf "?::%s (no TypeId after it in %s)\n", val[i], file[i]; continue }
                m = split(shared[val[i]], names, " ")
                for (k = 1; k <= m; ++k) { print owner "::" names[k] }
                continue
            }
            if (used[i]) { continue }
            if (c == "") { printf "%s::%s (no TypeId before it in %s)\n", "?", val[i], file[i]; continue }
            print c "::" val[i]
        }
    }')

if [ -z "$pairs" ]; then
    echo "doc-coverage: no AddAttribute/AddTraceSource found under $src/model and $src/helper" >&2
    exit 2
fi

# For every class: the doc text in the scopes that name ``ns3::Class``, then the check.
# The pages are read one after the other (the file names as arguments, the pairs on stdin); a
# scope ends at the end of its page.
missing=$(printf '%s\n' "$pairs" | awk '
    BEGIN {
        n = 0
        for (a = 1; a < ARGC; ++a) {
            while ((getline line < ARGV[a]) > 0) { lines[++n] = line; page[n] = a }
            close(ARGV[a])
        }
        ARGC = 1
    }
    # A heading underline: one punctuation character repeated, under a text line of the page.
    function is_heading(i) {
        return i > 1 && page[i - 1] == page[i] && lines[i] ~ /^([*]+|=+|#+|-+)$/ &&
               lines[i - 1] ~ /[A-Za-z0-9`]/ && lines[i - 1] !~ /^[=*#-]+( +[=*#-]+)*$/
    }
    function scope(cls,    i, inside, text) {
        text = ""; inside = 0
        for (i = 1; i <= n; ++i) {
            if (inside && (is_heading(i) || page[i] != page[i - 1])) { inside = 0 }
            if (index(lines[i], "``ns3::" cls "``") > 0) { inside = 1 }
            if (inside) { text = text "\n" lines[i] }
        }
        return text
    }
    {
        if ($0 ~ /^\?::/) { print; next }
        split($0, p, "::"); cls = p[1]; name = p[2]
        if (!(cls in seen)) { seen[cls] = scope(cls) }
        if (index(seen[cls], "``" name "``") == 0) { print $0 }
    }' "$src"/doc/*.rst)

total=$(printf '%s\n' "$pairs" | wc -l)
if [ -n "$missing" ]; then
    count=$(printf '%s\n' "$missing" | wc -l)
    echo "doc-coverage: $count of $total attributes/trace sources not documented in doc/*.rst" >&2
    echo "(each must appear as \`\`Name\`\` after a line naming \`\`ns3::Class\`\`, before the next heading):" >&2
    printf '%s\n' "$missing" >&2
    exit 1
fi
echo "doc-coverage: all $total attributes and trace sources documented"
