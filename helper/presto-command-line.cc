/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-command-line.h"

#include "ns3/input-file.h"
#include "ns3/presto-input-error.h"

namespace ns3
{

PrestoCommandLine::PrestoCommandLine(const std::string& filename)
    : CommandLine(filename)
{
}

PrestoCommandLine::~PrestoCommandLine() = default;

bool
PrestoCommandLine::Receive(Binding* b, std::string value)
{
    std::string why;
    b->owner->m_set.insert(b->name);
    if (b->owner->m_given)
    {
        (*b->owner->m_given)[b->name] = value;
    }
    if (!b->parse(value, why))
    {
        b->owner->m_errors.push_back("--" + b->name + "=" + InputExcerpt(value) + " " + why);
    }
    return true;
}

void
PrestoCommandLine::RefuseEmptyValues(int argc, char* argv[])
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const std::size_t dashes = arg.compare(0, 2, "--") == 0 ? 2 : arg.compare(0, 1, "-") == 0;
        if (dashes == 0 || arg.size() <= dashes + 1 || arg.back() != '=')
        {
            continue;
        }
        const std::string name = arg.substr(dashes, arg.size() - dashes - 1);
        for (const auto& b : m_bindings)
        {
            if (b->name == name)
            {
                m_errors.push_back("--" + name +
                                   "= is empty: give a value, or leave the option out for "
                                   "its default");
                break;
            }
        }
    }
}

void
PrestoCommandLine::CheckValues() const
{
    if (!m_errors.empty())
    {
        throw PrestoInputError(m_errors.front());
    }
}

bool
PrestoCommandLine::WasSet(const std::string& name) const
{
    return m_set.count(name) > 0;
}

void
PrestoCommandLine::RecordGiven(std::map<std::string, std::string>* given)
{
    m_given = given;
}

} // namespace ns3
