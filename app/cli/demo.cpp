#include "commands.h"
namespace reprint::cli {
int demoCommand(const QStringList &) { return ExitUsage; }
}
