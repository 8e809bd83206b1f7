#include "resources.h"

#include <QFile>

// Q_INIT_RESOURCE declares a function, so it must be used outside any namespace.
static void registerReprintData()
{
    Q_INIT_RESOURCE(reprint_data);
}

namespace reprint::backfill {

void ensureResources()
{
    static const bool registered = [] {
        registerReprintData();
        return true;
    }();
    (void)registered;
}

warehouse::Result<std::string> resourceText(const QString &path)
{
    ensureResources();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return warehouse::Error::make(warehouse::ErrorKind::Internal,
                                      "the resource " + path.toStdString() + " is missing from this build");
    return f.readAll().toStdString();
}

} // namespace reprint::backfill
