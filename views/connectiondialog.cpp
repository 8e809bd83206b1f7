#include "connectiondialog.h"

#include "warehousecatalogclient.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QUrl>
#include <QVBoxLayout>

namespace reprint::views {

namespace {

constexpr const char *kRecentKey = "connections/recent";
constexpr int kMaxRecent = 8;

bool isUri(const QString &text)
{
    return text.startsWith(QLatin1String("postgres://")) || text.startsWith(QLatin1String("postgresql://"));
}

} // namespace

ConnectionDialog::ConnectionDialog(const QString &current, QWidget *parent)
    : QDialog(parent)
    , m_client(new model::WarehouseCatalogClient(this))
{
    setObjectName(QStringLiteral("connectionDialog"));
    setWindowTitle(tr("Connect to Warehouse"));

    m_connection = new QComboBox;
    m_connection->setObjectName(QStringLiteral("connection"));
    m_connection->setEditable(true);
    m_connection->setInsertPolicy(QComboBox::NoInsert);
    m_connection->setMinimumContentsLength(48);
    m_connection->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_connection->lineEdit()->setPlaceholderText(tr("host=db.example.com dbname=analytics user=alice"));
    const QString shown = model::WarehouseClient::displayConninfo(current);
    QStringList items = recentConnections();
    items.removeAll(shown);
    if (!shown.isEmpty())
        items.prepend(shown);
    m_connection->addItems(items);
    m_connection->setCurrentText(shown);

    m_password = new QLineEdit;
    m_password->setObjectName(QStringLiteral("password"));
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(tr("optional: else ~/.pgpass or PGPASSWORD"));

    auto *help = new QLabel(tr("A connection string (<tt>host=… dbname=… user=…</tt>), a URI "
                               "(<tt>postgresql://user@host/db</tt>) or a service name from pg_service.conf. Leave it "
                               "empty to use the PG* environment. The password is never shown or remembered."));
    help->setWordWrap(true);
    help->setObjectName(QStringLiteral("connectionHelp"));

    m_test = new QPushButton(tr("&Test Connection"));
    m_test->setObjectName(QStringLiteral("testConnection"));
    connect(m_test, &QPushButton::clicked, this, &ConnectionDialog::testConnection);

    m_result = new QLabel;
    m_result->setObjectName(QStringLiteral("connectionResult"));
    m_result->setWordWrap(true);
    m_result->setTextFormat(Qt::RichText);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setMinimumHeight(m_result->fontMetrics().lineSpacing() * 4);
    m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_result->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);

    auto *form = new QFormLayout;
    form->addRow(tr("&Connection:"), m_connection);
    form->addRow(tr("&Password:"), m_password);

    auto *testRow = new QHBoxLayout;
    testRow->addWidget(m_test, 0, Qt::AlignTop);
    testRow->addWidget(m_result, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("C&onnect"));
    buttons->button(QDialogButtonBox::Ok)->setObjectName(QStringLiteral("connect"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(help);
    layout->addLayout(form);
    layout->addSpacing(6);
    layout->addLayout(testRow, 1);
    layout->addWidget(buttons);
    resize(640, 300);

    connect(m_client, &model::WarehouseCatalogClient::connectionChecked, this,
            [this](quint64 token, const backfill::ConnectionFacts &facts) {
                if (token == m_token)
                    showFacts(facts);
            });
    connect(m_client, &model::WarehouseCatalogClient::failed, this,
            [this](quint64 token, const model::DatabaseError &error) {
                if (token == m_token)
                    showFailure(error);
            });
    // A changed connection makes the last result stale.
    auto stale = [this] {
        m_token = 0;
        m_test->setEnabled(true);
        m_result->clear();
    };
    connect(m_connection, &QComboBox::currentTextChanged, this, stale);
    connect(m_password, &QLineEdit::textChanged, this, stale);
}

ConnectionDialog::~ConnectionDialog() = default;

QString ConnectionDialog::conninfo() const
{
    QString text = m_connection->currentText().trimmed();
    if (!text.isEmpty() && !isUri(text) && !text.contains(QLatin1Char('=')))
        text = QStringLiteral("service=") + text;
    const QString password = m_password->text();
    if (password.isEmpty())
        return text;
    if (isUri(text))
        return text + (text.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) + QStringLiteral("password=")
            + QString::fromLatin1(QUrl::toPercentEncoding(password));
    QString quoted = password;
    quoted.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('\''), QStringLiteral("\\'"));
    return (text.isEmpty() ? QString() : text + QLatin1Char(' ')) + QStringLiteral("password='") + quoted + QLatin1Char('\'');
}

QString ConnectionDialog::displayConninfo() const
{
    return model::WarehouseClient::displayConninfo(conninfo());
}

QString ConnectionDialog::resultText() const
{
    return m_result->text();
}

void ConnectionDialog::testConnection()
{
    m_test->setEnabled(false);
    const QString shown = displayConninfo();
    m_result->setText(shown.isEmpty() ? tr("Connecting with the PG* environment…")
                                      : tr("Connecting to %1…").arg(shown.toHtmlEscaped()));
    m_token = m_client->checkConnection(conninfo());
}

QString ConnectionDialog::scrubbed(QString text) const
{
    QStringList secrets = model::WarehouseClient::passwordsIn(conninfo());
    secrets << m_password->text() << QString::fromLatin1(QUrl::toPercentEncoding(m_password->text()));
    for (const QString &secret : secrets)
        if (!secret.isEmpty())
            text.replace(secret, QStringLiteral("********"));
    return text;
}

void ConnectionDialog::showFacts(const backfill::ConnectionFacts &f)
{
    m_test->setEnabled(true);
    const QString version = QString::fromStdString(f.serverVersion).section(QLatin1Char(' '), 0, 0);
    QString schema;
    if (f.schemaVersion == 0)
        schema = tr("Reprint's schema is not installed in this database yet: <tt>reprint init --spec SPEC</tt> "
                    "creates it (File › New Spec… writes a spec to run it with).");
    else if (f.schemaVersion == f.buildSchemaVersion)
        schema = tr("Reprint's schema is installed, version %1 (the version this build knows).").arg(f.schemaVersion);
    else if (f.schemaVersion < f.buildSchemaVersion)
        schema = tr("Reprint's schema is installed at version %1; this build knows version %2: "
                    "<tt>reprint init --spec SPEC</tt> upgrades it.").arg(f.schemaVersion).arg(f.buildSchemaVersion);
    else
        schema = tr("Reprint's schema is installed at version %1, newer than this build knows (%2): upgrade "
                    "Reprint before you use this warehouse.").arg(f.schemaVersion).arg(f.buildSchemaVersion);
    m_result->setText(scrubbed(
        tr("<b>Connected</b> to PostgreSQL %1 as user <b>%2</b>, database <b>%3</b> (%4).<br>%5")
            .arg(version.toHtmlEscaped(), QString::fromStdString(f.user).toHtmlEscaped(),
                 QString::fromStdString(f.database).toHtmlEscaped(), QString::fromStdString(f.description).toHtmlEscaped(),
                 schema)));
    Q_EMIT connectionTested(true);
}

void ConnectionDialog::showFailure(const model::DatabaseError &error)
{
    m_test->setEnabled(true);
    QString what = error.sentence();
    if (error.hint.isEmpty()) {
        if (error.kind == warehouse::ErrorKind::Permission)
            what += QLatin1Char(' ') + tr("Check the user and the password (or ~/.pgpass, PGPASSWORD).");
        else if (error.kind == warehouse::ErrorKind::Connection)
            what += QLatin1Char(' ') + tr("Check the host and port (or socket directory), the database name and the "
                                          "service name, and that the server accepts connections from here.");
    }
    m_result->setText(scrubbed(tr("<b>Not connected.</b> %1").arg(what.toHtmlEscaped())));
    Q_EMIT connectionTested(false);
}

QStringList ConnectionDialog::recentConnections()
{
    return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void ConnectionDialog::rememberConnection(const QString &conninfo)
{
    const QString shown = model::WarehouseClient::displayConninfo(conninfo);
    if (shown.isEmpty())
        return;
    QSettings settings;
    QStringList recent = settings.value(QLatin1String(kRecentKey)).toStringList();
    recent.removeAll(shown);
    recent.prepend(shown);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QLatin1String(kRecentKey), recent);
}

void ConnectionDialog::accept()
{
    rememberConnection(conninfo());
    QDialog::accept();
}

} // namespace reprint::views
