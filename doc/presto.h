/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_DOC_H
#define PRESTO_DOC_H

/**
 * \file
 * \ingroup presto
 * Doxygen groups of the presto module (documentation only; no code).
 */

/**
 * \defgroup presto Presto: NIC designs on data-center fabrics
 *
 * This section documents the API of the presto module: the offload NICs
 * (PrestoNetDevice, FlexToeNetDevice, CoraNetDevice) on one shared offload device and TCP
 * data path, their install helper (OffloadNicHelper), the spraying fabric (FabricSwitch,
 * FabricTopology, FabricHelper), the workloads and the experiment. For a functional
 * description, see doc/presto.rst.
 */

/**
 * \ingroup presto
 * \defgroup presto-tests presto module tests
 *
 * The ns-3 TestSuites of the module, all named presto-*.
 */

#endif // PRESTO_DOC_H
