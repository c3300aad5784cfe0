/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_GNUPLOT_PNG_H
#define PRESTO_GNUPLOT_PNG_H

#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * The name a script passes to GnuplotQuote for its output file ("set output " +
 * GnuplotQuote(kGnuplotPngPlaceholder)); RenderGnuplotPng replaces that quoted word with the
 * quoted temporary image it renders to, so no script needs to know the temporary name.
 */
extern const char* const kGnuplotPngPlaceholder;

/**
 * \ingroup presto
 * \brief Quote a string for gnuplot: single quotes, in which gnuplot processes no escapes.
 *
 * A quote is doubled ('' is a quote) and a line break (CR or LF), which would end the
 * command, becomes a space.
 * \param s the text, e.g. a legend entry or a file name
 * \return s as one gnuplot single-quoted string
 */
std::string GnuplotQuote(const std::string& s);

/**
 * \ingroup presto
 * \brief Quote a string as one POSIX shell word: single quotes, a quote becomes '\''.
 * \param s the text, e.g. a file name
 * \return s as one single-quoted shell word
 */
std::string ShellQuote(const std::string& s);

/**
 * \ingroup presto
 * \brief The commands that draw an empty panel with a note in its middle, so that a panel
 * with nothing to draw says so instead of making gnuplot fail with "no valid points".
 *
 * Resets the log scales, ranges and tics; the caller restores what its next panel needs.
 * \param note the text in the middle of the panel
 * \return gnuplot commands, one a line
 */
std::string GnuplotEmptyPanel(const std::string& note);

/**
 * \ingroup presto
 * \brief The terminal lines every plot script starts with (before its "set output"): the
 * 'svg' terminal when RenderGnuplotPng draws the SVG copy (the gnuplot variable
 * presto_svg exists), else 'pngcairo' when gnuplot has it, else the gd 'png' terminal; all
 * \p width x \p height pixels, 'noenhanced' (labels drawn as they are). Sets the gnuplot
 * variable presto_cairo to 1 on the svg and pngcairo terminals (dashed lines, anti-aliased
 * text), 0 on gd png.
 * \param width image width, pixels
 * \param height image height, pixels
 * \return gnuplot commands, one a line
 */
std::string GnuplotTerminal(int width, int height);

/**
 * \ingroup presto
 * \brief The command that starts a script's panels: "set multiplot layout ROWS,COLS", with
 * \p caption (e.g. the run configuration, RunCaption) as one line of small text along the
 * top of the image, above every panel (gnuplot keeps the room for it, so no panel, title
 * or key runs into it). A one-panel plot uses 1,1. The script ends the panels with
 * "unset multiplot".
 * \param rows panels down
 * \param cols panels across
 * \param caption the text, one line ("": no caption)
 * \return a gnuplot command line, ending in a newline
 */
std::string GnuplotMultiplot(int rows, int cols, const std::string& caption);

/**
 * \ingroup presto
 * \brief The SVG written beside an image: \p pngPath with its ".png" ending replaced by
 * ".svg" (".svg" appended if it has none).
 * \param pngPath the PNG image
 * \return the SVG's path
 */
std::string SvgBeside(const std::string& pngPath);

/**
 * \ingroup presto
 * \brief Run gnuplot on a script that draws one PNG and put the image at \p pngPath, and
 * the same plot as an SVG at SvgBeside(pngPath).
 *
 * The script (inline data '-' ... 'e' allowed) starts with GnuplotTerminal and writes its
 * output to GnuplotQuote(kGnuplotPngPlaceholder); the placeholder is replaced by a temporary
 * image next to \p pngPath and the script is sent to gnuplot through a gnuplot-iostream pipe
 * (gnuplot's exit status and error output are kept in a private temporary directory). It is
 * run twice: once as it is (the PNG) and once after "presto_svg = 1" (GnuplotTerminal then
 * picks the svg terminal; gnuplot's SVG has no timestamp, so the same script gives the same
 * bytes). The images are kept only if gnuplot exits with status 0 both times and the files
 * start with the PNG magic bytes and "<?xml" / "<svg"; they are then renamed to their paths
 * (atomic on one file system), so readers never see a partial image and a failure leaves no
 * file. Warnings gnuplot prints on success are logged.
 *
 * Throws PrestoInputError, every message starting with \p what and naming \p pngPath, if
 * the script has no placeholder, gnuplot is not on the PATH, \p pngPath cannot be written,
 * or gnuplot fails (its exit status and error output are in the message).
 * \param script the gnuplot commands
 * \param pngPath the image to write
 * \param what the plot's name in messages, e.g. "FCT plot"
 */
void RenderGnuplotPng(const std::string& script,
                      const std::string& pngPath,
                      const std::string& what);

} // namespace ns3

#endif // PRESTO_GNUPLOT_PNG_H
