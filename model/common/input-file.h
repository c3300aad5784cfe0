/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_INPUT_FILE_H
#define PRESTO_INPUT_FILE_H

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Longest line the input parsers (CDF, flow file, classifier rules, Cora program)
 * accept, characters without the line end. A longer line is refused with its file and line
 * before it is held in memory.
 */
constexpr std::size_t INPUT_LINE_MAX = 4096;

/**
 * \ingroup presto
 * \brief At most this many characters of a bad line or token are quoted in an error message.
 */
constexpr std::size_t INPUT_EXCERPT_MAX = 80;

/**
 * \ingroup presto
 * \brief Largest CDF, classifier-rules or Cora program file, bytes (16 MiB; the shipped ones
 * are below 2 KiB).
 */
constexpr uint64_t INPUT_TEXT_MAX_BYTES = uint64_t{16} << 20;

/**
 * \ingroup presto
 * \brief A piece of input as an error message quotes it: at most \p max characters, bytes
 * outside printable ASCII written as \\xNN, and "... (N characters)" when it was cut.
 *
 * \param text the input
 * \param max characters kept
 * \return the excerpt (without quotes)
 */
std::string InputExcerpt(const std::string& text, std::size_t max = INPUT_EXCERPT_MAX);

/**
 * \param text bytes
 * \return true if they are well-formed UTF-8 (no overlong forms, no surrogates, code points
 * up to U+10FFFF), the encoding summary.json needs
 */
bool IsValidUtf8(const std::string& text);

/** \ingroup presto What ReadInputLine found. */
enum class InputLineStatus
{
    LINE,    //!< a line (possibly empty) is in the string
    END,     //!< end of input, no line
    TOO_LONG //!< the line is longer than the limit; the string holds its first characters
};

/**
 * \brief std::getline with a bound: reads one line ('\\n' ends it, a '\\r' before it is
 * kept) into \p line, but never more than \p max characters; the rest of a longer line is
 * skipped without being stored.
 *
 * \param in the stream
 * \param line the line, without its '\\n'
 * \param max longest accepted line
 * \return LINE, END, or TOO_LONG
 */
InputLineStatus ReadInputLine(std::istream& in,
                              std::string& line,
                              std::size_t max = INPUT_LINE_MAX);

/**
 * \ingroup presto
 * \brief The line loop the input parsers share: reads a stream line by line through
 * ReadInputLine, counts the lines and refuses an over-long one with the same message for
 * every parser.
 *
 * A line is returned as it is, without its '\\n': a '\\r' before it is kept (the parsers
 * split on white space, which drops it, and quote a bad line with it as \\x0d). Comments
 * and blank lines are left to the parsers, whose comment rules differ: the flow and CDF
 * files know only whole-line comments, the others a '#' anywhere on a line.
 */
class InputLineReader
{
  public:
    /**
     * \param in the stream (must outlive the reader)
     * \param origin the input's name in messages: its path, or "<string>" and the like
     * \param max longest accepted line, characters without the line end
     */
    InputLineReader(std::istream& in, std::string origin, std::size_t max = INPUT_LINE_MAX);

    /**
     * \brief Read the next line (a last line without '\\n' counts).
     * \param line the line, without its '\\n'
     * \return false at the end of the input (\p line is then empty); throws
     * PrestoInputError "<origin>:<line>: line longer than <max> characters, starting
     * '<excerpt>'" for a line longer than the limit
     */
    bool Next(std::string& line);

    /// \return the 1-based number of the line Next returned last (0 before the first)
    uint64_t LineNumber() const;

  private:
    std::istream& m_in;       //!< the stream
    std::string m_origin;     //!< name in messages
    std::size_t m_max;        //!< longest line
    uint64_t m_lineNumber{0}; //!< lines read
};

/**
 * \param path a path
 * \return true if it names a regular file (following symbolic links), which can be read
 * again; false for a pipe, a terminal, /dev/stdin from a pipe, a missing file, ...
 */
bool IsRegularInputFile(const std::string& path);

/**
 * \ingroup presto
 * \brief A file shipped in the module's data folder.
 * \param relative its path inside the folder, e.g. "topology/leaf-spine-4x4x8.txt"
 * \return PRESTO_DATA_DIR from the environment if set and non-empty, else the module's
 * data/ (as built), followed by "/" and \p relative
 */
std::string PrestoDataPath(const std::string& relative);

/**
 * \ingroup presto
 * \brief The text of an input file, read at most once where it matters.
 *
 * - A file that is not regular (a pipe, `/dev/stdin`, a process substitution) can be read
 *   only once: its text is kept for the rest of the process and every later read of the
 *   same path gets that text.
 * - A regular file is read once per InputFileScope: while a scope lives (a SprayExperiment
 *   holds one), every read of the path gets the text read first, so validation and use see
 *   the same content and the devices do not read it again each. Outside a scope it is read
 *   from disk every time.
 *
 * \param path the file
 * \param what its kind for messages ("CDF file", "Cora program file", ...)
 * \param maxBytes largest accepted size; a larger file is refused without being read
 * whole
 * \return its text, or nullptr if it cannot be opened (missing, no permission); throws
 * PrestoInputError naming \p what and \p path if it is a directory, is larger than
 * \p maxBytes or fails while being read
 */
std::shared_ptr<const std::string> TryReadInputText(const std::string& path,
                                                    const std::string& what,
                                                    uint64_t maxBytes = INPUT_TEXT_MAX_BYTES);

/**
 * \brief As TryReadInputText, but a file that cannot be opened throws PrestoInputError
 * "cannot open <what> '<path>': <reason>".
 * \param path the file
 * \param what its kind for messages
 * \param maxBytes largest accepted size
 * \return its text
 */
std::shared_ptr<const std::string> ReadInputText(const std::string& path,
                                                 const std::string& what,
                                                 uint64_t maxBytes = INPUT_TEXT_MAX_BYTES);

/**
 * \ingroup presto
 * \brief While an object of this class lives, each regular input file read through
 * ReadInputText is read from disk once (see there). Scopes nest; the texts are released
 * when the last one ends.
 */
class InputFileScope
{
  public:
    InputFileScope();
    ~InputFileScope();
    InputFileScope(const InputFileScope&) = delete;
    InputFileScope& operator=(const InputFileScope&) = delete;
};

/**
 * \ingroup presto
 * \brief An std::istream over a shared text, without copying it.
 */
class InputTextStream : public std::istream
{
  public:
    /** \param text the text (kept alive by the stream) */
    explicit InputTextStream(std::shared_ptr<const std::string> text);

  private:
    /** Read-only buffer over the text. */
    class Buffer : public std::streambuf
    {
      public:
        /** \param text the characters */
        explicit Buffer(const std::string& text);
    };

    std::shared_ptr<const std::string> m_text; //!< the text
    Buffer m_buffer;                           //!< the buffer over it
};

} // namespace ns3

#endif // PRESTO_INPUT_FILE_H
