/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-main.h"

#include "presto-command-line.h"

#include "ns3/command-line.h"
#include "ns3/global-value.h"
#include "ns3/input-file.h"
#include "ns3/lean-simulator-impl.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/string.h"
#include "ns3/timing-wheel-scheduler.h"
#include "ns3/type-id.h"

#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

#if __has_include("presto-version.h")
#include "presto-version.h" // written by the build: PRESTO_VERSION, git describe
#endif
#ifndef PRESTO_VERSION
#define PRESTO_VERSION "unknown"
#endif

namespace ns3
{

namespace
{

/// What the exit hook needs while ns-3's CommandLine::Parse runs, and what the reports
/// take from the parse.
struct ParseState
{
    bool parsing{false};                         //!< inside CommandLine::Parse
    std::string program;                         //!< for the message
    std::ostringstream captured;                 //!< what ns-3 wrote to std::cerr meanwhile
    std::streambuf* cerr{nullptr};               //!< std::cerr's own buffer
    std::vector<std::string> argv;               //!< the arguments, as typed
    std::map<std::string, std::string> defaults; //!< attribute initial values before the parse
    std::vector<std::string> attributeArguments; //!< "ns3::Type::Attr" given on the line
};

ParseState&
State()
{
    static ParseState state;
    return state;
}

/// Runs at exit: if ns-3 refused an argument during Parse (it prints "Invalid command-line
/// argument" and the whole help to std::cerr, then calls std::exit(1)), show its first
/// line only.
void
ShortenParseFailure()
{
    ParseState& s = State();
    if (!s.parsing)
    {
        return;
    }
    s.parsing = false;
    std::cerr.rdbuf(s.cerr);
    std::string text = s.captured.str();
    if (text.empty())
    {
        return;
    }
    std::string first = text.substr(0, text.find('\n'));
    const std::string prefix = "Invalid command-line argument: ";
    if (first.compare(0, prefix.size(), prefix) == 0)
    {
        first = "invalid command-line argument " + first.substr(prefix.size());
    }
    std::cerr << s.program << ": error: " << InputExcerpt(first, 200)
              << " (--PrintHelp lists the options)" << std::endl;
}

/// \param arg one argument \param name set to what follows the dashes, up to '=' \param value
/// set to what follows '=' \return true if it is an option (starts with '-')
bool
SplitArgument(const std::string& arg, std::string& name, std::string& value)
{
    std::size_t start = 0;
    while (start < arg.size() && start < 2 && arg[start] == '-')
    {
        ++start;
    }
    if (start == 0)
    {
        return false;
    }
    const std::size_t eq = arg.find('=', start);
    name = arg.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
    value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    return true;
}

/**
 * \param visit called with "ns3::Type::Attribute" and the attribute's initial value as its
 * checker serializes it, for every attribute of every registered TypeId
 */
void
ForEachAttributeDefault(const std::function<void(const std::string&, const std::string&)>& visit)
{
    for (uint32_t t = 0; t < TypeId::GetRegisteredN(); ++t)
    {
        const TypeId tid = TypeId::GetRegistered(t);
        for (std::size_t a = 0; a < tid.GetAttributeN(); ++a)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(a);
            if (!info.initialValue || !info.checker)
            {
                continue;
            }
            visit(tid.GetName() + "::" + info.name,
                  info.initialValue->SerializeToString(info.checker));
        }
    }
}

} // namespace

std::vector<std::string>
ParsedArguments()
{
    return State().argv;
}

std::map<std::string, std::string>
ChangedAttributeDefaults()
{
    const ParseState& s = State();
    std::map<std::string, std::string> changed;
    if (s.defaults.empty())
    {
        return changed;
    }
    std::map<std::string, std::string> now;
    ForEachAttributeDefault([&](const std::string& name, const std::string& value) {
        now[name] = value;
        const auto before = s.defaults.find(name);
        if (before == s.defaults.end() || before->second != value)
        {
            changed[name] = value;
        }
    });
    for (const std::string& name : s.attributeArguments)
    {
        // given on the line with the default's own value: still the user's choice
        if (const auto it = now.find(name); it != now.end())
        {
            changed[name] = it->second;
        }
    }
    return changed;
}

std::string
ModuleVersion()
{
    return PRESTO_VERSION;
}

void
CheckAttributeArguments(int argc, char* argv[])
{
    for (int i = 1; i < argc; ++i)
    {
        std::string name;
        std::string value;
        if (!SplitArgument(argv[i], name, value) || name.compare(0, 5, "ns3::") != 0)
        {
            continue;
        }
        const std::size_t sep = name.rfind("::");
        const std::string arg = "--" + InputExcerpt(name) + "=" + InputExcerpt(value);
        if (sep == std::string::npos || sep < 5 || sep + 2 >= name.size())
        {
            throw PrestoInputError(arg + " is not of the form --ns3::Class::Attribute=value");
        }
        const std::string typeName = name.substr(0, sep);
        const std::string attribute = name.substr(sep + 2);
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(typeName, &tid))
        {
            throw PrestoInputError(arg + ": there is no class " + InputExcerpt(typeName) +
                                   " (--PrintTypeIds lists them)");
        }
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(attribute, &info))
        {
            throw PrestoInputError(arg + ": " + typeName + " has no attribute " +
                                   InputExcerpt(attribute) + " (--PrintAttributes=" + typeName +
                                   " lists them)");
        }
        if (!compat::CreateValidValue(info.checker, StringValue(value)))
        {
            std::string help = info.help;
            if (help.size() > 120)
            {
                help = help.substr(0, 117) + "...";
            }
            throw PrestoInputError(arg + " is not valid for " + typeName + "::" + attribute + " (" +
                                   help + "): expected " +
                                   info.checker->GetUnderlyingTypeInformation());
        }
    }
}

namespace
{
/**
 * \param argc argument count
 * \param argv arguments
 * \param name the name of one of ns-3's global values
 * \return whether the user set \p name: a --name argument, or name in NS_GLOBAL_VALUE
 */
bool
UserSetGlobal(int argc, char* argv[], const std::string& name)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg.rfind("--" + name, 0) == 0)
        {
            return true; // applied by CommandLine
        }
    }
    const char* env = std::getenv("NS_GLOBAL_VALUE");
    return env && std::string(env).find(name) != std::string::npos; // applied by GlobalValue
}
} // namespace

void
PreferFastSimulator(int argc, char* argv[])
{
    // ns-3's defaults: a different value was bound by the script (GlobalValue::Bind, e.g. an
    // MPI program's ns3::DistributedSimulatorImpl) and is never replaced
    if (!UserSetGlobal(argc, argv, "SchedulerType") && SchedulerName() == "ns3::MapScheduler")
    {
        GlobalValue::Bind("SchedulerType", TypeIdValue(TimingWheelScheduler::GetTypeId()));
    }
    if (!UserSetGlobal(argc, argv, "SimulatorImplementationType") &&
        SimulatorImplName() == "ns3::DefaultSimulatorImpl")
    {
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue(LeanSimulatorImpl::GetTypeId().GetName()));
    }
}

std::string
SchedulerName()
{
    TypeIdValue value;
    GlobalValue::GetValueByName("SchedulerType", value);
    return value.Get().GetName();
}

std::string
SimulatorImplName()
{
    StringValue value;
    GlobalValue::GetValueByName("SimulatorImplementationType", value);
    return value.Get();
}

void
ParseCommandLine(PrestoCommandLine& cmd, int argc, char* argv[])
{
    CheckAttributeArguments(argc, argv);
    PreferFastSimulator(argc, argv);
    ParseState& s = State();
    s.argv.assign(argv, argv + argc);
    s.defaults.clear();
    s.attributeArguments.clear();
    ForEachAttributeDefault(
        [&s](const std::string& name, const std::string& value) { s.defaults[name] = value; });
    for (int i = 1; i < argc; ++i)
    {
        std::string name;
        std::string value;
        if (SplitArgument(argv[i], name, value) && name.compare(0, 5, "ns3::") == 0)
        {
            s.attributeArguments.push_back(name); // CheckAttributeArguments accepted its form
        }
    }
    static const bool hooked = std::atexit(&ShortenParseFailure) == 0;
    if (hooked)
    {
        const std::string program = argc > 0 ? argv[0] : "program";
        s.program = program.substr(program.rfind('/') + 1);
        s.captured.str("");
        s.cerr = std::cerr.rdbuf(s.captured.rdbuf());
        s.parsing = true;
    }
    cmd.Parse(argc, argv);
    if (hooked)
    {
        s.parsing = false;
        std::cerr.rdbuf(s.cerr);
        std::cerr << s.captured.str(); // anything ns-3 wrote without failing
    }
    cmd.RefuseEmptyValues(argc, argv);
    cmd.CheckValues();
}

int
RunPrestoMain(const std::string& program, const std::function<int()>& body)
{
    try
    {
        return body();
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << program << ": error: " << e.what() << std::endl;
        return 1;
    }
    catch (const PrestoRunIncomplete& e)
    {
        std::cerr << program << ": run incomplete: " << e.what() << std::endl;
        return 3;
    }
    catch (const std::exception& e)
    {
        std::cerr << program << ": internal error: " << e.what() << std::endl;
        return 2;
    }
}

} // namespace ns3
