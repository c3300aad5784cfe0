/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fct-plot.h"

#include "presto-input-error.h"

#include "ns3/log.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gnuplot-iostream.h>
#include <map>
#include <sstream>
#include <unistd.h>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FctPlot");

namespace
{

/// At most this many points per CDF line: a million flows would only slow gnuplot down.
constexpr std::size_t kMaxCdfPoints = 4000;

/// A point of a line: (x, y).
using Points = std::vector<std::pair<double, double>>;

/// \p s as one single-quoted shell word.
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

/// \p s as a gnuplot single-quoted string: no escapes are processed inside, '' is a quote,
/// and a line break would end the command, so it becomes a space.
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

/// Ignore SIGPIPE while alive: if gnuplot dies early, writing to it must fail, not kill us.
class IgnoreSigpipe
{
  public:
    IgnoreSigpipe()
    {
        struct sigaction ignore
        {
        };

        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGPIPE, &ignore, &m_old);
    }

    ~IgnoreSigpipe()
    {
        ::sigaction(SIGPIPE, &m_old, nullptr);
    }

    IgnoreSigpipe(const IgnoreSigpipe&) = delete;
    IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

  private:
    struct sigaction m_old
    {
    };
};

/// The points of a CDF of the FCT (us) of the finished flows the summary counts.
Points
FctCdf(const PlotRun& run)
{
    std::vector<double> us;
    for (const FctRecord& r : run.records)
    {
        // Same population as the summary; log x cannot show a zero FCT.
        if (r.flow.startNs >= run.summary.warmupNs && r.Finished() && r.FctNs() > 0)
        {
            us.push_back(static_cast<double>(r.FctNs()) / 1e3);
        }
    }
    std::sort(us.begin(), us.end());
    Points cdf;
    const std::size_t n = us.size();
    const std::size_t points = std::min(n, kMaxCdfPoints);
    for (std::size_t k = 0; k < points; ++k)
    {
        // Evenly spaced ranks, always ending at the largest value.
        const std::size_t i = points == 1 ? n - 1 : k * (n - 1) / (points - 1);
        cdf.emplace_back(us[i], static_cast<double>(i + 1) / static_cast<double>(n));
    }
    return cdf;
}

/// The commands that draw an empty panel with a note instead of failing on "no data".
std::string
EmptyPanel(const std::string& note)
{
    return "unset logscale\nset xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\n"
           "set label 1 " +
           GnuplotQuote(note) + " at graph 0.5,0.5 center\nplot 2 notitle\nunset label 1\n";
}

} // namespace

void
PlotFct(const std::vector<PlotRun>& runs, const std::string& pngPath)
{
    NS_LOG_FUNCTION(runs.size() << pngPath);
    if (runs.empty())
    {
        throw PrestoInputError("FCT plot '" + pngPath + "': no runs to draw");
    }
    if (!OnPath("gnuplot"))
    {
        throw PrestoInputError("FCT plot '" + pngPath +
                               "': gnuplot is not installed (not found on the PATH)");
    }

    // The x axis of the left panel: every bucket any run has, by upper edge.
    std::map<std::pair<uint64_t, uint64_t>, std::string> bucketSet;
    for (const PlotRun& run : runs)
    {
        for (const BucketSummary& b : run.summary.buckets)
        {
            bucketSet[{b.hiBytes, b.loBytes}] = BucketLabel(b);
        }
    }
    std::map<std::pair<uint64_t, uint64_t>, int> xOf;
    std::string xtics;
    for (const auto& [key, label] : bucketSet)
    {
        const int x = static_cast<int>(xOf.size());
        xOf[key] = x;
        xtics += (x ? ", " : "") + GnuplotQuote(label) + " " + std::to_string(x);
    }

    // Data first, so that a run with nothing to show is left out instead of making gnuplot
    // fail with "no valid points".
    struct Line
    {
        std::string style;
        Points points;
    };

    std::vector<Line> left;
    std::vector<Line> right;
    for (std::size_t i = 0; i < runs.size(); ++i)
    {
        const std::string color = " lc " + std::to_string(i + 1);
        Points p50;
        Points p99;
        for (const BucketSummary& b : runs[i].summary.buckets)
        {
            const double x = xOf[{b.hiBytes, b.loBytes}];
            // Empty buckets have no statistics; log y cannot show values <= 0.
            if (b.slowdown.count > 0 && b.slowdown.p50 > 0)
            {
                p50.emplace_back(x, b.slowdown.p50);
            }
            if (b.slowdown.count > 0 && b.slowdown.p99 > 0)
            {
                p99.emplace_back(x, b.slowdown.p99);
            }
        }
        if (!p50.empty())
        {
            left.push_back({"with linespoints dt 2 lw p50width pt 6" + color + " title " +
                                GnuplotQuote(runs[i].label + " p50"),
                            p50});
        }
        if (!p99.empty())
        {
            left.push_back({"with linespoints dt 1 lw 2 pt 7" + color + " title " +
                                GnuplotQuote(runs[i].label + " p99"),
                            p99});
        }
        Points cdf = FctCdf(runs[i]);
        if (!cdf.empty())
        {
            right.push_back(
                {"with lines lw 2" + color + " title " + GnuplotQuote(runs[i].label), cdf});
        }
    }

    const std::string tmpPng = pngPath + ".tmp." + std::to_string(::getpid()) + ".png";
    {
        // Fail early, with a clear message, if the destination is not writable.
        std::ofstream probe(tmpPng, std::ios::binary);
        if (!probe)
        {
            throw PrestoInputError("FCT plot: cannot write '" + pngPath + "'");
        }
    }
    char dirTemplate[] = "/tmp/presto-plot-XXXXXX";
    const char* workDir = ::mkdtemp(dirTemplate);
    if (!workDir)
    {
        std::remove(tmpPng.c_str());
        throw PrestoInputError("FCT plot '" + pngPath + "': cannot create a temporary directory");
    }
    const std::string errFile = std::string(workDir) + "/stderr";
    const std::string statusFile = std::string(workDir) + "/status";
    auto cleanUp = [&]() {
        std::remove(errFile.c_str());
        std::remove(statusFile.c_str());
        ::rmdir(workDir);
    };

    // gnuplot reads on after an error and only says so in its exit status: keep both.
    const std::string cmd =
        "gnuplot 2>" + ShellQuote(errFile) + "; echo $? >" + ShellQuote(statusFile);
    try
    {
        IgnoreSigpipe guard;
        Gnuplot gp(cmd);
        // pngcairo draws dashed lines, the gd 'png' terminal draws every line solid; there
        // the p50 line is thinner, and on either the points are open (p50) or filled (p99).
        // noenhanced: a label's underscores and carets are text, not subscripts and superscripts.
        gp << "if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
              "  set terminal pngcairo size 1200,500 noenhanced font ',10'\n  p50width = 2\n"
              "} else {\n"
              "  set terminal png size 1200,500 noenhanced\n  p50width = 1\n"
              "}\n"
           << "set output " << GnuplotQuote(tmpPng) << "\n"
           << "set multiplot layout 1,2\n"
           << "set grid\nset key outside below\n";

        gp << "set title 'Slowdown (FCT / ideal FCT) by flow size (bytes): p50 dashed, p99 solid'\n"
           << "unset xlabel\nset ylabel 'slowdown'\n";
        if (left.empty())
        {
            gp << EmptyPanel("no finished flows");
        }
        else
        {
            gp << "set logscale y\n"
               << "set xrange [-0.5:" << static_cast<double>(xOf.size()) - 0.5 << "]\n"
               << "set xtics (" << xtics << ")\n"
               << "plot ";
            for (std::size_t i = 0; i < left.size(); ++i)
            {
                gp << (i ? ", " : "") << "'-' " << left[i].style;
            }
            gp << "\n";
            for (const Line& line : left)
            {
                gp.send1d(line.points);
            }
        }

        gp << "unset logscale\nset autoscale\nset xtics autofreq\nset ytics autofreq\n"
           << "set title 'CDF of flow completion time (FCT, us)'\n"
           << "unset xlabel\nset ylabel 'fraction of flows'\n";
        if (right.empty())
        {
            gp << EmptyPanel("no finished flows");
        }
        else
        {
            gp << "set logscale x\nset yrange [0:1]\nplot ";
            for (std::size_t i = 0; i < right.size(); ++i)
            {
                gp << (i ? ", " : "") << "'-' " << right[i].style;
            }
            gp << "\n";
            for (const Line& line : right)
            {
                gp.send1d(line.points);
            }
        }
        gp << "unset multiplot\nset output\n";
        gp.flush();
        // ~Gnuplot closes the pipe and waits for gnuplot to finish.
    }
    catch (const std::exception& e)
    {
        // e.g. the pipe broke because gnuplot died
        NS_LOG_WARN("gnuplot session: " << e.what());
    }

    const std::string status = Slurp(statusFile);
    const std::string errors = Slurp(errFile);
    cleanUp();
    const std::string png = Slurp(tmpPng).substr(0, 8);
    if (status.rfind("0\n", 0) != 0 || png != std::string("\x89PNG\r\n\x1a\n", 8))
    {
        std::remove(tmpPng.c_str());
        throw PrestoInputError(
            "FCT plot '" + pngPath + "': gnuplot failed (exit status " +
            (status.empty() ? std::string("unknown") : status.substr(0, status.find('\n'))) + ")" +
            (errors.empty() ? "" : ": " + errors));
    }
    if (!errors.empty())
    {
        NS_LOG_WARN("gnuplot: " << errors);
    }
    if (std::rename(tmpPng.c_str(), pngPath.c_str()) != 0)
    {
        std::remove(tmpPng.c_str());
        throw PrestoInputError("FCT plot: cannot rename the image to '" + pngPath + "'");
    }
}

} // namespace ns3
