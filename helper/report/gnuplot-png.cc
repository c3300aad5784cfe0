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
#include <vector>

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

std::string
GnuplotTerminal(int width, int height)
{
    const std::string size = " size " + std::to_string(width) + "," + std::to_string(height);
    return "if (exists('presto_svg')) {\n"
           "  set terminal svg" +
           size +
           " noenhanced font 'Sans,10' background rgb 'white'\n  presto_cairo = 1\n"
           "} else {\n"
           "  if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
           "    set terminal pngcairo" +
           size +
           " noenhanced font ',10'\n    presto_cairo = 1\n"
           "  } else {\n"
           "    set terminal png" +
           size + " noenhanced\n    presto_cairo = 0\n  }\n}\n";
}

std::string
GnuplotMultiplot(int rows, int cols, const std::string& caption)
{
    return "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) +
           (caption.empty() ? std::string() : " title " + GnuplotQuote(caption) + " font ',8'") +
           "\n";
}

std::string
SvgBeside(const std::string& pngPath)
{
    const std::string ext = ".png";
    if (pngPath.size() >= ext.size() &&
        pngPath.compare(pngPath.size() - ext.size(), ext.size(), ext) == 0)
    {
        return pngPath.substr(0, pngPath.size() - ext.size()) + ".svg";
    }
    return pngPath + ".svg";
}

namespace
{

/**
 * Run \p script through gnuplot, writing to \p tmpImage (the placeholder replaced), and
 * check that the result starts with one of \p magics. On failure removes \p tmpImage and
 * throws PrestoInputError starting with \p name.
 */
void
RunGnuplot(const std::string& script,
           const std::string& tmpImage,
           const std::string& name,
           const std::vector<std::string>& magics)
{
    int placeholders = 0;
    const std::string text = ReplaceAll(script,
                                        GnuplotQuote(kGnuplotPngPlaceholder),
                                        GnuplotQuote(tmpImage),
                                        placeholders);
    char dirTemplate[] = "/tmp/presto-plot-XXXXXX";
    const char* workDir = ::mkdtemp(dirTemplate);
    if (!workDir)
    {
        std::remove(tmpImage.c_str());
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
    const std::string image = Slurp(tmpImage);
    bool magic = false;
    for (const std::string& m : magics)
    {
        magic = magic || image.compare(0, m.size(), m) == 0;
    }
    if (status != 0 || !magic)
    {
        std::remove(tmpImage.c_str());
        throw PrestoInputError(name + ": gnuplot failed (exit status " +
                               (status >= 0 ? std::to_string(status) : std::string("unknown")) +
                               ")" + (errors.empty() ? "" : ": " + errors) +
                               (pipeError.empty() ? "" : " (" + pipeError + ")"));
    }
    if (!errors.empty())
    {
        NS_LOG_WARN("gnuplot (" << name << "): " << errors);
    }
}

} // namespace

void
RenderGnuplotPng(const std::string& script, const std::string& pngPath, const std::string& what)
{
    NS_LOG_FUNCTION(pngPath << what);
    const std::string name = what + " '" + pngPath + "'";
    const std::string svgPath = SvgBeside(pngPath);
    if (script.find(GnuplotQuote(kGnuplotPngPlaceholder)) == std::string::npos)
    {
        throw PrestoInputError(name + ": the gnuplot script does not write to the placeholder "
                                      "output (set output GnuplotQuote(kGnuplotPngPlaceholder))");
    }
    if (!OnPath("gnuplot"))
    {
        throw PrestoInputError(name + ": gnuplot is not installed (not found on the PATH)");
    }
    // Next to the destination, so that the final rename stays on one file system.
    const std::string tmpPng = pngPath + ".tmp." + std::to_string(::getpid()) + ".png";
    const std::string tmpSvg = pngPath + ".tmp." + std::to_string(::getpid()) + ".svg";
    for (const std::string& tmp : {tmpPng, tmpSvg})
    {
        // Fail early, with a clear message, if the destination is not writable.
        std::ofstream probe(tmp, std::ios::binary);
        if (!probe)
        {
            std::remove(tmpPng.c_str());
            throw PrestoInputError(what + ": cannot write '" + pngPath + "'");
        }
    }
    try
    {
        RunGnuplot(script, tmpPng, name, {std::string("\x89PNG\r\n\x1a\n", 8)});
        RunGnuplot("presto_svg = 1\n" + script,
                   tmpSvg,
                   what + " '" + svgPath + "'",
                   {"<?xml", "<svg"});
    }
    catch (const PrestoInputError&)
    {
        std::remove(tmpPng.c_str());
        std::remove(tmpSvg.c_str());
        throw;
    }
    if (std::rename(tmpPng.c_str(), pngPath.c_str()) != 0 ||
        std::rename(tmpSvg.c_str(), svgPath.c_str()) != 0)
    {
        std::remove(tmpPng.c_str());
        std::remove(tmpSvg.c_str());
        throw PrestoInputError(what + ": cannot rename the image to '" + pngPath + "' / '" +
                               svgPath + "'");
    }
}

} // namespace ns3
