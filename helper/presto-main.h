/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_MAIN_H
#define PRESTO_PRESTO_MAIN_H

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class PrestoCommandLine;

/**
 * \ingroup presto
 * \brief Check every `--ns3::Type::Attribute=value` argument before ns-3's CommandLine sees
 * it, as Config::SetDefault will apply it.
 *
 * ns-3's CommandLine answers an unknown attribute or a value out of range with "Invalid
 * command-line argument" and the whole --help; this names the attribute, the value and
 * what is valid, in one line.
 *
 * \param argc argument count
 * \param argv arguments (argv[0] is the program)
 * \throws PrestoInputError "--ns3::OffloadNetDevice::MaxConnections=0 is not valid for
 * ns3::OffloadNetDevice::MaxConnections (...): expected uint32_t 1:4294967295", or naming
 * the unknown TypeId or attribute
 */
void CheckAttributeArguments(int argc, char* argv[]);

/**
 * \ingroup presto
 * \brief Parse a command line with short messages: CheckAttributeArguments first, then
 * CommandLine::Parse; when ns-3 refuses another argument (an unknown option, a value that
 * does not parse) and exits, only its first line is printed, as "<program>: error: invalid
 * command-line argument --x=y (--PrintHelp lists the options)", not the whole --help. The
 * exit status stays 1. Then every program option is checked as read whole
 * (PrestoCommandLine::CheckValues): `--maxFlows=1e5` is refused, not run as 1.
 *
 * \param cmd the command line with the program's options
 * \param argc argument count
 * \param argv arguments
 * \throws PrestoInputError from CheckAttributeArguments, or naming the first option whose
 * value is not its type's whole token
 */
void ParseCommandLine(PrestoCommandLine& cmd, int argc, char* argv[]);

/**
 * \ingroup presto
 * \brief Give ns-3's simulator the module's faster parts, each unless the user named one (a
 * `--SchedulerType` or `--SimulatorImplementationType` argument, or the name in the
 * environment variable NS_GLOBAL_VALUE) or the script bound one already (its value is no
 * longer ns-3's default, e.g. an MPI program's ns3::DistributedSimulatorImpl): the event queue
 * ns3::TimingWheelScheduler instead of ns-3's default ns3::MapScheduler, and ns3::LeanSimulatorImpl
 * instead of ns3::DefaultSimulatorImpl. ParseCommandLine calls it before parsing.
 *
 * Neither can change a result: every ns-3 scheduler takes events in the same total order
 * (time stamp, then the order they were scheduled in), and LeanSimulatorImpl runs them as
 * DefaultSimulatorImpl does. They only change the speed (doc/presto.rst, "Speed"). They take
 * effect if the simulator has not been created yet.
 *
 * \param argc argument count
 * \param argv arguments
 */
void PreferFastSimulator(int argc, char* argv[]);

/**
 * \ingroup presto
 * \return the TypeId name of ns-3's global value SchedulerType (the event queue of a
 * simulator created now), for reports
 */
std::string SchedulerName();

/**
 * \ingroup presto
 * \return ns-3's global value SimulatorImplementationType (the simulator implementation
 * created by the first Simulator call), for reports
 */
std::string SimulatorImplName();

/**
 * \ingroup presto
 * \return the arguments the last ParseCommandLine call was given, argv[0] included, as typed;
 * empty when no command line was parsed (a test building an experiment directly)
 */
std::vector<std::string> ParsedArguments();

/**
 * \ingroup presto
 * \brief Every attribute default that differs now from what it was when ParseCommandLine
 * started, plus every `--ns3::Type::Attribute=value` argument (even one equal to the
 * default).
 *
 * ParseCommandLine takes a snapshot of every registered TypeId's attribute initial values
 * (TypeId::GetRegistered, GetAttribute(i).initialValue, serialized with its checker) before
 * ns-3 applies the command line; this walks them again and compares. So Config::SetDefault
 * calls made after the parse (the command line's own, a program's) are caught; ones made
 * before main() are not. Without a parse, nothing is reported.
 * \return "ns3::Type::Attribute" -> the value as the attribute serializes it now
 */
std::map<std::string, std::string> ChangedAttributeDefaults();

/**
 * \ingroup presto
 * \return the module's version: `git describe --always --dirty` of the source tree when it
 * was built, or "unknown" when it was built from a tree without git
 */
std::string ModuleVersion();

/**
 * \ingroup presto
 * \brief The body of an example's main(), with the module's error contract: a
 * PrestoInputError (a configuration error: bad option, attribute, input file) prints
 * "<program>: error: <message>" and gives exit status 1; a PrestoRunIncomplete (the run did
 * not do what was asked) prints "<program>: run incomplete: <message>" and gives 3; any other
 * exception prints "<program>: internal error: <what>" and gives 2. Nothing escapes as an uncaught
 * exception (abort, core dump). Users' scripts can do the same: every configuration error of the
 * module is a PrestoInputError.
 *
 * \param program the program name for messages
 * \param body parses and runs; returns the exit status
 * \return the exit status
 */
int RunPrestoMain(const std::string& program, const std::function<int()>& body);

} // namespace ns3

#endif // PRESTO_PRESTO_MAIN_H
