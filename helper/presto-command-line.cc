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
