/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_PROGRAM_FILE_H
#define PRESTO_CORA_PROGRAM_FILE_H

#include "cora-program.h"

#include <istream>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Parse a Cora program from its declarative text form and finalize it.
 *
 * Line oriented; '#' starts a comment; blank lines are ignored. Directives:
 * \code
 * program <name>                                   # first directive, exactly once
 * element <name> key=flow|src_ip|dst_ip|global entries=N entry_bytes=N instructions=X
 *         [access=<MEM>/<read|write>/<atomic|bulk>/<width>:<per-packet>]...
 *         [locks=N lock_accesses=X]
 * depends <writer> -> <reader>
 * branch <name> stateless=X <element> [<element>...]
 * \endcode
 * (an element is one line). MEM is CLS, CTM, IMEM or EMEM; width is in bytes (4..128, a
 * multiple of 4, optionally followed by "B"); every number is read whole (WholeToken, no NUL
 * byte or hex): N are non-negative integers (decimal digits only) and X finite non-negative
 * decimal numbers (optional fraction and exponent). locks and lock_accesses go together. Elements
 * must be declared before the depends and branch lines that name them.
 *
 * \param in the text
 * \param fileName name used in messages
 * \return the finalized program
 * \throws PrestoInputError "fileName:line: message" on a bad line, "fileName: message" when
 *         the program as a whole is invalid (no program line, no element, no branch)
 */
CoraProgram CoraParseProgram(std::istream& in, const std::string& fileName);

/**
 * \brief Load a Cora program file (see CoraParseProgram()).
 * \param path file path
 * \return the finalized program
 * \throws PrestoInputError naming the file if it cannot be opened, or as CoraParseProgram()
 */
CoraProgram CoraLoadProgramFile(const std::string& path);

/**
 * \brief Path of a shipped program file: `<data dir>/cora/<name>.cora`, the data directory
 * being PRESTO_DATA_DIR from the environment if set and non-empty, else the module's data/.
 * \param name program name, e.g. "l4lb-http"
 * \return the path (the file is not checked)
 */
std::string CoraProgramDataPath(const std::string& name);

} // namespace ns3

#endif // PRESTO_CORA_PROGRAM_FILE_H
