#include "commands.h"
namespace reprint::cli {
int engineCommand(const QString &, const QStringList &) { return ExitUsage; }
}
