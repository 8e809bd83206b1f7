#include "newspecdialog.h"

#include "warehousecatalogclient.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSettings>
#include <QTimeZone>
#include <QVBoxLayout>

namespace reprint::views {

namespace {

constexpr const char *kFolderKey = "newSpec/folder";

QString fromStd(const std::string &s)
{
    return QString::fromStdString(s);
}

std::vector<std::string> checked(const QListWidget *list)
{
    std::vector<std::string> out;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->checkState() == Qt::Checked)
            out.push_back(list->item(i)->data(Qt::UserRole).toString().toStdString());
    return out;
}

void fillChecks(QListWidget *list, const std::vector<std::string> &names, const std::vector<std::string> &on)
{
    list->clear();
    for (const std::string &n : names) {
        const QString text = fromStd(n);
        auto *item = new QListWidgetItem(text, list);
        item->setData(Qt::UserRole, text);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(std::find(on.begin(), on.end(), n) != on.end() ? Qt::Checked : Qt::Unchecked);
    }
}

} // namespace

NewSpecDialog::NewSpecDialog(const QString &conninfo, QWidget *parent)
    : QDialog(parent)
    , m_conninfo(conninfo)
    , m_client(new model::WarehouseCatalogClient(this))
{
    setObjectName(QStringLiteral("newSpecDialog"));
    setWindowTitle(tr("New Spec"));

    auto *intro = new QLabel(tr("Reprint proposes a model for the table you choose, from its catalog. Check each "
                                "field, then write the spec and a transform stub; replace the stub with your model's "
                                "own transform before you backfill."));
    intro->setWordWrap(true);

    m_table = new QComboBox;
    m_table->setObjectName(QStringLiteral("table"));
    m_table->setMinimumContentsLength(40);
    m_table->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);

    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("modelName"));
    m_name->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*")), m_name));
    m_partition = new QComboBox;
    m_partition->setObjectName(QStringLiteral("partitionColumn"));
    m_grain = new QComboBox;
    m_grain->setObjectName(QStringLiteral("grain"));
    for (const char *g : {"hour", "day", "week", "month"})
        m_grain->addItem(QLatin1String(g), QLatin1String(g));
    m_timezone = new QComboBox;
    m_timezone->setObjectName(QStringLiteral("timezone"));
    m_timezone->setEditable(true);
    m_timezone->setInsertPolicy(QComboBox::NoInsert);
    m_timezone->addItem(QStringLiteral("UTC"));
    for (const QByteArray &id : QTimeZone::availableTimeZoneIds())
        if (id.contains('/'))
            m_timezone->addItem(QString::fromLatin1(id));

    m_key = new QListWidget;
    m_key->setObjectName(QStringLiteral("key"));
    m_measures = new QListWidget;
    m_measures->setObjectName(QStringLiteral("measures"));
    for (QListWidget *list : {m_key, m_measures})
        list->setMinimumHeight(list->fontMetrics().lineSpacing() * 6);

    m_notes = new QLabel;
    m_notes->setObjectName(QStringLiteral("proposalNotes"));
    m_notes->setWordWrap(true);
    m_notes->setTextFormat(Qt::PlainText);
    m_notes->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_notes->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);

    m_folder = new QLineEdit;
    m_folder->setObjectName(QStringLiteral("folder"));
    auto *browse = new QPushButton(tr("&Browse…"));
    connect(browse, &QPushButton::clicked, this, &NewSpecDialog::chooseFolder);
    auto *folderRow = new QHBoxLayout;
    folderRow->setContentsMargins(0, 0, 0, 0);
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    setFolder(QSettings().value(QLatin1String(kFolderKey), QDir::homePath()).toString());

    m_fields = new QWidget;
    auto *grid = new QGridLayout(m_fields);
    grid->setContentsMargins(0, 0, 0, 0);
    auto *form = new QFormLayout;
    form->addRow(tr("Model &name:"), m_name);
    form->addRow(tr("&Partition column:"), m_partition);
    form->addRow(tr("&Grain:"), m_grain);
    form->addRow(tr("Time&zone:"), m_timezone);
    grid->addLayout(form, 0, 0, 1, 2);
    auto *keyLabel = new QLabel(tr("&Key (identifies a row):"));
    keyLabel->setBuddy(m_key);
    auto *measuresLabel = new QLabel(tr("&Measures (summed per partition):"));
    measuresLabel->setBuddy(m_measures);
    grid->addWidget(keyLabel, 1, 0);
    grid->addWidget(measuresLabel, 1, 1);
    grid->addWidget(m_key, 2, 0);
    grid->addWidget(m_measures, 2, 1);
    grid->addWidget(m_notes, 3, 0, 1, 2);
    grid->setRowStretch(2, 1);

    auto *top = new QFormLayout;
    top->addRow(tr("&Table:"), m_table);

    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("newSpecStatus"));
    m_status->setWordWrap(true);

    auto *bottom = new QFormLayout;
    auto *folderLabel = new QLabel(tr("&Folder:"));
    folderLabel->setBuddy(m_folder);
    bottom->addRow(folderLabel, folderRow);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_write = buttons->button(QDialogButtonBox::Ok);
    m_write->setText(tr("&Write Spec and Open"));
    m_write->setObjectName(QStringLiteral("writeSpec"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(top);
    layout->addWidget(m_fields, 1);
    layout->addLayout(bottom);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(760, 640);

    connect(m_client, &model::WarehouseCatalogClient::tablesListed, this,
            [this](quint64 token, const model::CatalogTables &tables) {
                if (token == m_listToken)
                    showTables(tables);
            });
    connect(m_client, &model::WarehouseCatalogClient::tableRead, this,
            [this](quint64 token, const backfill::TableCatalog &, const backfill::SpecDraft &proposal) {
                if (token == m_readToken)
                    showProposal(proposal);
            });
    connect(m_client, &model::WarehouseCatalogClient::failed, this,
            [this](quint64 token, const model::DatabaseError &error) {
                if (token == m_listToken || token == m_readToken)
                    showFailure(error);
            });
    connect(m_table, &QComboBox::currentIndexChanged, this, &NewSpecDialog::readSelectedTable);
    for (QComboBox *box : {m_partition, m_grain})
        connect(box, &QComboBox::currentIndexChanged, this, &NewSpecDialog::updateProblems);
    connect(m_timezone, &QComboBox::currentTextChanged, this, &NewSpecDialog::updateProblems);
    connect(m_name, &QLineEdit::textChanged, this, &NewSpecDialog::updateProblems);
    connect(m_folder, &QLineEdit::textChanged, this, &NewSpecDialog::updateProblems);
    for (QListWidget *list : {m_key, m_measures})
        connect(list, &QListWidget::itemChanged, this, &NewSpecDialog::updateProblems);

    m_fields->setEnabled(false);
    m_write->setEnabled(false);
    m_status->setText(tr("Reading the warehouse's tables…"));
    m_listToken = m_client->listTables(m_conninfo);
}

NewSpecDialog::~NewSpecDialog() = default;

void NewSpecDialog::setFolder(const QString &dir)
{
    m_folder->setText(QDir::toNativeSeparators(dir));
}

QString NewSpecDialog::folder() const
{
    return QDir::fromNativeSeparators(m_folder->text().trimmed());
}

bool NewSpecDialog::selectTable(const QString &schemaDotTable)
{
    for (int i = 0; i < m_table->count(); ++i)
        if (m_table->itemData(i).toString() == schemaDotTable) {
            m_table->setCurrentIndex(i);
            return true;
        }
    return false;
}

void NewSpecDialog::showTables(const std::vector<backfill::CatalogTable> &tables)
{
    const QSignalBlocker block(m_table);
    m_table->clear();
    const QLocale locale;
    for (const backfill::CatalogTable &t : tables) {
        const QString name = fromStd(t.name.display());
        const QString rows = tr("about %1 rows").arg(locale.toString(t.estimatedRows));
        m_table->addItem(t.kind == "partitioned" ? tr("%1  (partitioned, %2)").arg(name, rows)
                                                 : tr("%1  (%2)").arg(name, rows),
                         name);
        m_table->setItemData(m_table->count() - 1, fromStd(t.name.schema), Qt::UserRole + 1);
        m_table->setItemData(m_table->count() - 1, fromStd(t.name.table), Qt::UserRole + 2);
    }
    if (tables.empty()) {
        m_status->setText(tr("This role can read no table in this warehouse. Connect as another user "
                             "(File › Connect to Warehouse…) or grant it SELECT on the table."));
        Q_EMIT tablesLoaded(0);
        return;
    }
    m_table->setCurrentIndex(-1);
    m_status->setText(tr("Choose the table the model writes."));
    Q_EMIT tablesLoaded(static_cast<int>(tables.size()));
}

void NewSpecDialog::readSelectedTable()
{
    const int i = m_table->currentIndex();
    if (i < 0)
        return;
    m_fields->setEnabled(false);
    m_write->setEnabled(false);
    m_status->setText(tr("Reading %1 from the catalog…").arg(m_table->itemData(i).toString()));
    m_readToken = m_client->readTable(m_conninfo, m_table->itemData(i, Qt::UserRole + 1).toString(),
                                      m_table->itemData(i, Qt::UserRole + 2).toString());
}

void NewSpecDialog::showProposal(const backfill::SpecDraft &p)
{
    m_proposal = p;
    m_filling = true;
    m_name->setText(fromStd(p.name));
    m_partition->clear();
    for (const std::string &c : p.partitionColumns)
        m_partition->addItem(fromStd(c), fromStd(c));
    m_partition->setCurrentIndex(m_partition->findData(fromStd(p.partitionColumn)));
    m_grain->setCurrentIndex(m_grain->findData(QLatin1String(backfill::toString(p.grain))));
    m_timezone->setCurrentText(fromStd(p.timezone));
    fillChecks(m_key, p.columns, p.key);
    fillChecks(m_measures, p.measureColumns, p.measures);
    QStringList notes;
    for (const std::string &n : p.notes)
        notes << QStringLiteral("• ") + fromStd(n);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    // A wrapped label's height follows its text only once laid out: ask for it now.
    m_notes->setMinimumHeight(m_notes->heightForWidth(qMax(m_notes->width(), 400)));
    m_filling = false;
    m_fields->setEnabled(true);
    updateProblems();
    Q_EMIT proposalShown();
}

void NewSpecDialog::showFailure(const model::DatabaseError &error)
{
    m_status->setText(tr("Could not read the catalog: %1 Check the connection with File › Connect to Warehouse….")
                          .arg(error.sentence()));
}

backfill::SpecDraft NewSpecDialog::draft() const
{
    backfill::SpecDraft d = m_proposal;
    d.name = m_name->text().trimmed().toStdString();
    d.partitionColumn = m_partition->currentData().toString().toStdString();
    backfill::parseGrain(m_grain->currentData().toString().toStdString(), &d.grain);
    d.timezone = m_timezone->currentText().trimmed().toStdString();
    d.key = checked(m_key);
    d.measures = checked(m_measures);
    return d;
}

QString NewSpecDialog::statusText() const
{
    return m_status->text();
}

void NewSpecDialog::updateProblems()
{
    if (m_filling || !m_fields->isEnabled())
        return;
    const auto problems = backfill::draftProblems(draft());
    QString text;
    if (!problems.empty())
        text = fromStd(problems.front());
    else if (folder().isEmpty())
        text = tr("Choose the folder to write the spec to.");
    m_write->setEnabled(text.isEmpty());
    m_status->setText(text.isEmpty()
                          ? tr("Writes %1.yaml and transforms/%1.sql in the folder, then opens the spec.")
                                .arg(m_name->text().trimmed())
                          : text);
}

void NewSpecDialog::chooseFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the Spec"), folder());
    if (!dir.isEmpty())
        setFolder(dir);
}

void NewSpecDialog::accept()
{
    const backfill::SpecDraft d = draft();
    auto files = backfill::writeDraft(d, folder().toStdString());
    if (!files) {
        m_status->setText(fromStd(files.error().toSentence()));
        return;
    }
    QSettings().setValue(QLatin1String(kFolderKey), folder());
    m_written = fromStd(files->specPath);
    Q_EMIT specWritten(m_written);
    QDialog::accept();
}

} // namespace reprint::views
