/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_NS3_COMPAT_H
#define PRESTO_NS3_COMPAT_H

/**
 * \file
 * \ingroup presto
 * The one place where the module adapts to the ns-3 release it is built against (3.35 to
 * 3.48). Everything else is written once, against these names.
 *
 * Detection is by what the headers declare (overload resolution, SFINAE, __has_include),
 * not by a version number: ns-3 only defines its version macros when built with
 * --enable-build-version, and the Debian package's ns3/version-defines.h says 3.37 even when
 * it is not the tree in use.
 *
 * | ns-3 change                                   | since | here                          |
 * |-----------------------------------------------|-------|-------------------------------|
 * | lambdas accepted by Simulator::Schedule       | 3.36  | compat::Schedule              |
 * | MakeEnumAccessor needs the enum type          | 3.41  | compat::MakeEnumAccessor<T>   |
 * | EventId::IsRunning -> IsPending (removed 3.46)| 3.42  | compat::IsPending             |
 * | SimulatorImpl::Stop(const Time&) -> EventId  | 3.41  | LeanSimulatorImpl::StopResult |
 * | TestCase::TestDuration -> TestCase::Duration  | 3.42  | compat::TestDuration          |
 * | ipv4-global-routing.h -> global-routing.h     | 3.47  | included here                 |
 *
 * compat::CreateValidValue is not a change between releases but between builds: in every
 * release EnumValue::DeserializeFromString (EnumValue<T> from 3.41) answers a name that is no
 * value of the enum with NS_ASSERT, which stops the program when asserts are compiled in (an
 * ns-3 tree's default and debug profiles) and reads past the list of values when they are not
 * (Debian's packaged release build), instead of failing.
 *
 * TestSuite::Type::UNIT / SYSTEM need nothing: C++11 allows naming an enumerator of the old
 * unscoped enum through its type, so that spelling compiles on every release.
 */

#include "ns3/attribute.h"
#include "ns3/enum.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#if __has_include("ns3/global-routing.h")
#include "ns3/global-routing.h" // ns-3 >= 3.47: Ipv4GlobalRouting is a typedef in here
#else
#include "ns3/ipv4-global-routing.h"
#endif

#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Adapters over the ns-3 API changes between 3.35 and 3.48.
 */
namespace compat
{

/// \cond internal
namespace detail
{

/// ns-3 >= 3.42: EventId::IsPending
template <typename E>
auto
IsPending(const E& event, int) -> decltype(event.IsPending())
{
    return event.IsPending();
}

/// ns-3 <= 3.41: EventId::IsRunning
template <typename E>
bool
IsPending(const E& event, long)
{
    return event.IsRunning();
}

/// ns-3 <= 3.41: TestCase::TestDuration
template <typename T, typename = void>
struct Duration
{
    using Type = typename T::TestDuration; //!< the enum
};

/// ns-3 >= 3.42: TestCase::Duration
template <typename T>
struct Duration<T, std::void_t<typename T::Duration>>
{
    using Type = typename T::Duration; //!< the enum
};

/// ns-3 >= 3.41: MakeEnumAccessor<T>(member)
template <typename T, typename A>
auto
MakeEnumAccessor(A accessor, int) -> decltype(ns3::MakeEnumAccessor<T, A>(accessor))
{
    return ns3::MakeEnumAccessor<T, A>(accessor);
}

/// ns-3 <= 3.40: MakeEnumAccessor(member), the enum type deduced
template <typename T, typename A>
Ptr<const AttributeAccessor>
MakeEnumAccessor(A accessor, long)
{
    return ns3::MakeEnumAccessor(accessor);
}

/// Runs a std::function: a plain function pointer that every ns-3 can schedule.
inline void
Invoke(std::function<void()> f)
{
    f();
}

/// ns-3 >= 3.36: MakeEvent takes any callable, so does Simulator::Schedule
template <typename F>
auto
Schedule(const Time& delay, F&& f, int)
    -> decltype(MakeEvent(std::declval<std::decay_t<F>>()), EventId())
{
    return Simulator::Schedule(delay, std::forward<F>(f));
}

/// ns-3 3.35: only function and method pointers; wrap the callable in a std::function
template <typename F>
EventId
Schedule(const Time& delay, F&& f, long)
{
    return Simulator::Schedule(delay, &Invoke, std::function<void()>(std::forward<F>(f)));
}

} // namespace detail

/// \endcond

/**
 * \brief Whether an event is still to run (EventId::IsPending, IsRunning before 3.42).
 * \param event the event
 * \return true if it was scheduled and has neither run nor been cancelled
 */
inline bool
IsPending(const EventId& event)
{
    return detail::IsPending(event, 0);
}

/**
 * \brief TestCase's duration enum: TestDuration::QUICK, EXTENSIVE, TAKES_FOREVER
 * (TestCase::Duration from 3.42, TestCase::TestDuration before).
 */
using TestDuration = detail::Duration<TestCase>::Type;

/**
 * \brief MakeEnumAccessor with its enum type named, as 3.41 requires and 3.40 refuses.
 * \tparam T the enum type
 * \tparam A \deduced the member (or getter/setter) type
 * \param accessor the member or method
 * \return the accessor
 */
template <typename T, typename A>
Ptr<const AttributeAccessor>
MakeEnumAccessor(A accessor)
{
    return detail::MakeEnumAccessor<T>(accessor, 0);
}

/**
 * \brief Simulator::Schedule for a lambda or any callable without arguments: passed on as
 * it is from 3.36, through a std::function on 3.35 (whose Simulator::Schedule takes only
 * function and method pointers).
 * \tparam F \deduced the callable's type
 * \param delay from now
 * \param f what to run
 * \return the event
 */
template <typename F>
EventId
Schedule(const Time& delay, F&& f)
{
    return detail::Schedule(delay, std::forward<F>(f), 0);
}

/**
 * \brief checker->CreateValidValue(value), except that a string naming no value of an enum
 * attribute gives null: EnumValue's DeserializeFromString would stop the program (NS_ASSERT)
 * in a build with asserts and read past its list of values in one without.
 * \param checker the attribute's checker
 * \param value the value, or a StringValue to parse
 * \return the valid value, or null
 */
inline Ptr<AttributeValue>
CreateValidValue(Ptr<const AttributeChecker> checker, const AttributeValue& value)
{
    const auto* text = dynamic_cast<const StringValue*>(&value);
    if (text && checker->GetValueTypeName().rfind("ns3::EnumValue", 0) == 0 &&
        checker->HasUnderlyingTypeInformation())
    {
        // the names, "A|B|C", in every release
        std::istringstream names(checker->GetUnderlyingTypeInformation());
        bool known = false;
        for (std::string name; std::getline(names, name, '|');)
        {
            known = known || name == text->Get();
        }
        if (!known)
        {
            return nullptr;
        }
    }
    return checker->CreateValidValue(value);
}

} // namespace compat
} // namespace ns3

#endif // PRESTO_NS3_COMPAT_H
