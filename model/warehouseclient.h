#pragma once
// The GUI's door to the warehouse: a QObject over the asynchronous libpq layer.
//
// Thread affinity: a WarehouseClient lives on the thread that created it (the GUI thread)
// and every member function must be called there; every signal is emitted there. It owns
// an I/O thread and one connection that lives on it. The calling thread never waits on
// the database: requests are queued on the I/O thread and answered later, as value types.
//
// Requests: open() and query() return a token at once; each token is answered exactly
// once, by opened()/queryFinished() or failed(), unless it went stale. Requests run one at
// a time, in the order they were made, on the one connection. A query made while no
// connection is open fails with kind "connection".
//
// Channels: a query may name a channel (e.g. "calendar"). A newer query on the same
// channel makes every earlier one on it stale: a stale query that has not started is
// skipped, and the answer of one that was already running is dropped. Stale tokens are
// never answered.
//
// Secrets: no signal carries a password. Descriptions are "user@database via host";
// error texts are scrubbed of the password that open() was given. Use displayConninfo()
// to show a connection string.

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include "backfill/errors.h"

#include <memory>

namespace reprint::model {

// A failure as the UI shows it: its kind as the warehouse layer classified it (SQLSTATE
// classes), never read back from its text.
struct DatabaseError {
    warehouse::ErrorKind kind = warehouse::ErrorKind::Internal;
    QString sqlstate;  // five characters, or empty
    QString message;
    QString detail;
    QString hint;      // what to try next, when known

    // One readable paragraph: the message (and detail) as a sentence, then the hint.
    // Whitespace runs (libpq's multi-line messages) become single spaces.
    QString sentence() const;
    // "connection", "cancelled", "drift", ... (backfill::kindName).
    QString kindName() const { return QString::fromLatin1(backfill::kindName(kind)); }
};

// One result set, in text form. A NULL value is a null QString (isNull()); an empty
// string is an empty, non-null QString.
struct QueryResult {
    QStringList columns;
    QList<QStringList> rows;
    QString commandTag;  // e.g. "SELECT 3", "INSERT 0 42"
};

class WarehouseClient : public QObject {
    Q_OBJECT

public:
    explicit WarehouseClient(QObject *parent = nullptr);
    // Closes the connection on the I/O thread, then stops and joins the I/O thread.
    // Requests still pending are not answered.
    ~WarehouseClient() override;

    // Connects with `conninfo` (keyword/value, postgres:// URI, service=NAME, or empty
    // for libpq's PG* environment), replacing the current connection once the requests
    // queued before it have run. Answered by opened() or failed().
    quint64 open(const QString &conninfo);
    // Runs one statement with parameters $1..$n (a null QString binds NULL). Answered by
    // queryFinished() or failed(). See "Channels" above for `channel`.
    quint64 query(const QString &sql, const QStringList &params = {}, const QString &channel = {});
    // Asks the server to cancel the statement that is running now, and fails every
    // request queued behind it with kind "cancelled". Returns at once: the cancel request
    // is sent from a worker thread. A cancel only asks; the running statement answers as
    // usual, with kind "cancelled" or, if it finished first, its normal result.
    void cancel();

    bool isOpen() const;
    // "user@database via host" of the open connection, or empty.
    QString description() const;

    // `conninfo` without its password, for display (titles, status, logs).
    static QString displayConninfo(const QString &conninfo);
    // The password(s) `conninfo` holds (keyword/value or URI, decoded), to scrub from texts.
    static QStringList passwordsIn(const QString &conninfo);

Q_SIGNALS:
    void opened(quint64 token, const QString &description);
    void queryFinished(quint64 token, const reprint::model::QueryResult &result);
    void failed(quint64 token, const reprint::model::DatabaseError &error);
    // A NOTICE, WARNING or INFO the server sent while a statement ran.
    void noticeReceived(const QString &severity, const QString &message);
    // The cancel request could not be sent (the running statement goes on).
    void cancelFailed(const QString &reason);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace reprint::model

Q_DECLARE_METATYPE(reprint::model::DatabaseError)
Q_DECLARE_METATYPE(reprint::model::QueryResult)
