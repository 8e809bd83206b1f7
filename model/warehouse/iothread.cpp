#include "iothread.h"

namespace reprint::warehouse {

IoThread::IoThread()
    : m_work(asio::make_work_guard(m_context))
    , m_thread([this] { m_context.run(); })
{
}

IoThread::~IoThread()
{
    m_work.reset();
    m_context.stop();
    if (m_thread.joinable())
        m_thread.join();
}

} // namespace reprint::warehouse
