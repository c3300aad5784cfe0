/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gnuplot-png.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/// \return the bytes of the file at \p path ("" if it cannot be read)
std::string
ReadAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// What the shell makes of one word: the text printf prints for it.
std::string
ThroughShell(const std::string& word)
{
    FILE* p = ::popen(("printf '%s' " + word).c_str(), "r");
    std::string out;
    char buf[256];
    std::size_t n;
    while (p && (n = std::fread(buf, 1, sizeof(buf), p)) > 0)
    {
        out.append(buf, n);
    }
    if (p)
    {
        ::pclose(p);
    }
    return out;
}

/// A small script that draws a sine to the placeholder output.
std::string
SineScript()
{
    return GnuplotTerminal(320, 200) + "set output " + GnuplotQuote(kGnuplotPngPlaceholder) +
           "\n"
           "plot sin(x) title " +
           GnuplotQuote("it's a sine") + "\nset output\n";
}

const std::string kPngMagic("\x89PNG\r\n\x1a\n", 8);

} // namespace

/// Render tests: each gets a fresh folder, removed with its files afterwards.
class GnuplotPngRender : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        char templ[] = "/tmp/presto-gnuplot-png-XXXXXX";
        ASSERT_NE(::mkdtemp(templ), nullptr);
        m_dir = templ;
    }

    void TearDown() override
    {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }

    /// \return the path of \p name in the folder
    std::string File(const std::string& name) const
    {
        return (fs::path(m_dir) / name).string();
    }

    /// \return every name in the folder (temporary leftovers included), sorted
    std::vector<std::string> Names() const
    {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(m_dir))
        {
            names.push_back(e.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    std::string m_dir; //!< the folder
};

TEST(GnuplotPng, GnuplotQuoteDoublesQuotesAndFlattensLineBreaks)
{
    EXPECT_EQ(GnuplotQuote(""), "''");
    EXPECT_EQ(GnuplotQuote("presto_k0"), "'presto_k0'");
    EXPECT_EQ(GnuplotQuote("it's"), "'it''s'");
    EXPECT_EQ(GnuplotQuote("a\nb\r\nc"), "'a b  c'");
    // backslashes and double quotes are plain text inside gnuplot's single quotes
    EXPECT_EQ(GnuplotQuote("C:\\x \"y\""), "'C:\\x \"y\"'");
}

TEST(GnuplotPng, ShellQuoteGivesOneWordTheShellReadsBack)
{
    EXPECT_EQ(ShellQuote("a b"), "'a b'");
    EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
    const std::string tricky = "x'; echo $HOME `id` \"q\" \\ *";
    EXPECT_EQ(ThroughShell(ShellQuote(tricky)), tricky);
}

TEST_F(GnuplotPngRender, RendersTrivialScriptToPng)
{
    const std::string png = File("sine it's.png"); // a quote in the name is fine
    RenderGnuplotPng(SineScript(), png, "test plot");
    const std::string image = ReadAll(png);
    ASSERT_GT(image.size(), 8u);
    EXPECT_EQ(image.substr(0, 8), kPngMagic);
    EXPECT_GT(image.size(), 500u); // axes, a curve and text: more than an empty image
    // the SVG beside it, and no temporary left
    EXPECT_EQ(Names(), (std::vector<std::string>{"sine it's.png", "sine it's.svg"}));
    const std::string svg = ReadAll(File("sine it's.svg"));
    EXPECT_EQ(svg.substr(0, 5), "<?xml");
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("it's a sine"), std::string::npos) << "the legend is in the SVG";

    // same script, same bytes: neither image carries a timestamp or its (temporary) name
    const std::string again = File("again.png");
    RenderGnuplotPng(SineScript(), again, "test plot");
    EXPECT_EQ(ReadAll(again), image);
    EXPECT_EQ(ReadAll(File("again.svg")), svg);

    // an empty panel is a valid plot too
    const std::string empty = File("empty.png");
    RenderGnuplotPng(GnuplotTerminal(320, 200) + "set output " +
                         GnuplotQuote(kGnuplotPngPlaceholder) + "\n" +
                         GnuplotEmptyPanel("nothing here") + "set output\n",
                     empty,
                     "empty plot");
    EXPECT_EQ(ReadAll(empty).substr(0, 8), kPngMagic);
    EXPECT_EQ(ReadAll(File("empty.svg")).substr(0, 5), "<?xml");
}

TEST(GnuplotPng, SvgBesideReplacesThePngEnding)
{
    EXPECT_EQ(SvgBeside("/x/fct.png"), "/x/fct.svg");
    EXPECT_EQ(SvgBeside("plot"), "plot.svg");
    EXPECT_EQ(SvgBeside("a.png.bak"), "a.png.bak.svg");
}

TEST_F(GnuplotPngRender, CaptionIsOneLineAboveThePanels)
{
    EXPECT_EQ(GnuplotMultiplot(1, 2, ""), "set multiplot layout 1,2\n");
    const std::string caption = "host-tcp | websearch, load 0.5 | seed 1 | simTime 0.01 s";
    EXPECT_EQ(GnuplotMultiplot(2, 1, caption),
              "set multiplot layout 2,1 title " + GnuplotQuote(caption) + " font ',8'\n");
    const std::string png = File("captioned.png");
    RenderGnuplotPng(
        GnuplotTerminal(400, 300) + "set output " + GnuplotQuote(kGnuplotPngPlaceholder) + "\n" +
            GnuplotMultiplot(1, 1, caption) + "plot sin(x)\nunset multiplot\nset output\n",
        png,
        "captioned plot");
    EXPECT_NE(ReadAll(File("captioned.svg")).find(caption), std::string::npos);
}

TEST_F(GnuplotPngRender, BrokenScriptThrowsNamingThePlotAndLeavesNoFile)
{
    const std::string png = File("broken.png");
    const std::string script = "set terminal png\nset output " +
                               GnuplotQuote(kGnuplotPngPlaceholder) +
                               "\nplot no_such_function(x)\n";
    std::string message;
    try
    {
        RenderGnuplotPng(script, png, "broken plot");
        ADD_FAILURE() << "no exception";
    }
    catch (const PrestoInputError& e)
    {
        message = e.what();
    }
    EXPECT_NE(message.find("broken plot '" + png + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("gnuplot failed (exit status 1)"), std::string::npos) << message;
    EXPECT_NE(message.find("no_such_function"), std::string::npos) << message; // its stderr
    EXPECT_TRUE(Names().empty());

    // a failure keeps the image that was there before
    std::ofstream(png, std::ios::binary) << "old";
    EXPECT_THROW(RenderGnuplotPng(script, png, "broken plot"), PrestoInputError);
    EXPECT_EQ(ReadAll(png), "old");
    EXPECT_EQ(Names(), std::vector<std::string>{"broken.png"});

    // a script that exits cleanly without drawing is not an image either
    const std::string none = File("none.png");
    EXPECT_THROW(
        RenderGnuplotPng("set output " + GnuplotQuote(kGnuplotPngPlaceholder) + "\nprint 1\n",
                         none,
                         "no plot"),
        PrestoInputError);
    EXPECT_FALSE(fs::exists(none));
}

// gnuplot-iostream's pipe: a gnuplot that quits before reading the whole script (here 2 MB,
// far beyond a pipe's buffer) makes the writes fail, not the process die of SIGPIPE; without
// an image that is an error, and nothing is left behind.
TEST_F(GnuplotPngRender, GnuplotQuittingEarlyIsAnErrorNotASignal)
{
    const std::string png = File("early.png");
    const std::string script = "set terminal png\nset output " +
                               GnuplotQuote(kGnuplotPngPlaceholder) + "\nquit\n" +
                               std::string(2 << 20, '#') + "\nplot sin(x)\n";
    std::string message;
    try
    {
        RenderGnuplotPng(script, png, "early plot");
        ADD_FAILURE() << "no exception";
    }
    catch (const PrestoInputError& e)
    {
        message = e.what();
    }
    EXPECT_NE(message.find("early plot '" + png + "': gnuplot failed"), std::string::npos)
        << message;
    EXPECT_TRUE(Names().empty());
}

TEST_F(GnuplotPngRender, BadDestinationOrScriptWithoutPlaceholderThrows)
{
    const std::string lost = File("no/such/dir/x.png");
    try
    {
        RenderGnuplotPng(SineScript(), lost, "lost plot");
        ADD_FAILURE() << "no exception";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("lost plot: cannot write '" + lost + "'"),
                  std::string::npos)
            << e.what();
    }
    const std::string png = File("fixed.png");
    EXPECT_THROW(
        RenderGnuplotPng("set terminal png\nset output 'fixed.png'\nplot x\n", png, "fixed plot"),
        PrestoInputError);
    EXPECT_TRUE(Names().empty());
}
