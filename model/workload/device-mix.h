/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_DEVICE_MIX_H
#define PRESTO_DEVICE_MIX_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup presto One device of a mixed fabric and the fraction of hosts (or leaves) it gets. */
struct DeviceShare
{
    std::string device; //!< a device name (host-tcp, presto, flextoe, cora)
    double fraction{0}; //!< share, in (0, 1]
};

/**
 * \ingroup presto
 * \brief Parse a --mix value: "device:fraction,..." (e.g. "presto:0.5,host-tcp:0.5").
 *
 * Throws PrestoInputError naming the option and the item for an empty item, a device not in
 * \p valid (the message lists them), a device named twice, a fraction that is not a number in
 * (0, 1], fewer than two devices, or fractions that do not sum to 1 (within 1e-9).
 * \param text the option's value
 * \param valid the accepted device names
 * \return the shares in the order given
 */
std::vector<DeviceShare> ParseDeviceMix(const std::string& text,
                                        const std::vector<std::string>& valid);

/**
 * \ingroup presto
 * \brief Give each of \p units (hosts or leaves, in their order) a device: device i gets
 * round(fraction_i * units) units by the largest-remainder method (ties: the device listed
 * first), in contiguous blocks in the order the shares are listed.
 *
 * Throws PrestoInputError naming the device if its share rounds to no unit.
 * \param shares the shares (fractions summing to 1)
 * \param units the number of units (>= 1)
 * \param what the units' name for the message ("hosts", "leaves")
 * \return per unit, the index of its device in \p shares
 */
std::vector<uint32_t> AssignDeviceMix(const std::vector<DeviceShare>& shares,
                                      uint32_t units,
                                      const std::string& what);

} // namespace ns3

#endif // PRESTO_DEVICE_MIX_H
