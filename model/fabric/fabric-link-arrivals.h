/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_LINK_ARRIVALS_H
#define PRESTO_FABRIC_LINK_ARRIVALS_H

#include "ns3/event-impl.h"
#include "ns3/packet.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class FabricLinkNetDevice;

/**
 * \ingroup presto
 * \brief The arrival events of one fast link direction, reused instead of allocated per frame.
 *
 * Simulator::ScheduleWithContext with MakeEvent allocates an event per frame and frees it
 * after it ran (about 200 instructions of a packet-hop). Here each frame in flight takes an
 * event from a free list and gives it back when it ran. An event is scheduled at the same
 * moment, for the same time and context, as MakeEvent's would be, so the simulator's order
 * (time stamp, then the order of scheduling) and every result stay the same.
 *
 * Ownership: the simulator holds a reference to a scheduled event (ns-3 releases it after
 * Invoke, or when Simulator::Destroy drops pending events), the pool one to every event it
 * made. An event is reused only when the pool's reference is the last, so it is never
 * scheduled twice at once.
 */
class FabricLinkArrivals
{
  public:
    FabricLinkArrivals() = default;
    ~FabricLinkArrivals();
    FabricLinkArrivals(const FabricLinkArrivals&) = delete;
    FabricLinkArrivals& operator=(const FabricLinkArrivals&) = delete;

    /**
     * Schedule a frame's arrival: to->FastReceive(packet, protocol) after delaySteps.
     * \param context the receiving node's id (the event's context)
     * \param delaySteps from now, in time steps
     * \param to the receiving device
     * \param packet the frame
     * \param protocol its protocol number
     */
    void Schedule(uint32_t context,
                  int64_t delaySteps,
                  FabricLinkNetDevice* to,
                  Ptr<Packet> packet,
                  uint16_t protocol);

    /** \return events made so far (the most frames ever in flight at once, or one more) */
    std::size_t GetEventsMade() const
    {
        return m_all.size();
    }

  private:
    /** One frame's arrival. */
    class Arrival : public EventImpl
    {
      public:
        /** \param pool the pool it returns to when it ran */
        explicit Arrival(FabricLinkArrivals* pool)
            : m_pool(pool)
        {
        }

        FabricLinkArrivals* m_pool;         //!< where it returns (null: the pool is gone)
        FabricLinkNetDevice* m_to{nullptr}; //!< receiving device
        Ptr<Packet> m_packet;               //!< the frame (null when free)
        uint16_t m_protocol{0};             //!< its protocol number

      private:
        void Notify() override;
    };

    std::vector<Arrival*> m_free; //!< ran, may be reused once only the pool holds them
    std::vector<Arrival*> m_all;  //!< every event made, one reference each
};

} // namespace ns3

#endif // PRESTO_FABRIC_LINK_ARRIVALS_H
