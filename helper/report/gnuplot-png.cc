/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gnuplot-png.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gnuplot-iostream.h>
#include <sstream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GnuplotPng");

const char* const kGnuplotPngPlaceholder = "@PRESTO_GNUPLOT_PNG@";

namespace
{

/// True if an executable named \p name is on the PATH.
bool
OnPath(const std::string& name)
{
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':'))
    {
        const std::string file = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (::access(file.c_str(), X_OK) == 0)
        {
            return true;
        }
    }
    return false;
}

/// Whole content of a small file, "" if it cannot be read.
std::string
Slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// \p text with every \p from replaced by \p to; \p count gets the number of replacements.
std::string
ReplaceAll(std::string text, const std::string& from, const std::string& to, int& count)
{
    count = 0;
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
    {
        text.replace(at, from.size(), to);
        ++count;
    }
    return text;
}

} // namespace

std::string
GnuplotQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        if (c == '\'')
        {
            q += "''";
        }
        else if (c == '\n' || c == '\r')
        {
            q += ' ';
        }
        else
        {
            q += c;
        }
    }
    return q + "'";
}

std::string
ShellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

std::string
GnuplotEmptyPanel(const std::string& note)
{
    return "unset logscale\nset xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\n"
           "set label 1 " +
           GnuplotQuote(note) + " at graph 0.5,0.5 center\nplot 2 notitle\nunset label 1\n";
}

void
RenderGnuplotPng(const std::string& script, const std::string& pngPath, const std::string& what)
{
    NS_LOG_FUNCTION(pngPath << what);
    const std::string name = what + " '" + pngPath + "'";
    // Next to the destination, so that the final rename stays on one file system.
    const std::string tmpPng = pngPath + ".tmp." + std::to_string(::getpid()) + ".png";
    int placeholders = 0;
    const std::string text = ReplaceAll(script,
                                        GnuplotQuote(kGnuplotPngPlaceholder),
                                        GnuplotQuote(tmpPng),
                                        placeholders);
    if (placeholders == 0)
    {
        throw PrestoInputError(name + ": the gnuplot script does not write to the placeholder "
                                      "output (set output GnuplotQuote(kGnuplotPngPlaceholder))");
    }
    if (!OnPath("gnuplot"))
    {
        throw PrestoInputError(name + ": gnuplot is not installed (not found on the PATH)");
    }
    {
        // Fail early, with a clear message, if the destination is not writable.
        std::ofstream probe(tmpPng, std::ios::binary);
        if (!probe)
        {
            throw PrestoInputError(what + ": cannot write '" + pngPath + "'");
        }
    }
    char dirTemplate[] = "/tmp/presto-plot-XXXXXX";
    const char* workDir = ::mkdtemp(dirTemplate);
    if (!workDir)
    {
        std::remove(tmpPng.c_str());
        throw PrestoInputError(name + ": cannot create a temporary directory");
    }
    const std::string errFile = std::string(workDir) + "/stderr";
    const std::string statusFile = std::string(workDir) + "/status";
    auto cleanUp = [&]() {
        std::remove(errFile.c_str());
        std::remove(statusFile.c_str());
        ::rmdir(workDir);
    };

    // The script goes down a gnuplot-iostream pipe. gnuplot reading a pipe goes on after an
    // error but exits with status 1 at the end; the shell around it writes that status to a
    // file, since gnuplot-iostream's pclose keeps it to itself. SIGPIPE is ignored while
    // writing: a gnuplot that exits early makes the writes fail instead of killing us.
    const std::string cmd =
        "gnuplot 2>" + ShellQuote(errFile) + " >/dev/null; echo $? >" + ShellQuote(statusFile);
    std::string pipeError;
    {
        struct sigaction ignore
        {
        };

        struct sigaction previous
        {
        };

        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGPIPE, &ignore, &previous);
        try
        {
            Gnuplot gp(cmd);
            gp << text;
            gp.flush();
            if (!gp)
            {
                pipeError = "writing to gnuplot failed";
            }
        } // ~Gnuplot: flush, pclose (waits for gnuplot and the shell)
        catch (const std::exception& e)
        {
            pipeError = e.what();
        }
        ::sigaction(SIGPIPE, &previous, nullptr);
    }
    const std::string errors = Slurp(errFile);
    const std::string statusText = Slurp(statusFile);
    cleanUp();
    int status = -1;
    std::istringstream(statusText) >> status;
    const std::string png = Slurp(tmpPng).substr(0, 8);
    if (status != 0 || png != std::string("\x89PNG\r\n\x1a\n", 8))
    {
        std::remove(tmpPng.c_str());
        throw PrestoInputError(name + ": gnuplot failed (exit status " +
                               (status >= 0 ? std::to_string(status) : std::string("unknown")) +
                               ")" + (errors.empty() ? "" : ": " + errors) +
                               (pipeError.empty() ? "" : " (" + pipeError + ")"));
    }
    if (!errors.empty())
    {
        NS_LOG_WARN("gnuplot (" << name << "): " << errors);
    }
    if (std::rename(tmpPng.c_str(), pngPath.c_str()) != 0)
    {
        std::remove(tmpPng.c_str());
        throw PrestoInputError(what + ": cannot rename the image to '" + pngPath + "'");
    }
}

} // namespace ns3
