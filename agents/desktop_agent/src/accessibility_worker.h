// accessibility_worker.h — the process that holds the AT-SPI connection.
#pragma once

namespace vc::desktop_agent {

// `vc-desktop-agent --accessibility-worker`: JSON lines in on stdin, replies out on stdout.
int accessibility_worker_main();

}  // namespace vc::desktop_agent
