/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_INPUT_ERROR_H
#define PRESTO_INPUT_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Raised when user input (a CDF file, a flow file, an option value, an impossible
 * configuration) cannot be used.
 *
 * The message names what was wrong and where (file and line, option name, attribute), so
 * that the example programs can print it and exit nonzero instead of aborting. Pure-logic
 * code throws it; scenario programs catch it in main().
 */
class PrestoInputError : public std::runtime_error
{
  public:
    /**
     * \param what a complete, user-facing message naming the input and the place
     */
    explicit PrestoInputError(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

/**
 * \ingroup presto
 * \brief Raised when a run ended without doing what was asked (flows unfinished, connections
 * that failed to open, no request measured) and the user did not accept that
 * (--allowUnfinished). The programs exit with status 3 and this message.
 */
class PrestoRunIncomplete : public std::runtime_error
{
  public:
    /**
     * \param what the shortfall and where the run's outputs are
     */
    explicit PrestoRunIncomplete(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

} // namespace ns3

#endif // PRESTO_INPUT_ERROR_H
