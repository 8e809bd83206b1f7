#include "modelpage.h"

#include "paddedrowdelegate.h"

#include "specmodelsmodel.h"

#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace reprint::views {

using model::SpecModelsModel;

namespace {

QString joined(const QStringList &items, const QString &none)
{
    return items.isEmpty() ? none : items.join(QStringLiteral(", "));
}

} // namespace

ModelPage::ModelPage(QWidget *parent)
    : QWidget(parent)
{
    auto *detailsLayout = new QVBoxLayout(this);
    detailsLayout->setContentsMargins(24, 20, 24, 20);
    detailsLayout->setSpacing(6);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("modelTitle"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bigFont = m_title->font();
    bigFont.setPointSizeF(bigFont.pointSizeF() * 1.5);
    bigFont.setBold(true);
    m_title->setFont(bigFont);
    m_subtitle = new QLabel(this);
    m_subtitle->setForegroundRole(QPalette::PlaceholderText);
    detailsLayout->addWidget(m_title);
    detailsLayout->addWidget(m_subtitle);
    detailsLayout->addSpacing(12);

    m_form = new QFormLayout;
    m_form->setLabelAlignment(Qt::AlignLeft);
    m_form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    m_form->setHorizontalSpacing(24);
    m_form->setVerticalSpacing(8);
    const QList<std::pair<QString, QString>> rows = {
        {QStringLiteral("target"), tr("Target")},         {QStringLiteral("partition"), tr("Partitioned by")},
        {QStringLiteral("timezone"), tr("Timezone")},     {QStringLiteral("key"), tr("Key")},
        {QStringLiteral("measures"), tr("Measures")},     {QStringLiteral("dependsOn"), tr("Depends on")},
        {QStringLiteral("transform"), tr("Transform")},
    };
    for (const auto &[name, label] : rows) {
        auto *value = new QLabel;
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setObjectName(name + QStringLiteral("Value"));
        m_form->addRow(label, value);
    }
    detailsLayout->addLayout(m_form);
    detailsLayout->addSpacing(16);

    auto *checksTitle = new QLabel(tr("Checks"), this);
    QFont titleFont = checksTitle->font();
    titleFont.setBold(true);
    checksTitle->setFont(titleFont);
    detailsLayout->addWidget(checksTitle);
    m_checks = new QTreeWidget(this);
    m_checks->setObjectName(QStringLiteral("checks"));
    m_checks->setRootIsDecorated(false);
    m_checks->setAlternatingRowColors(true);
    m_checks->setItemDelegate(new PaddedRowDelegate(m_checks));
    m_checks->setSelectionMode(QAbstractItemView::NoSelection);
    m_checks->setFocusPolicy(Qt::NoFocus);
    m_checks->setHeaderLabels({tr("Check"), tr("Measure"), tr("Tolerance"), tr("Source query")});
    m_checks->header()->setStretchLastSection(true);
    m_checks->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_checks->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    detailsLayout->addWidget(m_checks);
    detailsLayout->addStretch(1);
}

QLabel *ModelPage::value(const char *name) const
{
    return findChild<QLabel *>(QLatin1String(name) + QStringLiteral("Value"));
}

void ModelPage::showModel(const QModelIndex &index)
{
    const QString target = index.data(SpecModelsModel::TargetRole).toString();
    const QString grain = index.data(SpecModelsModel::GrainRole).toString();
    const QString timezone = index.data(SpecModelsModel::TimezoneRole).toString();
    m_title->setText(index.data(SpecModelsModel::NameRole).toString());
    m_subtitle->setText(tr("%1, one partition per %2 (%3)").arg(target, grain, timezone));
    value("target")->setText(target);
    value("partition")->setText(tr("%1, by %2").arg(index.data(SpecModelsModel::PartitionColumnRole).toString(), grain));
    value("timezone")->setText(timezone);
    value("key")->setText(joined(index.data(SpecModelsModel::KeyRole).toStringList(), tr("(none)")));
    QStringList measures{tr("rows (always)")};
    measures += index.data(SpecModelsModel::MeasuresRole).toStringList();
    value("measures")->setText(measures.join(QStringLiteral(", ")));
    value("dependsOn")->setText(joined(index.data(SpecModelsModel::DependsOnRole).toStringList(), tr("(nothing)")));
    const QString transform = index.data(SpecModelsModel::TransformFileRole).toString();
    value("transform")->setText(QFileInfo(transform).fileName());
    value("transform")->setToolTip(transform);
    showChecks(index.data(SpecModelsModel::ChecksRole).toList());
}

void ModelPage::showChecks(const QVariantList &checks)
{
    m_checks->clear();
    for (const QVariant &v : checks) {
        const QVariantMap c = v.toMap();
        const double tolerance = c.value(QStringLiteral("tolerance")).toDouble();
        const QString source = c.value(QStringLiteral("source")).toString();
        auto *item = new QTreeWidgetItem(m_checks, {c.value(QStringLiteral("name")).toString(),
                                                    c.value(QStringLiteral("measure")).toString(),
                                                    tolerance == 0 ? tr("exact")
                                                                   : tr("%1 %").arg(tolerance * 100, 0, 'g', 3),
                                                    QFileInfo(source).fileName()});
        item->setToolTip(3, source);
    }
    if (checks.isEmpty()) {
        auto *none = new QTreeWidgetItem(m_checks, {tr("No checks: validation compares old and new totals only.")});
        none->setFirstColumnSpanned(true);
    }
    for (int c = 0; c < m_checks->columnCount() - 1 && !checks.isEmpty(); ++c) {
        m_checks->resizeColumnToContents(c);
        m_checks->setColumnWidth(c, m_checks->columnWidth(c) + 24);
    }
    // As tall as its rows (a spec has a handful of checks), so the page does not end in
    // an empty box.
    const int rows = std::max(1, m_checks->topLevelItemCount());
    const int rowHeight = std::max(m_checks->sizeHintForRow(0), fontMetrics().height());
    m_checks->setFixedHeight(m_checks->header()->sizeHint().height() + std::min(rows, 12) * rowHeight
                             + 2 * m_checks->frameWidth() + 4);
}

} // namespace reprint::views
