#pragma once
// File › Connect to Warehouse…: a connection string (keyword/value), a postgresql:// URI or
// a service name from pg_service.conf, an optional password, and "Test Connection", which
// says which server (version), which role and database, and whether Reprint's schema is
// installed there (and its version), or what went wrong and what to do.
//
// Thread affinity: GUI thread. The test runs on a WarehouseCatalogClient's I/O thread; the
// dialog never waits on the database (the button is disabled until the answer arrives).
//
// Secrets: the password field is masked and conninfo() is the only way out of it. No
// label, tooltip or remembered value ever holds it: results are scrubbed of it, and the
// recent connections (QSettings, key "connections/recent") are stored redacted.

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace reprint::backfill {
struct ConnectionFacts;
}
namespace reprint::model {
class WarehouseCatalogClient;
struct DatabaseError;
}

namespace reprint::views {

class ConnectionDialog : public QDialog {
    Q_OBJECT

public:
    // `current`: the connection in use, shown redacted (its password is not kept).
    explicit ConnectionDialog(const QString &current = {}, QWidget *parent = nullptr);
    ~ConnectionDialog() override;

    // What libpq is given: the text (a bare word is service=WORD; empty: the PG*
    // environment) with the password field added. Holds the password: never display it.
    QString conninfo() const;
    // conninfo() without its password.
    QString displayConninfo() const;
    // The last test's result as shown (empty before a test).
    QString resultText() const;

    // Starts "Test Connection"; answered by connectionTested().
    void testConnection();

    // The connections accepted lately, newest first, without passwords.
    static QStringList recentConnections();
    static void rememberConnection(const QString &conninfo);

    void accept() override;

Q_SIGNALS:
    void connectionTested(bool ok);

private:
    void showFacts(const backfill::ConnectionFacts &facts);
    void showFailure(const model::DatabaseError &error);
    QString scrubbed(QString text) const;

    model::WarehouseCatalogClient *m_client = nullptr;
    QComboBox *m_connection = nullptr;
    QLineEdit *m_password = nullptr;
    QPushButton *m_test = nullptr;
    QLabel *m_result = nullptr;
    quint64 m_token = 0;
};

} // namespace reprint::views
