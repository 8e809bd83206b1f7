#pragma once
// The process's one I/O thread, and the way back from it to the GUI thread.
//
// sharedIoThread(): every client of the GUI (EngineClient,
// WarehouseClient, WarehouseCatalogClient) runs its coroutines on the one IoThread of the
// process, held by shared ownership: it starts with the first client and is stopped and
// joined when the last one goes (then coroutines still suspended are destroyed unresumed).
// Thread affinity: call on the GUI thread.
//
// ReplyGate: an answer leaves the I/O thread for its client only through the client's
// gate. The client closes it first thing in its destructor; an answer that arrives after
// that is dropped, and one posted before dies with the client's posted events. An
// operation of a closed client runs on to its end unheard unless it was cancelled.
// Thread affinity: post() from any thread; close() on the receiver's thread.

#include "warehouse/iothread.h"

#include <QMetaObject>
#include <QObject>

#include <memory>
#include <mutex>
#include <utility>

namespace reprint::model {

std::shared_ptr<warehouse::IoThread> sharedIoThread();

class ReplyGate {
public:
    explicit ReplyGate(QObject *receiver) : m_receiver(receiver) {}

    // Runs `f` on the receiver's thread, unless the gate is closed by then.
    template <typename F>
    void post(F f)
    {
        std::lock_guard lock(m_mutex);
        if (m_receiver)
            QMetaObject::invokeMethod(m_receiver, std::move(f), Qt::QueuedConnection);
    }
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_receiver = nullptr;
    }

private:
    std::mutex m_mutex;
    QObject *m_receiver;
};

// A client's place on the shared I/O thread: the thread, and the client's gate back.
// Coroutines and handlers on the I/O thread hold the gate, never the thread.
struct IoLane {
    std::shared_ptr<warehouse::IoThread> thread = sharedIoThread();
    std::shared_ptr<ReplyGate> gate;

    explicit IoLane(QObject *receiver) : gate(std::make_shared<ReplyGate>(receiver)) {}
};

} // namespace reprint::model
