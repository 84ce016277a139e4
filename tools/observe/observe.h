// Taking a snapshot of the instance this process would run on, from the same settings
// libnrt reads (runtime/config.h):
//  - TRNSIM_DAEMON set: the daemon's instance and its processes (every open session) from its
//    Status RPC (daemon_source.h), connecting with TRNSIM_TOKEN, TRNSIM_TLS_CA and
//    TRNSIM_TLS_SERVER_NAME as libnrt does. The instance type is the daemon's.
//  - otherwise: the configured instance (TRNSIM_INSTANCE) and no processes. Without a daemon
//    each process emulates its own private instance, so no other process can be seen.
// LNC is NEURON_LOGICAL_NC_CONFIG (or its older spelling, else the instance default), parsed
// as the runtime parses it — a daemon started without --lnc accepts either, so it is the
// observer's setting, as on AWS where it is the node's configuration.
//
// Errors: a malformed setting is NRT_INVALID naming the variable; daemon errors as in
// daemon_source.h. Each is one line.
//
// Thread safety: reentrant.
#pragma once

#include "common/env.h"
#include "common/status_or.h"
#include "tools/observe/instance_view.h"

namespace trnsim::observe {

StatusOr<InstanceView> ObserveInstance(const Environment& env);

}  // namespace trnsim::observe
