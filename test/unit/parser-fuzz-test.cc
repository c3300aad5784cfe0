/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Mutation fuzzing of the input parsers: CDF, HPCC flow file, Cora program, classifier
// rules. Deterministic: input i of a parser is a function of (PRESTO_FUZZ_SEED, parser, i)
// alone. Each input must give either a PrestoInputError naming the file (and the line, for
// a line's error) in a bounded message, or a valid result that the model then uses without
// trouble. Anything else fails the test: another exception, a crash, an input that takes
// more than PRESTO_FUZZ_BUDGET_MS (a hang; a watchdog ends the process after 60 s), or an
// allocation beyond a 2 GiB address-space margin (std::bad_alloc; not under AddressSanitizer,
// which needs the address space, and bounds allocations itself).
//
// PRESTO_FUZZ_COUNT: inputs per parser (default 4000; test/fuzz-parsers-long.sh runs 10,000+)
// PRESTO_FUZZ_SEED: seed (default 1)
// Each test prints one "fuzz:" line: inputs, clean rejections, acceptances, failures.

#include "cora-test-support.h"

#include "ns3/cora-allocator.h"
#include "ns3/cora-executor.h"
#include "ns3/cora-perf-model.h"
#include "ns3/cora-program-file.h"
#include "ns3/flow-file.h"
#include "ns3/flow-generator.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/flow-spec.h"
#include "ns3/presto-classifier.h"
#include "ns3/presto-input-error.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/splitmix.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

/// Environment variable as an unsigned number, or a default.
uint64_t
EnvNumber(const char* name, uint64_t fallback)
{
    const char* v = std::getenv(name);
    return v != nullptr && v[0] != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

/// Largest fuzzed input, bytes.
constexpr std::size_t MAX_INPUT = 64 * 1024;
/// Longest accepted error message, characters.
constexpr std::size_t MAX_MESSAGE = 512;

/// Values that probe ranges and parsers.
const std::vector<std::string> kInterestingTokens = {
    "0",
    "1",
    "-1",
    "-0",
    "+1",
    "0.5",
    "1.0000000001",
    "4294967295",
    "4294967296",
    "2147483648",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "9007199254740993",
    "11500000000000000000",
    "1e12",
    "1e20",
    "1e308",
    "1e309",
    "-1e308",
    "1e-300",
    "1e-400",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "0x10",
    "0x1p3",
    "1,5",
    "",
    "#",
    "=",
    "->",
    "any",
    "default",
    "default 99",
    "program",
    "program x",
    "element",
    "branch",
    "depends",
    "key=flow",
    "key=global",
    "entries=1099511627777",
    "entry_bytes=4294967295",
    "instructions=1e300",
    "locks=2147483648 lock_accesses=1",
    "lock_accesses=1e7",
    "stateless=1e12",
    "access=EMEM/read/bulk/4:1e9",
    "access=IMEM/write/atomic/4:1",
    "access=CLS/read/bulk/128B:2",
    "dport=65536",
    "sport=5-4",
    "src=10.0.0.0/33",
    "src=10.0.0.1/8",
    "dst=256.0.0.1",
    "proto=300",
    "dscp=64",
    "caf\xe9",
    "\xff\xfe",
    "\t",
    "\r",
};

/// One mutation of a text, chosen by rng.
void
Mutate(std::string& s, std::mt19937_64& rng, const std::vector<std::string>& others)
{
    auto pick = [&rng](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
    auto lineStarts = [&s]() {
        std::vector<std::size_t> starts{0};
        for (std::size_t i = 0; i < s.size(); ++i)
        {
            if (s[i] == '\n' && i + 1 < s.size())
            {
                starts.push_back(i + 1);
            }
        }
        return starts;
    };
    auto lineAt = [&s](std::size_t start) {
        const std::size_t end = s.find('\n', start);
        return s.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
    };
    static const char kBytes[] = "\0\n\r\t #=-+.,:/eE0123456789\x7f\x80\xff";
    switch (rng() % 13)
    {
    case 0: // flip a bit
        if (!s.empty())
        {
            s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        }
        break;
    case 1: // an interesting byte
        if (!s.empty())
        {
            s[pick(s.size())] = kBytes[pick(sizeof(kBytes) - 1)];
        }
        break;
    case 2: { // random bytes
        std::string chunk;
        for (std::size_t n = 1 + pick(8); n > 0; --n)
        {
            chunk += static_cast<char>(rng() & 0xff);
        }
        s.insert(pick(s.size() + 1), chunk);
        break;
    }
    case 3: // an interesting token, inserted
        s.insert(pick(s.size() + 1), " " + kInterestingTokens[pick(kInterestingTokens.size())]);
        break;
    case 4: { // delete a range
        if (!s.empty())
        {
            const std::size_t at = pick(s.size());
            s.erase(at, 1 + pick(16));
        }
        break;
    }
    case 5: { // duplicate a line
        const auto starts = lineStarts();
        const std::string line = lineAt(starts[pick(starts.size())]);
        const std::size_t to = starts[pick(starts.size())];
        for (std::size_t n = 1 + (rng() % 8 == 0 ? pick(200) : 0); n > 0; --n)
        {
            s.insert(to, line.empty() || line.back() == '\n' ? line : line + "\n");
        }
        break;
    }
    case 6: { // delete a line
        const auto starts = lineStarts();
        const std::size_t at = starts[pick(starts.size())];
        s.erase(at, lineAt(at).size());
        break;
    }
    case 7: { // swap two lines
        const auto starts = lineStarts();
        if (starts.size() >= 2)
        {
            std::vector<std::string> lines;
            for (auto st : starts)
            {
                lines.push_back(lineAt(st));
            }
            std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
            s.clear();
            for (auto& l : lines)
            {
                s += l.empty() || l.back() == '\n' ? l : l + "\n";
            }
        }
        break;
    }
    case 8:
    case 9: { // replace a token by an interesting one
        std::vector<std::pair<std::size_t, std::size_t>> tokens;
        std::size_t i = 0;
        while (i < s.size())
        {
            while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            {
                ++i;
            }
            const std::size_t b = i;
            while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])))
            {
                ++i;
            }
            if (i > b)
            {
                tokens.emplace_back(b, i - b);
            }
        }
        if (!tokens.empty())
        {
            const auto [b, n] = tokens[pick(tokens.size())];
            std::string replacement = kInterestingTokens[pick(kInterestingTokens.size())];
            const std::size_t eq = s.substr(b, n).find('=');
            if (eq != std::string::npos && replacement.find('=') == std::string::npos)
            {
                replacement = s.substr(b, eq + 1) + replacement; // keep the key
            }
            s.replace(b, n, replacement);
        }
        break;
    }
    case 10: // a very long token or line, sometimes
        if (rng() % 8 == 0)
        {
            s.insert(pick(s.size() + 1), std::string(1000 + pick(8000), "7x \n"[pick(3)]));
        }
        break;
    case 11: // truncate
        s.resize(pick(s.size() + 1));
        break;
    case 12: // a line of another seed
        if (!others.empty())
        {
            const std::string& o = others[pick(others.size())];
            std::size_t from = pick(o.size());
            from = o.rfind('\n', from) == std::string::npos ? 0 : o.rfind('\n', from) + 1;
            const std::size_t to = o.find('\n', from);
            const auto starts = lineStarts();
            s.insert(starts[pick(starts.size())],
                     o.substr(from, to == std::string::npos ? std::string::npos : to - from) +
                         "\n");
        }
        break;
    }
}

/// Input i of a parser: a seed mutated 1 to 6 times, or (1 in 32) random bytes.
std::string
MakeInput(const std::vector<std::string>& seeds, uint64_t seed, uint32_t parser, uint64_t i)
{
    std::mt19937_64 rng(SplitMix64(seed * 0x9E3779B97F4A7C15ULL ^ (uint64_t{parser} << 48) ^ i));
    if (rng() % 32 == 0)
    {
        std::string junk(rng() % 512, '\0');
        for (auto& c : junk)
        {
            c = static_cast<char>(rng() & 0xff);
        }
        return junk;
    }
    std::string s = seeds[rng() % seeds.size()];
    // mostly one mutation (close to valid: deeper paths), sometimes up to six
    for (uint64_t n = 1 + (rng() % 4 == 0 ? rng() % 6 : 0); n > 0; --n)
    {
        Mutate(s, rng, seeds);
    }
    if (s.size() > MAX_INPUT)
    {
        s.resize(MAX_INPUT);
    }
    return s;
}

/// The outcome of one input.
enum class Outcome
{
    REJECTED, //!< PrestoInputError from the parser, with the file (and line)
    ACCEPTED, //!< parsed, and the model used it (or refused it cleanly)
};

/// What a parser fuzz run found.
struct Tally
{
    uint64_t inputs{0};        //!< inputs tried
    uint64_t rejected{0};      //!< clean PrestoInputError from the parser
    uint64_t fileOnly{0};      //!< of which naming the file without a line (whole-file)
    uint64_t accepted{0};      //!< parsed
    uint64_t refusedInUse{0};  //!< of which refused cleanly by the model using it
    uint64_t failures{0};      //!< anything else (reported)
    uint64_t hangs{0};         //!< inputs over the time budget
    double slowestMs{0};       //!< slowest input
    std::size_t longestMsg{0}; //!< longest message
};

/// The watchdog: ends the process if one input runs for more than 60 s (a hang that never
/// returns to the time check), after saving it.
class Watchdog
{
  public:
    Watchdog()
        : m_thread([this] { Loop(); })
    {
    }

    ~Watchdog()
    {
        m_stop = true;
        m_thread.join();
    }

    /// \param input the input about to run \param what the parser
    void Start(const std::string& input, const std::string& what)
    {
        m_input = input;
        m_what = what;
        m_startMs = NowMs();
    }

    void Stop()
    {
        m_startMs = -1;
    }

  private:
    static int64_t NowMs()
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    void Loop()
    {
        while (!m_stop)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const int64_t start = m_startMs;
            if (start >= 0 && NowMs() - start > 60000)
            {
                const std::string path = (std::filesystem::temp_directory_path() /
                                          ("presto-fuzz-hang-" + m_what + ".txt"))
                                             .string();
                std::ofstream(path, std::ios::binary) << m_input;
                std::fprintf(stderr,
                             "fuzz: %s: an input ran for more than 60 s (saved in %s)\n",
                             m_what.c_str(),
                             path.c_str());
                std::_Exit(3);
            }
        }
    }

    std::atomic<bool> m_stop{false};
    std::atomic<int64_t> m_startMs{-1};
    std::string m_input; //!< written before m_startMs, read after: ordered by the atomic
    std::string m_what;
    std::thread m_thread;
};

/// Limits the address space to the current size + 2 GiB while it lives (not under
/// AddressSanitizer), so an unbounded allocation is a std::bad_alloc the test can report.
class AllocationGuard
{
  public:
    AllocationGuard()
    {
#if !defined(__SANITIZE_ADDRESS__)
        std::ifstream status("/proc/self/status");
        std::string key;
        uint64_t kb = 0;
        while (status >> key)
        {
            if (key == "VmSize:")
            {
                status >> kb;
                break;
            }
        }
        if (kb > 0 && getrlimit(RLIMIT_AS, &m_old) == 0)
        {
            rlimit limit = m_old;
            limit.rlim_cur = std::min<rlim_t>(m_old.rlim_max, (kb << 10) + (rlim_t{2} << 30));
            m_active = setrlimit(RLIMIT_AS, &limit) == 0;
        }
#endif
    }

    ~AllocationGuard()
    {
        if (m_active)
        {
            setrlimit(RLIMIT_AS, &m_old);
        }
    }

  private:
    rlimit m_old{};
    bool m_active{false};
};

/// Run a parser over PRESTO_FUZZ_COUNT inputs; \p parse returns normally (ACCEPTED, after
/// using the result) or throws PrestoInputError from the parser. A PrestoInputError the
/// use of an accepted result throws must be wrapped by \p parse as UseError.
struct UseError
{
    std::string message; //!< the model's message
};

Tally
Fuzz(const std::string& what,
     uint32_t parserIndex,
     const std::vector<std::string>& seeds,
     const std::function<bool(const std::string&)>& withLine,
     const std::function<bool(const std::string&)>& fileOnly,
     const std::function<void(const std::string&)>& parse)
{
    const uint64_t count = EnvNumber("PRESTO_FUZZ_COUNT", 4000);
    const uint64_t seed = EnvNumber("PRESTO_FUZZ_SEED", 1);
    const double budgetMs = static_cast<double>(EnvNumber("PRESTO_FUZZ_BUDGET_MS", 2000));
    Tally t;
    Watchdog watchdog;
    AllocationGuard guard;
    for (uint64_t i = 0; i < count; ++i)
    {
        const std::string input = MakeInput(seeds, seed, parserIndex, i);
        std::string failure;
        std::string message;
        bool isUse = false;
        bool rejected = false;
        watchdog.Start(input, what);
        const auto start = std::chrono::steady_clock::now();
        try
        {
            parse(input);
        }
        catch (const PrestoInputError& e)
        {
            rejected = true;
            message = e.what();
        }
        catch (const UseError& e)
        {
            isUse = true;
            message = e.message;
        }
        catch (const std::bad_alloc&)
        {
            failure = "std::bad_alloc (an allocation beyond the 2 GiB margin)";
        }
        catch (const std::exception& e)
        {
            failure = std::string("exception other than PrestoInputError: ") + e.what();
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        watchdog.Stop();
        ++t.inputs;
        t.slowestMs = std::max(t.slowestMs, ms);
        t.longestMsg = std::max(t.longestMsg, message.size());
        if (ms > budgetMs)
        {
            ++t.hangs;
            failure = "took " + std::to_string(ms) + " ms";
        }
        if (failure.empty() && message.size() > MAX_MESSAGE)
        {
            failure = "message of " + std::to_string(message.size()) + " characters";
        }
        if (failure.empty() && rejected)
        {
            if (withLine(message))
            {
                ++t.rejected;
            }
            else if (fileOnly(message))
            {
                ++t.rejected;
                ++t.fileOnly;
            }
            else
            {
                failure = "message without the file and line: " + message;
            }
        }
        else if (failure.empty())
        {
            ++t.accepted;
            t.refusedInUse += isUse ? 1 : 0;
        }
        if (!failure.empty())
        {
            ++t.failures;
            const std::string path = (std::filesystem::temp_directory_path() /
                                      ("presto-fuzz-" + what + "-" + std::to_string(i) + ".txt"))
                                         .string();
            std::ofstream(path, std::ios::binary) << input;
            ADD_FAILURE() << what << " input " << i << " (saved in " << path
                          << "): " << failure.substr(0, 600);
        }
    }
    std::printf("fuzz: parser=%s inputs=%llu rejected=%llu (file only %llu) accepted=%llu "
                "(refused in use %llu) failures=%llu hangs=%llu slowest=%.1f ms "
                "longest message=%zu chars seed=%llu\n",
                what.c_str(),
                static_cast<unsigned long long>(t.inputs),
                static_cast<unsigned long long>(t.rejected),
                static_cast<unsigned long long>(t.fileOnly),
                static_cast<unsigned long long>(t.accepted),
                static_cast<unsigned long long>(t.refusedInUse),
                static_cast<unsigned long long>(t.failures),
                static_cast<unsigned long long>(t.hangs),
                t.slowestMs,
                t.longestMsg,
                static_cast<unsigned long long>(seed));
    return t;
}

/// \return a predicate: the message starts with \p before, a line number and \p after
std::function<bool(const std::string&)>
StartsWithLine(const std::string& before, const std::string& after)
{
    return [before, after](const std::string& m) {
        if (m.compare(0, before.size(), before) != 0)
        {
            return false;
        }
        std::size_t i = before.size();
        const std::size_t digits = i;
        while (i < m.size() && m[i] >= '0' && m[i] <= '9')
        {
            ++i;
        }
        return i > digits && m.compare(i, after.size(), after) == 0;
    };
}

/// What InputLineReader says after "<file>:<line>" of a line above INPUT_LINE_MAX.
const std::string LONG_LINE = ": line longer than 4096 characters, starting '";

/// \return a predicate that accepts what either of \p a and \p b accepts
std::function<bool(const std::string&)>
EitherOf(std::function<bool(const std::string&)> a, std::function<bool(const std::string&)> b)
{
    return [a, b](const std::string& m) { return a(m) || b(m); };
}

/// \return a predicate that accepts nothing (parsers whose every error has a line)
std::function<bool(const std::string&)>
Never()
{
    return [](const std::string&) { return false; };
}

/// The text of a shipped data file, or "" if the data directory is not found.
std::string
DataFile(const std::string& relative)
{
    const char* env = std::getenv("PRESTO_DATA_DIR");
    const std::string dir = env != nullptr && env[0] != '\0' ? env : "data";
    std::ifstream in(dir + "/" + relative, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Seeds: shipped files where found, plus small hand-written ones.
std::vector<std::string>
Seeds(std::vector<std::string> files, std::vector<std::string> inline_)
{
    for (const auto& f : files)
    {
        const std::string text = DataFile(f);
        if (!text.empty())
        {
            inline_.push_back(text);
        }
    }
    return inline_;
}

/// Use an accepted CDF as the experiment would: sample it, bucket it, generate flows.
void
UseCdf(const FlowSizeCdf& cdf)
{
    for (double u : {0.0, 1e-9, 0.3, 0.5, 0.999999, 1.0})
    {
        const uint64_t size = cdf.Sample(u);
        if (size < 1 || size > MAX_FLOW_BYTES)
        {
            throw std::runtime_error("sample " + std::to_string(size) + " out of range");
        }
    }
    (void)cdf.Cdf(1000.0);
    const auto edges = cdf.DefaultBucketEdges();
    if (edges.empty() || !std::is_sorted(edges.begin(), edges.end()))
    {
        throw std::runtime_error("bucket edges not increasing");
    }
    FlowGeneratorConfig c;
    c.nHosts = 4;
    c.load = 0.5;
    c.hostRateBps = 10e9;
    c.durationNs = 1000000;
    c.flowLimit = 20000;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(1);
    try
    {
        const auto flows = GenerateFlows(c, cdf, u);
        if (flows.size() > c.flowLimit)
        {
            throw std::runtime_error("more flows than the limit");
        }
    }
    catch (const PrestoInputError& e)
    {
        throw UseError{e.what()};
    }
}

} // namespace

TEST(ParserFuzz, Cdf)
{
    const auto seeds =
        Seeds({"websearch.cdf", "datamining.cdf", "hadoop.cdf", "alistorage.cdf", "googlerpc.cdf"},
              {"0 0\n1000 0.5\n10000 1\n", "# sizes\n1460 0.5\n1460 0.6\n30000000 1\n", "100 1\n"});
    const auto t = Fuzz("cdf",
                        0,
                        seeds,
                        EitherOf(StartsWithLine("CDF file 'fuzz.cdf', line ", ": "),
                                 StartsWithLine("fuzz.cdf:", LONG_LINE)),
                        Never(),
                        [](const std::string& input) {
                            std::istringstream in(input);
                            const auto cdf = FlowSizeCdf::Parse(in, "fuzz.cdf");
                            UseCdf(cdf);
                        });
    EXPECT_EQ(t.failures, 0U);
    EXPECT_GT(t.accepted, 0U);
    EXPECT_GT(t.rejected, 0U);
}

TEST(ParserFuzz, FlowFile)
{
    std::ostringstream gen;
    gen << "12\n";
    for (int i = 0; i < 12; ++i)
    {
        gen << i % 8 << ' ' << (i + 3) % 8 << " 3 100 " << 1000 * (i + 1) << ' ' << "2.0000" << i
            << "0\n";
    }
    const auto seeds = Seeds({},
                             {gen.str(),
                              "# HPCC\n3\n0 1 3 100 5000 2.000000100\n2 3 3 100 1 2.000000050\n"
                              "\n3 0 7 80 123456789012 2.000000100\n",
                              "2\n0 1 3 100 10 1e-3\n1 0 3 100 10 .25\n"});
    const auto t = Fuzz("flow-file",
                        1,
                        seeds,
                        EitherOf(StartsWithLine("flow file 'fuzz.txt', line ", ": "),
                                 StartsWithLine("fuzz.txt:", LONG_LINE)),
                        Never(),
                        [](const std::string& input) {
                            std::istringstream in(input);
                            const auto flows = ParseFlowFile(in, "fuzz.txt", 8);
                            for (std::size_t k = 0; k < flows.size(); ++k)
                            {
                                const auto& f = flows[k];
                                if (f.src >= 8 || f.dst >= 8 || f.src == f.dst || f.sizeBytes < 1 ||
                                    f.sizeBytes > MAX_FLOW_BYTES || f.startNs < 0 ||
                                    (k > 0 && f.startNs < flows[k - 1].startNs))
                                {
                                    throw std::runtime_error("an accepted flow breaks the rules");
                                }
                            }
                        });
    EXPECT_EQ(t.failures, 0U);
    EXPECT_GT(t.accepted, 0U);
    EXPECT_GT(t.rejected, 0U);
}

TEST(ParserFuzz, CoraProgram)
{
    const auto seeds = Seeds({"cora/tcp.cora",
                              "cora/l4lb-http.cora",
                              "cora/l4lb.cora",
                              "cora/count-min.cora",
                              "cora/nat.cora"},
                             {"program p\nelement a key=flow entries=16 entry_bytes=8 "
                              "instructions=10 access=EMEM/read/bulk/16:1 locks=4 "
                              "lock_accesses=1\nelement b key=global entries=1 entry_bytes=8 "
                              "instructions=5 access=IMEM/write/atomic/8:1\ndepends a -> b\n"
                              "depends b -> a\nbranch x stateless=20 a b\nbranch y "
                              "stateless=5 b\n"});
    const CoraPerfModel model(CoraPerfProfile::Netronome());
    const auto t = Fuzz(
        "cora",
        2,
        seeds,
        StartsWithLine("fuzz.cora:", ": "),
        // problems of the program as a whole name the file only
        [](const std::string& m) {
            const std::string program = "fuzz.cora: Cora program '";
            return m == "fuzz.cora: no 'program <name>' line" ||
                   (m.compare(0, program.size(), program) == 0 &&
                    (m.find("': has no state element") != std::string::npos ||
                     m.find("': has no branch") != std::string::npos));
        },
        [&model](const std::string& input) {
            std::istringstream in(input);
            const CoraProgram program = CoraParseProgram(in, "fuzz.cora");
            try
            {
                // the allocator with a little traffic on every branch, then the executor
                std::vector<CoraFlow> traffic;
                for (uint32_t b = 0; b < program.GetBranches().size() && b < 16; ++b)
                {
                    for (uint32_t k = 0; k < 3; ++k)
                    {
                        traffic.push_back(CoraFlow{traffic.size(), b, k, b, 1e5});
                    }
                }
                const CoraAllocator allocator(program, model, CoraNicLimits{});
                CoraExecutor exec(program, model, CoraExecutorConfig{});
                exec.SetPlan(allocator.Allocate(CoraStrategy::CORA, traffic));
                for (std::size_t k = 0; k < traffic.size(); ++k)
                {
                    exec.Process(static_cast<int64_t>(k) * 100, CoraPacket{traffic[k], 512});
                }
            }
            catch (const PrestoInputError& e)
            {
                throw UseError{e.what()};
            }
        });
    EXPECT_EQ(t.failures, 0U);
    EXPECT_GT(t.accepted, 0U);
    EXPECT_GT(t.rejected, 0U);
}

TEST(ParserFuzz, ClassifierRules)
{
    const auto seeds =
        Seeds({},
              {"# priority class key=value ...\n"
               "100 2 src=10.0.0.0/8 dst=any proto=tcp sport=any dport=5000-5100 dscp=46\n"
               "10  1 dst=10.1.2.3\n"
               "default 0\n",
               "default 1\n10 0 proto=tcp dport=80\n-5 2 proto=udp sport=53 # dns\n",
               "1 1 src=192.168.0.0/16 dst=10.0.0.0/24 proto=17 dscp=any\n"});
    const auto t = Fuzz("rules",
                        3,
                        seeds,
                        StartsWithLine("fuzz.rules:", ": "),
                        Never(),
                        [](const std::string& input) {
                            PrestoClassifier c(3);
                            std::istringstream in(input);
                            c.LoadRules(in, "fuzz.rules");
                            for (uint32_t k = 0; k < 8; ++k)
                            {
                                PrestoFlowKey key;
                                key.src = 0x0a000000u + k;
                                key.dst = 0x0a010203u;
                                key.protocol = k % 2 ? 6 : 17;
                                key.srcPort = static_cast<uint16_t>(53 * k);
                                key.dstPort = static_cast<uint16_t>(5000 + k);
                                key.dscp = static_cast<uint8_t>(46 * (k % 2));
                                if (c.Classify(key) >= 3)
                                {
                                    throw std::runtime_error("class out of range");
                                }
                            }
                        });
    EXPECT_EQ(t.failures, 0U);
    EXPECT_GT(t.accepted, 0U);
    EXPECT_GT(t.rejected, 0U);
}
