#include "rulespanel.h"

#include "reviewcolours.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace reprint::views {

using Mark = model::RuleMark;

namespace {

QColor colourOf(Mark m, const QPalette &p)
{
    switch (m) {
    case Mark::Good:
        return kGood;
    case Mark::Warn:
        return kWarn;
    case Mark::Bad:
        return kBad;
    case Mark::Pending:
        return p.color(QPalette::PlaceholderText);
    }
    return {};
}

} // namespace

RulesPanel::RulesPanel(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("rules"));
    auto *rules = new QGridLayout(this);
    rules->setContentsMargins(0, 2, 0, 2);
    rules->setHorizontalSpacing(10);
    rules->setVerticalSpacing(2);
    const QString names[5] = {tr("1 · Scoped"), tr("2 · Same code path"), tr("3 · Idempotent"), tr("4 · Isolated"),
                              tr("5 · Validated")};
    for (int i = 0; i < 5; ++i) {
        auto *card = new QFrame(this);
        card->setFrameShape(QFrame::StyledPanel);
        card->setObjectName(QStringLiteral("rule%1").arg(i + 1));
        auto *cardLayout = new QVBoxLayout(card);
        cardLayout->setContentsMargins(10, 6, 10, 6);
        cardLayout->setSpacing(2);
        m_titles[i] = new QLabel(model::glyphOf(Mark::Pending) + QLatin1Char(' ') + names[i], card);
        QFont bold = m_titles[i]->font();
        bold.setBold(true);
        m_titles[i]->setFont(bold);
        m_titles[i]->setProperty("ruleName", names[i]);
        m_texts[i] = new QLabel(card);
        m_texts[i]->setWordWrap(true);
        m_texts[i]->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        QFont small = m_texts[i]->font();
        small.setPointSizeF(small.pointSizeF() * 0.92);
        m_texts[i]->setFont(small);
        m_texts[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        cardLayout->addWidget(m_titles[i]);
        cardLayout->addWidget(m_texts[i], 1);
        card->setMinimumWidth(0);
        card->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        rules->addWidget(card, 0, i);
        rules->setColumnStretch(i, 1);
    }
}

void RulesPanel::setRules(const QList<model::RuleCheck> &rules)
{
    for (int i = 0; i < rules.size() && i < 5; ++i) {
        const Mark mark = rules[i].mark;
        m_titles[i]->setText(model::glyphOf(mark) + QLatin1Char(' ') + m_titles[i]->property("ruleName").toString());
        QPalette p = m_titles[i]->palette();
        p.setColor(QPalette::WindowText, colourOf(mark, palette()));
        m_titles[i]->setPalette(p);
        m_texts[i]->setText(rules[i].evidence);
        m_texts[i]->setToolTip(rules[i].evidence);
    }
}

QString RulesPanel::ruleText(int n) const
{
    return n >= 1 && n <= 5 ? m_titles[n - 1]->text() + QLatin1Char('\n') + m_texts[n - 1]->text() : QString();
}

} // namespace reprint::views
