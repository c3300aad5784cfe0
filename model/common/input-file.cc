/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-file.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sys/stat.h>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PrestoInputFile");

#ifndef PRESTO_DATA_DIR
#define PRESTO_DATA_DIR "data"
#endif

std::string
PrestoDataPath(const std::string& relative)
{
    const char* env = std::getenv("PRESTO_DATA_DIR");
    const std::string dir = (env != nullptr && env[0] != '\0') ? env : PRESTO_DATA_DIR;
    return dir + "/" + relative;
}

namespace
{

/// The texts kept: files that cannot be read again, for the process; regular files, while
/// an InputFileScope lives.
struct TextCache
{
    std::map<std::string, std::shared_ptr<const std::string>> once;   //!< not regular
    std::map<std::string, std::shared_ptr<const std::string>> scoped; //!< regular
    uint32_t scopes{0};                                               //!< live scopes
};

TextCache&
Cache()
{
    static TextCache cache;
    return cache;
}

/// "123 bytes" style, for the size limits
std::string
Bytes(uint64_t n)
{
    return std::to_string(n) + " bytes";
}

} // namespace

std::string
InputExcerpt(const std::string& text, std::size_t max)
{
    std::string out;
    const std::size_t n = std::min(text.size(), max);
    for (std::size_t i = 0; i < n; ++i)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f)
        {
            out += static_cast<char>(c);
        }
        else
        {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "\\x%02x", c);
            out += hex;
        }
    }
    if (text.size() > max)
    {
        out += "... (" + std::to_string(text.size()) + " characters)";
    }
    return out;
}

bool
IsValidUtf8(const std::string& text)
{
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n)
    {
        const unsigned char c = s[i];
        if (c < 0x80)
        {
            ++i;
            continue;
        }
        std::size_t len = 0;
        uint32_t cp = 0;
        if (c >= 0xc2 && c <= 0xdf)
        {
            len = 2;
            cp = c & 0x1f;
        }
        else if (c >= 0xe0 && c <= 0xef)
        {
            len = 3;
            cp = c & 0x0f;
        }
        else if (c >= 0xf0 && c <= 0xf4)
        {
            len = 4;
            cp = c & 0x07;
        }
        else
        {
            return false; // continuation byte first, overlong 0xc0/0xc1, or above U+10FFFF
        }
        if (i + len > n)
        {
            return false;
        }
        for (std::size_t k = 1; k < len; ++k)
        {
            if ((s[i + k] & 0xc0) != 0x80)
            {
                return false;
            }
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        const uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < minimum[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        {
            return false;
        }
        i += len;
    }
    return true;
}

InputLineStatus
ReadInputLine(std::istream& in, std::string& line, std::size_t max)
{
    line.clear();
    std::istream::sentry ok(in, true); // true: do not skip white space
    if (!ok)
    {
        return InputLineStatus::END;
    }
    std::streambuf* buf = in.rdbuf();
    bool any = false;
    bool tooLong = false;
    while (true)
    {
        const auto c = buf->sbumpc();
        if (c == std::char_traits<char>::eof())
        {
            in.setstate(std::ios::eofbit);
            if (!any)
            {
                in.setstate(std::ios::failbit);
                return InputLineStatus::END;
            }
            break;
        }
        any = true;
        if (c == '\n')
        {
            break;
        }
        if (line.size() < max)
        {
            line += static_cast<char>(c);
        }
        else
        {
            tooLong = true; // skip the rest of the line, keep nothing more
        }
    }
    return tooLong ? InputLineStatus::TOO_LONG : InputLineStatus::LINE;
}

InputLineReader::InputLineReader(std::istream& in, std::string origin, std::size_t max)
    : m_in(in),
      m_origin(std::move(origin)),
      m_max(max)
{
}

bool
InputLineReader::Next(std::string& line)
{
    const InputLineStatus status = ReadInputLine(m_in, line, m_max);
    if (status == InputLineStatus::END)
    {
        return false;
    }
    ++m_lineNumber;
    if (status == InputLineStatus::TOO_LONG)
    {
        throw PrestoInputError(m_origin + ":" + std::to_string(m_lineNumber) +
                               ": line longer than " + std::to_string(m_max) +
                               " characters, starting '" + InputExcerpt(line) + "'");
    }
    return true;
}

uint64_t
InputLineReader::LineNumber() const
{
    return m_lineNumber;
}

bool
IsRegularInputFile(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::shared_ptr<const std::string>
TryReadInputText(const std::string& path, const std::string& what, uint64_t maxBytes)
{
    NS_LOG_FUNCTION(path << what << maxBytes);
    TextCache& cache = Cache();
    if (auto it = cache.once.find(path); it != cache.once.end())
    {
        return it->second;
    }
    if (auto it = cache.scoped.find(path); it != cache.scoped.end())
    {
        return it->second;
    }
    const std::string where = what + " '" + path + "'";
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
    {
        return nullptr;
    }
    if (S_ISDIR(st.st_mode))
    {
        throw PrestoInputError(where + " is a directory");
    }
    const bool regular = S_ISREG(st.st_mode);
    if (regular && static_cast<uint64_t>(st.st_size) > maxBytes)
    {
        throw PrestoInputError(where + " has " + Bytes(st.st_size) + ", more than the " +
                               Bytes(maxBytes) + " accepted");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        return nullptr;
    }
    auto text = std::make_shared<std::string>();
    char chunk[65536];
    while (in)
    {
        in.read(chunk, sizeof(chunk));
        text->append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text->size() > maxBytes)
        {
            throw PrestoInputError(where + " is longer than the " + Bytes(maxBytes) + " accepted");
        }
    }
    if (in.bad())
    {
        throw PrestoInputError(where + ": read error after " + Bytes(text->size()));
    }
    NS_LOG_INFO("read " << text->size() << " bytes from " << where
                        << (regular ? "" : " (not a regular file: kept)"));
    if (!regular)
    {
        cache.once[path] = text;
    }
    else if (cache.scopes > 0)
    {
        cache.scoped[path] = text;
    }
    return text;
}

std::shared_ptr<const std::string>
ReadInputText(const std::string& path, const std::string& what, uint64_t maxBytes)
{
    auto text = TryReadInputText(path, what, maxBytes);
    if (!text)
    {
        const int err = errno;
        throw PrestoInputError("cannot open " + what + " '" + path +
                               "': " + (err != 0 ? std::strerror(err) : "unknown reason"));
    }
    return text;
}

InputFileScope::InputFileScope()
{
    ++Cache().scopes;
}

InputFileScope::~InputFileScope()
{
    TextCache& cache = Cache();
    if (--cache.scopes == 0)
    {
        cache.scoped.clear();
    }
}

InputTextStream::Buffer::Buffer(const std::string& text)
{
    // std::streambuf only reads through these pointers; the text is never written
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
}

InputTextStream::InputTextStream(std::shared_ptr<const std::string> text)
    : std::istream(nullptr),
      m_text(std::move(text)),
      m_buffer(*m_text)
{
    rdbuf(&m_buffer);
}

} // namespace ns3
