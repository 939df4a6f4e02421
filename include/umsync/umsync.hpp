// umsync/umsync.hpp: everything public in umsync.
#pragma once

#include <umsync/config.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_view.hpp>
