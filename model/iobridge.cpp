#include "iobridge.h"

namespace reprint::model {

std::shared_ptr<warehouse::IoThread> sharedIoThread()
{
    static std::weak_ptr<warehouse::IoThread> current;  // GUI thread only
    std::shared_ptr<warehouse::IoThread> io = current.lock();
    if (!io) {
        io = std::make_shared<warehouse::IoThread>();
        current = io;
    }
    return io;
}

} // namespace reprint::model
