/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_COMMAND_LINE_H
#define PRESTO_COMMAND_LINE_H

#include "ns3/command-line.h"
#include "ns3/whole-token.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief ns-3's CommandLine whose program options are read whole (WholeToken): every
 * program of the module declares its options through it, and ParseCommandLine refuses the
 * first value that is not its option's type, naming the option, before anything runs.
 *
 * ns-3's own AddValue(name, help, T&) reads a leading number and drops the rest, so
 * `--maxFlows=1e5` ran one flow and `--hostsPerLeaf=-1` asked for 4294967295 hosts. Here
 * AddValue(name, help, T&) registers a callback instead (ns-3's help still lists the option
 * and its default); attribute shorthands and callbacks pass through unchanged, and
 * `--ns3::Type::Attribute=value` arguments are ns-3's attribute checkers' (checked before
 * parsing by ParseCommandLine).
 */
class PrestoCommandLine : public CommandLine
{
  public:
    /** \param filename the program's source file (__FILE__), for the usage line */
    explicit PrestoCommandLine(const std::string& filename = "");
    ~PrestoCommandLine();
    PrestoCommandLine(const PrestoCommandLine&) = delete;
    PrestoCommandLine& operator=(const PrestoCommandLine&) = delete;

    using CommandLine::AddValue;

    /**
     * \brief Add a program option read whole into \p value.
     * \tparam T uint16_t, uint32_t, uint64_t, int32_t, int64_t, double, bool or std::string
     * \param name option name (without dashes)
     * \param help help text
     * \param value the variable; its value now is the default shown by --PrintHelp
     */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value);

    /**
     * \brief Refuse an option given with an empty value (--name=): it was most likely a
     * variable that expanded to nothing, and it ran as the default (a text option), as the
     * attribute it stands for, or as true (a boolean). The bare --flag of a boolean is not
     * refused. Called by ParseCommandLine after Parse; the error is raised by CheckValues.
     * \param argc argument count \param argv arguments
     */
    void RefuseEmptyValues(int argc, char* argv[]);

    /** \throws PrestoInputError naming the first option whose value was refused */
    void CheckValues() const;

    /** \param name an option added here \return true if the command line gave it */
    bool WasSet(const std::string& name) const;

    /**
     * \brief Also record every option the command line gives, with its text, into \p given
     * (the last value of an option given twice), e.g. for a configuration that refuses the
     * options of a mode that is off.
     * \param given the map; it must outlive Parse (nullptr: stop recording)
     */
    void RecordGiven(std::map<std::string, std::string>* given);

  private:
    /** One option: its name and how a value is read into its variable. */
    struct Binding
    {
        PrestoCommandLine* owner{nullptr}; //!< back pointer
        std::string name;                  //!< option name
        /// read a value into the variable; false (and why) if refused
        std::function<bool(const std::string&, std::string&)> parse;
    };

    /**
     * \brief ns-3 calls this with an option's value: read it, or record why not (the error
     * is raised by CheckValues, with the module's message, after ns-3 parsed everything).
     * \param b the option \param value the text after '=' \return true (always)
     */
    static bool Receive(Binding* b, std::string value);

    std::vector<std::unique_ptr<Binding>> m_bindings;     //!< the options added here
    std::vector<std::string> m_errors;                    //!< refused values, in order
    std::set<std::string> m_set;                          //!< options the command line gave
    std::map<std::string, std::string>* m_given{nullptr}; //!< RecordGiven's map
};

template <typename T>
void
PrestoCommandLine::AddValue(const std::string& name, const std::string& help, T& value)
{
    auto b = std::make_unique<Binding>();
    b->owner = this;
    b->name = name;
    T* target = &value;
    b->parse = [target](const std::string& text, std::string& why) {
        T v{};
        if (!WholeToken::Parse(text, v, why))
        {
            return false;
        }
        *target = v;
        return true;
    };
    std::ostringstream shown;
    shown << std::boolalpha << value;
    CommandLine::AddValue(name,
                          help,
                          MakeBoundCallback(&PrestoCommandLine::Receive, b.get()),
                          shown.str());
    m_bindings.push_back(std::move(b));
}

} // namespace ns3

#endif // PRESTO_COMMAND_LINE_H
