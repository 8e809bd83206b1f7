#include "connectioncheck.h"

#include "migrations.h"
#include "resources.h"

namespace reprint::backfill {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::Result;

warehouse::Task<Result<ConnectionFacts>> checkConnection(std::string conninfo)
{
    auto text = resourceText(QStringLiteral(":/sql/catalog/connection_facts.sql"));
    if (!text)
        co_return text.error();
    const std::string sql = *text;

    auto conn = co_await warehouse::Connection::connect(conninfo);
    if (!conn)
        co_return conn.error();
    auto &c = **conn;
    ConnectionFacts facts;
    facts.description = c.describe();
    auto r = co_await c.query(sql);
    if (!r)
        co_return r.error();
    const auto &set = r->last();
    facts.serverVersion = set.at(0, "server_version").value_or("");
    facts.user = set.at(0, "user").value_or("");
    facts.database = set.at(0, "database").value_or("");
    facts.timezone = set.at(0, "timezone").value_or("");
    auto version = co_await schemaVersion(c);
    c.close();
    if (!version)
        co_return version.error();
    facts.schemaVersion = *version;
    facts.buildSchemaVersion = latestSchemaVersion();
    co_return facts;
}

} // namespace reprint::backfill
